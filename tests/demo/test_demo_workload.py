"""The demo workload: its ground truth holds against the demo resolvers and router."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from agent_lab import Event, EventKernel, Status
from agent_lab.demo import plugins
from agent_lab.demo.generate import WORKLOAD, render, write
from agent_lab.strict_json import same_json

CASES: list[dict[str, Any]] = [json.loads(line) for line in WORKLOAD.read_text().splitlines()]
KERNEL = EventKernel(plugins.registry())


def test_the_shipped_workload_is_what_the_generator_writes() -> None:
    """workload.jsonl is reproducible from agent_lab.demo.generate."""
    assert WORKLOAD.read_text(encoding="utf-8") == render()


def test_the_generator_writes_the_file_and_counts_each_category(tmp_path: Path) -> None:
    """``python -m agent_lab.demo.generate`` writes render()'s text and says what it wrote."""
    target = tmp_path / "workload.jsonl"
    said = write(target)
    assert target.read_text(encoding="utf-8") == render()
    counts = Counter(case["tags"][0] for case in CASES)
    assert said == f"wrote {target} ({len(CASES)} cases): {dict(counts)}"
    assert list(counts) == ["complete", "paraphrase", "missing", "invalid", "out_of_domain"]


def test_size_proportions_and_ids() -> None:
    """At least 400 cases, every category and event present, unique ids and texts."""
    assert len(CASES) >= 400
    categories = Counter(case["tags"][0] for case in CASES)
    assert set(categories) == {"complete", "paraphrase", "missing", "invalid", "out_of_domain"}
    assert all(count >= 25 for count in categories.values())
    assert len({c["id"] for c in CASES}) == len(CASES)
    assert len({c["text"] for c in CASES}) == len(CASES)
    assert {c["event"] for c in CASES} - {None} == {d.name for d in plugins.definitions}


def dispatch_routed(case: dict[str, Any]) -> Any:
    route = plugins.route(case["text"])
    assert route.event == case["event"], f"{case['text']!r} routed to {route}"
    return KERNEL.dispatch(Event(case["event"], text=case["text"], context=case["context"]))


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["tags"][0] == "complete"], ids=lambda c: c["id"]
)
def test_complete_cases_are_read_exactly_by_plain_code(case: dict[str, Any]) -> None:
    """Complete cases route and resolve to exactly the expected arguments, with no LLM."""
    result = dispatch_routed(case)
    assert result.status is Status.SUCCESS
    assert same_json(result.arguments, case["expected"]["arguments"]), result.arguments


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c["tags"][0] in ("missing", "invalid")],
    ids=lambda c: c["id"],
)
def test_missing_and_invalid_cases_end_as_expected_without_an_llm(case: dict[str, Any]) -> None:
    """Missing information and invalid requests are recognised by plain code."""
    assert dispatch_routed(case).status.value == case["expected"]["status"]


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["tags"][0] == "paraphrase"], ids=lambda c: c["id"]
)
def test_paraphrases_are_beyond_plain_code(case: dict[str, Any]) -> None:
    """Paraphrases are not read deterministically: without an LLM they cannot succeed."""
    route = plugins.route(case["text"])
    if route.event is None:
        return  # the router does not recognise it: only an LLM can route it
    result = KERNEL.dispatch(Event(route.event, text=case["text"], context=case["context"]))
    assert result.status is not Status.SUCCESS or not same_json(
        result.arguments, case["expected"]["arguments"]
    )
