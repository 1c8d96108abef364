"""The gateway's store: finished requests written by a process of their own, never waited for.

The response path only appends an ``Exchange`` to a list; once per turn of
the event loop the list goes to the writer as one batch (one pickle, one
wake-up of the queue's feeder thread, where one per request cost the serving
process about 0.2 ms of each request at concurrency 64: 1,721 against 2,678
forwarded requests a second without a store, benchmarks/bench_gateway.py).
When ``capacity`` exchanges already wait for the writer, a batch is dropped
and counted, so a slow disk or database can never hold a client up, and no
store error can reach one.
The writer is a process, not a thread: replaying a request (about half a
millisecond of Python) in the serving process would hold its interpreter
lock and delay the requests being served. It builds each row
(``exchange.row_of``), makes its span, and inserts a batch per transaction
into the store (``exchange_stores``: a SQLite file, or PostgreSQL). A write
that finds the store locked or unreachable is retried for about half a
minute, then its batch is dropped and counted; the next batch tries again,
so the writer recovers when the database does. ``request_id`` is unique, so
a retry never stores a request twice. A transaction is whole or absent, so a
kill leaves every committed request exactly once and nothing half-written;
what was still queued is lost.
The writer ignores SIGINT and SIGTERM (a terminal's Ctrl-C reaches the whole
process group): it stops when the gateway closes it, or when the gateway is
gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import queue
import signal
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_lab.answering import Answerer
from agent_lab.errors import StoreError, StoreUnavailableError
from agent_lab.exchange_stores import NewRow, open_exchanges
from agent_lab.gateway.exchange import Exchange, row_of

if TYPE_CHECKING:
    from collections.abc import Callable
    from multiprocessing.context import ForkServerContext, SpawnContext
    from multiprocessing.sharedctypes import Synchronized

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.exchange_stores import ExchangeTable
    from agent_lab.resolvers.learned import RuleBook

__all__ = ["ExchangeStore"]

_LOG = logging.getLogger(__name__)
_BATCH = 256
_RETRIES = 20
_POLL_SECONDS = 0.5


def _context() -> SpawnContext | ForkServerContext:
    # A fork server that has imported the writer's modules starts a writer in milliseconds,
    # where spawn imports them again for each; and it never forks the serving process's
    # threads. Spawn where there is no fork server (Windows).
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["agent_lab.gateway.store"])
    return context


class ExchangeStore:
    """A bounded buffer in front of a writer process; ``put`` never blocks and never raises.

    Args:
        path: The store: a SQLite file or a ``postgresql://`` address; ``None`` stores
            nothing (the rows still go to the spans).
        load_plugins: Called once in the writer: the user's plugin set, for the decision
            stored beside each request (picklable: a module-level function or a partial).
        read: What of a conversation the resolvers read.
        capacity: Exchanges that may wait for the writer; past it a batch is dropped, counted.
        make_spans: Called once in the writer: what makes each row's span, or ``None``.
        rules: Learned rules the decision beside each request applies.
    """

    def __init__(
        self,
        path: str | None,
        *,
        load_plugins: Callable[[], PluginSet | None],
        read: Reading,
        capacity: int,
        make_spans: Callable[[], Callable[[NewRow], None] | None] | None = None,
        rules: RuleBook | None = None,
    ) -> None:
        context = _context()
        # Unbounded as a queue; bounded by ``capacity`` exchanges waiting (``_flush``).
        self._queue: multiprocessing.Queue[list[Exchange] | None] = context.Queue()
        self.written: Synchronized[int] = context.Value("q", 0)
        self.dropped: Synchronized[int] = context.Value("q", 0)
        self._capacity = capacity
        self._put = 0
        self._sent = 0
        self._pending: list[Exchange] = []
        plan = _Plan(
            path=path,
            load_plugins=load_plugins,
            read=read,
            make_spans=make_spans,
            parent=os.getpid(),
            rules=rules,
        )
        self._process = context.Process(
            target=_writer,
            args=(plan, self._queue, self.written, self.dropped),
            name="agent-lab-store",
            daemon=True,
        )
        self._process.start()

    def put(self, exchange: Exchange) -> None:
        """Keep ``exchange`` for the writer: sent with the others of this loop turn."""
        self._put += 1
        self._pending.append(exchange)
        if len(self._pending) > 1:
            return  # a flush is already scheduled
        try:
            asyncio.get_running_loop().call_soon(self._flush)
        except RuntimeError:  # no event loop in this thread: send it now
            self._flush()

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        if not batch:
            return
        waiting = self._sent - (self.written.value + self.dropped.value)
        if waiting + len(batch) > self._capacity:
            self._count_dropped(len(batch))
            return
        try:
            self._queue.put_nowait(batch)
        except (ValueError, OSError):  # closed under us: the gateway is stopping
            self._count_dropped(len(batch))
            return
        self._sent += len(batch)

    def _count_dropped(self, n: int) -> None:
        with self.dropped.get_lock():
            self.dropped.value += n

    def idle(self) -> bool:
        """Whether everything put so far is written (or dropped)."""
        return self.written.value + self.dropped.value >= self._put

    def close(self, timeout: float = 30.0) -> None:
        """Write what is queued, then stop the writer."""
        self._flush()
        with contextlib.suppress(ValueError, OSError):
            self._queue.put(None, timeout=timeout)
        self._process.join(timeout)
        if self._process.is_alive():
            _LOG.warning("the store's writer did not finish in %s s; stopped", timeout)
            self._process.terminate()
            self._process.join(5)
        self._queue.close()


@dataclass(frozen=True, slots=True, kw_only=True)
class _Plan:
    """What the writer process is started with (pickled to it)."""

    path: str | None
    load_plugins: Callable[[], PluginSet | None]
    read: Reading
    make_spans: Callable[[], Callable[[NewRow], None] | None] | None
    parent: int
    rules: RuleBook | None = None


def _writer(
    plan: _Plan,
    exchanges: multiprocessing.Queue[list[Exchange] | None],
    written: Synchronized[int],
    dropped: Synchronized[int],
) -> None:
    for caught in (signal.SIGINT, signal.SIGTERM):
        signal.signal(caught, signal.SIG_IGN)
    parent = plan.parent
    writer = _Writer(
        plan.path,
        plugins=plan.load_plugins(),
        read=plan.read,
        rules=plan.rules,
        on_row=None if plan.make_spans is None else plan.make_spans(),
        written=written,
        dropped=dropped,
    )
    try:
        while True:
            try:
                first = exchanges.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                if not _alive(parent):
                    return  # the gateway is gone: nothing more will come
                continue
            batch = list(first) if first is not None else []
            stop = first is None
            while not stop and len(batch) < _BATCH:
                try:
                    more = exchanges.get_nowait()
                except queue.Empty:
                    break
                stop = more is None
                if more is not None:
                    batch += more
            writer.write(batch)
            if stop:
                return
    finally:
        writer.close()


def _alive(pid: int) -> bool:
    # The writer's parent is the fork server, not the gateway: ask after the gateway itself.
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class _Writer:
    def __init__(
        self,
        address: str | None,
        *,
        plugins: PluginSet | None,
        read: Reading,
        on_row: Callable[[NewRow], None] | None,
        written: Synchronized[int],
        dropped: Synchronized[int],
        rules: RuleBook | None = None,
    ) -> None:
        self._address = address
        self._table: ExchangeTable | None = None
        self._answerer = Answerer(plugins, rules=rules, read=read)
        self._on_row = on_row
        self._written = written
        self._dropped = dropped

    def _count(self, counter: Synchronized[int], n: int) -> None:
        with counter.get_lock():
            counter.value += n

    def _rows(self, batch: list[Exchange]) -> list[NewRow]:
        rows: list[NewRow] = []
        for exchange in batch:
            try:
                rows.append(row_of(exchange, self._answerer))
            except Exception:  # noqa: BLE001  (a user's plugin may raise anything)
                _LOG.exception("a finished request could not be made a row; not stored")
                self._count(self._dropped, 1)
        if self._on_row is not None:
            for row in rows:
                try:
                    self._on_row(row)
                except Exception:  # noqa: BLE001  (an exporter's failure never loses a row)
                    _LOG.warning("a finished request's span could not be made")
        return rows

    def _store(self) -> ExchangeTable:
        """The store, opened now if it could not be before (down when the writer started)."""
        if self._table is None:
            assert self._address is not None
            self._table = open_exchanges(self._address, create=True)
        return self._table

    def write(self, batch: list[Exchange]) -> None:
        rows = self._rows(batch)
        if self._address is None:
            self._count(self._written, len(rows))
            return
        for attempt in range(_RETRIES):
            try:
                refused = self._store().insert(rows)
            except StoreUnavailableError as err:
                # Locked past the busy timeout by another worker, a full disk, a database
                # down or slow: wait, retry; past the last try the batch is dropped, counted.
                _LOG.warning("store write failed (attempt %d): %s", attempt + 1, err)
                time.sleep(min(0.05 * 2**attempt, 2.0))
                continue
            except StoreError:
                _LOG.exception("store write failed; %d requests not stored", len(rows))
                break
            if refused:
                _LOG.warning("the store refused %d requests; not stored", refused)
            self._count(self._written, len(rows) - refused)
            self._count(self._dropped, refused)
            return
        self._count(self._dropped, len(rows))

    def close(self) -> None:
        on_row = self._on_row
        closing = getattr(on_row, "close", None)
        if callable(closing):
            closing()
        if self._table is not None:
            self._table.close()
