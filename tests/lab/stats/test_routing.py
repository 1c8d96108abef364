"""Measuring routing with no LLM: the configured routing, the lexical router, one event alone."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest

from agent_lab import EventDefinition, Status
from agent_lab.agents.lexical_router import LexicalRouter
from agent_lab.agents.plugins import PluginSet
from agent_lab.cli import run
from agent_lab.demo import plugins
from agent_lab.lab.importers.bfcl import import_bfcl
from agent_lab.lab.run.plugin_sets import load_plugins
from agent_lab.lab.run.policies import DeterministicFirst, DeterministicOnly
from agent_lab.lab.stats.routing import in_split, measure_routing
from agent_lab.lab.workload import Workload, load_workload
from agent_lab.log_replay.case import Case, Expectation
from agent_lab.providers import ProviderReply
from agent_lab.resolvers.schema import SchemaResolver
from agent_lab.testing import ScriptedProvider
from tests.conftest import corpus


def case(
    case_id: str,
    text: str,
    event: str | None,
    *,
    event_given: bool = False,
    candidates: tuple[str, ...] | None = None,
) -> Case:
    status = Status.SUCCESS if event is not None else Status.UNKNOWN_EVENT
    return Case(
        id=case_id,
        text=text,
        event=event,
        expected=Expectation(status=status),
        event_given=event_given,
        candidates=candidates,
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
    (figures,) = measure_routing(workload, plugins, [0.0], mode="lexical-only")
    router = LexicalRouter(plugins.definitions, margin=0.0)
    routes = [router.rank(c.text).best for c in workload.cases[:3]]
    assert figures.cases == 3  # the given event is not the router's to find
    assert figures.in_domain == 2
    assert figures.routed == sum(r is not None for r in routes)
    assert figures.right == sum(
        r == c.event for r, c in zip(routes, workload.cases, strict=False) if r
    )
    assert figures.right <= 1  # one text, two truths: at most one is right


def routing(*argv: str) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    assert run(["routing", *argv, "--json"], stdout=out, stderr=err) == 0, err.getvalue()
    return json.loads(out.getvalue())


def test_routing_command_prints_json_per_margin_and_name_share() -> None:
    figures = routing(
        "demo", "--plugins", "agent_lab.demo:plugins", "--lexical-only", "--margins", "0,0.5",
        "--name-shares", "0.5,1", "--split", "odd",
    )  # fmt: skip
    assert (figures["mode"], figures["split"]) == ("lexical-only", "odd")
    rows = figures["figures"]
    assert [(r["margin"], r["name_share"]) for r in rows] == [
        (0, 0.5),
        (0, 1),
        (0.5, 0.5),
        (0.5, 1),
    ]
    assert rows[2]["routed"] <= rows[0]["routed"]  # a larger lead routes fewer
    assert rows[0]["low"] <= rows[0]["precision"] <= rows[0]["high"]
    assert all(r["named_routed"] <= r["routed"] for r in rows)


def test_the_routing_command_measures_the_routes_of_a_plugin_set_that_has_them() -> None:
    """What the agent runs: the demo's routes; ``--lexical-only`` gives the lexical figure."""
    cases = [c for c in load_workload("demo").cases if not c.event_given]
    by_routes = [plugins.route(c.text).event for c in cases]
    lexical = LexicalRouter(plugins.definitions)
    by_words = [lexical.rank(c.text, c.candidates).best for c in cases]

    (configured,) = routing("demo", "--plugins", "agent_lab.demo:plugins")["figures"]
    assert configured["router"] == "routes"
    assert configured["margin"] is None
    assert configured["routed"] == sum(e is not None for e in by_routes)
    assert configured["right"] == sum(
        e is not None and e == c.event for e, c in zip(by_routes, cases, strict=True)
    )
    (lexical_only,) = routing("demo", "--plugins", "agent_lab.demo:plugins", "--lexical-only")[
        "figures"
    ]
    assert lexical_only["router"] == "lexical"
    assert lexical_only["routed"] == sum(e is not None for e in by_words)
    assert configured["routed"] > lexical_only["routed"] > 0


def test_the_routing_of_a_plugin_set_with_no_routes_is_the_lexical_router_s() -> None:
    no_routes = PluginSet("no routes", definitions=plugins.definitions)
    workload = load_workload("demo")
    (configured,) = measure_routing(workload, no_routes)
    (lexical_only,) = measure_routing(workload, plugins, mode="lexical-only")
    assert configured.router == "lexical"
    assert configured == lexical_only


def test_a_case_with_one_candidate_is_asked_and_a_route_out_of_domain_is_wrong() -> None:
    """BFCL irrelevance: one function that does not fit; any route is a wrong route."""
    workload = Workload(
        name="w",
        cases=(
            case("a0", "play music, a song by Miles Davis", None, candidates=("play_music",)),
            case("a1", "what's the capital of France?", None, candidates=("play_music",)),
        ),
    )
    (figures,) = measure_routing(workload, PluginSet("p", definitions=plugins.definitions))
    assert (figures.cases, figures.in_domain, figures.routed, figures.right) == (2, 0, 1, 0)
    assert figures.precision == 0.0


def test_one_event_mode_asks_each_event_alone_and_only_its_own_case_is_right() -> None:
    workload = Workload(
        name="w",
        cases=(
            case("a0", "play music, a song by Miles Davis", "play_music", event_given=True),
            case("a1", "tell me a joke", None),
            case("a2", "set a timer to play music", "set_timer", candidates=("play_music",)),
        ),
    )
    (figures,) = measure_routing(workload, plugins, mode="one-event")
    assert figures.router == "lexical"
    # Every event for the first two (given or not), the one candidate for the third.
    assert figures.cases == 2 * len(plugins.definitions) + 1
    assert figures.in_domain == 1
    assert (figures.routed, figures.right) == (2, 1)  # a2's "play music" is a wrong route
    assert figures.named_routed == figures.routed


def one_event_plugin_set() -> PluginSet:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "base": {"type": "integer", "description": "The base of the triangle."},
            "height": {"type": "integer", "description": "The height of the triangle."},
        },
        "required": ["base", "height"],
    }
    area = EventDefinition(
        "calculate_triangle_area",
        description="Calculate the area of a triangle given its base and height.",
        parameters=schema,
        handler=dict,
        resolver=SchemaResolver(schema),
    )
    return PluginSet("one event", definitions=(area,))


def test_a_one_event_plugin_set_with_a_resolver_sends_no_request_for_a_complete_message() -> None:
    """Issue 21: a lone event was never routed, so every message paid a request to choose it."""
    one = one_event_plugin_set()
    complete = Case(
        id="c0",
        event="calculate_triangle_area",
        text="Calculate the triangle area with a base of 10 and a height of 5.",
        expected=Expectation(status=Status.SUCCESS, arguments={"base": 10, "height": 5}),
    )
    provider = ScriptedProvider([])  # any request fails the test
    first = asyncio.run(DeterministicFirst(one, provider).run(complete))
    assert (first.status, first.event, first.arguments) == (
        Status.SUCCESS,
        "calculate_triangle_area",
        {"base": 10, "height": 5},
    )
    assert (first.routed_by, first.llm_calls, provider.requests) == ("lexical", 0, [])
    only = asyncio.run(DeterministicOnly(one).run(complete))
    assert (only.status, only.arguments) == (Status.SUCCESS, {"base": 10, "height": 5})


@pytest.mark.parametrize(
    "text",
    ["What is the capital of France?", "Calculate the area of a circle with a radius of 3."],
    ids=["unrelated", "near-miss"],
)
def test_a_one_event_plugin_set_leaves_an_out_of_domain_message_to_the_model(text: str) -> None:
    one = one_event_plugin_set()
    provider = ScriptedProvider([ProviderReply(text="That is not something I can compute.")])
    out = Case(id="c1", event=None, text=text, expected=Expectation(status=Status.UNKNOWN_EVENT))
    reply = asyncio.run(DeterministicFirst(one, provider).run(out))
    assert (reply.status, reply.event) == (Status.UNKNOWN_EVENT, None)
    assert [r.purpose for r in provider.requests] == ["tool_choice"]
    assert asyncio.run(DeterministicOnly(one).run(out)).status is Status.UNKNOWN_EVENT


@pytest.fixture(scope="module")
def bfcl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bfcl")
    import_bfcl(corpus("bfcl"), out)
    return out


def test_no_bfcl_irrelevance_question_is_routed_to_its_function(bfcl: Path) -> None:
    """Every irrelevance question offers one function that does not fit: a route is wrong."""
    plugin_set = load_plugins(str(bfcl))
    (irrelevance,) = bfcl.glob("workload-irrelevance*.jsonl")
    for mode in ("configured", "one-event"):
        (figures,) = measure_routing(load_workload(irrelevance), plugin_set, mode=mode)
        assert figures.cases > 0
        assert (figures.in_domain, figures.routed) == (0, 0), mode


def test_bfcl_simple_questions_routed_to_their_one_function_are_all_right(bfcl: Path) -> None:
    (simple,) = bfcl.glob("workload-simple*.jsonl")
    (figures,) = measure_routing(load_workload(simple), load_plugins(str(bfcl)), mode="one-event")
    assert figures.routed > 0
    assert figures.right == figures.routed


def test_lexical_only_and_one_event_are_exclusive() -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["routing", "demo", "--plugins", "agent_lab.demo:plugins", "--lexical-only",
            "--one-event"]  # fmt: skip
    assert run(argv, stdout=out, stderr=err) == 2
    assert "--one-event" in err.getvalue()


@pytest.mark.parametrize("shares", ["2", "a", "", "-0.1"])
def test_bad_name_shares_are_a_usage_error(shares: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["routing", "demo", "--plugins", "agent_lab.demo:plugins", "--name-shares", shares]
    assert run(argv, stdout=out, stderr=err) == 2
    assert "--name-shares" in err.getvalue()


@pytest.mark.parametrize("margins", ["2", "a", "", "-0.1"])
def test_bad_margins_are_a_usage_error(margins: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["routing", "demo", "--plugins", "agent_lab.demo:plugins", "--margins", margins]
    assert run(argv, stdout=out, stderr=err) == 2
    assert "margin" in err.getvalue()
