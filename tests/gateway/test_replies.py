"""The turn after the gateway's own calls, said with the event's declared reply: no model.

In enforce mode a covered request gets the gateway's tool call (its id marks it
as the gateway's); the client runs the tool and sends the result back. When the
event declares how its result is said, that request is answered locally too,
with those words and ``finish_reason: "stop"``; anything else goes upstream.
"""

from __future__ import annotations

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import json
import sqlite3
from pathlib import Path
from typing import Any

from openai import NOT_GIVEN

from agent_lab.agents.plugins import PluginSet
from agent_lab.answering import is_local_call
from agent_lab.gateway import Gateway, GatewaySettings, Mode
from agent_lab.kernel.models import EventDefinition
from agent_lab.resolvers.schema import SchemaResolver
from agent_lab.strict_json import JSONValue
from tests.gateway.conftest import COVERED, KEY, SDK, TOOLS, WEATHER, user
from tests.gateway.running import serving
from tests.openai_server import OpenAIServer, content

SAID = "It is {forecast} in {city}."
RESULT = {"city": "Paris", "forecast": "sunny"}


def weather_plugins() -> PluginSet:
    """The user's get_weather: the schema-driven resolver, and how its result is said."""
    schema = WEATHER["function"]["parameters"]
    definition = EventDefinition(
        "get_weather", parameters=schema, resolver=SchemaResolver(schema), reply=SAID
    )
    return PluginSet("weather", (definition,))


def unsaid_plugins() -> PluginSet:
    schema = WEATHER["function"]["parameters"]
    return PluginSet(
        "weather",
        (EventDefinition("get_weather", parameters=schema, resolver=SchemaResolver(schema)),),
    )


def broken(_: object) -> str:
    raise RuntimeError("the plugin's bug")


def broken_plugins() -> PluginSet:
    """A reply function that raises (module level: the store's writer process loads it too)."""
    schema = WEATHER["function"]["parameters"]
    definition = EventDefinition(
        "get_weather", parameters=schema, resolver=SchemaResolver(schema), reply=broken
    )
    return PluginSet("weather", (definition,))


def forecast_said(result: JSONValue) -> str:
    """A reply function that says a text result as the forecast itself."""
    forecast = result.get("forecast") if isinstance(result, dict) else result
    return f"It is {forecast} in Paris."


def said_plugins() -> PluginSet:
    schema = WEATHER["function"]["parameters"]
    definition = EventDefinition(
        "get_weather", parameters=schema, resolver=SchemaResolver(schema), reply=forecast_said
    )
    return PluginSet("weather", (definition,))


def rejected(result: JSONValue) -> bool:
    """The event's own word for failure: a result whose state is "rejected"."""
    return not isinstance(result, dict) or result.get("state") == "rejected"


def rejecting_plugins() -> PluginSet:
    schema = WEATHER["function"]["parameters"]
    definition = EventDefinition(
        "get_weather",
        parameters=schema,
        resolver=SchemaResolver(schema),
        reply=SAID,
        failed=rejected,
    )
    return PluginSet("weather", (definition,))


def gateway(
    upstream: OpenAIServer,
    tmp_path: Path,
    *,
    plugins: Any = weather_plugins,
    mode: Mode = Mode.ENFORCE,
    trusted: tuple[str, ...] = ("get_weather",),
) -> Gateway:
    settings = GatewaySettings(
        upstream=upstream.url, mode=mode, enforce=trusted, db=str(tmp_path / "gateway.sqlite")
    )
    return Gateway(settings, load_plugins=plugins)


def follow_up(call_id: str, result: object = RESULT, *, text: str | None = None) -> list[Any]:
    """The conversation after a get_weather call with ``call_id`` and its result (or ``text``)."""
    return [
        *user(COVERED),
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": call_id,
            "content": json.dumps(result) if text is None else text,
        },
    ]


def test_the_turn_after_a_local_call_is_said_with_the_declared_reply(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path
) -> None:
    """A whole tool turn, both requests answered by the gateway: the call, then the words."""
    with serving(GatewaySettings(upstream=upstream.url), gateway=gateway(upstream, tmp_path)) as (
        served
    ):
        client = sdk(served.url, KEY)
        first = client.chat.completions.create(
            model="gpt-4o-mini", messages=user(COVERED), tools=TOOLS
        )
        calls = first.choices[0].message.tool_calls or []
        assert len(calls) == 1
        assert is_local_call(calls[0].id)
        raw = client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=follow_up(calls[0].id), tools=TOOLS
        )
        served.flush()
    answer = raw.parse()
    assert upstream.requests == []
    assert raw.headers["x-agent-lab-answered"] == "local"
    choice = answer.choices[0]
    assert choice.message.content == "It is sunny in Paris."
    assert choice.message.tool_calls is None
    assert choice.finish_reason == "stop"
    assert answer.usage is not None
    assert answer.usage.total_tokens == 0
    with sqlite3.connect(tmp_path / "gateway.sqlite") as db:
        rules = [json.loads(row[0])["rule"] for row in db.execute("SELECT decision FROM exchanges")]
    assert rules == ["covered", "local_reply"]
    metrics = served.gateway.metrics.render()[0].decode()
    assert "agent_lab_gateway_answered_locally_total 2.0" in metrics


def test_a_streamed_follow_up_gets_the_words_as_a_content_delta(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path
) -> None:
    with serving(GatewaySettings(upstream=upstream.url), gateway=gateway(upstream, tmp_path)) as (
        served
    ):
        stream = sdk(served.url, KEY).chat.completions.create(
            model="gpt-4o-mini",
            messages=follow_up("call_al_0123456789abcdef"),
            tools=TOOLS,
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = list(stream)
    assert upstream.requests == []
    said = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert said == "It is sunny in Paris."
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.total_tokens == 0


@pytest.mark.parametrize(
    ("case", "messages", "extra"),
    [
        ("the model's call, not the gateway's", follow_up("call_abc123"), {}),
        ("a template the result does not fit", follow_up("call_al_1", {"city": "Paris"}), {}),
        ("tool_choice required", follow_up("call_al_1"), {"tool_choice": "required"}),
        ("a response_format", follow_up("call_al_1"), {"response_format": {"type": "text"}}),
        (
            "a result that is not the last message",
            [*follow_up("call_al_1"), {"role": "user", "content": "thanks"}],
            {},
        ),
    ],
)
def test_a_follow_up_the_rules_do_not_cover_goes_upstream(
    sdk: SDK,
    upstream: OpenAIServer,
    tmp_path: Path,
    *,
    case: str,
    messages: list[Any],
    extra: dict[str, Any],
) -> None:
    upstream.default = content("The model's words.")
    with serving(GatewaySettings(upstream=upstream.url), gateway=gateway(upstream, tmp_path)) as (
        served
    ):
        raw = sdk(served.url, KEY).chat.completions.with_raw_response.create(
            model="gpt-4o-mini",
            messages=messages,
            tools=TOOLS,
            tool_choice=extra.get("tool_choice", NOT_GIVEN),
            response_format=extra.get("response_format", NOT_GIVEN),
        )
    assert len(upstream.requests) == 1, case
    assert "x-agent-lab-answered" not in raw.headers, case
    answer = raw.parse()
    assert answer.choices[0].message.content == "The model's words."


@pytest.mark.parametrize(
    ("case", "plugins", "mode", "trusted"),
    [
        ("no reply declared", unsaid_plugins, Mode.ENFORCE, ("get_weather",)),
        ("the tool is not trusted", weather_plugins, Mode.ENFORCE, ("set_timer",)),
        ("shadow mode", weather_plugins, Mode.SHADOW, ("get_weather",)),
    ],
)
def test_a_reply_is_said_only_where_declared_trusted_and_enforced(
    sdk: SDK,
    upstream: OpenAIServer,
    tmp_path: Path,
    *,
    case: str,
    plugins: Any,
    mode: Mode,
    trusted: tuple[str, ...],
) -> None:
    upstream.default = content("The model's words.")
    made = gateway(upstream, tmp_path, plugins=plugins, mode=mode, trusted=trusted)
    with serving(GatewaySettings(upstream=upstream.url), gateway=made) as served:
        answer = sdk(served.url, KEY).chat.completions.create(
            model="gpt-4o-mini", messages=follow_up("call_al_0123456789abcdef"), tools=TOOLS
        )
    assert len(upstream.requests) == 1, case
    assert answer.choices[0].message.content == "The model's words."


def test_a_plugin_whose_reply_raises_leaves_the_words_to_the_model(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path
) -> None:
    """A reply function that raises is no reply (never a 500): the request goes upstream."""
    upstream.default = content("The model's words.")
    with serving(
        GatewaySettings(upstream=upstream.url),
        gateway=gateway(upstream, tmp_path, plugins=broken_plugins),
    ) as served:
        answer = sdk(served.url, KEY).chat.completions.create(
            model="gpt-4o-mini", messages=follow_up("call_al_0123456789abcdef"), tools=TOOLS
        )
    assert len(upstream.requests) == 1
    assert answer.choices[0].message.content == "The model's words."


def test_a_result_for_a_call_the_gateway_did_not_make_goes_upstream(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path
) -> None:
    """The tool message answers another id than the gateway's call: not a reply's to say."""
    upstream.default = content("The model's words.")
    messages = follow_up("call_al_1")
    messages[-1]["tool_call_id"] = "call_al_2"
    with serving(GatewaySettings(upstream=upstream.url), gateway=gateway(upstream, tmp_path)) as (
        served
    ):
        sdk(served.url, KEY).chat.completions.create(
            model="gpt-4o-mini", messages=messages, tools=TOOLS
        )
    assert len(upstream.requests) == 1


FAILED = "ERROR: upstream weather API down"


@pytest.mark.parametrize(
    ("case", "plugins", "messages", "result"),
    [
        (
            "an error object",
            weather_plugins,
            follow_up("call_al_1", {**RESULT, "error": FAILED}),
            json.dumps({**RESULT, "error": FAILED}),
        ),
        ("an error string", said_plugins, follow_up("call_al_1", text=FAILED), FAILED),
        (
            "the event's own failed",
            rejecting_plugins,
            follow_up("call_al_1", {**RESULT, "state": "rejected"}),
            json.dumps({**RESULT, "state": "rejected"}),
        ),
    ],
    ids=["an error object", "an error string", "the event's own failed"],
)
def test_a_failed_result_is_forwarded_not_said_with_the_declared_reply(
    sdk: SDK,
    upstream: OpenAIServer,
    tmp_path: Path,
    *,
    case: str,
    plugins: Any,
    messages: list[Any],
    result: str,
) -> None:
    """A reply that could say the result ("It is sunny in Paris.") would claim a success.

    The tool reported failure (by the conservative rule, or by the event's own
    ``failed``): the follow-up goes upstream, result and all, and the client
    gets the model's words.
    """
    upstream.default = content("The weather service is down; try again later.")
    made = gateway(upstream, tmp_path, plugins=plugins)
    with serving(GatewaySettings(upstream=upstream.url), gateway=made) as served:
        raw = sdk(served.url, KEY).chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=messages, tools=TOOLS
        )
    assert len(upstream.requests) == 1, case
    forwarded = upstream.requests[0].body["messages"][-1]
    assert (forwarded["role"], forwarded["content"]) == ("tool", result), case
    assert "x-agent-lab-answered" not in raw.headers, case
    answer = raw.parse()
    assert answer.choices[0].message.content == "The weather service is down; try again later."


def test_the_events_own_failed_replaces_the_rule_and_lets_a_success_be_said(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path
) -> None:
    """Errors the event knows are no failure (a station offline): its reply is said locally."""
    accepted = {**RESULT, "state": "accepted", "errors": ["one station offline"]}
    made = gateway(upstream, tmp_path, plugins=rejecting_plugins)
    with serving(GatewaySettings(upstream=upstream.url), gateway=made) as served:
        answer = sdk(served.url, KEY).chat.completions.create(
            model="gpt-4o-mini", messages=follow_up("call_al_1", accepted), tools=TOOLS
        )
    assert upstream.requests == []
    assert answer.choices[0].message.content == "It is sunny in Paris."
