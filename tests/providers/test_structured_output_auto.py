"""``structured_output``: the five modes on the wire, and ``auto`` against server personas."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from agent_lab import Event, EventDefinition, EventKernel, EventRegistry, Status
from agent_lab.agents.fallback import LLMFallback
from agent_lab.providers import Message, OpenAIProvider, ProviderRequest
from agent_lab.providers._format_negotiation import FormatNegotiation
from agent_lab.strict_json import JSONObject
from tests import server_personas as personas
from tests.openai_server import Behavior, OpenAIServer, content, serving

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"duration_seconds": {"type": "integer", "minimum": 1}},
    "required": ["duration_seconds"],
    "additionalProperties": False,
}
ANSWER = '{"duration_seconds": 240}'


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    yield from serving()


def provider(server: OpenAIServer, mode: Any = "auto", **options: Any) -> OpenAIProvider:
    return OpenAIProvider(
        "m", base_url=server.url, structured_output=mode, timeout=2.0, backoff_base=0.01,
        backoff_max=0.02, **options,
    )  # fmt: skip


def request(**extra: Any) -> ProviderRequest:
    return ProviderRequest(
        purpose="fallback",
        messages=(Message("system", "Fill the fields."), Message("user", "four minutes")),
        response_schema=SCHEMA,
        schema_name="set_timer",
        **extra,
    )


def complete(target: OpenAIProvider, how_many: int = 1) -> list[Any]:
    async def calls() -> list[Any]:
        return [await target.complete(request()) for _ in range(how_many)]

    return asyncio.run(calls())


def sent_formats(server: OpenAIServer) -> list[str]:
    kinds: list[str] = []
    for recorded in server.requests:
        body = recorded.body
        if "response_format" in body:
            kinds.append(body["response_format"]["type"])
        elif "tools" in body:
            kinds.append("tools")
        else:
            kinds.append("prompted")
    return kinds


# The modes on the wire ---------------------------------------------------------------


def test_tools_mode_forces_one_function_and_its_arguments_are_the_reply(
    server: OpenAIServer,
) -> None:
    server.responder = personas.tools_only(ANSWER)
    (reply,) = complete(provider(server, "tools"))
    body = server.requests[0].body
    assert "response_format" not in body
    assert body["tools"][0]["function"]["parameters"] == SCHEMA
    assert body["tool_choice"] == {"type": "function", "function": {"name": "set_timer"}}
    assert reply.ok
    assert (reply.text, reply.parsed, reply.tool_calls) == (ANSWER, {"duration_seconds": 240}, ())


def test_prompted_mode_puts_the_schema_in_the_system_message_and_nothing_on_the_wire(
    server: OpenAIServer,
) -> None:
    server.default = content(ANSWER)
    (reply,) = complete(provider(server, "prompted"))
    body = server.requests[0].body
    assert "response_format" not in body
    assert "tools" not in body
    system = body["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("Fill the fields.")
    assert '"duration_seconds":{"type":"integer","minimum":1}' in system["content"]
    assert len(body["messages"]) == 2
    assert reply.parsed == {"duration_seconds": 240}


def test_a_fixed_mode_retries_a_5xx_and_never_changes(server: OpenAIServer) -> None:
    server.responder = personas.llama_cpp(ANSWER)
    target = provider(server, "json_schema", max_attempts=2)
    (reply,) = complete(target)
    assert not reply.ok
    assert sent_formats(server) == ["json_schema", "json_schema"]
    assert target.structured_output_used == "json_schema"
    assert target.structured_output_note is None


# auto against the servers users run ----------------------------------------------------


def test_auto_keeps_json_schema_where_vllm_takes_it(server: OpenAIServer) -> None:
    server.responder = personas.vllm(ANSWER)
    target = provider(server)
    replies = complete(target, 3)
    assert all(r.ok for r in replies)
    assert sent_formats(server) == ["json_schema"] * 3
    assert target.structured_output_note == "auto: json_schema"


def test_auto_moves_to_json_object_on_vllms_400_naming_the_format(server: OpenAIServer) -> None:
    server.responder = personas.vllm(ANSWER, json_schema=False)
    target = provider(server)
    first, second = complete(target, 2)
    assert first.ok
    assert first.parsed == {"duration_seconds": 240}
    assert first.usage.requests == 2
    assert second.usage.requests == 1
    assert sent_formats(server) == ["json_schema", "json_object", "json_object"]
    assert target.structured_output_used == "json_object"
    note = target.structured_output_note
    assert note is not None
    assert note.startswith("auto: json_object, after json_schema: HTTP 400")
    assert "guided decoding is off" in note


def test_auto_moves_on_at_once_from_llama_cpps_500_without_retrying_it(
    server: OpenAIServer,
) -> None:
    server.responder = personas.llama_cpp(ANSWER)
    target = provider(server, max_attempts=3)
    (reply,) = complete(target)
    assert reply.ok
    # Not three 500s first: a refused format is not a transient fault.
    assert sent_formats(server) == ["json_schema", "json_object"]
    assert target.structured_output_used == "json_object"
    assert server.requests[1].body["response_format"]["schema"] == SCHEMA


def test_auto_moves_on_when_ollama_ignores_the_format_and_counts_both_replies_tokens(
    server: OpenAIServer,
) -> None:
    server.responder = personas.ollama_before_structured_outputs(ANSWER)
    target = provider(server)
    (reply,) = complete(target)
    assert reply.ok
    assert reply.parsed == {"duration_seconds": 240}
    assert sent_formats(server) == ["json_schema", "json_object"]
    # Two replies of 120 + 12 tokens each (the fault server's usage).
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (240, 24)
    assert reply.usage.requests == 2
    note = target.structured_output_note
    assert note is not None
    assert "the reply ignored it" in note


def test_auto_goes_down_to_tools_and_then_prompted_on_ollamas_errors(
    server: OpenAIServer,
) -> None:
    server.responder = personas.ollama_without_tools(ANSWER)
    target = provider(server)
    first, second = complete(target, 2)
    assert first.ok
    assert first.parsed == {"duration_seconds": 240}
    assert sent_formats(server) == ["json_schema", "json_object", "tools", "prompted", "prompted"]
    assert second.usage.requests == 1
    assert target.structured_output_used == "prompted"
    note = target.structured_output_note
    assert note is not None
    assert "does not support tools" in note


def test_auto_settles_on_tools_for_a_server_without_response_format(
    server: OpenAIServer,
) -> None:
    server.responder = personas.tools_only(ANSWER)
    target = provider(server)
    (reply,) = complete(target)
    assert reply.ok
    assert reply.text == ANSWER
    assert sent_formats(server) == ["json_schema", "json_object", "tools"]


def test_a_confirmed_mode_never_moves_on_a_later_odd_reply(server: OpenAIServer) -> None:
    server.responder = personas.vllm(ANSWER)
    target = provider(server)
    complete(target)
    server.responder = None
    server.play(content("no JSON here"))
    (odd,) = complete(target)
    assert odd.ok
    assert odd.parsed is None
    assert target.structured_output_used == "json_schema"
    assert len(server.requests) == 1


def test_a_reply_cut_by_its_token_budget_is_no_evidence_against_the_format(
    server: OpenAIServer,
) -> None:
    server.play(Behavior(message={"role": "assistant", "content": '{"dur'}, finish_reason="length"))
    target = provider(server)
    (reply,) = complete(target)
    assert sent_formats(server) == ["json_schema"]
    assert reply.finish_reason == "length"
    assert target.structured_output_used == "json_schema"


def test_a_refusal_that_does_not_name_the_format_is_not_a_format_refusal(
    server: OpenAIServer,
) -> None:
    server.play(personas.status(400, '{"error": {"message": "maximum context length exceeded"}}'))
    target = provider(server)
    (reply,) = complete(target)
    assert not reply.ok
    assert sent_formats(server) == ["json_schema"]
    assert target.structured_output_used == "json_schema"


def test_concurrent_refusals_move_the_mode_once(server: OpenAIServer) -> None:
    server.responder = personas.llama_cpp(ANSWER)
    target = provider(server, keep_alive=True)

    async def together() -> list[Any]:
        try:
            return list(await asyncio.gather(*(target.complete(request()) for _ in range(6))))
        finally:
            await target.aclose()

    replies = asyncio.run(together())
    assert all(r.ok for r in replies)
    assert target.structured_output_used == "json_object"
    note = target.structured_output_note
    assert note is not None
    assert note.count("json_schema:") == 1


def test_requests_without_a_schema_are_never_negotiated(server: OpenAIServer) -> None:
    server.default = personas.status(500, '{"error": {"message": "tools broke"}}')
    target = provider(server, max_attempts=1)
    tools: tuple[JSONObject, ...] = (
        {"type": "function", "function": {"name": "t", "parameters": SCHEMA}},
    )

    async def choose() -> Any:
        return await target.complete(
            ProviderRequest(purpose="tool_choice", messages=(Message("user", "x"),), tools=tools)
        )

    reply = asyncio.run(choose())
    assert not reply.ok
    assert len(server.requests) == 1
    assert target.structured_output_used == "json_schema"


def test_the_kernel_fills_arguments_through_a_negotiated_mode(server: OpenAIServer) -> None:
    server.responder = personas.llama_cpp(ANSWER)
    registry = EventRegistry()
    registry.register(EventDefinition("set_timer", description="Start a timer.", parameters=SCHEMA))
    result = EventKernel(registry, LLMFallback(provider(server))).dispatch(
        Event("set_timer", text="four minutes")
    )
    assert result.status is Status.SUCCESS
    assert result.arguments == {"duration_seconds": 240}


def test_the_order_ends_at_prompted() -> None:
    negotiation = FormatNegotiation("auto")
    assert negotiation.after("json_schema", "x") == "json_object"
    assert negotiation.after("json_object", "x") == "tools"
    assert negotiation.after("tools", "x") == "prompted"
    assert negotiation.after("prompted", "x") is None
    assert FormatNegotiation("json_object").after("json_object", "x") is None


def test_a_fastapi_detail_is_kept_in_the_failure_message(server: OpenAIServer) -> None:
    # The SDK keeps only {"error": {"message"}} or a top-level "message"; without
    # the body, "HTTP 422: Error code: 422" would say nothing of why.
    server.play(personas.status(422, '{"detail": "extra field not permitted: seed"}'))
    (reply,) = complete(provider(server, "json_schema"))
    assert reply.failure is not None
    assert "extra field not permitted: seed" in reply.failure.message


# Tool choice under auto ----------------------------------------------------------------

TOOLS: tuple[JSONObject, ...] = (
    {"type": "function", "function": {"name": "set_timer", "description": "Start a timer.",
                                      "parameters": SCHEMA}},
    {"type": "function", "function": {"name": "play_music", "description": "Play a song.",
                                      "parameters": {"type": "object"}}},
)  # fmt: skip


def choose(target: OpenAIProvider, how_many: int = 1) -> list[Any]:
    async def calls() -> list[Any]:
        return [
            await target.complete(
                ProviderRequest(
                    purpose="tool_choice",
                    messages=(Message("system", "Pick a tool."), Message("user", "four minutes")),
                    tools=TOOLS,
                    tool_choice="auto",
                )
            )
            for _ in range(how_many)
        ]

    return asyncio.run(calls())


def test_tool_choice_is_asked_as_json_where_the_server_ignores_tools(
    server: OpenAIServer,
) -> None:
    server.responder = personas.llama_cpp(
        ANSWER, choice='{"name": "set_timer", "arguments": {"duration_seconds": 240}}'
    )
    target = provider(server)
    first, second = choose(target, 2)
    (call,) = first.tool_calls
    assert (call.name, call.arguments_raw) == ("set_timer", '{"duration_seconds": 240}')
    # The chat reply, the probe with tool_choice=required, json_schema refused, json_object.
    assert sent_formats(server) == ["tools", "tools", "json_schema", "json_object", "json_object"]
    assert server.requests[1].body["tool_choice"] == "required"
    assert first.usage.requests == 4
    assert second.usage.requests == 1
    assert second.tool_calls[0].name == "set_timer"
    choice_request = server.requests[4].body
    assert "play_music: Play a song." in choice_request["messages"][1]["content"]
    note = target.structured_output_note
    assert note is not None
    assert note.startswith(
        "auto: json_object, tool choice as JSON, after tools: the server answered in text "
        "even with tool_choice=required; json_schema: HTTP 500"
    )


def test_none_asked_as_json_is_a_decline(server: OpenAIServer) -> None:
    server.responder = personas.llama_cpp(ANSWER)
    (reply,) = choose(provider(server))
    assert reply.ok
    assert reply.tool_calls == ()
    assert reply.text == '{"name": "none"}'


def test_a_server_that_calls_tools_is_never_probed(server: OpenAIServer) -> None:
    server.responder = personas.vllm(ANSWER, call=("set_timer", ANSWER))
    target = provider(server)
    first, second = choose(target, 2)
    assert [r.usage.requests for r in (first, second)] == [1, 1]
    assert sent_formats(server) == ["tools", "tools"]
    assert target.structured_output_note == "auto: json_schema (not yet confirmed)"


def test_a_model_that_declines_in_text_keeps_its_decline_after_one_probe(
    server: OpenAIServer,
) -> None:
    server.responder = personas.vllm(ANSWER)
    target = provider(server)
    first, second = choose(target, 2)
    assert first.text == "None of these tools fits."
    assert first.tool_calls == ()
    assert first.usage.requests == 2
    assert second.usage.requests == 1
    assert [r.body.get("tool_choice") for r in server.requests] == ["auto", "required", "auto"]


def test_a_server_that_refuses_tools_with_a_400_is_asked_the_choice_as_json(
    server: OpenAIServer,
) -> None:
    """Ollama's 400 "does not support tools": the same choice, asked as structured output."""
    server.responder = personas.ollama_without_tools(
        '{"name": "set_timer", "arguments": {"duration_seconds": 240}}'
    )
    target = provider(server)
    first, second = choose(target, 2)
    (call,) = first.tool_calls
    assert (call.name, call.arguments) == ("set_timer", {"duration_seconds": 240})
    assert first.usage.requests == len(server.requests) - 1
    assert second.usage.requests == 1
    assert second.tool_calls[0].name == "set_timer"
    note = target.structured_output_note
    assert note is not None
    assert "tool choice as JSON" in note
    assert "does not support tools" in note


def test_prepare_settles_auto_before_any_counted_request(server: OpenAIServer) -> None:
    """prepare() spends the refusals and probes; later requests go straight through."""
    server.responder = personas.llama_cpp(ANSWER)
    target = provider(server)

    async def prepared() -> Any:
        return await target.prepare()

    setup = asyncio.run(prepared())
    assert setup.usage.requests == len(server.requests) >= 4
    assert setup.note == target.structured_output_note
    assert setup.note is not None
    assert setup.note.startswith("auto: json_object, tool choice as JSON")
    before = len(server.requests)
    (fallback,) = complete(target)
    (chosen,) = choose(target)
    assert (fallback.usage.requests, chosen.usage.requests) == (1, 1)
    assert len(server.requests) == before + 2


def test_prepare_sends_nothing_for_a_fixed_mode(server: OpenAIServer) -> None:
    target = provider(server, "json_object")
    setup = asyncio.run(target.prepare())
    assert setup.usage.requests == 0
    assert setup.note is None
    assert server.requests == []
