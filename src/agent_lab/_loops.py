"""Running a coroutine from sync code: one kept event loop per thread, not one per call.

Used by the kernel's sync ``dispatch`` when a plugin returns an awaitable,
and by the agents' sync ``decide`` when a model is asked: entering a loop
costs far more than a dispatch, so each thread keeps one.
"""

from __future__ import annotations

import asyncio
import atexit
import contextvars
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Awaitable

__all__ = ["run_sync"]

T = TypeVar("T")


class _KeptLoop:
    """One thread's event loop for sync dispatch, closed when the thread's locals go."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def __del__(self) -> None:
        # Runs when the thread ends (its locals are cleared) or at exit; a plain
        # close(), safe from any thread, since the loop is not running then.
        if not self.loop.is_closed() and not self.loop.is_running():
            self.loop.close()


class _ThreadLoops(threading.local):
    """Each thread's kept loop, made on first use.

    Making and closing a loop per dispatch (``asyncio.run``) cost about 250 us
    here; running on a kept one costs about 20 us.
    """

    kept: _KeptLoop | None = None

    def loop(self) -> asyncio.AbstractEventLoop:
        if self.kept is None:
            self.kept = _KeptLoop()
        return self.kept.loop


_LOOPS = _ThreadLoops()


@atexit.register
def _close_this_threads_loop() -> None:
    # At exit the main thread's locals may outlive the interpreter's last warnings.
    _LOOPS.kept = None


def run_sync(coroutine: Awaitable[T]) -> T:
    """Run ``coroutine`` to its end from sync code.

    In this thread's kept loop; or, when a loop already runs here, on a
    private loop in a helper thread, in this thread's context.
    """

    async def wait() -> T:
        return await coroutine

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _LOOPS.loop().run_until_complete(wait())
    # A loop already runs in this thread and cannot be re-entered: run the rest
    # of the dispatch on a private loop in a helper thread, in this thread's
    # context (a tracing span stays current).
    context = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="agent-lab-dispatch") as pool:
        return pool.submit(context.run, asyncio.run, wait()).result()
