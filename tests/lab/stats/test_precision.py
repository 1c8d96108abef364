"""Deterministic precision per kind and source, with coverage beside it."""

from __future__ import annotations

from typing import Any

from agent_lab.agents.plugins import PluginSet
from agent_lab.kernel.models import EventDefinition, Status
from agent_lab.lab.stats.precision import measure_precision
from agent_lab.lab.workload import Workload
from agent_lab.log_replay.case import Case, Expectation
from agent_lab.resolvers.schema import SchemaResolver

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "seat": {"type": "string", "enum": ["Economy", "Business"]},
        "city": {"type": "string"},
    },
    "required": ["seat", "city"],
}


def case(name: str, text: str, truth: dict[str, Any], payload: dict[str, Any]) -> Case:
    return Case(
        id=name,
        event="book",
        text=text,
        payload=payload,
        expected=Expectation(Status.SUCCESS, truth),
    )


def test_coverage_counts_the_truths_values_filled_at_all_beside_precision() -> None:
    """Refusing a value lowers coverage, never precision; a kind filled nowhere still shows."""
    plugins = PluginSet(
        name="p",
        definitions=(EventDefinition("book", parameters=SCHEMA, resolver=SchemaResolver(SCHEMA)),),
    )
    cases = (
        case("right", "economy please", {"seat": "Economy", "city": "Oslo"}, {"city": "Oslo"}),
        case("wrong", "business", {"seat": "Economy", "city": "Rome"}, {}),
        case("negated", "not business", {"seat": "Economy", "city": "Rome"}, {}),
        case("two", "business trip, economy", {"seat": "Economy", "city": "Rome"}, {}),
    )
    report = measure_precision(Workload("w", cases), plugins)
    rows = {(r.kind, r.source): r for r in report.rows}
    enum = rows["enum", "text"]
    assert (enum.filled, enum.right, enum.expected, enum.answered) == (2, 1, 4, 2)
    assert (enum.precision, enum.coverage) == (0.5, 0.5)
    free = rows["free-form", "text"]
    assert (free.filled, free.expected, free.coverage) == (0, 3, 0.0)
    assert rows["free-form", "payload"].coverage == 1.0
    figures = report.as_json()["by_kind"]
    assert isinstance(figures, dict)
    assert figures["enum"] == {
        "filled": 2,
        "right": 1,
        "precision": 0.5,
        "low": enum.interval[0],
        "high": enum.interval[1],
        "expected": 4,
        "coverage": 0.5,
    }
