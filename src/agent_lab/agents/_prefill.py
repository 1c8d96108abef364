"""Values from earlier turns of a conversation, completing what this turn's resolver reads."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, cast

from agent_lab.kernel.models import Resolution

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.kernel.models import Event, Resolver

__all__ = ["PREFILL", "with_prefill"]

PREFILL = "agent_lab.prefill"
"""The key of the event's context that holds them: they reach the resolver as any
caller-supplied fact does."""


def with_prefill(resolver: Resolver | None) -> Resolver:
    """Wrap a resolver so values from earlier turns fill what this turn does not say."""

    def merge(found: object, prefill: Mapping[str, Any]) -> object:
        if isinstance(found, Resolution):
            return Resolution(
                {**prefill, **found.arguments}, complete=found.complete, missing=found.missing
            )
        if isinstance(found, dict):
            return {**prefill, **cast("dict[str, Any]", found)}
        return found  # not a mapping: left for the kernel to report (K11)

    def resolve(event: Event) -> Any:
        raw_prefill = event.context.get(PREFILL)
        prefill: Mapping[str, Any] = (
            cast("dict[str, Any]", raw_prefill) if isinstance(raw_prefill, dict) else {}
        )
        found: Any = resolver(event) if resolver is not None else {}
        if inspect.isawaitable(found):

            async def later() -> object:
                return merge(await found, prefill)

            return later()
        return merge(found, prefill)

    return resolve
