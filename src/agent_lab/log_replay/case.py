"""A case of a workload and its truth: the request, and what a correct assistant ends with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_lab.kernel.models import Status
    from agent_lab.strict_json import JSONObject

__all__ = ["Case", "Expectation", "ExpectedCall"]


@dataclass(frozen=True, slots=True)
class ExpectedCall:
    """One of several calls a message needs (BFCL's parallel questions)."""

    event: str
    arguments: JSONObject
    alternatives: JSONObject | None = None


@dataclass(frozen=True, slots=True)
class Expectation:
    """What a correct assistant ends with."""

    status: Status
    arguments: JSONObject | None = None
    alternatives: JSONObject | None = None
    """Per argument, every acceptable value (BFCL style): ``""`` in a list means
    the argument may be left out, and an object in a list holds, per key, its
    own list of acceptable values. When set, it is what accuracy checks."""
    calls: tuple[ExpectedCall, ...] | None = None
    """For a message that needs several calls: every one, in any order (scored call by call)."""


def _empty() -> JSONObject:
    return {}


@dataclass(frozen=True, slots=True, kw_only=True)
class Case:
    """One request of a workload."""

    id: str
    event: str | None
    """The event meant, or ``None`` when the request is out of domain."""
    text: str
    payload: JSONObject = field(default_factory=_empty)
    context: JSONObject = field(default_factory=_empty)
    expected: Expectation
    tags: tuple[str, ...] = ()
    event_given: bool = False
    """The agent is told the event (a structured event whose name is known), as in SGD."""
    candidates: tuple[str, ...] | None = None
    """The only events this request may go to (BFCL's functions offered per question)."""
    matching: str = "exact"
    """How values are compared with the truth: ``exact`` or ``bfcl`` (``scoring.Matching``)."""
    messages: tuple[JSONObject, ...] = ()
    """The conversation before the call, as Chat Completions messages, ending with the user's
    (``text``); empty for a case of one message. Earlier calls and their results included."""
    line: int = 0

    @property
    def category(self) -> str:
        """The first tag (``complete``, ``missing``, ``invalid``, ``out_of_domain``...)."""
        return self.tags[0] if self.tags else "untagged"
