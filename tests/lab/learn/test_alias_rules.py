"""Alias rules: what words of a call may stand for a value, and what words may not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_lab.lab.learn.examples import examples_of
from agent_lab.lab.learn.mine import mine, phrases
from agent_lab.logs import LoggedRequest, read_logs
from tests.logs.lines import jsonl, pair_line

MOVIES: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "find_movies",
        "description": "Movies to watch",
        "parameters": {
            "type": "object",
            "properties": {
                "genre": {"type": "string", "enum": ["Comedy", "Drama", "Horror"]},
                "directed_by": {"type": "string"},
            },
            "required": [],
        },
    },
}


def line(
    conversation: int, text: str, arguments: dict[str, Any], tool: dict[str, Any] = MOVIES
) -> dict[str, Any]:
    messages = [
        {"role": "system", "content": f"You find movies (session {conversation})."},
        {"role": "user", "content": text},
    ]
    call = {"name": tool["function"]["name"], "arguments": json.dumps(arguments)}
    made = pair_line(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": call}],
        }
    )
    made["request"] = {"model": "gpt-4o-mini", "messages": messages, "tools": [tool]}
    return made


def test_words_that_spell_another_arguments_value_stand_for_no_alias(tmp_path: Path) -> None:
    """A director's name goes with his films' genre in training; it is who directed, not a
    way to say the genre (on SGD, "by peter farrelly" became an alias of Comedy, and was
    wrong on the next request naming him with no genre)."""
    said = [
        ("a movie directed by Peter Farrelly please", {"directed_by": "Peter Farrelly"}),
        ("a movie directed by Sofia Coppola please", {"directed_by": "Sofia Coppola"}),
    ]
    genres = {"Peter Farrelly": "Comedy", "Sofia Coppola": "Drama"}
    lines = [
        line(n, text, {**arguments, "genre": genres[arguments["directed_by"]]})
        for n in range(12)
        for text, arguments in [said[n % 2]]
    ]
    funny = ["something funny tonight", "a funny one", "funny stuff please", "anything funny"]
    lines += [line(100 + n, text, {"genre": "Comedy"}) for n, text in enumerate(funny)]
    path = tmp_path / "logs.jsonl"
    path.write_text(jsonl(*lines))
    requests = [r for r in read_logs([path]) if isinstance(r, LoggedRequest)]
    aliases = {c.phrase: c.value for c in mine(examples_of(requests)) if c.kind == "alias"}
    assert aliases.get("funny") == "Comedy"  # words that say the genre are still mined
    named = {
        p for p in aliases if {"peter", "farrelly", "sofia", "coppola"} & set((p or "").split())
    }
    assert named == set()


def test_phrases_cut_where_the_text_spells_a_value_apart() -> None:
    assert phrases("by Peter Farrelly tonight", apart=["peter farrelly"]) == {"tonight"}
    assert "by tonight" not in phrases("by Peter Farrelly tonight", apart=["Peter Farrelly"])


def test_phrases_keep_words_of_any_script_whole_and_stop_at_punctuation() -> None:
    """ "lumière" was cut into "lumi" and "re", and "apple please" taken across a comma:
    phrases that could never fire, and ASCII fragments that could fire wrongly."""
    said = phrases("la ville lumière, s'il vous plaît")
    assert "ville lumière" in said
    assert "lumi" not in said
    assert "s'il vous" in said
    assert phrases("the big apple, please") == {
        "big",
        "apple",
        "big apple",
        "the big",
        "the big apple",
    }


def test_an_alias_in_another_script_is_learned_whole_and_fires(tmp_path: Path) -> None:
    from agent_lab.answering import Answerer
    from agent_lab.lab.learn.learning import learn
    from agent_lab.log_replay.replayed import Replayed, replay
    from tests.lab.learn.test_learn import COUNT, SETTINGS, WINDY, logs, requests_of

    paris = ("get the weather in la ville lumière in celsius", {"city": "Paris", "unit": "celsius"})
    requests = requests_of(logs(COUNT, train=paris, held=paris, other=WINDY), tmp_path)
    learned = learn(requests, SETTINGS, source={})
    kept = {r.phrase for r in learned.rules.rules if r.value == "Paris"}
    assert any("lumière" in (phrase or "") for phrase in kept), kept
    assert not any("lumi " in f"{phrase} " for phrase in kept)
    replayed = replay(requests[0], Answerer(rules=learned.rules))
    assert isinstance(replayed, Replayed)
    assert replayed.produced == {"city": "Paris", "unit": "celsius"}


def test_a_phrase_less_telling_than_one_that_holds_wherever_it_does_gives_way(
    tmp_path: Path,
) -> None:
    """ "in the big" only ever came in "in the big apple": kept, it read "in the big easy" as
    New York. Phrases as telling as each other ("the big apple", "big apple today") stay."""
    lines = [
        line(n, f"{verb} the weather in {place} today", {"genre": genre})
        for n, (verb, (place, genre)) in enumerate(
            (verb, said)
            for verb in ("get", "tell me", "show me", "what is")
            for said in (("the big apple", "Comedy"), ("the windy city", "Drama"))
        )
    ]
    path = tmp_path / "logs.jsonl"
    path.write_text(jsonl(*lines))
    requests = [r for r in read_logs([path]) if isinstance(r, LoggedRequest)]
    kept = {c.phrase for c in mine(examples_of(requests)) if c.value == "Comedy"}
    assert {"the big apple", "big apple today"} <= kept
    assert not kept & {"in the big", "weather in the", "big", "apple", "the big"}


def test_the_gate_counts_no_firing_where_the_schema_rejects_the_value(tmp_path: Path) -> None:
    """A schema taking four letters at most: "the big apple" -> "New York" (the model's call,
    which the schema rejects) was kept as "24 right, 0 wrong", firings that can never happen."""
    from agent_lab.lab.learn.learning import learn
    from tests.lab.learn.test_learn import (
        SETTINGS,
        WEATHER,
    )

    short = json.loads(json.dumps(WEATHER))
    short["function"]["parameters"] = {
        "type": "object",
        "properties": {"city": {"type": "string", "maxLength": 4}},
        "required": ["city"],
    }
    said = [
        ("get the weather in the big apple", {"city": "New York"}),
        ("get the weather in the windy city", {"city": "CHI"}),
    ]
    lines = [line(n, *said[n % 2], tool=short) for n in range(150)]
    path = tmp_path / "logs.jsonl"
    path.write_text(jsonl(*lines))
    requests = [r for r in read_logs([path]) if isinstance(r, LoggedRequest)]
    learned = learn(requests, SETTINGS, source={})
    assert [r.value for r in learned.rules.rules if r.kind == "alias"] == ["CHI"] * len(
        [r for r in learned.rules.rules if r.kind == "alias"]
    )
    york = [r for r in learned.verdicts.refused if r.candidate.value == "New York"]
    assert york
    assert all(r.reason == "never_fired" and r.right == 0 for r in york)
