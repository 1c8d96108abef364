"""What ``agent-lab serve`` checks before it listens: a loop to itself, options that do nothing.

A gateway pointed at itself is refused (each request would come back to it
until ``--max-in-flight`` answers 429). Settings that cannot take effect are
warnings, one line each: the gateway still serves, but says why it may seem
to ignore an option.
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from agent_lab.errors import MissingInputError, StoreError, UsageError
from agent_lab.providers.redaction import split_credentials

if TYPE_CHECKING:
    from collections.abc import Iterator

    from agent_lab.gateway import GatewaySettings
    from agent_lab.strict_json import JSONValue

__all__ = [
    "NEWEST_CHARACTERS",
    "NEWEST_ROWS",
    "Offered",
    "check_not_itself",
    "offered_tools",
    "start_warnings",
    "trusted",
]

NEWEST_ROWS = 10_000
"""The store's rows read, at most, for the tools its requests offered: start-up's cost bound."""
NEWEST_CHARACTERS = 32 << 20
"""The store's lines read, at most, in characters (32 Mi of them took 0.2 s)."""
_VERSIONED = re.compile(r"/v\d+[a-z0-9]*$")
"""A base URL's last segment as OpenAI-compatible servers version it: /v1, /v1beta, /v4."""
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})


def _host(name: str) -> str:
    return name.strip("[]").rstrip(".").lower()


def _this_machine(name: str) -> bool:
    """Whether ``name`` is a loopback address or name, or the any-address (0.0.0.0, ::)."""
    host = _host(name)
    if host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def check_not_itself(upstream: str, *, host: str, port: int) -> None:
    """Refuse an upstream that is the gateway's own address (``--host``, ``--port``).

    Raises:
        UsageError: The upstream's host is the listen host, or both are this
            machine's loopback (or any-address), and its port is the listen port.
    """
    where = split_credentials(upstream)[0] or upstream
    parts = urlsplit(where)
    target = parts.port or (443 if parts.scheme == "https" else 80)
    if port == 0 or target != port or parts.hostname is None:
        return
    same = _host(parts.hostname) == _host(host)
    if same or (_this_machine(parts.hostname) and _this_machine(host)):
        raise UsageError(
            f"--upstream {where} is this gateway itself (--host {host} --port {port}): "
            "every request would come back to it; give the URL of your model's server"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Offered:
    """The tools the store's newest requests offered."""

    names: frozenset[str]
    requests: int
    """How many requests were read (the newest, up to ``NEWEST_ROWS`` and ``NEWEST_CHARACTERS``)."""


def offered_tools(
    path: str, *, newest: int = NEWEST_ROWS, budget: int = NEWEST_CHARACTERS
) -> Offered | None:
    """The tools the store's newest requests offered; ``None`` when it holds none.

    The database picks each request's ``tools`` (or legacy ``functions``) out
    of its line, newest first, until ``newest`` rows or ``budget`` characters
    of lines are read: parsing the lines is the cost (10,000 lines of 12 KB
    took 0.8 s). A store that cannot be read this way says nothing (``None``).
    """
    from agent_lab.exchange_stores import open_exchanges  # noqa: PLC0415

    names: set[str] = set()
    seen: set[str] = set()
    read = requests = 0
    try:
        table = open_exchanges(path, create=False)
    except (StoreError, MissingInputError):
        return None
    try:
        for size, tools, functions in table.newest_tools(newest):
            if read >= budget:
                break
            read += size
            requests += 1
            for text, legacy in ((tools, False), (functions, True)):
                if text is not None and text not in seen:  # most requests offer the same
                    seen.add(text)
                    names.update(_names(text, legacy=legacy))
    finally:
        table.close()
    return Offered(names=frozenset(names), requests=requests) if requests else None


def _names(text: str, *, legacy: bool) -> Iterator[str]:
    try:
        tools: JSONValue = json.loads(text)
    except ValueError:  # a string where the tools should be: SQLite gives it unquoted
        return
    for tool in tools if isinstance(tools, list) else ():
        spec = tool if legacy or not isinstance(tool, dict) else tool.get("function")
        name = spec.get("name") if isinstance(spec, dict) else None
        if isinstance(name, str):
            yield name


def trusted(settings: GatewaySettings) -> str | None:
    """What ``enforce`` answers locally, for the start-up line; ``None`` in shadow mode."""
    from agent_lab.gateway import Mode  # noqa: PLC0415

    if settings.mode is not Mode.ENFORCE:
        return None
    listed = ", ".join(settings.enforce)
    if settings.min_agreement is None or settings.db is None:
        return listed or "none"
    earned = f"those earned at >= {settings.min_agreement:g}"
    return f"{listed} and {earned}" if listed else earned


def start_warnings(settings: GatewaySettings) -> list[str]:
    """Why a setting cannot take effect, a line each (the store already opened)."""
    from agent_lab.gateway import Mode  # noqa: PLC0415

    said: list[str] = []
    where = split_credentials(settings.upstream)[0] or settings.upstream
    if not _VERSIONED.search(urlsplit(where).path.rstrip("/")):
        said.append(
            f"--upstream {where} ends in no version such as /v1: OpenAI-compatible servers "
            "usually serve under /v1, and the base_url an openai SDK is given includes it "
            "(an upstream's 404 reaches your clients as it is)"
        )
    enforcing = settings.mode is Mode.ENFORCE
    if settings.enforce and not enforcing:
        said.append(f"--enforce has no effect in {settings.mode} mode (add --mode enforce)")
    if settings.min_agreement is not None and not enforcing:
        said.append(f"--min-agreement has no effect in {settings.mode} mode (add --mode enforce)")
    if settings.min_agreement is not None and settings.db is None:
        said.append("--min-agreement has no effect with --no-store: no store to earn trust from")
    if enforcing and not settings.enforce and settings.min_agreement is None:
        said.append("--mode enforce trusts no tool: give --enforce TOOL or --min-agreement")
    offered = None if settings.db is None or not settings.enforce else offered_tools(settings.db)
    if offered is not None:
        said.extend(
            f"--enforce {name}: none of the store's newest {offered.requests:,} requests offered "
            "this tool (is it spelled as your assistant offers it?)"
            for name in settings.enforce
            if name not in offered.names
        )
    return said
