"""A client's request headers: which the upstream gets, and which are the gateway's own to read.

The upstream gets none of a hop (nor those a ``Connection`` header names),
none that overrides a method or a path, no underscore spelling, and none of
the gateway's own (``x-agent-lab-*``) but the hops the request passed
(``x-agent-lab-via``). Of the gateway's own, ``x-agent-lab-reference-date``
is the date the request's relative dates are read against.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from agent_lab.gateway.admission import VIA_HEADER
from agent_lab.gateway.upstream import HOP_BY_HOP

if TYPE_CHECKING:
    from collections.abc import Callable

    from starlette.datastructures import Headers

__all__ = [
    "METHOD_OVERRIDES",
    "REFERENCE_HEADER",
    "Reference",
    "reference_date",
    "upstream_headers",
]

METHOD_OVERRIDES = frozenset(
    {
        "x-http-method-override",
        "x-http-method",
        "x-method-override",
        "x-original-method",
        "x-original-url",
        "x-rewrite-url",
    }
)
"""Headers some servers read as the method or the path: a 405 or a 400 here must not become
another request there."""

REFERENCE_HEADER = "x-agent-lab-reference-date"
"""A request's own reference date (ISO 8601): what its relative dates are read against, in
place of ``--reference-date`` or the arrival time. The gateway's own: never forwarded."""


def upstream_headers(
    headers: Headers,
    *,
    keep_authorization: bool,
    upstream_key: str | None,
    via: Callable[[str | None], str],
) -> dict[str, str]:
    """The client's headers the upstream gets, with the upstream's key when it has one.

    ``keep_authorization`` is false when the gateway has a key of its own (the
    client's is the gateway's, not the upstream's); ``via`` adds this run to the
    hops the request passed.
    """
    named = {
        name.strip().lower() for value in headers.getlist("connection") for name in value.split(",")
    }
    kept = {
        name: value
        for name, value in headers.items()
        if name not in HOP_BY_HOP
        and name not in named
        and name not in METHOD_OVERRIDES
        and "_" not in name  # a WSGI server reads x_a_b as x-a-b: no override that way
        and not (name.startswith("x-agent-lab-") and name != VIA_HEADER)
    }
    if not keep_authorization:
        kept.pop("authorization", None)
    if upstream_key is not None:
        kept["authorization"] = f"Bearer {upstream_key}"
    kept[VIA_HEADER] = via(kept.get(VIA_HEADER))
    return kept


@dataclass(frozen=True, slots=True)
class Reference:
    """What a request says of its reference date: a date, none, or a header that is no date."""

    date: str | None
    valid: bool = True


def reference_date(headers: Headers, default: str | None) -> Reference:
    """The request's ``x-agent-lab-reference-date``, else ``default`` (``--reference-date``).

    A header that is no ISO 8601 date or time is not valid: the client's to fix.
    """
    given = headers.get(REFERENCE_HEADER)
    if given is None:
        return Reference(default)
    try:
        datetime.fromisoformat(given)
    except ValueError:
        return Reference(None, valid=False)
    return Reference(given)
