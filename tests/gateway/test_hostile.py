"""The gateway holds against hostile clients and upstreams (issue 36), each through a real socket.

A path never leaves ``/v1``; the upstream never speaks for the gateway; enforce answers only
requests the API would take, with no setting that changes the answer; work per request is
bounded; a slow or vanishing client costs nothing; ``/metrics`` keeps its counters to the key.
Raw requests go over a plain socket (an HTTP client would normalise the dot segments away).
"""

from __future__ import annotations

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import asyncio
import base64
import gzip
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import openai
from aiohttp import web
from aiohttp.compression_utils import HAS_BROTLI

from agent_lab.gateway import GatewaySettings, Mode
from tests.gateway.conftest import COVERED, KEY, SDK, TOOLS, WEATHER, user
from tests.gateway.running import Served, serving
from tests.openai_server import Behavior, OpenAIServer, content, status, tool_calls


@dataclass
class Hostile:
    """An upstream on loopback that answers every path and method with what a test sets."""

    headers: dict[str, str] = field(default_factory=dict[str, str])
    body: bytes = b""
    status: int = 200
    seen: list[tuple[str, str, dict[str, str]]] = field(default_factory=list[Any])
    port: int = 0
    delays: list[float] = field(default_factory=list[float])
    """Seconds to wait before answering each request in turn (then none)."""
    events: list[bytes] = field(default_factory=list[bytes])
    """When set, the answer is a stream of these server-sent events."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.seen.append((request.method, request.raw_path, dict(request.headers)))
        if self.delays:
            await asyncio.sleep(self.delays.pop(0))
        if self.events:
            streamed = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await streamed.prepare(request)
            for event in self.events:
                await streamed.write(event)
            await streamed.write_eof()
            return streamed
        completion = {
            "id": "chatcmpl-hostile",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "from upstream"},
                    "finish_reason": "stop",
                }
            ],
        }
        body = self.body or json.dumps(completion).encode()
        answer = web.Response(status=self.status, body=body)
        answer.headers["Content-Type"] = "application/json"
        for name, value in self.headers.items():
            # A name written "Connection#2" is a second header of that name.
            answer.headers.add(name.split("#")[0], value)
        return answer


@pytest.fixture
def hostile() -> Iterator[Hostile]:
    server = Hostile()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", server.handle)
    runner = web.AppRunner(app, access_log=None)

    async def start() -> None:
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        # The only way to read the port the OS chose.
        listening: Any = site._server  # pyright: ignore[reportPrivateUsage]
        server.port = int(listening.sockets[0].getsockname()[1])

    asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    try:
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def raw(port: int, head: str, body: bytes = b"", *, close: bool = True) -> tuple[int, bytes]:
    """Send ``head`` (request line and headers) and ``body`` as written; the status and answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        ending = "Connection: close\r\n" if close else ""
        sock.sendall(f"{head}\r\nHost: 127.0.0.1\r\n{ending}\r\n".encode() + body)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    status_line = received.split(b"\r\n", 1)[0]
    return int(status_line.split()[1]), received.split(b"\r\n\r\n", 1)[-1]


ESCAPES = [
    "/v1/../../secret",
    "/v1/chat/completions/../../../etc/passwd",
    "/v1/%2e%2e/%2e%2e/secret",
    "/v1/models/..%2f..%2fsecret",
    "/v1/models/%2E%2E",
    "/v1/./models",
    "/v1//models",
    "/v1/models/",
    "/v1/models/a%5c..%5c..%5csecret",
    "/v1/models/%00",
    "/v1/models/%252e%252e",
    "/v1/files/%252e%252e/content",
    "/v1/models/..%252f..%252fsecret",
    "/v1/models/x\\..\\..",
    "/v1/models/..;",
    "/v1/models/..;x=1",
    "/v1/models/..%20",
    "/v1/chat/completions%0a",
    "/v1/models/gpt%094o",
    "/v1/models/a%0ab",
]


@pytest.mark.parametrize("path", ESCAPES)
def test_no_path_leaves_v1_and_the_upstream_key_goes_nowhere(hostile: Hostile, path: str) -> None:
    """Dot segments, encoded or not, doubled slashes, encoded slashes: 400, nothing forwarded."""
    settings = GatewaySettings(upstream=hostile.url, db=None)
    with serving(settings, keys=(None, "up-" + "u" * 40)) as served:
        code, body = raw(served.port, f"GET {path} HTTP/1.1")
        fine, _ = raw(served.port, "GET /v1/models HTTP/1.1")
    assert code == 400
    assert json.loads(body)["error"]["code"] == "invalid_path"
    assert fine == 200
    assert [(method, where) for method, where, _ in hostile.seen] == [("GET", "/v1/models")]


def test_a_path_is_forwarded_as_the_very_bytes_the_client_sent(hostile: Hostile) -> None:
    """An id with the characters ids hold reaches the upstream unchanged, nothing decoded."""
    settings = GatewaySettings(upstream=hostile.url, db=None)
    with serving(settings) as served:
        code, _ = raw(served.port, "GET /v1/models/ft:gpt-4o:org~x@1+2 HTTP/1.1")
    assert code == 200
    assert [where for _, where, _ in hostile.seen] == ["/v1/models/ft:gpt-4o:org~x@1+2"]


def test_each_path_takes_the_methods_the_api_defines(hostile: Hostile) -> None:
    """A path the API lacks is 404, a method its path does not take 405; both the API's shape."""
    settings = GatewaySettings(upstream=hostile.url, db=None)
    with serving(settings) as served:
        answers = {
            (method, path): httpx.request(method, f"{served.root}{path}", timeout=5)
            for method, path in [
                ("DELETE", "/v1/embeddings"),
                ("PUT", "/v1/models"),
                ("GET", "/v1/secret"),
                ("POST", "/v1/models/m/extra"),
                ("GET", "/v1/models/gpt-4o-mini"),
                ("DELETE", "/v1/files/file-1"),
                ("GET", "/v1/models/meta-llama/Llama-3.1-8B"),
                ("GET", "/v1/models/a/b/c"),
            ]
        }
    assert {key: answer.status_code for key, answer in answers.items()} == {
        ("DELETE", "/v1/embeddings"): 405,
        ("PUT", "/v1/models"): 405,
        ("GET", "/v1/secret"): 404,
        ("POST", "/v1/models/m/extra"): 405,
        ("GET", "/v1/models/gpt-4o-mini"): 200,
        ("DELETE", "/v1/files/file-1"): 200,
        ("GET", "/v1/models/meta-llama/Llama-3.1-8B"): 200,
        ("GET", "/v1/models/a/b/c"): 404,
    }
    for answer in answers.values():
        assert set(answer.json()) == {"error"} or answer.status_code == 200
    assert [(m, p) for m, p, _ in hostile.seen] == [
        ("GET", "/v1/models/gpt-4o-mini"),
        ("DELETE", "/v1/files/file-1"),
        ("GET", "/v1/models/meta-llama/Llama-3.1-8B"),
    ]


SPEAKING = {
    "x-agent-lab-answered": "local",
    "X-Agent-Lab-Rule": "covered",
    "Set-Cookie": "session=stolen; Path=/",
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Credentials": "true",
    "x-request-id": "req-1",
}


@pytest.mark.parametrize("pass_cors", [False, True], ids=["default", "pass-cors"])
def test_the_upstream_cannot_speak_for_the_gateway(
    hostile: Hostile, sdk: SDK, pass_cors: bool
) -> None:
    """Its x-agent-lab-*, cookies and (unless asked) CORS headers never reach the client."""
    hostile.headers = SPEAKING
    settings = GatewaySettings(upstream=hostile.url, db=None, pass_cors=pass_cors)
    with serving(settings) as served:
        client = sdk(served.url)
        answer = client.chat.completions.with_raw_response.create(model="m", messages=user("hi"))
        listed = httpx.get(f"{served.url}/models", timeout=5)
    for headers in (answer.headers, listed.headers):
        assert "x-agent-lab-answered" not in headers
        assert "x-agent-lab-rule" not in headers
        assert "set-cookie" not in headers
        assert ("access-control-allow-origin" in headers) is pass_cors
        assert headers["x-request-id"] == "req-1"
    assert answer.parse().choices[0].message.content == "from upstream"


def test_an_encoded_upstream_body_is_decoded_or_relayed_with_its_encoding(
    hostile: Hostile, sdk: SDK, tmp_path: Path
) -> None:
    """A gzip body is decoded (relayed and stored as JSON); an encoding not decoded keeps its
    header, so the client can still read what it got."""
    completion = {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "zipped"},
                "finish_reason": "stop",
            }
        ],
    }
    hostile.body = gzip.compress(json.dumps(completion).encode())
    hostile.headers = {"Content-Encoding": "gzip"}
    settings = GatewaySettings(upstream=hostile.url, db=str(tmp_path / "g.sqlite"))
    with serving(settings) as served:
        client = sdk(served.url)
        answer = client.chat.completions.create(model="m", messages=user("hi"))
        hostile.headers = {"Content-Encoding": "x-custom"}
        hostile.body = b"opaque"
        other = httpx.get(f"{served.url}/models", timeout=5)
        served.flush()
    assert answer.choices[0].message.content == "zipped"
    assert other.headers["content-encoding"] == "x-custom"


def chat(served: Served, body: object, **headers: str) -> httpx.Response:
    return httpx.post(
        f"{served.url}/chat/completions",
        content=body if isinstance(body, bytes) else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/json", **headers},
        timeout=10,
    )


def covered(**changes: Any) -> dict[str, Any]:
    return {"model": "m", "messages": user(COVERED), "tools": TOOLS, **changes}


REFUSED = [
    ("not-json", b"{not json", None),
    ("not-an-object", b"[1, 2]", None),
    ("no-messages", json.dumps({"model": "m"}).encode(), "messages"),
    ("empty-messages", json.dumps({"model": "m", "messages": []}).encode(), "messages"),
    ("model-a-number", covered(model=5), "model"),
    ("temperature-a-word", covered(temperature="hot"), "temperature"),
    ("n-a-boolean", covered(n=True), "n"),
    ("stream-a-word", covered(stream="yes"), "stream"),
    ("parallel-tool-calls-a-word", covered(parallel_tool_calls="no"), "parallel_tool_calls"),
    ("tools-an-object", covered(tools={"get_weather": WEATHER}), "tools"),
    ("a-tool-a-number", covered(tools=[5]), "tools[0]"),
    (
        "parameters-a-number",
        covered(tools=[{"type": "function", "function": {"name": "f", "parameters": 5}}]),
        "tools[0].function.parameters",
    ),
    ("a-message-a-string", covered(messages=["hi"]), "messages[0]"),
    ("stop-of-numbers", covered(stop=[1, 2]), "stop"),
]


@pytest.mark.parametrize("mode", [Mode.SHADOW, Mode.ENFORCE])
@pytest.mark.parametrize(
    ("body", "param"), [(b, p) for _, b, p in REFUSED], ids=[i for i, _, _ in REFUSED]
)
def test_a_body_the_api_would_refuse_is_400_in_its_words_never_forwarded(
    upstream: OpenAIServer, mode: Mode, body: Any, param: str | None
) -> None:
    """Not 'the upstream answered HTTP 500': the client is told what it sent wrong, by name."""
    upstream.default = status(500, "<html>upstream choked</html>")
    settings = GatewaySettings(upstream=upstream.url, db=None, mode=mode, enforce=("get_weather",))
    with serving(settings) as served:
        answer = chat(served, body)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["param"] == param
    assert "upstream" not in error["message"]
    assert upstream.requests == []


def answered_by_tool_result(result: str) -> list[Any]:
    return [
        *user(COVERED),
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": result},
    ]


UNANSWERED_CALL = [
    *answered_by_tool_result("sunny")[:-1],
    {"role": "user", "content": COVERED},
]

FORWARDED = [
    ("an-unanswered-tool-call", covered(messages=UNANSWERED_CALL)),
    (
        "a-result-answering-no-call",
        covered(messages=[{"role": "tool", "tool_call_id": "x", "content": "1"}, *user(COVERED)]),
    ),
    ("n-one-as-a-decimal", covered(n=1.0)),
    ("n-two", covered(n=2)),
    ("max-tokens-one", covered(max_tokens=1)),
    ("max-completion-tokens-ten", covered(max_completion_tokens=10)),
    ("a-stop-in-the-answer", covered(stop=["Paris"])),
    ("a-stop-string-in-the-answer", covered(stop="city")),
    ("logprobs", covered(logprobs=True)),
    ("top-logprobs", covered(logprobs=True, top_logprobs=2)),
    ("audio", covered(modalities=["text", "audio"], audio={"voice": "alloy", "format": "wav"})),
    ("logit-bias", covered(logit_bias={"1234": -100})),
    (
        "a-duplicate-key",
        b'{"model": "m", "model": "n", "messages": [{"role": "user", "content": "'
        + COVERED.encode()
        + b'"}], "tools": '
        + json.dumps(TOOLS).encode()
        + b"}",
    ),
]


@pytest.mark.parametrize("body", [b for _, b in FORWARDED], ids=[i for i, _ in FORWARDED])
def test_enforce_forwards_what_the_api_would_refuse_or_answer_otherwise(
    upstream: OpenAIServer, body: Any
) -> None:
    """A covered request for a trusted tool, but with a setting a local answer cannot honour."""
    upstream.default = content("the model's own")
    settings = GatewaySettings(
        upstream=upstream.url, db=None, mode=Mode.ENFORCE, enforce=("get_weather",)
    )
    with serving(settings) as served:
        answer = chat(served, body)
        baseline = chat(served, covered(max_tokens=64, stop=["zzz"], n=1))
    assert answer.status_code == 200
    assert "x-agent-lab-answered" not in answer.headers
    assert answer.json()["choices"][0]["message"]["content"] == "the model's own"
    assert len(upstream.requests) == 1
    assert baseline.headers["x-agent-lab-answered"] == "local"


def many_tools(count: int) -> list[Any]:
    return [
        {
            "type": "function",
            "function": {
                "name": f"tool_{index}",
                "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
            },
        }
        for index in range(count)
    ]


@pytest.mark.parametrize(
    "body",
    [
        covered(tools=[*TOOLS, *many_tools(127)]),
        covered(messages=[*[{"role": "user", "content": "hi"}] * 1000, *user(COVERED)]),
        covered(
            tools=[
                {
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "parameters": {
                            "type": "object",
                            "properties": {"city": {"type": "string", "enum": ["Paris"] * 25_000}},
                        },
                    },
                }
            ]
        ),
        covered(messages=user(COVERED + " " + "x" * 16_384)),
    ],
    ids=["129-tools", "1002-messages", "25000-schema-values", "a-16385-character-message"],
)
def test_past_the_bounds_a_request_is_forwarded_undecided_and_counted(
    upstream: OpenAIServer, body: Any
) -> None:
    upstream.default = content("the model's own")
    settings = GatewaySettings(
        upstream=upstream.url, db=None, mode=Mode.ENFORCE, enforce=("get_weather",)
    )
    with serving(settings) as served:
        answer = chat(served, body)
        metrics = httpx.get(f"{served.root}/metrics", timeout=5).text
    assert answer.status_code == 200
    assert "x-agent-lab-answered" not in answer.headers
    assert 'agent_lab_gateway_undecided_total{reason="over_bounds"} 1.0' in metrics


def test_a_body_that_stops_short_is_408_within_the_body_timeout(upstream: OpenAIServer) -> None:
    """50 of 1,000 announced bytes, then silence: answered and closed, not held."""
    settings = GatewaySettings(upstream=upstream.url, db=None, body_timeout=1.0)
    with serving(settings) as served:
        started = time.monotonic()
        code, body = raw(
            served.port,
            "POST /v1/chat/completions HTTP/1.1\r\nContent-Type: application/json\r\n"
            "Content-Length: 1000",
            b'{"model": "m", "messages": [' + b" " * 22,
            close=False,
        )
        took = time.monotonic() - started
    assert code == 408
    assert json.loads(body)["error"]["code"] == "request_timeout"
    assert took < 5
    assert upstream.requests == []


def test_a_client_that_leaves_mid_body_is_one_quiet_line(
    upstream: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    """No traceback, no error record: a 499 line at INFO, and the gateway serves on."""
    caplog.set_level(logging.INFO)
    upstream.default = content("fine")
    settings = GatewaySettings(upstream=upstream.url, db=None)
    with serving(settings) as served:
        with socket.create_connection(("127.0.0.1", served.port), timeout=5) as sock:
            sock.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"
                b'{"model": '
            )
            time.sleep(0.3)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not any(
            " 499 " in record.getMessage() for record in caplog.records
        ):
            time.sleep(0.05)
        fine = chat(served, {"model": "m", "messages": user("hi")})
    assert fine.status_code == 200
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert any(
        record.name == "agent_lab.gateway.requests"
        and " 499 refused client_left " in record.getMessage()
        for record in caplog.records
    )


def test_metrics_need_the_gateways_key_when_it_has_one(upstream: OpenAIServer) -> None:
    """They name every tool and count every refusal: not for anyone who can reach the port."""
    settings = GatewaySettings(upstream=upstream.url, db=None)
    with serving(settings, keys=("gw-" + "k" * 40, None)) as served:
        without = httpx.get(f"{served.root}/metrics", timeout=5)
        wrong = httpx.get(
            f"{served.root}/metrics", headers={"Authorization": "Bearer no"}, timeout=5
        )
        right = httpx.get(
            f"{served.root}/metrics", headers={"Authorization": "Bearer gw-" + "k" * 40}, timeout=5
        )
        health = httpx.get(f"{served.root}/healthz", timeout=5)
    assert (without.status_code, wrong.status_code, right.status_code) == (401, 401, 200)
    assert "agent_lab_gateway_requests_total" in right.text
    assert health.status_code == 200


def test_a_gateway_whose_upstream_leads_back_to_it_says_so(sdk: SDK) -> None:
    """A loop is 508 loop_detected at once, not a pile of requests ending in 429."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    settings = GatewaySettings(upstream=f"http://127.0.0.1:{port}/v1", db=None)
    with serving(settings, port=port) as served:
        client = sdk(served.url)
        with pytest.raises(openai.APIStatusError) as caught:
            client.chat.completions.create(model="m", messages=user("hi"))
        metrics = httpx.get(f"{served.root}/metrics", timeout=5).text
    assert caught.value.status_code == 508
    assert "loop" in str(caught.value)
    assert 'agent_lab_gateway_refused_total{reason="loop"} 1.0' in metrics
    assert 'reason="busy"' not in metrics


def test_a_bare_404_from_an_upstream_url_without_v1_says_what_to_check(hostile: Hostile) -> None:
    hostile.status = 404
    hostile.body = b"404 page not found"
    settings = GatewaySettings(upstream=f"http://127.0.0.1:{hostile.port}", db=None)
    with serving(settings) as served:
        answer = chat(served, {"model": "m", "messages": user("hi")})
    assert answer.status_code == 404
    assert "/v1" in answer.json()["error"]["message"]


def test_each_request_is_one_line_at_info(
    upstream: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The decision, how it was answered and the time: local, forwarded, refused."""
    caplog.set_level(logging.INFO, logger="agent_lab.gateway.requests")
    upstream.default = tool_calls(("get_weather", '{"city": "Oslo"}'))
    settings = GatewaySettings(
        upstream=upstream.url, db=None, mode=Mode.ENFORCE, enforce=("get_weather",)
    )
    with serving(settings) as served:
        chat(served, covered())
        chat(served, covered(messages=user("tell me a joke")))
        chat(served, b"{")
    lines = [r.getMessage() for r in caplog.records if r.name == "agent_lab.gateway.requests"]
    assert len(lines) == 3
    assert lines[0].startswith("POST /v1/chat/completions 200 local covered ")
    assert lines[1].startswith("POST /v1/chat/completions 200 forwarded ")
    assert lines[2].startswith("POST /v1/chat/completions 400 refused invalid_request ")
    assert all(line.endswith(" ms") for line in lines)


def test_a_refused_paths_line_stays_one_line(
    hostile: Hostile, caplog: pytest.LogCaptureFixture
) -> None:
    """An encoded line break is refused, and its log line shows it escaped, not broken."""
    caplog.set_level(logging.INFO, logger="agent_lab.gateway.requests")
    settings = GatewaySettings(upstream=hostile.url, db=None)
    with serving(settings) as served:
        code, _ = raw(served.port, "GET /v1/models/a%0ab\\x HTTP/1.1")
    lines = [r.getMessage() for r in caplog.records if r.name == "agent_lab.gateway.requests"]
    assert code == 400
    assert len(lines) == 1
    assert "\n" not in lines[0]
    assert lines[0].startswith("GET /v1/models/a%0ab\\\\x 400 refused bad_path ")


def test_a_connection_that_never_finishes_its_headers_is_closed(upstream: OpenAIServer) -> None:
    """Silent, or half a request line: closed at the deadline, not held for ever."""
    settings = GatewaySettings(upstream=upstream.url, db=None, body_timeout=1.0)
    with serving(settings) as served:
        silent = socket.create_connection(("127.0.0.1", served.port), timeout=10)
        half = socket.create_connection(("127.0.0.1", served.port), timeout=10)
        half.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\n")
        started = time.monotonic()
        with silent, half:
            assert silent.recv(1) == b""
            assert half.recv(1) == b""
        took = time.monotonic() - started
    assert took < 5


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("api-key", "azure-" + "a" * 30),
        ("x-api-key", "anthropic-" + "b" * 30),
        ("authorization", "Basic " + base64.b64encode(b"user:" + b"c" * 30).decode()),
    ],
    ids=["api-key", "x-api-key", "basic"],
)
def test_every_credential_a_request_carries_is_redacted_from_the_store(
    upstream: OpenAIServer, tmp_path: Path, header: str, value: str
) -> None:
    """Not only a Bearer key: whatever header carries it, the upstream's echo is not stored."""
    upstream.default = Behavior(kind="echo", echo=lambda _: content(f"you sent {value}"))
    store = tmp_path / "g.sqlite"
    settings = GatewaySettings(upstream=upstream.url, db=str(store))
    with serving(settings) as served:
        answer = httpx.post(
            f"{served.url}/chat/completions",
            json={"model": "m", "messages": user("hi")},
            headers={header: value},
            timeout=10,
        )
        served.flush()
    assert answer.status_code == 200
    stored = store.read_bytes().decode("latin-1")
    secret = value.rsplit(" ", maxsplit=1)[-1]
    assert secret[:20] not in stored
    assert "c" * 20 not in stored


def test_two_authorization_headers_are_refused(upstream: OpenAIServer) -> None:
    """The key checked, forwarded and redacted must be one: two are a 400, nothing forwarded."""
    settings = GatewaySettings(upstream=upstream.url, db=None)
    with serving(settings) as served:
        code, body = raw(
            served.port,
            "POST /v1/chat/completions HTTP/1.1\r\nAuthorization: Bearer first-key-aaaaaaaaaaaa"
            "\r\nAuthorization: Bearer second-key-bbbbbbbbbbbb\r\nContent-Length: 2",
            b"{}",
        )
    assert code == 400
    assert "Authorization" in json.loads(body)["error"]["message"]
    assert upstream.requests == []


def test_the_upstreams_key_never_reaches_a_client_even_echoed(upstream: OpenAIServer) -> None:
    """A client holding the gateway's key is never shown the upstream's, in an error or not."""
    upstream_key = "up-" + "u" * 40
    upstream.script = [Behavior(kind="echo", echo=refusal_quoting)]
    settings = GatewaySettings(upstream=upstream.url, db=None)
    with serving(settings, keys=("gw-" + "k" * 40, upstream_key)) as served:
        answer = httpx.post(
            f"{served.url}/chat/completions",
            json={"model": "m", "messages": user("hi")},
            headers={"Authorization": "Bearer gw-" + "k" * 40},
            timeout=10,
        )
    assert answer.status_code == 401
    assert "u" * 12 not in answer.text
    assert upstream.requests[0].headers["Authorization"] == f"Bearer {upstream_key}"


def refusal_quoting(key: str) -> Behavior:
    error = {"message": f"Incorrect API key provided: {key}", "type": "invalid_request_error"}
    return status(401, json.dumps({"error": error}))


BAD_SHAPES: list[tuple[str, dict[str, Any]]] = [
    ("a-65-character-tool-name", {"tools": [{"type": "function", "function": {"name": "n" * 65}}]}),
    ("a-tool-without-type", {"tools": [{"function": {"name": "get_weather"}}]}),
    (
        "a-description-a-number",
        {"tools": [{**WEATHER, "function": {**WEATHER["function"], "description": 5}}]},
    ),
    (
        "a-text-part-a-number",
        {"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]},
    ),
    ("user-content-null", {"messages": [{"role": "user", "content": None}, *user(COVERED)]}),
    ("a-name-a-number", {"messages": [{"role": "user", "name": 5, "content": COVERED}]}),
    (
        "assistant-tool-calls-empty",
        {"messages": [*user("hi"), {"role": "assistant", "tool_calls": []}, *user(COVERED)]},
    ),
    ("assistant-with-nothing", {"messages": [*user("hi"), {"role": "assistant"}, *user(COVERED)]}),
    (
        "call-arguments-an-object",
        {
            "messages": [
                *user("hi"),
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": {"city": "Paris"}},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
                *user(COVERED),
            ]
        },
    ),
    (
        "a-call-of-a-bogus-type",
        {
            "messages": [
                *user("hi"),
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "c1", "type": "bogus", "function": "x"}],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "x"},
                *user(COVERED),
            ]
        },
    ),
]


@pytest.mark.parametrize("changes", [c for _, c in BAD_SHAPES], ids=[i for i, _ in BAD_SHAPES])
def test_enforce_never_answers_a_shape_the_api_refuses(
    upstream: OpenAIServer, changes: dict[str, Any]
) -> None:
    """Each was answered locally in enforce: now 400 in the API's words, in either mode."""
    settings = GatewaySettings(
        upstream=upstream.url, db=None, mode=Mode.ENFORCE, enforce=("get_weather",)
    )
    with serving(settings) as served:
        answer = chat(served, covered(**changes))
    assert answer.status_code == 400
    assert "x-agent-lab-answered" not in answer.headers
    assert answer.json()["error"]["param"]
    assert upstream.requests == []


OUT_OF_RANGE: list[tuple[str, dict[str, Any]]] = [
    ("no-model", {"model": None}),
    ("temperature-5", {"temperature": 5}),
    ("top-p-7", {"top_p": 7}),
    ("presence-penalty-99", {"presence_penalty": 99}),
    ("seed-past-int64", {"seed": 2**70}),
    ("five-stops", {"stop": ["#1", "#2", "#3", "#4", "#5"]}),
    ("seventeen-metadata-keys", {"metadata": {f"k{i}": "v" for i in range(17)}}),
    ("metadata-of-objects", {"metadata": {"k": {"x": 1}}}),
    ("an-unknown-service-tier", {"service_tier": "platinum"}),
    ("stream-options-without-stream", {"stream_options": {"include_usage": True}}),
    ("include-usage-a-word", {"stream": True, "stream_options": {"include_usage": "yes"}}),
]


@pytest.mark.parametrize("changes", [c for _, c in OUT_OF_RANGE], ids=[i for i, _ in OUT_OF_RANGE])
def test_enforce_forwards_a_value_out_of_the_apis_range(
    upstream: OpenAIServer, changes: dict[str, Any]
) -> None:
    """The right type, a value the API would refuse: the upstream's to judge, never local."""
    upstream.default = content("the model's own")
    settings = GatewaySettings(
        upstream=upstream.url, db=None, mode=Mode.ENFORCE, enforce=("get_weather",)
    )
    body = {key: value for key, value in covered(**changes).items() if value is not None}
    with serving(settings) as served:
        answer = chat(served, body)
    assert "x-agent-lab-answered" not in answer.headers
    assert len(upstream.requests) == 1


def test_the_upstream_gets_no_hop_override_or_trailer_header_of_the_client(
    hostile: Hostile,
) -> None:
    """Headers the client's Connection names, a method override, the gateway's own words, and
    a chunked body's trailers never reach the upstream."""
    settings = GatewaySettings(upstream=hostile.url, db=None)
    with serving(settings) as served:
        code, _ = raw(
            served.port,
            "POST /v1/embeddings HTTP/1.1\r\nConnection: close, X-Secret-Hop\r\n"
            "X-Secret-Hop: 1\r\nX-HTTP-Method-Override: DELETE\r\n"
            "x-agent-lab-answered: local\r\nTransfer-Encoding: chunked",
            b"2\r\n{}\r\n0\r\nAuthorization: Bearer trailer-key-aaaaaaaaaa\r\n"
            b"x-agent-lab-via: forged\r\n\r\n",
            close=False,
        )
    assert code == 200
    (_, _, headers) = hostile.seen[0]
    sent = {name.lower(): value for name, value in headers.items()}
    assert "x-secret-hop" not in sent
    assert "x-http-method-override" not in sent
    assert "x-agent-lab-answered" not in sent
    assert "authorization" not in sent
    assert sent["x-agent-lab-via"] == settings.instance


def test_the_client_gets_no_upstream_header_that_sets_state_or_is_a_hops(
    hostile: Hostile,
) -> None:
    hostile.headers = {
        "Connection": "x-keepme",
        "X-Keepme": "1",
        "Strict-Transport-Security": "max-age=31536000",
        "Clear-Site-Data": '"*"',
        "Alt-Svc": 'h3=":443"',
        "Refresh": "0; url=http://elsewhere",
        "Location": "http://elsewhere",
        "openai-processing-ms": "12",
        "x-ratelimit-remaining-requests": "99",
    }
    settings = GatewaySettings(upstream=hostile.url, db=None)
    with serving(settings) as served:
        answer = httpx.get(f"{served.url}/models", timeout=5)
    for name in ("x-keepme", "strict-transport-security", "clear-site-data", "alt-svc"):
        assert name not in answer.headers
    assert "refresh" not in answer.headers
    assert "location" not in answer.headers
    assert answer.headers["openai-processing-ms"] == "12"
    assert answer.headers["x-ratelimit-remaining-requests"] == "99"


@pytest.mark.skipif(HAS_BROTLI, reason="Brotli is installed here: a br answer is decoded")
def test_an_answer_in_an_encoding_the_gateway_cannot_decode_is_502_naming_it(
    hostile: Hostile,
) -> None:
    hostile.headers = {"Content-Encoding": "br"}
    hostile.body = b"\x8b\x02\x80hello\x03"
    settings = GatewaySettings(upstream=hostile.url, db=None)
    with serving(settings) as served:
        answer = httpx.get(f"{served.url}/models", timeout=5)
    assert answer.status_code == 502
    assert answer.json()["error"]["code"] == "upstream_encoding"
    assert "br" in answer.json()["error"]["message"]


UPSTREAM_KEY = "up-" + "u" * 40
GATEWAY_KEY = "gw-" + "k" * 40


def test_the_upstreams_key_never_reaches_a_client_in_a_header_or_a_stream(
    hostile: Hostile,
) -> None:
    """Echoed in an x-* header, or in a streamed error event cut across pieces: redacted."""
    hostile.headers = {"x-echo-auth": f"Bearer {UPSTREAM_KEY}", "openai-debug": UPSTREAM_KEY}
    half = len(UPSTREAM_KEY) // 2
    error = {"error": {"message": f"Incorrect API key provided: {UPSTREAM_KEY}"}}
    text = f"data: {json.dumps(error)}\n\ndata: [DONE]\n\n".encode()
    cut = text.index(UPSTREAM_KEY.encode()) + half
    settings = GatewaySettings(upstream=hostile.url, db=None)
    with serving(settings, keys=(GATEWAY_KEY, UPSTREAM_KEY)) as served:
        auth = {"Authorization": f"Bearer {GATEWAY_KEY}"}
        whole = httpx.get(f"{served.url}/models", headers=auth, timeout=5)
        hostile.events = [text[:cut], text[cut:]]
        streamed = httpx.post(
            f"{served.url}/chat/completions",
            json={"model": "m", "messages": user("hi"), "stream": True},
            headers=auth,
            timeout=5,
        )
    for answer in (whole, streamed):
        assert "u" * 12 not in answer.text
        assert all("u" * 12 not in value for value in answer.headers.values())
    assert "data: [DONE]" in streamed.text
    assert hostile.seen[0][2]["Authorization"] == f"Bearer {UPSTREAM_KEY}"


def test_headers_named_by_either_of_two_connection_headers_are_dropped(hostile: Hostile) -> None:
    """A second Connection header names hops too, the client's and the upstream's."""
    hostile.headers = {
        "Connection": "keep-alive, x-hop1",
        "Connection#2": "x-hop3",
        "x-hop1": "1",
        "x-hop3": "3",
    }
    settings = GatewaySettings(upstream=hostile.url, db=None)
    with serving(settings) as served:
        code, _ = raw(
            served.port,
            "POST /v1/embeddings HTTP/1.1\r\nConnection: keep-alive\r\n"
            "Connection: x-secret-hop, x-other\r\nx-secret-hop: 1\r\nx-other: 2\r\n"
            "x_http_method_override: DELETE\r\nX-Original-URL: /admin\r\nContent-Length: 2",
            b"{}",
        )
        answer = httpx.get(f"{served.url}/models", timeout=5)
    assert code == 200
    sent = {name.lower() for name in hostile.seen[0][2]}
    assert not sent & {"x-secret-hop", "x-other", "x_http_method_override", "x-original-url"}
    assert "x-hop1" not in answer.headers
    assert "x-hop3" not in answer.headers


def test_a_pipelined_request_is_not_cut_by_the_header_deadline(hostile: Hostile) -> None:
    """Its headers came with the first request's: it runs past the deadline and is answered."""
    hostile.delays = [0.0, 2.0]
    settings = GatewaySettings(upstream=hostile.url, db=None, body_timeout=1.0)
    one = b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"
    received = b""
    with (
        serving(settings) as served,
        socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock,
    ):
        sock.sendall(one + one.replace(b"Host: x", b"Host: x\r\nConnection: close"))
        while chunk := sock.recv(65536):
            received += chunk
    assert received.count(b"HTTP/1.1 200") == 2


def test_request_headers_past_the_bound_are_431(upstream: OpenAIServer) -> None:
    settings = GatewaySettings(upstream=upstream.url, db=None)
    with serving(settings) as served:
        code, body = raw(served.port, "GET /v1/models HTTP/1.1\r\nX-Big: " + "a" * (70 << 10))
    assert code == 431
    assert json.loads(body)["error"]["message"] == "the request headers are too large"


@pytest.mark.parametrize(
    ("header", "value", "secret"),
    [
        ("x-goog-api-key", "goog-" + "g" * 30, "g" * 20),
        ("ocp-apim-subscription-key", "apim-" + "h" * 30, "h" * 20),
        (
            "authorization",
            "Basic " + base64.b64encode(b"user:" + b"p" * 31).decode().rstrip("="),
            "p" * 20,
        ),
    ],
    ids=["google", "azure-apim", "basic-unpadded"],
)
def test_more_credential_headers_are_redacted_from_the_store(
    upstream: OpenAIServer, tmp_path: Path, header: str, value: str, secret: str
) -> None:
    upstream.default = Behavior(
        kind="echo", echo=lambda _: content(f"you sent {value} and {secret}")
    )
    store = tmp_path / "g.sqlite"
    with serving(GatewaySettings(upstream=upstream.url, db=str(store))) as served:
        httpx.post(
            f"{served.url}/chat/completions",
            json={"model": "m", "messages": user("hi")},
            headers={header: value},
            timeout=10,
        )
        served.flush()
    assert secret not in store.read_bytes().decode("latin-1")


def test_server_only_headers_of_the_upstream_are_not_relayed(hostile: Hostile) -> None:
    hostile.headers = {"X-Accel-Redirect": "/internal/secret", "X-Sendfile": "/etc/passwd"}
    with serving(GatewaySettings(upstream=hostile.url, db=None)) as served:
        answer = httpx.get(f"{served.url}/models", timeout=5)
    assert "x-accel-redirect" not in answer.headers
    assert "x-sendfile" not in answer.headers


MORE_SHAPES: list[tuple[str, dict[str, Any], int]] = [
    ("an-empty-model", {"model": ""}, 200),
    (
        "a-strict-tool",
        {"tools": [{**WEATHER, "function": {**WEATHER["function"], "strict": True}}]},
        200,
    ),
    ("an-empty-stop", {"stop": [""]}, 200),
    (
        "a-bogus-part",
        {"messages": [{"role": "user", "content": [{"type": "bogus"}]}, *user(COVERED)]},
        400,
    ),
    (
        "an-image-of-the-assistant",
        {
            "messages": [
                *user("hi"),
                {
                    "role": "assistant",
                    "content": [{"type": "image_url", "image_url": {"url": "x"}}],
                },
                *user(COVERED),
            ]
        },
        400,
    ),
    (
        "a-name-with-a-space",
        {"messages": [{"role": "user", "name": "bad name!", "content": COVERED}]},
        400,
    ),
]


@pytest.mark.parametrize(
    ("changes", "code"), [(c, k) for _, c, k in MORE_SHAPES], ids=[i for i, _, _ in MORE_SHAPES]
)
def test_enforce_answers_none_of_these_locally(
    upstream: OpenAIServer, changes: dict[str, Any], code: int
) -> None:
    """Forwarded (200 from the model) or refused (400): never the gateway's own answer."""
    upstream.default = content("the model's own")
    settings = GatewaySettings(
        upstream=upstream.url, db=None, mode=Mode.ENFORCE, enforce=("get_weather",)
    )
    with serving(settings) as served:
        answer = chat(served, covered(**changes))
    assert answer.status_code == code
    assert "x-agent-lab-answered" not in answer.headers
    assert len(upstream.requests) == (1 if code == 200 else 0)
