"""``agent-lab shadow --engine ray``: the replay mapped over a Ray Data dataset's blocks.

Each replay actor holds the plugin set, the price table and an ``Answerer``
(its deciders kept per set of tools) and maps a block of lines to their
figures (``ShadowFigures``); the driver merges them in the order the lines
were read (``ray_blocks.map_blocks``), so the figures, the examples of each
disagreement included, equal the one-process run's exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from agent_lab.lab.shadow.ray_blocks import BlockWorker, RayEngine, map_blocks
from agent_lab.lab.shadow.run import replay_lines
from agent_lab.log_replay.figures import ShadowFigures

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.lab.shadow.run import ShadowSettings
    from agent_lab.logs.reader import LogLine
    from agent_lab.logs.record import SkippedLine
    from agent_lab.providers.pricing import PriceTable

__all__ = ["RayEngine", "shadow_on_ray"]


class _Replay(BlockWorker):
    """A replay actor: the plugin set, prices and answerer loaded once, then block after block."""

    def __init__(
        self,
        load_plugins: Callable[[], PluginSet | None],
        load_prices: Callable[[], PriceTable | None],
        settings: ShadowSettings,
    ) -> None:
        self._plugins = load_plugins()
        self._prices = load_prices()
        self._settings = settings

    def part(self, lines: Iterator[LogLine | SkippedLine]) -> ShadowFigures:
        figures = ShadowFigures(prices=self._prices)
        replay_lines(figures, lines, self._plugins, self._settings)
        figures.prices = None  # the table stays in the worker: only counts travel back
        return figures


def shadow_on_ray(
    sources: Sequence[str],
    settings: ShadowSettings,
    engine: RayEngine,
    *,
    load_plugins: Callable[[], PluginSet | None],
    load_prices: Callable[[], PriceTable | None],
) -> ShadowFigures:
    """Replay the logs on Ray and add up what deterministic-first would have done.

    Raises:
        UsageError: Ray is not installed.
        InputError: A file that cannot be read, or workers that never start.
        MissingInputError: A file that is not there.
        LogError: A line that cannot be used, unless ``on_error`` is ``"skip"``.
    """
    figures = ShadowFigures()
    for part in map_blocks(
        sources,
        format=settings.format,
        engine=engine,
        worker=_Replay,
        worker_args=(load_plugins, load_prices, settings),
    ):
        figures.merge(cast("ShadowFigures", part))
    return figures
