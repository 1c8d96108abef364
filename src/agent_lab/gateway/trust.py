"""Which tools ``enforce`` answers locally: those listed, and those the store says have earned it.

A tool earns trust when the lower bound of its shadow agreement's 95%
interval, over every request in the store, clears ``min_agreement``: the
same figures ``agent-lab shadow`` prints for the store
(``ShadowFigures.switch_first``), computed by the same replay. The store is
read at start-up and then every ``refresh_seconds`` in a thread, only the
rows written since; a request never waits for it.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.errors import AgentLabError
from agent_lab.lab.shadow.figures import ShadowFigures
from agent_lab.lab.shadow.replay import replay
from agent_lab.logs.exchanges import store_rows
from agent_lab.logs.record import SkippedLine

if TYPE_CHECKING:
    from collections.abc import Iterable

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading

__all__ = ["Trust"]

_LOG = logging.getLogger(__name__)


class Trust:
    """The tools trusted now: a frozen set swapped whole, read without a lock.

    Args:
        listed: Tools trusted whatever the store says (``--enforce TOOL``).
        store: The gateway's store, for earned trust; ``None`` for none.
        min_agreement: The bound to clear; ``None``: only the listed tools.
    """

    def __init__(
        self,
        listed: Iterable[str],
        *,
        store: str | None,
        min_agreement: float | None,
        plugins: PluginSet | None,
        read: Reading,
    ) -> None:
        self.listed = frozenset(listed)
        self._store = Path(store) if store is not None and min_agreement is not None else None
        self._min = min_agreement
        self._plugins = plugins
        self._read: Reading = read
        self._figures = ShadowFigures()
        self._last = 0
        self.earned: frozenset[str] = frozenset()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def trusts(self, tools: Iterable[str]) -> bool:
        """Whether every one of ``tools`` is trusted."""
        earned = self.earned
        return all(tool in self.listed or tool in earned for tool in tools)

    def refresh(self) -> None:
        """Replay the rows written since the last refresh and recompute the earned tools."""
        if self._store is None or self._min is None or not self._store.exists():
            return
        try:
            for row_id, item in store_rows(self._store, after=self._last):
                self._last = row_id
                self._figures.add(
                    item
                    if isinstance(item, SkippedLine)
                    else replay(item, plugins=self._plugins, read=self._read)
                )
        except AgentLabError as err:
            _LOG.warning("earned trust not read from the store: %s", err)
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
