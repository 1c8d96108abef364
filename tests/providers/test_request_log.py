"""The openai provider's request log: a pairs line per request sent, redacted, whole, never lost."""

from __future__ import annotations

import asyncio
import gzip
import json
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from agent_lab.providers import FailureReason, Message, OpenAIProvider, ProviderRequest, RequestLog
from tests.openai_server import Behavior, OpenAIServer, content, serving, status

KEY = "sk-proj-" + "".join(chr(ord("a") + (i * 7) % 26) for i in range(60))
DEV_FULL = Path("/dev/full")


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAIServer]:
    yield from serving()


def provider(server: OpenAIServer, log: RequestLog, **options: Any) -> OpenAIProvider:
    settings: dict[str, Any] = {
        "model": "gpt-4o-mini",
        "base_url": server.url,
        "api_key": KEY,
        "timeout": 2.0,
        "backoff_base": 0.01,
        "backoff_max": 0.02,
        "request_log": log,
    } | options
    return OpenAIProvider(**settings)


def ask(text: str = "set a timer", **context: Any) -> ProviderRequest:
    return ProviderRequest(
        purpose="fallback", messages=(Message("user", text),), context=context, seed=7
    )


def lines(path: Path) -> list[dict[str, Any]]:
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if path.name.endswith(".gz") else raw).decode("utf-8")
    assert text.endswith("\n") or not text
    return [json.loads(line) for line in text.splitlines()]


def fragments(secret: str) -> list[str]:
    return [secret[i : i + 12] for i in range(len(secret) - 11)]


def test_each_attempt_is_a_line_with_the_body_sent_and_the_body_received(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """A 503 then an answer: two lines, each request the server's, the answer its completion."""
    server.play(status(503), content('{"n": 1}'))
    path = tmp_path / "requests.jsonl"
    with RequestLog(path) as log:
        reply = asyncio.run(provider(server, log).complete(ask(case_id="c-17")))
    assert reply.ok
    first, second = lines(path)
    assert [first["request"], second["request"]] == [r.body for r in server.requests]
    assert "response" not in first
    assert first["error"]["type"] == FailureReason.HTTP_5XX
    assert first["error"]["status"] == 503
    assert first["error"]["message"].startswith("HTTP 503")
    assert second["response"] == server.requests[1].reply
    assert second["response"]["object"] == "chat.completion"
    assert "error" not in second
    assert [line["metadata"] for line in (first, second)] == [
        {"provider": "openai", "attempt": 1, "case_id": "c-17"},
        {"provider": "openai", "attempt": 2, "case_id": "c-17"},
    ]
    for line in (first, second):
        assert isinstance(line["latency_ms"], float)
        assert line["latency_ms"] >= 0
        sent = datetime.fromisoformat(line["timestamp"])
        offset = sent.utcoffset()
        assert offset is not None
        assert offset.total_seconds() == 0
        assert abs((datetime.now(UTC) - sent).total_seconds()) < 60
    assert (log.written, log.lost, log.error) == (2, 0, None)


def test_a_request_without_a_case_has_no_case_id(server: OpenAIServer, tmp_path: Path) -> None:
    """case_id comes from the request's context, and only when it has one."""
    server.play(content("{}"))
    path = tmp_path / "requests.jsonl"
    with RequestLog(path) as log:
        asyncio.run(provider(server, log).complete(ask()))
    [line] = lines(path)
    assert line["metadata"] == {"provider": "openai", "attempt": 1}


def test_a_failing_server_leaves_every_attempt_with_its_error(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """Three 500s, a timeout, a body that is not JSON: each attempt logged, none with a response."""
    slow = Behavior(message={"role": "assistant", "content": "{}"}, delay=1.0)
    server.play(status(500), status(500), status(500), slow, Behavior(kind="malformed"))
    path = tmp_path / "requests.jsonl"
    with RequestLog(path) as log:
        live = provider(server, log, max_attempts=3)
        assert not asyncio.run(live.complete(ask())).ok
        hasty = provider(server, log, max_attempts=1, timeout=0.3)
        assert not asyncio.run(hasty.complete(ask())).ok
        assert not asyncio.run(live.complete(ask())).ok
    logged = lines(path)
    assert len(logged) == len(server.requests) == 5
    assert all("response" not in line for line in logged)
    errors = [(line["error"]["type"], line["error"]["status"]) for line in logged]
    assert errors == [
        ("http_5xx", 500),
        ("http_5xx", 500),
        ("http_5xx", 500),
        ("timeout", None),
        ("invalid_response", None),
    ]
    assert [line["metadata"]["attempt"] for line in logged] == [1, 2, 3, 1, 1]
    assert [line["request"] for line in logged] == [r.body for r in server.requests]


def test_a_key_the_server_echoes_never_reaches_the_log(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """The key in an error body, a reply's content and model, and in the user's own text."""
    server.play(
        status(429, json.dumps({"error": {"message": f"slow down {KEY}"}}), **{"retry-after": "0"}),
        Behavior(kind="echo_key"),
    )
    path = tmp_path / "requests.jsonl"
    with RequestLog(path) as log:
        reply = asyncio.run(provider(server, log).complete(ask(f"my key is {KEY}")))
    assert reply.ok
    text = path.read_text(encoding="utf-8")
    assert KEY in server.requests[1].reply["model"]  # the server did echo it
    assert [f for f in fragments(KEY) if f in text] == []
    assert "[redacted]" in text
    assert len(lines(path)) == 2


def test_concurrent_requests_write_whole_lines_only(server: OpenAIServer, tmp_path: Path) -> None:
    """Eight calls at once from each of four threads, with large bodies: every line parses."""
    big = "x" * 200_000
    server.play()
    server.default = content(json.dumps({"echo": big}))
    path = tmp_path / "requests.jsonl"
    try:
        with RequestLog(path) as log:
            # A generous timeout: on a busy machine 32 bodies of 200 KB at once may take
            # seconds, and a retry would make this a test of timeouts, not of whole lines.
            live = provider(server, log, timeout=60.0)

            async def eight(thread: int) -> None:
                await asyncio.gather(
                    *(live.complete(ask(f"{big} {thread}-{n}", case_id=n)) for n in range(8))
                )

            threads = [threading.Thread(target=asyncio.run, args=(eight(t),)) for t in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
    finally:
        server.default = None
    logged = lines(path)
    assert len(logged) == len(server.requests) == 32
    sent = sorted(r.body["messages"][0]["content"] for r in server.requests)
    assert sorted(line["request"]["messages"][0]["content"] for line in logged) == sent
    assert all(
        line["response"]["choices"][0]["message"]["content"].endswith('x"}') for line in logged
    )


def test_a_gz_name_writes_gzip_and_appends_a_member_per_opening(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """Readable as each line is written (flushed), and whole after close, across two openings."""
    path = tmp_path / "requests.jsonl.gz"
    server.play(content("{}"), content("{}"))
    with RequestLog(path) as log:
        asyncio.run(provider(server, log).complete(ask()))
        with gzip.open(path, "rt", encoding="utf-8") as early:
            assert json.loads(early.readline())["metadata"]["attempt"] == 1
    with RequestLog(path) as log:
        asyncio.run(provider(server, log).complete(ask()))
    assert [line["request"] for line in lines(path)] == [r.body for r in server.requests]


@pytest.mark.skipif(not DEV_FULL.exists(), reason="no /dev/full here")
def test_a_full_device_is_counted_and_said_never_raised(server: OpenAIServer) -> None:
    """The call still answers; the log says why it lost the line, and how many."""
    server.play(content("{}"), content("{}"))
    with RequestLog(DEV_FULL) as log:
        live = provider(server, log)
        assert asyncio.run(live.complete(ask())).ok
        assert asyncio.run(live.complete(ask())).ok
    assert (log.written, log.lost, log.error) == (0, 2, "No space left on device")


FILE_SIZE_LIMIT = """
import os, resource, signal, sys
from agent_lab.providers.request_log import RequestLog

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), int(sys.argv[2])))
log = RequestLog(sys.argv[1])
for n in range(6):
    text = os.urandom(100).hex()  # compressed too, a line stays about as long
    log.record({"n": n, "text": text}, body=b"{}", latency_ns=1, provider="p", attempt=1)
log.close()
print(log.written, log.lost, log.error)
"""


@pytest.mark.parametrize("name", ["requests.jsonl", "requests.jsonl.gz"])
def test_a_disk_that_fills_mid_line_keeps_every_whole_line_before_it(
    tmp_path: Path, name: str
) -> None:
    """A line cut short by a full disk is taken back: the file ends at the last whole line."""
    path = tmp_path / name
    limit = 450 if name.endswith(".gz") else 800  # room for two lines and part of a third
    done = subprocess.run(
        [sys.executable, "-c", FILE_SIZE_LIMIT, str(path), str(limit)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    written, lost, error = done.stdout.split(maxsplit=2)
    assert 1 <= int(written) < 6
    assert int(written) + int(lost) == 6
    assert error.strip() == "File too large"
    raw = path.read_bytes()
    if name.endswith(".gz"):
        # No trailer after a failure: what a killed run leaves, read up to its last flush.
        raw = zlib.decompressobj(wbits=31).decompress(raw)
    kept = raw.decode("utf-8").splitlines(keepends=True)
    assert len(kept) == int(written)
    assert all(line.endswith("\n") for line in kept)
    assert [json.loads(line)["request"]["n"] for line in kept] == list(range(int(written)))


def test_a_line_after_close_is_lost_and_said(tmp_path: Path) -> None:
    """A provider outliving its log cannot write silently into nothing."""
    log = RequestLog(tmp_path / "requests.jsonl")
    log.close()
    log.record({"n": 1}, body=b"{}", latency_ns=1, provider="p", attempt=1)
    assert (log.written, log.lost, log.error) == (0, 1, "the log was already closed")


def test_a_response_that_is_not_strict_json_is_an_error_line(tmp_path: Path) -> None:
    """NaN or a repeated key: JSON a permissive parser takes, logged as invalid_response."""
    path = tmp_path / "requests.jsonl"
    with RequestLog(path) as log:
        for body in (b'{"a": NaN}', b'{"a": 1, "a": 2}', b"\xff"):
            log.record({"n": 1}, body=body, latency_ns=2_500_000, provider="p", attempt=1)
    logged = lines(path)
    assert [line["error"]["type"] for line in logged] == ["invalid_response"] * 3
    assert all("response" not in line for line in logged)
    assert [line["latency_ms"] for line in logged] == [2.5] * 3
