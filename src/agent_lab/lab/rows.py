"""The results database's tables: their columns, and trials to and from rows (L10).

Columns are declared once, here: the tables are created from them, a file of
an older schema gains the columns it lacks (``ALTER TABLE ... ADD COLUMN``,
with their defaults), and a file opened read-only reads a missing column as
its default. The trial columns follow ``TrialRecord``'s fields.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from agent_lab.application.agents import Routing
from agent_lab.application.events.models import Status
from agent_lab.lab.records import TrialRecord, TrialStatus

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "APPLICATION_ID",
    "CREATE",
    "SCHEMA_VERSION",
    "TRIAL_COLUMNS",
    "decode_trial",
    "encode_trial",
    "insert_statement",
    "missing_columns",
    "now",
    "select_columns",
    "storable",
]

SCHEMA_VERSION = 4
"""2 added correct_exact, alternatives, matching, text, llm_raw, failure, calls and
expected_calls to trials; 3 added cached_tokens and path; 4 added failed_calls and ledger."""
APPLICATION_ID = 0x41474C42  # "AGLB": marks the file as an agent-lab results database


@dataclass(frozen=True, slots=True)
class _Column:
    name: str
    sql: str
    """Its type and constraints."""
    default: str = "NULL"
    """What older rows read: the ADD COLUMN default, and the read-only stand-in."""


_RUNS = """
CREATE TABLE runs (
    run_id TEXT PRIMARY KEY,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    state TEXT NOT NULL CHECK (state IN ('running', 'finished')),
    config TEXT NOT NULL,
    config_hash TEXT NOT NULL,
    environment TEXT NOT NULL,
    workload TEXT NOT NULL,
    plugins TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT,
    simulated INTEGER NOT NULL
);
"""

_TRIALS = (
    _Column("run_id", "TEXT NOT NULL REFERENCES runs (run_id)"),
    _Column("case_id", "TEXT NOT NULL"),
    _Column("policy", "TEXT NOT NULL"),
    _Column("repeat", "INTEGER NOT NULL"),
    _Column("warmup", "INTEGER NOT NULL"),
    _Column("category", "TEXT NOT NULL"),
    _Column("expected_event", "TEXT"),
    _Column("event", "TEXT"),
    _Column("status", "TEXT NOT NULL"),
    _Column("reason", "TEXT NOT NULL"),
    _Column("expected_status", "TEXT NOT NULL"),
    _Column("correct", "INTEGER NOT NULL"),
    _Column("arguments", "TEXT"),
    _Column("expected", "TEXT"),
    _Column("field_tp", "INTEGER NOT NULL"),
    _Column("field_fp", "INTEGER NOT NULL"),
    _Column("field_fn", "INTEGER NOT NULL"),
    _Column("llm_calls", "INTEGER NOT NULL"),
    _Column("prompt_tokens", "INTEGER"),
    _Column("completion_tokens", "INTEGER"),
    _Column("cost", "TEXT"),
    _Column("latency_ns", "INTEGER NOT NULL"),
    _Column("resolve_ns", "INTEGER NOT NULL"),
    _Column("validate_ns", "INTEGER NOT NULL"),
    _Column("fallback_ns", "INTEGER NOT NULL"),
    _Column("handler_ns", "INTEGER NOT NULL"),
    _Column("routed_by", "TEXT NOT NULL"),
    _Column("error", "TEXT"),
    _Column("finished_at", "TEXT NOT NULL"),
    # Schema 2
    _Column("correct_exact", "INTEGER"),
    _Column("alternatives", "TEXT"),
    _Column("matching", "TEXT NOT NULL DEFAULT 'exact'", "'exact'"),
    _Column("text", "TEXT NOT NULL DEFAULT ''", "''"),
    _Column("llm_raw", "TEXT"),
    _Column("failure", "TEXT"),
    _Column("calls", "TEXT"),
    _Column("expected_calls", "TEXT"),
    # Schema 3
    _Column("cached_tokens", "INTEGER"),
    _Column("path", "TEXT NOT NULL DEFAULT 'none'", "'none'"),
    # Schema 4
    _Column("failed_calls", "INTEGER NOT NULL DEFAULT 0", "0"),
    _Column("ledger", "TEXT"),
)

CREATE = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    + _RUNS
    + "CREATE TABLE trials (\n"
    + ",\n".join(f"    {c.name} {c.sql}" for c in _TRIALS)
    + ",\n    PRIMARY KEY (run_id, case_id, policy, repeat)\n);\n"
)
"""The whole schema, for a new file."""

_RECORD_COLUMNS = tuple(f.name for f in fields(TrialRecord))
TRIAL_COLUMNS = ("run_id", *_RECORD_COLUMNS, "finished_at")
"""The columns a trial is written to, in ``encode_trial``'s order."""
_DECLARED = {column.name: column for column in _TRIALS}
assert set(TRIAL_COLUMNS) == set(_DECLARED), "TrialRecord and the trials table must match"


def insert_statement() -> str:
    """The trial INSERT, by column name (never positional: columns added later come last)."""
    # Fixed column names; the values are bound as parameters.
    return (
        f"INSERT OR IGNORE INTO trials ({', '.join(TRIAL_COLUMNS)}) "  # noqa: S608
        f"VALUES ({', '.join('?' * len(TRIAL_COLUMNS))})"
    )


def missing_columns(present: set[str]) -> list[str]:
    """``ALTER TABLE`` statements adding the trial columns a file lacks (with defaults)."""
    return [
        f"ALTER TABLE trials ADD COLUMN {c.name} {c.sql}"
        + ("" if "DEFAULT" in c.sql or c.default == "NULL" else f" DEFAULT {c.default}")
        for c in _TRIALS
        if c.name not in present
    ]


def select_columns(present: set[str]) -> str:
    """The SELECT list of a ``TrialRecord``; a column the file lacks reads as its default."""
    return ", ".join(
        name if name in present else f"{_DECLARED[name].default} AS {name}"
        for name in _RECORD_COLUMNS
    )


def now() -> str:
    """The time a row is written, as ISO 8601 in UTC."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _json(value: object) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True)


def encode_trial(run_id: str, t: TrialRecord, stamp: str) -> tuple[Any, ...]:
    """The row of ``TRIAL_COLUMNS`` for a trial."""
    # str() of the enums: sqlite3 binds an exact str at once, a subclass only after
    # looking for an adapter (twice the cost of the whole column).
    return (
        run_id,
        t.case_id,
        t.policy,
        t.repeat,
        int(t.warmup),
        t.category,
        t.expected_event,
        t.event,
        str(t.status),
        str(t.reason),
        str(t.expected_status),
        int(t.correct),
        _json(t.arguments),
        _json(t.expected),
        t.field_tp,
        t.field_fp,
        t.field_fn,
        t.llm_calls,
        t.prompt_tokens,
        t.completion_tokens,
        None if t.cost is None else str(t.cost),
        t.latency_ns,
        t.resolve_ns,
        t.validate_ns,
        t.fallback_ns,
        t.handler_ns,
        str(t.routed_by),
        t.error,
        None if t.correct_exact is None else int(t.correct_exact),
        _json(t.alternatives),
        t.matching,
        t.text,
        t.llm_raw,
        t.failure,
        _json(t.calls),
        _json(t.expected_calls),
        t.cached_tokens,
        t.path,
        t.failed_calls,
        _json(t.ledger),
        stamp,
    )


def decode_trial(row: Sequence[Any]) -> TrialRecord:
    """A ``TrialRecord`` from the row ``select_columns`` selected: JSON, Decimal, enums."""
    values: dict[str, Any] = dict(zip(_RECORD_COLUMNS, row, strict=True))
    cost, exact = values["cost"], values["correct_exact"]
    values.update(
        warmup=bool(values["warmup"]),
        correct=bool(values["correct"]),
        correct_exact=None if exact is None else bool(exact),
        status=TrialStatus(values["status"]),
        expected_status=Status(values["expected_status"]),
        routed_by=Routing(values["routed_by"]),
        arguments=_loads(values["arguments"]),
        expected=_loads(values["expected"]),
        alternatives=_loads(values["alternatives"]),
        calls=_loads(values["calls"]),
        expected_calls=_loads(values["expected_calls"]),
        ledger=_loads(values["ledger"]),
        cost=None if cost is None else Decimal(cost),
    )
    return TrialRecord(**values)


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


_INT64 = range(-(2**63), 2**63)
_NULLABLE = frozenset(
    i for i, name in enumerate(TRIAL_COLUMNS) if name in ("prompt_tokens", "completion_tokens")
)


def storable(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """``row`` with every integer SQLite can hold kept, and every other one made storable.

    A nullable count becomes NULL (unknown); a required one is clamped to the
    column's range. Text columns are kept only as ``str`` (else their repr).
    """
    fixed: list[Any] = []
    for index, value in enumerate(row):
        if isinstance(value, bool) or value is None or isinstance(value, float):
            fixed.append(value)
        elif isinstance(value, int):
            if value in _INT64:
                fixed.append(value)
            elif index in _NULLABLE:
                fixed.append(None)
            else:
                fixed.append(max(min(value, _INT64.stop - 1), _INT64.start))
        elif isinstance(value, str):
            fixed.append(value.encode("utf-8", "replace").decode("utf-8"))
        else:
            fixed.append(repr(value))
    return tuple(fixed)
