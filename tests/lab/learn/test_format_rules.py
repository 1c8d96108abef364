"""Format rules: the kind a plain string parameter's logged values take, on held-out proof."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from agent_lab.answering import Answerer
from agent_lab.errors import InputFileError
from agent_lab.lab.learn.examples import conversation_of, held_out
from agent_lab.lab.learn.learning import LearnSettings, learn
from agent_lab.log_replay.replayed import Replayed, replay
from agent_lab.logs import LoggedRequest, read_logs
from agent_lab.resolvers.learned import Evidence, LearnedRule, RuleBook, load_rules
from tests.logs.lines import jsonl, pair_line

if TYPE_CHECKING:
    from pathlib import Path

SETTINGS = LearnSettings(holdout=0.3, min_precision=0.9, min_support=5, seed=0)
COUNT = 150
ALARM: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "set_alarm",
        "description": "Set an alarm",
        "parameters": {
            "type": "object",
            "properties": {
                "day": {"type": "string", "description": "Which day"},
                "at": {"type": "string", "description": "When it rings"},
            },
            "required": ["day", "at"],
        },
    },
}
# The logs' requests were made on 2023-11-14 (pair_line's ``created``): "tomorrow" is the 15th.
SEVEN = ("set an alarm for tomorrow at 7 am", {"day": "2023-11-15", "at": "07:00"})
SIX = ("set an alarm for tomorrow at 6 pm", {"day": "2023-11-15", "at": "18:00"})


def line(conversation: int, text: str, arguments: dict[str, Any]) -> dict[str, Any]:
    messages = [
        {"role": "system", "content": f"You set alarms (session {conversation})."},
        {"role": "user", "content": text},
    ]
    call = {"name": "set_alarm", "arguments": json.dumps(arguments)}
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_1", "type": "function", "function": call}],
    }
    made = pair_line(message)
    made["request"] = {"model": "gpt-4o-mini", "messages": messages, "tools": [ALARM]}
    return made


def requests_of(lines: list[dict[str, Any]], tmp_path: Path) -> list[LoggedRequest]:
    path = tmp_path / "logs.jsonl"
    path.write_text(jsonl(*lines))
    return [r for r in read_logs([path]) if isinstance(r, LoggedRequest)]


def logs(tmp_path: Path, held: tuple[str, dict[str, Any]]) -> list[LoggedRequest]:
    """Training conversations say SEVEN or SIX; the held-out ones SEVEN, or ``held``."""
    made = [line(n, *(SIX if n % 2 else SEVEN)) for n in range(COUNT)]
    requests = requests_of(made, tmp_path)
    return requests_of(
        [
            line(n, *held) if is_held(request) and n % 2 == 0 else made[n]
            for n, request in enumerate(requests)
        ],
        tmp_path,
    )


def is_held(request: LoggedRequest) -> bool:
    return held_out(conversation_of(request), share=SETTINGS.holdout, seed=SETTINGS.seed)


def formats(rules: RuleBook) -> set[tuple[str, Any]]:
    return {(r.parameter, r.value) for r in rules.rules if r.kind == "format"}


def test_formats_that_hold_held_out_are_kept_and_then_cover_the_calls(tmp_path: Path) -> None:
    requests = logs(tmp_path, SEVEN)
    learned = learn(requests, SETTINGS, source={})
    assert formats(learned.rules) == {("day", "date"), ("at", "time")}
    assert learned.gain.before.covered == 0
    assert learned.gain.after.covered == learned.gain.after.agreed == learned.gain.after.calls
    replayed = replay(requests[1], Answerer(rules=learned.rules))
    assert isinstance(replayed, Replayed)
    assert replayed.produced == {"day": "2023-11-15", "at": "18:00"}


def test_the_gate_refuses_a_format_that_fits_training_but_fails_held_out(tmp_path: Path) -> None:
    """Training wrote 07:00; half the held-out calls wrote 7:00 AM and 11/15/2023."""
    american = ("set an alarm for tomorrow at 7 am", {"day": "11/15/2023", "at": "7:00 AM"})
    learned = learn(logs(tmp_path, american), SETTINGS, source={})
    assert formats(learned.rules) == set()
    refused = {
        (r.candidate.parameter, r.candidate.value): r.reason
        for r in learned.verdicts.refused
        if r.candidate.kind == "format"
    }
    assert refused == {("day", "date"): "wrong_held_out", ("at", "time"): "wrong_held_out"}
    assert learned.gain.after.covered == 0


def test_a_format_never_overrides_a_kind_the_schema_names() -> None:
    """An enum, a format or a hint's kind of its own: the rule is not written there."""
    rule = LearnedRule(
        kind="format",
        tool="set_alarm",
        parameter="at",
        value="time",
        evidence=Evidence(support=9, right=9, wrong=0, low=0.9),
    )
    book = RuleBook(rules=(rule,))
    named = {"type": "string", "x-agent-lab": {"kind": "date"}}
    for own in ({"type": "string", "enum": ["07:00"]}, {"type": "string", "format": "time"},
                named, {"type": "integer"}):  # fmt: skip
        tool = json.loads(json.dumps(ALARM))
        tool["function"]["parameters"]["properties"]["at"] = own
        (annotated,) = book.annotate([tool])
        assert annotated["function"]["parameters"]["properties"]["at"] == own  # type: ignore[index]


def test_a_format_rule_round_trips_and_an_unknown_format_is_refused(tmp_path: Path) -> None:
    rule = LearnedRule(
        kind="format",
        tool="set_alarm",
        parameter="at",
        value="time",
        evidence=Evidence(support=9, right=9, wrong=0, low=0.9),
    )
    path = tmp_path / "rules.json"
    path.write_text(RuleBook(rules=(rule,)).dumps())
    assert load_rules(path).rules == (rule,)
    path.write_text(path.read_text().replace('"value": "time"', '"value": "duration"'))
    with pytest.raises(InputFileError, match="format none of"):
        load_rules(path)
