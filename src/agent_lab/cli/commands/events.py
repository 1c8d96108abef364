"""``agent-lab events``: each event of a plugin set, with its JSON Schema."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from agent_lab.cli.loading import load_plugin_set, plugin_registry
from agent_lab.lab.report.terminal import printable
from agent_lab.strict_json import thaw_json

if TYPE_CHECKING:
    import argparse

    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser
    from agent_lab.kernel.registry import EventRegistry

__all__ = ["add_command", "handle"]


def add_command(add_parser: AddParser) -> None:
    """Add ``events`` and its options to the command line."""
    events = add_parser("events", help="list a plugin set's events and schemas")
    events.add_argument("--plugins", required=True, help="MODULE:ATTRIBUTE or an imported folder")
    events.add_argument(
        "--summary",
        action="store_true",
        help="one line per event (its required fields, then its optional ones), and the count",
    )
    events.set_defaults(handler=handle)


def handle(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab events``: each event of a plugin set, with its JSON Schema."""
    registry = plugin_registry(load_plugin_set(options.plugins), options.plugins)
    names = [definition.name for definition in registry]
    if options.summary:
        # An imported benchmark holds a thousand events: one line each, then the count.
        for definition in registry:
            print(printable(_summary_line(definition.name, registry)), file=streams.out)
        print(f"{len(names)} events", file=streams.out)
        return 0
    for definition in registry:
        print(printable(f"{definition.name}: {definition.description}"), file=streams.out)
        print(json.dumps(thaw_json(registry.schema(definition.name)), indent=2), file=streams.out)
    return 0


def _summary_line(name: str, registry: EventRegistry) -> str:
    """``name (required, ...; optional: ...)``: what a request must hold, and what it may."""
    schema = thaw_json(registry.schema(name))
    schema = schema if isinstance(schema, dict) else {}
    raw, properties = schema.get("required"), schema.get("properties")
    required = [str(r) for r in raw] if isinstance(raw, list) else []
    optional = [p for p in properties if p not in required] if isinstance(properties, dict) else []
    shown = ", ".join(required) or "nothing required"
    return f"{name} ({shown}; optional: {', '.join(optional)})" if optional else f"{name} ({shown})"
