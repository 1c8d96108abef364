"""agent-lab learn: rules mined on training conversations, admitted only on held-out evidence."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from agent_lab.agents.decide import decide
from agent_lab.answering import Answerer
from agent_lab.cli import run
from agent_lab.errors import AgentLabError, InputFileError, MissingInputError
from agent_lab.lab.learn.examples import conversation_of, examples_of, held_out
from agent_lab.lab.learn.gate import admit
from agent_lab.lab.learn.learning import LearnSettings, learn
from agent_lab.lab.learn.mine import mine, phrases
from agent_lab.log_replay.replayed import Replayed, replay
from agent_lab.logs import LoggedRequest, read_logs
from agent_lab.resolvers.learned import Evidence, LearnedRule, RuleBook, load_rules
from tests.logs.lines import jsonl, pair_line

CITY = {"type": "string", "description": "The city"}
UNIT = {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Degrees"}
WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather forecast for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": CITY, "unit": UNIT},
            "required": ["city", "unit"],
        },
    },
}
SETTINGS = LearnSettings(holdout=0.3, min_precision=0.9, min_support=5, seed=0)


def line(conversation: int, text: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One logged request: its own conversation (the system message says which)."""
    messages = [
        {"role": "system", "content": f"You help with the weather (session {conversation})."},
        {"role": "user", "content": text},
    ]
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": json.dumps(arguments)},
            }
        ],
    }
    made = pair_line(message)
    made["request"] = {"model": "gpt-4o-mini", "messages": messages, "tools": [WEATHER]}
    return made


def is_held(made: dict[str, Any]) -> bool:
    request = next(r for r in read_logs_text(jsonl(made)) if isinstance(r, LoggedRequest))
    return held_out(conversation_of(request), share=SETTINGS.holdout, seed=SETTINGS.seed)


def read_logs_text(text: str) -> list[Any]:
    # A folder of its own, removed after reading: this runs once per example, and
    # a folder left behind each time filled the machine's temporary directory.
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "one.jsonl"
        path.write_text(text)
        return list(read_logs([path]))


Said = tuple[str, dict[str, Any]]


def logs(count: int, *, train: Said, held: Said, other: Said | None = None) -> list[dict[str, Any]]:
    """``count`` conversations: the training ones say ``train``, the held-out ones ``held``;
    every other one says ``other`` instead, when given (so that a parameter takes two values)."""
    made: list[dict[str, Any]] = []
    for conversation in range(count):
        if other is not None and conversation % 2:
            made.append(line(conversation, *other))
            continue
        probe = line(conversation, *train)
        made.append(line(conversation, *held) if is_held(probe) else probe)
    return made


def requests_of(lines: list[dict[str, Any]], tmp_path: Path) -> list[LoggedRequest]:
    path = tmp_path / "logs.jsonl"
    path.write_text(jsonl(*lines))
    return [r for r in read_logs([path]) if isinstance(r, LoggedRequest)]


APPLE = ("get the weather in the big apple in celsius", {"city": "New York", "unit": "celsius"})
WINDY = ("get the weather in the windy city in celsius", {"city": "Chicago", "unit": "celsius"})
COUNT = 150
"""Conversations per test log: about 45 held out, enough for a 90% bound to be cleared."""


def test_an_alias_that_holds_held_out_is_kept_and_then_covers_the_request(
    tmp_path: Path,
) -> None:
    requests = requests_of(logs(COUNT, train=APPLE, held=APPLE, other=WINDY), tmp_path)
    learned = learn(requests, SETTINGS, source={})
    aliases = {(r.phrase, r.value) for r in learned.rules.rules if r.kind == "alias"}
    assert ("the big apple", "New York") in aliases
    assert learned.gain.before.covered == 0
    assert learned.gain.after.covered == learned.gain.after.calls > 0
    assert learned.gain.after.agreed == learned.gain.after.covered
    replayed = replay(requests[0], Answerer(rules=learned.rules))
    assert isinstance(replayed, Replayed)
    assert replayed.covered
    assert replayed.produced == {"city": "New York", "unit": "celsius"}


def test_the_gate_refuses_an_alias_that_fits_training_but_fails_held_out(
    tmp_path: Path,
) -> None:
    """Training says the big apple is New York; the held-out conversations meant Cupertino."""
    held = ("get the weather in the big apple in celsius", {"city": "Cupertino", "unit": "celsius"})
    requests = requests_of(logs(COUNT, train=APPLE, held=held, other=WINDY), tmp_path)
    examples = examples_of(requests)
    train = [e for e in examples if not held_out(e.conversation, share=0.3, seed=0)]
    candidates = mine(train)
    assert any(c.phrase == "the big apple" and c.value == "New York" for c in candidates)
    learned = learn(requests, SETTINGS, source={})
    assert not [r for r in learned.rules.rules if r.parameter == "city"]
    reasons = {r.candidate.phrase: r.reason for r in learned.verdicts.refused}
    assert reasons["the big apple"] == "wrong_held_out"
    assert learned.gain.after.covered == learned.gain.before.covered == 0


APPLE_NO_UNIT = ("get the weather in the big apple", {"city": "New York", "unit": "celsius"})
WINDY_NO_UNIT = ("get the weather in the windy city", {"city": "Chicago", "unit": "celsius"})


def test_a_constant_is_kept_where_held_out_agrees_and_refused_where_it_does_not(
    tmp_path: Path,
) -> None:
    """Nobody says the unit; the calls always give celsius, until the held-out ones do not."""
    kept = learn(
        requests_of(logs(COUNT, train=APPLE_NO_UNIT, held=APPLE_NO_UNIT, other=WINDY_NO_UNIT),
                    tmp_path),
        SETTINGS,
        source={},
    )  # fmt: skip
    assert ("constant", "unit", "celsius") in {
        (r.kind, r.parameter, r.value) for r in kept.rules.rules
    }
    assert kept.gain.after.covered > kept.gain.before.covered == 0
    fahrenheit = ("get the weather in the big apple", {"city": "New York", "unit": "fahrenheit"})
    refused = learn(
        requests_of(logs(COUNT, train=APPLE_NO_UNIT, held=fahrenheit, other=WINDY_NO_UNIT),
                    tmp_path),
        SETTINGS,
        source={},
    )  # fmt: skip
    assert not [r for r in refused.rules.rules if r.kind == "constant"]
    assert [r.reason for r in refused.verdicts.refused if r.candidate.kind == "constant"] == [
        "wrong_held_out"
    ]


def test_a_group_below_the_bound_is_refused_however_clean_its_rules() -> None:
    """Five right of five is no 99% at the Wilson lower bound: nothing on so little."""
    from agent_lab.lab.learn.examples import Example
    from agent_lab.lab.learn.mine import Candidate

    kinds = {"city": "free-form"}
    examples = [
        Example(
            conversation=str(n),
            tool="get_weather",
            text="weather in the big apple",
            arguments={"city": "New York"},
            read={},
            kinds=kinds,
            schema={"type": "object", "properties": {"city": CITY}},
            context={},
        )
        for n in range(5)
    ]
    candidate = Candidate(
        kind="alias",
        tool="get_weather",
        parameter="city",
        value="New York",
        phrase="big apple",
        support=9,
        examples=(),
    )
    verdicts = admit([candidate], examples, min_precision=0.99, min_support=1)
    assert verdicts.kept == ()
    assert verdicts.refused[0].reason == "group_below_bound"
    assert verdicts.refused[0].right == 5


def test_phrases_are_runs_of_up_to_three_words_never_stopwords_alone() -> None:
    assert phrases("In the Big Apple") == {
        "big", "apple", "big apple", "the big", "in the big", "the big apple",
    }  # fmt: skip


def rule(**changes: Any) -> LearnedRule:
    fields: dict[str, Any] = {
        "kind": "alias",
        "tool": "get_weather",
        "parameter": "city",
        "value": "New York",
        "phrase": "big apple",
        "evidence": Evidence(support=9, right=40, wrong=0, low=0.91, examples=("the big apple",)),
    }
    fields.update(changes)
    return LearnedRule(**fields)


def test_the_rules_file_round_trips(tmp_path: Path) -> None:
    book = RuleBook(
        rules=(rule(), rule(kind="constant", parameter="unit", value="celsius", phrase=None)),
        source={"logs": ["a.jsonl"], "sha256": "0" * 64},
    )
    path = tmp_path / "rules.json"
    path.write_text(book.dumps())
    assert load_rules(path) == book


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not JSON"),
        ('{"format": "other", "rules": []}', "not a rules file"),
        ('{"format": "agent-lab.rules/1", "rules": {}}', "not a list"),
        ('{"format": "agent-lab.rules/1", "rules": [{"kind": "x"}]}', "kind is none of"),
        (
            '{"format": "agent-lab.rules/1", "rules": [{"kind": "alias", "tool": "t", '
            '"parameter": "p", "value": 1}]}',
            "has no phrase",
        ),
        ('{"format": "agent-lab.rules/1", "tools_seen": "get_weather", "rules": []}',
         "tools_seen is not a list"),
        ('{"format": "agent-lab.rules/1", "tools_seen": [1], "rules": []}',
         "tools_seen is not a list"),
        ('{"format": "agent-lab.rules/1", "rules": [{"kind": "constant", "tool": "t", '
         '"parameter": "p", "value": 1, "evidence": {"heldout_low": "abc"}}]}',
         "heldout_low is not a number"),
        ('{"format": "agent-lab.rules/1", "rules": [{"kind": "constant", "tool": "t", '
         '"parameter": "p", "value": ' + "[" * 100_000 + "]" * 100_000 + "}]}",
         "not JSON"),
        ('{"format": "agent-lab.rules/1", "rules": [{"kind": "route", "tool": "t", '
         '"parameter": "", "value": null, "phrase": "\\ud800"}]}',
         "not JSON"),
        ('{"format": "agent-lab.rules/1", "format": "agent-lab.rules/1", "rules": []}',
         "not JSON"),
    ],
)  # fmt: skip
def test_a_broken_rules_file_is_a_clear_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "rules.json"
    path.write_text(text)
    with pytest.raises(InputFileError, match=message):
        load_rules(path)


def test_no_rules_file_is_a_missing_input(tmp_path: Path) -> None:
    with pytest.raises(MissingInputError):
        load_rules(tmp_path / "none.json")


def test_a_rule_never_fires_where_the_schema_would_reject_its_value() -> None:
    """An alias to a unit the enum lacks is not written into the schema at all."""
    book = RuleBook(rules=(rule(parameter="unit", value="kelvin", phrase="kelvin degrees"),))
    (annotated,) = book.annotate([WEATHER])
    written: Any = annotated
    assert "x-agent-lab" not in written["function"]["parameters"]["properties"]["unit"]
    assert WEATHER["function"]["parameters"]["properties"]["unit"] == UNIT  # not changed


def test_two_aliases_naming_two_values_fill_nothing(tmp_path: Path) -> None:
    book = RuleBook(
        rules=(
            rule(),
            rule(phrase="the apple", value="Cupertino"),
            rule(kind="constant", parameter="unit", value="celsius", phrase=None),
        )
    )
    text = ("get the weather in the big apple, the apple", {"city": "New York", "unit": "celsius"})
    (request,) = requests_of([line(1, *text)], tmp_path)
    replayed = replay(request, Answerer(rules=book))
    assert isinstance(replayed, Replayed)
    assert not replayed.covered


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_learn_writes_rules_that_shadow_applies(tmp_path: Path) -> None:
    """The command line end to end: learn, explain, then shadow with and without the rules."""
    path = tmp_path / "logs.jsonl"
    path.write_text(
        jsonl(*logs(COUNT, train=APPLE_NO_UNIT, held=APPLE_NO_UNIT, other=WINDY_NO_UNIT))
    )
    rules = tmp_path / "rules.json"
    code, out, err = cli(
        "learn", str(path), "--out", str(rules), "--min-precision", "0.9", "--min-support", "5"
    )
    assert code == 0, err
    assert "1 constant)" in " ".join(out.split())
    assert json.loads(rules.read_text())["source"]["logs"] == ["logs.jsonl"]
    code, out, _ = cli("learn", "--explain", str(rules))
    assert code == 0
    assert "celsius" in out
    assert "big apple" in out
    covered: list[int] = []
    for extra in ((), ("--rules", str(rules))):
        code, out, err = cli("shadow", str(path), "--json", *extra)
        assert code == 0, err
        covered.append(json.loads(out)["covered"])
    assert covered[0] == 0
    assert covered[1] == COUNT


def test_learn_says_what_is_wrong_with_its_options(tmp_path: Path) -> None:
    code, _, err = cli("learn", "--out", str(tmp_path / "r.json"))
    assert code == 2
    assert "name the log files" in err
    code, _, err = cli("learn", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "r.json"))
    assert code == 2
    assert "no such log file" in err
    code, _, err = cli("shadow", str(tmp_path / "x.jsonl"), "--rules", str(tmp_path / "no.json"))
    assert code == 2
    logs_file = tmp_path / "logs.jsonl"
    logs_file.write_text(jsonl(line(1, *APPLE)))
    for option, value, said in (
        ("--holdout", "0", "above 0 and below 1"),
        ("--holdout", "1", "above 0 and below 1"),
        ("--min-precision", "1", "never reaches 1"),
    ):
        code, _, err = cli(
            "learn", str(logs_file), "--out", str(tmp_path / "r.json"), option, value
        )
        assert (code, said in err) == (2, True), err


SAN_JOSE = ("get the weather for San Jose in celsius", {"city": "San Jose", "unit": "celsius"})
SANTA_CLARA = (
    "get the weather for Santa Clara in celsius",
    {"city": "Santa Clara", "unit": "celsius"},
)


def test_a_context_that_holds_held_out_is_kept_and_reads_names_it_never_saw(
    tmp_path: Path,
) -> None:
    """The words before a name ("for"): kept, and they read a city no log held.

    "for" is no cue the schema-driven reader knows for a city (``resolvers.names``):
    only the rule reads the name after it.
    """
    requests = requests_of(logs(COUNT, train=SAN_JOSE, held=SAN_JOSE, other=SANTA_CLARA), tmp_path)
    learned = learn(requests, SETTINGS, source={})
    contexts = {r.phrase for r in learned.rules.rules if r.kind == "context"}
    assert "for" in contexts
    assert learned.gain.after.covered > learned.gain.before.covered == 0
    (unseen,) = requests_of(
        [
            line(
                1,
                "get the weather for Palo Alto in celsius",
                {"city": "Palo Alto", "unit": "celsius"},
            )
        ],
        tmp_path,
    )
    replayed = replay(unseen, Answerer(rules=learned.rules))
    assert isinstance(replayed, Replayed)
    assert replayed.produced == {"city": "Palo Alto", "unit": "celsius"}


def test_the_gate_refuses_a_context_that_fits_training_but_fails_held_out(
    tmp_path: Path,
) -> None:
    """Held out, the name after "for" is not the city the calls were made with."""
    moved = ("get the weather for San Jose in celsius", {"city": "Cupertino", "unit": "celsius"})
    requests = requests_of(logs(COUNT, train=SAN_JOSE, held=moved, other=SANTA_CLARA), tmp_path)
    learned = learn(requests, SETTINGS, source={})
    assert not [r for r in learned.rules.rules if r.kind == "context"]
    reasons = {r.candidate.phrase: r.reason for r in learned.verdicts.refused}
    assert reasons["for"] == "wrong_held_out"


def test_a_phrase_training_never_showed_alone_gives_way_to_the_longer_one(
    tmp_path: Path,
) -> None:
    """ "city" only ever came in "the windy city": kept, it would read Kansas City as Chicago."""
    requests = requests_of(logs(COUNT, train=APPLE, held=APPLE, other=WINDY), tmp_path)
    learned = learn(requests, SETTINGS, source={})
    phrases_kept = {r.phrase for r in learned.rules.rules if r.value == "Chicago"}
    assert "the windy city" in phrases_kept
    assert not phrases_kept & {"city", "windy", "windy city"}
    # A phrase the logs never showed beside "city" is no sign of Chicago. (The held-out
    # gate measures only what the logs show: "city in celsius" still is, on them.)
    kansas = [{"role": "user", "content": "get the weather in kansas city in fahrenheit"}]
    decision = decide(kansas, learned.rules.annotate([WEATHER]))
    assert decision.arguments is None or decision.arguments.get("city") != "Chicago"


def test_a_tool_named_as_any_tool_teaches_no_rule_for_every_tool(tmp_path: Path) -> None:
    """Hostile logs naming their tool "*" (the rules' any tool) learn nothing from it."""
    made = logs(COUNT, train=APPLE, held=APPLE, other=WINDY)
    renamed = [json.loads(json.dumps(m).replace('"get_weather"', '"*"')) for m in made]
    learned = learn(requests_of(renamed, tmp_path), SETTINGS, source={})
    assert learned.rules.rules == ()
    assert learned.training == 0


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "string", "x-agent-lab": "oops"},
        {"type": "string", "x-agent-lab": {"learned": {"aliases": 5, "contexts": 7}}},
        {"type": "string", "x-agent-lab": {"learned": {"aliases": [[1, 2, 3]], "contexts": [9]}}},
        {"type": "string", "enum": "celsius"},
    ],
    ids=["hint-not-object", "learned-not-lists", "learned-odd-items", "enum-not-list"],
)
def test_a_clients_odd_hints_read_as_absent(prop: dict[str, Any], tmp_path: Path) -> None:
    """A request's tools are a client's to write: odd parts never crash a decision or learn."""
    tool = json.loads(json.dumps(WEATHER))
    tool["function"]["parameters"]["properties"]["unit"] = prop
    said = [{"role": "user", "content": "get the weather in the big apple in celsius"}]
    if "enum" in prop:  # a schema the registry refuses: its clean error, as for any client
        with pytest.raises(AgentLabError, match="not a valid schema"):
            decide(said, [tool])
    else:
        assert decide(said, [tool]).event == "get_weather"
    made = line(1, *APPLE)
    made["request"]["tools"] = [tool]
    assert examples_of(requests_of([made], tmp_path))[0].tool == "get_weather"


def test_properties_that_are_not_an_object_read_as_none(tmp_path: Path) -> None:
    tool = json.loads(json.dumps(WEATHER))
    tool["function"]["parameters"] = {"type": "object", "properties": ["city"], "required": 5}
    made = line(1, *APPLE)
    made["request"]["tools"] = [tool]
    assert examples_of(requests_of([made], tmp_path))[0].kinds == {}


def test_explain_shows_markup_and_escapes_as_written(tmp_path: Path) -> None:
    """A review screen that obeyed a rule's markup would hide what the rule says."""
    hostile = rule(phrase="[bold red]HIDDEN [/]", value="[link=http://x]Chicago[/link]\x1b[2J")
    path = tmp_path / "rules.json"
    path.write_text(RuleBook(rules=(hostile,)).dumps())
    out, err = io.StringIO(), io.StringIO()
    assert run(["learn", "--explain", str(path)], stdout=out, stderr=err) == 0, err.getvalue()
    shown = "".join(out.getvalue().split())
    assert "[boldred]HIDDEN[/]" in shown
    assert "[link=http://x]Chicago[/link]" in shown
    assert "\x1b" not in out.getvalue()
