"""A case that is a conversation: plain code reads it whole, a model is sent it written out."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

from agent_lab.agents.plugins import PluginSet
from agent_lab.agents.port import ProviderReply, ProviderRequest, ToolCall
from agent_lab.kernel.ledger import ValueSource
from agent_lab.kernel.models import EventDefinition, Status
from agent_lab.lab.run.dialogues import transcript
from agent_lab.lab.run.policies import DeterministicFirst, DeterministicOnly, LLMAlways
from agent_lab.lab.stats.precision import measure_precision
from agent_lab.lab.workload import Workload
from agent_lab.log_replay.case import Case, Expectation
from agent_lab.resolvers.schema import SchemaResolver
from agent_lab.strict_json import JSONObject
from agent_lab.testing import FunctionProvider

FIND: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City where the restaurant is"},
        "cuisine": {
            "type": "string",
            "enum": ["Italian", "Mexican", "Thai"],
            "description": "The kind of food",
        },
    },
    "required": ["city", "cuisine"],
    "additionalProperties": False,
}
NOW: JSONObject = {"now": "2026-12-01T09:00"}


def restaurants(ran: list[JSONObject]) -> PluginSet:
    """One look-up tool, read by the schema-driven resolver; its handler records each call."""

    def handler(arguments: JSONObject) -> JSONObject:
        ran.append(dict(arguments))
        return {"found": 1}

    definition = EventDefinition(
        "find_restaurants",
        description="Find restaurants",
        parameters=FIND,
        resolver=SchemaResolver(FIND),
        handler=handler,
    )
    return PluginSet("restaurants", (definition,))


def case(*said: str) -> Case:
    """A conversation of alternating user and assistant words, the user's last."""
    messages: list[JSONObject] = [
        {"role": "user" if index % 2 == 0 else "assistant", "content": text}
        for index, text in enumerate(said)
    ]
    return Case(
        id="c1",
        event="find_restaurants",
        text=said[-1],
        expected=Expectation(
            status=Status.SUCCESS, arguments={"city": "San Jose", "cuisine": "Italian"}
        ),
        context=NOW,
        messages=tuple(messages),
    )


def model_calls(arguments: JSONObject) -> FunctionProvider:
    """A model that calls the tool with ``arguments`` (and records what it was sent)."""
    call = ToolCall(
        name="find_restaurants", arguments_raw=json.dumps(arguments), arguments=arguments
    )
    return FunctionProvider(lambda request: ProviderReply(tool_calls=(call,)))


TOLD = case("Find me an Italian restaurant.", "In which city?", "San Jose.")


def test_plain_code_reads_the_conversation_and_the_kernel_runs_the_call() -> None:
    """The cuisine said a turn ago, the city in the reply: no model, the handler runs once."""
    for policy in (DeterministicFirst, DeterministicOnly):
        ran: list[JSONObject] = []
        provider = model_calls({"city": "Oslo", "cuisine": "Thai"})
        decision = asyncio.run(policy(restaurants(ran), provider).run(TOLD))
        assert decision.status is Status.SUCCESS
        assert decision.arguments == {"city": "San Jose", "cuisine": "Italian"}
        assert decision.llm_calls == 0
        assert provider.requests == []
        assert ran == [{"city": "San Jose", "cuisine": "Italian"}]
        assert decision.sources == {
            "cuisine": ValueSource.EARLIER_MESSAGE,
            "city": ValueSource.MESSAGE,
        }


def test_where_plain_code_does_not_decide_the_model_is_sent_what_llm_always_sends() -> None:
    """A fair fallback: the same request, the whole conversation in it."""
    vague = case(
        "Find me an Italian restaurant.", "In which city?", "Somewhere near my sister's place."
    )
    sent: list[ProviderRequest] = []
    for policy in (DeterministicFirst, LLMAlways):
        provider = model_calls({"city": "San Jose", "cuisine": "Italian"})
        decision = asyncio.run(policy(restaurants([]), provider).run(vague))
        assert decision.status is Status.SUCCESS
        assert decision.llm_calls == 1
        sent += provider.requests
    first, second = sent
    assert first.fingerprint() == second.fingerprint()
    words = first.messages[-1].content
    assert "User: Find me an Italian restaurant." in words
    assert "Assistant: In which city?" in words
    assert words.endswith("User: Somewhere near my sister's place.")


def test_deterministic_only_never_asks_a_model() -> None:
    """What plain code cannot read stays missing: the last message alone, no request."""
    vague = case("I'm hungry.", "What would you like?", "Something good.")
    provider = model_calls({"city": "San Jose", "cuisine": "Italian"})
    decision = asyncio.run(DeterministicOnly(restaurants([]), provider).run(vague))
    assert decision.status is not Status.SUCCESS
    assert decision.llm_calls == 0
    assert provider.requests == []


def test_the_transcript_writes_every_turn_call_and_result_in_order() -> None:
    """What the model reads: words, the call made with its arguments, and what it returned."""
    messages: list[JSONObject] = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Thai food in Oakland?"}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {
                        "name": "find_restaurants",
                        "arguments": '{"city":"Oakland","cuisine":"Thai"}',
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '[{"name":"Lers Ros"}]'},
        {"role": "assistant", "content": "Lers Ros is one."},
        {"role": "user", "content": "Any Italian ones?"},
    ]
    assert transcript(messages).splitlines()[1:] == [
        "Instructions: Be brief.",
        "User: Thai food in Oakland?",
        'Assistant called find_restaurants with {"city":"Oakland","cuisine":"Thai"}',
        'Result: [{"name":"Lers Ros"}]',
        "Assistant: Lers Ros is one.",
        "User: Any Italian ones?",
    ]


def test_precision_of_a_conversation_is_told_by_where_each_value_was_found() -> None:
    """``agent-lab precision`` on conversation cases: rows per source; the truth's coverage."""
    told_otherwise = dataclasses.replace(
        TOLD,
        id="c2",
        expected=Expectation(
            status=Status.SUCCESS, arguments={"city": "Oakland", "cuisine": "Italian"}
        ),
    )
    vague = dataclasses.replace(
        case("I'm hungry.", "What would you like?", "Something good."), id="c3"
    )
    workload = Workload("talks", (TOLD, told_otherwise, vague))
    report = measure_precision(workload, restaurants([]))
    rows = {(row.kind, row.source): (row.filled, row.right) for row in report.rows}
    assert rows[("enum", "earlier_message")] == (2, 2)
    assert rows[("free-form", "message")] == (2, 1)
    truth = {
        row.kind: (row.answered, row.expected)
        for row in report.rows
        if row.source == "conversation"
    }
    assert truth == {"enum": (2, 3), "free-form": (2, 3)}
    assert [(wrong.case, wrong.argument, wrong.filled) for wrong in report.wrong] == [
        ("c2", "city", "San Jose")
    ]
