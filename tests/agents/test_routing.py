"""The LLM-free routing decision: routes first, else the lexical router; one copy for all."""

from __future__ import annotations

import asyncio

import pytest

from agent_lab.agents.decision import Routing
from agent_lab.agents.event_agent import EventAgent
from agent_lab.agents.plugins import PluginSet, Route
from agent_lab.agents.routing import DeterministicRouter
from agent_lab.demo import plugins
from agent_lab.lab.workload import load_workload

DEMO = load_workload("demo")
NO_ROUTES = PluginSet("demo, no routes", definitions=plugins.definitions)
TIMER_ALONE = PluginSet("timer alone", definitions=(plugins.definitions[0],))


def test_a_plugin_set_with_routes_is_routed_by_them_and_never_lexically() -> None:
    router = DeterministicRouter(plugins)
    assert router.lexical is None
    found = router.route("set a timer for 10 minutes")
    assert (found.event, found.lexical, found.match.by_pattern) == ("set_timer", False, True)
    assert router.route("tell me a joke").event is None


def test_a_route_outside_the_candidates_is_no_decision_but_the_match_is_kept() -> None:
    found = DeterministicRouter(plugins).route("set a timer for 10 minutes", ["get_weather"])
    assert found.event is None
    assert found.match.event == "set_timer"


def test_tied_routes_are_no_decision_and_say_which_tied() -> None:
    tied = PluginSet(
        "tied",
        definitions=plugins.definitions[:2],
        routes=(Route("set_timer", keywords=("set",)), Route("set_reminder", keywords=("set",))),
    )
    found = DeterministicRouter(tied).route("set it")
    assert found.event is None
    assert found.match.candidates == ("set_reminder", "set_timer")


def test_a_plugin_set_with_no_routes_is_routed_lexically_unless_that_is_turned_off() -> None:
    found = DeterministicRouter(NO_ROUTES).route("the weather forecast for Paris today")
    assert (found.event, found.lexical) == ("get_weather", True)
    assert found.ranking is not None
    assert found.ranking.best == "get_weather"
    off = DeterministicRouter(NO_ROUTES, lexical=False)
    assert off.lexical is None
    assert off.route("the weather forecast for Paris today").event is None


@pytest.mark.parametrize(
    "plugin_set", [plugins, NO_ROUTES, TIMER_ALONE], ids=["routes", "no-routes", "one-event"]
)
def test_the_event_agent_routes_every_demo_case_as_the_deterministic_router_does(
    plugin_set: PluginSet,
) -> None:
    """The lab measures the agent's routing: the two must never drift apart."""
    agent = EventAgent(plugin_set)
    router = DeterministicRouter(plugin_set)

    async def both() -> list[tuple[str | None, Routing, str | None, Routing]]:
        pairs: list[tuple[str | None, Routing, str | None, Routing]] = []
        for case in DEMO.cases:
            reply = await agent.respond(case.text, context=case.context)
            found = router.route(case.text)
            by = (
                Routing.NONE
                if found.event is None
                else Routing.LEXICAL
                if found.lexical
                else Routing.ROUTER
            )
            pairs.append((reply.event, reply.routed_by, found.event, by))
        return pairs

    pairs = asyncio.run(both())
    assert [(e, b) for e, b, _, _ in pairs] == [(e, b) for _, _, e, b in pairs]
    assert any(event is not None for event, *_ in pairs)
