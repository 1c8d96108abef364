"""An upstream that is down, slow, trickling, broken or failing: the API's error, quickly.

The client is the ``openai`` SDK (retries off, so that each failure is seen
once); after every failure the same gateway still answers a healthy request.
"""

from __future__ import annotations

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import httpx
import openai

from agent_lab.gateway import GatewaySettings
from tests.gateway.conftest import COVERED, KEY, TOOLS, user
from tests.gateway.running import Served, serving
from tests.openai_server import Behavior, OpenAIServer, content, status

TIMEOUT = 1.0


@pytest.fixture
def gateway(upstream: OpenAIServer, tmp_path: Path) -> Iterator[Served]:
    settings = GatewaySettings(
        upstream=upstream.url, upstream_timeout=TIMEOUT, db=str(tmp_path / "gateway.sqlite")
    )
    with serving(settings) as served:
        yield served


def client(served: Served) -> openai.OpenAI:
    return openai.OpenAI(base_url=served.url, api_key=KEY, max_retries=0, timeout=30)


def ask(served: Served, *, stream: bool = False) -> object:
    with client(served) as sdk:
        made = sdk.chat.completions.create(
            model="gpt-4o-mini", messages=user(COVERED), tools=TOOLS, stream=stream
        )
        return list(made) if stream else made


def still_serves(served: Served, upstream: OpenAIServer) -> None:
    upstream.play(content("fine"))
    with client(served) as sdk:
        answer = sdk.chat.completions.create(model="m", messages=user("hello"))
    assert answer.choices[0].message.content == "fine"


@pytest.mark.parametrize(
    ("behavior", "code", "seconds"),
    [
        (Behavior(delay=5.0), 504, TIMEOUT),
        (Behavior(kind="trickle", delay=0.05), 504, TIMEOUT),
        (Behavior(kind="malformed"), 502, 0.0),
        (Behavior(kind="drop"), 502, 0.0),
        (status(503, "<html>busy</html>"), 503, 0.0),
        (status(500), 500, 0.0),
        (status(429, **{"Retry-After": "0"}), 429, 0.0),
    ],
    ids=["slow", "trickling", "garbage", "cut-off", "5xx-not-json", "5xx-api-error", "429"],
)
def test_an_upstream_failure_is_the_api_error_with_its_status_quickly(
    gateway: Served, upstream: OpenAIServer, behavior: Behavior, code: int, seconds: float
) -> None:
    """The SDK raises its own error for the status; no longer than the upstream timeout."""
    upstream.play(behavior)
    started = time.monotonic()
    with pytest.raises(openai.APIStatusError) as caught:
        ask(gateway)
    # Slack for a loaded machine (a run took 2.03 s against the 1 s timeout), yet under the
    # slow upstream's 5 s: the gateway's timeout, not the upstream, ended it.
    assert time.monotonic() - started < seconds + 2.5
    assert caught.value.status_code == code
    body = cast("dict[str, object]", caught.value.body)
    assert {"message", "type"} <= set(body)  # the SDK unwraps {"error": ...}
    still_serves(gateway, upstream)


def test_an_upstream_that_is_down_is_a_502_at_once(tmp_path: Path) -> None:
    """Nothing listens there: the connection is refused, the client hears it in well under 1 s."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = GatewaySettings(upstream=f"http://127.0.0.1:{port}/v1", db=None)
    with serving(settings) as served:
        started = time.monotonic()
        with pytest.raises(openai.APIStatusError) as caught:
            ask(served)
        assert time.monotonic() - started < 1.0
        health = httpx.get(f"{served.root}/healthz", timeout=5)
    assert caught.value.status_code == 502
    assert cast("dict[str, object]", caught.value.body)["code"] == "upstream_unreachable"
    assert health.status_code == 200


def test_a_stream_cut_mid_way_ends_in_an_error_event_the_sdk_raises(
    gateway: Served, upstream: OpenAIServer
) -> None:
    """Headers were sent: the API's ``error`` event closes the stream, and the SDK raises."""
    upstream.play(Behavior(kind="stream_cut", message={"role": "assistant", "content": "x" * 80}))
    with pytest.raises(openai.APIError):
        ask(gateway, stream=True)
    still_serves(gateway, upstream)


def test_a_slow_upstream_answer_does_not_hold_up_another_request(
    gateway: Served, upstream: OpenAIServer
) -> None:
    """One request waits on a slow upstream; another, sent after it, is answered first."""
    upstream.play(Behavior(delay=0.8, message={"role": "assistant", "content": "slow"}))
    upstream.default = content("fast")
    finished: list[str] = []

    def slow() -> None:
        ask(gateway)
        finished.append("slow")

    thread = threading.Thread(target=slow)
    thread.start()
    time.sleep(0.2)
    with client(gateway) as sdk:
        answer = sdk.chat.completions.create(model="m", messages=user("hi"))
    finished.append(str(answer.choices[0].message.content))
    thread.join(5)
    assert finished == ["fast", "slow"]
