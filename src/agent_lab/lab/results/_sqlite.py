"""The results file's SQLite connections: reading that leaves no trace, writing past a lock.

Reading creates nothing beside the file. SQLite gives a WAL database's reader
``-wal`` and ``-shm`` files whenever it can, and a reader cannot remove them
afterwards. So a file with no ``-shm`` beside it (no writer at work: a writer
keeps one) and no commit in a ``-wal`` is read as immutable. A ``-wal`` left
by a killed run without its ``-shm`` (a copy, or a read-only mount) holds
committed trials that SQLite reads only where it may create the ``-shm``, and
is read from a private copy of the two files. Otherwise SQLite's own
read-only mode reads through the writer's files.

Writing waits for another process's lock (a backup, a second writer): SQLite's
busy timeout, then retries with growing pauses, ``LOCK_PATIENCE`` seconds in
all, then ``StoreError``.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from agent_lab.clock import SystemClock
from agent_lab.errors import StoreError

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["BUSY_TIMEOUT", "LOCK_PATIENCE", "is_busy", "open_for_reading", "patiently"]

BUSY_TIMEOUT = 5.0
"""Seconds SQLite itself waits for another process's lock before one try of a write fails."""
LOCK_PATIENCE = 60.0
"""Seconds a write waits in all for another process's lock: busy timeouts and retries."""
_BUSY = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
_FIRST_PAUSE, _LONGEST_PAUSE = 0.05, 2.0
_T = TypeVar("_T")


def _open(path: Path, query: str) -> sqlite3.Connection:
    return sqlite3.connect(f"{path.resolve().as_uri()}?{query}", uri=True, isolation_level=None)


def _beside(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def open_for_reading(
    path: Path,
) -> tuple[sqlite3.Connection, tempfile.TemporaryDirectory[str] | None]:
    """A read-only connection to ``path`` that creates no file beside it.

    Returns:
        The connection, and the scratch folder of a private copy (``None``
        without one), to be cleaned up once the connection is closed.

    Raises:
        OSError: A copy was needed and could not be made.
    """
    if _beside(path, "-shm").exists() or _beside(path, "-journal").exists():
        # A writer is (or was) at work: read through its files, as SQLite has readers do.
        return _open(path, "mode=ro"), None
    wal = _beside(path, "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        scratch = tempfile.TemporaryDirectory(prefix="agent-lab-read-")
        try:
            copy = Path(scratch.name) / "results.sqlite"
            shutil.copyfile(path, copy)
            shutil.copyfile(wal, _beside(copy, "-wal"))
            return _open(copy, "mode=ro"), scratch
        except BaseException:
            scratch.cleanup()
            raise
    # No -shm, so no writer; no commit in a -wal, so the file is all there is. A writer
    # starting during the read appends to a new -wal, and leaves these pages as they are.
    return _open(path, "immutable=1"), None


def is_busy(err: sqlite3.Error) -> bool:
    """Whether ``err`` is another connection's lock (worth waiting for), not a failure."""
    return getattr(err, "sqlite_errorcode", None) in _BUSY


def patiently(write: Callable[[], _T], *, patience: float, path: Path) -> _T:
    """``write()``, tried again while another process holds the lock, up to ``patience`` s.

    ``write`` must leave nothing half-done when it raises (one transaction).

    Raises:
        StoreError: Still locked when the patience ran out.
    """
    clock = SystemClock()
    deadline = clock.monotonic_ns() + round(patience * 1e9)
    pause = _FIRST_PAUSE
    while True:
        try:
            return write()
        except sqlite3.OperationalError as err:
            left = (deadline - clock.monotonic_ns()) / 1e9
            if not is_busy(err):
                raise
            if left <= 0:
                raise StoreError(
                    f"{path} stayed locked by another process for {patience:g} s ({err}); "
                    "every trial stored before is kept"
                ) from err
        time.sleep(min(pause, left))
        pause = min(2 * pause, _LONGEST_PAUSE)
