"""What the command line checks before it starts: numbers in range, writable outputs."""

from __future__ import annotations

import argparse
import math
import os
import stat
import tempfile
from datetime import datetime
from pathlib import Path

from agent_lab.errors import UsageError

__all__ = [
    "check_output_file",
    "check_output_folder",
    "check_outputs_apart",
    "concurrency",
    "count",
    "fraction",
    "iso_date_or_time",
    "latency_pair",
    "margins",
    "port",
    "positive_count",
    "positive_rate",
    "positive_seconds",
]

MAX_CONCURRENCY = 4096
"""More trials at once than any endpoint serves; a worker costs memory (3 million took 3.1 GB)."""


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def count(text: str) -> int:
    """A whole number >= 0 (``--warmup``, ``--seed``)."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; give 0 or more")
    return value


def positive_count(text: str) -> int:
    """A whole number >= 1 (``--repeats``, ``--limit``, ``--examples``)."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is less than 1")
    return value


MAX_PORT = 65_535
"""The largest TCP port: a larger number would be taken modulo 65,536 by the socket."""


def iso_date_or_time(text: str) -> str:
    """An ISO 8601 date or date and time (``--reference-date``), as given."""
    try:
        datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an ISO 8601 date or time, such as 2026-12-06 or 2026-12-06T09:00"
        ) from None
    return text


def port(text: str) -> int:
    """A TCP port, 0 to ``MAX_PORT`` (``--port``; 0 asks for any free one)."""
    value = count(text)
    if value > MAX_PORT:
        raise argparse.ArgumentTypeError(f"{value} is not a port: give 0 to {MAX_PORT}")
    return value


def concurrency(text: str) -> int:
    """Trials at once: 1 to ``MAX_CONCURRENCY``."""
    value = positive_count(text)
    if value > MAX_CONCURRENCY:
        raise argparse.ArgumentTypeError(f"{value} is more than {MAX_CONCURRENCY}")
    return value


def _finite(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def positive_seconds(text: str) -> float:
    """A finite duration > 0 (``--timeout``)."""
    value = _finite(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not more than 0 seconds")
    return value


def positive_rate(text: str) -> float:
    """Trials per second, at least one per day and finite (``--rate-limit``)."""
    value = _finite(text)
    if value < 1 / 86_400:
        raise argparse.ArgumentTypeError(f"{text!r} is below one trial a day")
    return value


def fraction(text: str) -> float:
    """A share in [0, 1] (``--max-failure-rate``)."""
    value = _finite(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a share in [0, 1]")
    return value


def non_negative(text: str) -> float:
    """A finite number >= 0 (``--max-cost-increase``)."""
    value = _finite(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is below 0")
    return value


def signed_fraction(text: str) -> float:
    """A change of a share, in [-1, 1] (``--min-accuracy-change``)."""
    value = _finite(text)
    if not -1.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not in [-1, 1]")
    return value


def margins(text: str) -> list[float]:
    """``M1,M2,...``: relative margins, each in [0, 1] (``agent-lab routing --margins``)."""
    return _shares(text, "margins")


def name_shares(text: str) -> list[float]:
    """``S1,S2,...``: shares of an event's name words, each in [0, 1] (``--name-shares``)."""
    return _shares(text, "name shares")


def _shares(text: str, what: str) -> list[float]:
    values = [_finite(part) for part in text.split(",") if part.strip()]
    if not values or any(not 0.0 <= value <= 1.0 for value in values):
        raise argparse.ArgumentTypeError(f"{text!r}: give one or more {what}, each in [0, 1]")
    return values


MAX_SIMULATED_LATENCY_MS = 600_000.0
"""Ten minutes for one simulated call: slower than any endpoint a run would wait on."""


def latency_pair(text: str) -> tuple[float, float]:
    """``MEDIAN_MS,P95_MS``: 0 < median <= p95 <= ten minutes (``--simulated-latency``)."""
    parts = text.split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"{text!r}: expected MEDIAN_MS,P95_MS, e.g. 600,1500")
    median, p95 = (_finite(part) for part in parts)
    if median <= 0 or p95 < median:
        raise argparse.ArgumentTypeError(f"{text!r}: needs 0 < median <= p95")
    if p95 > MAX_SIMULATED_LATENCY_MS:
        # Each simulated call sleeps its latency: 1e308 ms would never end.
        raise argparse.ArgumentTypeError(
            f"{text!r}: p95 above {MAX_SIMULATED_LATENCY_MS:.0f} ms (ten minutes a call)"
        )
    return median, p95


PROVIDER_NAMES = ("local", "openai", "simulated", "oracle", "replay")


def provider_name(text: str) -> str:
    """A built-in provider's name, or ``MODULE:ATTR`` for one of the user's own."""
    module, sep, attribute = text.partition(":")
    if text in PROVIDER_NAMES or (sep and module and attribute):
        return text
    raise argparse.ArgumentTypeError(
        f"{text!r}: choose from {', '.join(PROVIDER_NAMES)}, or give MODULE:ATTR"
    )


def check_output_folder(folder: Path, what: str) -> None:
    """``folder`` exists as a writable folder, or can be made one: else a one-line usage error."""
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{what} {folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"{what} {folder} cannot be created: {err.strerror}") from err
    try:
        # Writing is the only test a read-only file system, ACLs and quotas all answer.
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        raise UsageError(f"{what} {folder} is not writable: {err.strerror}") from err


def check_not_a_pipe(path: Path, what: str) -> int | None:
    """Refuse a FIFO or a socket as an output (opening one to write waits for a reader).

    Returns:
        The existing file's mode, or ``None`` when there is none.
    """
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        raise UsageError(f"{what} {path} is a pipe or a socket, not a file")
    return mode


def _same_file(one: Path, other: Path) -> bool:
    try:
        return one.resolve() == other.resolve() or (
            one.exists() and other.exists() and one.samefile(other)
        )
    except OSError:
        return False


def check_outputs_apart(outputs: dict[str, Path | None], inputs: list[Path]) -> None:
    """No output is an input, or another output: writing it would destroy what was read.

    ``outputs`` maps each option to its path (``None``: not asked for).
    """
    named = [(what, path) for what, path in outputs.items() if path is not None]
    for index, (what, path) in enumerate(named):
        for source in inputs:
            if _same_file(path, source):
                raise UsageError(f"{what} {path} is one of the files read: name another file")
        for other, elsewhere in named[index + 1 :]:
            if _same_file(path, elsewhere):
                raise UsageError(f"{what} and {other} name the same file ({path})")


def check_output_file(path: Path, what: str, *, regular: bool = False) -> None:
    """``path`` can be written: not a folder, in a writable folder (made if missing).

    A FIFO or a socket is refused (opening one to write waits for a reader,
    forever); with ``regular``, so is anything but a regular file (a database
    must be one).
    """
    if path.is_dir():
        raise UsageError(f"{what} {path} is a folder, not a file")
    mode = check_not_a_pipe(path, what)
    if mode is not None and regular and not stat.S_ISREG(mode):
        raise UsageError(f"{what} {path} is not a regular file")
    check_output_folder(path.parent if str(path.parent) else Path(), f"the folder of {what}")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{what} {path} is not writable")
