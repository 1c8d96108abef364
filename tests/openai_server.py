"""A real OpenAI-compatible chat-completions server on 127.0.0.1, scripted, with fault injection."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


@dataclass
class Behavior:
    """What the server does with one request."""

    kind: str = "reply"
    """``reply``, ``status``, ``drop`` (cut the body short), ``malformed``, ``trickle``
    (the reply one byte per ``delay`` seconds), ``huge`` (a body of ``size`` bytes),
    ``echo_key`` (a reply whose content and model repeat the Authorization header's
    key), ``stream_cut`` (a streamed reply whose connection drops half-way), ``echo``
    (the behaviour ``echo`` makes of that key) or ``redirect`` (a 307
    to ``body``)."""
    message: dict[str, Any] = field(default_factory=dict[str, Any])
    """For ``reply``: the choice's message (``content``, ``tool_calls``, extra fields)."""
    usage: dict[str, Any] | None = field(
        default_factory=lambda: {"prompt_tokens": 120, "completion_tokens": 12, "total_tokens": 132}
    )
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict[str, str])
    body: str = ""
    delay: float = 0.0
    """Seconds to wait before answering (to exceed a client's timeout)."""
    model: str = "gpt-4o-mini"
    size: int = 0
    """For ``huge``: the body's size in bytes."""
    declare_length: bool = True
    """For ``huge``: send a Content-Length header (else the body is chunked)."""
    finish_reason: str = "stop"
    echo: Callable[[str], Behavior] | None = None
    """For ``echo``: the behaviour made from the key the request's Authorization header sent
    (a server reflecting it in any field, in any form)."""


def content(text: str, **extra: Any) -> Behavior:
    """A reply whose message content is ``text`` (raw, untouched)."""
    return Behavior(message={"role": "assistant", "content": text, **extra})


def tool_calls(*calls: tuple[str, Any]) -> Behavior:
    """A reply with tool calls: (name, arguments) where arguments is raw text or an object."""
    return Behavior(
        message={
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{n}",
                    "type": "function",
                    "function": {"name": name, "arguments": args},
                }
                for n, (name, args) in enumerate(calls)
            ],
        }
    )


def status(code: int, body: str = "", **headers: str) -> Behavior:
    """An HTTP error status."""
    return Behavior(
        kind="status",
        status=code,
        body=body or json.dumps({"error": {"message": f"status {code}", "type": "test"}}),
        headers=headers,
    )


@dataclass
class Recorded:
    """One request the server received."""

    headers: dict[str, str]
    body: dict[str, Any]
    at: float
    reply: Any = None
    """The JSON body of the answer, when it was one (a completion or an error status)."""


class OpenAIServer:
    """Serves /v1/chat/completions from a script; records every request."""

    def __init__(self) -> None:
        self.script: list[Behavior] = []
        self.default: Behavior | None = None
        """What to do once the script is used up (None: a 500 "unscripted request")."""
        self.responder: Callable[[dict[str, Any]], Behavior] | None = None
        """Picks the behaviour from the request body once the script is used up
        (a server persona, as ``tests/server_personas.py`` has), before ``default``."""
        self.requests: list[Recorded] = []
        self.port: int = 0
        self.huge_bytes_sent = 0
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> None:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_get("/v1/models", self._models)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        # The only way to read the port the OS chose.
        server: Any = site._server  # pyright: ignore[reportPrivateUsage]
        self.port = int(server.sockets[0].getsockname()[1])

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    async def _huge(self, request: web.Request, behavior: Behavior) -> web.StreamResponse:
        self.huge_bytes_sent = behavior.size
        return await _huge_body(request, behavior)

    async def _models(self, request: web.Request) -> web.Response:
        self.requests.append(Recorded(dict(request.headers), {}, time.monotonic()))
        listed = {
            "object": "list",
            "data": [{"id": "gpt-4o-mini", "object": "model", "created": 0, "owned_by": "test"}],
        }
        return web.json_response(listed)

    def play(self, *behaviors: Behavior) -> None:
        self.script = list(behaviors)
        self.requests.clear()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        recorded = Recorded(dict(request.headers), body, time.monotonic())
        self.requests.append(recorded)
        if self.script:
            behavior = self.script.pop(0)
        elif self.responder is not None:
            behavior = self.responder(body)
        else:
            behavior = self.default or status(500, "unscripted request")
        if behavior.delay and behavior.kind != "trickle":
            await asyncio.sleep(behavior.delay)
        if behavior.kind == "redirect":
            return web.Response(status=307, headers={"Location": behavior.body})
        if behavior.kind == "huge":
            return await self._huge(request, behavior)
        if behavior.kind == "echo" and behavior.echo is not None:
            behavior = behavior.echo(
                request.headers.get("Authorization", "").removeprefix("Bearer ")
            )
        if behavior.kind == "echo_key":
            key = request.headers.get("Authorization", "").removeprefix("Bearer ")
            behavior = Behavior(
                message={"role": "assistant", "content": f'{{"note": "your key is {key}"}}'},
                model=f"echo-{key}",
            )
        if behavior.kind == "status":
            with contextlib.suppress(ValueError):
                recorded.reply = json.loads(behavior.body)
            return web.Response(
                status=behavior.status,
                text=behavior.body,
                headers=behavior.headers,
                content_type="application/json",
            )
        if behavior.kind == "malformed":
            return web.Response(status=200, text="{not json", content_type="application/json")
        completion: dict[str, Any] = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": behavior.model,
            "choices": [
                {"index": 0, "message": behavior.message, "finish_reason": behavior.finish_reason}
            ],
        }
        if behavior.usage is not None:
            completion["usage"] = behavior.usage
        text = json.dumps(completion, allow_nan=True)
        recorded.reply = completion
        if body.get("stream") is True and behavior.kind in ("reply", "stream_cut"):
            return await _streamed(request, completion, cut=behavior.kind == "stream_cut")
        if behavior.kind == "trickle":
            response = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
            await response.prepare(request)
            for byte in text.encode():
                await response.write(bytes([byte]))
                await asyncio.sleep(behavior.delay)
            await response.write_eof()
            return response
        if behavior.kind == "drop":
            response = web.StreamResponse(
                status=200,
                headers={"Content-Type": "application/json", "Content-Length": str(len(text))},
            )
            await response.prepare(request)
            await response.write(text[: len(text) // 2].encode())
            assert request.transport is not None
            request.transport.close()  # the connection drops mid-body
            return response
        return web.Response(status=200, text=text, content_type="application/json")


def chunks_of(completion: dict[str, Any]) -> list[dict[str, Any]]:
    """The chunks the reference API streams for ``completion``: role, content, calls, finish."""
    message = completion["choices"][0]["message"]
    head = {k: completion[k] for k in ("id", "created", "model")}
    head["object"] = "chat.completion.chunk"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    found = [chunk({"role": "assistant", "content": ""})]
    text = message.get("content") or ""
    found += [chunk({"content": text[i : i + 4]}) for i in range(0, len(text), 4)]
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call["function"]
        start = {"index": index, "id": call["id"], "type": "function"}
        found.append(chunk({"tool_calls": [{**start, "function": {"name": function["name"]}}]}))
        arguments = function["arguments"]
        arguments = arguments if isinstance(arguments, str) else json.dumps(arguments)
        for i in range(0, len(arguments), 5):
            piece = {"index": index, "function": {"arguments": arguments[i : i + 5]}}
            found.append(chunk({"tool_calls": [piece]}))
    found.append(chunk({}, completion["choices"][0]["finish_reason"]))
    if "usage" in completion:
        found.append({**head, "choices": [], "usage": completion["usage"]})
    return found


async def _streamed(
    request: web.Request, completion: dict[str, Any], *, cut: bool
) -> web.StreamResponse:
    response = web.StreamResponse(status=200, headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    chunks = chunks_of(completion)
    for chunk in chunks[: len(chunks) // 2] if cut else chunks:
        await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
    if cut:
        assert request.transport is not None
        request.transport.close()  # the connection drops mid-stream
        return response
    await response.write(b"data: [DONE]\n\n")
    await response.write_eof()
    return response


def serving() -> Iterator[OpenAIServer]:
    """A started server, stopped when the generator closes: a fixture's ``yield from``."""
    running = OpenAIServer()
    running.start()
    try:
        yield running
    finally:
        running.stop()


async def _huge_body(request: web.Request, behavior: Behavior) -> web.StreamResponse:
    headers = {"Content-Type": "application/json"}
    if behavior.declare_length:
        headers["Content-Length"] = str(behavior.size)
    response = web.StreamResponse(status=200, headers=headers)
    await response.prepare(request)
    chunk = b" " * 65536
    sent = 0
    try:
        while sent < behavior.size:
            piece = chunk[: behavior.size - sent]
            await response.write(piece)
            sent += len(piece)
        await response.write_eof()
    except (ConnectionError, RuntimeError):
        pass  # the client stopped reading, as it should
    return response


def main() -> None:
    """Serve on a free port in this process: every request answered after DELAY seconds.

    Prints the URL on one line, then serves until killed (benchmarks run it
    as its own process, so that it does not share the client's interpreter).
    """
    import sys

    delay = float(sys.argv[1]) if len(sys.argv) > 1 else 0.1
    server = OpenAIServer()
    # The same answer as text (structured output) and as a call of the benchmark's tool
    # (tool calling): deterministic-first sends whichever request is the smaller.
    call = {"id": "c1", "type": "function", "function": {"name": "need_n", "arguments": '{"n": 1}'}}
    message = {"role": "assistant", "content": '{"n": 1}', "tool_calls": [call]}
    server.default = Behavior(message=message, delay=delay)
    server.start()
    print(server.url, flush=True)
    try:
        threading.Event().wait()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
