"""Reading log files (plain, gzipped, Parquet): each line a request, several, or a skip.

A gateway's store (``agent-lab serve --db``: a SQLite file, told by its first
bytes, or a ``postgresql://`` address) is read as one more log: its rows are
``pairs`` lines (``logs.exchanges``), and a row it cannot use is a client's
request, counted and never an error.
Memory stays flat whatever the file's length: a block and one line are held
at a time, and a line over ``MAX_LINE_BYTES`` is passed over unread
(``too_large``). Blank lines are found and counted in blocks, never one by
one. A gzipped file is told by its magic bytes, not its name. Only regular
files are opened (``_input_files``): a FIFO or a device is refused before a
byte is read. A Parquet file (``logs.parquet``) is told by its magic bytes too:
its rows are lines. The format is told per file by its first line that is JSON of
a known shape, unless the caller names it.
"""

from __future__ import annotations

import contextlib
import gzip
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agent_lab._input_files import open_input
from agent_lab.errors import ArgumentError, InputFileError, MissingInputError
from agent_lab.exchange_stores import is_postgres
from agent_lab.logs._values import MAX_LINE_BYTES, as_object, parse
from agent_lab.logs.chat import chat_requests
from agent_lab.logs.exchanges import MAGIC, store_rows
from agent_lab.logs.otel import otel_requests
from agent_lab.logs.pairs import pair_request
from agent_lab.logs.parquet import MAGIC as PARQUET_MAGIC
from agent_lab.logs.parquet import parquet_lines
from agent_lab.logs.record import LogError, LogFormat, LoggedRequest, SkippedLine, SkipReason

if TYPE_CHECKING:
    import io
    from collections.abc import Iterable, Iterator

    from agent_lab.exchange_stores import TimeWindow
    from agent_lab.strict_json import JSONValue

__all__ = [
    "COUNTED",
    "MAX_LINE_BYTES",
    "LogLine",
    "detect_format",
    "file_lines",
    "line_requests",
    "open_log",
    "read_line",
    "read_logs",
    "stops_run",
]

_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
_BLOCK = 256 << 10
"""Bytes read at a time: a blank line costs its share of a block, no Python of its own.
No more than ``MAX_LINE_BYTES``: a line past the bound spans blocks, where it is measured
(a blank one too: ``too_large`` as when lines were read one by one)."""
_TEXT = re.compile(rb"[^ \t\n\r\x0b\x0c]")
"""A byte that makes a line more than blank: none of the whitespace ``bytes.strip`` strips."""


COUNTED = frozenset({SkipReason.FAILED_REQUEST, SkipReason.NO_CONTENT})
"""Skips that are no fault of the log: a request that failed (no answer to compare), a span
whose content was not recorded (an instrumentation setting). Counted, never an error."""


def detect_format(line: JSONValue) -> LogFormat | None:
    """The format a parsed line is written in, or ``None`` when its shape is none of them."""
    fields = as_object(line)
    if fields is None:
        return None
    if "resourceSpans" in fields or ("spanId" in fields and "traceId" in fields):
        return LogFormat.OTEL
    if any(key in fields for key in ("request", "request_body", "response", "response_body")):
        return LogFormat.PAIRS
    if "messages" in fields:
        return LogFormat.PAIRS if "call_type" in fields else LogFormat.CHAT
    return None


def _requests(value: JSONValue, where: str, format: LogFormat) -> list[LoggedRequest | SkippedLine]:
    try:
        match format:
            case LogFormat.CHAT:
                return chat_requests(value, where)
            case LogFormat.PAIRS:
                return [pair_request(value, where)]
            case LogFormat.OTEL:
                return otel_requests(value, where)
    except LogError as err:
        return [err.skipped]


def read_line(
    text: str | bytes, *, where: str, format: LogFormat
) -> list[LoggedRequest | SkippedLine]:
    """The requests of one log line, each a ``LoggedRequest`` or the ``SkippedLine`` saying why not.

    Pure and never raising for anything the line holds: a caller may map it
    over the lines of a file in other processes.

    Args:
        text: The line (its newline may be kept); bytes must be UTF-8.
        where: ``file:line``, the prefix of every ``where`` returned.
        format: The line's format.

    Returns:
        Nothing for a blank line; else one entry per request (``chat`` and
        ``otel`` lines may hold several, ``#n`` after ``where``), or one
        ``SkippedLine`` for a line that cannot be used at all.
    """
    if not text.strip():
        return []
    try:
        value = parse(text, where)
    except LogError as err:
        return [err.skipped]
    return _requests(value, where, format)


def _lines(stream: io.BufferedIOBase, name: str) -> Iterator[tuple[str, bytes | None]]:
    """``(where, line)`` for each line not blank; ``None`` for one past the bound, never held.

    Read in blocks, never line by line: blank lines are found and counted by
    ``re`` and ``bytes.count`` at native speed. Measured: a gzip of 200 MB of
    blank lines costs 1.3 s of CPU, against about 100 s when each line was a
    ``readline`` (issue 36). ``read1`` returns what a gzip stream cut short
    holds before its end, as ``readline`` did.
    """
    number = 0
    held: list[bytes] = []  # the start of the line the last block left unfinished
    size = 0  # its length, counted on when it is too long to hold
    try:
        while block := stream.read1(_BLOCK):
            first = block.find(b"\n")
            if first < 0:
                size += len(block)
                if size > MAX_LINE_BYTES:
                    held.clear()
                else:
                    held.append(block)
                continue
            number += 1
            if found := _line(name, number, b"".join([*held, block[:first]]), size + first):
                yield found
            last = block.rfind(b"\n")
            for start, end in _texts(block, first + 1, last):
                number += block.count(b"\n", first + 1, start) + 1
                if found := _line(name, number, block[start:end], end - start):
                    yield found
                first = end
            number += block.count(b"\n", first + 1, last + 1)
            size = len(block) - last - 1
            held = [block[last + 1 :]] if size <= MAX_LINE_BYTES else []
        if size:
            number += 1
            if found := _line(name, number, b"".join(held), size):
                yield found
    except (OSError, EOFError, zlib.error) as err:
        # A gzip stream cut short (a log still being written) or corrupt; or a failing disk.
        problem = f"the file cannot be read past here ({type(err).__name__}: {err})"
        raise LogError(
            SkippedLine(
                where=f"{name}:{number + 1}", reason=SkipReason.MALFORMED_JSON, message=problem
            )
        ) from err


def _texts(block: bytes, start: int, stop: int) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each line in ``block[start:stop]`` not blank; ``end`` is its newline."""
    while found := _TEXT.search(block, start, stop):
        begins = max(block.rfind(b"\n", start, found.start()) + 1, start)
        end = block.index(b"\n", found.start())
        yield begins, end
        start = end + 1


def _line(name: str, number: int, line: bytes, size: int) -> tuple[str, bytes | None] | None:
    """The line numbered ``number``; ``None`` when it is blank."""
    if size > MAX_LINE_BYTES:
        return f"{name}:{number}", None
    if number == 1:
        line = line.removeprefix(_BOM)
    return (f"{name}:{number}", line) if line.strip() else None


def open_log(path: Path) -> io.BufferedReader:
    """A log file, opened for reading (a regular file only).

    Raises:
        MissingInputError: No such file.
        InputFileError: Not a regular file, or not readable.
    """
    try:
        return open_input(path, what="log")
    except FileNotFoundError as err:
        raise MissingInputError(f"{path}: no such log file") from err
    except OSError as err:
        raise InputFileError(str(path), err.strerror or str(err)) from err


def _undetected(where: str) -> SkippedLine:
    return SkippedLine(
        where=where,
        reason=SkipReason.MALFORMED_JSON,
        message="not a line of any log format (chat, pairs, otel); name the format to read it",
    )


@dataclass(frozen=True, slots=True)
class LogLine:
    """One line of a log file, not yet read: where it is, its bytes, its file's format."""

    where: str
    text: bytes
    format: LogFormat | None
    """The format the file's first line of a known shape tells (or the one named);
    ``None`` for a line before any such line."""


def file_lines(
    handle: io.BufferedReader, name: str, format: LogFormat | None
) -> Iterator[LogLine | SkippedLine]:
    """Each line of an open log file, plain, gzipped or Parquet, with the format it is read in.

    The work of reading a file that needs no plugin, no tool and no model:
    a caller may run it where the file is and send the lines elsewhere to be
    read (``line_requests``), as ``--engine ray`` does.

    Raises:
        InputFileError: The file cannot be read at all (a Parquet file
            without pyarrow, or one it does not read).
    """
    try:
        magic = handle.peek(len(PARQUET_MAGIC))[: len(PARQUET_MAGIC)]
    except OSError as err:
        raise InputFileError(name, err.strerror or str(err)) from err
    if magic == PARQUET_MAGIC:
        yield from _with_format(parquet_lines(handle, name), format)
        return
    stream: io.BufferedIOBase = handle
    if magic[: len(_GZIP_MAGIC)] == _GZIP_MAGIC:
        stream = gzip.GzipFile(fileobj=handle, mode="rb")
    try:
        yield from _with_format(_lines(stream, name), format)
    except LogError as err:
        yield err.skipped
    finally:
        # Closing a GzipFile leaves the file it reads open: the caller closes that.
        if stream is not handle:
            stream.close()


def _with_format(
    lines: Iterable[tuple[str, bytes | None] | SkippedLine], format: LogFormat | None
) -> Iterator[LogLine | SkippedLine]:
    for item in lines:
        if isinstance(item, SkippedLine):
            yield item
            continue
        where, line = item
        if line is None:
            message = f"the line is longer than {MAX_LINE_BYTES >> 20} MiB"
            yield SkippedLine(where=where, reason=SkipReason.TOO_LARGE, message=message)
            continue
        if format is None:
            with contextlib.suppress(LogError):  # not JSON: told again, and skipped, when read
                format = detect_format(parse(line, where))
        yield LogLine(where, line, format)


def line_requests(line: LogLine) -> list[LoggedRequest | SkippedLine]:
    """The requests of a line ``file_lines`` gave, as ``read_line`` reads them."""
    if line.format is not None:
        return read_line(line.text, where=line.where, format=line.format)
    try:
        parse(line.text, line.where)
    except LogError as err:
        return [err.skipped]
    return [_undetected(line.where)]


def _read_file(
    path: Path, format: LogFormat | None, window: TimeWindow | None
) -> Iterator[LoggedRequest | SkippedLine]:
    handle = open_log(path)
    try:
        if handle.peek(len(MAGIC))[: len(MAGIC)] == MAGIC:
            # The gateway's store: its rows are pairs lines, whatever format was named.
            handle.close()
            yield from (request for _, request in store_rows(path, window=window))
            return
        for item in file_lines(handle, str(path), format):
            if isinstance(item, SkippedLine):
                yield item
            else:
                yield from line_requests(item)
    finally:
        handle.close()


def stops_run(skipped: SkippedLine) -> bool:
    """Whether a line left out stops a run that does not skip bad lines: a fault of the log."""
    return skipped.reason not in COUNTED and not skipped.counted


def read_logs(
    paths: Iterable[str | Path] | str | Path,
    *,
    format: LogFormat | None = None,
    on_error: Literal["fail", "skip"] = "fail",
    window: TimeWindow | None = None,
) -> Iterator[LoggedRequest | SkippedLine]:
    """Every request the log files hold, in file and line order, streamed.

    Args:
        paths: The files (one path alone is taken as a list of one), and
            ``postgresql://`` addresses of gateways' stores.
        format: Every file's format; ``None`` tells each file's from its
            first line of a known shape.
        on_error: ``"fail"`` raises at the first line that cannot be used;
            ``"skip"`` yields it as a ``SkippedLine`` and reads on. A line that
            is whole but holds nothing to replay (a failed request, a span
            recorded without content: ``COUNTED``), or a row of a gateway's
            store (``SkippedLine.counted``), is yielded either way.
        window: Of a gateway's store, only the rows that arrived in it; log
            files are read whole.

    Raises:
        LogError: With ``on_error="fail"``, the first line that cannot be used
            (``file:line: the problem``).
        InputFileError: A file that is no regular file, or cannot be read.
        MissingInputError: No such file.
        ArgumentError: ``on_error`` or ``format`` is none of the choices.
    """
    if on_error not in ("fail", "skip"):
        raise ArgumentError(f"on_error must be 'fail' or 'skip', not {on_error!r}")
    try:
        forced = None if format is None else LogFormat(format)
    except ValueError as err:
        raise ArgumentError(f"format must be one of {[f.value for f in LogFormat]}") from err
    for path in [paths] if isinstance(paths, str | Path) else paths:
        found_in = (
            (request for _, request in store_rows(path, window=window))
            if isinstance(path, str) and is_postgres(path)
            else _read_file(Path(path), forced, window)
        )
        for found in found_in:
            if isinstance(found, SkippedLine) and on_error == "fail" and stops_run(found):
                raise LogError(found)
            yield found
