"""Shared fixtures: the corpora folder, scripted fallbacks, a PostgreSQL server."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.postgres_server import PostgresServer, need_postgres

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from agent_lab import FallbackReply, FallbackRequest

REPO_ROOT = Path(__file__).resolve().parent.parent
TEST_DATA = REPO_ROOT / "tests" / "data"
"""Trimmed copies of the public corpora, with their licences (``make_test_data.py``)."""
FULL_CORPORA = REPO_ROOT.parent / "shared" / "corpora"


def corpora_root() -> Path:
    """Where the corpora are read from.

    ``AGENT_LAB_CORPORA`` when set; else the full corpora beside the repository
    when they are there (a workplace checkout, CI); else the trimmed copies in
    ``tests/data``, so that a plain clone runs every test. Tests list folders
    by glob and assert no count taken from one copy, so they hold on all three.
    """
    chosen = os.environ.get("AGENT_LAB_CORPORA")
    if chosen:
        return Path(chosen)
    return FULL_CORPORA if FULL_CORPORA.is_dir() else TEST_DATA


def corpus(*parts: str) -> Path:
    """Return a corpus folder, failing loudly when it is not there."""
    path = corpora_root().joinpath(*parts)
    if not path.is_dir():
        pytest.fail(f"test corpus {path} is missing", pytrace=False)
    return path


def pytest_report_header() -> str:
    """Say which corpora the run reads: the trimmed copies and the full ones differ in size."""
    return f"agent-lab corpora: {corpora_root()}"


class RecordingFallback:
    """A fallback that answers from a list of replies (or exceptions) and records requests."""

    def __init__(
        self, *replies: FallbackReply | BaseException | Callable[[FallbackRequest], FallbackReply]
    ) -> None:
        self.replies = list(replies)
        self.requests: list[FallbackRequest] = []

    def __call__(self, request: FallbackRequest) -> FallbackReply:
        self.requests.append(request)
        if not self.replies:
            raise AssertionError("the fallback was called more often than scripted")
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        if callable(reply):
            return reply(request)
        return reply

    @property
    def calls(self) -> int:
        return len(self.requests)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Close the /dev/null files llama_cpp opens at import and never closes (ResourceWarning)."""
    import sys

    utils = sys.modules.get("llama_cpp._utils")
    for name in ("outnull_file", "errnull_file"):
        handle = getattr(utils, name, None)
        if handle is not None:
            handle.close()


OPTIONAL_MODULES = frozenset(
    {
        "agents",  # openai-agents
        "httptools",  # gateway
        "langchain",
        "langchain_core",
        "llama_cpp",  # local
        "opentelemetry",  # otel
        "pandas",  # ray
        "prometheus_client",  # gateway
        "psycopg",  # postgres
        "pyarrow",  # ray
        "pydantic_ai",
        "ray",
        "starlette",  # gateway
        "uvicorn",  # gateway
        "uvloop",  # gateway
    }
)
"""Top-level modules of the optional extras (pyproject): a clone synced with fewer extras
lacks them, and a test that needs one is skipped there, never failed."""


def an_extra_is_missing(err: ModuleNotFoundError) -> bool:
    """Whether ``err`` is an optional extra's absence, not a module of the project's own."""
    return (err.name or "").split(".")[0] in OPTIONAL_MODULES


def skip_without_extra(err: ModuleNotFoundError, what: str) -> None:
    """Skip the calling test when ``err`` is an optional extra's absence; else re-raise it."""
    if not an_extra_is_missing(err):
        raise err
    pytest.skip(f"{what} needs {err.name}, from an optional extra not installed here")


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server on loopback for the whole session (skips where none can run)."""
    binaries, _ = need_postgres()
    server = PostgresServer(binaries)
    server.start()
    yield server
    server.close()


@pytest.fixture
def postgres_to_stop() -> Iterator[PostgresServer]:
    """A PostgreSQL server of one test's own, which it may stop and start."""
    binaries, _ = need_postgres()
    server = PostgresServer(binaries)
    server.start()
    yield server
    server.close()
