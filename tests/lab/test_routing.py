"""Measuring the lexical router: precision and coverage per margin, on one half of the cases."""

from __future__ import annotations

import io
import json

import pytest

from agent_lab import Status
from agent_lab.application.lexical_router import LexicalRouter
from agent_lab.cli import run
from agent_lab.demo import plugins
from agent_lab.lab.routing import in_split, measure_routing
from agent_lab.lab.workload import Case, Expectation, Workload


def case(case_id: str, text: str, event: str | None, *, event_given: bool = False) -> Case:
    status = Status.SUCCESS if event is not None else Status.UNKNOWN_EVENT
    return Case(
        id=case_id,
        text=text,
        event=event,
        expected=Expectation(status=status),
        event_given=event_given,
    )


@pytest.mark.parametrize(
    ("case_id", "even", "odd"),
    [
        ("multiple_4", True, False),
        ("multiple_7", False, True),
        ("c12-x", True, False),
        ("x", False, False),
    ],
)
def test_cases_split_by_the_parity_of_the_number_ending_their_id(
    case_id: str, even: bool, odd: bool
) -> None:
    c = case(case_id, "hi", None)
    assert (in_split(c, "even"), in_split(c, "odd"), in_split(c, "all")) == (even, odd, True)


def test_figures_count_routes_right_and_wrong_and_out_of_domain_routes_are_wrong() -> None:
    workload = Workload(
        name="w",
        cases=(
            case("a0", "set a timer for 10 minutes called pasta timer", "set_timer"),
            case("a1", "set a timer for 10 minutes called pasta timer", "get_weather"),
            case("a2", "tell me a joke about cats", None),
            case("a3", "given", "set_timer", event_given=True),
        ),
    )
    (figures,) = measure_routing(workload, plugins, [0.0])
    router = LexicalRouter(plugins.definitions, margin=0.0)
    routes = [router.rank(c.text).best for c in workload.cases[:3]]
    assert figures.cases == 3  # the given event is not the router's to find
    assert figures.in_domain == 2
    assert figures.routed == sum(r is not None for r in routes)
    assert figures.right == sum(
        r == c.event for r, c in zip(routes, workload.cases, strict=False) if r
    )
    assert figures.right <= 1  # one text, two truths: at most one is right


def test_routing_command_prints_json_per_margin() -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["routing", "demo", "--plugins", "agent_lab.demo:plugins", "--margins", "0,0.5",
            "--split", "odd", "--json"]  # fmt: skip
    assert run(argv, stdout=out, stderr=err) == 0, err.getvalue()
    figures = json.loads(out.getvalue())
    assert figures["split"] == "odd"
    low, high = figures["margins"]
    assert (low["margin"], high["margin"]) == (0.0, 0.5)
    assert high["routed"] <= low["routed"]  # a larger lead routes fewer
    assert low["low"] <= low["precision"] <= low["high"]


@pytest.mark.parametrize("margins", ["2", "a", "", "-0.1"])
def test_bad_margins_are_a_usage_error(margins: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["routing", "demo", "--plugins", "agent_lab.demo:plugins", "--margins", margins]
    assert run(argv, stdout=out, stderr=err) == 2
    assert "margin" in err.getvalue()
