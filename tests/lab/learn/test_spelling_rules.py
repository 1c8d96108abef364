"""Spelling rules: how a deployment's calls write a name its users spell otherwise."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from agent_lab.answering import Answerer
from agent_lab.answering.answers import LocalAnswer
from agent_lab.answering.asked import Asked
from agent_lab.errors import InputFileError
from agent_lab.kernel.models import Event
from agent_lab.lab.learn.examples import conversation_of, held_out
from agent_lab.lab.learn.learning import LearnSettings, learn
from agent_lab.log_replay.replayed import Replayed, replay
from agent_lab.logs import LoggedRequest, read_logs
from agent_lab.resolvers.learned import ANY_TOOL, Evidence, LearnedRule, RuleBook, load_rules
from agent_lab.resolvers.schema import SchemaResolver
from tests.logs.lines import jsonl, pair_line

if TYPE_CHECKING:
    from pathlib import Path

SETTINGS = LearnSettings(holdout=0.3, min_precision=0.9, min_support=5, seed=0)
COUNT = 500


def tool(name: str, parameter: str, description: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {parameter: {"type": "string", "description": description}},
                "required": [parameter],
            },
        },
    }


FORECAST = tool("get_forecast", "city", "The city to forecast")
FERRY = tool("ferry_departures", "port", "The port to sail from")
EVIDENCE = Evidence(support=9, right=9, wrong=0, low=0.95)


def spelling(phrase: str, value: str, parameter: str = ANY_TOOL) -> LearnedRule:
    return LearnedRule(
        kind="spelling",
        tool=ANY_TOOL,
        parameter=parameter,
        phrase=phrase,
        value=value,
        evidence=EVIDENCE,
    )


def read(book: RuleBook, spec: dict[str, Any], text: str) -> dict[str, Any]:
    (annotated,) = book.annotate([spec])
    resolver = SchemaResolver(annotated["function"]["parameters"])  # type: ignore[index,arg-type]
    return dict(resolver(Event(spec["function"]["name"], text=text)).arguments)


def test_a_spelling_rewrites_the_whole_value_read_in_any_case_and_nothing_else() -> None:
    book = RuleBook(rules=(spelling("Mowtan", "Detroit"),))
    assert read(book, FORECAST, "What's the weather in Mowtan today?") == {"city": "Detroit"}
    lower = RuleBook(rules=(spelling("mowtan", "Detroit"),))  # a rule in another case
    assert read(lower, FORECAST, "What's the weather in Mowtan today?") == {"city": "Detroit"}
    # A value that only holds the phrase is another name: it is kept as read.
    assert read(book, FORECAST, "Weather in Mowtan City, please") == {"city": "Mowtan City"}
    assert read(book, FORECAST, "Is it raining in Frisco?") == {"city": "Frisco"}


def test_a_spelling_holds_for_every_free_form_parameter_of_every_tool() -> None:
    """Learned on forecasts, it spells a ferry's port too: a tool the logs never showed."""
    book = RuleBook(rules=(spelling("Beantown", "Boston"),))
    ferry = tool("sailings", "from_port", "The port to sail from")
    assert read(book, ferry, "Sailings from Beantown on Friday?") == {"from_port": "Boston"}
    for own in ({"type": "string", "enum": ["Beantown", "Boston"]}, {"type": "integer"}):
        spec = json.loads(json.dumps(ferry))
        spec["function"]["parameters"]["properties"]["from_port"] = own
        (annotated,) = book.annotate([spec])
        assert annotated["function"]["parameters"]["properties"]["from_port"] == own  # type: ignore[index]
    only_city = RuleBook(rules=(spelling("Beantown", "Boston", "city"),))
    assert read(only_city, ferry, "Sailings from Beantown on Friday?") == {"from_port": "Beantown"}


def test_spellings_for_every_parameter_are_written_once_per_tool() -> None:
    """Not once per parameter: 100,000 spellings in 20 parameters annotated in 11 s to 57 MB."""

    def town(n: int) -> str:  # "Qab", "Qac"...: a name the reader reads
        return "Q" + "".join(chr(97 + int(d)) for d in str(n))

    book = RuleBook(rules=tuple(spelling(town(n), f"City {n}") for n in range(1_000)))
    properties = {f"place_{n}": {"type": "string", "description": "A town"} for n in range(20)}
    spec = tool("visit", "place_0", "A town")
    spec["function"]["parameters"]["properties"] = properties
    (annotated,) = book.annotate([spec])
    assert json.dumps(annotated).count("City ") == 1_000
    assert read(book, FORECAST, f"What's the weather in {town(417)} today?") == {"city": "City 417"}


def test_a_spelling_is_not_written_where_the_schema_refuses_it() -> None:
    spec = json.loads(json.dumps(FORECAST))
    spec["function"]["parameters"]["properties"]["city"]["maxLength"] = 6
    book = RuleBook(rules=(spelling("Mowtan", "Detroit"),))
    assert read(book, spec, "What's the weather in Mowtan today?") == {"city": "Mowtan"}


def test_a_spelling_reaches_the_conversation_reader_and_every_caller_of_the_answerer() -> None:
    """The value is said turns before the call: the reader's reading is respelled too.

    A name GeoNames does not know ("Motown" it does: Detroit), so that only the rule
    respells it.
    """
    messages = (
        {"role": "user", "content": "I'd like the forecast, please."},
        {"role": "assistant", "content": "Sure, which city?"},
        {"role": "user", "content": "Mowtan, please."},
    )
    asked = Asked(messages=messages, tools=(FORECAST, FERRY))
    without = Answerer().answer(asked)
    assert isinstance(without, LocalAnswer)
    assert [call.arguments for call in without.calls] == [{"city": "Mowtan"}]
    book = RuleBook(rules=(spelling("Mowtan", "Detroit"),))
    answer = Answerer(rules=book).answer(asked)
    assert isinstance(answer, LocalAnswer)
    assert [call.arguments for call in answer.calls] == [{"city": "Detroit"}]


def test_a_value_said_turns_before_the_call_is_respelled_too() -> None:
    """Earlier turns are read with the rules as the last message is (they were read without)."""
    messages = (
        {"role": "user", "content": "Can I get a forecast?"},
        {"role": "assistant", "content": "Of course. For which city?"},
        {"role": "user", "content": "Mowtan."},
        {"role": "assistant", "content": "And for which day?"},
        {"role": "user", "content": "Tomorrow, please."},
    )
    spec = json.loads(json.dumps(FORECAST))
    spec["function"]["parameters"]["properties"]["day"] = {
        "type": "string",
        "format": "date",
        "description": "The day to forecast",
    }
    asked = Asked(messages=messages, tools=(spec, FERRY))
    now = "2026-03-02T09:00:00+00:00"
    without = Answerer().answer(asked, now=now)
    assert isinstance(without, LocalAnswer)
    assert [call.arguments for call in without.calls] == [{"city": "Mowtan", "day": "2026-03-03"}]
    book = RuleBook(rules=(spelling("Mowtan", "Detroit"),))
    answer = Answerer(rules=book).answer(asked, now=now)
    assert isinstance(answer, LocalAnswer)
    assert [call.arguments for call in answer.calls] == [{"city": "Detroit", "day": "2026-03-03"}]


def test_the_words_a_spelling_rewrote_count_as_read() -> None:
    """ "Mowtan City" written "Mowtan" (as "New York City" is "New York") leaves no "City"."""
    book = RuleBook(rules=(spelling("Mowtan City", "Mowtan"),))
    spec = json.loads(json.dumps(FORECAST))
    # A second name the words might give: a word left unread would be a sign of it.
    spec["function"]["parameters"]["properties"]["outing"] = {
        "type": "string",
        "description": "Name of the outing the forecast is for",
    }
    asked = Asked(
        messages=({"role": "user", "content": "What's the forecast in Mowtan City?"},),
        tools=(spec, FERRY),
    )
    answer = Answerer(rules=book).answer(asked)
    assert isinstance(answer, LocalAnswer)
    assert [call.arguments for call in answer.calls] == [{"city": "Mowtan"}]


def test_a_learned_constant_is_no_value_the_words_give_another_tool() -> None:
    """The reader reads the words with the rules that read words: not with a constant."""
    ferry = json.loads(json.dumps(FERRY))
    ferry["function"]["parameters"]["properties"]["with_pets"] = {
        "type": "boolean",
        "description": "Whether a pet travels too",
    }
    constant = LearnedRule(
        kind="constant", tool="ferry_departures", parameter="with_pets", value=True,
        evidence=EVIDENCE,
    )  # fmt: skip
    asked = Asked(
        messages=({"role": "user", "content": "I need the forecast in Mowtan."},),
        tools=(FORECAST, ferry),
    )
    answer = Answerer(rules=RuleBook(rules=(constant,))).answer(asked)
    assert isinstance(answer, LocalAnswer)
    assert [(call.name, call.arguments) for call in answer.calls] == [
        ("get_forecast", {"city": "Mowtan"})
    ]


@pytest.mark.parametrize(
    ("spellings", "refused"),
    [
        ([("Mowtan", 123)], "a spelling's value is words"),
        ([("Mowtan", {"city": "Detroit"})], "a spelling's value is words"),
        ([("Mowtan", "  ")], "a spelling's value is words"),
        ([("Mowtan", "Detroit"), ("MOWTAN", "Detroit City")], "spelt two ways"),
        ([(f"Big Apple {n}", "New York") for n in range(101)], "spelt over 100 ways"),
    ],
)
def test_a_rules_file_with_spellings_no_reader_can_use_is_refused(
    tmp_path: Path, spellings: list[tuple[str, Any]], refused: str
) -> None:
    """A reviewer's: such values reached calls (a number, an object, a blank), and 100,000
    spellings of one value cost a minute a request."""
    rules = [
        {"kind": "spelling", "tool": "*", "parameter": "*", "phrase": phrase, "value": value}
        for phrase, value in spellings
    ]
    path = tmp_path / "rules.json"
    path.write_text(json.dumps({"format": "agent-lab.rules/1", "rules": rules}))
    with pytest.raises(InputFileError, match=refused):
        load_rules(path)


def test_a_spelling_that_makes_two_names_one_reads_neither() -> None:
    """Respelt "from Beantown to Boston" would send a trip from Boston to Boston."""
    trip = tool("bus_times", "origin", "Where the bus leaves from")
    trip["function"]["parameters"]["properties"]["destination"] = {
        "type": "string",
        "description": "Where the bus goes to",
    }
    book = RuleBook(rules=(spelling("Beantown", "Boston"),))
    text = "Buses from Beantown to Boston tomorrow?"
    assert read(RuleBook(rules=()), trip, text) == {"origin": "Beantown", "destination": "Boston"}
    assert read(book, trip, text) == {}


def test_a_spelling_rule_round_trips_and_one_without_its_phrase_is_refused(
    tmp_path: Path,
) -> None:
    rule = spelling("Mowtan", "Detroit")
    path = tmp_path / "rules.json"
    path.write_text(RuleBook(rules=(rule,)).dumps())
    assert load_rules(path).rules == (rule,)
    data = json.loads(path.read_text())
    del data["rules"][0]["phrase"]
    path.write_text(json.dumps(data))
    with pytest.raises(InputFileError, match="has no phrase"):
        load_rules(path)


# Learning: two tools with parameters of their own names, users who say the short forms.
SAID = {  # as the users say it -> as the deployment's calls write it
    "Mowtan": "Detroit",
    "Beantown": "Boston",
    "Nola": "New Orleans",
}
KEPT = ("Denver", "Austin")  # names the calls keep as said


def line(conversation: int, spec: dict[str, Any], text: str, value: str) -> dict[str, Any]:
    name = spec["function"]["name"]
    parameter = next(iter(spec["function"]["parameters"]["properties"]))
    messages = [
        {"role": "system", "content": f"You help travellers (session {conversation})."},
        {"role": "user", "content": text},
    ]
    call = {"name": name, "arguments": json.dumps({parameter: value})}
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_1", "type": "function", "function": call}],
    }
    made = pair_line(message)
    made["request"] = {"model": "gpt-4o-mini", "messages": messages, "tools": [FORECAST, FERRY]}
    return made


def conversations(count: int) -> list[dict[str, Any]]:
    names = [*SAID, *KEPT]
    made: list[dict[str, Any]] = []
    for n in range(count):
        said = names[n % len(names)]
        written = SAID.get(said, said)
        if n % 2:
            made.append(line(n, FORECAST, f"What's the weather in {said} today?", written))
        else:
            made.append(line(n, FERRY, f"When do ferries leave from {said}?", written))
    return made


def is_held(request: LoggedRequest) -> bool:
    return held_out(conversation_of(request), share=SETTINGS.holdout, seed=SETTINGS.seed)


def requests_of(lines: list[dict[str, Any]], tmp_path: Path) -> list[LoggedRequest]:
    path = tmp_path / "logs.jsonl"
    path.write_text(jsonl(*lines))
    return [r for r in read_logs([path]) if isinstance(r, LoggedRequest)]


def spellings(book: RuleBook) -> set[tuple[str, str, Any]]:
    return {(r.parameter, str(r.phrase), r.value) for r in book.rules if r.kind == "spelling"}


def test_learn_keeps_the_spellings_held_out_calls_prove_and_they_then_agree(
    tmp_path: Path,
) -> None:
    requests = requests_of(conversations(COUNT), tmp_path)
    learned = learn(requests, SETTINGS, source={})
    kept = spellings(learned.rules)
    assert kept, learned.verdicts.refused
    assert kept <= {(ANY_TOOL, s, w) for s, w in SAID.items()}
    assert all(r.tool == ANY_TOOL for r in learned.rules.rules if r.kind == "spelling")
    # A name the calls keep as said is never rewritten.
    assert not {s for _, s, _ in kept} & set(KEPT)
    assert learned.gain.after.agreed > learned.gain.before.agreed
    held = [r for r in requests if is_held(r)]
    answerer = Answerer(rules=learned.rules)
    for request in held:
        replayed = replay(request, answerer)
        assert isinstance(replayed, Replayed)
        if replayed.covered:
            assert replayed.produced == request.calls[0].arguments


def test_the_gate_judges_every_spelling_together_and_refuses_one_wrong_held_out(
    tmp_path: Path,
) -> None:
    made = conversations(COUNT)
    # Held out, the forecast's calls keep "Mowtan" as said: the rule is wrong there.
    motown = line(1, FORECAST, "What's the weather in Mowtan today?", "Mowtan")
    requests = requests_of(made, tmp_path)
    wrong = [
        n
        for n, request in enumerate(requests)
        if is_held(request) and n % 2 and "Mowtan" in str(request.messages[-1]["content"])
    ]
    assert wrong
    for n in wrong[:1]:
        made[n] = {**motown, "request": {**motown["request"], "messages": [
            {"role": "system", "content": f"You help travellers (session {n})."},
            {"role": "user", "content": "What's the weather in Mowtan today?"},
        ]}}  # fmt: skip
    requests = requests_of(made, tmp_path)
    learned = learn(requests, SETTINGS, source={})
    refused = {
        (r.candidate.parameter, r.candidate.phrase): r.reason
        for r in learned.verdicts.refused
        if r.candidate.kind == "spelling"
    }
    assert refused.get((ANY_TOOL, "Mowtan")) == "wrong_held_out"
    assert (ANY_TOOL, "Mowtan", "Detroit") not in spellings(learned.rules)
