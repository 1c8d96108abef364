"""How many held-out conversations a bound needs, and learn saying when the logs hold too few."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

from hypothesis import given
from hypothesis import strategies as st

from agent_lab.cli import run
from agent_lab.lab.learn.gate import clean_needed
from agent_lab.lab.learn.learning import learn
from agent_lab.log_replay.intervals import wilson
from tests.lab.learn.test_learn import APPLE, COUNT, SETTINGS, WINDY, line, logs, requests_of
from tests.logs.lines import jsonl

if TYPE_CHECKING:
    from pathlib import Path


def test_the_conversations_a_bound_needs_are_the_ones_the_wilson_bound_says() -> None:
    assert clean_needed(0.9) == 35
    assert clean_needed(0.99) == 381
    assert clean_needed(0.0) == 1


@given(st.floats(min_value=0.01, max_value=0.999))
def test_fewer_conversations_than_needed_never_clear_the_bound(precision: float) -> None:
    needed = clean_needed(precision)
    assert wilson(needed, needed)[0] >= precision
    assert needed == 1 or wilson(needed - 1, needed - 1)[0] < precision


def test_learn_says_the_logs_are_too_few_for_the_bound(tmp_path: Path) -> None:
    """40 conversations, about 12 held out: a 0.99 bound needs 381, so nothing can be kept,
    and learn says why instead of leaving "kept 0" to guess at."""
    path = tmp_path / "logs.jsonl"
    path.write_text(jsonl(*logs(40, train=APPLE, held=APPLE, other=WINDY)))
    out, err = io.StringIO(), io.StringIO()
    argv = ["learn", str(path), "--out", str(tmp_path / "rules.json")]
    assert run(argv, stdout=out, stderr=err) == 0, err.getvalue()
    said = " ".join(out.getvalue().split())
    assert "too small for the gate" in said
    assert "admitted only over 381 held-out conversations" in said
    assert "it holds at most" in said
    assert "(get_weather)" in said
    assert "ask for a precision of at most 0." in said
    out = io.StringIO()
    assert run([*argv, "--json"], stdout=out, stderr=err) == 0, err.getvalue()
    held = json.loads(out.getvalue())["held_out"]
    assert held["clean_conversations_needed"] == 381
    assert 0 < held["most_conversations_per_group"] < 381


def test_logs_enough_for_the_bound_say_nothing_of_it(tmp_path: Path) -> None:
    learned = learn(requests_of(logs(COUNT, train=APPLE, held=APPLE, other=WINDY), tmp_path),
                    SETTINGS, source={})  # fmt: skip
    assert learned.widest[0] == "get_weather"
    assert learned.widest[1] >= learned.needed == clean_needed(SETTINGS.min_precision)
    assert not learned.too_few


def test_a_minimum_support_above_the_held_out_part_is_named_as_the_cause(tmp_path: Path) -> None:
    path = tmp_path / "logs.jsonl"
    path.write_text(jsonl(*logs(40, train=APPLE, held=APPLE, other=WINDY)))
    out, err = io.StringIO(), io.StringIO()
    argv = ["learn", str(path), "--out", str(tmp_path / "r.json"), "--min-precision", "0.5"]
    assert run([*argv, "--min-support", "100"], stdout=out, stderr=err) == 0, err.getvalue()
    said = " ".join(out.getvalue().split())
    assert "admitted only over 100 held-out conversations (the minimum support;" in said
    assert "ask for a lower minimum support" in said


def test_logs_of_one_conversation_are_said_to_leave_one_side_empty(tmp_path: Path) -> None:
    """Every request opening with one system prompt and "hi": one conversation, so the split
    put all 30 on one side, and the advice was to learn from more logs."""
    same = [line(0, APPLE[0] + f" ({n})", APPLE[1]) for n in range(30)]
    for made in same:
        said = made["request"]["messages"][1]
        made["request"]["messages"][1:] = [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "Hello! What can I do?"},
            said,
        ]
    path = tmp_path / "logs.jsonl"
    path.write_text(jsonl(*same))
    out, err = io.StringIO(), io.StringIO()
    assert run(["learn", str(path), "--out", str(tmp_path / "r.json")], stdout=out, stderr=err) == 0
    said = " ".join(out.getvalue().split())
    assert "The split left no" in said
    assert "fall in 1 conversation (a conversation is known by its first two messages" in said
    assert "too small for the gate" not in said
