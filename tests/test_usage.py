"""Usage: sums where unknown stays unknown, and figures checked before they are trusted."""

from __future__ import annotations

from decimal import Decimal

import pytest

from agent_lab.providers import ProviderFailure, ProviderReply
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


def test_requests_succeed_unless_said_otherwise_and_sums_keep_them_apart() -> None:
    answered = Usage(prompt_tokens=10, completion_tokens=2, requests=3, succeeded=1)
    assert (answered.requests, answered.succeeded, answered.failed) == (3, 1, 2)
    plain = Usage(prompt_tokens=1, completion_tokens=1)
    assert (plain.succeeded, plain.failed) == (1, 0)
    total = Usage.zero() + answered + plain + Usage(requests=2).as_failed()
    assert (total.requests, total.succeeded, total.failed) == (6, 2, 4)


def test_as_failed_counts_every_request_failed() -> None:
    failed = Usage(requests=2, prompt_tokens=5, completion_tokens=0).as_failed()
    assert (failed.requests, failed.succeeded, failed.prompt_tokens) == (2, 0, 5)


@pytest.mark.parametrize("succeeded", [5, -1, "1", 1.0])
def test_an_implausible_success_count_reads_as_all(succeeded: object) -> None:
    usage = Usage(requests=2)
    object.__setattr__(usage, "succeeded", succeeded)
    checked = checked_usage(usage)
    assert checked is not None
    assert (checked.requests, checked.succeeded) == (2, 2)


def test_a_failed_provider_reply_counts_no_success() -> None:
    reply = ProviderReply(
        usage=Usage(requests=2, model="m"),
        failure=ProviderFailure(reason="http_5xx", message="busy", retryable=True),
    )
    assert (reply.usage.requests, reply.usage.succeeded) == (2, 0)
    assert ProviderReply(text="{}", usage=Usage(requests=1)).usage.succeeded == 1
