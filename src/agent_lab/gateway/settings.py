"""What a gateway is told at start-up: the upstream, the mode, the limits, the trust."""

from __future__ import annotations

import dataclasses
import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Literal, cast

from agent_lab.errors import ArgumentError

if TYPE_CHECKING:
    from agent_lab.agents.turn import Reading

__all__ = ["GatewaySettings", "Mode"]


class Mode(StrEnum):
    """What the gateway does with a request plain code can answer."""

    SHADOW = "shadow"
    """Forward every request; compute the decision beside it and store both (the default)."""
    ENFORCE = "enforce"
    """Answer a covered request for a trusted tool locally; forward the rest."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GatewaySettings:
    """Everything ``agent-lab serve`` was told; the same in every worker process.

    Passed to workers as JSON (``to_json``/``from_json``): it names environment
    variables that hold keys, never a key itself.
    """

    upstream: str
    """The base URL an OpenAI SDK would be given."""
    mode: Mode = Mode.SHADOW
    db: str | None = "gateway.sqlite"
    """The store's file; ``None`` stores nothing."""
    plugins: str | None = None
    """A plugin reference (``MODULE:ATTRIBUTE`` or a folder): your resolvers for your tools."""
    rules: str | None = None
    """A rules file ``agent-lab learn`` wrote: the schema-driven resolver applies it."""
    read: Reading = "last"
    reference_date: str | None = None
    """The date relative dates ("tomorrow", "friday") are read against, ISO 8601; ``None``: each
    request's arrival time. A request's ``x-agent-lab-reference-date`` header overrides either."""
    ask: bool = True
    """In ``enforce``, answer in words what plain code knows with no model, as the wrappers do: a
    question for a missing value only the user can supply, a refusal of a value the tool's schema
    forbids. ``False`` (``--no-ask``): those requests are forwarded."""
    enforce: tuple[str, ...] = ()
    """Tools trusted to be answered locally in ``enforce`` mode, whatever the store says."""
    min_agreement: float | None = None
    """Tools also earn trust when their shadow agreement's lower bound in the store clears it."""
    trust_refresh_seconds: float = 60.0
    """How often earned trust is read again from the store."""
    api_key_env: str | None = None
    """The variable holding the key clients must send; ``None``: the gateway asks for none."""
    upstream_key_env: str | None = None
    """The variable holding the upstream's key, sent in place of the gateway's own."""
    max_body_bytes: int = 8 << 20
    max_upstream_body_bytes: int = 64 << 20
    """The largest non-streamed upstream answer read; a larger one is a 502 (a streamed one
    passes through, and the store keeps no more of it than this)."""
    upstream_timeout: float = 600.0
    """Seconds a forwarded request may take, whole (the openai SDK's own default)."""
    connect_timeout: float = 10.0
    max_in_flight: int = 512
    """Requests served at once by one process; more are refused with 429 and ``Retry-After``."""
    store_queue: int = 10_000
    """Finished requests waiting to be stored; past it one is dropped (and counted), never waited
    for."""
    graceful_seconds: float = 30.0
    """On shutdown, how long requests in flight may take to finish."""
    body_timeout: float = 10.0
    """Seconds a client has to send a request's whole body; later, 408 and the connection
    closed (a body that stops short of its ``Content-Length`` holds nothing longer)."""
    pass_cors: bool = False
    """Relay the upstream's ``access-control-*`` headers (a browser client of the upstream's
    own CORS policy); by default the gateway drops them, as it drops cookies."""
    instance: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    """This run's id, sent upstream in ``x-agent-lab-via``: a request that comes back is a loop.
    The same in every worker (it travels in ``to_json``)."""

    def __post_init__(self) -> None:
        """Refuse settings no gateway can run with (``ArgumentError``)."""
        if not self.upstream.startswith(("http://", "https://")):
            raise ArgumentError(f"the upstream must be an http(s) URL, not {self.upstream!r}")
        if self.min_agreement is not None and not 0.0 <= self.min_agreement <= 1.0:
            raise ArgumentError("min_agreement must be between 0 and 1")
        for name in ("max_body_bytes", "max_upstream_body_bytes", "max_in_flight", "store_queue"):
            if getattr(self, name) < 1:
                raise ArgumentError(f"{name} must be at least 1")
        if self.reference_date is not None and not _iso(self.reference_date):
            raise ArgumentError(
                f"reference_date must be an ISO 8601 date or time, not {self.reference_date!r}"
            )
        for name in (
            "upstream_timeout",
            "connect_timeout",
            "trust_refresh_seconds",
            "body_timeout",
        ):
            if not getattr(self, name) > 0:
                raise ArgumentError(f"{name} must be positive")

    def to_json(self) -> str:
        """The settings as JSON text, for the worker processes."""
        fields = dataclasses.asdict(self)
        fields["enforce"] = list(self.enforce)
        return json.dumps(fields)

    @classmethod
    def from_json(cls, text: str) -> GatewaySettings:
        """The settings ``to_json`` wrote."""
        fields = cast("dict[str, object]", json.loads(text))
        fields["mode"] = Mode(cast("str", fields["mode"]))
        fields["enforce"] = tuple(cast("list[str]", fields["enforce"]))
        fields["read"] = cast("Literal['last', 'user_turns']", fields["read"])
        return cls(**fields)  # type: ignore[arg-type]


def _iso(text: str) -> bool:
    """Whether ``text`` is an ISO 8601 date or date and time (as ``datetime.fromisoformat``)."""
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True
