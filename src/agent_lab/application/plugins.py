"""Plugin sets: event definitions plus the deterministic routes that pick an event from words."""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from agent_lab.application.events.models import EventDefinition
from agent_lab.application.events.registry import EventRegistry

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["PluginLoadError", "PluginSet", "Route", "RouteMatch", "load_plugins"]


def _from_folder(folder: Path) -> PluginSet:
    from agent_lab.application.schema_resolver import SchemaResolver  # noqa: PLC0415

    path = folder / "events.json"
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        reference = data.get("reference_date")
        now = datetime.fromisoformat(reference) if isinstance(reference, str) else None
        definitions = tuple(
            EventDefinition(
                str(event["name"]),
                description=str(event.get("description", "")),
                parameters=event["parameters"],
                resolver=SchemaResolver(event["parameters"], reference=now),
            )
            for event in data["events"]
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise PluginLoadError(
            f"{folder}: not an imported plugin folder ({type(err).__name__}: {err})"
        ) from err
    return PluginSet(name=str(folder), definitions=definitions)


class PluginLoadError(ImportError):
    """A ``module:attribute`` plugin reference that cannot be loaded."""


@dataclass(frozen=True, slots=True)
class Route:
    """How plain code recognises an event in a user's words.

    A pattern that matches scores 2, each keyword found scores 1; the best
    score wins, and a tie is no decision (the agent may then ask an LLM).
    """

    event: str
    patterns: tuple[str, ...] = ()
    """Regular expressions, searched case-insensitively."""
    keywords: tuple[str, ...] = ()
    """Whole words, matched case-insensitively."""
    _compiled: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Compile the patterns once."""
        compiled = tuple(re.compile(p, re.IGNORECASE) for p in self.patterns) + tuple(
            re.compile(rf"\b{re.escape(k)}\b", re.IGNORECASE) for k in self.keywords
        )
        object.__setattr__(self, "_compiled", compiled)

    def score(self, text: str) -> int:
        """How strongly ``text`` points at this route's event (0: not at all)."""
        count = len(self.patterns)
        return sum(
            (2 if index < count else 1)
            for index, pattern in enumerate(self._compiled)
            if pattern.search(text)
        )


@dataclass(frozen=True, slots=True)
class RouteMatch:
    """The router's decision."""

    event: str | None
    """The chosen event, or ``None`` when nothing matched or the best routes tied."""
    candidates: tuple[str, ...] = ()
    """Every event that tied for the best score (more than one: ambiguous)."""


@dataclass(frozen=True, slots=True)
class PluginSet:
    """Event definitions and their routes, as a workload is run against them (L2)."""

    name: str
    definitions: tuple[EventDefinition, ...]
    routes: tuple[Route, ...] = ()

    def registry(self, **options: Any) -> EventRegistry:
        """A new registry holding every definition (options as for ``EventRegistry``)."""
        registry = EventRegistry(**options)
        for definition in self.definitions:
            registry.register(definition)
        return registry

    def route(self, text: str) -> RouteMatch:
        """Pick the event that the words point at most strongly, with no LLM."""
        scores: dict[str, int] = {}
        for route in self.routes:
            score = route.score(text)
            if score:
                scores[route.event] = max(scores.get(route.event, 0), score)
        if not scores:
            return RouteMatch(None)
        best = max(scores.values())
        winners = tuple(sorted(event for event, score in scores.items() if score == best))
        return RouteMatch(winners[0] if len(winners) == 1 else None, winners)


def load_plugins(reference: str) -> PluginSet:
    """Load a plugin set from ``package.module:attribute``, or from an imported folder.

    A folder written by ``agent-lab import`` holds ``events.json``: its events
    get the schema-driven resolver (``SchemaResolver``) and no routes.

    The attribute may be a ``PluginSet``, or a sequence of ``EventDefinition``
    (then without routes).

    Raises:
        PluginLoadError: The reference is malformed, the module does not
            import, or the attribute is not a plugin set.
    """
    folder = Path(reference)
    if folder.is_dir():
        return _from_folder(folder)
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise PluginLoadError(
            f"{reference!r}: expected MODULE:ATTRIBUTE, e.g. agent_lab.demo:plugins"
        )
    try:
        module = importlib.import_module(module_name)
    except Exception as err:
        raise PluginLoadError(
            f"{reference!r}: cannot import {module_name}: {type(err).__name__}: {err}"
        ) from err
    try:
        value: object = getattr(module, attribute)
    except AttributeError as err:
        raise PluginLoadError(
            f"{reference!r}: {module_name} has no attribute {attribute!r}"
        ) from err
    kind = type(value).__name__
    if isinstance(value, PluginSet):
        return value
    if isinstance(value, list | tuple):
        items: Sequence[object] = cast("Sequence[object]", value)
        if all(isinstance(item, EventDefinition) for item in items):
            definitions = cast("Sequence[EventDefinition]", items)
            return PluginSet(name=reference, definitions=tuple(definitions))
    raise PluginLoadError(f"{reference!r} is a {kind}, not a PluginSet")
