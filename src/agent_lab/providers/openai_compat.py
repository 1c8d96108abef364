"""Any OpenAI-compatible chat-completions endpoint, through the official ``openai`` SDK."""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import random
import re
import time
from typing import TYPE_CHECKING, Any, Literal, cast

import httpx2  # the SDK's HTTP client package
import openai

from agent_lab.clock import Clock, SystemClock
from agent_lab.providers.base import (
    FailureReason,
    ProviderFailure,
    ProviderReply,
    ProviderRequest,
    ToolCall,
)
from agent_lab.providers.pricing import PriceTable
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from agent_lab.strict_json import JSONValue

__all__ = ["OpenAIProvider"]

_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_NO_KEY = "no-key-needed"


def _permissive_parse(text: str) -> JSONValue | None:
    # The adapter's own parse, as a typical client does it (NaN and repeated keys
    # pass here); the kernel audits it against its strict parse of the same text (K18).
    try:
        value: JSONValue = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value


class OpenAIProvider:
    """An OpenAI-compatible endpoint: OpenAI, vLLM, Ollama, llama.cpp server, LM Studio...

    Args:
        model: Model name; defaults to ``$OPENAI_MODEL``.
        base_url: Endpoint; defaults to ``$OPENAI_BASE_URL``, then OpenAI's.
        api_key: Key; defaults to ``$OPENAI_API_KEY`` (a placeholder for local
            servers that need none). It is sent in the Authorization header
            only, and never appears in replies, errors, cassettes or ``repr``.
        timeout: Seconds allowed for one request.
        max_attempts: Requests per call, retries included, on 429, 5xx,
            timeouts and connection errors; other 4xx fail at once.
        backoff_base: First backoff in seconds; it doubles per retry, with
            full jitter, up to ``backoff_max``.
        max_retry_after: Longest wait a ``Retry-After`` header can ask for.
        structured_output: ``json_schema`` (the OpenAI format) or
            ``json_object`` (llama.cpp server's ``{"type": "json_object",
            "schema": ...}``).
        strict: Ask for strict schema adherence (endpoints that support it).
        token_limit: The request field for the reply's token budget.
        prices: Price table for cost; genai-prices' data by default.
        http_client: An ``httpx2.AsyncClient`` (the SDK's HTTP package) to send
            through, kept across calls; it must belong to the event loop the
            calls run in. Without it, each call uses its own connection.
        keep_alive: Reuse one connection pool per event loop (for a runner
            whose calls share a loop); close it with ``await aclose()``.
        clock: Latency is measured with it; the system clock by default.
        sleep: Awaited between attempts; ``asyncio.sleep`` by default.
        rng: Jitter source; seeded for reproducible backoff.
    """

    name = "openai"

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_attempts: int = 3,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        max_retry_after: float = 30.0,
        structured_output: Literal["json_schema", "json_object"] = "json_schema",
        strict: bool = False,
        token_limit: Literal["max_tokens", "max_completion_tokens"] = "max_tokens",  # noqa: S107
        prices: PriceTable | None = None,
        http_client: httpx2.AsyncClient | None = None,
        keep_alive: bool = False,
        clock: Clock | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.model: str | None = model or os.environ.get("OPENAI_MODEL")
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or _NO_KEY
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.max_retry_after = max_retry_after
        self.structured_output = structured_output
        self.strict = strict
        self.token_limit = token_limit
        self.prices = prices if prices is not None else PriceTable()
        self._clock = clock if clock is not None else SystemClock()
        self._sleep = sleep if sleep is not None else asyncio.sleep
        self._rng = rng if rng is not None else random.Random()  # noqa: S311 - jitter, not secrets
        self._http_client = http_client
        self.keep_alive = keep_alive
        self._clients: dict[int, tuple[asyncio.AbstractEventLoop, openai.AsyncOpenAI]] = {}

    def __repr__(self) -> str:
        """Name, endpoint and model; never the key."""
        return f"OpenAIProvider(model={self.model!r}, base_url={self.base_url!r})"

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "[redacted]") if self._api_key != _NO_KEY else text

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        """Send the request, retrying what may pass again; never raises for the remote side."""
        model = request.model or self.model
        started = self._clock.monotonic_ns()
        if not model:
            return ProviderReply(
                usage=Usage(requests=0),
                failure=ProviderFailure(
                    reason=FailureReason.HTTP_4XX,
                    message="no model: pass model= or set OPENAI_MODEL",
                ),
            )
        arguments = self._arguments(request, model)
        # An HTTP client belongs to one event loop, and a sync dispatch runs each
        # call in a loop of its own: so, by default, one client per call, closed
        # with it. Pass http_client= to keep connections across calls in one loop.
        if self.keep_alive:
            return await self._attempts(self._loop_client(), arguments, model, started)
        client = self._new_client()
        try:
            return await self._attempts(client, arguments, model, started)
        finally:
            if self._http_client is None:
                await client.close()

    def _new_client(self, *, pooled: bool = False) -> openai.AsyncOpenAI:
        http_client: Any = self._http_client
        if http_client is None and pooled:
            # The SDK's aiohttp transport: its pool serves 64 concurrent requests at a
            # fraction of the default transport's CPU cost (README, "Benchmark").
            http_client = openai.DefaultAioHttpClient()
        return openai.AsyncOpenAI(
            api_key=self._api_key,
            base_url=self.base_url,
            timeout=self.timeout,
            max_retries=0,  # retries are ours, so that every attempt is counted
            http_client=http_client,
        )

    def _loop_client(self) -> openai.AsyncOpenAI:
        # keep_alive: one client (one connection pool) per event loop, reused by every call in it.
        loop = asyncio.get_running_loop()
        entry = self._clients.get(id(loop))
        if entry is None or entry[0] is not loop:
            entry = (loop, self._new_client(pooled=True))
            self._clients[id(loop)] = entry
        return entry[1]

    async def aclose(self) -> None:
        """Close the kept-alive client of the running event loop (``keep_alive=True``)."""
        entry = self._clients.pop(id(asyncio.get_running_loop()), None)
        if entry is not None:
            await entry[1].close()

    async def _attempts(
        self, client: openai.AsyncOpenAI, arguments: dict[str, Any], model: str, started: int
    ) -> ProviderReply:
        attempt = 0
        while True:
            attempt += 1
            try:
                # The SDK's generic post: its typed create() rewrites the parameters
                # recursively on every call (1.2 ms of CPU per request, measured), which
                # for plain JSON changes nothing. Transport, auth and errors are the SDK's.
                raw: httpx2.Response = await client.post(
                    "/chat/completions", body=arguments, cast_to=httpx2.Response
                )
            except openai.APITimeoutError:
                failure = ProviderFailure(
                    reason=FailureReason.TIMEOUT,
                    message=f"no reply within {self.timeout} s",
                    retryable=True,
                )
                wait = self._backoff(attempt)
            except openai.APIConnectionError as err:
                failure = ProviderFailure(
                    reason=FailureReason.CONNECTION_ERROR,
                    message=self._redact(f"{type(err).__name__}: {err.__cause__ or err}"),
                    retryable=True,
                )
                wait = self._backoff(attempt)
            except openai.APIStatusError as err:
                failure, wait = self._status_failure(err, attempt)
            else:
                return self._reply(raw, model, attempt, started)
            if not failure.retryable or attempt >= self.max_attempts:
                return ProviderReply(
                    usage=Usage(requests=attempt, model=model),
                    latency_ns=self._clock.monotonic_ns() - started,
                    failure=ProviderFailure(
                        reason=failure.reason,
                        message=f"{failure.message} (after {attempt} attempt(s))",
                        retryable=failure.retryable,
                    ),
                )
            await self._sleep(wait)

    def _arguments(self, request: ProviderRequest, model: str) -> dict[str, Any]:
        arguments: dict[str, Any] = {
            "model": model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": request.temperature,
            self.token_limit: request.max_tokens,
        }
        if request.seed is not None:
            arguments["seed"] = request.seed
        if request.tools:
            arguments["tools"] = list(request.tools)
            if request.tool_choice in (None, "auto", "required", "none"):
                arguments["tool_choice"] = request.tool_choice or "auto"
            else:
                arguments["tool_choice"] = {
                    "type": "function",
                    "function": {"name": request.tool_choice},
                }
        if request.response_schema is not None:
            if self.structured_output == "json_object":
                arguments["response_format"] = {
                    "type": "json_object",
                    "schema": request.response_schema,
                }
            else:
                arguments["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {
                        "name": _NAME_UNSAFE.sub("_", request.schema_name)[:64] or "arguments",
                        "schema": request.response_schema,
                        "strict": self.strict,
                    },
                }
        return arguments

    def _backoff(self, attempt: int) -> float:
        # Exponential backoff with full jitter.
        return self._rng.uniform(0, min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1)))

    def _status_failure(
        self, err: openai.APIStatusError, attempt: int
    ) -> tuple[ProviderFailure, float]:
        status = err.status_code
        message = self._redact(f"HTTP {status}: {str(err.message)[:200]}")
        if status == 429:
            retry_after = _retry_after(err.response.headers)
            wait = (
                min(retry_after, self.max_retry_after)
                if retry_after is not None
                else self._backoff(attempt)
            )
            return ProviderFailure(
                reason=FailureReason.RATE_LIMITED, message=message, retryable=True
            ), wait
        if status >= 500:
            return ProviderFailure(
                reason=FailureReason.HTTP_5XX, message=message, retryable=True
            ), self._backoff(attempt)
        return ProviderFailure(reason=FailureReason.HTTP_4XX, message=message), 0.0

    def _reply(
        self, raw: httpx2.Response, model: str, attempts: int, started: int
    ) -> ProviderReply:
        latency = self._clock.monotonic_ns() - started
        try:
            text, parsed, calls, prompt_tokens, completion_tokens, answered_by, finish = _read(
                raw.json(), model
            )
        except Exception as err:  # noqa: BLE001 - any malformed body is a failure reply
            return ProviderReply(
                usage=Usage(requests=attempts, model=model),
                latency_ns=latency,
                failure=ProviderFailure(
                    reason=FailureReason.INVALID_RESPONSE,
                    message=self._redact(f"not a chat completion: {type(err).__name__}: {err}")[
                        :300
                    ],
                ),
            )
        usage = Usage(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost=self.prices.cost(answered_by, prompt_tokens, completion_tokens),
            model=answered_by,
            requests=attempts,
        )
        if text is None and not calls:
            return ProviderReply(
                usage=usage,
                latency_ns=latency,
                finish_reason=finish,
                failure=ProviderFailure(
                    reason=FailureReason.NO_CONTENT, message="neither text nor a tool call"
                ),
            )
        return ProviderReply(
            text=text,
            parsed=parsed,
            tool_calls=calls,
            usage=usage,
            latency_ns=latency,
            finish_reason=finish,
        )


def _read(
    data: Any, model: str
) -> tuple[
    str | None, JSONValue | None, tuple[ToolCall, ...], int | None, int | None, str, str | None
]:
    """The parts of a chat-completion body: text, parse, tool calls, tokens, model, finish."""
    choices: Any = data["choices"]
    if not isinstance(choices, list) or not choices:
        raise ValueError("no choices in the body")
    choice: dict[str, Any] = cast("list[Any]", choices)[0]
    message: dict[str, Any] = choice.get("message") or {}
    content = message.get("content")
    text = content if isinstance(content, str) else None
    # A server's own parse (some send one) is audited like the adapter's would be (K18).
    server_parsed = message.get("parsed")
    parsed = (
        server_parsed
        if server_parsed is not None
        else (_permissive_parse(text) if text is not None else None)
    )
    calls = tuple(_tool_call(call) for call in (message.get("tool_calls") or ()))
    usage: dict[str, Any] = data.get("usage") or {}
    prompt_tokens = usage.get("prompt_tokens")
    completion_tokens = usage.get("completion_tokens")
    return (
        text,
        parsed,
        calls,
        prompt_tokens if isinstance(prompt_tokens, int) else None,
        completion_tokens if isinstance(completion_tokens, int) else None,
        str(data.get("model") or model),
        choice.get("finish_reason"),
    )


def _tool_call(call: Any) -> ToolCall:
    function: dict[str, Any] = call["function"]
    arguments: object = function.get("arguments")
    if isinstance(arguments, str):
        return ToolCall(
            name=str(function.get("name")),
            arguments_raw=arguments,
            arguments=_permissive_parse(arguments),
        )
    # Some servers send the arguments as an object, not as JSON text; there is
    # no raw text then, so the object's JSON serves as both forms.
    return ToolCall(
        name=str(function.get("name")),
        arguments_raw=json.dumps(arguments),
        arguments=arguments,  # type: ignore[arg-type]
    )


def _retry_after(headers: httpx2.Headers) -> float | None:
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    # An HTTP date is wall-clock time, so this one reading is of the wall clock.
    return max(0.0, moment.timestamp() - time.time())
