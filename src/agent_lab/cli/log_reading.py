"""The logs ``shadow`` and ``import logs`` read: the options they share, the files, the settings."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.cli import checks
from agent_lab.errors import UsageError
from agent_lab.exchange_stores import TimeWindow, is_postgres, safe_name
from agent_lab.exchange_stores.sqlite import MAGIC
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
        help="log files: chat, pairs or otel JSON lines, plain, gzipped or Parquet; or a "
        "gateway's store: its SQLite file, or a postgresql:// address (the postgres extra)",
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
    for bound, said in (("--since", "at or after"), ("--until", "before")):
        command.add_argument(
            bound,
            type=checks.iso_date_or_time,
            metavar="ISO",
            help=f"of a gateway's store, only the requests that arrived {said} this date or "
            "time, e.g. 2026-12-06T09:00 (UTC unless it says its offset) (default: all)",
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
    """Each file, as the engine opens it (a local path or an object-store address), or a
    gateway's PostgreSQL store."""
    local: list[Path]
    """The local ones: outputs must be kept apart from them."""
    engine: RayEngine | None
    """``None``: this machine."""


def log_sources(options: argparse.Namespace, *, local_workers: bool) -> LogSources:
    """The logs the options name, checked, for the engine they name."""
    databases = [name for name in options.logs if is_postgres(name)]
    if databases and options.engine == "ray":
        raise UsageError(
            f"{safe_name(databases[0])}: a gateway's store is read in one process; use "
            "--engine local"
        )
    if options.engine == "ray" and (options.since or options.until):
        raise UsageError("--since and --until select a gateway store's rows: use --engine local")
    if options.engine == "ray":
        from agent_lab.lab.shadow.ray_blocks import RayEngine, log_sources  # noqa: PLC0415

        names = log_sources(options.logs)
        local = [Path(name) for name in names if "://" not in name]
        return LogSources(names, local, RayEngine(workers=options.workers))
    if options.workers is not None and options.workers > 1 and not local_workers:
        raise UsageError("--workers needs --engine ray here: one process reads the logs")
    paths = log_paths([name for name in options.logs if not is_postgres(name)])
    if (options.since or options.until) and not databases and not any(map(_is_store, paths)):
        raise UsageError("--since and --until select a gateway store's rows: name a store")
    files = iter(paths)
    names = [name if is_postgres(name) else str(next(files)) for name in options.logs]
    return LogSources(names, paths, None)


def _is_store(path: Path) -> bool:
    """Whether ``path`` is a SQLite file (a gateway's store, or not readable as a log)."""
    try:
        with path.open("rb") as file:
            return file.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


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
        window=_window(options),
    )


def _window(options: argparse.Namespace) -> TimeWindow | None:
    since, until = getattr(options, "since", None), getattr(options, "until", None)
    if since is None and until is None:
        return None
    window = TimeWindow(
        None if since is None else datetime.fromisoformat(since),
        None if until is None else datetime.fromisoformat(until),
    )
    if window.since is not None and window.until is not None:
        start, end = window.bounds()
        if start is not None and end is not None and start >= end:
            raise UsageError(f"--since {since} is not before --until {until}: no request is both")
    return window
