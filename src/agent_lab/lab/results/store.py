"""The results store: one SQLite file, a versioned schema, runs and trials, export (L10).

SQLite, not DuckDB, by measurement (``benchmarks/bench_store.py``): the runner
writes each trial as it ends, and SQLite took about 400,000 trial inserts a
second in small committed batches against DuckDB's 1,100; the report's
aggregate query takes milliseconds in either. WAL mode keeps every committed
trial through a killed process; the primary key (run, case, policy, repeat)
makes a doubled trial impossible.

Writing waits out another process's lock, and reading creates nothing beside
the file (``lab._sqlite``).
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agent_lab._text import escape_surrogates
from agent_lab.errors import StoreError
from agent_lab.lab.results._sqlite import (
    BUSY_TIMEOUT,
    LOCK_PATIENCE,
    is_busy,
    open_for_reading,
    patiently,
)
from agent_lab.lab.results.export import write_tables
from agent_lab.lab.results.records import RunRecord, RunState, TrialRecord
from agent_lab.lab.results.rows import (
    APPLICATION_ID,
    CREATE,
    SCHEMA_VERSION,
    decode_json,
    decode_trial,
    encode_json,
    encode_trial,
    insert_statement,
    missing_columns,
    now,
    select_columns,
    storable,
)

if TYPE_CHECKING:
    import tempfile
    from collections.abc import Callable, Iterable, Sequence

    from agent_lab.lab.results.rows import TrialRow
    from agent_lab.strict_json import JSONObject

__all__ = ["LOCK_PATIENCE", "SCHEMA_VERSION", "RunRecord", "Store", "StoreError", "TrialRecord"]

_INSERT = insert_statement()
_T = TypeVar("_T")


class Store:
    """An agent-lab results database.

    Args:
        path: The file. Created when missing, unless ``read_only``.
        read_only: Open for reading only (``report``, ``compare``, ``export``):
            nothing is written, not even a journal mode or a ``-shm`` file, so
            results on a read-only file system can be read, and a file that is
            refused is left byte for byte as it was, with nothing beside it.
        lock_patience: Seconds a write waits in all for another process's lock.
        busy_timeout: Seconds SQLite waits for a lock before a write is retried.

    Raises:
        StoreError: The file is not SQLite, is SQLite of another application
            or of a newer schema, or (read-only) does not exist or is empty.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        read_only: bool = False,
        lock_patience: float = LOCK_PATIENCE,
        busy_timeout: float = BUSY_TIMEOUT,
    ) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self.lock_patience = lock_patience
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        empty = not self.path.exists() or self.path.stat().st_size == 0
        if read_only and empty:
            raise StoreError(f"{self.path} is empty or missing: no results to read")
        try:
            self._db = self._connect()
            self._db.execute(f"PRAGMA busy_timeout = {round(busy_timeout * 1000)}")
            if empty or self._half_created():
                self._create()
            version = self._check_identity()
            if version > SCHEMA_VERSION:
                raise StoreError(  # noqa: TRY301
                    f"{self.path} has schema version {version}; "
                    f"this agent-lab reads up to {SCHEMA_VERSION}"
                )
            self._columns = {
                row[1] for row in self._db.execute("PRAGMA table_info(trials)").fetchall()
            }
            if not read_only:
                if version < SCHEMA_VERSION:
                    self._migrate()
                # Only after the file is known to be ours: WAL mode rewrites the header.
                self._db.execute("PRAGMA journal_mode = WAL")
                self._db.execute("PRAGMA synchronous = NORMAL")
                self._db.execute("PRAGMA foreign_keys = ON")
        except sqlite3.DatabaseError as err:
            self._close_quietly()
            if is_busy(err):
                raise StoreError(f"{self.path} is locked by another process ({err})") from err
            raise StoreError(
                f"{self.path} is not a readable agent-lab results database ({err})"
            ) from err
        except OSError as err:
            self._close_quietly()
            raise StoreError(f"{self.path} cannot be read: {err.strerror or err}") from err
        except StoreError:
            self._close_quietly()
            raise

    def _connect(self) -> sqlite3.Connection:
        if not self.read_only:
            return sqlite3.connect(self.path, isolation_level=None)
        db, self._scratch = open_for_reading(self.path)
        return db

    def _half_created(self) -> bool:
        # A file killed before its creating transaction committed is an empty SQLite
        # database (no table, no application id): nothing was lost, so start afresh.
        if self.read_only:
            return False
        application_id = self._db.execute("PRAGMA application_id").fetchone()[0]
        tables = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        return application_id == 0 and tables == 0

    def _check_identity(self) -> int:
        application_id = self._db.execute("PRAGMA application_id").fetchone()[0]
        if application_id != APPLICATION_ID:
            raise StoreError(f"{self.path} is not an agent-lab results database")
        row = self._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            raise StoreError(
                f"{self.path} was left half-created by an older agent-lab and holds no "
                "schema version; move it away (or delete it) and run again"
            )
        try:
            version = int(row[0])
        except (TypeError, ValueError):
            version = 0
        if version < 1:
            shown = str(row[0])
            raise StoreError(
                f"{self.path} has schema version {shown[:40]!r}, which is no version number: "
                "not an agent-lab results database this agent-lab can read"
            )
        return version

    def _migrate(self) -> None:
        # An older schema gains the columns it lacks, with their defaults, in one step.
        statements = missing_columns(self._columns)
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for statement in statements:
                self._db.execute(statement)
            self._db.execute(
                "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),)
            )
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")
        self._columns = {row[1] for row in self._db.execute("PRAGMA table_info(trials)")}

    def _close_quietly(self) -> None:
        with contextlib.suppress(sqlite3.Error, AttributeError):
            self._db.close()
        self._drop_scratch()

    def _drop_scratch(self) -> None:
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None

    def _create(self) -> None:
        if self.read_only:
            raise StoreError(f"{self.path} is not an agent-lab results database")
        # One transaction: the schema, the application id (page 1 of the file is
        # written inside the transaction too) and the meta rows, all or nothing.
        meta = f"('schema_version', '{SCHEMA_VERSION}'), ('created_at', '{now()}')"
        # Our own constants and timestamp: executescript() cannot bind parameters.
        script = f"BEGIN IMMEDIATE;{CREATE}PRAGMA application_id = {APPLICATION_ID};"
        self._db.executescript(f"{script}INSERT INTO meta VALUES {meta};COMMIT;")  # noqa: S608

    def close(self) -> None:
        """Close the database."""
        try:
            self._db.close()
        finally:
            self._drop_scratch()

    def __enter__(self) -> Store:
        """Use as a context manager."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close on leaving the block."""
        self.close()

    # Runs --------------------------------------------------------------------------

    def start_run(
        self,
        run_id: str,
        *,
        config: JSONObject,
        config_hash: str,
        environment: JSONObject,
        workload: str,
        plugins: str,
        provider: str,
        model: str | None,
        simulated: bool,
    ) -> None:
        """Record a new run in state ``running``; text is escaped as trials' text is."""
        row = (
            escape_surrogates(run_id),
            now(),
            RunState.RUNNING,
            encode_json(config),
            config_hash,
            encode_json(environment),
            escape_surrogates(workload),
            escape_surrogates(plugins),
            escape_surrogates(provider),
            None if model is None else escape_surrogates(model),
            int(simulated),
        )
        self._patiently(
            lambda: self._db.execute(
                "INSERT INTO runs VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row
            )
        )

    def finish_run(self, run_id: str) -> None:
        """Mark a run finished."""
        self._patiently(
            lambda: self._db.execute(
                "UPDATE runs SET state = ?, finished_at = ? WHERE run_id = ?",
                (RunState.FINISHED, now(), run_id),
            )
        )

    def add_provenance(self, run_id: str, facts: JSONObject) -> None:
        """Add what a run found out about its provider to its ``environment``.

        Such as the structured-output mode ``auto`` settled on: known only once
        the run has talked to the server, so it is not part of the config a
        ``--resume`` compares.
        """
        # A merge inside one SQL statement: no read-then-write window to lose a fact in.
        patch = encode_json(facts)
        updated = self._patiently(
            lambda: (
                self._db.execute(
                    "UPDATE runs SET environment = json_patch(environment, ?) WHERE run_id = ?",
                    (patch, run_id),
                ).rowcount
            )
        )
        if updated == 0:
            raise StoreError(f"{self.path} has no run {run_id!r}")

    def _run(self, row: Sequence[Any]) -> RunRecord:
        try:
            return RunRecord(
                run_id=row[0],
                started_at=row[1],
                finished_at=row[2],
                state=RunState(row[3]),
                config=decode_json(row[4]),
                config_hash=row[5],
                environment=decode_json(row[6]),
                workload=row[7],
                plugins=row[8],
                provider=row[9],
                model=row[10],
                simulated=bool(row[11]),
            )
        except (ValueError, TypeError, RecursionError) as err:
            raise StoreError(f"{self.path}: run {row[0]!r} cannot be read ({err})") from err

    def run(self, run_id: str | None = None) -> RunRecord:
        """A run by id, or the most recent one.

        Raises:
            StoreError: No such run, or no run at all.
        """
        if run_id is None:
            query = "SELECT * FROM runs ORDER BY started_at DESC, rowid DESC LIMIT 1"
            parameters: tuple[str, ...] = ()
            absent = f"{self.path} holds no run yet"
        else:
            query, parameters = "SELECT * FROM runs WHERE run_id = ?", (run_id,)
            absent = f"{self.path} has no run {run_id!r}"
        row = self._db.execute(query, parameters).fetchone()
        if row is None:
            raise StoreError(absent)
        return self._run(row)

    def runs(self) -> list[RunRecord]:
        """Every run, oldest first."""
        rows = self._db.execute("SELECT * FROM runs ORDER BY started_at, rowid").fetchall()
        return [self._run(row) for row in rows]

    def unfinished_run(self) -> RunRecord | None:
        """The most recent run still ``running``, if any."""
        row = self._db.execute(
            "SELECT * FROM runs WHERE state = ? ORDER BY started_at DESC, rowid DESC LIMIT 1",
            (RunState.RUNNING,),
        ).fetchone()
        return None if row is None else self._run(row)

    # Trials -------------------------------------------------------------------------

    def add_trials(self, run_id: str, trials: Iterable[TrialRecord]) -> int:
        """Write trials in one transaction; a trial already stored is never written twice.

        No trial is lost to what it holds: one with a value that cannot be
        stored is stored as failed, without that value (``rows.encode_trial``).

        Returns:
            How many trials were written.

        Raises:
            StoreError: The database stayed locked for ``lock_patience`` seconds,
                or SQLite failed (a full disk): none of these trials is stored,
                and every trial stored before is kept.
        """
        return self.add_rows([encode_trial(run_id, t) for t in trials])

    def add_rows(self, rows: Sequence[TrialRow]) -> int:
        """``add_trials`` for trials already encoded (``rows.encode_trial``), stamped now.

        Returns:
            How many trials were written.

        Raises:
            StoreError: As ``add_trials``.
        """
        stamp = now()
        stamped = [(*row, stamp) for row in rows]
        try:
            try:
                return self._patiently(lambda: self._insert(stamped))
            except (OverflowError, ValueError, TypeError, sqlite3.InterfaceError):
                # A figure no column can hold (a token count of 10**30 from a server):
                # such rows are stored with the figure unknown, never lost with the batch.
                fixed = [storable(row) for row in stamped]
                return self._patiently(lambda: self._insert(fixed))
        except sqlite3.Error as err:
            raise StoreError(
                f"{self.path}: {len(rows)} trial(s) could not be stored ({err}); "
                "every trial stored before is kept"
            ) from err

    def _insert(self, rows: list[tuple[Any, ...]]) -> int:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            before = self._db.total_changes
            self._db.executemany(_INSERT, rows)
            written = self._db.total_changes - before
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            raise
        return written

    def _patiently(self, write: Callable[[], _T]) -> _T:
        return patiently(write, patience=self.lock_patience, path=self.path)

    def done(self, run_id: str) -> set[tuple[str, str, int]]:
        """The (case, policy, repeat) already recorded for a run."""
        rows = self._db.execute(
            "SELECT case_id, policy, repeat FROM trials WHERE run_id = ?", (run_id,)
        ).fetchall()
        return {(row[0], row[1], row[2]) for row in rows}

    def trials(self, run_id: str, *, include_warmup: bool = False) -> list[TrialRecord]:
        """A run's trials, ordered by (case, policy, repeat)."""
        cursor = self._db.execute(
            f"SELECT {select_columns(self._columns)} FROM trials WHERE run_id = ?"  # noqa: S608
            + ("" if include_warmup else " AND warmup = 0")
            + " ORDER BY case_id, policy, repeat",
            (run_id,),
        )
        trials: list[TrialRecord] = []
        for row in cursor:
            try:
                trials.append(decode_trial(row))
            except (StoreError, ValueError, TypeError, RecursionError) as err:
                raise StoreError(
                    f"{self.path}: a trial of run {run_id!r} (case {str(row[0])[:80]!r}) "
                    f"cannot be read ({err})"
                ) from err
        return trials

    def count(self, run_id: str) -> int:
        """How many trials a run has recorded (warm-up included)."""
        return int(
            self._db.execute("SELECT count(*) FROM trials WHERE run_id = ?", (run_id,)).fetchone()[
                0
            ]
        )

    # Export ----------------------------------------------------------------------------

    def export(self, run_id: str | None, folder: str | Path, *, fmt: str) -> list[Path]:
        """Write ``runs`` and ``trials`` (all runs, or one) as CSV or Parquet files in ``folder``.

        Raises:
            SettingError: ``fmt`` is neither ``csv`` nor ``parquet``.
        """
        where, parameters = ("WHERE run_id = ?", (run_id,)) if run_id else ("", ())
        tables: dict[str, tuple[list[str], list[tuple[Any, ...]]]] = {}
        for table in ("runs", "trials"):
            cursor = self._db.execute(f"SELECT * FROM {table} {where}", parameters)  # noqa: S608 - fixed table names
            tables[table] = ([d[0] for d in cursor.description], cursor.fetchall())
        return write_tables(tables, Path(folder), fmt=fmt, decimals=frozenset({"cost"}))
