"""The gateway's ASGI app (Starlette): admission, the routes, one decision per request.

Admission (``admission.Admission``) runs first, as plain ASGI around every
``/v1/`` request and ``/metrics``: a loop, the bound in flight, the key. Then
the path is checked (``routes.route``): one that would leave ``/v1`` is 400,
one the API does not have 404, a method its path does not take 405.
``POST /v1/chat/completions`` is read once, strictly, its types checked
(``body.read_body``: 400 as the API says it), then answered
locally (``enforce``, a covered request for a trusted tool) or forwarded;
every other API path is forwarded as it is; ``/healthz`` and ``/metrics`` are
the gateway's own; anything else is 404, in the API's error shape.

With ``-v`` (the ``agent_lab.gateway.requests`` logger at INFO) every request
gets one line: method, path, status, how it was answered, the rule, the time.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agent_lab.answering import Answerer
from agent_lab.clock import SystemClock
from agent_lab.gateway.admission import Admission, credentials
from agent_lab.gateway.body import Refused, read_body
from agent_lab.gateway.enforce import Answering, local_response
from agent_lab.gateway.exchange import Exchange
from agent_lab.gateway.intake import REFUSALS, read_body_bytes
from agent_lab.gateway.metrics import GatewayMetrics
from agent_lab.gateway.overhead import AnsweredBy, RequestTime
from agent_lab.gateway.relay import (
    JSON,
    Answered,
    Redact,
    error_response,
    failure_response,
    relay,
)
from agent_lab.gateway.request_headers import REFERENCE_HEADER, reference_date, upstream_headers
from agent_lab.gateway.routes import route
from agent_lab.gateway.settings import Mode
from agent_lab.gateway.store import ExchangeStore
from agent_lab.gateway.trust import Trust
from agent_lab.gateway.upstream import Upstream, UpstreamFailure
from agent_lab.gateway.wire_rules import over_bounds
from agent_lab.providers.redaction import Redactor
from agent_lab.resolvers.learned import load_rules

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Callable

    from starlette.types import ASGIApp, Receive, Scope, Send

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.gateway.settings import GatewaySettings
    from agent_lab.gateway.spans import DecisionSpans

__all__ = ["Gateway", "no_plugins"]

_LOG = logging.getLogger(__name__)
_REQUESTS = logging.getLogger("agent_lab.gateway.requests")
"""One line per request, at INFO (``agent-lab serve -v``)."""
_CLOCK = SystemClock()
_ANSWERED: dict[str, AnsweredBy] = {
    "local": "local",
    "forwarded": "upstream",
    "refused": "refused",
}


def no_plugins() -> PluginSet | None:
    """No plugin set: the schema-driven resolver for every tool."""
    return None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Gateway:
    """One process's gateway: the upstream pool, the store's writer, the trust, the counters.

    Args:
        settings: What ``agent-lab serve`` was told.
        load_plugins: The user's plugin set, or ``None`` for the schema-driven resolver
            alone; called here and once in the store's writer process (picklable).
        keys: The gateway's own key and the upstream's, read from the variables the
            settings name (``None`` each when not named).
        make_spans: Called once in the writer process: what makes each row's span.
    """

    def __init__(
        self,
        settings: GatewaySettings,
        *,
        load_plugins: Callable[[], PluginSet | None] = no_plugins,
        keys: tuple[str | None, str | None] = (None, None),
        make_spans: Callable[[], DecisionSpans | None] | None = None,
    ) -> None:
        self.settings = settings
        self.load_plugins = load_plugins
        self.rules = None if settings.rules is None else load_rules(settings.rules)
        self.answerer = Answerer(
            load_plugins(), rules=self.rules, read=settings.read, ask=settings.ask
        )
        self.key, self.upstream_key = keys
        # The upstream's key, which a client holding the gateway's must never be shown.
        self._unechoed = (
            Redact(Redactor((self.upstream_key,)), hold=6 * len(self.upstream_key))
            if self.upstream_key
            else None
        )
        self.metrics = GatewayMetrics()
        self.upstream = Upstream(
            settings.upstream,
            timeout=settings.upstream_timeout,
            connect_timeout=settings.connect_timeout,
            connections=settings.max_in_flight,
            max_body_bytes=settings.max_upstream_body_bytes,
            pass_cors=settings.pass_cors,
        )
        self.trust = Trust(
            settings.enforce,
            store=settings.db,
            min_agreement=settings.min_agreement if settings.mode is Mode.ENFORCE else None,
        )
        self._make_spans = make_spans
        self.store: ExchangeStore | None = None
        self.admission = Admission(
            key=self.key,
            instance=settings.instance,
            max_in_flight=settings.max_in_flight,
            metrics=self.metrics,
        )
        routes = [
            Route("/healthz", self._health, methods=["GET"]),
            Route("/metrics", self._metrics, methods=["GET"]),
        ]
        self._app = Starlette(routes=routes, lifespan=self._lifespan)
        self._app.add_exception_handler(404, self._not_found)
        self._app.add_exception_handler(405, self._not_allowed)
        self._app.add_exception_handler(Exception, self._internal)

    @contextlib.asynccontextmanager
    async def _lifespan(self, _: Starlette) -> AsyncGenerator[None]:
        await self.upstream.start()
        if self.settings.db is not None or self._make_spans is not None:
            self.store = ExchangeStore(
                self.settings.db,
                load_plugins=self.load_plugins,
                read=self.settings.read,
                capacity=self.settings.store_queue,
                make_spans=self._make_spans,
                rules=self.rules,
            )
            self.metrics.watch(self.store)
        self.trust.start(self.settings.trust_refresh_seconds)
        try:
            yield
        finally:
            # Reached once the server has finished the requests in flight.
            self.trust.stop()
            await self.upstream.close()
            if self.store is not None:
                self.store.close()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Admission, then the routes."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        path = str(scope["path"])
        if not path.startswith("/v1/"):
            locked = self.admission.unauthorized(scope) if path == "/metrics" else None
            await (locked or self._app)(scope, receive, send)
            return
        took = RequestTime(started=_CLOCK.monotonic_ns())
        self.metrics.requests.inc()
        refused = self.admission.refusal(scope)
        if refused is not None:
            _logged(scope, refused.status_code, "refused", "admission", took.started)
            took.say(refused, _CLOCK.monotonic_ns(), self.metrics)
            await refused(scope, receive, send)
            return
        self.admission.in_flight += 1
        self.metrics.in_flight.inc()
        try:
            # Every /v1 path is routed here, on its bytes: Starlette's path pattern would
            # never match a decoded line break, and would answer a 404 of its own.
            request = Request(scope, receive)
            try:
                response = await self._v1(request, took)
            except Exception as error:  # noqa: BLE001  (answered as the API's 500, logged)
                response = await self._internal(request, error)
                took.answered = "failed"
            took.say(response, _CLOCK.monotonic_ns(), self.metrics)
            await response(scope, receive, send)
        finally:
            self.admission.in_flight -= 1
            self.metrics.in_flight.dec()

    def _upstream_headers(self, request: Request) -> dict[str, str]:
        return upstream_headers(
            request.headers,
            keep_authorization=self.key is None,
            upstream_key=self.upstream_key,
            via=self.admission.via,
        )

    def secrets(self, request: Request) -> tuple[str, ...]:
        """Every key this request carries or the gateway holds: redacted from what is stored."""
        given = credentials(request.scope)
        return tuple(key for key in (*given, self.key, self.upstream_key) if key)

    async def _body(self, request: Request) -> bytes | Response:
        return await read_body_bytes(
            request,
            cap=self.settings.max_body_bytes,
            seconds=self.settings.body_timeout,
            metrics=self.metrics,
        )

    async def _v1(self, request: Request, took: RequestTime) -> Response:
        started = took.started
        routed = route(request.method, _raw_path(request.scope))
        match routed.outcome:
            case "chat":
                response, answered, rule = await self._chat(request, took)
            case "forward":
                response, answered, rule = await self._passthrough(request, routed.path, took)
            case "bad_path":
                self.metrics.refused.labels("bad_path").inc()
                response = error_response(
                    400,
                    f"Invalid URL ({request.method} {_shown(_raw_path(request.scope))}): "
                    f"{routed.why}; the gateway forwards only the API's own paths under /v1",
                    type="invalid_request_error",
                    code="invalid_path",
                )
                answered, rule = "refused", "bad_path"
            case "not_found":
                response = await self._not_found(request, None)
                answered, rule = "refused", "not_found"
            case "not_allowed":
                response = await self._not_allowed(request, None)
                answered, rule = "refused", "not_allowed"
        _logged(request.scope, response.status_code, answered, rule, started)
        took.answered = _ANSWERED[answered]
        return response

    async def _chat(self, request: Request, took: RequestTime) -> tuple[Response, str, str]:
        at = _now()
        body = await self._body(request)
        if isinstance(body, Response):
            return body, "refused", REFUSALS.get(body.status_code, "body")
        read = read_body(body, max_bytes=self.settings.max_body_bytes)
        if isinstance(read, Refused):
            self.metrics.refused.labels("invalid_request").inc()
            refusal = error_response(
                400, read.message, type="invalid_request_error", code=read.code, param=read.param
            )
            return refusal, "refused", "invalid_request"
        told = reference_date(request.headers, self.settings.reference_date)
        if not told.valid:
            self.metrics.refused.labels("invalid_request").inc()
            refusal = error_response(
                400,
                f"the {REFERENCE_HEADER} header must be an ISO 8601 date or time",
                type="invalid_request_error",
                code="invalid_reference_date",
            )
            return refusal, "refused", "invalid_reference_date"
        reference = told.date
        rule = read.undecided or "shadow"
        if read.value is not None and self.settings.mode is Mode.ENFORCE:
            answering = Answering(answerer=self.answerer, trust=self.trust, store=self.store)
            local = local_response(
                answering,
                read.value,
                body,
                at=at,
                reference_date=reference,
                secrets=self.secrets(request),
            )
            if not isinstance(local, str):
                self.metrics.answered_locally.inc()
                return local[0], "local", local[1]
            rule = local
        elif read.value is not None and over_bounds(read.value):
            rule = "over_bounds"
        if rule == "over_bounds":
            self.metrics.undecided.labels("over_bounds").inc()
        forwarded = await self._forward(
            request, body, "chat/completions", at=at, took=took, reference_date=reference
        )
        return forwarded, "forwarded", rule

    async def _passthrough(
        self, request: Request, path: str, took: RequestTime
    ) -> tuple[Response, str, str]:
        body = await self._body(request)
        if isinstance(body, Response):
            return body, "refused", REFUSALS.get(body.status_code, "body")
        forwarded = await self._forward(request, body, path, at=None, took=took)
        return forwarded, "forwarded", "passthrough"

    async def _forward(
        self,
        request: Request,
        body: bytes,
        path: str,
        *,
        at: str | None,
        took: RequestTime,
        reference_date: str | None = None,
    ) -> Response:
        self.metrics.forwarded.inc()
        sent = _CLOCK.monotonic_ns()
        answered = [sent]
        secrets = self.secrets(request) if at is not None else ()

        def finished(answer: Answered) -> None:
            answered[0] = _CLOCK.monotonic_ns()
            if not answer.streamed:  # a stream's end comes after the header is sent
                took.upstream = answered[0] - sent
            if at is None or self.store is None:
                return
            self.store.put(
                Exchange(
                    request_id=uuid.uuid4().hex,
                    at=at,
                    origin="upstream",
                    request=body,
                    response=answer.body,
                    streamed=answer.streamed,
                    status=answer.status,
                    latency_ms=(answered[0] - sent) / 1e6,
                    error=answer.error,
                    secrets=secrets,
                    reference_date=reference_date,
                )
            )

        try:
            reply = await self.upstream.send(
                request.method,
                path,
                query=request.url.query,
                headers=self._upstream_headers(request),
                body=body,
            )
        except UpstreamFailure as failure:
            self.metrics.upstream_failures.labels(failure.code).inc()
            finished(Answered(status=failure.status, body=b"", error=failure.code))
            return failure_response(failure)
        took.upstream = _CLOCK.monotonic_ns() - sent  # the headers came: a stream's share
        return await relay(
            reply,
            check_json=at is not None,
            finished=finished,
            on_failure=lambda reason: self.metrics.upstream_failures.labels(reason).inc(),
            hint=self.upstream.hint,
            redact=self._unechoed,
        )

    async def _health(self, _: Request) -> Response:
        return Response(b'{"status": "ok"}', media_type=JSON)

    async def _metrics(self, _: Request) -> Response:
        text, kind = self.metrics.render()
        return Response(text, media_type=kind)

    async def _not_found(self, request: Request, _: Exception | None) -> Response:
        return error_response(
            404,
            f"Invalid URL ({request.method} {request.url.path})",
            type="invalid_request_error",
            code=None,
        )

    async def _not_allowed(self, request: Request, _: Exception | None) -> Response:
        return error_response(
            405,
            f"Method {request.method} not allowed here",
            type="invalid_request_error",
            code=None,
        )

    async def _internal(self, _: Request, error: Exception) -> Response:
        # Nothing a client or an upstream sends may crash the gateway: logged, answered 500.
        _LOG.error("unexpected failure serving a request: %s", type(error).__name__)
        return error_response(
            500, "the gateway failed to serve this request", type="server_error", code=None
        )


def _logged(scope: Scope, status: int, answered: str, rule: str, started: int) -> None:
    """The request's one line at INFO: fixed words and numbers, and its method and path.

    Nothing else the client sent is logged; the CLI's formatter escapes what could
    reorder or hide text.
    """
    if _REQUESTS.isEnabledFor(logging.INFO):
        took = (_CLOCK.monotonic_ns() - started) / 1e6
        path = _shown(_raw_path(scope))
        _REQUESTS.info(
            "%s %s %d %s %s %.2f ms", scope["method"], path, status, answered, rule, took
        )


def _raw_path(scope: Scope) -> bytes:
    """The path as the client sent it (uvicorn's ``raw_path``), never decoded."""
    raw = scope.get("raw_path")
    return bytes(raw) if isinstance(raw, bytes | bytearray) else str(scope["path"]).encode()


def _shown(raw: bytes) -> str:
    """A path fit for one line: its bytes as text, anything unprintable as an escape."""
    return raw.decode("ascii", "backslashreplace").encode("unicode_escape").decode("ascii")


def asgi(gateway: Gateway) -> ASGIApp:
    """The gateway as the ASGI callable a server runs."""
    return gateway
