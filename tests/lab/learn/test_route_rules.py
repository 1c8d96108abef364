"""Route rules: a phrase that picks a tool where plain code picked none, on held-out proof."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agent_lab.agents.decide import decide
from agent_lab.agents.learned_rules import with_rules
from agent_lab.agents.tool_specs import plugins_from_tools
from agent_lab.answering import Answerer
from agent_lab.kernel.ledger import RouteKind
from agent_lab.lab.learn.examples import Example, conversation_of, held_out
from agent_lab.lab.learn.gate import admit
from agent_lab.lab.learn.learning import LearnSettings, learn
from agent_lab.lab.learn.mine import Candidate
from agent_lab.log_replay.replayed import Replayed, replay
from agent_lab.logs import LoggedRequest, read_logs
from agent_lab.resolvers.learned import Evidence, LearnedRule, RuleBook, load_rules
from tests.logs.lines import jsonl, pair_line

if TYPE_CHECKING:
    from pathlib import Path

SETTINGS = LearnSettings(holdout=0.3, min_precision=0.9, min_support=5, seed=0)
COUNT = 150


def tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    parameters = {"type": "object", "properties": properties, "required": list(properties)}
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


ALARM = tool("set_alarm", {"at": {"type": "string", "x-agent-lab": {"kind": "time"}}})
WEATHER = tool("get_weather", {"city": {"type": "string", "description": "The city"}})
WAKE = ("wake me at 7 am", "set_alarm", {"at": "07:00"})
WAKE_LATER = ("wake me at 6 pm", "set_alarm", {"at": "18:00"})
WEATHER_CALL = ("what is the weather like in Paris", "get_weather", {"city": "Paris"})


def line(conversation: int, text: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    messages = [
        {"role": "system", "content": f"You help (session {conversation})."},
        {"role": "user", "content": text},
    ]
    call = {"name": name, "arguments": json.dumps(arguments)}
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_1", "type": "function", "function": call}],
    }
    made = pair_line(message)
    made["request"] = {"model": "gpt-4o-mini", "messages": messages, "tools": [ALARM, WEATHER]}
    return made


def requests_of(lines: list[dict[str, Any]], tmp_path: Path) -> list[LoggedRequest]:
    path = tmp_path / "logs.jsonl"
    path.write_text(jsonl(*lines))
    return [r for r in read_logs([path]) if isinstance(r, LoggedRequest)]


def logs(tmp_path: Path, held: tuple[str, str, dict[str, Any]] | None) -> list[LoggedRequest]:
    """Training says WAKE or WAKE_LATER (every tenth conversation asks the weather); every
    other held-out conversation says ``held``."""
    made = [
        line(n, *(WEATHER_CALL if n % 10 == 5 else WAKE_LATER if n % 2 else WAKE))
        for n in range(COUNT)
    ]
    if held is None:
        return requests_of(made, tmp_path)
    # A changed line is a new conversation (its first messages changed): it replaces the
    # original only when it is held out too, so that training never sees ``held``.
    changed = [
        line(n, *held) if n % 2 == 0 and is_held(line(n, *held), tmp_path) else made[n]
        for n in range(COUNT)
    ]
    return requests_of(changed, tmp_path)


def is_held(made: dict[str, Any], tmp_path: Path) -> bool:
    (request,) = requests_of([made], tmp_path)
    return held_out(conversation_of(request), share=SETTINGS.holdout, seed=SETTINGS.seed)


def routes(rules: RuleBook) -> set[tuple[str, str | None]]:
    return {(r.tool, r.phrase) for r in rules.rules if r.kind == "route"}


def test_a_route_that_holds_held_out_is_kept_and_then_routes_the_request(tmp_path: Path) -> None:
    requests = logs(tmp_path, None)
    unrouted = decide(list(requests[0].messages), list(requests[0].tools))
    assert unrouted.event is None  # no word of "set_alarm" or "get_weather" in "wake me"
    learned = learn(requests, SETTINGS, source={})
    assert ("set_alarm", "wake me at") in routes(learned.rules)
    waking = [r for r in requests if r.calls[0].name == "set_alarm"]
    assert learned.gain.by_tool["set_alarm"][0].covered == 0
    after = learned.gain.by_tool["set_alarm"][1]
    assert after.covered == after.agreed == after.calls > 0
    replayed = replay(waking[1], Answerer(rules=learned.rules))
    assert isinstance(replayed, Replayed)
    assert (replayed.produced_tool, replayed.produced) == ("set_alarm", {"at": "18:00"})
    decision = decide(list(waking[0].messages), learned.rules.annotate(waking[0].tools))
    assert decision.ledger.route.by is RouteKind.LEARNED


def test_the_gate_refuses_a_route_whose_phrase_went_to_another_tool_held_out(
    tmp_path: Path,
) -> None:
    """Held out, "wake me" also asked for the weather: a route is judged on every tool's calls."""
    to_weather = ("wake me at home in Paris", "get_weather", {"city": "Paris"})
    learned = learn(logs(tmp_path, to_weather), SETTINGS, source={})
    assert ("set_alarm", "wake me at") not in routes(learned.rules)
    reasons = {
        r.candidate.phrase: r.reason
        for r in learned.verdicts.refused
        if r.candidate.kind == "route"
    }
    assert reasons["wake me at"] == "wrong_held_out"


def test_two_tools_equally_pointed_at_by_learned_routes_are_no_route() -> None:
    evidence = Evidence(support=9, right=9, wrong=0, low=0.9)
    book = RuleBook(
        rules=(
            LearnedRule(kind="route", tool="set_alarm", parameter="", value=None,
                        phrase="wake", evidence=evidence),
            LearnedRule(kind="route", tool="get_weather", parameter="", value=None,
                        phrase="morning", evidence=evidence),
        )
    )  # fmt: skip
    tools = book.annotate([ALARM, WEATHER])
    said = [{"role": "user", "content": "wake me at 7 in the morning"}]
    assert decide(said, tools).event is None
    assert decide([{"role": "user", "content": "wake me at 7"}], tools).event == "set_alarm"


def test_a_route_rule_round_trips(tmp_path: Path) -> None:
    rule = LearnedRule(
        kind="route",
        tool="set_alarm",
        parameter="",
        value=None,
        phrase="wake me",
        evidence=Evidence(support=9, right=9, wrong=0, low=0.9),
    )
    path = tmp_path / "rules.json"
    path.write_text(RuleBook(rules=(rule,)).dumps())
    assert load_rules(path).rules == (rule,)


def test_a_group_counts_each_held_out_request_once_however_many_of_its_rules_fire() -> None:
    """Three phrases of one request are one observation: 12 requests are not 36."""
    kinds = {"city": "free-form"}
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    examples = [
        Example(conversation=str(n), tool="get_weather", text="weather in the big apple",
                arguments={"city": "New York"}, read={}, kinds=kinds, schema=schema, context={})
        for n in range(12)
    ]  # fmt: skip
    candidates = [
        Candidate(kind="alias", tool="get_weather", parameter="city", value="New York",
                  phrase=phrase, support=9, examples=())
        for phrase in ("big", "apple", "big apple")
    ]  # fmt: skip
    verdicts = admit(candidates, examples, min_precision=0.5, min_support=20)
    assert verdicts.kept == ()
    assert {r.reason for r in verdicts.refused} == {"group_below_bound"}
    assert admit(candidates, examples, min_precision=0.5, min_support=12).kept != ()


def test_no_route_picks_among_tools_the_logs_never_called(tmp_path: Path) -> None:
    """A new tool offered beside the known ones may be the one meant: the routes stay silent."""
    requests = logs(tmp_path, None)
    learned = learn(requests, SETTINGS, source={})
    assert learned.rules.tools_seen == ("get_weather", "set_alarm")
    said = [{"role": "user", "content": "wake me at 7 am"}]
    timer = tool("set_timer", {"minutes": {"type": "integer"}})
    assert decide(said, learned.rules.annotate([ALARM])).event == "set_alarm"
    assert decide(said, learned.rules.annotate([ALARM, timer])).event is None
    path = tmp_path / "rules.json"
    path.write_text(learned.rules.dumps())
    assert load_rules(path).tools_seen == ("get_weather", "set_alarm")


def test_a_plugin_set_with_rules_keeps_the_guard_when_more_tools_are_offered() -> None:
    """The routes a plugin set got from the rules pick nothing beside a tool never called."""
    rule = LearnedRule(kind="route", tool="set_alarm", parameter="", value=None, phrase="wake",
                       evidence=Evidence(support=9, right=9, wrong=0, low=0.9))  # fmt: skip
    book = RuleBook(rules=(rule,), tools_seen=("get_weather", "set_alarm"))
    plugins = with_rules(plugins_from_tools([ALARM, WEATHER]), book)
    said = [{"role": "user", "content": "wake me at 7"}]
    assert decide(said, [ALARM, WEATHER], plugins=plugins).event == "set_alarm"
    snooze = tool("snooze_phone", {"minutes": {"type": "integer"}})
    assert decide(said, [ALARM, WEATHER, snooze], plugins=plugins).event is None


def test_a_tool_annotated_again_is_the_copy_kept_for_the_same_tools_seen() -> None:
    """Annotating is done once per tool (kept by its JSON); whether route rules are written
    is kept apart, so a tool offered beside one never called still gets none."""
    rule = LearnedRule(kind="route", tool="set_alarm", parameter="", value=None, phrase="wake",
                       evidence=Evidence(support=9, right=9, wrong=0, low=0.9))  # fmt: skip
    book = RuleBook(rules=(rule,), tools_seen=("get_weather", "set_alarm"))
    snooze = tool("snooze_phone", {"minutes": {"type": "integer"}})
    first, _ = book.annotate([ALARM, WEATHER])
    beside_another, _, _ = book.annotate([ALARM, WEATHER, snooze])
    again, _ = book.annotate([json.loads(json.dumps(ALARM)), WEATHER])
    function = first["function"]
    assert isinstance(function, dict)
    assert "x-agent-lab" in function
    assert beside_another == ALARM
    assert again is first


def test_a_group_counts_one_conversation_once_however_many_requests_it_logged() -> None:
    """Thirty requests of one held-out conversation (a long chat, a retried line) are one."""
    kinds = {"city": "free-form"}
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    examples = [
        Example(conversation="one-long-chat", tool="get_weather", text="weather in the big apple",
                arguments={"city": "New York"}, read={}, kinds=kinds, schema=schema, context={})
        for _ in range(30)
    ]  # fmt: skip
    candidate = Candidate(kind="alias", tool="get_weather", parameter="city", value="New York",
                          phrase="the big apple", support=9, examples=())  # fmt: skip
    verdicts = admit([candidate], examples, min_precision=0.5, min_support=20)
    assert verdicts.kept == ()
    assert verdicts.refused[0].reason == "group_below_bound"
    assert verdicts.refused[0].right == 30  # the rule's own firings, as the file shows them
