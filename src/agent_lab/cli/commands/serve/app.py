"""The gateway a serving process runs: built from the command's settings, or in each worker.

A worker started by ``--workers N`` imports ``gateway_app`` by name and reads
its settings and its ``-v`` from the environment the command set.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import TYPE_CHECKING

from agent_lab.cli.loading import load_plugin_set, plugin_registry
from agent_lab.cli.verbosity import log_for_life
from agent_lab.errors import UsageError
from agent_lab.lab.run.plugin_sets import load_plugins

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.gateway import Gateway, GatewaySettings

__all__ = ["SETTINGS_ENV", "VERBOSITY_ENV", "build_gateway", "gateway_app"]

SETTINGS_ENV = "AGENT_LAB_GATEWAY_SETTINGS"
"""The settings as JSON, for the worker processes (names of key variables, never keys; but a
``--db`` URL as given, with a password if it holds one: the docs say to use ``PGPASSWORD``)."""
VERBOSITY_ENV = "AGENT_LAB_GATEWAY_VERBOSITY"
"""``-v`` counted, for the worker processes: their log lines reach stderr as the command's do."""


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


def _key(name: str | None, option: str) -> str | None:
    if name is None:
        return None
    value = os.environ.get(name, "").strip()
    if not value:
        raise UsageError(f"{option} {name}: the variable is not set")
    return value
