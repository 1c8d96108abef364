"""``GET /metrics``: the gateway's counters in the Prometheus text format (prometheus_client).

No label ever holds what a client sent (a model name, a tool, a key): only
fixed words, so neither a secret nor an unbounded number of series can get
in. With several worker processes, ``PROMETHEUS_MULTIPROC_DIR`` (set by
``agent-lab serve --workers N``) makes every process write its values to
files there, and a scrape of any worker sums them all.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from collections.abc import Iterator

    from prometheus_client import Metric

    from agent_lab.gateway.store import ExchangeStore

__all__ = ["MULTIPROCESS_ENV", "GatewayMetrics"]

MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"

_LATENCY_BUCKETS = (
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    1.0,
)
"""Seconds: the gateway's own time is a fraction of a millisecond, so the buckets start there."""


class GatewayMetrics:
    """The counters of one gateway (one registry per app, so tests may run several)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        registry = self.registry
        self.requests = Counter(
            "agent_lab_gateway_requests", "Requests received under /v1", registry=registry
        )
        self.answered_locally = Counter(
            "agent_lab_gateway_answered_locally",
            "Chat completions answered by plain code, no model asked",
            registry=registry,
        )
        self.forwarded = Counter(
            "agent_lab_gateway_forwarded", "Requests sent to the upstream", registry=registry
        )
        self.upstream_failures = Counter(
            "agent_lab_gateway_upstream_failures",
            "Forwarded requests the upstream did not answer usably",
            ["reason"],
            registry=registry,
        )
        self.refused = Counter(
            "agent_lab_gateway_refused",
            "Requests refused by the gateway itself: too many in flight, no valid key, a loop, "
            "a bad path, a body too large, too slow, cut off or invalid",
            ["reason"],
            registry=registry,
        )
        self.undecided = Counter(
            "agent_lab_gateway_undecided",
            "Chat completions forwarded with no decision: past the bounds on tools, messages or "
            "schema values",
            ["reason"],
            registry=registry,
        )
        self.added_latency = Histogram(
            "agent_lab_gateway_added_latency_seconds",
            "Time spent in the gateway itself (the upstream's time excluded)",
            ["answered"],
            buckets=_LATENCY_BUCKETS,
            registry=registry,
        )
        self.in_flight = Gauge(
            "agent_lab_gateway_in_flight",
            "Requests being served",
            registry=registry,
            multiprocess_mode="livesum",
        )
        self._store: _StoreCounts | None = None

    def watch(self, store: ExchangeStore) -> None:
        """Count what ``store``'s writer process wrote and dropped (this worker's)."""
        self._store = _StoreCounts(store)
        self.registry.register(self._store)

    def render(self) -> tuple[bytes, str]:
        """The text exposition and its content type; every worker's sum under ``--workers``.

        The store's counts are the scraped worker's own: each worker has its writer.
        """
        if os.environ.get(MULTIPROCESS_ENV):
            combined = CollectorRegistry()
            multiprocess.MultiProcessCollector(combined)
            if self._store is not None:
                combined.register(self._store)
            return generate_latest(combined), CONTENT_TYPE_LATEST
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


class _StoreCounts(Collector):
    """The writer process's counts, read from the values it shares."""

    def __init__(self, store: ExchangeStore) -> None:
        self._store = store

    def collect(self) -> Iterator[Metric]:
        """Written and dropped, as counters."""
        yield CounterMetricFamily(
            "agent_lab_gateway_stored",
            "Finished requests written to the store (this worker's writer)",
            value=self._store.written.value,
        )
        yield CounterMetricFamily(
            "agent_lab_gateway_store_dropped",
            "Finished requests not stored: a full queue, a failed write (this worker's)",
            value=self._store.dropped.value,
        )
