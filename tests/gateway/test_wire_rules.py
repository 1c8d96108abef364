"""Item 3's rules: the gateway answers only what plain code may answer, from the request alone.

Every case here is a request ``enforce`` must forward untouched, with both
tools trusted: each test fails if the gateway answers it itself. The control
(``test_the_control_is_answered_locally``) shows the same gateway does
answer the covered request, so a forward is the rule's doing.
"""

from __future__ import annotations

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai

from agent_lab.agents.decision import Decision, DispatchedCall, Routing
from agent_lab.answering import Answerer, LocalAnswer
from agent_lab.gateway import GatewaySettings, Mode
from agent_lab.gateway.wire_rules import WireRequest, wire_request
from agent_lab.kernel.models import Status
from agent_lab.usage import Usage
from tests.gateway.conftest import COVERED, SDK, TOOLS, user
from tests.gateway.running import Served, serving
from tests.openai_server import OpenAIServer, content

BASE: dict[str, Any] = {"model": "gpt-4o-mini", "messages": user(COVERED), "tools": TOOLS}
CALLED: dict[str, Any] = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
        }
    ],
}


def changed(**fields: Any) -> dict[str, Any]:
    body = copy.deepcopy(BASE)
    for key, value in fields.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return body


FORWARDED: list[tuple[str, dict[str, Any]]] = [
    (
        "a-tool-result-last",
        changed(
            messages=[
                *user(COVERED),
                CALLED,
                {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
            ]
        ),
    ),
    (
        "the-assistant-last",
        changed(messages=[*user(COVERED), {"role": "assistant", "content": "Hi"}]),
    ),
    (
        "a-later-user-turn-plain-code-cannot-decide",
        changed(
            messages=[
                *user(COVERED),
                CALLED,
                {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
                {"role": "assistant", "content": "Sunny."},
                {"role": "user", "content": "thanks, tell me a joke"},
            ]
        ),
    ),
    ("tool-choice-none", changed(tool_choice="none")),
    ("a-response-format", changed(response_format={"type": "json_object"})),
    ("no-tools", changed(tools=None)),
    ("an-empty-tools-list", changed(tools=[])),
    ("a-field-not-understood", changed(logprobs=True)),
    ("legacy-functions", changed(tools=None, functions=[TOOLS[0]["function"]])),
    ("n-above-1", changed(n=2)),
    ("n-one-as-a-decimal", changed(n=1.0)),
    (
        "tool-choice-names-another-tool",
        changed(tool_choice={"type": "function", "function": {"name": "set_timer"}}),
    ),
    (
        "tool-choice-names-a-tool-not-offered",
        changed(tool_choice={"type": "function", "function": {"name": "get_news"}}),
    ),
    (
        "tool-choice-allowed-tools",
        changed(
            tool_choice={
                "type": "allowed_tools",
                "allowed_tools": {"mode": "auto", "tools": [{"type": "function"}]},
            }
        ),
    ),
    (
        "an-image-in-the-last-message",
        changed(
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": COVERED},
                        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}},
                    ],
                }
            ]
        ),
    ),
    ("a-custom-tool", changed(tools=[*TOOLS, {"type": "custom", "custom": {"name": "x"}}])),
    ("not-covered", changed(messages=user("tell me a joke"))),
    ("nothing-to-read", changed(messages=user("get the weather forecast"))),
    ("an-unknown-role", changed(messages=[{"role": "robot", "content": COVERED}])),
]


@pytest.fixture
def gateway(upstream: OpenAIServer, tmp_path: Path) -> Iterator[Served]:
    upstream.default = content("from upstream")
    settings = GatewaySettings(
        upstream=upstream.url,
        mode=Mode.ENFORCE,
        enforce=("get_weather", "set_timer"),
        db=str(tmp_path / "gateway.sqlite"),
    )
    with serving(settings) as served:
        yield served


def post(served: Served, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{served.url}/chat/completions", json=body, timeout=10)


def test_the_control_is_answered_locally(gateway: Served, upstream: OpenAIServer) -> None:
    """The covered request itself, to the same gateway: answered here, nothing forwarded."""
    response = post(gateway, BASE)
    assert response.headers.get("x-agent-lab-answered") == "local"
    assert upstream.requests == []


@pytest.mark.parametrize(("body"), [body for _, body in FORWARDED], ids=[n for n, _ in FORWARDED])
def test_a_request_the_rules_forward_reaches_the_upstream_untouched(
    gateway: Served, upstream: OpenAIServer, body: dict[str, Any]
) -> None:
    """Forwarded as sent, and the client gets the upstream's answer."""
    response = post(gateway, body)
    assert "x-agent-lab-answered" not in response.headers
    assert response.json()["choices"][0]["message"]["content"] == "from upstream"
    assert [r.body for r in upstream.requests] == [body]


def test_a_tool_not_trusted_is_forwarded(upstream: OpenAIServer, tmp_path: Path) -> None:
    """Covered, but only set_timer is trusted: the weather request goes upstream."""
    upstream.default = content("from upstream")
    settings = GatewaySettings(
        upstream=upstream.url, mode=Mode.ENFORCE, enforce=("set_timer",), db=None
    )
    with serving(settings) as served:
        weather = post(served, BASE)
        timer = post(served, changed(messages=user("set timer for 5 minutes")))
    assert "x-agent-lab-answered" not in weather.headers
    assert timer.headers["x-agent-lab-answered"] == "local"
    assert [r.body for r in upstream.requests] == [BASE]


def test_shadow_never_answers_even_a_covered_request(upstream: OpenAIServer) -> None:
    """Shadow forwards everything, trusted tools or not."""
    upstream.default = content("from upstream")
    settings = GatewaySettings(upstream=upstream.url, enforce=("get_weather",), db=None)
    with serving(settings) as served:
        response = post(served, BASE)
    assert "x-agent-lab-answered" not in response.headers
    assert [r.body for r in upstream.requests] == [BASE]


def test_parallel_tool_calls_false_gets_at_most_one_call(gateway: Served) -> None:
    """Plain code makes one call; with ``parallel_tool_calls: false`` it still makes one."""
    response = post(gateway, changed(parallel_tool_calls=False))
    assert response.headers["x-agent-lab-answered"] == "local"
    assert len(response.json()["choices"][0]["message"]["tool_calls"]) == 1


def two_calls(*_: object, **__: object) -> Decision:
    """A decision of two calls, both plain code's (``llm_calls == 0``).

    Plain code alone decides one call per message today (several come only from
    a model's tool choice, which the gateway never asks for): this stands in for
    the answerer's decision so that the rule about several calls is exercised all the same.
    """
    calls = (
        DispatchedCall(event="get_weather", status=Status.SUCCESS, arguments={"city": "Paris"}),
        DispatchedCall(event="set_timer", status=Status.SUCCESS, arguments={"minutes": 5}),
    )
    return Decision(
        status=Status.SUCCESS,
        reason="several_calls",
        event="get_weather",
        arguments={"city": "Paris"},
        routed_by=Routing.LEXICAL,
        llm_calls=0,
        usage=Usage.zero(),
        calls=calls,
    )


@pytest.fixture
def decides_two_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Answerer, "_decided", two_calls)


BOTH = [("get_weather", {"city": "Paris"}), ("set_timer", {"minutes": 5})]


@pytest.mark.usefixtures("decides_two_calls")
@pytest.mark.parametrize(
    ("parallel", "reason", "calls"),
    [(False, "parallel_tool_calls", []), (True, "covered", BOTH), (None, "covered", BOTH)],
    ids=["false", "true", "absent"],
)
def test_a_decision_of_several_calls_meets_parallel_tool_calls(
    parallel: bool | None, reason: str, calls: list[tuple[str, Any]]
) -> None:
    """``parallel_tool_calls: false`` and two calls: no calls, the rule's word; else both."""
    checked = wire_request(changed(parallel_tool_calls=parallel))
    assert isinstance(checked, WireRequest)
    decided = Answerer().answer(checked.asked)
    assert decided.reason == reason
    made = decided.calls if isinstance(decided, LocalAnswer) else ()
    assert [(call.name, json.loads(call.arguments_json)) for call in made] == calls


@pytest.mark.usefixtures("decides_two_calls")
def test_several_calls_with_parallel_tool_calls_false_are_forwarded(
    gateway: Served, upstream: OpenAIServer, sdk: SDK
) -> None:
    """The SDK's request: forwarded when it allows one call; answered with both otherwise."""
    client = sdk(gateway.url)
    single = client.chat.completions.with_raw_response.create(
        model="gpt-4o-mini", messages=user(COVERED), tools=TOOLS, parallel_tool_calls=False
    )
    assert "x-agent-lab-answered" not in single.headers
    assert single.parse().choices[0].message.content == "from upstream"
    assert [r.body["parallel_tool_calls"] for r in upstream.requests] == [False]
    for allowed in (True, openai.omit):
        raw = client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=user(COVERED), tools=TOOLS, parallel_tool_calls=allowed
        )
        assert raw.headers["x-agent-lab-answered"] == "local"
        made = raw.parse().choices[0].message.tool_calls or []
        assert [
            (call.function.name, json.loads(call.function.arguments))
            for call in made
            if call.type == "function"
        ] == BOTH
    assert len(upstream.requests) == 1


@pytest.mark.parametrize(
    "choice",
    ["auto", "required", {"type": "function", "function": {"name": "get_weather"}}],
    ids=["auto", "required", "the-decided-tool-named"],
)
def test_a_tool_choice_that_allows_the_call_is_answered(
    gateway: Served, upstream: OpenAIServer, choice: object
) -> None:
    response = post(gateway, changed(tool_choice=choice))
    assert response.headers["x-agent-lab-answered"] == "local"
    assert upstream.requests == []


def test_no_decision_is_carried_from_one_request_to_the_next(
    gateway: Served, upstream: OpenAIServer
) -> None:
    """A covered request, then the same tools with words plain code cannot read: forwarded."""
    first = post(gateway, BASE)
    second = post(gateway, changed(messages=user("what about tomorrow?")))
    assert first.headers["x-agent-lab-answered"] == "local"
    assert "x-agent-lab-answered" not in second.headers
    assert len(upstream.requests) == 1


def test_a_body_that_is_not_json_is_forwarded_and_the_upstreams_error_returned(
    gateway: Served, upstream: OpenAIServer
) -> None:
    """Not understood: the upstream judges it, and its error object reaches the client."""
    response = httpx.post(
        f"{gateway.url}/chat/completions",
        content=b"{not json",
        headers={"Content-Type": "application/json"},
        timeout=10,
    )
    assert response.status_code >= 400
    assert set(json.loads(response.content)["error"]) >= {"message", "type"}
