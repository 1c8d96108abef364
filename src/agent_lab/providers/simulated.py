"""A simulated model: sighted (it answers only from what it was sent), or the oracle (a ceiling).

It exists to study the kernel in isolation. Both read the lab's ground truth
through ``oracle(request)``, and differ in what they do with it:

* **sighted** (``--provider simulated``): the truth decides only what the
  model could see (``_sight``). A value found in the request it answers;
  a value it could work out (a number said in words, a relative date) it
  answers, erring ``derived_factor`` times as often; a required value it
  cannot see it asks for (a reply with no tool call, or without the field),
  or at rate ``invent`` makes one up. On top, the profile's error rates.
* **oracle** (``--provider oracle``): it reads the answer key, so it is
  right about everything the profile does not spoil: a ceiling, not a model.

Everything it reports is made up by a documented model, so every figure
downstream is labelled: ``Usage.estimated`` is set, and ``Usage.model``
names the simulation and its profile.
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
from typing import TYPE_CHECKING, Any, cast

from agent_lab.agents.port import ProviderReply, ProviderRequest, ToolCall, tools_json
from agent_lab.errors import SettingError
from agent_lab.providers._sight import Sight, sight, visible_text
from agent_lab.providers._slips import invented as _invented
from agent_lab.providers._slips import other_type as _other_type
from agent_lab.providers._slips import other_value as _other_value
from agent_lab.providers.pricing import PriceTable
from agent_lab.providers.profiles import PROFILES, ErrorProfile
from agent_lab.strict_json import pointer_tokens
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["Expected", "LatencyModel", "SimulatedProvider", "estimate_tokens"]

_Z_P95 = NormalDist().inv_cdf(0.95)
"""The standard normal's 95th percentile (one-sided: a latency's p95)."""


def _empty_object() -> JSONObject:
    return {}


@dataclass(frozen=True, slots=True)
class Expected:
    """The ground truth for one request: the event meant, its arguments, what else is right."""

    event: str | None
    """``None`` when the request is out of domain: the right answer is no tool call."""
    arguments: JSONObject = field(default_factory=_empty_object)
    """The values the request states (for a missing-information case: those it does state)."""
    alternatives: JSONObject | None = None
    """Per argument, every acceptable value (BFCL style), when the workload lists them."""
    calls: tuple[Expected, ...] = ()
    """When the request needs several calls: each one (``event`` is then the first's)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LatencyModel:
    """Log-normal latency fixed by its median and 95th percentile, in milliseconds."""

    median_ms: float = 600.0
    p95_ms: float = 1500.0

    def __post_init__(self) -> None:
        """The 95th percentile cannot be below the median."""
        if self.median_ms <= 0 or self.p95_ms < self.median_ms:
            raise SettingError("latency", "needs 0 < median_ms <= p95_ms")

    def sample_ms(self, rng: random.Random) -> float:
        """One latency draw, at most ten times the 95th percentile.

        A log-normal tail is unbounded, and a wide spread draws sleeps of days;
        the bound is far enough out (one draw in hundreds of millions, with the
        default spread) to leave every figure as it was.
        """
        sigma = math.log(self.p95_ms / self.median_ms) / _Z_P95
        return min(rng.lognormvariate(math.log(self.median_ms), sigma), 10 * self.p95_ms)


def estimate_tokens(text: str) -> int:
    """Tokens estimated as one per four characters, rounded up (a common rule for English)."""
    return max(1, math.ceil(len(text) / 4)) if text else 0


@dataclass(slots=True)
class _Answer:
    """A reply in the making: the tool it calls (if any), its arguments, or its question."""

    arguments: JSONObject
    tool: str | None = None
    question: str | None = None


class SimulatedProvider:
    """Answers through a seeded model of sight, errors, latency and tokens.

    Args:
        oracle: Returns the ground truth for a request (the lab knows it from
            the workload, through ``request.context``), or ``None`` when
            unknown: the model then answers ``{}`` / no tool call.
        sighted: Answer only from what the request shows (``True``, the
            default); ``False`` is the oracle, which reads the answer key.
        profile: The error rates (``providers.profiles``); ``ideal`` (none) by default.
        latency: The latency distribution.
        seed: Makes every draw reproducible: draws depend on the seed, the
            request's fingerprint and how often it was seen, not on timing.
        priced_as: Model whose price (from ``prices``) the estimated tokens cost.
        wait: Sleep for the drawn latency, so that wall time is simulated too.
    """

    def __init__(
        self,
        oracle: Callable[[ProviderRequest], Expected | None],
        *,
        sighted: bool = True,
        profile: ErrorProfile | None = None,
        latency: LatencyModel | None = None,
        seed: int = 0,
        priced_as: str | None = "gpt-4o-mini",
        prices: PriceTable | None = None,
        wait: bool = True,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        self.oracle = oracle
        self.sighted = sighted
        self.profile = profile if profile is not None else PROFILES["ideal"]
        self.latency = latency if latency is not None else LatencyModel()
        self.seed = seed
        self.priced_as = priced_as
        self.name = "simulated" if sighted else "oracle"
        priced = f", priced as {priced_as}" if priced_as else ""
        self.model: str | None = f"{self.name}({self.profile.name}{priced})"
        self.prices = prices if prices is not None else PriceTable()
        self.wait = wait
        self._sleep = sleep if sleep is not None else asyncio.sleep
        self._seen: Counter[str] = Counter()

    async def aclose(self) -> None:
        """Nothing to release."""

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        """Answer the request as the simulated model would."""
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
            reply = self._tool_choice(request, expected, rng)
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

    # The two uses ---------------------------------------------------------------------

    def _fallback(
        self, request: ProviderRequest, expected: Expected | None, rng: random.Random
    ) -> ProviderReply:
        context = request.context
        asked = _strings(context.get("missing"))
        required = set(_strings(context.get("required", asked)))
        schema = request.response_schema or {}
        seen = visible_text(
            str(context.get("text") or ""), context.get("payload"), context.get("resolved")
        )
        answer: JSONObject = {}
        for pointer in asked:
            value = _at(expected.arguments, pointer) if expected is not None else _ABSENT
            found = self._read(
                value,
                seen,
                _schema_at(schema, pointer),
                _alternatives_at(expected, pointer),
                required=pointer in required,
                rng=rng,
            )
            # A value it cannot see and does not invent is left out: the kernel then finds
            # it still missing, and the case ends asking for it.
            if found is not _ABSENT and found is not _ASK:
                _put(answer, pointer, cast("JSONValue", found))
        raw, parsed = self._reply_errors(self._value_errors(answer, seen, schema, rng), rng)
        return ProviderReply(text=raw, parsed=parsed)

    def _tool_choice(
        self, request: ProviderRequest, expected: Expected | None, rng: random.Random
    ) -> ProviderReply:
        tools = self._tools(request.tools)
        profile = self.profile
        if expected is None or expected.event is None or expected.event not in tools:
            if tools and rng.random() < profile.spurious_call:
                tool = rng.choice(sorted(tools))
                return ProviderReply(
                    tool_calls=(ToolCall(name=tool, arguments_raw="{}", arguments={}),)
                )
            return ProviderReply(text="None of the functions fits this request.")
        if rng.random() < profile.no_call:
            return ProviderReply(text="I am not sure which function to use for this.")
        seen = visible_text(
            str(request.context.get("text") or ""), request.context.get("payload"), None
        )
        made: list[ToolCall] = []
        for wanted in expected.calls or (expected,):
            schema = tools.get(wanted.event or "", {})
            answer = self._arguments(wanted, schema, seen, rng)
            if answer.question is not None:
                return ProviderReply(text=answer.question)
            tool = wanted.event or expected.event
            others = sorted(name for name in tools if name != tool)
            if others and rng.random() < profile.wrong_tool:
                tool = rng.choice(others)
            arguments = self._value_errors(answer.arguments, seen, schema, rng)
            raw, parsed = self._reply_errors(arguments, rng)
            made.append(ToolCall(name=tool, arguments_raw=raw, arguments=parsed))
        return ProviderReply(tool_calls=tuple(made))

    def _tools(self, offered: tuple[JSONObject, ...]) -> dict[str, dict[str, Any]]:
        """Each offered tool's parameters by its name (3 us for the demo's 8 tools: not kept)."""
        return {_tool_name(tool): _tool_schema(tool) for tool in offered}

    # What the model reads -------------------------------------------------------------

    def _arguments(
        self, expected: Expected, schema: Mapping[str, Any], seen: str, rng: random.Random
    ) -> _Answer:
        properties = _properties(schema)
        declared: Any = schema.get("required")
        required = (
            [name for name in cast("list[Any]", declared) if isinstance(name, str)]
            if isinstance(declared, list)
            else []
        )
        answer: JSONObject = {}
        for name in dict.fromkeys([*expected.arguments, *required]):
            value = expected.arguments.get(name, _ABSENT)
            found = self._read(
                value,
                seen,
                properties.get(name, {}),
                _alternatives_at(expected, "/" + name),
                required=name in required,
                rng=rng,
            )
            if found is _ASK:
                return _Answer({}, question=f"Could you tell me the {name.replace('_', ' ')}?")
            if found is not _ABSENT:
                answer[name] = cast("JSONValue", found)
        return _Answer(answer, tool=expected.event)

    def _read(
        self,
        value: object,
        seen: str,
        schema: Mapping[str, Any],
        alternatives: list[Any] | None,
        *,
        required: bool,
        rng: random.Random,
    ) -> object:
        """The value the model gives: the truth, an invention, ``_ASK``, or ``_ABSENT``."""
        if value is not _ABSENT and (
            not self.sighted
            or sight(cast("JSONValue", value), seen, schema, alternatives) is not Sight.UNSEEN
        ):
            return value
        if not required:
            return _ABSENT  # an optional value nobody stated: left out
        # A parameter only the user can supply is asked for, never made up: the tool it
        # was offered says so ("x-user-only", and its description), and this model listens.
        if schema.get("x-user-only") is not True and rng.random() < self.profile.invent:
            return _invented(schema, rng)
        return _ASK

    # What goes wrong ------------------------------------------------------------------

    def _value_errors(
        self, answer: JSONObject, seen: str, schema: Mapping[str, Any], rng: random.Random
    ) -> JSONObject:
        profile = self.profile
        properties = _properties(schema)
        out: JSONObject = {}
        for key, value in answer.items():
            derived = self.sighted and sight(value, seen, properties.get(key, {})) is Sight.DERIVED
            factor = profile.derived_factor if derived else 1.0
            draw = rng.random()
            if draw < profile.wrong_value * factor:
                out[key] = _other_value(value)
            elif draw < (profile.wrong_value + profile.wrong_type) * factor:
                out[key] = _other_type(value)
            elif draw < (profile.wrong_value + profile.wrong_type + profile.drop_field) * factor:
                continue
            else:
                out[key] = value
        return out

    def _reply_errors(self, answer: JSONObject, rng: random.Random) -> tuple[str, JSONValue | None]:
        profile = self.profile
        key = rng.choice(sorted(answer)) if answer else "value"
        if rng.random() < profile.invalid_json:
            return json.dumps(answer)[:-1], None
        if rng.random() < profile.nan:
            broken = {**answer, key: math.nan}
            return json.dumps(broken), broken
        if rng.random() < profile.mismatch:
            # The raw text says true, the adapter's parse says 1.
            return json.dumps({**answer, key: True}), {**answer, key: 1}
        return json.dumps(answer), answer


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


_ABSENT = _Marker("absent")
_ASK = _Marker("ask")


def _strings(value: object) -> list[str]:
    return (
        [item for item in cast("list[Any]", value) if isinstance(item, str)]
        if isinstance(value, list)
        else []
    )


def _properties(schema: Mapping[str, Any]) -> dict[str, Any]:
    declared: Any = schema.get("properties")
    return cast("dict[str, Any]", declared) if isinstance(declared, dict) else {}


def _function(tool: Mapping[str, Any]) -> dict[str, Any]:
    function: Any = tool.get("function")
    return cast("dict[str, Any]", function) if isinstance(function, dict) else {}


def _tool_name(tool: Mapping[str, Any]) -> str:
    return str(_function(tool).get("name", ""))


def _tool_schema(tool: Mapping[str, Any]) -> dict[str, Any]:
    parameters: Any = _function(tool).get("parameters")
    return cast("dict[str, Any]", parameters) if isinstance(parameters, dict) else {}


def _at(source: JSONObject, pointer: str) -> object:
    node: object = source
    for token in pointer_tokens(pointer):
        if not isinstance(node, dict) or token not in node:
            return _ABSENT
        node = cast("dict[str, Any]", node)[token]
    return node


def _put(target: JSONObject, pointer: str, value: JSONValue) -> None:
    tokens = pointer_tokens(pointer)
    place = target
    for token in tokens[:-1]:
        child = place.setdefault(token, {})
        if not isinstance(child, dict):
            return
        place = child
    if tokens:
        place[tokens[-1]] = value


def _schema_at(schema: Mapping[str, Any], pointer: str) -> Mapping[str, Any]:
    node: Mapping[str, Any] = schema
    for token in pointer_tokens(pointer):
        node = _properties(node).get(token, {})
    return node


def _alternatives_at(expected: Expected | None, pointer: str) -> list[Any] | None:
    if expected is None or expected.alternatives is None:
        return None
    tokens = pointer_tokens(pointer)
    options: Any = expected.alternatives.get(tokens[0]) if len(tokens) == 1 else None
    return cast("list[Any]", options) if isinstance(options, list) else None
