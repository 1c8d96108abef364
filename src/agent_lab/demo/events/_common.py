"""What several demo events share: the closed-object schema shape, date and time fields, the clock."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_lab.resolvers.english import parse_now

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from agent_lab.kernel.models import Event

__all__ = ["DATE", "TIME", "closed_object", "now_of"]

DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}
"""An ISO date, ``2026-12-01``."""
TIME = {"type": "string", "pattern": r"^([01]\d|2[0-3]):[0-5]\d$"}
"""A 24-hour clock time, ``17:30``."""


def closed_object(properties: dict[str, Any], required: Sequence[str]) -> dict[str, Any]:
    """The schema of an object with these properties, the ``required`` ones, and no others."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


def now_of(event: Event) -> datetime:
    """The clock the case injects (``context["now"]``), for dates relative to it."""
    return parse_now(event.context.get("now"))
