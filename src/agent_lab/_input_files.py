"""The one reader of files a user names: a regular file only, read up to a bound, never a hang.

Every file agent-lab reads because a user named it comes through ``read_input``
or ``read_input_text``: a workload, a plugin folder's ``events.json``,
``--prices``, ``--cassette``, ``--llm-profile`` and each file of a benchmark
folder being imported. A folder, a FIFO, a device (``/dev/zero``) or a socket is
refused before a byte is read; the file is opened non-blocking, so that a FIFO
put in its place after that check cannot hang the open either, and checked
again once open. A file larger than its kind's bound is refused before it is
read, and the read itself stops one byte past the bound (a file that grows
while it is read). The bounds, each far above what the kind holds in practice:

==================  ========  =================================================
kind                bound     what it holds in practice
==================  ========  =================================================
workload            256 MiB   SGD's 16,000 training dialogues as cases: ~25 MiB
events.json         256 MiB   BFCL's 1,360 functions: under 1 MiB
prices              16 MiB    a price per model: kilobytes
cassette            1 GiB     a few KiB per request: 100,000 requests and more
LLM profile         1 MiB     a dozen error rates
benchmark file      64 MiB    SGD's largest dialogue file is 4 MB, BFCL's 1 MB
rules file          64 MiB    ``learn`` kept 86 rules on SGD, under 1 KiB each
==================  ========  =================================================
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.errors import InputFileError

if TYPE_CHECKING:
    import io

__all__ = [
    "MAX_BENCHMARK_FILE_BYTES",
    "MAX_CASSETTE_BYTES",
    "MAX_EVENTS_BYTES",
    "MAX_PRICES_BYTES",
    "MAX_PROFILE_BYTES",
    "MAX_RULES_BYTES",
    "MAX_WORKLOAD_BYTES",
    "open_input",
    "read_input",
    "read_input_text",
]

MAX_WORKLOAD_BYTES = 256 << 20
MAX_EVENTS_BYTES = 256 << 20
MAX_PRICES_BYTES = 16 << 20
MAX_CASSETTE_BYTES = 1 << 30
MAX_PROFILE_BYTES = 1 << 20
MAX_BENCHMARK_FILE_BYTES = 64 << 20
MAX_RULES_BYTES = 64 << 20

# O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer, forever.
# O_NOCTTY: a terminal device named as input must not become the controlling one.
_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _size(count: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift:
            return f"{count / (1 << shift):.4g} {unit}"
    return f"{count} bytes"


def _check(path: Path, found: os.stat_result, what: str, max_bytes: int) -> None:
    mode = found.st_mode
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise InputFileError(str(path), f"the {what} is {kind}, not a regular file")
    if found.st_size > max_bytes:
        raise InputFileError(
            str(path),
            f"the {what} is {_size(found.st_size)}, over the {_size(max_bytes)} bound on a {what}",
        )


def read_input(path: str | Path, *, what: str, max_bytes: int) -> bytes:
    """The bytes of a regular file the user named, refused past ``max_bytes``.

    Args:
        path: The file.
        what: The kind of file, for messages (``workload``, ``cassette``...).
        max_bytes: The largest file read.

    Raises:
        InputFileError: Not a regular file, or larger than ``max_bytes``.
        OSError: The operating system's own refusal (no such file, no permission).
    """
    path = Path(path)
    # Refused before it is opened: opening a device can have effects of its own.
    _check(path, path.stat(), what, max_bytes)
    descriptor = os.open(path, _FLAGS)
    with os.fdopen(descriptor, "rb") as handle:
        # It may have been replaced between the two looks.
        _check(path, os.fstat(handle.fileno()), what, max_bytes)
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputFileError(
            str(path), f"the {what} grew past the {_size(max_bytes)} bound while it was read"
        )
    return data


def open_input(path: str | Path, *, what: str) -> io.BufferedReader:
    """A regular file the user named, open for reading, for a reader that streams it.

    No size bound: the caller reads it a bounded piece at a time (a log of
    any length is read line by line).

    Raises:
        InputFileError: Not a regular file.
        OSError: The operating system's own refusal (no such file, no permission).
    """
    path = Path(path)
    _check(path, path.stat(), what, sys.maxsize)
    handle = os.fdopen(os.open(path, _FLAGS), "rb")
    try:
        _check(path, os.fstat(handle.fileno()), what, sys.maxsize)
    except BaseException:
        handle.close()
        raise
    return handle


def read_input_text(path: str | Path, *, what: str, max_bytes: int) -> str:
    """``read_input``'s bytes as UTF-8 text.

    Raises:
        InputFileError: As ``read_input`` does, and for bytes that are not UTF-8.
        OSError: The operating system's own refusal (no such file, no permission).
    """
    data = read_input(path, what=what, max_bytes=max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputFileError(
            str(path), f"the {what} is not UTF-8 text (byte {err.start}: {err.reason})"
        ) from err
