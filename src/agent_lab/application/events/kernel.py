"""EventKernel: the deterministic-first dispatch pipeline (K10-K22) and nothing else.

The pipeline is written once, as a generator that yields each call to plugin
or provider code (resolver, fallback, handler) instead of making it. Two
drivers run it: ``dispatch`` makes the calls synchronously, ``adispatch``
awaits them. So the sync and async paths cannot drift apart, and a fully
synchronous plugin costs no event loop.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Generator, Mapping
from concurrent.futures import ThreadPoolExecutor
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from agent_lab._json_walk import copy_object
from agent_lab.application.events.merge import merge_arguments
from agent_lab.application.events.models import (
    Conflict,
    Event,
    EventResult,
    Fallback,
    FallbackReply,
    FallbackRequest,
    Reason,
    Resolution,
    Status,
    Timings,
    Usage,
    ValidationIssue,
)
from agent_lab.application.events.validation import (
    Check,
    CompiledSchema,
    SchemaInfrastructureError,
)
from agent_lab.clock import Clock, SystemClock
from agent_lab.errors import DefinitionError, ProviderError, StrictJSONError
from agent_lab.strict_json import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_DEPTH,
    JSONObject,
    JSONValue,
    ensure_json_data,
    escape_pointer_token,
    has_pointer,
    loads,
    same_json,
)

if TYPE_CHECKING:
    from agent_lab.application.events.registry import EventRegistry, RegisteredEvent

__all__ = ["EventKernel"]


_Call = tuple[Callable[[Any], Any], Any]
"""A call the pipeline needs made, ``(function, argument)``; the driver sends back the outcome.
A plain tuple, not a dataclass: two are built per dispatch on the hot path."""

_Pipeline = Generator[_Call, Any, EventResult]


def _describe(err: BaseException) -> str:
    return f"{type(err).__name__}: {err}"


_PLAIN_RESULTS = frozenset(
    {dict, list, str, int, float, bool, type(None), Resolution, FallbackReply}
)


_new_instance = object.__new__

_UNKNOWN_USAGE = Usage()
"""One request whose tokens and cost nobody reported."""


def _is_awaitable(value: object) -> bool:
    # inspect.isawaitable runs ABC checks; plain results, by far the common case, skip them.
    return type(value) not in _PLAIN_RESULTS and inspect.isawaitable(value)


def _to_pointer(name_or_pointer: str) -> str:
    # Resolution.missing takes property names or JSON pointers.
    if name_or_pointer.startswith("/"):
        return name_or_pointer
    return "/" + escape_pointer_token(name_or_pointer)


def _with_declared(
    found: tuple[str, ...], declared: tuple[str, ...], arguments: JSONObject
) -> tuple[str, ...]:
    # What the schema found missing, plus what the resolver declared missing and
    # is still absent: a declared name the arguments do hold is not missing (K13).
    if not declared:
        return found
    return found + tuple(
        pointer
        for pointer in declared
        if pointer not in found and not has_pointer(arguments, pointer)
    )


def _run_awaitable(awaitable: Awaitable[Any]) -> Any:
    async def wait() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    # A loop already runs in this thread and cannot be re-entered: run the
    # coroutine to completion on a private loop in a helper thread.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="agent-lab-dispatch") as pool:
        return pool.submit(asyncio.run, wait()).result()


class _Trace:
    """What one dispatch has gathered so far; turned into an ``EventResult`` at the end."""

    __slots__ = (
        "clock",
        "event",
        "fallback_arguments",
        "fallback_ns",
        "fallback_raw",
        "fallback_used",
        "handler_ns",
        "llm_calls",
        "resolve_ns",
        "resolved",
        "start",
        "usage",
        "validate_ns",
    )

    def __init__(self, event: str, clock: Clock) -> None:
        self.event = event
        self.clock = clock
        self.start = clock.monotonic_ns()
        self.resolve_ns = self.validate_ns = self.fallback_ns = self.handler_ns = 0
        self.resolved: JSONObject | None = None
        self.fallback_raw: str | None = None
        self.fallback_arguments: JSONObject | None = None
        self.fallback_used = False
        self.llm_calls = 0
        self.usage = Usage.zero()

    def finish(
        self,
        status: Status,
        reason: str,
        message: str = "",
        *,
        arguments: JSONObject | None = None,
        errors: tuple[ValidationIssue, ...] = (),
        missing: tuple[str, ...] = (),
        conflicts: tuple[Conflict, ...] = (),
        output: JSONValue = None,
    ) -> EventResult:
        # Built without calling __init__: finish() supplies every field, and
        # this is the hot path of every dispatch (README, "Benchmark").
        timings = _new_instance(Timings)
        timings.__dict__.update(
            resolve_ns=self.resolve_ns,
            validate_ns=self.validate_ns,
            fallback_ns=self.fallback_ns,
            handler_ns=self.handler_ns,
            total_ns=self.clock.monotonic_ns() - self.start,
        )
        result = _new_instance(EventResult)
        result.__dict__.update(
            status=status,
            reason=reason,
            event=self.event,
            message=message,
            arguments=arguments,
            resolved=self.resolved,
            fallback_raw=self.fallback_raw,
            fallback_arguments=self.fallback_arguments,
            conflicts=conflicts,
            errors=errors,
            missing=missing,
            llm_calls=self.llm_calls,
            fallback_used=self.fallback_used,
            usage=self.usage,
            timings=timings,
            output=output,
        )
        return result


class EventKernel:
    """Dispatches events: deterministic resolution first, an LLM only for missing information.

    Args:
        registry: The event definitions. The kernel only reads it.
        fallback: Asks an LLM for missing fields (sync or async); ``None``
            means missing information is reported, not filled (K15).
        allow_fallback: ``False`` is the deterministic-only policy: the
            fallback is never called even if configured.
        max_attempts: Bound on requests per dispatch when the fallback fails
            with a retryable error: ``TimeoutError``, ``ConnectionError`` or
            ``ProviderError(retryable=True)`` (K16). The kernel does not
            sleep between attempts; backoff belongs to the provider.
        clock: Any object with ``monotonic_ns()``; the system clock by default.
        max_reply_bytes: Size bound for the fallback's raw JSON (K17).
        max_reply_depth: Nesting bound for the fallback's raw JSON (K17).

    ``dispatch`` and ``adispatch`` never raise for anything a user, a plugin
    or an LLM does; every outcome is an ``EventResult``. The kernel holds no
    per-dispatch state, so one instance may serve many threads and tasks (K22).
    """

    def __init__(
        self,
        registry: EventRegistry,
        fallback: Fallback | None = None,
        *,
        allow_fallback: bool = True,
        max_attempts: int = 3,
        clock: Clock | None = None,
        max_reply_bytes: int = DEFAULT_MAX_BYTES,
        max_reply_depth: int = DEFAULT_MAX_DEPTH,
    ) -> None:
        """Create a kernel over ``registry``."""
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if fallback is not None and not callable(fallback):
            raise TypeError("fallback must be callable")
        self._registry = registry
        self._fallback = fallback
        self._allow_fallback = allow_fallback
        self._max_attempts = max_attempts
        self._clock: Clock = clock if clock is not None else SystemClock()
        self._max_reply_bytes = max_reply_bytes
        self._max_reply_depth = max_reply_depth

    @property
    def registry(self) -> EventRegistry:
        """The registry this kernel dispatches against."""
        return self._registry

    def dispatch(self, event: Event) -> EventResult:
        """Dispatch one event synchronously.

        Async resolvers, fallbacks and handlers are run to completion; inside
        a running event loop prefer ``adispatch``.
        """
        pipeline = self._pipeline(event)
        outcome: Any = None
        failure: Exception | None = None
        while True:
            try:
                call = pipeline.send(outcome) if failure is None else pipeline.throw(failure)
            except StopIteration as stop:
                return stop.value
            failure = None
            try:
                function, argument = call
                outcome = function(argument)
                if _is_awaitable(outcome):
                    outcome = _run_awaitable(outcome)
            except Exception as err:
                outcome, failure = None, err

    async def adispatch(self, event: Event) -> EventResult:
        """Dispatch one event, awaiting async resolvers, fallbacks and handlers."""
        pipeline = self._pipeline(event)
        outcome: Any = None
        failure: Exception | None = None
        while True:
            try:
                call = pipeline.send(outcome) if failure is None else pipeline.throw(failure)
            except StopIteration as stop:
                return stop.value
            failure = None
            try:
                function, argument = call
                outcome = function(argument)
                if _is_awaitable(outcome):
                    outcome = await outcome
            except Exception as err:
                outcome, failure = None, err

    def _pipeline(self, event: Event) -> _Pipeline:
        if not isinstance(event, Event):
            raise TypeError(f"dispatch() takes an Event, not {type(event).__name__}")
        clock = self._clock
        name = event.name
        trace = _Trace(name if type(name) is str else repr(name), clock)
        # K10
        entry = self._registry.lookup(name) if type(name) is str else None
        if entry is None:
            return trace.finish(
                Status.UNKNOWN_EVENT, Reason.UNKNOWN_EVENT, f"no event named {trace.event}"
            )
        # K5, K14: a lazy registry surfaces a broken schema here.
        validator = entry.validator()
        if isinstance(validator, DefinitionError):
            return trace.finish(Status.DEFINITION_ERROR, Reason.SCHEMA_ERROR, str(validator))

        # K11
        resolver = entry.definition.resolver
        resolution: object = {}
        if resolver is not None:
            started = clock.monotonic_ns()
            try:
                resolution = yield resolver, event
            except Exception as err:
                trace.resolve_ns = clock.monotonic_ns() - started
                return trace.finish(Status.DEFINITION_ERROR, Reason.RESOLVER_ERROR, _describe(err))
            trace.resolve_ns = clock.monotonic_ns() - started
        complete: bool | None = None
        declared_missing: tuple[str, ...] = ()
        if isinstance(resolution, Resolution):
            complete = resolution.complete
            declared_missing = tuple(_to_pointer(item) for item in resolution.missing)
            resolution = resolution.arguments
        if type(resolution) is not dict and not isinstance(resolution, Mapping):
            return trace.finish(
                Status.DEFINITION_ERROR,
                Reason.RESOLVER_OUTPUT_NOT_JSON,
                "a resolver must return a mapping or a Resolution, "
                f"not {type(resolution).__name__}",
            )
        try:
            arguments: JSONObject = ensure_json_data(resolution)  # type: ignore[assignment]
        except StrictJSONError as err:
            return trace.finish(
                Status.DEFINITION_ERROR, Reason.RESOLVER_OUTPUT_NOT_JSON, f"resolver output: {err}"
            )
        trace.resolved = arguments

        # K12, K14
        check = self._check(validator, arguments, trace, "resolver")
        if isinstance(check, EventResult):
            return check
        if check.invalid:
            # Resolved values are authoritative: an LLM is never asked to repair them.
            return trace.finish(
                Status.INVALID_ARGUMENTS,
                Reason.INVALID_ARGUMENTS,
                check.invalid[0].message,
                errors=check.invalid,
                missing=check.missing,
            )
        missing = _with_declared(check.missing, declared_missing, arguments)

        # K13
        if missing or complete is False:
            fallback = self._fallback
            if fallback is None or not self._allow_fallback:
                reason = Reason.NO_FALLBACK if fallback is None else Reason.FALLBACK_DISABLED
                return trace.finish(
                    Status.MISSING_INFORMATION,
                    reason,
                    "missing: " + ", ".join(missing) if missing else "the resolver was incomplete",
                    missing=missing,
                )
            wanted = missing
            if complete is False:
                # The resolver suspects more than the schema demands: ask for
                # every absent property, demanding only the missing ones.
                extra = self._absent_properties(entry, arguments)
                wanted = missing + tuple(p for p in extra if p not in missing)
            supplied = yield from self._ask_fallback(
                fallback,
                entry=entry,
                event=event,
                arguments=arguments,
                missing=wanted,
                required=missing,
                trace=trace,
            )
            if isinstance(supplied, EventResult):
                return supplied
            # K19
            merged, conflicts = merge_arguments(arguments, supplied)
            recheck = self._check(validator, merged, trace, "fallback")
            if isinstance(recheck, EventResult):
                return recheck
            if recheck.invalid:
                return trace.finish(
                    Status.INVALID_ARGUMENTS,
                    Reason.INVALID_AFTER_FALLBACK,
                    recheck.invalid[0].message,
                    errors=recheck.invalid,
                    missing=recheck.missing,
                    conflicts=conflicts,
                )
            still_missing = _with_declared(recheck.missing, declared_missing, merged)
            if still_missing:
                return trace.finish(
                    Status.MISSING_INFORMATION,
                    Reason.MISSING_AFTER_FALLBACK,
                    "still missing after the fallback: " + ", ".join(still_missing),
                    missing=still_missing,
                    conflicts=conflicts,
                )
            arguments = merged
        else:
            conflicts = ()

        # K21
        handler = entry.definition.handler
        output: JSONValue = None
        if handler is not None:
            started = clock.monotonic_ns()
            try:
                # A private read-only copy: the handler cannot change the result.
                returned = yield handler, MappingProxyType(copy_object(arguments))
            except Exception as err:
                trace.handler_ns = clock.monotonic_ns() - started
                return trace.finish(
                    Status.HANDLER_ERROR,
                    Reason.HANDLER_ERROR,
                    _describe(err),
                    arguments=arguments,
                    conflicts=conflicts,
                )
            trace.handler_ns = clock.monotonic_ns() - started
            try:
                output = ensure_json_data(returned)
            except StrictJSONError as err:
                return trace.finish(
                    Status.HANDLER_ERROR,
                    Reason.HANDLER_OUTPUT_NOT_JSON,
                    f"handler output: {err}",
                    arguments=arguments,
                    conflicts=conflicts,
                )
        return trace.finish(
            Status.SUCCESS,
            Reason.COMPLETED,
            arguments=arguments,
            conflicts=conflicts,
            output=output,
        )

    def _check(
        self, validator: CompiledSchema, arguments: JSONObject, trace: _Trace, source: str
    ) -> Check | EventResult:
        started = self._clock.monotonic_ns()
        try:
            return validator.check(arguments, source=source)
        except SchemaInfrastructureError as err:
            return trace.finish(Status.DEFINITION_ERROR, Reason.VALIDATOR_ERROR, str(err))
        finally:
            trace.validate_ns += self._clock.monotonic_ns() - started

    @staticmethod
    def _absent_properties(entry: RegisteredEvent, arguments: JSONObject) -> tuple[str, ...]:
        # Resolution(complete=False) named nothing: ask for every declared property not yet set.
        properties = entry.schema.get("properties")
        if not isinstance(properties, Mapping):
            return ()
        names: Mapping[str, object] = properties  # type: ignore[assignment]
        return tuple("/" + escape_pointer_token(key) for key in names if key not in arguments)

    def _ask_fallback(
        self,
        fallback: Fallback,
        *,
        entry: RegisteredEvent,
        event: Event,
        arguments: JSONObject,
        missing: tuple[str, ...],
        required: tuple[str, ...],
        trace: _Trace,
    ) -> Generator[_Call, Any, JSONObject | EventResult]:
        clock = self._clock
        trace.fallback_used = True
        resolved_view = MappingProxyType(copy_object(arguments))
        reply: object = None
        # K16: bounded transport retries, every request counted.
        for attempt in range(1, self._max_attempts + 1):
            request = FallbackRequest(
                definition=entry.definition,
                event=event,
                resolved=resolved_view,
                missing=missing,
                attempt=attempt,
                required=required,
            )
            started = clock.monotonic_ns()
            try:
                reply = yield fallback, request
            except ProviderError as err:
                trace.llm_calls += err.attempts
                trace.usage += err.usage or Usage(requests=err.attempts)
                reason, message, retryable = err.reason, _describe(err), err.retryable
            except TimeoutError as err:
                trace.llm_calls += 1
                trace.usage += _UNKNOWN_USAGE
                reason, message, retryable = Reason.TIMEOUT, _describe(err), True
            except ConnectionError as err:
                trace.llm_calls += 1
                trace.usage += _UNKNOWN_USAGE
                reason, message, retryable = Reason.CONNECTION_ERROR, _describe(err), True
            except Exception as err:
                trace.llm_calls += 1
                trace.usage += _UNKNOWN_USAGE
                reason, message, retryable = Reason.FALLBACK_ERROR, _describe(err), False
            else:
                break
            finally:
                trace.fallback_ns += clock.monotonic_ns() - started
            if not retryable or attempt == self._max_attempts:
                return trace.finish(Status.FALLBACK_FAILED, reason, message, missing=missing)

        if not isinstance(reply, FallbackReply) or not isinstance(reply.raw, str):
            trace.llm_calls += 1
            trace.usage += _UNKNOWN_USAGE
            return trace.finish(
                Status.FALLBACK_FAILED,
                Reason.FALLBACK_BAD_REPLY,
                "a fallback must return a FallbackReply with a str raw, "
                f"not {type(reply).__name__}",
                missing=missing,
            )
        usage = reply.usage if isinstance(reply.usage, Usage) else _UNKNOWN_USAGE
        trace.llm_calls += max(1, usage.requests)
        trace.usage += usage
        trace.fallback_raw = reply.raw

        # Both forms are kept for audit, whatever happens next (K18).
        adapter_form: JSONObject | None = None
        adapter_problem: str | None = None
        if reply.arguments is not None:
            try:
                copied = ensure_json_data(reply.arguments)
            except StrictJSONError as err:
                adapter_problem = f"parsed arguments: {err}"
            else:
                if type(copied) is dict:
                    adapter_form = copied
                    trace.fallback_arguments = adapter_form
                else:
                    adapter_problem = "parsed arguments must be a mapping"

        # K17: the text that came over the wire, parsed strictly.
        try:
            parsed = loads(
                reply.raw, max_bytes=self._max_reply_bytes, max_depth=self._max_reply_depth
            )
        except StrictJSONError as err:
            return trace.finish(
                Status.FALLBACK_FAILED,
                Reason.FALLBACK_INVALID_JSON,
                f"{err.reason}: {err}",
                missing=missing,
            )
        if type(parsed) is not dict:
            return trace.finish(
                Status.FALLBACK_FAILED,
                Reason.FALLBACK_NOT_OBJECT,
                f"the reply must be a JSON object, not {type(parsed).__name__}",
                missing=missing,
            )
        # K18, first half: the adapter's parsed form must itself be JSON data.
        if adapter_problem is not None:
            return trace.finish(
                Status.FALLBACK_FAILED,
                Reason.FALLBACK_ARGUMENTS_NOT_JSON,
                adapter_problem,
                missing=missing,
            )
        # K18, second half: what was parsed must be exactly what came over the wire.
        if adapter_form is not None and not same_json(parsed, adapter_form):
            return trace.finish(
                Status.FALLBACK_FAILED,
                Reason.FALLBACK_MISMATCH,
                "the parsed arguments differ from the raw JSON",
                missing=missing,
            )
        return parsed
