"""The logs ``shadow`` and ``import logs`` read: the options they share, the files, the settings."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.errors import UsageError
from agent_lab.logs.record import LogFormat

if TYPE_CHECKING:
    import argparse

    from agent_lab.lab.shadow.run import ShadowSettings

__all__ = ["add_log_options", "log_paths", "settings_of"]


def add_log_options(command: argparse.ArgumentParser) -> None:
    """The options every command that reads logs shares."""
    command.add_argument(
        "logs",
        nargs="+",
        help="log files: chat, pairs or otel JSON lines, plain, gzipped or Parquet",
    )
    command.add_argument(
        "--format",
        choices=[str(f) for f in LogFormat],
        help="read every file in this format (default: detected per file)",
    )
    command.add_argument(
        "--plugins",
        help="MODULE:ATTRIBUTE or a folder: your own resolvers and routes for the tools they "
        "name (default: the schema-driven resolver for every tool)",
    )
    command.add_argument(
        "--read",
        choices=("last", "user_turns"),
        default="last",
        help="what of a conversation the resolvers read: its last user message, or every "
        "user message so far (default last)",
    )
    command.add_argument(
        "--skip-bad-lines",
        action="store_true",
        help="count a line that cannot be used, by reason, and go on (default: stop at it)",
    )


def log_paths(logs: list[str]) -> list[Path]:
    """The log files named, each a file that is there."""
    paths = [Path(name) for name in logs]
    for path in paths:
        if not path.exists():
            raise UsageError(f"{path}: no such log file")
        if path.is_dir():
            raise UsageError(f"{path} is a folder: name the log files in it")
    return paths


def settings_of(options: argparse.Namespace, *, workers: int = 1) -> ShadowSettings:
    """How to read and replay the logs, from the options every log command shares."""
    from agent_lab.lab.shadow.run import ShadowSettings  # noqa: PLC0415

    rules = getattr(options, "rules", None)
    if rules is not None:
        from agent_lab.resolvers.learned import load_rules  # noqa: PLC0415

        rules = load_rules(rules)
    return ShadowSettings(
        format=None if options.format is None else LogFormat(options.format),
        on_error="skip" if options.skip_bad_lines else "fail",
        read=options.read,
        workers=workers,
        rules=rules,
    )
