"""``agent-lab serve``: the gateway on uvicorn, in one process or ``--workers N``.

The stack: Starlette (the ASGI app) on uvicorn with httptools and uvloop,
the pairing most Python ASGI services run, maintained by the Encode team;
forwarding through aiohttp's client, already a dependency. Everything is
imported when the command runs (``agent-lab --help`` stays fast), and only
with the ``gateway`` extra installed.

With ``--workers N``, uvicorn's supervisor binds the socket once and starts N
processes that each build the app from the settings in ``SETTINGS_ENV``
(``gateway_app``) and log to stderr as ``-v`` asked (``VERBOSITY_ENV``); the
counters of all of them are summed through ``PROMETHEUS_MULTIPROC_DIR``, a
folder made for this run.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import sys
import tempfile
from typing import TYPE_CHECKING

from agent_lab.cli.loading import load_plugin_set, plugin_registry
from agent_lab.cli.serve_checks import check_not_itself, start_warnings, trusted
from agent_lab.cli.verbosity import log_for_life
from agent_lab.errors import AgentLabError, ArgumentError, StoreError, UsageError
from agent_lab.lab.report.terminal import printable
from agent_lab.lab.run.plugin_sets import load_plugins
from agent_lab.providers.redaction import split_credentials, url_problem

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.cli.loading import Streams
    from agent_lab.gateway import Gateway, GatewaySettings

__all__ = ["SETTINGS_ENV", "VERBOSITY_ENV", "gateway_app", "serve_command"]

SETTINGS_ENV = "AGENT_LAB_GATEWAY_SETTINGS"
"""The settings as JSON, for the worker processes (names of key variables, never keys)."""
VERBOSITY_ENV = "AGENT_LAB_GATEWAY_VERBOSITY"
"""``-v`` counted, for the worker processes: their log lines reach stderr as the command's do."""
_EXTRA = "pip install 'agent-lab[gateway]' (or uv sync --extra gateway)"


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
            enforce=tuple(options.enforce or ()),
            min_agreement=options.min_agreement,
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


def _key(name: str | None, option: str) -> str | None:
    if name is None:
        return None
    value = os.environ.get(name, "").strip()
    if not value:
        raise UsageError(f"{option} {name}: the variable is not set")
    return value


def build_gateway(settings: GatewaySettings, *, spans: bool = True) -> Gateway:
    """The gateway these settings describe, its plugins loaded and its keys read.

    ``spans``: export its decisions to the OTLP endpoint the environment names, if any
    (the spans are made in the store's writer process).

    Raises:
        UsageError: A key variable named but not set.
        InputError: A plugin reference that cannot be loaded.
    """
    from agent_lab.gateway import Gateway  # noqa: PLC0415
    from agent_lab.gateway.app import no_plugins  # noqa: PLC0415
    from agent_lab.gateway.spans import spans_from_environment  # noqa: PLC0415

    load: Callable[[], PluginSet | None] = no_plugins
    if settings.plugins is not None:
        plugin_registry(load_plugin_set(settings.plugins), settings.plugins)
        load = functools.partial(load_plugins, settings.plugins)
    keys = (
        _key(settings.api_key_env, "--api-key-env"),
        _key(settings.upstream_key_env, "--upstream-key-env"),
    )
    return Gateway(
        settings,
        load_plugins=load,
        keys=keys,
        make_spans=spans_from_environment() if spans else None,
    )


def gateway_app() -> Gateway:
    """The app factory uvicorn calls in each worker process: the settings from ``SETTINGS_ENV``."""
    from agent_lab.gateway import GatewaySettings  # noqa: PLC0415

    verbosity = os.environ.get(VERBOSITY_ENV, "")
    log_for_life(sys.stderr, int(verbosity) if verbosity.isdigit() else 0)
    return build_gateway(GatewaySettings.from_json(os.environ[SETTINGS_ENV]))


def _stopped(_signal: int, _frame: object) -> None:
    """SIGTERM after uvicorn's graceful stop: nothing left to do."""


def serve_command(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab serve --upstream URL``: serve until interrupted (SIGINT or SIGTERM)."""
    try:
        import uvicorn  # noqa: PLC0415

        from agent_lab.gateway.connections import with_header_deadline  # noqa: PLC0415
        from agent_lab.gateway.store import open_store  # noqa: PLC0415
    except ImportError as err:
        raise UsageError(f"agent-lab serve needs the gateway extra: {_EXTRA}") from err
    settings = _settings(options)
    # Every problem is said here, before a worker starts.
    gateway = build_gateway(settings, spans=options.workers == 1)
    if settings.db is not None:
        try:
            open_store(settings.db).close()
        except StoreError as err:
            raise UsageError(str(err)) from err
    for warning in start_warnings(settings):
        print(printable(f"agent-lab serve: warning: {warning}"), file=streams.err)
    where = split_credentials(settings.upstream)[0]
    trust = trusted(settings)
    trusting = "" if trust is None else f"; trusted: {trust}"
    print(
        printable(
            f"agent-lab serve: http://{options.host}:{options.port} ({settings.mode} mode, "
            f"{options.workers} worker(s)) -> {where}; store: {settings.db or 'none'}"
            f"{trusting}"
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
            "agent_lab.cli.serving:gateway_app",
            factory=True,
            workers=options.workers,
            **common,  # type: ignore[arg-type]
        )
    except AgentLabError as err:
        raise UsageError(str(err)) from err
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0
