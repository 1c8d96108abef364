"""A rule mined from training examples and not yet admitted (``lab.learn.gate`` admits)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONValue

__all__ = ["Candidate"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """A rule not yet admitted."""

    kind: str
    tool: str
    parameter: str
    value: JSONValue
    phrase: str | None
    support: int
    examples: tuple[str, ...]
