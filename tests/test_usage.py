"""Usage: sums where unknown stays unknown, and figures checked before they are trusted."""

from __future__ import annotations

from decimal import Decimal

import pytest

from agent_lab.usage import Usage, checked_usage


def test_cached_tokens_sum_what_was_reported() -> None:
    reported = Usage(prompt_tokens=100, completion_tokens=5, cached_tokens=64)
    silent = Usage(prompt_tokens=80, completion_tokens=5)
    assert (reported + silent).cached_tokens == 64
    assert (reported + reported).cached_tokens == 128
    assert (silent + silent).cached_tokens is None
    assert (Usage.zero() + reported).cached_tokens == 64


@pytest.mark.parametrize("cached", [-1, 2**63, True, 1.5, "3"])
def test_an_implausible_cached_count_becomes_unknown(cached: object) -> None:
    usage = Usage(prompt_tokens=10, completion_tokens=2, cost=Decimal(1), cached_tokens=cached)  # type: ignore[arg-type]
    checked = checked_usage(usage)
    assert checked is not None
    assert checked.cached_tokens is None
    assert (checked.prompt_tokens, checked.completion_tokens) == (10, 2)
