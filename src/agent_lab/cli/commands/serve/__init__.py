"""``agent-lab serve``: the gateway on uvicorn, in one process or ``--workers N``.

The stack: Starlette (the ASGI app) on uvicorn with httptools and uvloop,
the pairing most Python ASGI services run, maintained by the Encode team;
forwarding through aiohttp's client, already a dependency. Everything is
imported when the command runs (``agent-lab --help`` stays fast), and only
with the ``gateway`` extra installed.

With ``--workers N``, uvicorn's supervisor binds the socket once and starts N
processes that each build the app from the settings in ``SETTINGS_ENV``
(``app.gateway_app``) and log to stderr as ``-v`` asked (``VERBOSITY_ENV``); the
counters of all of them are summed through ``PROMETHEUS_MULTIPROC_DIR``, a
folder made for this run. What the command checks before it listens is in
``preflight``.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from typing import TYPE_CHECKING

from agent_lab.cli import checks
from agent_lab.cli.commands.serve import app
from agent_lab.cli.commands.serve.app import SETTINGS_ENV, VERBOSITY_ENV
from agent_lab.cli.commands.serve.preflight import check_not_itself, start_warnings, trusted
from agent_lab.errors import AgentLabError, ArgumentError, StoreError, UsageError
from agent_lab.exchange_stores import open_exchanges, safe_name
from agent_lab.lab.report.terminal import printable
from agent_lab.providers.redaction import split_credentials, url_problem

if TYPE_CHECKING:
    import argparse

    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser
    from agent_lab.gateway import GatewaySettings

__all__ = ["add_command", "handle"]

_EXTRA = "pip install 'agent-lab[gateway]' (or uv sync --extra gateway)"


def add_command(add_parser: AddParser) -> None:
    """Add ``serve``: the upstream, the mode, the store, the limits, the trust."""
    serve = add_parser(
        "serve",
        help="an OpenAI-compatible gateway in front of your model: shadow, or answer locally",
    )
    serve.add_argument(
        "--upstream",
        required=True,
        metavar="URL",
        help="the base URL your assistant calls today",
    )
    serve.add_argument(
        "--mode",
        choices=("shadow", "enforce"),
        default="shadow",
        help="shadow: forward everything, store the decision beside the answer; enforce: "
        "answer covered requests for trusted tools locally (default shadow)",
    )
    serve.add_argument(
        "--plugins", help="MODULE:ATTRIBUTE or a folder: your own resolvers for your tools"
    )
    serve.add_argument(
        "--rules", help="a rules file agent-lab learn wrote: the schema-driven resolver applies it"
    )
    serve.add_argument(
        "--db",
        default="gateway.sqlite",
        help="the store: every finished request and its decision, in a SQLite file or a "
        "postgresql:// database replicas share (the postgres extra) (default gateway.sqlite); "
        "agent-lab shadow reads it",
    )
    serve.add_argument(
        "--no-store", action="store_true", help="store nothing (spans and metrics only)"
    )
    serve.add_argument(
        "--enforce",
        action="append",
        metavar="TOOL",
        help="enforce: a tool trusted to be answered locally (repeat for several)",
    )
    serve.add_argument(
        "--min-agreement",
        type=checks.fraction,
        help="enforce: also trust a tool whose shadow agreement in the store clears this at "
        "its interval's lower bound (e.g. 0.99)",
    )
    serve.add_argument(
        "--trust-refresh",
        type=checks.positive_seconds,
        default=60.0,
        metavar="SECONDS",
        help="enforce: how often earned trust is read again from the store, the rows written "
        "since by every replica (default 60)",
    )
    serve.add_argument(
        "--reference-date",
        type=checks.iso_date_or_time,
        metavar="ISO",
        help="read relative dates (tomorrow, friday) against this date, e.g. 2026-12-06 "
        "(default: each request's arrival time; a request's x-agent-lab-reference-date header "
        "overrides either)",
    )
    serve.add_argument(
        "--no-ask",
        action="store_true",
        help="enforce: forward a request missing a value only the user can supply, or asking "
        "for a value the tool's schema forbids, instead of asking for it or saying what is "
        "wrong, as the framework wrappers do (default: ask)",
    )
    _serving_options(serve)
    serve.set_defaults(handler=handle)


def _serving_options(serve: argparse.ArgumentParser) -> None:
    """Where it listens, the keys, and the limits."""
    serve.add_argument("--host", default="127.0.0.1", help="bind here (default 127.0.0.1)")
    serve.add_argument("--port", type=checks.port, default=8080, help="(default 8080)")
    serve.add_argument(
        "--workers", type=checks.positive_count, default=1, help="processes (default 1)"
    )
    serve.add_argument(
        "--api-key-env",
        metavar="NAME",
        help="require clients to send the key this variable holds (then it is not forwarded)",
    )
    serve.add_argument(
        "--upstream-key-env",
        metavar="NAME",
        help="send the upstream the key this variable holds (default: the client's own)",
    )
    serve.add_argument(
        "--max-body-bytes",
        type=checks.positive_count,
        default=8 << 20,
        help="refuse larger request bodies with 413 (default 8 MiB)",
    )
    serve.add_argument(
        "--max-upstream-body-bytes",
        type=checks.positive_count,
        default=64 << 20,
        help="answer 502 for a larger non-streamed upstream answer, read no further "
        "(default 64 MiB)",
    )
    serve.add_argument(
        "--upstream-timeout",
        type=checks.positive_seconds,
        default=600.0,
        help="seconds a forwarded request may take, whole (default 600)",
    )
    serve.add_argument(
        "--max-in-flight",
        type=checks.positive_count,
        default=512,
        help="requests served at once per process; more get 429 with Retry-After (default 512)",
    )
    serve.add_argument(
        "--body-timeout",
        type=checks.positive_seconds,
        default=10.0,
        help="seconds a client has to send a request's whole body; later, 408 and the "
        "connection closed (default 10)",
    )
    serve.add_argument(
        "--pass-cors",
        action="store_true",
        help="relay the upstream's access-control-* headers (by default the gateway drops them, "
        "as it drops its cookies)",
    )
    serve.add_argument(
        "--read",
        choices=("last", "user_turns"),
        default="last",
        help="what of a conversation the resolvers read (default last)",
    )


def handle(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab serve --upstream URL``: serve until interrupted (SIGINT or SIGTERM)."""
    try:
        import uvicorn  # noqa: PLC0415

        from agent_lab.gateway.connections import with_header_deadline  # noqa: PLC0415
    except ImportError as err:
        raise UsageError(f"agent-lab serve needs the gateway extra: {_EXTRA}") from err
    settings = _settings(options)
    # Every problem is said here, before a worker starts.
    gateway = app.build_gateway(settings, spans=options.workers == 1)
    if settings.db is not None:
        try:
            # Created, or its schema brought up to date, before a worker starts.
            open_exchanges(settings.db, create=True).close()
        except StoreError as err:
            raise UsageError(str(err)) from err
    for warning in start_warnings(settings):
        print(printable(f"agent-lab serve: warning: {warning}"), file=streams.err)
    where = split_credentials(settings.upstream)[0]
    trust = trusted(settings)
    trusting = "" if trust is None else f"; trusted: {trust}"
    dates = settings.reference_date or "each request's arrival time"
    store = "none" if settings.db is None else safe_name(settings.db)
    print(
        printable(
            f"agent-lab serve: http://{options.host}:{options.port} ({settings.mode} mode, "
            f"{options.workers} worker(s)) -> {where}; store: {store}"
            f"{trusting}; relative dates against {dates}"
        ),
        file=streams.err,
        flush=True,
    )
    common: dict[str, object] = {
        "host": options.host,
        "port": options.port,
        "lifespan": "on",
        "access_log": False,
        "log_level": "warning",
        "server_header": False,
        "timeout_graceful_shutdown": int(settings.graceful_seconds),
        "backlog": 2048,
        # A connection's request headers are due within --body-timeout too.
        "http": with_header_deadline(settings.body_timeout),
    }
    # uvicorn stops gracefully on SIGTERM, then raises it again for the handler it found:
    # one that ignores it lets the command return 0, its finalizers run, after a clean stop.
    signal.signal(signal.SIGTERM, _stopped)
    if options.workers == 1:
        uvicorn.run(gateway, **common)  # type: ignore[arg-type]
        return 0
    folder = tempfile.mkdtemp(prefix="agent-lab-metrics-")
    os.environ[SETTINGS_ENV] = settings.to_json()
    os.environ[VERBOSITY_ENV] = str(int(getattr(options, "verbose", 0)))
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
    try:
        uvicorn.run(
            "agent_lab.cli.commands.serve.app:gateway_app",
            factory=True,
            workers=options.workers,
            **common,  # type: ignore[arg-type]
        )
    except AgentLabError as err:
        raise UsageError(str(err)) from err
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


def _stopped(_signal: int, _frame: object) -> None:
    """SIGTERM after uvicorn's graceful stop: nothing left to do."""


def _settings(options: argparse.Namespace) -> GatewaySettings:
    from agent_lab.gateway import GatewaySettings, Mode  # noqa: PLC0415

    problem = url_problem(options.upstream)
    if problem is not None:
        raise UsageError(f"--upstream: {problem}")
    check_not_itself(options.upstream, host=options.host, port=options.port)
    try:
        return GatewaySettings(
            upstream=options.upstream,
            mode=Mode(options.mode),
            db=None if options.no_store else options.db,
            plugins=options.plugins,
            rules=_rules(options.rules),
            read=options.read,
            ask=not options.no_ask,
            reference_date=options.reference_date,
            enforce=tuple(options.enforce or ()),
            min_agreement=options.min_agreement,
            trust_refresh_seconds=options.trust_refresh,
            api_key_env=options.api_key_env,
            upstream_key_env=options.upstream_key_env,
            max_body_bytes=options.max_body_bytes,
            max_upstream_body_bytes=options.max_upstream_body_bytes,
            upstream_timeout=options.upstream_timeout,
            max_in_flight=options.max_in_flight,
            body_timeout=options.body_timeout,
            pass_cors=options.pass_cors,
        )
    except ArgumentError as err:
        raise UsageError(str(err)) from err


def _rules(path: str | None) -> str | None:
    """The rules file, read once here so that a bad one is one line before any worker starts."""
    if path is not None:
        from agent_lab.resolvers.learned import load_rules  # noqa: PLC0415

        load_rules(path)
    return path
