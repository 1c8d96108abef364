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
from types import MappingProxyType
from typing import TYPE_CHECKING, cast

from agent_lab._json_walk import copy_object
from agent_lab.application.events._asking import AskLimits, ask_fallback
from agent_lab.application.events._drive import Pipeline, PluginCall, drive_async, drive_sync
from agent_lab.application.events._ledger_notes import fallback_reason
from agent_lab.application.events._trace import Trace
from agent_lab.application.events.merge import merge_arguments
from agent_lab.application.events.models import (
    Event,
    EventResult,
    Fallback,
    Reason,
    Resolution,
    Status,
)
from agent_lab.application.events.user_only import under_any
from agent_lab.application.events.validation import (
    Check,
    CompiledSchema,
    SchemaInfrastructureError,
    describe_error,
)
from agent_lab.clock import Clock, SystemClock
from agent_lab.errors import DefinitionError, StrictJSONError
from agent_lab.strict_json import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_DEPTH,
    JSONObject,
    JSONValue,
    ensure_json_data,
    escape_pointer_token,
    has_pointer,
)

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from agent_lab.application.events.registry import EventRegistry, RegisteredEvent

__all__ = ["EventKernel"]


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
        enforce_user_only: Honour the parameters only the user can supply
            (``events.user_only``): never ask the fallback for one. ``False`` where
            the fallback's reply is the model's reading of the whole message (as
            LLM-always's tool call is), which had the user's words before it.
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
        enforce_user_only: bool = True,
        offload: Executor | None = None,
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
        self._offload = offload
        self._enforce_user_only = enforce_user_only
        self._limits = AskLimits(
            max_attempts=max_attempts, max_bytes=max_reply_bytes, max_depth=max_reply_depth
        )

    @property
    def registry(self) -> EventRegistry:
        """The registry this kernel dispatches against."""
        return self._registry

    def dispatch(self, event: Event) -> EventResult:
        """Dispatch one event synchronously.

        Synchronous plugins cost no event loop. At the first call that
        returns an awaitable, the rest of the dispatch runs in one event loop
        (in a helper thread if this thread already runs one); inside async
        code prefer ``adispatch``.
        """
        return drive_sync(self._pipeline(event))

    async def adispatch(self, event: Event) -> EventResult:
        """Dispatch one event, awaiting async resolvers, fallbacks and handlers."""
        return await drive_async(self._pipeline(event), offload=self._offload)

    # The pipeline ---------------------------------------------------------------------

    def _pipeline(self, event: Event) -> Pipeline:
        if not isinstance(event, Event):
            raise TypeError(f"dispatch() takes an Event, not {type(event).__name__}")
        name = event.name
        trace = Trace(name if type(name) is str else repr(name), self._clock)
        found = self._look_up(name, trace)
        if isinstance(found, EventResult):
            return found
        entry, validator = found

        # K11
        resolver = entry.definition.resolver
        resolution: object = {}
        if resolver is not None:
            started = trace.clock.monotonic_ns()
            try:
                resolution = yield resolver, event
            except Exception as err:
                trace.resolve_ns = trace.clock.monotonic_ns() - started
                return trace.finish(
                    Status.DEFINITION_ERROR, Reason.RESOLVER_ERROR, describe_error(err)
                )
            trace.resolve_ns = trace.clock.monotonic_ns() - started
        read = self._read_resolution(resolution, trace)
        if isinstance(read, EventResult):
            return read
        arguments, complete, declared_missing = read

        # K12-K15
        check = self._check(validator, arguments, trace, "resolver")
        if isinstance(check, EventResult):
            return check
        missing = _with_declared(check.missing, declared_missing, arguments)
        if missing or complete is False:
            notes = trace.noting()
            notes.missing = missing
            notes.reason = fallback_reason(check.missing, declared_missing, complete=complete)
            user_only = entry.user_only if self._enforce_user_only else ()
            if user_only:
                notes.user_only = user_only
                told = tuple(p for p in missing if under_any(p, user_only))
                if told:
                    return self._ask_user(missing, told, trace)
            fallback = self._fallback
            if fallback is None or not self._allow_fallback:
                return self._without_fallback(missing, trace)
            wanted = missing
            if complete is False:
                # The resolver suspects more than the schema demands: ask for
                # every absent property, demanding only the missing ones.
                extra = self._absent_properties(entry, arguments)
                wanted = missing + tuple(
                    p for p in extra if p not in missing and not under_any(p, user_only)
                )
            supplied = yield from ask_fallback(
                fallback,
                self._limits,
                entry=entry,
                event=event,
                arguments=arguments,
                missing=wanted,
                required=missing,
                trace=trace,
            )
            if isinstance(supplied, EventResult):
                return supplied
            merged = self._merge(
                validator, arguments, supplied, asked=wanted, declared=declared_missing, trace=trace
            )
            if isinstance(merged, EventResult):
                return merged
            arguments = merged

        given: object = None
        if entry.model is not None:
            # Only now are the arguments settled: a validator judges the whole (K4, K12).
            source = "fallback" if trace.fallback_used else "resolver"
            judged = self._check(validator, arguments, trace, source, with_model=True)
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
                trace.handler_ns = trace.clock.monotonic_ns() - started
                return trace.finish(
                    Status.HANDLER_ERROR,
                    Reason.HANDLER_ERROR,
                    describe_error(err),
                    arguments=arguments,
                )
            trace.handler_ns = trace.clock.monotonic_ns() - started
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

    def _check(
        self,
        validator: CompiledSchema,
        arguments: JSONObject,
        trace: Trace,
        source: str,
        *,
        with_model: bool = False,
    ) -> Check | EventResult:
        """K12, K14: anything invalid ends the dispatch; engine failures are the plugin's."""
        started = self._clock.monotonic_ns()
        try:
            check = validator.check(arguments, source=source, with_model=with_model)
        except SchemaInfrastructureError as err:
            return trace.finish(Status.DEFINITION_ERROR, Reason.VALIDATOR_ERROR, str(err))
        finally:
            trace.validate_ns += self._clock.monotonic_ns() - started
        if not check.invalid:
            return check
        # Resolved values are authoritative: an LLM is never asked to repair them.
        reason = Reason.INVALID_ARGUMENTS if source == "resolver" else Reason.INVALID_AFTER_FALLBACK
        return trace.finish(
            Status.INVALID_ARGUMENTS,
            reason,
            check.invalid[0].message,
            errors=check.invalid,
            missing=check.missing,
        )

    @staticmethod
    def _ask_user(missing: tuple[str, ...], told: tuple[str, ...], trace: Trace) -> EventResult:
        """Only the user can supply some of what is missing: ask them, never a model."""
        trace.noting().skipped = Reason.USER_ONLY_MISSING
        return trace.finish(
            Status.MISSING_INFORMATION,
            Reason.USER_ONLY_MISSING,
            "only the user can say " + ", ".join(told) + "; missing: " + ", ".join(missing),
            missing=missing,
        )

    def _without_fallback(self, missing: tuple[str, ...], trace: Trace) -> EventResult:
        """K15: missing information is reported, not filled."""
        reason = Reason.NO_FALLBACK if self._fallback is None else Reason.FALLBACK_DISABLED
        trace.noting().skipped = reason
        return trace.finish(
            Status.MISSING_INFORMATION,
            reason,
            "missing: " + ", ".join(missing) if missing else "the resolver was incomplete",
            missing=missing,
        )

    @staticmethod
    def _absent_properties(entry: RegisteredEvent, arguments: JSONObject) -> tuple[str, ...]:
        # Resolution(complete=False) named nothing: ask for every declared property not yet set.
        properties = entry.schema.get("properties")
        if not isinstance(properties, Mapping):
            return ()
        names = cast("Mapping[str, object]", properties)
        return tuple("/" + escape_pointer_token(key) for key in names if key not in arguments)

    def _merge(
        self,
        validator: CompiledSchema,
        arguments: JSONObject,
        supplied: JSONObject,
        *,
        asked: tuple[str, ...],
        declared: tuple[str, ...],
        trace: Trace,
    ) -> JSONObject | EventResult:
        """K19: resolved values win, unasked-for ones are dropped; the result is validated again."""
        merged, trace.conflicts, trace.unrequested = merge_arguments(arguments, supplied, asked)
        recheck = self._check(validator, merged, trace, "fallback")
        if isinstance(recheck, EventResult):
            return recheck
        still_missing = _with_declared(recheck.missing, declared, merged)
        if still_missing:
            return trace.finish(
                Status.MISSING_INFORMATION,
                Reason.MISSING_AFTER_FALLBACK,
                "still missing after the fallback: " + ", ".join(still_missing),
                missing=still_missing,
            )
        return merged
