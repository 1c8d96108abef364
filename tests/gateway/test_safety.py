"""Safe by default: the body caps (a request's, an upstream answer's), the bound on requests
in flight, the gateway's own key, and a client's key that shows nowhere (store, logs, metrics,
spans)."""

from __future__ import annotations

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import json
import logging
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, cast

import httpx
import openai

from agent_lab.gateway import GatewaySettings, Mode
from agent_lab.gateway.exchange import Exchange
from tests.gateway.conftest import COVERED, KEY, SDK, TOOLS, user
from tests.gateway.running import serving
from tests.openai_server import Behavior, OpenAIServer, content, status, tool_calls


def test_a_body_over_the_cap_is_413_before_the_upstream_sees_it(upstream: OpenAIServer) -> None:
    """Declared too long, or streamed past the cap without a length: 413, nothing forwarded."""
    settings = GatewaySettings(upstream=upstream.url, db=None, max_body_bytes=1000)
    big = b'{"messages": "' + b"x" * 2000 + b'"}'

    def chunks() -> object:
        yield big[:600]
        yield big[600:]

    with serving(settings) as served:
        declared = httpx.post(f"{served.url}/chat/completions", content=big, timeout=5)
        chunked = httpx.post(f"{served.url}/chat/completions", content=chunks(), timeout=5)  # type: ignore[arg-type]
    for response in (declared, chunked):
        assert response.status_code == 413
        assert response.json()["error"]["code"] == "request_too_large"
    assert upstream.requests == []


def test_over_the_bound_in_flight_a_request_is_429_with_retry_after(
    upstream: OpenAIServer,
) -> None:
    """One request in flight, a bound of one: the next is refused at once, then served after."""
    upstream.play(Behavior(delay=1.0, message={"role": "assistant", "content": "slow"}))
    upstream.default = content("later")
    settings = GatewaySettings(upstream=upstream.url, db=None, max_in_flight=1)
    with serving(settings) as served:
        body = {"model": "m", "messages": user("hi")}
        first = threading.Thread(
            target=httpx.post, args=(f"{served.url}/chat/completions",), kwargs={"json": body}
        )
        first.start()
        time.sleep(0.3)
        refused = httpx.post(f"{served.url}/chat/completions", json=body, timeout=5)
        first.join(5)
        after = httpx.post(f"{served.url}/chat/completions", json=body, timeout=5)
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "1"
    assert refused.json()["error"]["code"] == "rate_limit_exceeded"
    assert after.status_code == 200


def test_with_its_own_key_the_gateway_refuses_other_keys_and_never_forwards_its_own(
    sdk: SDK,
    upstream: OpenAIServer,
) -> None:
    """401 without the gateway's key; with it, the upstream gets its own key, not the gateway's."""
    upstream.default = content("ok")
    gateway_key, upstream_key = "gw-" + "k" * 40, "up-" + "u" * 40
    settings = GatewaySettings(upstream=upstream.url, db=None)
    with serving(settings, keys=(gateway_key, upstream_key)) as served:
        for wrong in (KEY, ""):
            client = sdk(served.url, wrong or "x")
            with pytest.raises(openai.AuthenticationError):
                client.chat.completions.create(model="m", messages=user("hi"))
        client = sdk(served.url, gateway_key)
        answer = client.chat.completions.create(model="m", messages=user("hi"))
    assert answer.choices[0].message.content == "ok"
    assert [r.headers["Authorization"] for r in upstream.requests] == [f"Bearer {upstream_key}"]


def pieces(secret: str) -> list[str]:
    """Every run of 12 consecutive characters of ``secret``."""
    return [secret[i : i + 12] for i in range(len(secret) - 11)]


def refusal(key: str) -> Behavior:
    """An upstream's 401 that quotes the key it was sent, as some servers do."""
    error = {"message": f"Incorrect API key provided: {key}", "type": "invalid_request_error"}
    return status(401, json.dumps({"error": error}))


def test_a_clients_key_shows_nowhere_even_when_the_upstream_echoes_it(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Not in the store, the logs or the metrics: no 12 characters of it (spans: test_spans)."""
    caplog.set_level(logging.DEBUG)
    upstream.script = [Behavior(kind="echo_key"), Behavior(kind="echo_key")]
    upstream.default = tool_calls(("get_weather", '{"city": "Paris"}'))
    store = tmp_path / "gateway.sqlite"
    settings = GatewaySettings(
        upstream=upstream.url, mode=Mode.ENFORCE, enforce=("set_timer",), db=str(store)
    )
    with serving(settings) as served:
        client = sdk(served.url, KEY)
        for text in ("hi", COVERED, COVERED, "set timer for 5 minutes"):
            client.chat.completions.create(model="m", messages=user(text), tools=TOOLS)
        upstream.script.append(Behavior(kind="echo", echo=refusal))
        with pytest.raises(openai.AuthenticationError):
            client.chat.completions.create(model="m", messages=user("x"))
        metrics = httpx.get(f"{served.root}/metrics", timeout=5).text
        served.flush()
    assert len(upstream.requests) == 4  # the timer was answered locally
    rows = sqlite3.connect(store).execute("SELECT * FROM exchanges").fetchall()
    assert len(rows) == 5
    seen = {
        "store": store.read_bytes().decode("utf-8", "replace") + repr(rows),
        "logs": caplog.text,
        "metrics": metrics,
    }
    leaks = [
        (where, piece) for where, text in seen.items() for piece in pieces(KEY) if piece in text
    ]
    assert leaks == []
    assert "[redacted]" in seen["store"]  # the echo was there, and was redacted


CAP = 4096
"""A small cap on an upstream's body, so that a test's answer is over it at once."""


def capped(upstream: OpenAIServer, tmp_path: Path) -> GatewaySettings:
    return GatewaySettings(
        upstream=upstream.url, db=str(tmp_path / "gateway.sqlite"), max_upstream_body_bytes=CAP
    )


def stored_lines(store: Path) -> list[tuple[int, dict[str, Any]]]:
    with sqlite3.connect(store) as connection:
        rows = connection.execute("SELECT status, line FROM exchanges ORDER BY rowid").fetchall()
    return [(int(status), json.loads(line)) for status, line in rows]


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_an_upstream_answer_over_the_cap_is_a_502_and_the_gateway_keeps_serving(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path, declared: bool
) -> None:
    """Said too long, or read past the cap: 502 in the API's shape, counted, stored as failed."""
    upstream.play(Behavior(kind="huge", size=1 << 30, declare_length=declared))
    upstream.default = content("fine")
    settings = capped(upstream, tmp_path)
    with serving(settings) as served:
        client = sdk(served.url, KEY)
        started = time.monotonic()
        with pytest.raises(openai.APIStatusError) as caught:
            client.chat.completions.create(model="m", messages=user(COVERED), tools=TOOLS)
        took = time.monotonic() - started
        after = client.chat.completions.create(model="m", messages=user("hello"))
        metrics = httpx.get(f"{served.root}/metrics", timeout=5).text
        served.flush()
    assert caught.value.status_code == 502
    error = cast("dict[str, object]", caught.value.body)  # the SDK unwraps {"error": ...}
    assert set(error) == {"message", "type", "param", "code"}
    assert (error["type"], error["code"]) == ("upstream_error", "upstream_too_large")
    assert str(CAP) in str(error["message"])
    assert took < 5.0  # a GiB was offered; the gateway read no more than the cap of it
    assert after.choices[0].message.content == "fine"
    assert 'agent_lab_gateway_upstream_failures_total{reason="upstream_too_large"} 1.0' in metrics
    (failed, failed_line), (ok, _) = stored_lines(tmp_path / "gateway.sqlite")
    assert (failed, failed_line["error"], "response" in failed_line) == (
        502,
        "upstream_too_large",
        False,
    )
    assert ok == 200


def test_a_streamed_answer_over_the_cap_passes_through_whole_and_its_stored_copy_is_cut(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client's stream is the upstream's; the store is handed no more than the cap of it,
    and the row says it was cut (a failed exchange, as ``agent-lab shadow`` reads it)."""
    said = "word " * 2000
    upstream.default = content(said)
    with serving(capped(upstream, tmp_path)) as served:
        store = served.gateway.store
        assert store is not None
        handed: list[Exchange] = []
        put = store.put

        def recorded(exchange: Exchange) -> None:
            handed.append(exchange)
            put(exchange)

        monkeypatch.setattr(store, "put", recorded)
        client = sdk(served.url, KEY)
        chunks = list(
            client.chat.completions.create(
                model="m", messages=user(COVERED), tools=TOOLS, stream=True
            )
        )
        served.flush()
    heard = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert heard == said
    ((exchange,),) = [handed]
    assert len(exchange.response) <= CAP  # whole pieces as they came: perhaps none
    ((status, line),) = stored_lines(tmp_path / "gateway.sqlite")
    assert (status, line["error"], "response" in line) == (200, "too_large_to_store", False)
