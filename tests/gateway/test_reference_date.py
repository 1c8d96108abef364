"""The gateway reads relative dates against a reference date it is told, or the arrival time.

A request's ``x-agent-lab-reference-date`` header (the user's own date, say),
else ``--reference-date``, else the request's arrival time. The header is the
gateway's: never forwarded, and a bad one is a 400. A forwarded request's
stored replay reads its dates against the same reference date.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import openai

from agent_lab.gateway import Gateway, GatewaySettings, Mode
from agent_lab.gateway.request_headers import REFERENCE_HEADER
from tests.gateway.running import serving
from tests.openai_server import Behavior, OpenAIServer
from tests.openai_server import serving as upstream_serving

VISIT: dict[str, Any] = {
    "type": "object",
    "properties": {"day": {"type": "string", "format": "date"}},
    "required": ["day"],
}
TOOLS: Any = [{"type": "function", "function": {"name": "plan_visit", "parameters": VISIT}}]
SAID: Any = [{"role": "user", "content": "plan a visit the day after tomorrow"}]


@pytest.fixture
def upstream() -> Iterator[OpenAIServer]:
    for server in upstream_serving():
        server.default = Behavior(message={"content": "the model's words"})
        yield server


def settings(upstream: OpenAIServer, tmp_path: Path, **options: Any) -> GatewaySettings:
    return GatewaySettings(
        upstream=upstream.url,
        mode=options.pop("mode", Mode.ENFORCE),
        enforce=("plan_visit",),
        db=str(tmp_path / "gateway.sqlite"),
        **options,
    )


def day_called(url: str, headers: dict[str, str] | None = None) -> str | None:
    client = openai.OpenAI(base_url=url, api_key="sk-dates", max_retries=0)
    try:
        answer = client.chat.completions.create(
            model="gpt-4o-mini", messages=SAID, tools=TOOLS, extra_headers=headers
        )
    finally:
        client.close()
    calls = answer.choices[0].message.tool_calls or []
    if not calls or calls[0].type != "function":
        return None
    return json.loads(calls[0].function.arguments)["day"]


def test_the_header_then_the_setting_then_the_arrival_time(
    upstream: OpenAIServer, tmp_path: Path
) -> None:
    told = settings(upstream, tmp_path, reference_date="2031-07-09T10:00")
    with serving(told, gateway=Gateway(told)) as served:
        assert day_called(served.url, {REFERENCE_HEADER: "2040-02-28"}) == "2040-03-01"
        assert day_called(served.url) == "2031-07-11"
    arrival = settings(upstream, tmp_path / "arrival")
    (tmp_path / "arrival").mkdir()
    with serving(arrival, gateway=Gateway(arrival)) as served:
        before = datetime.now(UTC).date()
        called = day_called(served.url)
        after = datetime.now(UTC).date()
    assert called in {(day + timedelta(days=2)).isoformat() for day in (before, after)}
    assert upstream.requests == []


def test_a_bad_header_is_a_400_and_never_reaches_the_upstream(
    upstream: OpenAIServer, tmp_path: Path
) -> None:
    told = settings(upstream, tmp_path)
    with (
        serving(told, gateway=Gateway(told)) as served,
        pytest.raises(openai.BadRequestError) as refused,
    ):
        day_called(served.url, {REFERENCE_HEADER: "the day I was born"})
    assert refused.value.code == "invalid_reference_date"
    assert upstream.requests == []


def test_a_forwarded_requests_replay_reads_its_dates_against_the_header(
    upstream: OpenAIServer, tmp_path: Path
) -> None:
    """Shadow mode: forwarded without the header, stored with it, replayed against it."""
    told = settings(upstream, tmp_path, mode=Mode.SHADOW)
    with serving(told, gateway=Gateway(told)) as served:
        assert day_called(served.url, {REFERENCE_HEADER: "2040-02-28"}) is None
        served.flush()
    assert [REFERENCE_HEADER in r.headers for r in upstream.requests] == [False]
    with sqlite3.connect(tmp_path / "gateway.sqlite") as db:
        ((decision,),) = db.execute("SELECT decision FROM exchanges").fetchall()
    replayed = json.loads(decision)
    assert (replayed["reference"], replayed["produced"]) == ("2040-02-28", {"day": "2040-03-01"})
    assert date.fromisoformat(replayed["produced"]["day"]).year == 2040
