"""The logs ``shadow`` and ``import logs`` read: the options they share, the files, the settings."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.cli import checks
from agent_lab.errors import UsageError
from agent_lab.logs.record import LogFormat

if TYPE_CHECKING:
    import argparse

    from agent_lab.lab.shadow.ray_blocks import RayEngine
    from agent_lab.lab.shadow.run import ShadowSettings

__all__ = [
    "LogSources",
    "add_engine_options",
    "add_log_options",
    "log_paths",
    "log_sources",
    "settings_of",
]


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


def add_engine_options(command: argparse.ArgumentParser, *, local_workers: bool) -> None:
    """``--engine`` and ``--workers``: where the logs are read (``local_workers``: in processes)."""
    command.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: this machine (the default); ray: Ray Data, on RAY_ADDRESS's cluster or a "
        "local Ray, reading files, folders, globs and object-store addresses (the ray extra)",
    )
    where = "processes, or with --engine ray" if local_workers else "with --engine ray,"
    command.add_argument(
        "--workers",
        type=checks.positive_count,
        help=f"{where} Ray workers (default 1; with ray, up to the cluster's CPUs)",
    )


@dataclass(frozen=True, slots=True)
class LogSources:
    """The logs named, and where they are read."""

    names: list[str]
    """Each file, as the engine opens it (a local path or an object-store address)."""
    local: list[Path]
    """The local ones: outputs must be kept apart from them."""
    engine: RayEngine | None
    """``None``: this machine."""


def log_sources(options: argparse.Namespace, *, local_workers: bool) -> LogSources:
    """The logs the options name, checked, for the engine they name."""
    if options.engine == "ray":
        from agent_lab.lab.shadow.ray_blocks import RayEngine, log_sources  # noqa: PLC0415

        names = log_sources(options.logs)
        local = [Path(name) for name in names if "://" not in name]
        return LogSources(names, local, RayEngine(workers=options.workers))
    if options.workers is not None and options.workers > 1 and not local_workers:
        raise UsageError("--workers needs --engine ray here: one process reads the logs")
    paths = log_paths(options.logs)
    return LogSources([str(path) for path in paths], paths, None)


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
