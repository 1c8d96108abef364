"""A simulated model: answers from the lab's ground truth, with seeded errors, latency and tokens.

It exists to study the kernel in isolation. Everything it reports is made up
by a documented model, so every figure downstream is labelled "simulated":
``Usage.estimated`` is set, and ``Usage.model`` starts with ``simulated``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import random
from collections import Counter
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import TYPE_CHECKING

from agent_lab.providers.base import ProviderReply, ProviderRequest, ToolCall, tools_json
from agent_lab.providers.pricing import PriceTable
from agent_lab.strict_json import pointer_tokens
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["ErrorRates", "Expected", "LatencyModel", "SimulatedProvider", "estimate_tokens"]

_Z_P95 = NormalDist().inv_cdf(0.95)
"""The standard normal's 95th percentile (one-sided: a latency's p95)."""


def _empty_object() -> JSONObject:
    return {}


@dataclass(frozen=True, slots=True)
class Expected:
    """The ground truth for one request: the event meant, and its complete arguments."""

    event: str | None
    """``None`` when the request is out of domain: the right answer is no tool call."""
    arguments: JSONObject = field(default_factory=_empty_object)


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorRates:
    """Probability of each kind of wrong reply; at most one error per reply."""

    drop_field: float = 0.0
    """A field the model should have given is left out."""
    wrong_type: float = 0.0
    """A value of the wrong JSON type (``"600"`` for ``600``)."""
    wrong_value: float = 0.0
    """A value of the right type but wrong (``601`` for ``600``)."""
    invalid_json: float = 0.0
    """Truncated JSON text."""
    nan: float = 0.0
    """A ``NaN`` in the JSON text."""
    mismatch: float = 0.0
    """The adapter's parse disagrees with the raw text (``1`` parsed from ``true``)."""

    def __post_init__(self) -> None:
        """Rates are probabilities that sum to at most 1."""
        rates = [
            self.drop_field,
            self.wrong_type,
            self.wrong_value,
            self.invalid_json,
            self.nan,
            self.mismatch,
        ]
        if any(rate < 0 for rate in rates) or sum(rates) > 1:
            raise ValueError("error rates must be >= 0 and sum to at most 1")


@dataclass(frozen=True, slots=True, kw_only=True)
class LatencyModel:
    """Log-normal latency fixed by its median and 95th percentile, in milliseconds."""

    median_ms: float = 600.0
    p95_ms: float = 1500.0

    def __post_init__(self) -> None:
        """The 95th percentile cannot be below the median."""
        if self.median_ms <= 0 or self.p95_ms < self.median_ms:
            raise ValueError("latency needs 0 < median_ms <= p95_ms")

    def sample_ms(self, rng: random.Random) -> float:
        """One latency draw."""
        sigma = math.log(self.p95_ms / self.median_ms) / _Z_P95
        return rng.lognormvariate(math.log(self.median_ms), sigma)


def estimate_tokens(text: str) -> int:
    """Tokens estimated as one per four characters, rounded up (a common rule for English)."""
    return max(1, math.ceil(len(text) / 4)) if text else 0


class SimulatedProvider:
    """Answers from ground truth through a seeded error, latency and token model.

    Args:
        oracle: Returns the ground truth for a request (the lab knows it from
            the workload, through ``request.context``), or ``None`` when
            unknown: the simulated model then answers ``{}`` / no tool call.
        errors: Rates of each kind of wrong reply.
        latency: The latency distribution.
        seed: Makes every draw reproducible: draws depend on the seed, the
            request's fingerprint and how often it was seen, not on timing.
        priced_as: Model whose price (from ``prices``) the estimated tokens cost.
        wait: Sleep for the drawn latency, so that wall time is simulated too.
    """

    name = "simulated"

    def __init__(
        self,
        oracle: Callable[[ProviderRequest], Expected | None],
        *,
        errors: ErrorRates | None = None,
        latency: LatencyModel | None = None,
        seed: int = 0,
        priced_as: str | None = "gpt-4o-mini",
        prices: PriceTable | None = None,
        wait: bool = True,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        self.oracle = oracle
        self.errors = errors if errors is not None else ErrorRates()
        self.latency = latency if latency is not None else LatencyModel()
        self.seed = seed
        self.priced_as = priced_as
        self.model: str | None = f"simulated({priced_as})" if priced_as else "simulated"
        self.prices = prices if prices is not None else PriceTable()
        self.wait = wait
        self._sleep = sleep if sleep is not None else asyncio.sleep
        self._seen: Counter[str] = Counter()

    async def aclose(self) -> None:
        """Nothing to release."""

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        """Answer from the ground truth, with at most one drawn error."""
        # The draws only need a stable key for "this request": what was asked of
        # whom. Cheaper than the canonical fingerprint, and just as deterministic.
        fingerprint = hashlib.sha256(
            "\x1f".join(
                [request.purpose, request.model or "", request.schema_name]
                + [m.content for m in request.messages]
            ).encode("utf-8")
        ).hexdigest()
        self._seen[fingerprint] += 1
        rng = random.Random(f"{self.seed}:{fingerprint}:{self._seen[fingerprint]}")  # noqa: S311
        expected = self.oracle(request)
        if request.purpose == "tool_choice":
            reply = self._tool_choice(expected, rng)
        else:
            reply = self._fallback(request, expected, rng)
        latency_ms = self.latency.sample_ms(rng)
        if self.wait:
            await self._sleep(latency_ms / 1000)
        prompt = (
            "".join(m.content for m in request.messages)
            + tools_json(request.tools)
            + json.dumps(request.response_schema)
        )
        answer = (
            reply.text
            if reply.text is not None
            else "".join(c.name + c.arguments_raw for c in reply.tool_calls)
        )
        prompt_tokens, completion_tokens = estimate_tokens(prompt), estimate_tokens(answer)
        usage = Usage(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost=self.prices.cost(self.priced_as, prompt_tokens, completion_tokens),
            model=self.model,
            estimated=True,
        )
        return ProviderReply(
            text=reply.text,
            parsed=reply.parsed,
            tool_calls=reply.tool_calls,
            usage=usage,
            latency_ns=int(latency_ms * 1_000_000),
            finish_reason="stop",
        )

    def _fallback(
        self, request: ProviderRequest, expected: Expected | None, rng: random.Random
    ) -> ProviderReply:
        missing = request.context.get("missing", [])
        answer: JSONObject = {}
        if expected is not None and isinstance(missing, list):
            for pointer in missing:
                if isinstance(pointer, str):
                    _copy_pointer(expected.arguments, answer, pointer)
        raw, parsed = self._with_error(answer, rng)
        return ProviderReply(text=raw, parsed=parsed)

    def _tool_choice(self, expected: Expected | None, rng: random.Random) -> ProviderReply:
        if expected is None or expected.event is None:
            return ProviderReply(text="None of the functions fits this request.")
        raw, parsed = self._with_error(dict(expected.arguments), rng)
        return ProviderReply(
            tool_calls=(ToolCall(name=expected.event, arguments_raw=raw, arguments=parsed),)
        )

    def _with_error(self, answer: JSONObject, rng: random.Random) -> tuple[str, JSONValue | None]:
        rates = self.errors
        draw = rng.random()
        keys = sorted(answer)
        for kind, rate in (
            ("drop_field", rates.drop_field),
            ("wrong_type", rates.wrong_type),
            ("wrong_value", rates.wrong_value),
            ("invalid_json", rates.invalid_json),
            ("nan", rates.nan),
            ("mismatch", rates.mismatch),
        ):
            if draw < rate:
                return _inject(kind, answer, keys, rng)
            draw -= rate
        return json.dumps(answer), answer


def _inject(
    kind: str, answer: JSONObject, keys: list[str], rng: random.Random
) -> tuple[str, JSONValue | None]:
    wrong = dict(answer)
    key = rng.choice(keys) if keys else "value"
    if kind == "drop_field":
        wrong.pop(key, None)
    elif kind == "wrong_type":
        wrong[key] = _other_type(answer.get(key))
    elif kind == "wrong_value":
        wrong[key] = _other_value(answer.get(key))
    elif kind == "invalid_json":
        text = json.dumps(answer)
        return text[:-1], None
    elif kind == "nan":
        return json.dumps({**answer, key: math.nan}), {**answer, key: math.nan}
    else:  # mismatch: the raw text says true, the adapter's parse says 1
        return json.dumps({**answer, key: True}), {**answer, key: 1}
    return json.dumps(wrong), wrong


def _other_type(value: JSONValue) -> JSONValue:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return 0
    return "?"


def _other_value(value: JSONValue) -> JSONValue:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    return None


def _copy_pointer(source: JSONObject, target: JSONObject, pointer: str) -> None:
    tokens = pointer_tokens(pointer)
    node: JSONValue = source
    for token in tokens:
        if not isinstance(node, dict) or token not in node:
            return
        node = node[token]
    place = target
    for token in tokens[:-1]:
        child = place.setdefault(token, {})
        if not isinstance(child, dict):
            return
        place = child
    if tokens:
        place[tokens[-1]] = node
