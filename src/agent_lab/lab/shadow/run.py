"""``agent-lab shadow``'s work: the logs read, each request replayed, the figures added up.

In one process the log streams through, one request at a time. With
``workers`` above 1, requests go in chunks to worker processes, each of which
loads the plugin set and the price table once and sends back the figures of
its chunk; the figures merge (``ShadowFigures.merge``), so the result is the
same whatever the number of workers.
"""

from __future__ import annotations

import itertools
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from agent_lab.answering import Answerer
from agent_lab.log_replay.figures import ShadowFigures
from agent_lab.log_replay.replayed import replay
from agent_lab.logs.reader import LogLine, line_requests, read_logs, stops_run
from agent_lab.logs.record import LogError, LoggedRequest, SkippedLine

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from pathlib import Path

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.exchange_stores import TimeWindow
    from agent_lab.logs.record import LogFormat
    from agent_lab.providers.pricing import PriceTable
    from agent_lab.resolvers.learned import RuleBook

__all__ = ["CHUNK", "ShadowSettings", "logged_requests", "replay_lines", "shadow"]

CHUNK = 512
"""Requests per task sent to a worker process: large enough that pickling is a small share."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ShadowSettings:
    """How to read and replay: everything but the logs themselves."""

    format: LogFormat | None = None
    """Every file in this format; ``None``: detected per file."""
    on_error: Literal["fail", "skip"] = "fail"
    read: Reading = "last"
    workers: int = 1
    rules: RuleBook | None = None
    """Learned rules (``agent-lab learn``) the schema-driven resolver applies."""
    window: TimeWindow | None = None
    """Of a gateway's store, only the rows that arrived in it; log files are read whole."""


def shadow(
    paths: Sequence[Path | str],
    settings: ShadowSettings,
    *,
    load_plugins: Callable[[], PluginSet | None],
    load_prices: Callable[[], PriceTable | None],
) -> ShadowFigures:
    """Replay every request the logs hold and add up what deterministic-first would have done.

    ``load_plugins`` and ``load_prices`` are called once in each process that
    replays (they must be picklable for ``workers`` above 1: module-level
    functions or ``functools.partial`` of them).

    Raises:
        LogError: A line that cannot be used, unless ``on_error`` is ``"skip"``.
    """
    items = read_logs(
        paths, format=settings.format, on_error=settings.on_error, window=settings.window
    )
    if settings.workers <= 1:
        figures = ShadowFigures(prices=load_prices())
        _replay_into(figures, items, load_plugins(), settings)
        return figures
    return _in_workers(items, settings, load_plugins, load_prices)


def replay_lines(
    figures: ShadowFigures,
    lines: Iterable[LogLine | SkippedLine],
    plugins: PluginSet | None,
    settings: ShadowSettings,
) -> None:
    """Replay the requests of lines ``logs.reader.file_lines`` gave into ``figures``.

    Raises:
        LogError: A line that cannot be used, unless ``on_error`` is ``"skip"``.
    """
    _replay_into(figures, logged_requests(lines, settings), plugins, settings)


def logged_requests(
    lines: Iterable[LogLine | SkippedLine], settings: ShadowSettings
) -> Iterator[LoggedRequest | SkippedLine]:
    """The requests of lines ``logs.reader.file_lines`` gave, as ``read_logs`` yields them.

    Raises:
        LogError: A line that cannot be used, unless ``on_error`` is ``"skip"``.
    """
    for line in lines:
        for found in [line] if isinstance(line, SkippedLine) else line_requests(line):
            if isinstance(found, SkippedLine) and settings.on_error == "fail" and stops_run(found):
                raise LogError(found)
            yield found


def _replay_into(
    figures: ShadowFigures,
    items: Iterable[LoggedRequest | SkippedLine],
    plugins: PluginSet | None,
    settings: ShadowSettings,
) -> None:
    answerer = Answerer(plugins, rules=settings.rules, read=settings.read)
    for item in items:
        if isinstance(item, SkippedLine):
            figures.add(item)
            continue
        replayed = replay(item, answerer)
        if isinstance(replayed, SkippedLine) and settings.on_error == "fail":
            raise LogError(replayed)
        figures.add(replayed)


_WORKER: dict[str, object] = {}


def _start_worker(
    load_plugins: Callable[[], PluginSet | None],
    load_prices: Callable[[], PriceTable | None],
    settings: ShadowSettings,
) -> None:
    _WORKER["plugins"] = load_plugins()
    _WORKER["prices"] = load_prices()
    _WORKER["settings"] = settings


def _replay_chunk(chunk: list[LoggedRequest | SkippedLine]) -> ShadowFigures:
    prices = _WORKER["prices"]
    figures = ShadowFigures(prices=prices)  # type: ignore[arg-type]
    plugins = _WORKER["plugins"]
    settings = _WORKER["settings"]
    assert isinstance(settings, ShadowSettings)
    _replay_into(figures, chunk, plugins, settings)  # type: ignore[arg-type]
    figures.prices = None  # the table stays in the worker: only counts travel back
    return figures


def _chunks(
    items: Iterable[LoggedRequest | SkippedLine],
) -> Iterator[list[LoggedRequest | SkippedLine]]:
    iterator = iter(items)
    while chunk := list(itertools.islice(iterator, CHUNK)):
        yield chunk


def _in_workers(
    items: Iterable[LoggedRequest | SkippedLine],
    settings: ShadowSettings,
    load_plugins: Callable[[], PluginSet | None],
    load_prices: Callable[[], PriceTable | None],
) -> ShadowFigures:
    figures = ShadowFigures()
    # At most two chunks waiting per worker: reading runs ahead of replaying by a
    # bounded amount, so memory stays flat however long the logs are.
    limit = 2 * settings.workers
    with ProcessPoolExecutor(
        settings.workers, initializer=_start_worker, initargs=(load_plugins, load_prices, settings)
    ) as pool:
        # Merged in the order the chunks were read: the examples kept are the same
        # whatever the number of workers.
        pending: deque[Future[ShadowFigures]] = deque()
        for chunk in _chunks(items):
            if len(pending) >= limit:
                figures.merge(pending.popleft().result())
            pending.append(pool.submit(_replay_chunk, chunk))
        while pending:
            figures.merge(pending.popleft().result())
    return figures
