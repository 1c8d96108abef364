"""How often the deterministic layer is right when it fills a value, by kind of value.

Deterministic-first is only as good as its resolvers' precision: a wrong value
they fill skips the fallback and reaches the handler. This measures it without
any model: each case's resolver runs once, and every value it fills is checked
against the expected arguments (canonically, type-sensitively), grouped by
the property's kind (enum, number, boolean, date, time, free-form) and by
where the value came from (the structured ``payload`` or the ``text``).
Beside precision, coverage: of the values the truth holds, the share the
resolver filled at all, so that precision bought by filling nothing shows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from agent_lab.kernel.models import Event, Resolution, Status
from agent_lab.log_replay.intervals import wilson
from agent_lab.log_replay.scoring import acceptable
from agent_lab.resolvers.schema import kind_of

if TYPE_CHECKING:
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.lab.workload import Workload
    from agent_lab.strict_json import JSONObject

__all__ = ["KindPrecision", "PrecisionReport", "WrongValue", "measure_precision", "wilson"]


@dataclass(frozen=True, slots=True)
class KindPrecision:
    """Values filled deterministically of one kind from one source, and how many were right."""

    kind: str
    source: str
    filled: int
    right: int
    expected: int = 0
    """Values of this kind and source the truth holds."""
    answered: int = 0
    """Of those, how many the resolver filled, rightly or not."""

    @property
    def precision(self) -> float:
        """Right over filled (1.0 when nothing was filled)."""
        return self.right / self.filled if self.filled else 1.0

    @property
    def coverage(self) -> float | None:
        """Answered over expected; ``None`` when the truth holds no such value."""
        return self.answered / self.expected if self.expected else None

    @property
    def interval(self) -> tuple[float, float]:
        """The Wilson 95% interval of the precision."""
        return wilson(self.right, self.filled)


@dataclass(frozen=True, slots=True)
class WrongValue:
    """One value the deterministic layer filled that the ground truth disagrees with."""

    case: str
    argument: str
    kind: str
    source: str
    filled: Any
    expected: Any
    text: str


@dataclass(frozen=True, slots=True)
class PrecisionReport:
    """Precision per (kind, source), overall, and examples of what went wrong."""

    cases: int
    rows: tuple[KindPrecision, ...]
    wrong: tuple[WrongValue, ...]
    resolver_errors: int

    @property
    def overall(self) -> KindPrecision:
        """All kinds and sources together."""
        return _total("all", self.rows)

    def by_kind(self) -> dict[str, KindPrecision]:
        """Each kind over both sources."""
        kinds = sorted({row.kind for row in self.rows})
        return {kind: _total(kind, [r for r in self.rows if r.kind == kind]) for kind in kinds}

    def as_json(self) -> JSONObject:
        """The figures as JSON data: ``overall``, ``by_kind``, ``by_kind_and_source``, counts."""
        return {
            "overall": _figure(self.overall),
            "by_kind": {kind: _figure(row) for kind, row in self.by_kind().items()},
            "by_kind_and_source": [
                {"kind": row.kind, "source": row.source, **_figure(row)} for row in self.rows
            ],
            "cases": self.cases,
            "resolver_errors": self.resolver_errors,
            "interval": "Wilson score, 95%",
        }


def _total(kind: str, rows: Sequence[KindPrecision]) -> KindPrecision:
    return KindPrecision(
        kind,
        "all",
        sum(r.filled for r in rows),
        sum(r.right for r in rows),
        expected=sum(r.expected for r in rows),
        answered=sum(r.answered for r in rows),
    )


def _figure(row: KindPrecision) -> JSONObject:
    low, high = row.interval
    return {
        "filled": row.filled,
        "right": row.right,
        "precision": row.precision,
        "low": low,
        "high": high,
        "expected": row.expected,
        "coverage": row.coverage,
    }


def measure_precision(
    workload: Workload, plugins: PluginSet, *, examples: int = 20
) -> PrecisionReport:
    """Run each case's resolver once and score every value it fills.

    Only cases expected to succeed count (their expected arguments are the
    truth). A resolver that raises is counted in ``resolver_errors``.
    """
    definitions = {d.name: d for d in plugins.definitions}
    registry = plugins.registry()
    filled: Counter[tuple[str, str]] = Counter()
    right: Counter[tuple[str, str]] = Counter()
    expected: Counter[tuple[str, str]] = Counter()
    answered: Counter[tuple[str, str]] = Counter()
    wrong: list[WrongValue] = []
    cases = errors = 0
    for case in workload.cases:
        definition = definitions.get(case.event or "")
        truth = case.expected.arguments
        if (
            definition is None
            or definition.resolver is None
            or case.expected.status is not Status.SUCCESS
            or truth is None
            # Several calls: one message's words hold values of each, no single truth.
            or case.expected.calls
        ):
            continue
        cases += 1
        event = Event(definition.name, text=case.text, payload=case.payload, context=case.context)
        try:
            resolution = definition.resolver(event)
        except Exception:  # noqa: BLE001 - a broken resolver is counted, not fatal
            errors += 1
            continue
        if isinstance(resolution, Mapping):
            resolution = Resolution(resolution)
        if not isinstance(resolution, Resolution):
            errors += 1
            continue
        properties = cast(
            "Mapping[str, Any]", registry.schema(definition.name).get("properties", {})
        )
        for name in truth:
            key = _kind(properties, name), "payload" if name in case.payload else "text"
            expected[key] += 1
            answered[key] += name in resolution.arguments
        for name, value in resolution.arguments.items():
            kind = _kind(properties, name)
            source = "payload" if name in case.payload else "text"
            filled[kind, source] += 1
            alternatives = case.expected.alternatives
            options = (
                cast("list[Any]", alternatives.get(name) or [])
                if alternatives is not None
                else ([truth[name]] if name in truth else [])
            )
            if options and acceptable(value, options):
                right[kind, source] += 1
            elif len(wrong) < examples:
                wrong.append(
                    WrongValue(case.id, name, kind, source, value, truth.get(name), case.text)
                )
    rows = tuple(
        KindPrecision(
            k, s, filled[k, s], right[k, s], expected=expected[k, s], answered=answered[k, s]
        )
        for k, s in sorted(filled | expected)
    )
    return PrecisionReport(cases, rows, tuple(wrong), errors)


def _kind(properties: Mapping[str, Any], name: str) -> str:
    schema = properties.get(name)
    return (
        kind_of(cast("Mapping[str, Any]", schema)) if isinstance(schema, Mapping) else "free-form"
    )
