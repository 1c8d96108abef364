"""``x-agent-lab-overhead-ms``: the gateway's own time on every answer, the metric's number.

Real requests through the official SDK and plain HTTP to a gateway on
loopback, forwarding to the scripted upstream: a local answer, a forwarded
one whole and streamed, and refusals at the door and at the body. Each
answer says its overhead; ``/metrics`` then holds, per ``answered`` label,
as many observations as answers and their sum.
"""

from __future__ import annotations

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import http.client
import re
import urllib.error
import urllib.request
from collections import defaultdict
from typing import TYPE_CHECKING

from agent_lab.gateway import GatewaySettings, Mode
from agent_lab.gateway.overhead import OVERHEAD_HEADER
from tests.gateway.conftest import COVERED, KEY, SDK, TOOLS, user
from tests.gateway.running import serving
from tests.openai_server import OpenAIServer, content, tool_calls

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from tests.gateway.running import Served

_SAMPLE = re.compile(
    r'^agent_lab_gateway_added_latency_seconds_(sum|count)\{answered="(\w+)"\} (\S+)$', re.M
)


def _said(headers: Mapping[str, str]) -> float:
    value = headers.get(OVERHEAD_HEADER)
    assert value is not None, f"no {OVERHEAD_HEADER} on the answer"
    assert re.fullmatch(r"\d+\.\d{3}", value), value
    return float(value)


def _post(gateway: Served, path: str, body: bytes, key: str | None) -> tuple[int, float]:
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(f"{gateway.root}{path}", data=body, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, _said(dict(response.headers.items()))
    except urllib.error.HTTPError as refused:
        return refused.code, _said(dict(refused.headers.items()))


def _metric(gateway: Served) -> dict[str, dict[str, float]]:
    request = urllib.request.Request(
        f"{gateway.root}/metrics", headers={"Authorization": f"Bearer {KEY}"}
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        text = response.read().decode()
    found: dict[str, dict[str, float]] = defaultdict(dict)
    for kind, answered, value in _SAMPLE.findall(text):
        found[answered][kind] = float(value)
    return found


def test_every_answer_says_the_overhead_the_metric_counts(
    sdk: SDK, upstream: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_TEST_KEY", KEY)
    settings = GatewaySettings(
        upstream=upstream.url,
        mode=Mode.ENFORCE,
        enforce=("get_weather",),
        db=str(tmp_path / "gateway.sqlite"),
        api_key_env="GATEWAY_TEST_KEY",
    )
    said: dict[str, list[float]] = defaultdict(list)
    with serving(settings, keys=(KEY, None)) as gateway:
        client = sdk(gateway.url, KEY)
        local = client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=user(COVERED), tools=TOOLS
        )
        said["local"].append(_said(local.headers))
        upstream.default = content("Hello there.")
        forwarded = client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=user("hello"), tools=TOOLS
        )
        said["upstream"].append(_said(forwarded.headers))
        upstream.default = tool_calls(("get_weather", '{"city": "Oslo"}'))
        with client.chat.completions.with_streaming_response.create(
            model="gpt-4o-mini", messages=user("what is it like up north"), stream=True
        ) as streamed:
            said["upstream"].append(_said(streamed.headers))
            assert list(streamed.iter_lines())
        models = client.models.with_raw_response.list()
        said["upstream"].append(_said(models.headers))
        for key, body in ((None, b"{}"), (KEY, b"{not json")):
            status, milliseconds = _post(gateway, "/v1/chat/completions", body, key)
            assert status in {400, 401}
            said["refused"].append(milliseconds)
        counted = _metric(gateway)
    assert len(upstream.requests) == 3  # the local answer went nowhere
    assert set(counted) >= set(said)
    for answered, values in said.items():
        assert counted[answered]["count"] == len(values), answered
        # The header rounds to the microsecond, the metric keeps the nanosecond.
        assert counted[answered]["sum"] * 1000 == pytest.approx(
            sum(values), abs=0.001 * len(values)
        )


def test_a_refusal_at_the_door_and_a_bad_path_say_it_too(
    upstream: OpenAIServer, tmp_path: Path
) -> None:
    settings = GatewaySettings(upstream=upstream.url, db=str(tmp_path / "gateway.sqlite"))
    with serving(settings) as gateway:
        # Two keys: turned away by admission, before any route is read.
        host, port = gateway.root.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=5)
        connection.putrequest("POST", "/v1/chat/completions")
        for key in ("one", "two"):
            connection.putheader("Authorization", f"Bearer {key}")
        connection.putheader("Content-Length", "2")
        connection.endheaders(b"{}")
        two_keys = connection.getresponse()
        refusal = two_keys.read().decode()
        connection.close()
        bad_path, _ = _post(gateway, "/v1/models/..%2f..%2fadmin", b"{}", None)
        assert bad_path == 400
        counted = _metric(gateway)
    assert two_keys.status == 400
    assert "more than one Authorization header" in refusal
    assert _said(dict(two_keys.getheaders())) >= 0
    assert counted["refused"]["count"] == 2
    assert not upstream.requests
