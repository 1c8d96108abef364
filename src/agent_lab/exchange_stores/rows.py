"""What a gateway's store holds, and what every database's store does with it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

__all__ = [
    "ExchangeFollower",
    "ExchangeTable",
    "NewRow",
    "StoredDecision",
    "StoredRow",
    "TimeWindow",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class NewRow:
    """One finished request, as the writer stores it."""

    request_id: str
    """Unique: a write retried after an ambiguous failure never stores a request twice."""
    at: str
    """When it arrived: ISO 8601, UTC, to the millisecond."""
    origin: str
    """``upstream`` (the model answered) or ``local`` (the gateway did)."""
    status: int
    line: str
    """A ``pairs`` log line's JSON text."""
    decision: str | None
    """The deterministic decision's JSON text; ``None`` when none was computed."""
    worker: int
    """The writing process's id."""


@dataclass(frozen=True, slots=True)
class StoredRow:
    """A row the upstream answered, as read back."""

    id: int
    """The row's number in its store, for ``where`` in messages: ``store:id``."""
    line: str
    decision: str | None


@dataclass(frozen=True, slots=True)
class StoredDecision:
    """The decision stored beside a row the upstream answered: what trust adds up."""

    id: int
    decision: str


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """Rows that arrived at or after ``since`` and before ``until`` (either open)."""

    since: datetime | None = None
    until: datetime | None = None

    def bounds(self) -> tuple[str | None, str | None]:
        """The bounds as the stored ``at`` is written: ISO 8601 in UTC, to the millisecond."""
        return _stamp(self.since), _stamp(self.until)


def _stamp(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).isoformat(timespec="milliseconds")


class ExchangeFollower(Protocol):
    """The decisions of upstream-answered rows committed since the last call, each once."""

    def new_decisions(self) -> Iterator[StoredDecision]:
        """Decisions not given before (of rows that have one), without the rows' lines.

        Raises:
            StoreUnavailableError: The database cannot be read now; the next call goes on.
            StoreError: It is no gateway store.
        """
        ...

    def close(self) -> None:
        """Let the connection go."""
        ...


class ExchangeTable(Protocol):
    """A gateway's store, opened for writing or reading."""

    name: str
    """What messages call it: a path, or an address without its password."""

    def insert(self, rows: Sequence[NewRow]) -> int:
        """Store ``rows`` in one transaction; a ``request_id`` already stored is left as it is.

        Returns:
            The rows that could not be stored however often it is tried (counted as dropped).

        Raises:
            StoreUnavailableError: Nothing was stored and the same write may succeed later.
        """
        ...

    def rows(self, window: TimeWindow | None = None) -> Iterator[StoredRow]:
        """Every upstream-answered row (in ``window``), in the order they were stored.

        Raises:
            InputFileError: It is no gateway store, or cannot be read.
        """
        ...

    def follower(self) -> ExchangeFollower:
        """A reader of the rows committed from now on (and those before: it starts at none)."""
        ...

    def newest_tools(self, newest: int) -> Iterator[tuple[int, str | None, str | None]]:
        """``(line length, tools JSON, functions JSON)`` of the newest rows, newest first."""
        ...

    def close(self) -> None:
        """Let the connection go."""
        ...
