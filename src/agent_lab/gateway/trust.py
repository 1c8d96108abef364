"""Which tools ``enforce`` answers locally: those listed, and those the store says have earned it.

A tool earns trust when the lower bound of its shadow agreement's 95%
interval, over every request in the store, clears ``min_agreement``
(``ShadowFigures.switch_first``, the figure ``agent-lab shadow`` prints for
the store). The figures are added up from the decisions stored beside each
request (the replay the writer made of that very row), so reading the store
costs no replay: at start-up, then every ``refresh_seconds`` in a thread,
only the rows written since (``ExchangeFollower``). A request never waits
for it. Replicas sharing one PostgreSQL store read the same rows, so they
trust the same tools (one refresh apart).
"""

from __future__ import annotations

import json
import logging
import threading
from typing import TYPE_CHECKING

from agent_lab.errors import StoreError
from agent_lab.exchange_stores import is_postgres, open_exchanges, safe_name
from agent_lab.exchange_stores.sqlite import follow
from agent_lab.log_replay.figures import ShadowFigures
from agent_lab.log_replay.replayed import Cause, Kind, Replayed
from agent_lab.logs.record import SkippedLine, SkipReason

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from agent_lab.exchange_stores import ExchangeFollower

__all__ = ["Trust", "stored_decisions"]

_LOG = logging.getLogger(__name__)


def _replayed(row_id: int, text: str, where: str) -> Replayed | SkippedLine:
    fields = json.loads(text)
    if "skipped" in fields:
        return SkippedLine(
            where=f"{where}:{row_id}", reason=SkipReason(fields["skipped"]), message=""
        )
    fields.pop("rule", None)
    fields["kind"] = Kind(fields["kind"])
    fields["cause"] = None if fields["cause"] is None else Cause(fields["cause"])
    return Replayed(where=f"{where}:{row_id}", **fields)


def stored_decisions(
    follower: ExchangeFollower, where: str
) -> Iterator[tuple[int, Replayed | SkippedLine]]:
    """``(id, decision)`` for every upstream-answered row the follower gives, as replayed.

    Raises:
        StoreError: The store cannot be read now.
        ValueError, TypeError, KeyError: A decision this agent-lab cannot read.
    """
    for stored in follower.new_decisions():
        yield stored.id, _replayed(stored.id, stored.decision, where)


def _follower(address: str) -> ExchangeFollower:
    # A SQLite store is followed from its file, which need not exist yet; a PostgreSQL one
    # from a connection opened now (the gateway has checked the database at start-up).
    if is_postgres(address):
        return open_exchanges(address, create=False).follower()
    return follow(address)


class Trust:
    """The tools trusted now: a frozen set swapped whole, read without a lock.

    Args:
        listed: Tools trusted whatever the store says (``--enforce TOOL``).
        store: The gateway's store, for earned trust; ``None`` for none.
        min_agreement: The bound to clear; ``None``: only the listed tools.
    """

    def __init__(
        self, listed: Iterable[str], *, store: str | None, min_agreement: float | None
    ) -> None:
        self.listed = frozenset(listed)
        self._store = store if min_agreement is not None else None
        self._min = min_agreement
        self._figures = ShadowFigures()
        self._follower: ExchangeFollower | None = None
        self.earned: frozenset[str] = frozenset()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def trusts(self, tools: Iterable[str]) -> bool:
        """Whether every one of ``tools`` is trusted."""
        earned = self.earned
        return all(tool in self.listed or tool in earned for tool in tools)

    def refresh(self) -> None:
        """Add up the decisions stored since the last refresh; recompute the earned tools."""
        if self._store is None or self._min is None:
            return
        try:
            if self._follower is None:
                self._follower = _follower(self._store)
            for _, item in stored_decisions(self._follower, safe_name(self._store)):
                self._figures.add(item)
        except StoreError as err:
            # Kept as they were: a store down now is read again at the next refresh.
            _LOG.warning("earned trust not read from the store: %s", err)
            return
        except (ValueError, TypeError, KeyError) as err:
            _LOG.warning("earned trust not read from the store: %s", type(err).__name__)
            return
        self.earned = frozenset(self._figures.switch_first(self._min))

    def start(self, every: float) -> None:
        """Refresh now, then every ``every`` seconds in a daemon thread, until ``stop``."""
        self.refresh()
        if self._store is None:
            return

        def loop() -> None:
            while not self._stop.wait(every):
                self.refresh()

        self._thread = threading.Thread(target=loop, name="gateway-trust", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop refreshing."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        if self._follower is not None:
            self._follower.close()
