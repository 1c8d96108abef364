r"""The results database's tables: their columns, and trials to and from rows (L10).

Columns are declared once, here: the tables are created from them, a file of
an older schema gains the columns it lacks (``ALTER TABLE ... ADD COLUMN``,
with their defaults), and a file opened read-only reads a missing column as
its default. The trial columns follow ``TrialRecord``'s fields.

Encoding a trial never raises: a value that cannot be written (an integer of
more digits than Python converts to text, a value that is not JSON) is left
out, and the trial is stored as failed (``LabReason.UNSTORABLE``) with the
reason in its ``error``. A lone UTF-16 surrogate (from a model's reply, say)
cannot be UTF-8 text: it is stored escaped, as the six characters ``\udc80``,
in text columns and in the strings (and keys) of JSON columns alike, so that
the file holds strict JSON and valid UTF-8, and readers show what was sent.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from agent_lab._text import escape_surrogates
from agent_lab.agents.decision import Routing
from agent_lab.errors import StoreError
from agent_lab.kernel.models import Status
from agent_lab.lab.results.records import LabReason, TrialRecord
from agent_lab.log_replay.trial_status import TrialStatus

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "APPLICATION_ID",
    "CREATE",
    "SCHEMA_VERSION",
    "TRIAL_COLUMNS",
    "TrialRow",
    "decode_json",
    "decode_trial",
    "encode_json",
    "encode_text",
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


encode_text = escape_surrogates
"""Text as valid UTF-8: each lone surrogate written as its escape (``agent_lab._text``)."""


def _text(value: str | None) -> str | None:
    return None if value is None else encode_text(value)


def _escaped(value: object) -> object:
    if isinstance(value, str):
        return encode_text(value)
    if isinstance(value, dict):
        items = cast("dict[object, object]", value).items()
        return {_escaped(key): _escaped(item) for key, item in items}
    if isinstance(value, list | tuple):
        return [_escaped(item) for item in cast("list[object]", value)]
    return value


_ENCODER = json.JSONEncoder(sort_keys=True)
"""What ``json.dumps(value, sort_keys=True)`` builds on every call, built once: the same
text, 1.0-1.5 us less for each small JSON column a trial fills (timeit, Python 3.11)."""


def encode_json(value: object) -> str | None:
    """``value`` as JSON text, lone surrogates escaped (see the module docstring).

    Raises:
        ValueError: An integer of more digits than Python converts, a cycle.
        TypeError: A value that is not JSON data.
        RecursionError: Nesting deeper than the encoder goes.
    """
    if value is None:
        return None
    text = _ENCODER.encode(value)
    # The ASCII output writes a lone surrogate as a \udXXX escape: only such text pays
    # for the walk (a character beyond the BMP, written as a pair, walks for nothing).
    if "\\ud" in text:
        text = _ENCODER.encode(_escaped(value))
    return text


def decode_json(text: str | None) -> Any:
    """JSON text from a column, with any lone surrogate escaped as when writing.

    Raises:
        ValueError: Not JSON (a file written by another program).
    """
    if text is None:
        return None
    value: object = json.loads(text)
    # Files written before escaping was added may hold lone surrogate escapes.
    return _escaped(value) if "\\ud" in text else value


_JSON_FIELDS = ("arguments", "expected", "alternatives", "calls", "expected_calls", "ledger")


def _unstorable(t: TrialRecord, left_out: list[str], problem: str) -> TrialRecord:
    # A trial that cannot be stored as it ran is a failed trial, never a lost one:
    # what it measured (latency, calls, tokens, cost) stays, what it produced goes.
    return dataclasses.replace(
        t,
        status=TrialStatus.ERROR,
        reason=LabReason.UNSTORABLE,
        correct=False,
        correct_exact=None if t.correct_exact is None else False,
        field_tp=0,
        field_fp=0,
        field_fn=t.field_tp + t.field_fn,
        error=f"{' and '.join(left_out)} left out: cannot be stored ({problem})",
        **dict.fromkeys(left_out),
    )


TrialRow = tuple[Any, ...]
"""A trial encoded for ``TRIAL_COLUMNS``, all but the last (``finished_at``, the write's time)."""


def encode_trial(run_id: str, t: TrialRecord) -> TrialRow:
    """The row of ``TRIAL_COLUMNS`` for a trial, but its ``finished_at``; never raises.

    See the module docstring. The row holds only text, numbers and ``None``, so that
    rows waiting to be written cost the garbage collector nothing (``Runner.run``).
    """
    encoded: list[str | None] = []
    left_out: list[str] = []
    problem = ""
    for name in _JSON_FIELDS:
        try:
            encoded.append(encode_json(getattr(t, name)))
        except (ValueError, TypeError, RecursionError) as err:
            encoded.append(None)
            left_out.append(name)
            # Python's advice after the ';' (set_int_max_str_digits) is not the user's to take.
            problem = problem or f"{type(err).__name__}: {str(err).split(';')[0]}"
    if left_out:
        t = _unstorable(t, left_out, problem)
    arguments, expected, alternatives, calls, expected_calls, ledger = encoded
    # str() of the enums: sqlite3 binds an exact str at once, a subclass only after
    # looking for an adapter (twice the cost of the whole column).
    return (
        run_id,
        encode_text(t.case_id),
        encode_text(t.policy),
        t.repeat,
        int(t.warmup),
        encode_text(t.category),
        _text(t.expected_event),
        _text(t.event),
        str(t.status),
        encode_text(str(t.reason)),
        str(t.expected_status),
        int(t.correct),
        arguments,
        expected,
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
        _text(t.error),
        None if t.correct_exact is None else int(t.correct_exact),
        alternatives,
        encode_text(t.matching),
        encode_text(t.text),
        _text(t.llm_raw),
        _text(t.failure),
        calls,
        expected_calls,
        t.cached_tokens,
        encode_text(t.path),
        t.failed_calls,
        ledger,
    )


def decode_trial(row: Sequence[Any]) -> TrialRecord:
    """A ``TrialRecord`` from the row ``select_columns`` selected: JSON, Decimal, enums.

    Raises:
        StoreError: A cost that is not a number.
        ValueError: Another value no agent-lab wrote (bad JSON, an unknown status).
    """
    values: dict[str, Any] = dict(zip(_RECORD_COLUMNS, row, strict=True))
    cost, exact = values["cost"], values["correct_exact"]
    try:
        decimal_cost = None if cost is None else Decimal(cost)
    except (ArithmeticError, TypeError) as err:
        raise StoreError(f"cost {cost!r} is not a number") from err
    values.update(
        warmup=bool(values["warmup"]),
        correct=bool(values["correct"]),
        correct_exact=None if exact is None else bool(exact),
        status=TrialStatus(values["status"]),
        expected_status=Status(values["expected_status"]),
        routed_by=Routing(values["routed_by"]),
        arguments=decode_json(values["arguments"]),
        expected=decode_json(values["expected"]),
        alternatives=decode_json(values["alternatives"]),
        calls=decode_json(values["calls"]),
        expected_calls=decode_json(values["expected_calls"]),
        ledger=decode_json(values["ledger"]),
        cost=decimal_cost,
    )
    return TrialRecord(**values)


_INT64 = range(-(2**63), 2**63)
_NULLABLE = frozenset(
    i
    for i, name in enumerate(TRIAL_COLUMNS)
    if name in ("prompt_tokens", "completion_tokens", "cached_tokens")
)


def storable(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """``row`` with every integer SQLite can hold kept, and every other one made storable.

    A nullable count becomes NULL (unknown); a required one is clamped to the
    column's range. Text columns are kept only as ``str`` (else their repr), escaped
    as ``encode_text`` escapes them.
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
            fixed.append(encode_text(value))
        else:
            fixed.append(repr(value))
    return tuple(fixed)
