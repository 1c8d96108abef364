"""Logging: silent by default; -v says retries, waits and server messages; -vv every trial."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

import agent_lab
from agent_lab.cli import run
from tests.openai_server import OpenAIServer, content, serving, status

KEY = "sk-test-LOGGING-0123456789abcdef"
RUN = ("run", "demo", "--plugins", "agent_lab.demo:plugins", "--no-progress", "--warmup", "0",
       "--limit", "3", "--policy", "llm-always", "--provider", "openai", "--model", "m",
       "--max-failure-rate", "1")  # fmt: skip


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIServer]:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    yield from serving()


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def failing_then_answering(server: OpenAIServer) -> None:
    server.play(status(503, f'{{"error": {{"message": "overloaded, key {KEY}"}}}}'))
    server.default = content('{"name": "none"}')


def test_the_library_is_silent_until_its_user_configures_logging() -> None:
    logger = logging.getLogger("agent_lab")
    assert any(isinstance(h, logging.NullHandler) for h in logger.handlers)
    assert agent_lab.__name__ == "agent_lab"


def test_without_v_a_run_logs_nothing(server: OpenAIServer, tmp_path: Path) -> None:
    failing_then_answering(server)
    code, _, err = cli(*RUN, "--base-url", server.url, "--db", str(tmp_path / "r.sqlite"))
    assert code == 0, err
    assert "retrying" not in err
    assert "INFO" not in err


def test_v_says_the_retry_its_wait_and_the_servers_message_redacted(
    server: OpenAIServer, tmp_path: Path
) -> None:
    failing_then_answering(server)
    code, _, err = cli(*RUN, "-v", "--base-url", server.url, "--db", str(tmp_path / "r.sqlite"))
    assert code == 0, err
    retry = next(line for line in err.splitlines() if "retrying in" in line)
    assert "agent-lab: INFO agent_lab.providers.openai_compat:" in retry
    assert "attempt 1 of 3 failed (http_5xx: HTTP 503" in retry
    assert "overloaded" in retry
    assert KEY[:12] not in err
    assert "trials to run" in err
    assert "LLM call(s)" not in err  # per trial only with -vv


def test_vv_says_every_trial(server: OpenAIServer, tmp_path: Path) -> None:
    server.default = content('{"name": "none"}')
    code, _, err = cli(*RUN, "-vv", "--base-url", server.url, "--db", str(tmp_path / "r.sqlite"))
    assert code == 0, err
    trials = [line for line in err.splitlines() if "LLM call(s)" in line]
    assert len(trials) >= 3  # a stratified sample of about 3 cases
    assert all("llm-always, repeat 0:" in line for line in trials)


def test_the_handler_is_removed_when_the_command_ends(server: OpenAIServer, tmp_path: Path) -> None:
    server.default = content('{"name": "none"}')
    before = list(logging.getLogger("agent_lab").handlers)
    cli(*RUN, "-vv", "--base-url", server.url, "--db", str(tmp_path / "r.sqlite"))
    assert logging.getLogger("agent_lab").handlers == before
    assert logging.getLogger("agent_lab").level == logging.NOTSET


def test_a_library_user_sees_retries_through_caplog(
    server: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    import asyncio

    from agent_lab.providers import Message, OpenAIProvider, ProviderRequest

    failing_then_answering(server)
    provider = OpenAIProvider("m", base_url=server.url, backoff_base=0.01, backoff_max=0.02)
    request = ProviderRequest(purpose="fallback", messages=(Message("user", "x"),))
    with caplog.at_level(logging.INFO, logger="agent_lab"):
        reply = asyncio.run(provider.complete(request))
    assert reply.ok
    assert [r.name for r in caplog.records] == ["agent_lab.providers.openai_compat"]
    assert "retrying in" in caplog.records[0].getMessage()
