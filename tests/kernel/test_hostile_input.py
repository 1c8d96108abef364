"""Nothing a resolver, a handler or an LLM reply contains makes dispatch raise."""

from __future__ import annotations

import asyncio
import math
from typing import TYPE_CHECKING, Any, cast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_lab import (
    Event,
    EventDefinition,
    EventKernel,
    EventRegistry,
    EventResult,
    FallbackReply,
    FallbackRequest,
    Resolution,
    Status,
    Usage,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "s": {"type": "string"}, "o": {"type": "object"}},
    "required": ["n", "s"],
}

anything = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and infinities included
    | st.text()
    | st.binary()
    | st.sampled_from([object(), math.nan, ("t",), frozenset({1}), Status.SUCCESS]),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(max_size=3) | st.integers(), children, max_size=3)
        | st.tuples(children)
    ),
    max_leaves=8,
)
raw_texts = st.text(max_size=60) | st.sampled_from(
    ['{"n": 1, "s": "x"}', '{"n": NaN}', '{"n": 1, "n": 2}', "[", '{"n": 1e999, "s": ""}', "{}"]
)


def check(result: EventResult) -> None:
    assert isinstance(result, EventResult)
    assert isinstance(result.status, Status)
    assert isinstance(result.reason, str)
    assert result.llm_calls >= 0


@given(resolved=anything, raw=raw_texts, parsed=anything, output=anything)
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_dispatch_never_raises(resolved: Any, raw: str, parsed: Any, output: Any) -> None:
    """Hostile resolver output, fallback replies and handler output give results, not exceptions."""

    def fallback(request: FallbackRequest) -> FallbackReply:
        return FallbackReply(raw, arguments=parsed, usage=Usage(prompt_tokens=1))

    def handler(arguments: Mapping[str, Any]) -> Any:
        return output

    def plain(event: Event) -> Any:
        return resolved

    partial: dict[str, Any] = {}
    if isinstance(resolved, dict):
        partial = cast("dict[str, Any]", resolved)
    registry = EventRegistry()
    registry.register(EventDefinition("plain", parameters=SCHEMA, resolver=plain, handler=handler))
    registry.register(
        EventDefinition(
            "structured",
            parameters=SCHEMA,
            resolver=lambda e: Resolution(partial, complete=False),
            handler=handler,
        )
    )
    kernel = EventKernel(registry, fallback)
    for name in ("plain", "structured"):
        check(kernel.dispatch(Event(name)))
        check(asyncio.run(kernel.adispatch(Event(name))))
