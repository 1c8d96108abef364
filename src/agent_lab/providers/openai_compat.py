"""Any OpenAI-compatible chat-completions endpoint, through the official ``openai`` SDK."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import weakref
from typing import TYPE_CHECKING, Any, Literal, cast

import httpx2  # the SDK's HTTP client package
import openai

from agent_lab.agents.port import (
    FailureReason,
    ProviderFailure,
    ProviderReply,
    ProviderRequest,
    ProviderSetup,
)
from agent_lab.clock import Clock, SystemClock
from agent_lab.errors import ProviderError, SettingError
from agent_lab.providers._format_negotiation import (
    FormatNegotiation,
    negotiated,
    refusal,
    setup_probes,
)
from agent_lab.providers._openai_reply import MESSAGE_LIMIT, completion_reply
from agent_lab.providers._openai_wire import (
    StructuredOutput,
    body_text,
    format_tool_name,
    request_body,
)
from agent_lab.providers._openai_wire import retry_after as retry_after_of
from agent_lab.providers.pricing import PriceTable
from agent_lab.providers.redaction import Redactor, split_credentials
from agent_lab.usage import Usage, request_sent

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    from agent_lab.providers.request_log import RequestLog
    from agent_lab.strict_json import JSONValue

__all__ = ["DEFAULT_MAX_BODY_BYTES", "OpenAIProvider"]

_log = logging.getLogger(__name__)

_NO_KEY = "no-key-needed"
DEFAULT_MAX_BODY_BYTES = 8 << 20
"""The largest reply body read (8 MiB): a chat completion is kilobytes; more is a fault."""


class _BodyTooLargeError(ProviderError):
    """A reply body past ``max_body_bytes``, read no further."""

    def __init__(self, message: str) -> None:
        super().__init__(FailureReason.INVALID_RESPONSE, message)


def _refused_connection(err: BaseException) -> ConnectionError | None:
    # The SDK's aiohttp transport reports a refused connection as a connect
    # *timeout*; the cause chain still holds the refusal, which is what happened.
    seen: BaseException = err
    for _ in range(8):
        following = seen.__cause__ or seen.__context__
        if following is None:
            return None
        if isinstance(following, ConnectionError):
            return following
        seen = following
    return None


class OpenAIProvider:
    """An OpenAI-compatible endpoint: OpenAI, vLLM, Ollama, llama.cpp server, LM Studio...

    Args:
        model: Model name; defaults to ``$OPENAI_MODEL``.
        base_url: Endpoint; defaults to ``$OPENAI_BASE_URL``, then OpenAI's.
            Credentials in it (``user:password@``) are removed, never sent,
            shown or recorded; pass the key as ``api_key``.
        api_key: Key; defaults to ``$OPENAI_API_KEY`` (a placeholder for local
            servers that need none). It is sent in the Authorization header
            only, and never appears in replies, errors, cassettes or ``repr``.
        timeout: Seconds allowed for one attempt as a whole (connect, send,
            every byte of the reply), not per read: a server that trickles
            its reply cannot hold a call longer than this.
        max_attempts: Requests per call, retries included, on 429, 5xx,
            timeouts and connection errors; other 4xx fail at once.
        backoff_base: First backoff in seconds; it doubles per retry, with
            full jitter, up to ``backoff_max``.
        max_retry_after: Longest wait a ``Retry-After`` header can ask for.
        structured_output: How a reply's JSON Schema is asked for:
            ``json_schema`` (the OpenAI format), ``json_object`` (llama.cpp
            server's ``{"type": "json_object", "schema": ...}``), ``tools``
            (one forced function), ``prompted`` (the schema in the prompt), or
            ``auto``: ``json_schema`` first, then the next mode each time the
            server refuses or ignores one, once for the provider's lifetime
            (``structured_output_used``, ``structured_output_note``).
        strict: Ask for strict schema adherence (endpoints that support it).
        token_limit: The request field for the reply's token budget.
        prices: Price table for cost; genai-prices' data by default.
        max_body_bytes: The largest reply body read; a larger one is an
            ``invalid_response`` failure, read no further.
        http_client: An ``httpx2.AsyncClient`` (the SDK's HTTP package) to send
            through, kept across calls; it must belong to the event loop the
            calls run in. Without it, each call uses its own connection.
        keep_alive: Reuse one connection pool per event loop (for a runner
            whose calls share a loop); close it with ``await aclose()``.
        clock: Latency is measured with it; the system clock by default.
        sleep: Awaited between attempts; ``asyncio.sleep`` by default.
        rng: Jitter source; seeded for reproducible backoff.
        request_log: Where each request sent (retries included) is appended with
            the response or the error it got, as a ``pairs`` log line, redacted.
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
        structured_output: StructuredOutput | Literal["auto"] = "json_schema",
        strict: bool = False,
        token_limit: str = "max_tokens",  # noqa: S107 - a field name, not a secret
        prices: PriceTable | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        http_client: httpx2.AsyncClient | None = None,
        keep_alive: bool = False,
        clock: Clock | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        rng: random.Random | None = None,
        request_log: RequestLog | None = None,
    ) -> None:
        if max_attempts < 1:
            raise SettingError("max_attempts", "must be at least 1")
        self.model: str | None = model or os.environ.get("OPENAI_MODEL")
        self.base_url, url_secrets = split_credentials(
            base_url or os.environ.get("OPENAI_BASE_URL")
        )
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or _NO_KEY
        key = () if self._api_key == _NO_KEY else (self._api_key,)
        self._redact = Redactor((*key, *url_secrets))
        self.max_body_bytes = max_body_bytes
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.max_retry_after = max_retry_after
        self.structured_output: StructuredOutput | Literal["auto"] = structured_output
        self._format = FormatNegotiation(structured_output)
        self.strict = strict
        self.token_limit = token_limit
        self.prices = prices if prices is not None else PriceTable()
        self._clock = clock if clock is not None else SystemClock()
        self._sleep = sleep if sleep is not None else asyncio.sleep
        self._rng = rng if rng is not None else random.Random()  # noqa: S311 - jitter, not secrets
        self._http_client = http_client
        self.keep_alive = keep_alive
        self.request_log = request_log
        # Keyed by the loop itself, weakly: a closed loop's client goes with it.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, openai.AsyncOpenAI] = (
            weakref.WeakKeyDictionary()
        )

    def __repr__(self) -> str:
        """Name, endpoint and model; never the key."""
        return f"OpenAIProvider(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def structured_output_used(self) -> StructuredOutput:
        """The mode requests with a schema are sent in now (``auto``: the one it found)."""
        return self._format.mode

    @property
    def structured_output_note(self) -> str | None:
        """What ``auto`` found and why, in one line; ``None`` for a fixed mode."""
        return self._format.note()

    async def prepare(self) -> ProviderSetup:
        """Settle ``structured_output="auto"`` before any counted request (one-time set-up).

        Sends a small structured-output request and a small tool-choice
        request, so that the negotiation's refusals and probes are spent here,
        where a lab run records them as set-up, and not in its first trials. A
        fixed mode sends nothing. A server that does not answer leaves ``auto``
        to settle on later requests, as it would without set-up.
        """
        if not self._format.auto:
            return ProviderSetup(usage=Usage.zero())
        spent = Usage.zero()
        for probe in setup_probes():
            spent += (await self.complete(probe)).usage
        return ProviderSetup(usage=spent, note=self.structured_output_note)

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
        # An HTTP client belongs to one event loop, and a sync dispatch runs each
        # call in a loop of its own: so, by default, one client per call, closed
        # with it. Pass http_client= to keep connections across calls in one loop.
        client = self._loop_client() if self.keep_alive else self._new_client()
        try:
            return await self._negotiated(client, request, model, started)
        finally:
            if not self.keep_alive and self._http_client is None:
                await client.close()

    async def _negotiated(
        self, client: openai.AsyncOpenAI, request: ProviderRequest, model: str, started: int
    ) -> ProviderReply:
        async def send(sent: ProviderRequest, mode: StructuredOutput) -> ProviderReply:
            arguments = request_body(
                sent, model, structured_output=mode, strict=self.strict,
                token_limit=self.token_limit,
            )  # fmt: skip
            format_tool = format_tool_name(sent) if mode == "tools" and not sent.tools else None
            return await self._attempts(
                client, arguments, model, started, mode=mode, format_tool=format_tool,
                context=sent.context,
            )  # fmt: skip

        return await negotiated(self._format, request, send)

    def _new_client(self, *, pooled: bool = False) -> openai.AsyncOpenAI:
        http_client: Any = self._http_client
        if http_client is None and pooled:
            # The SDK's aiohttp transport: its pool serves 64 concurrent requests at a
            # fraction of the default transport's CPU cost (docs/performance.md, "The runner").
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
        client = self._clients.get(loop)
        if client is None:
            client = self._new_client(pooled=True)
            self._clients[loop] = client
        return client

    async def aclose(self) -> None:
        """Close the kept-alive client of the running event loop (``keep_alive=True``)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    async def _attempts(
        self, client: openai.AsyncOpenAI, arguments: dict[str, Any], model: str, started: int,
        *, mode: StructuredOutput, format_tool: str | None, context: Mapping[str, JSONValue],
    ) -> ProviderReply:  # fmt: skip
        attempt = 0
        while True:
            attempt += 1
            request_sent()  # heard by a meter: a call cut short still counts each attempt
            sent_at = self._clock.monotonic_ns()
            try:
                body = await asyncio.wait_for(self._send(client, arguments), self.timeout)
            except Exception as err:  # noqa: BLE001 - complete() never raises for the remote side
                failure, wait = self._failure(err, attempt)
                self._logged(arguments, context, attempt, sent_at, failure=failure, err=err)
            else:
                self._logged(arguments, context, attempt, sent_at, body=body)
                return completion_reply(
                    body,
                    model=model,
                    attempts=attempt,
                    latency_ns=self._clock.monotonic_ns() - started,
                    format_tool=format_tool,
                    redact=self._redact,
                    prices=self.prices,
                )
            if self._gives_up(failure, attempt, mode=mode):
                return self._failure_reply(failure, attempt, model=model, started=started)
            await self._wait_to_retry(failure, attempt, model=model, wait=wait)

    def _logged(
        self, arguments: dict[str, Any], context: Mapping[str, JSONValue], attempt: int,
        sent_at: int, *, body: bytes | None = None, failure: ProviderFailure | None = None,
        err: Exception | None = None,
    ) -> None:  # fmt: skip
        """Append one attempt to ``request_log``: the body sent, and the response or the error."""
        if self.request_log is not None:
            self.request_log.record(
                arguments, body=body, failure=failure,
                status=err.status_code if isinstance(err, openai.APIStatusError) else None,
                latency_ns=self._clock.monotonic_ns() - sent_at, provider=self.name,
                attempt=attempt, case_id=context.get("case_id"), redact=self._redact.json,
            )  # fmt: skip

    def _gives_up(self, failure: ProviderFailure, attempt: int, *, mode: StructuredOutput) -> bool:
        """Whether this failure ends the call: not retryable, out of attempts, or a refusal."""
        # A refused format is not retried as it is: auto moves to the next one.
        refused = self._format.auto and refusal(failure, mode) is not None
        return refused or not failure.retryable or attempt >= self.max_attempts

    def _failure_reply(
        self, failure: ProviderFailure, attempt: int, *, model: str, started: int
    ) -> ProviderReply:
        """The call's reply when it gives up: the last failure, with every attempt counted."""
        # Messages are redacted where they are made: a key never reaches a log.
        _log.info(
            "%s failed after %d attempt(s): %s: %s",
            model, attempt, failure.reason, failure.message,
        )  # fmt: skip
        return ProviderReply(
            usage=Usage(requests=attempt, model=model),
            latency_ns=self._clock.monotonic_ns() - started,
            failure=ProviderFailure(
                reason=failure.reason,
                message=f"{failure.message} (after {attempt} attempt(s))",
                retryable=failure.retryable,
            ),
        )

    async def _wait_to_retry(
        self, failure: ProviderFailure, attempt: int, *, model: str, wait: float
    ) -> None:
        """Log the failed attempt, then wait ``wait`` seconds before the next one."""
        _log.info(
            "%s attempt %d of %d failed (%s: %s); retrying in %.2f s",
            model, attempt, self.max_attempts, failure.reason, failure.message, wait,
        )  # fmt: skip
        await self._sleep(wait)

    async def _send(self, client: openai.AsyncOpenAI, arguments: dict[str, Any]) -> bytes:
        # The SDK's generic post: its typed create() rewrites the parameters
        # recursively on every call (1.2 ms of CPU per request, measured), which
        # for plain JSON changes nothing. Transport, auth and errors are the SDK's.
        # Streamed, so that the body is read here, up to a bound.
        response: httpx2.Response = await client.post(
            "/chat/completions",
            body=arguments,
            cast_to=httpx2.Response,
            stream=True,
            stream_cls=None,
        )
        try:
            declared = response.headers.get("content-length")
            if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
                raise _BodyTooLargeError(self._too_large(int(declared)))
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > self.max_body_bytes:
                    raise _BodyTooLargeError(self._too_large(size))
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            await response.aclose()

    def _too_large(self, size: int) -> str:
        return f"the reply body exceeds {self.max_body_bytes} bytes ({size} and more); not read"

    def _backoff(self, attempt: int) -> float:
        # Exponential backoff with full jitter.
        return self._rng.uniform(0, min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1)))

    def _failure(self, err: Exception, attempt: int) -> tuple[ProviderFailure, float]:
        """What a failed attempt was (``_FAILURES``), and how long to wait before the next."""
        if isinstance(err, TimeoutError | openai.APITimeoutError):
            err = _refused_connection(err) or err  # a refusal is what happened, said as one
        reason, retryable = _failure_reason(err)
        failure = ProviderFailure(reason=reason, message=self._said(err), retryable=retryable)
        if isinstance(err, openai.APIStatusError) and err.status_code == 429:
            retry_after = retry_after_of(err.response.headers)
            if retry_after is not None:
                return failure, min(retry_after, self.max_retry_after)
        return failure, self._backoff(attempt) if retryable else 0.0

    def _said(self, err: Exception) -> str:
        if isinstance(err, TimeoutError | openai.APITimeoutError):
            return f"no whole reply within {self.timeout} s"
        if isinstance(err, _BodyTooLargeError):
            return str(err)
        if isinstance(err, openai.APIStatusError):
            return self._status_message(err)
        if isinstance(err, openai.APIConnectionError):
            return self._redact.truncate(
                f"{type(err).__name__}: {err.__cause__ or err}", MESSAGE_LIMIT
            )
        return self._redact.truncate(f"{type(err).__name__}: {err}", MESSAGE_LIMIT)

    def _status_message(self, err: openai.APIStatusError) -> str:
        status = err.status_code
        said = err.message
        if said == f"Error code: {status}" and err.body is not None:
            # The SDK keeps only an {"error": {"message"}} or a top-level "message";
            # FastAPI servers say why in {"detail": ...}, which would be lost.
            # Its strings redacted before it becomes text: JSON would escape a line
            # break that splits a key into two characters, which no longer bridge.
            said = f"{said} - {body_text(self._redact.json(cast('JSONValue', err.body)))}"
        return self._redact.truncate(f"HTTP {status}: {said}", MESSAGE_LIMIT)


_FAILURES: tuple[tuple[type[Exception], range | None, FailureReason, bool], ...] = (
    # (what an attempt raised, the HTTP statuses the row covers or None for any,
    # the failure's reason, whether a retry may pass); the first row that matches
    # wins, so a subclass comes before its base (APITimeoutError is an APIConnectionError).
    (_BodyTooLargeError, None, FailureReason.INVALID_RESPONSE, False),
    (openai.APITimeoutError, None, FailureReason.TIMEOUT, True),
    (TimeoutError, None, FailureReason.TIMEOUT, True),
    (openai.APIConnectionError, None, FailureReason.CONNECTION_ERROR, True),
    (openai.APIStatusError, range(429, 430), FailureReason.RATE_LIMITED, True),
    # A status has three digits (RFC 9110, section 15).
    (openai.APIStatusError, range(500, 1000), FailureReason.HTTP_5XX, True),
    (openai.APIStatusError, None, FailureReason.HTTP_4XX, False),
    # Anything else broke the exchange itself: a refused connection, a transport's own error.
    (Exception, None, FailureReason.CONNECTION_ERROR, True),
)
"""Each way an attempt can fail, the SDK's errors and the wait's, as a failure reason."""


def _failure_reason(err: Exception) -> tuple[FailureReason, bool]:
    """The reason and retryability of the first ``_FAILURES`` row that ``err`` matches."""
    status = err.status_code if isinstance(err, openai.APIStatusError) else None
    return next(
        (reason, retryable)
        for raised, statuses, reason, retryable in _FAILURES
        if isinstance(err, raised) and (statuses is None or status in statuses)
    )
