"""The clock seam: the one place agent-lab reads real time, and a fake for tests."""

from __future__ import annotations

import threading
import time
from typing import Protocol, runtime_checkable

from agent_lab.errors import ArgumentError

__all__ = ["Clock", "FakeClock", "SystemClock"]


@runtime_checkable
class Clock(Protocol):
    """Anything with a monotonic nanosecond counter."""

    def monotonic_ns(self) -> int:
        """Return a monotonic time in nanoseconds; only differences are meaningful."""
        ...


class SystemClock:
    """The real monotonic clock (``time.monotonic_ns``)."""

    __slots__ = ()

    # The C function itself, not a wrapper: the kernel reads the clock several times per dispatch.
    monotonic_ns = staticmethod(time.monotonic_ns)


class FakeClock:
    """A clock that moves only when told to, so tests can assert exact timings.

    Args:
        start_ns: The initial reading.
        tick_ns: How far the clock advances after each reading (0 keeps it still).
    """

    def __init__(self, start_ns: int = 0, *, tick_ns: int = 0) -> None:
        self._now = start_ns
        self._tick = tick_ns
        self._lock = threading.Lock()

    def monotonic_ns(self) -> int:
        """Return the current reading, then advance by ``tick_ns``."""
        with self._lock:
            now = self._now
            self._now += self._tick
            return now

    def advance(self, ns: int) -> None:
        """Move the clock forward by ``ns`` nanoseconds."""
        if ns < 0:
            raise ArgumentError("a monotonic clock cannot go back")
        with self._lock:
            self._now += ns
