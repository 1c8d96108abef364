"""How often the deterministic layer is right when it fills a value, by kind of value.

Deterministic-first is only as good as its resolvers' precision: a wrong value
they fill skips the fallback and reaches the handler. This measures it without
any model: each case's resolver runs once, and every value it fills is checked
against the expected arguments (canonically, type-sensitively), grouped by
the property's kind (enum, number, boolean, date, time, free-form) and by
where the value came from (the structured ``payload`` or the ``text``; for a
conversation, where in it the reader found the value).
Beside precision, coverage: of the values the truth holds, the share the
resolver filled at all, so that precision bought by filling nothing shows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from agent_lab.kernel.models import Event, Resolution, Status
from agent_lab.lab.run.dialogues import PlainReader
from agent_lab.log_replay.intervals import wilson
from agent_lab.log_replay.scoring import acceptable
from agent_lab.resolvers.schema import kind_of

if TYPE_CHECKING:
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.kernel.registry import EventRegistry
    from agent_lab.lab.workload import Workload
    from agent_lab.log_replay.case import Case
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
    truth). A resolver that raises is counted in ``resolver_errors``. A case that
    is a conversation (``Case.messages``) is read whole, as every caller reads one
    (``Answerer.decide``): the values of the complete call plain code makes, each
    grouped by where it was found (``ValueSource``: the last message, an earlier
    one, an accepted summary, an earlier call, a result's name); the truth's values,
    and how many of them were filled at all, under ``conversation``. A call to
    another tool than the truth's fills only wrong values.
    """
    definitions = {d.name: d for d in plugins.definitions}
    registry = plugins.registry()
    schemas = {name: _properties(registry, name) for name in definitions}
    reader: PlainReader | None = None
    tally = _Tally(examples)
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
        properties = schemas[definition.name]
        if case.messages:
            reader = reader or PlainReader(plugins)
            decided = reader.read(case)
            same = decided is not None and decided.event == case.event
            read = decided.arguments or {} if decided is not None and same else {}
            for name in truth:
                tally.expect((_kind(properties, name), _CONVERSATION), answered=name in read)
            if decided is not None:
                tally.fill(
                    case,
                    arguments=decided.arguments or {},
                    sources={name: source.value for name, source in decided.sources.items()},
                    properties=schemas.get(decided.event or "", {}),
                    truth=truth if same else {},
                    alternatives=case.expected.alternatives if same else {},
                )
            continue
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
        source_of = {name: "payload" if name in case.payload else "text" for name in properties}
        for name in truth:
            tally.expect(
                (_kind(properties, name), source_of.get(name, "text")),
                answered=name in resolution.arguments,
            )
        tally.fill(
            case,
            arguments=resolution.arguments,
            sources=source_of,
            properties=properties,
            truth=truth,
            alternatives=case.expected.alternatives,
        )
    return tally.report(cases, errors)


_CONVERSATION = "conversation"
"""The source a conversation case's truth is counted under: it says no more where a value is."""


class _Tally:
    """Values filled, right, expected and answered, per (kind, source); the wrong ones."""

    def __init__(self, examples: int) -> None:
        self.examples = examples
        self.filled: Counter[tuple[str, str]] = Counter()
        self.right: Counter[tuple[str, str]] = Counter()
        self.expected: Counter[tuple[str, str]] = Counter()
        self.answered: Counter[tuple[str, str]] = Counter()
        self.wrong: list[WrongValue] = []

    def expect(self, key: tuple[str, str], *, answered: bool) -> None:
        self.expected[key] += 1
        self.answered[key] += answered

    def fill(
        self,
        case: Case,
        *,
        arguments: Mapping[str, Any],
        sources: Mapping[str, str],
        properties: Mapping[str, Any],
        truth: Mapping[str, Any],
        alternatives: Mapping[str, Any] | None,
    ) -> None:
        for name, value in arguments.items():
            kind, source = _kind(properties, name), sources.get(name, "text")
            self.filled[kind, source] += 1
            options = (
                cast("list[Any]", alternatives.get(name) or [])
                if alternatives
                else ([truth[name]] if name in truth else [])
            )
            if options and acceptable(value, options):
                self.right[kind, source] += 1
            elif len(self.wrong) < self.examples:
                self.wrong.append(
                    WrongValue(case.id, name, kind, source, value, truth.get(name), case.text)
                )

    def report(self, cases: int, errors: int) -> PrecisionReport:
        rows = tuple(
            KindPrecision(
                k,
                s,
                self.filled[k, s],
                self.right[k, s],
                expected=self.expected[k, s],
                answered=self.answered[k, s],
            )
            for k, s in sorted(self.filled | self.expected)
        )
        return PrecisionReport(cases, rows, tuple(self.wrong), errors)


def _properties(registry: EventRegistry, name: str) -> Mapping[str, Any]:
    properties = registry.schema(name).get("properties", {})
    return cast("Mapping[str, Any]", properties) if isinstance(properties, Mapping) else {}


def _kind(properties: Mapping[str, Any], name: str) -> str:
    schema = properties.get(name)
    return (
        kind_of(cast("Mapping[str, Any]", schema)) if isinstance(schema, Mapping) else "free-form"
    )
