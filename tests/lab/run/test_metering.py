"""The runner's meter: each request a trial sent, a call cut short included, counted once."""

from __future__ import annotations

import asyncio

from agent_lab.agents.port import Message, ProviderReply, ProviderRequest
from agent_lab.lab.run.metering import MeteredProvider, RequestCount, counting
from agent_lab.usage import Usage, request_sent


class Retrying:
    """A provider whose calls make their requests one at a time, each announced, each
    answered when the test says so (``go("a", 0)``): no sleeping, no race."""

    name = "retrying"
    model = "m"

    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}

    def _event(self, name: str) -> asyncio.Event:
        return self._events.setdefault(name, asyncio.Event())

    def go(self, call: str, attempt: int) -> None:
        self._event(f"go {call} {attempt}").set()

    async def sent(self, call: str, attempt: int) -> None:
        await self._event(f"sent {call} {attempt}").wait()

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        key, attempts = str(request.context["call"]), int(str(request.context["attempts"]))
        for attempt in range(attempts):
            request_sent()
            self._event(f"sent {key} {attempt}").set()
            await self._event(f"go {key} {attempt}").wait()
        return ProviderReply(text="{}", usage=Usage(requests=attempts, model="m"))

    async def aclose(self) -> None:
        return None


def call(metered: MeteredProvider, name: str, attempts: int) -> asyncio.Future[ProviderReply]:
    request = ProviderRequest(
        purpose="fallback",
        messages=(Message(role="user", content="hi"),),
        context={"call": name, "attempts": attempts},
    )
    return asyncio.ensure_future(metered.complete(request))


def test_a_call_that_returns_while_another_has_heard_as_much_is_told_apart() -> None:
    """Open calls were found by equality: B returning took A's place, and A's return raised."""

    async def trial() -> RequestCount:
        provider = Retrying()
        metered = MeteredProvider(provider)
        with counting() as sent:
            a, b = call(metered, "a", 2), call(metered, "b", 1)
            await asyncio.gather(provider.sent("a", 0), provider.sent("b", 0))
            provider.go("b", 0)
            await b  # both had heard one request
            provider.go("a", 0)
            provider.go("a", 1)
            await a
            return sent

    sent = asyncio.run(trial())
    assert (sent.requests, sent.complete) == (3, True)


def test_a_call_cut_short_counts_every_request_it_said_it_sent() -> None:
    async def trial() -> RequestCount:
        provider = Retrying()
        metered = MeteredProvider(provider)
        with counting() as sent:
            c, d = call(metered, "c", 3), call(metered, "d", 1)
            await asyncio.gather(provider.sent("c", 0), provider.sent("d", 0))
            provider.go("d", 0)
            await d
            provider.go("c", 0)
            provider.go("c", 1)
            await provider.sent("c", 2)
            c.cancel()  # cut short, its three requests sent
            await asyncio.gather(c, return_exceptions=True)
            return sent

    sent = asyncio.run(trial())
    assert (sent.requests, sent.failed, sent.complete) == (1 + 3, 3, False)
