"""The kernel's values: events, definitions, resolutions, fallback messages, results, statuses."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from enum import StrEnum
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Never, Protocol, Self, TypeAlias, runtime_checkable

from agent_lab.errors import WrongTypeError
from agent_lab.kernel._ledger_notes import DispatchNotes, build_ledger
from agent_lab.kernel.ledger import GIVEN, DecisionLedger, Timings
from agent_lab.strict_json import JSONObject, JSONValue
from agent_lab.usage import ZERO_USAGE as _ZERO_USAGE
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from agent_lab.kernel.reply import Failed, Reply

__all__ = [
    "Conflict",
    "Event",
    "EventDefinition",
    "EventResult",
    "Failure",
    "Fallback",
    "FallbackReply",
    "FallbackRequest",
    "Handler",
    "ModelHandler",
    "Reason",
    "Resolution",
    "Resolver",
    "SchemaModel",
    "Status",
    "Timings",
    "Unrequested",
    "Usage",
    "ValidatingModel",
    "ValidationIssue",
]


class Status(StrEnum):
    """The outcome of one dispatch (see the contract's status table)."""

    SUCCESS = "success"
    """Arguments complete and valid; the handler ran (or there is none)."""
    INVALID_ARGUMENTS = "invalid_arguments"
    """The arguments are wrong: type, enum, range, extra property..."""
    MISSING_INFORMATION = "missing_information"
    """Required information is missing and no fallback could supply it."""
    FALLBACK_FAILED = "fallback_failed"
    """The LLM fallback was called and its reply is unusable."""
    DEFINITION_ERROR = "definition_error"
    """The plugin is broken, not the user."""
    UNKNOWN_EVENT = "unknown_event"
    """No definition by that name."""
    HANDLER_ERROR = "handler_error"
    """The handler raised or returned something that is not JSON data."""


class Reason(StrEnum):
    """Machine-readable reasons the kernel itself gives on ``EventResult.reason``.

    A fallback that raises ``ProviderError`` supplies its own reason (for
    example ``rate_limited``), so ``EventResult.reason`` is typed ``str``.
    """

    COMPLETED = "completed"
    UNKNOWN_EVENT = "unknown_event"
    SCHEMA_ERROR = "schema_error"
    VALIDATOR_ERROR = "validator_error"
    RESOLVER_ERROR = "resolver_error"
    RESOLVER_OUTPUT_NOT_JSON = "resolver_output_not_json"
    INVALID_ARGUMENTS = "invalid_arguments"
    INVALID_AFTER_FALLBACK = "invalid_after_fallback"
    NO_FALLBACK = "no_fallback"
    FALLBACK_DISABLED = "fallback_disabled"
    MISSING_AFTER_FALLBACK = "missing_after_fallback"
    USER_ONLY_MISSING = "user_only_missing"
    """A parameter only the user can supply is missing: the user is asked, not a model."""
    TIMEOUT = "timeout"
    CONNECTION_ERROR = "connection_error"
    FALLBACK_ERROR = "fallback_error"
    FALLBACK_BAD_REPLY = "fallback_bad_reply"
    FALLBACK_INVALID_JSON = "fallback_invalid_json"
    FALLBACK_NOT_OBJECT = "fallback_not_object"
    FALLBACK_ARGUMENTS_NOT_JSON = "fallback_arguments_not_json"
    FALLBACK_MISMATCH = "fallback_mismatch"
    HANDLER_ERROR = "handler_error"
    HANDLER_OUTPUT_NOT_JSON = "handler_output_not_json"


@runtime_checkable
class SchemaModel(Protocol):
    """A class that can describe its instances as JSON Schema, such as a Pydantic model."""

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]:
        """Return the JSON Schema of the model."""
        ...


@runtime_checkable
class ValidatingModel(SchemaModel, Protocol):
    """A ``SchemaModel`` that also validates JSON text into an instance, such as a Pydantic model.

    Its validation runs after the schema's (K4, K12). It reports a rejection by
    raising a ``ValueError`` with an ``errors()`` list of ``{"loc", "msg",
    "type"}`` items, as Pydantic's ``ValidationError`` does.
    """

    @classmethod
    def model_validate_json(cls, json_data: str, *, strict: bool | None = None) -> Any:
        """Return the instance the JSON text describes."""
        ...


@dataclass(frozen=True, slots=True)
class Event:
    """One incoming event.

    Example:
        ``Event("set_timer", text="set a timer for 10 minutes")``
    """

    name: str
    """The event's name, matched against the registry."""
    _: KW_ONLY
    text: str = ""
    """The user's words; may be empty (a button or webhook carries none)."""
    payload: Mapping[str, JSONValue] = field(default_factory=lambda: MappingProxyType({}))
    """Structured data that came with the event."""
    context: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    """Free for plugins (conversation state, user locale, a clock...)."""


@dataclass(frozen=True, slots=True)
class Resolution:
    """What a resolver found, when a plain mapping cannot say enough (K13).

    Attributes are normalised at construction: ``missing`` becomes a tuple.
    """

    arguments: Mapping[str, object]
    """The arguments the resolver could read; must be JSON data."""
    _: KW_ONLY
    complete: bool | None = None
    """``False``: ask the fallback even if the schema requires nothing more.
    ``True`` or ``None``: let the schema decide (``True`` never hides a
    missing required property)."""
    missing: Sequence[str] = ()
    """Property names or JSON pointers the resolver knows are missing."""

    def __post_init__(self) -> None:
        """Check and normalise ``missing``."""
        missing: object = self.missing
        if isinstance(missing, str) or not isinstance(missing, Sequence):
            raise WrongTypeError("Resolution.missing must be a sequence of names or JSON pointers")
        items: Sequence[object] = missing
        if not all(type(item) is str for item in items):
            raise WrongTypeError("Resolution.missing must hold strings")
        object.__setattr__(self, "missing", tuple(items))


Resolver: TypeAlias = Callable[
    [Event], "Mapping[str, object] | Resolution | Awaitable[Mapping[str, object] | Resolution]"
]
"""``resolver(event)``: reads arguments from the event with plain code."""

Handler: TypeAlias = Callable[[Mapping[str, JSONValue]], object]
"""``handler(arguments)``: does the work; returns JSON data (or an awaitable of it)."""

ModelHandler: TypeAlias = Callable[[Never], object]
"""``handler(instance)`` with ``pass_model=True``: gets the validated model instance.
Typed as taking ``Never`` so that a handler annotated with its own model class fits."""


@dataclass(frozen=True, slots=True)
class EventDefinition:
    """One event a plugin offers.

    Example:
        ``EventDefinition("set_timer", parameters={"type": "object", ...}, resolver=read_timer)``
    """

    name: str
    """Unique name in its registry; the tool name an LLM sees."""
    _: KW_ONLY
    parameters: Mapping[str, Any] | type[SchemaModel]
    """JSON Schema of the arguments, or a Pydantic model class (converted once, K4;
    its own validators then run after the schema's). On a registered definition
    this is the schema, as a read-only deep copy (K1)."""
    description: str = ""
    """What the event does, for humans and for LLM tool specs."""
    resolver: Resolver | None = None
    """Deterministic argument reader; ``None`` means empty arguments."""
    handler: Handler | ModelHandler | None = None
    """Runs on complete, valid arguments; ``None`` means nothing to run."""
    pass_model: bool = False
    """Give the handler the validated model instance instead of the arguments
    mapping; ``parameters`` must then be a model class with ``model_validate_json``."""
    user_only: tuple[str, ...] = ()
    """Parameters only the user can supply (names or JSON pointers), besides those the
    schema marks ``"x-user-only": true``: the fallback is never asked for them, and a
    dispatch that misses one ends ``missing_information`` naming it."""
    reply: Reply | None = None
    """How the result is said with no model: a template or a function (``events.reply.say``)."""
    failed: Failed | None = None
    """Tells a failed result, for the model to say, not ``reply`` (``events.reply.has_failed``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FallbackRequest:
    """What the kernel asks an LLM fallback for: only the missing fields."""

    definition: EventDefinition
    """The registered definition (read-only schema)."""
    event: Event
    """The event being dispatched."""
    resolved: Mapping[str, JSONValue]
    """Arguments resolved so far: fixed facts the model must not change."""
    missing: tuple[str, ...]
    """JSON pointers of what is missing, e.g. ``("/duration_seconds",)``."""
    attempt: int = 1
    """1 for the first request, higher for transport retries (K16)."""
    required: tuple[str, ...] | None = None
    """Which of ``missing`` the reply must hold; the others only if the user
    stated them (``Resolution(complete=False)`` asks for every absent
    property, and optional ones may stay absent). ``None``: all of them."""

    @property
    def must_fill(self) -> tuple[str, ...]:
        """The pointers the reply must hold."""
        return self.missing if self.required is None else self.required


@dataclass(frozen=True, slots=True, kw_only=True)
class Failure:
    """Why a request got no usable reply: one value from the provider to the result (K16).

    A provider's reply carries it, a fallback hands it back in its
    ``FallbackReply``, and the kernel ends the dispatch ``FALLBACK_FAILED``
    with its ``reason`` (after retrying it, when it is ``retryable``): a
    failure stays a value all the way, never an exception.
    """

    reason: str
    """A machine-readable code: ``timeout``, ``connection_error``, ``rate_limited``,
    ``http_5xx``... (``FailureReason`` in the model port)."""
    message: str
    """What went wrong, in words (redacted by whoever made it)."""
    retryable: bool = False
    """Whether sending the request again may succeed (a provider has used its own retries)."""


@dataclass(frozen=True, slots=True)
class FallbackReply:
    """What a fallback returns: the model's text exactly as it came, and the adapter's parse.

    Or, with ``failure`` set, why there is none: the kernel treats it as it
    treats a raised ``ProviderError`` (K16), so a fallback need not raise.
    """

    raw: str
    """The JSON text the model produced, untouched (``""`` with a ``failure``)."""
    _: KW_ONLY
    arguments: Mapping[str, object] | None = None
    """The adapter's parsed form, audited against ``raw`` (K18); ``None`` if it has none."""
    usage: Usage | None = None
    """Tokens, cost and model of the request(s); ``None`` when unknown."""
    failure: Failure | None = None
    """Why the request got no usable reply; ``None`` when it did."""
    note: object = None
    """Whatever the fallback wants its caller to have back (which request it sent, what
    else the model said): kept on the result as ``fallback_note``; the kernel never reads it."""

    @classmethod
    def failed(cls, failure: Failure, *, usage: Usage | None = None, note: object = None) -> Self:
        """A reply that says why there is none."""
        return cls("", usage=usage, failure=failure, note=note)


Fallback: TypeAlias = Callable[[FallbackRequest], "FallbackReply | Awaitable[FallbackReply]"]
"""``fallback(request)``: asks an LLM for the missing fields."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ValidationIssue:
    """One schema violation, located in the arguments."""

    pointer: str
    """JSON pointer into the arguments ("" for the whole object)."""
    keyword: str
    """The schema keyword that failed, e.g. ``type`` or ``required``; for a model's
    own validation, its error type, e.g. ``value_error``."""
    message: str
    """A human-readable explanation."""
    source: str = "resolver"
    """``resolver`` for resolved arguments, ``fallback`` after the merge (K19)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Conflict:
    """A fallback value that contradicted a resolved one and was dropped (K19)."""

    pointer: str
    """Where, in the arguments."""
    resolved: JSONValue
    """The value the resolver gave, which was kept."""
    fallback: JSONValue
    """The value the fallback gave, which was dropped."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Unrequested:
    """A fallback value for a property the fallback was not asked for, dropped (K19)."""

    pointer: str
    """Where, in the arguments."""
    value: JSONValue
    """The value the fallback gave, which was dropped."""


# EventResult is built on every dispatch: filling its __dict__ in one call (1.02 us) beats a
# frozen dataclass's 16 object.__setattr__ calls (1.66 us), and assignment still raises.
_NO_TIMINGS = Timings()


@dataclass(frozen=True, kw_only=True, init=False)
class EventResult:
    """The outcome of one dispatch (K20). ``dispatch`` returns one for every input."""

    status: Status
    """What happened, as a ``Status``."""
    reason: str
    """Machine-readable cause: a ``Reason`` value or a provider's reason code."""
    event: str
    """The dispatched event's name."""
    message: str = ""
    """A human-readable explanation of ``reason``."""
    arguments: JSONObject | None = None
    """The final arguments, or ``None`` when none were settled."""
    resolved: JSONObject | None = None
    """What the resolver produced (before any fallback)."""
    fallback_raw: str | None = None
    """The fallback's raw text, when there was a reply."""
    fallback_arguments: JSONObject | None = None
    """The fallback adapter's parsed form, when it gave one."""
    conflicts: tuple[Conflict, ...] = ()
    """Fallback values dropped because they contradicted resolved ones."""
    unrequested: tuple[Unrequested, ...] = ()
    """Fallback values dropped because the fallback was not asked for them."""
    errors: tuple[ValidationIssue, ...] = ()
    """Schema violations (status ``INVALID_ARGUMENTS``)."""
    missing: tuple[str, ...] = ()
    """JSON pointers of missing information."""
    llm_calls: int = 0
    """Requests sent to an LLM, retries included."""
    fallback_used: bool = False
    """Whether the fallback was called at all."""
    usage: Usage = _ZERO_USAGE
    """Tokens and cost of those requests."""
    timings: Timings = _NO_TIMINGS
    """Time per stage."""
    output: JSONValue = None
    """The handler's output (JSON data)."""
    fallback_note: object = None
    """What the fallback handed back beside its reply (``FallbackReply.note``), if anything."""
    _notes: DispatchNotes | None = field(default=None, repr=False, compare=False)
    """The kernel's notes for the ledger (private: read ``ledger``)."""

    def __init__(
        self,
        *,
        status: Status,
        reason: str,
        event: str,
        message: str = "",
        arguments: JSONObject | None = None,
        resolved: JSONObject | None = None,
        fallback_raw: str | None = None,
        fallback_arguments: JSONObject | None = None,
        conflicts: tuple[Conflict, ...] = (),
        unrequested: tuple[Unrequested, ...] = (),
        errors: tuple[ValidationIssue, ...] = (),
        missing: tuple[str, ...] = (),
        llm_calls: int = 0,
        fallback_used: bool = False,
        usage: Usage = _ZERO_USAGE,
        timings: Timings = _NO_TIMINGS,
        output: JSONValue = None,
        fallback_note: object = None,
        _notes: DispatchNotes | None = None,
    ) -> None:
        """Record the outcome of one dispatch."""
        self.__dict__.update(
            status=status,
            reason=reason,
            event=event,
            message=message,
            arguments=arguments,
            resolved=resolved,
            fallback_raw=fallback_raw,
            fallback_arguments=fallback_arguments,
            conflicts=conflicts,
            unrequested=unrequested,
            errors=errors,
            missing=missing,
            llm_calls=llm_calls,
            fallback_used=fallback_used,
            usage=usage,
            timings=timings,
            output=output,
            fallback_note=fallback_note,
            _notes=_notes,
        )

    @cached_property
    def ledger(self) -> DecisionLedger:
        """Every decision of this dispatch and why the LLM was (or was not) called.

        Built on first read, from the result and the kernel's notes, so a
        dispatch nobody inspects pays nothing for it.
        """
        return build_ledger(
            event=self.event,
            status=str(self.status),
            reason=str(self.reason),
            route=GIVEN,
            resolved=self.resolved,
            arguments=self.arguments,
            missing=self.missing,
            invalid=tuple(issue.pointer for issue in self.errors),
            fallback_used=self.fallback_used,
            fallback_raw=self.fallback_raw,
            fallback_arguments=self.fallback_arguments,
            conflicts=tuple(conflict.pointer for conflict in self.conflicts),
            unrequested=tuple(item.pointer for item in self.unrequested),
            timings=self.timings,
            notes=self._notes,
        )

    @property
    def ok(self) -> bool:
        """Whether the status is ``SUCCESS``."""
        return self.status is Status.SUCCESS
