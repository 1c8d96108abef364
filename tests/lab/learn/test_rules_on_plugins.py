"""Learned rules on a plugin set: after a resolver of the user's own, and by run and precision."""

from __future__ import annotations

import asyncio
import io
import json
import sqlite3
from typing import TYPE_CHECKING, Any

from agent_lab.agents.decide import decide
from agent_lab.agents.learned_rules import with_rules
from agent_lab.agents.plugins import PluginSet
from agent_lab.cli import run
from agent_lab.demo import plugins as demo_plugins
from agent_lab.kernel.models import Event, EventDefinition, Resolution
from agent_lab.resolvers.learned import Evidence, LearnedRule, RuleBook
from agent_lab.resolvers.schema import SchemaResolver

if TYPE_CHECKING:
    from pathlib import Path

    from agent_lab.strict_json import JSONObject

NOW = {"now": "2026-12-01T09:00"}
BIG_APPLE = "what's the weather doing in the Big Apple today"
EVIDENCE = Evidence(support=30, right=30, wrong=0, low=0.9)


def alias(tool: str, parameter: str, phrase: str, value: Any) -> LearnedRule:
    return LearnedRule(
        kind="alias", tool=tool, parameter=parameter, phrase=phrase, value=value, evidence=EVIDENCE
    )


BOOK = RuleBook(rules=(alias("get_weather", "city", "the big apple", "New York"),))


def weather(text: str, plugins: PluginSet) -> tuple[str, Any]:
    decision = decide([{"role": "user", "content": text}], plugins, context=NOW)
    return str(decision.status), decision.arguments


def test_a_rule_fills_what_the_users_own_resolver_left_out() -> None:
    assert weather(BIG_APPLE, demo_plugins)[0] == "missing_information"
    assert weather(BIG_APPLE, with_rules(demo_plugins, BOOK)) == (
        "success",
        {"city": "New York", "day_offset": 0},
    )


def test_what_the_users_resolver_reads_wins_over_a_rule() -> None:
    """A rule fills only what the resolver left out: Paris stays Paris."""
    book = RuleBook(rules=(alias("get_weather", "city", "weather", "New York"),))
    assert weather("what's the weather in Paris today", with_rules(demo_plugins, book)) == (
        "success",
        {"city": "Paris", "day_offset": 0},
    )


def test_rules_naming_no_event_leave_the_plugin_set_as_it_was() -> None:
    book = RuleBook(rules=(alias("book_flight", "city", "the big apple", "New York"),))
    assert with_rules(demo_plugins, book) is demo_plugins


CITY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "The city"}},
    "required": ["city"],
}


def test_a_schema_driven_event_is_read_with_the_rules_in_its_schema() -> None:
    plugins = PluginSet(
        "imported",
        (
            EventDefinition(
                "get_weather", parameters=CITY_SCHEMA, resolver=SchemaResolver(CITY_SCHEMA)
            ),
        ),
    )
    applied = with_rules(plugins, BOOK)
    resolver = applied.definitions[0].resolver
    assert isinstance(resolver, SchemaResolver)
    found = resolver(Event("get_weather", text="rain in the big apple?"))
    assert dict(found.arguments) == {"city": "New York"}
    assert found.missing == ()


def test_an_async_resolver_and_a_plain_mapping_are_followed_by_the_rules() -> None:
    async def reads_nothing(event: Event) -> dict[str, Any]:
        return {}

    def says_missing(event: Event) -> Resolution:
        return Resolution({}, missing=("city",))

    for own in (reads_nothing, says_missing):
        plugins = PluginSet(
            "own", (EventDefinition("get_weather", parameters=CITY_SCHEMA, resolver=own),)
        )
        resolver = with_rules(plugins, BOOK).definitions[0].resolver
        assert resolver is not None
        found: Any = resolver(Event("get_weather", text="rain in the big apple?"))
        if asyncio.iscoroutine(found):
            found = asyncio.run(found)
        arguments = found.arguments if isinstance(found, Resolution) else found
        assert dict(arguments) == {"city": "New York"}
        if isinstance(found, Resolution):
            assert found.missing == ()


def test_a_rule_whose_value_the_schema_rejects_never_fires() -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "enum": ["Paris", "Oslo"]}},
        "required": ["city"],
    }
    plugins = PluginSet(
        "own", (EventDefinition("get_weather", parameters=schema, resolver=lambda e: {}),)
    )
    resolver = with_rules(plugins, BOOK).definitions[0].resolver
    assert resolver is not None
    assert resolver(Event("get_weather", text="rain in the big apple?")) == {}


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def workload_and_rules(tmp_path: Path) -> tuple[Path, Path]:
    case = {
        "id": "big-apple",
        "event": "get_weather",
        "text": BIG_APPLE,
        "context": NOW,
        "expected": {"status": "success", "arguments": {"city": "New York", "day_offset": 0}},
    }
    workload = tmp_path / "w.jsonl"
    workload.write_text(json.dumps(case) + "\n")
    rules = tmp_path / "rules.json"
    rules.write_text(BOOK.dumps())
    return workload, rules


def test_run_applies_a_rules_file_and_records_it(tmp_path: Path) -> None:
    workload, rules = workload_and_rules(tmp_path)
    outcomes: dict[bool, tuple[int, str]] = {}
    for with_file in (False, True):
        db = tmp_path / f"r{with_file}.sqlite"
        argv = ["run", str(workload), "--plugins", "agent_lab.demo:plugins", "--db", str(db)]
        argv += ["--policy", "deterministic-only", "--no-progress", "--warmup", "0"]
        code, _, err = cli(*argv, *(["--rules", str(rules)] if with_file else []))
        assert code == 0, err
        with sqlite3.connect(db) as connection:
            (correct,) = connection.execute("SELECT correct FROM trials").fetchone()
            (recorded,) = connection.execute("SELECT plugins FROM runs").fetchone()
        outcomes[with_file] = (correct, recorded)
    assert outcomes[False] == (0, "agent_lab.demo:plugins")
    correct, recorded = outcomes[True]
    assert correct == 1
    assert recorded.startswith("agent_lab.demo:plugins with rules rules.json (")
    code, out, err = cli("report", str(tmp_path / "rTrue.sqlite"))
    assert code == 0, err
    assert f"Plugins: {recorded}" in out  # the terminal report says it, as the page does


def test_precision_counts_what_the_rules_fill(tmp_path: Path) -> None:
    workload, rules = workload_and_rules(tmp_path)
    argv = ["precision", str(workload), "--plugins", "agent_lab.demo:plugins", "--json"]
    filled: dict[bool, int] = {}
    for with_file in (False, True):
        code, out, err = cli(*argv, *(["--rules", str(rules)] if with_file else []))
        assert code == 0, err
        filled[with_file] = json.loads(out)["overall"]["filled"]
    assert filled[True] == filled[False] + 1


def test_a_rules_file_that_names_no_event_is_said(tmp_path: Path) -> None:
    workload, rules = workload_and_rules(tmp_path)
    other = RuleBook(rules=(alias("book_flight", "city", "the big apple", "New York"),))
    rules.write_text(other.dumps())
    code, _, err = cli(
        "precision", str(workload), "--plugins", "agent_lab.demo:plugins", "--rules", str(rules)
    )
    assert code == 0
    assert "none of its 1 rules names one of these events" in err


def test_a_missing_rules_file_is_one_line(tmp_path: Path) -> None:
    workload, _ = workload_and_rules(tmp_path)
    code, _, err = cli(
        "precision", str(workload), "--plugins", "agent_lab.demo:plugins", "--rules", "nope.json"
    )
    assert code == 2
    assert err.count("\n") == 1
    assert "no such rules file" in err


def cases(count: int, start: int = 0) -> str:
    """Weather cases whose city is said in other words: the big apple, the windy city."""
    said = (("the big apple", "New York"), ("the windy city", "Chicago"))
    lines: list[str] = []
    for n in range(start, start + count):
        phrase, city = said[n % 2]
        case = {
            "id": f"w{n}",
            "event": "get_weather",
            "text": f"what's the weather like in {phrase} today (ticket {n})",
            "context": NOW,
            "expected": {"status": "success", "arguments": {"city": city, "day_offset": 0}},
        }
        lines.append(json.dumps(case) + "\n")
    return "".join(lines)


def test_learn_reads_a_workload_with_its_plugins_and_run_applies_what_it_kept(
    tmp_path: Path,
) -> None:
    """Learned on one workload's cases, with the demo's own resolvers; run on other cases."""
    learn_on, run_on = tmp_path / "learn.jsonl", tmp_path / "run.jsonl"
    learn_on.write_text(cases(120))
    run_on.write_text(cases(10, start=1000))
    rules = tmp_path / "rules.json"
    code, out, err = cli(
        "learn", "--workload", str(learn_on), "--plugins", "agent_lab.demo:plugins",
        "--out", str(rules), "--min-precision", "0.9", "--min-support", "10", "--json",
    )  # fmt: skip
    assert code == 0, err
    document = json.loads(out)
    kept = {(r["parameter"], r["phrase"], r["value"]) for r in document["rules"]["rules"]}
    assert ("city", "the big apple", "New York") in kept
    assert ("city", "the windy city", "Chicago") in kept
    assert document["rules"]["source"]["plugins"] == "agent_lab.demo:plugins"
    assert document["held_out"]["covered_before"]["right"] == 0
    correct: dict[bool, int] = {}
    for with_file in (False, True):
        db = tmp_path / f"r{with_file}.sqlite"
        argv = ["run", str(run_on), "--plugins", "agent_lab.demo:plugins", "--db", str(db)]
        argv += ["--policy", "deterministic-only", "--no-progress", "--warmup", "0"]
        code, _, err = cli(*argv, *(["--rules", str(rules)] if with_file else []))
        assert code == 0, err
        with sqlite3.connect(db) as connection:
            (correct[with_file],) = connection.execute("SELECT SUM(correct) FROM trials").fetchone()
    assert (correct[False], correct[True]) == (0, 10)


def test_learn_with_a_workload_needs_its_plugins(tmp_path: Path) -> None:
    learn_on = tmp_path / "learn.jsonl"
    learn_on.write_text(cases(4))
    code, _, err = cli("learn", "--workload", str(learn_on), "--out", str(tmp_path / "r.json"))
    assert code == 2
    assert "plugin set" in err


WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {"name": "get_weather", "parameters": CITY_SCHEMA},
}


def reads_nothing(event: Event) -> dict[str, Any]:
    return {}


def test_rules_apply_to_a_plugin_sets_own_tools_in_shadow_and_the_envelope() -> None:
    """--plugins beside --rules: the user's resolver first, then the rules, on every path."""
    from agent_lab.answering import Answerer, Asked, LocalAnswer
    from agent_lab.log_replay.replayed import Replayed, replay
    from agent_lab.logs.record import LogFormat, LoggedRequest, LoggedToolCall

    own = PluginSet(
        "own", (EventDefinition("get_weather", parameters=CITY_SCHEMA, resolver=reads_nothing),)
    )
    said: list[JSONObject] = [{"role": "user", "content": "get the weather in the big apple"}]
    request = LoggedRequest(
        where="logs.jsonl:1",
        format=LogFormat.CHAT,
        messages=tuple(said),
        tools=(WEATHER_TOOL,),
        calls=(LoggedToolCall(name="get_weather", arguments={"city": "New York"}, raw=""),),
    )
    replayed = replay(request, Answerer(own, rules=BOOK))
    assert isinstance(replayed, Replayed)
    assert (replayed.covered, replayed.agreed) == (True, True)
    answer = Answerer(own, rules=BOOK).answer(Asked(messages=said, tools=[WEATHER_TOOL]))
    assert isinstance(answer, LocalAnswer)
    assert answer.decision.arguments == {"city": "New York"}
    without = replay(request, Answerer(own))
    assert isinstance(without, Replayed)
    assert not without.covered


def test_rules_for_any_tool_are_not_said_to_name_no_event(tmp_path: Path) -> None:
    workload, rules = workload_and_rules(tmp_path)
    anywhere = RuleBook(rules=(alias("*", "city", "the big apple", "New York"),))
    rules.write_text(anywhere.dumps())
    argv = ["precision", str(workload), "--plugins", "agent_lab.demo:plugins", "--json"]
    code, out, err = cli(*argv, "--rules", str(rules))
    assert code == 0, err
    assert "names one of these events" not in err
    assert json.loads(out)["overall"]["filled"] > 0
