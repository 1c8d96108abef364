"""The dispatch pipeline's two drivers: one makes its plugin calls in this thread, one awaits them.

The pipeline is a generator that yields each call to plugin or provider code
as ``(function, argument)`` and receives the outcome back (or the exception,
thrown in), so the sync and async paths share every line of the pipeline.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from collections.abc import Awaitable, Callable, Generator, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from agent_lab._loops import run_sync
from agent_lab.kernel.models import (
    Event,
    EventResult,
    Fallback,
    FallbackReply,
    FallbackRequest,
    Handler,
    Resolution,
    Resolver,
)
from agent_lab.strict_json import JSONValue

if TYPE_CHECKING:
    from concurrent.futures import Executor

__all__ = ["Pipeline", "PluginCall", "drive_async", "drive_sync"]

PluginCall: TypeAlias = (
    tuple[Resolver, Event]
    | tuple[Fallback, FallbackRequest]
    | tuple[Handler, Mapping[str, JSONValue]]
)
"""A call the pipeline needs made, ``(function, argument)``; the driver sends back its outcome.
A plain tuple, not a dataclass: two are built per dispatch on the hot path."""

Pipeline: TypeAlias = Generator[PluginCall, object, EventResult]

_PLAIN_RESULTS = frozenset(
    {dict, list, str, int, float, bool, type(None), Resolution, FallbackReply}
)


def _is_awaitable(value: object) -> bool:
    # inspect.isawaitable runs ABC checks; plain results, by far the common case, skip them.
    return type(value) not in _PLAIN_RESULTS and inspect.isawaitable(value)


def drive_sync(pipeline: Pipeline) -> EventResult:
    """Run ``pipeline``, making its calls in this thread.

    Synchronous plugins cost no event loop. At the first call that returns an
    awaitable, the rest of the pipeline runs in one event loop (one, not one
    per awaitable: entering a loop costs far more than a dispatch).
    """
    outcome: object = None
    failure: Exception | None = None
    while True:
        try:
            call = pipeline.send(outcome) if failure is None else pipeline.throw(failure)
        except StopIteration as stop:
            return cast("EventResult", stop.value)
        failure = None
        try:
            function, argument = cast("tuple[Callable[[Any], object], object]", call)
            outcome = function(argument)
        except Exception as err:
            outcome, failure = None, err
            continue
        if _is_awaitable(outcome):
            return run_sync(drive_async(pipeline, pending=outcome))


async def drive_async(
    pipeline: Pipeline, *, pending: object = None, offload: Executor | None = None
) -> EventResult:
    """Run ``pipeline`` to its end, awaiting what its calls return.

    ``pending`` is an awaitable that ``drive_sync`` met and hands over with
    the rest of the pipeline. With ``offload``, resolvers and handlers are
    called in its threads (in this task's context), so that plugin code that
    blocks cannot stall the event loop, and a timeout around the dispatch
    holds; what they return that is awaitable is awaited here. The fallback
    is the provider port's async code and is called in the loop.
    """
    outcome: object = None
    failure: Exception | None = None
    if pending is not None:
        try:
            outcome = await cast("Awaitable[object]", pending)
        except Exception as err:
            failure = err
    while True:
        try:
            call = pipeline.send(outcome) if failure is None else pipeline.throw(failure)
        except StopIteration as stop:
            return cast("EventResult", stop.value)
        failure = None
        try:
            function, argument = cast("tuple[Callable[[Any], object], object]", call)
            if offload is None or type(argument) is FallbackRequest:
                outcome = function(argument)
            else:
                outcome = await asyncio.get_running_loop().run_in_executor(
                    offload, _in_this_context(function, argument)
                )
            if _is_awaitable(outcome):
                outcome = await cast("Awaitable[object]", outcome)
        except Exception as err:
            outcome, failure = None, err


def _in_this_context(function: Callable[[Any], object], argument: object) -> Callable[[], object]:
    # The caller's context (a tracing span) goes with the call to the worker thread.
    context = contextvars.copy_context()
    return lambda: context.run(function, argument)
