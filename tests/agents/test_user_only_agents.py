"""The user-only mark through the agents, the simulated model and the scorer.

"Book a table at Luigi's tomorrow": the party size is the user's to say. The
event agent asks for it without a request; LLM-always's model reads the
words, and what it makes of them is its answer; the simulated model that is
told to ask asks; and the scorer counts asking as right.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from agent_lab import Event, EventDefinition, Status
from agent_lab.agents.choice import ToolChooser
from agent_lab.agents.event_agent import EventAgent
from agent_lab.agents.fallback import LLMFallback
from agent_lab.agents.plugins import PluginSet, Route
from agent_lab.agents.tool_agent import ToolAgent
from agent_lab.lab.run.policies import DeterministicFirst, LLMAlways
from agent_lab.log_replay.case import Case, Expectation
from agent_lab.log_replay.scoring import score
from agent_lab.log_replay.trial_status import TrialStatus
from agent_lab.providers import ProviderReply, ProviderRequest, ToolCall
from agent_lab.providers.profiles import PROFILES
from agent_lab.providers.simulated import Expected, SimulatedProvider
from agent_lab.testing import FunctionProvider

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "restaurant": {"type": "string"},
        "day": {"type": "string", "enum": ["today", "tomorrow"]},
        "party_size": {"type": "integer", "minimum": 1, "maximum": 20, "x-user-only": True},
    },
    "required": ["restaurant", "day", "party_size"],
}


def read_booking(event: Event) -> dict[str, object]:
    found: dict[str, object] = {}
    if (place := re.search(r"at (\w+'?s?)", event.text)) is not None:
        found["restaurant"] = place.group(1)
    if (day := re.search(r"\b(today|tomorrow)\b", event.text)) is not None:
        found["day"] = day.group(1)
    if (size := re.search(r"for (\d+)", event.text)) is not None:
        found["party_size"] = int(size.group(1))
    return found


PLUGINS = PluginSet(
    "restaurants",
    (
        EventDefinition(
            "book_table", description="Book a table.", parameters=SCHEMA, resolver=read_booking
        ),
    ),
    (Route("book_table", keywords=("book", "table")),),
)
TEXT = "book a table at Luigi's tomorrow"
INVENTED = '{"restaurant": "Luigi\'s", "day": "tomorrow", "party_size": 10}'


def inventing_model(request: ProviderRequest) -> ProviderReply:
    """A model that fills in a party size nobody gave."""
    return ProviderReply(
        tool_calls=(
            ToolCall(
                name="book_table",
                arguments_raw=INVENTED,
                arguments={"restaurant": "Luigi's", "day": "tomorrow", "party_size": 10},
            ),
        )
    )


def test_the_event_agent_asks_the_user_with_no_request() -> None:
    provider = FunctionProvider(inventing_model)
    agent = EventAgent(
        PLUGINS, fallback=LLMFallback(provider), chooser=ToolChooser(provider, PLUGINS.definitions)
    )
    reply = asyncio.run(agent.respond(TEXT))
    assert reply.status is Status.MISSING_INFORMATION
    assert reply.reason == "user_only_missing"
    assert (reply.llm_calls, provider.requests) == (0, [])
    said = asyncio.run(agent.respond(TEXT + " for 4"))
    assert said.status is Status.SUCCESS
    assert said.arguments == {"restaurant": "Luigi's", "day": "tomorrow", "party_size": 4}


def test_a_routing_models_value_for_it_is_dropped_and_the_user_asked() -> None:
    """No route: the model chose the event and invented 10; its value is not taken."""
    provider = FunctionProvider(inventing_model)
    agent = EventAgent(
        PluginSet("restaurants", PLUGINS.definitions),
        fallback=LLMFallback(provider),
        chooser=ToolChooser(provider, PLUGINS.definitions),
        lexical=False,
    )
    reply = asyncio.run(agent.respond("somewhere at Luigi's tomorrow please"))
    assert reply.status is Status.MISSING_INFORMATION
    assert reply.reason == "user_only_missing"
    assert reply.llm_calls == 1  # the routing request only


def test_llm_always_takes_what_its_model_read() -> None:
    """LLM-always's model read the words: its 10 is its answer (and the scorer's to judge)."""
    agent = ToolAgent(PLUGINS, FunctionProvider(inventing_model))
    reply = asyncio.run(agent.respond(TEXT))
    assert reply.status is Status.SUCCESS
    assert reply.arguments is not None
    assert reply.arguments["party_size"] == 10


def case(text: str, expected: Expectation) -> Case:
    return Case(id="c", event="book_table", text=text, expected=expected, tags=("missing",))


ASKS = Expectation(Status.MISSING_INFORMATION, {"restaurant": "Luigi's", "day": "tomorrow"})


def test_the_simulated_model_asks_rather_than_invent_it() -> None:
    """Under a profile that always invents, a user-only value is still asked for."""

    def truth(request: ProviderRequest) -> Expected:
        return Expected(event="book_table", arguments={"restaurant": "Luigi's", "day": "tomorrow"})

    simulated = SimulatedProvider(
        truth, profile=PROFILES["ideal"].with_overrides(["invent=1"]), wait=False
    )
    reply = asyncio.run(LLMAlways(PLUGINS, simulated).run(case(TEXT, ASKS)))
    assert reply.status is Status.UNKNOWN_EVENT  # no tool call: the model asked
    assert reply.model_text is not None
    assert "party size" in reply.model_text


def test_asking_for_it_is_scored_right_and_inventing_it_wrong() -> None:
    first = DeterministicFirst(PLUGINS, FunctionProvider(inventing_model))
    always = LLMAlways(PLUGINS, FunctionProvider(inventing_model))
    asked = asyncio.run(first.run(case(TEXT, ASKS)))
    invented = asyncio.run(always.run(case(TEXT, ASKS)))
    right = score(case(TEXT, ASKS), TrialStatus.of(asked.status), asked.arguments, asked.event)
    wrong = score(
        case(TEXT, ASKS), TrialStatus.of(invented.status), invented.arguments, invented.event
    )
    assert (right.correct, wrong.correct) == (True, False)
