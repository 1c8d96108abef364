"""EventKernel: the deterministic-first dispatch pipeline (K10-K22) and nothing else.

The pipeline is written once, as a generator that yields each call to plugin
or provider code (resolver, fallback, handler) instead of making it. Two
drivers run it: ``dispatch`` makes the calls synchronously, ``adispatch``
awaits them. So the sync and async paths cannot drift apart, and a fully
synchronous plugin costs no event loop. Between the yields, each stage is a
named function over the dispatch's one ``Trace``: look up (K10, K5), read the
resolution (K11), classify (K12-K14), ask the fallback (K16) and audit its
reply (K17, K18, in ``audit.py``), merge (K19), let a model class judge the
settled arguments (K4, K12), handle (K21).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING, Final, cast

from agent_lab._json_walk import copy_object
from agent_lab.clock import Clock, SystemClock
from agent_lab.errors import ArgumentError, DefinitionError, StrictJSONError, WrongTypeError
from agent_lab.kernel._asking import AskLimits
from agent_lab.kernel._drive import Pipeline, PluginCall, drive_async, drive_sync
from agent_lab.kernel._filling import Gap, checked, fill_gaps, with_declared
from agent_lab.kernel._trace import Trace
from agent_lab.kernel.models import (
    Event,
    EventResult,
    Fallback,
    FallbackReply,
    FallbackRequest,
    Reason,
    Resolution,
    Status,
)
from agent_lab.kernel.validation import (
    CompiledSchema,
    describe_error,
)
from agent_lab.strict_json import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_DEPTH,
    JSONObject,
    JSONValue,
    ensure_json_data,
    escape_pointer_token,
)

if TYPE_CHECKING:
    from collections.abc import Generator
    from concurrent.futures import Executor

    from agent_lab.kernel.registry import EventRegistry, RegisteredEvent

__all__ = ["OWN_FALLBACK", "EventKernel"]


def _to_pointer(name_or_pointer: str) -> str:
    # Resolution.missing takes property names or JSON pointers.
    if name_or_pointer.startswith("/"):
        return name_or_pointer
    return "/" + escape_pointer_token(name_or_pointer)


@dataclass(frozen=True, slots=True)
class _Raised:
    """What plugin code raised, in place of what it should have returned."""

    error: Exception


def _handled(returned: object, arguments: JSONObject, trace: Trace) -> EventResult:
    """K21: success with the handler's output, when it returned JSON data and did not raise."""
    if isinstance(returned, _Raised):
        message = describe_error(returned.error)
        return trace.finish(
            Status.HANDLER_ERROR, Reason.HANDLER_ERROR, message, arguments=arguments
        )
    try:
        output = ensure_json_data(returned)
    except StrictJSONError as err:
        return trace.finish(
            Status.HANDLER_ERROR,
            Reason.HANDLER_OUTPUT_NOT_JSON,
            f"handler output: {err}",
            arguments=arguments,
        )
    return trace.finish(Status.SUCCESS, Reason.COMPLETED, arguments=arguments, output=output)


class _Own(Enum):
    FALLBACK = "the kernel's own fallback"


OWN_FALLBACK: Final = _Own.FALLBACK
"""``dispatch``'s default: the fallback the kernel was built with."""

_MODEL_RESOLVES: Final = Resolution({}, complete=False)
"""What ``dispatch_reply`` reads in place of a resolver: nothing, every property to ask."""


@dataclass(frozen=True, slots=True)
class _Given:
    """A fallback that answers with the one reply a caller handed in (``dispatch_reply``)."""

    reply: FallbackReply

    def __call__(self, request: FallbackRequest) -> FallbackReply:
        return self.reply


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
        offload: Under ``adispatch``, call resolvers and handlers in this
            executor's threads, so that plugin code that blocks cannot stall
            the event loop (and a timeout around ``adispatch`` holds). ``None``
            (the default) calls them in the loop, which costs no thread hop.
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
        offload: Executor | None = None,
    ) -> None:
        """Create a kernel over ``registry``."""
        if max_attempts < 1:
            raise ArgumentError("max_attempts must be at least 1")
        if fallback is not None and not callable(fallback):
            raise WrongTypeError("fallback must be callable")
        self._registry = registry
        self._fallback = fallback
        self._allow_fallback = allow_fallback
        self._max_attempts = max_attempts
        self._clock: Clock = clock if clock is not None else SystemClock()
        self._offload = offload
        self._limits = AskLimits(
            max_attempts=max_attempts, max_bytes=max_reply_bytes, max_depth=max_reply_depth
        )
        # A reply handed in is one reply: nothing to retry, and it costs what it says.
        self._reply_limits = AskLimits(
            max_attempts=1, max_bytes=max_reply_bytes, max_depth=max_reply_depth, min_requests=0
        )

    @property
    def registry(self) -> EventRegistry:
        """The registry this kernel dispatches against."""
        return self._registry

    def dispatch(
        self, event: Event, *, fallback: Fallback | _Own | None = OWN_FALLBACK
    ) -> EventResult:
        """Dispatch one event synchronously.

        ``fallback`` is this dispatch's own (``None``: none), in place of the
        kernel's. Synchronous plugins cost no event loop. At the first call
        that returns an awaitable, the rest of the dispatch runs in one event
        loop (in a helper thread if this thread already runs one); inside
        async code prefer ``adispatch``.
        """
        return drive_sync(self._pipeline(event, self._chosen(fallback)))

    async def adispatch(
        self, event: Event, *, fallback: Fallback | _Own | None = OWN_FALLBACK
    ) -> EventResult:
        """Dispatch one event, awaiting async resolvers, fallbacks and handlers."""
        return await drive_async(
            self._pipeline(event, self._chosen(fallback)), offload=self._offload
        )

    def dispatch_reply(self, event: Event, reply: FallbackReply) -> EventResult:
        """Dispatch a call whose arguments a model already gave (a tool call), synchronously.

        The resolver does not run: ``reply`` stands where a fallback's reply
        would, for every property, and goes through the same strict parse,
        raw/parsed audit (K17, K18), schema and handler (K21). It counts the
        requests its usage says (none for the second call of one reply).
        Parameters only the user can supply are taken from it: the model read
        the user's words, and the reply is its reading of them.
        """
        return drive_sync(self._pipeline(event, _Given(reply), reply_given=True))

    async def adispatch_reply(self, event: Event, reply: FallbackReply) -> EventResult:
        """``dispatch_reply``, awaiting async handlers."""
        return await drive_async(
            self._pipeline(event, _Given(reply), reply_given=True), offload=self._offload
        )

    def _chosen(self, fallback: Fallback | _Own | None) -> Fallback | None:
        if fallback is OWN_FALLBACK:
            return self._fallback
        if fallback is not None and not callable(fallback):
            raise WrongTypeError("fallback must be callable")
        return fallback

    # The pipeline ---------------------------------------------------------------------

    def _pipeline(
        self, event: Event, fallback: Fallback | None, *, reply_given: bool = False
    ) -> Pipeline:
        if not isinstance(event, Event):
            raise WrongTypeError(f"dispatch() takes an Event, not {type(event).__name__}")
        name = event.name
        trace = Trace(name if type(name) is str else repr(name), self._clock)
        found = self._look_up(name, trace)
        if isinstance(found, EventResult):
            return found
        entry, validator = found

        # K11 (a reply handed in stands for every property: nothing is resolved)
        resolver = None if reply_given else entry.definition.resolver
        resolution: object = _MODEL_RESOLVES if reply_given else {}
        if resolver is not None:
            started = trace.clock.monotonic_ns()
            try:
                resolution = yield resolver, event
            except Exception as err:
                resolution = _Raised(err)
            trace.resolve_ns = trace.clock.monotonic_ns() - started
        read = self._read_resolution(resolution, trace)
        if isinstance(read, EventResult):
            return read
        arguments, complete, declared_missing = read

        # K12-K15
        check = checked(validator, arguments, trace, "resolver")
        if isinstance(check, EventResult):
            return check
        missing = with_declared(check.missing, declared_missing, arguments)
        if missing or complete is False:
            # K13-K19: the user is asked, or the fallback, and its reply merged.
            gap = Gap(
                entry=entry,
                validator=validator,
                event=event,
                arguments=arguments,
                found=check.missing,
                missing=missing,
                declared=declared_missing,
                complete=complete,
            )
            filled = yield from self._filled(gap, fallback, reply_given=reply_given, trace=trace)
            if isinstance(filled, EventResult):
                return filled
            arguments = filled

        given: object = None
        if entry.model is not None:
            # Only now are the arguments settled: a validator judges the whole (K4, K12).
            source = "fallback" if trace.fallback_used else "resolver"
            judged = checked(validator, arguments, trace, source, with_model=True)
            if isinstance(judged, EventResult):
                return judged
            given = judged.instance

        # K21
        handler = entry.definition.handler
        output: JSONValue = None
        if handler is not None:
            started = trace.clock.monotonic_ns()
            try:
                # A private copy either way (the instance is parsed from JSON text):
                # the handler cannot change the result.
                if not entry.definition.pass_model:
                    given = MappingProxyType(copy_object(arguments))
                returned = yield cast("PluginCall", (handler, given))
            except Exception as err:
                returned = _Raised(err)
            trace.handler_ns = trace.clock.monotonic_ns() - started
            return _handled(returned, arguments, trace)
        return trace.finish(Status.SUCCESS, Reason.COMPLETED, arguments=arguments, output=output)

    def _filled(
        self, gap: Gap, fallback: Fallback | None, *, reply_given: bool, trace: Trace
    ) -> Generator[PluginCall, object, JSONObject | EventResult]:
        """K13-K19 under this kernel's policy and bounds (``fill_gaps``)."""
        return (
            yield from fill_gaps(
                gap,
                fallback if self._allow_fallback else None,
                self._reply_limits if reply_given else self._limits,
                configured=fallback is not None,
                reply_given=reply_given,
                trace=trace,
            )
        )

    # The stages -----------------------------------------------------------------------

    def _look_up(
        self, name: object, trace: Trace
    ) -> tuple[RegisteredEvent, CompiledSchema] | EventResult:
        """K10: an unknown name; K5, K14: a lazy registry surfaces a broken schema here."""
        entry = self._registry.lookup(name) if type(name) is str else None
        if entry is None:
            return trace.finish(
                Status.UNKNOWN_EVENT, Reason.UNKNOWN_EVENT, f"no event named {trace.event}"
            )
        validator = entry.validator()
        if isinstance(validator, DefinitionError):
            return trace.finish(Status.DEFINITION_ERROR, Reason.SCHEMA_ERROR, str(validator))
        return entry, validator

    @staticmethod
    def _read_resolution(
        resolution: object, trace: Trace
    ) -> tuple[JSONObject, bool | None, tuple[str, ...]] | EventResult:
        """K11: a mapping or a ``Resolution`` of JSON data, or the plugin is broken."""
        if isinstance(resolution, _Raised):
            message = describe_error(resolution.error)
            return trace.finish(Status.DEFINITION_ERROR, Reason.RESOLVER_ERROR, message)
        complete: bool | None = None
        declared_missing: tuple[str, ...] = ()
        if isinstance(resolution, Resolution):
            complete = resolution.complete
            declared_missing = tuple(_to_pointer(item) for item in resolution.missing)
            resolution = resolution.arguments
            notes = trace.noting()
            notes.complete, notes.declared = complete, declared_missing
        if type(resolution) is not dict and not isinstance(resolution, Mapping):
            return trace.finish(
                Status.DEFINITION_ERROR,
                Reason.RESOLVER_OUTPUT_NOT_JSON,
                "a resolver must return a mapping or a Resolution, "
                f"not {type(resolution).__name__}",
            )
        try:
            arguments = cast("JSONObject", ensure_json_data(cast("object", resolution)))
        except StrictJSONError as err:
            return trace.finish(
                Status.DEFINITION_ERROR, Reason.RESOLVER_OUTPUT_NOT_JSON, f"resolver output: {err}"
            )
        trace.resolved = arguments
        return arguments, complete, declared_missing
