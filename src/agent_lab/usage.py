"""Usage: what LLM requests cost, in tokens and money. ``None`` means unknown, never zero.

Also each request a provider announces as it goes out (``request_sent``), for
whoever meters it.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from dataclasses import KW_ONLY, dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "MAX_COUNT",
    "ZERO_USAGE",
    "Usage",
    "checked_count",
    "checked_usage",
    "hearing_requests",
    "request_sent",
]


@dataclass(frozen=True, slots=True)
class Usage:
    """What LLM requests cost. ``None`` means unknown, never zero."""

    _: KW_ONLY
    prompt_tokens: int | None = None
    """Tokens sent, or ``None`` when the provider did not say."""
    completion_tokens: int | None = None
    """Tokens generated, or ``None`` when the provider did not say."""
    cost: Decimal | None = None
    """Money spent, or ``None`` when the model cannot be priced."""
    model: str | None = None
    """The model that answered."""
    estimated: bool = False
    """Token counts come from an estimate, not from the provider."""
    requests: int = 1
    """How many requests these figures cover (retries included)."""
    cached_tokens: int | None = None
    """Of ``prompt_tokens``, those the server read from its prompt cache; ``None``
    when it did not say (most servers, and every estimate)."""
    succeeded: int | None = None
    """Of ``requests``, those that got a reply; ``None`` when built means all of them.
    The rest failed (a timeout, a refused request, an error status): ``failed``."""

    def __post_init__(self) -> None:
        """Read an unstated ``succeeded`` as every request."""
        if self.succeeded is None:
            object.__setattr__(self, "succeeded", self.requests)

    @property
    def failed(self) -> int:
        """Requests that got no reply: sent, counted, and paid for in latency."""
        return self.requests - _succeeded(self)

    def as_failed(self) -> Usage:
        """These figures, with every request counted as failed."""
        return replace(self, succeeded=0) if self.succeeded else self

    @classmethod
    def zero(cls) -> Usage:
        """Usage of a dispatch that sent no request: known to be nothing."""
        return ZERO_USAGE

    def __add__(self, other: Usage) -> Usage:
        """Sum two usages; an unknown part makes the sum unknown."""
        if self is ZERO_USAGE:
            return other
        if other.model is None or other.model == self.model:
            model = self.model
        elif self.model is None:
            model = other.model
        else:
            model = f"{self.model}+{other.model}"
        return Usage(
            prompt_tokens=_add_known(self.prompt_tokens, other.prompt_tokens),
            completion_tokens=_add_known(self.completion_tokens, other.completion_tokens),
            cost=None if self.cost is None or other.cost is None else self.cost + other.cost,
            model=model,
            estimated=self.estimated or other.estimated,
            requests=self.requests + other.requests,
            cached_tokens=_add_reported(self.cached_tokens, other.cached_tokens),
            succeeded=_succeeded(self) + _succeeded(other),
        )


def _succeeded(usage: Usage) -> int:
    return usage.requests if usage.succeeded is None else usage.succeeded


def _add_known(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


def _add_reported(a: int | None, b: int | None) -> int | None:
    # A cache count is reported by some servers only: the sum of what was reported.
    return a if b is None else b if a is None else a + b


ZERO_USAGE = Usage(
    prompt_tokens=0,
    completion_tokens=0,
    cost=Decimal(0),
    requests=0,
    cached_tokens=None,
    succeeded=0,
)


MAX_COUNT = 2**63
"""Token and request counts are below this: what a 64-bit signed column stores."""

_NONE = type(None)


def checked_count(value: object) -> int | None:
    """A usage figure as reported, if it is one: an ``int`` (not a ``bool``), 0 <= n < 2**63.

    Anything else (a string, a float, a negative or absurd count) is unknown,
    ``None``: a server's nonsense must neither crash the figures nor pass for zero.
    """
    if type(value) is int and 0 <= value < MAX_COUNT:
        return value
    return None


def checked_usage(usage: object) -> Usage | None:
    """``usage`` with every figure checked (``checked_count``), or ``None`` if it is no ``Usage``.

    A bad token count or cost becomes unknown; a bad request count becomes 1
    (a reply came, so at least one request was sent); a bad model name is
    dropped. Plugin and provider code hands the kernel its usage, so the
    kernel reads it through this.
    """
    if not isinstance(usage, Usage):
        return None
    prompt, completion, cost = usage.prompt_tokens, usage.completion_tokens, usage.cost
    requests, model, estimated = usage.requests, usage.model, usage.estimated
    cached, succeeded = usage.cached_tokens, usage.succeeded
    if (
        type(cached) in (int, _NONE)
        and (cached is None or 0 <= cached < MAX_COUNT)
        and type(prompt) in (int, _NONE)
        and type(completion) in (int, _NONE)
        and type(requests) is int
        and (prompt is None or 0 <= prompt < MAX_COUNT)
        and (completion is None or 0 <= completion < MAX_COUNT)
        and 0 <= requests < MAX_COUNT
        and type(succeeded) is int
        and 0 <= succeeded <= requests
        and (cost is None or (type(cost) is Decimal and cost.is_finite() and cost >= 0))
        and type(model) in (str, _NONE)
        and type(estimated) is bool
    ):
        return usage  # the common case: nothing to repair
    counted = checked_count(requests)
    return Usage(
        prompt_tokens=checked_count(prompt),
        completion_tokens=checked_count(completion),
        cost=cost if type(cost) is Decimal and cost.is_finite() and cost >= 0 else None,
        model=model if type(model) is str else None,
        estimated=estimated if type(estimated) is bool else True,
        requests=1 if counted is None else counted,
        cached_tokens=checked_count(cached),
        # A count of successes beyond the requests, or none at all, is read as "all".
        succeeded=succeeded
        if type(succeeded) is int and counted is not None and 0 <= succeeded <= counted
        else None,
    )


# Observation, not a value any call needs: a call cut short returns nothing to carry its
# count, and asyncio copies the context into the tasks a trial starts.
_HEARING: ContextVar[Callable[[], None] | None] = ContextVar("agent_lab.hearing", default=None)


def request_sent() -> None:
    """Say that one HTTP request goes out now: a provider that retries says it per attempt.

    A call's reply reports every request it made (``Usage.requests``), but a
    call cut short by its caller's timeout never replies; whoever meters the
    provider (the lab's runner) counts the requests it heard of here instead.
    Nothing listens unless ``hearing_requests`` is in force, so a provider may
    always call it; one that sends one request per call need not.
    """
    listener = _HEARING.get()
    if listener is not None:
        listener()


class hearing_requests:  # noqa: N801 - used as a function: ``with hearing_requests(f):``
    """Call ``listener`` on each ``request_sent`` inside the block (and the tasks it starts)."""

    __slots__ = ("_listener", "_token")

    def __init__(self, listener: Callable[[], None]) -> None:
        self._listener = listener
        self._token: Token[Callable[[], None] | None] | None = None

    def __enter__(self) -> None:
        """Start listening."""
        self._token = _HEARING.set(self._listener)

    def __exit__(self, *exc: object) -> None:
        """Stop: the listener before is back."""
        if self._token is not None:
            _HEARING.reset(self._token)
