"""Shared fixtures: the corpora folder and scripted fallbacks."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_lab import FallbackReply, FallbackRequest

REPO_ROOT = Path(__file__).resolve().parent.parent
CORPORA = REPO_ROOT.parent / "shared" / "corpora"


def corpus(*parts: str) -> Path:
    """Return a folder of ../shared/corpora, failing loudly when it is not there."""
    path = CORPORA.joinpath(*parts)
    if not path.is_dir():
        pytest.fail(
            f"test corpus {path} is missing: the tests read ../shared/corpora beside the repo",
            pytrace=False,
        )
    return path


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
