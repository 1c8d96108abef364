"""Test doubles shipped in the package: scripted and function-built providers, a fake clock.

A test of your own plugin or agent needs no network and no sleeping:
``ScriptedProvider`` replies from a script and fails loudly when it runs
out, ``FunctionProvider`` builds each reply from the request, and
``FakeClock`` makes every timing exact.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from agent_lab.clock import FakeClock
from agent_lab.errors import ScriptExhaustedError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable

    from agent_lab.agents.port import ProviderReply, ProviderRequest

__all__ = ["FakeClock", "FunctionProvider", "ScriptExhaustedError", "ScriptedProvider"]


class ScriptedProvider:
    """Replies from a script, in order; fails loudly when the script runs out.

    Items may be ``ProviderReply`` values or exceptions (raised, to test code
    that must survive a misbehaving provider). Every request is recorded in
    ``requests``.
    """

    def __init__(
        self,
        replies: Iterable[ProviderReply | BaseException],
        *,
        name: str = "scripted",
        model: str | None = None,
    ) -> None:
        self.name = name
        self.model = model
        self.script = list(replies)
        self.requests: list[ProviderRequest] = []

    async def aclose(self) -> None:
        """Nothing to release."""

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        """Return the next scripted reply.

        Raises:
            ScriptExhaustedError: No reply is left.
        """
        self.requests.append(request)
        if not self.script:
            raise ScriptExhaustedError(
                f"{self.name}: request {len(self.requests)} has no scripted reply "
                f"(fingerprint {request.fingerprint()[:12]})"
            )
        item = self.script.pop(0)
        if isinstance(item, BaseException):
            raise item
        return item


class FunctionProvider:
    """Builds each reply from the request with a (sync or async) function; records requests."""

    def __init__(
        self,
        function: Callable[[ProviderRequest], ProviderReply | Awaitable[ProviderReply]],
        *,
        name: str = "function",
        model: str | None = None,
    ) -> None:
        self.name = name
        self.model = model
        self.function = function
        self.requests: list[ProviderRequest] = []

    async def aclose(self) -> None:
        """Nothing to release."""

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        """Return ``function(request)``, awaited if need be."""
        self.requests.append(request)
        reply = self.function(request)
        if inspect.isawaitable(reply):
            reply = await reply
        return reply
