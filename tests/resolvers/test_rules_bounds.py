"""A rules file is bounded at load, and a large one within the bounds applies in seconds.

Issue 36: a crafted rules file of many aliases kept ``shadow --rules`` busy past three
minutes (each alias checked against a hint holding all the others, then searched alone).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_lab.cli import run
from agent_lab.errors import InputFileError
from agent_lab.resolvers.learned import FORMAT, load_rules
from agent_lab.resolvers.rules_bounds import MAX_PHRASE_CHARS, MAX_RULES, MAX_SEARCHED_RULES
from tests.cli.test_shadow import pairs_line

EVIDENCE = {"support": 3, "heldout_right": 2, "heldout_wrong": 0, "heldout_low": 0.5}


def alias(phrase: str, value: str) -> dict[str, Any]:
    return {"kind": "alias", "tool": "get_weather", "parameter": "city", "phrase": phrase,
            "value": value, "evidence": EVIDENCE}  # fmt: skip


def route(phrase: str) -> dict[str, Any]:
    return {"kind": "route", "tool": "get_weather", "parameter": "", "phrase": phrase,
            "value": None, "evidence": EVIDENCE}  # fmt: skip


def write_rules(path: Path, rules: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"format": FORMAT, "rules": rules}))
    return path


def _too_many_rules(path: Path) -> None:
    # Counted before a rule is read: empty ones do.
    write_rules(path, [{}] * (MAX_RULES + 1))


def _too_many_searched(path: Path) -> None:
    write_rules(path, [route(f"word{i}") for i in range(MAX_SEARCHED_RULES + 1)])


def _too_long_a_phrase(path: Path) -> None:
    write_rules(
        path, [alias("the big apple", "Paris"), alias("a" * (MAX_PHRASE_CHARS + 1), "Oslo")]
    )


def _too_many_bytes(path: Path) -> None:
    with path.open("wb") as file:  # sparse: refused on its size, before a byte is read
        file.truncate(100 << 20)


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (_too_many_rules, "100,001 rules, over the 100,000 bound on a rules file"),
        (_too_many_searched, "10,001 context and route rules, over the 10,000 bound"),
        (_too_long_a_phrase, "rule 1's phrase is 201 characters, over the 200 bound on a phrase"),
        (_too_many_bytes, "the rules file is 100 MiB, over the 64 MiB bound on a rules file"),
    ],
    ids=["rules", "context and route rules", "phrase", "bytes"],
)
def test_a_rules_file_past_a_bound_is_refused_at_load_naming_it(
    tmp_path: Path, make: Callable[[Path], None], said: str
) -> None:
    """Each bound refuses the file when it is loaded, in an error that names the bound."""
    path = tmp_path / "rules.json"
    make(path)
    with pytest.raises(InputFileError, match=said.replace("(", r"\(")):
        load_rules(path)


def test_a_rules_file_at_the_bounds_loads(tmp_path: Path) -> None:
    """The bounds are the most allowed, not one less."""
    rules = [route(f"word{i}") for i in range(MAX_SEARCHED_RULES)]
    rules.append(alias("a" * MAX_PHRASE_CHARS, "Oslo"))
    book = load_rules(write_rules(tmp_path / "rules.json", rules))
    assert len(book.rules) == MAX_SEARCHED_RULES + 1


def test_twenty_thousand_aliases_apply_to_every_request(tmp_path: Path) -> None:
    """A large file within the bounds: each request's words are walked once, whatever the
    number of aliases, and the alias it holds fills the value (the others, none)."""
    cities = ["Paris", "Oslo", "Rome"]
    rules = [alias(f"place number {i} of ours", cities[i % 3]) for i in range(20_000)]
    rules.append(alias("the eternal city", "Rome"))
    path = write_rules(tmp_path / "rules.json", rules)
    talks = [
        ("get the weather forecast in the eternal city", "Rome"),
        ("get the weather forecast at place number 19999 of ours", "Oslo"),
        ("get the weather forecast at place number 20000 of ours", "Rome"),  # no such alias
        # Two aliases naming two values: no reading.
        ("get the weather forecast at place number 4 of ours or place number 5 of ours", "Oslo"),
    ]
    log = tmp_path / "log.jsonl"
    log.write_text("".join(pairs_line(i, text, "get_weather", {"city": city}) + "\n"
                           for i, (text, city) in enumerate(talks)))  # fmt: skip

    def shadow(*extra: str) -> dict[str, Any]:
        out, err = io.StringIO(), io.StringIO()
        assert run(["shadow", str(log), "--json", *extra], stdout=out, stderr=err) == 0, err
        return json.loads(out.getvalue())

    without, ruled = shadow(), shadow("--rules", str(path))
    assert (without["covered"], without["calls"]) == (0, 4)
    assert ruled["covered"] == 2
    assert ruled["agreement"]["right"] == 2
