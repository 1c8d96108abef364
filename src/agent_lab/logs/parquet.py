"""Parquet log files: each row one log line, read a batch of rows at a time.

Trace stores and data lakes export logs as Parquet. A row is a line of
one of the JSON formats (``chat``, ``pairs``, ``otel``) in one of two
shapes:

- the line itself, as text: the file's one column, or its column named
  ``line`` (``{"line": "<a chat, pairs or otel line>"}``);
- the record's fields as columns (``messages``, ``tools``, ``request``,
  ``response``...), as ``pyarrow.Table.from_pylist`` writes JSON lines.
  Arrow gives every row of a struct column every field any row has, so a
  null field is dropped, at every depth, as the JSON line it came from
  would not have held it.

A row is numbered from 1 in ``where`` as a line is. Rows are read in
batches (``iter_batches``), so memory stays flat whatever the file's size.
pyarrow comes with the ``ray`` extra and is imported only when a Parquet
file is read.
"""

from __future__ import annotations

import datetime as dt
import importlib
import json
from typing import TYPE_CHECKING, Any, cast

from agent_lab.errors import InputFileError
from agent_lab.logs._values import MAX_LINE_BYTES
from agent_lab.logs.record import SkippedLine, SkipReason

if TYPE_CHECKING:
    import io
    from collections.abc import Iterator

__all__ = ["MAGIC", "parquet_lines"]

MAGIC = b"PAR1"
"""The first (and last) four bytes of every Parquet file."""

_ROWS = 1024
"""Rows converted to Python at a time."""


def parquet_lines(
    handle: io.BufferedIOBase, name: str
) -> Iterator[tuple[str, bytes] | SkippedLine]:
    """``(where, line)`` for each row of the Parquet file, or the ``SkippedLine`` saying why not.

    Raises:
        InputFileError: pyarrow is not installed, or the file is no Parquet it reads.
    """
    try:
        # pyarrow ships no types: its modules are ``Any`` here, and what they give is checked.
        pa: Any = importlib.import_module("pyarrow")
        pq: Any = importlib.import_module("pyarrow.parquet")
    except ImportError as err:
        raise InputFileError(
            name, "a Parquet log needs pyarrow: pip install pyarrow (the agent-lab[ray] extra)"
        ) from err
    try:
        file = pq.ParquetFile(handle)
    except (pa.ArrowException, OSError) as err:
        raise InputFileError(name, f"not a Parquet file pyarrow reads ({err})") from err
    schema = file.schema_arrow
    text = _text_column(pa, schema)
    number = 0
    try:
        for batch in file.iter_batches(batch_size=_ROWS):
            if text is not None:
                values: list[object] = batch.column(schema.names.index(text)).to_pylist()
            else:
                values = [_without_nulls(row) for row in batch.to_pylist()]
            for value in values:
                number += 1
                yield _line(f"{name}:{number}", value)
    except (pa.ArrowException, OSError) as err:
        problem = f"the file cannot be read past here ({type(err).__name__}: {err})"
        yield SkippedLine(
            where=f"{name}:{number + 1}", reason=SkipReason.MALFORMED_JSON, message=problem
        )


def _text_column(pa: Any, schema: Any) -> str | None:
    """The column holding whole lines as text, if the file is written so."""
    kinds = (pa.types.is_string, pa.types.is_large_string, pa.types.is_binary)
    texts = [
        str(field.name)
        for field in schema
        if any(kind(field.type) for kind in (*kinds, pa.types.is_large_binary))
    ]
    if "line" in texts:
        return "line"
    return texts[0] if len(schema.names) == 1 and texts else None


def _line(where: str, value: object) -> tuple[str, bytes] | SkippedLine:
    if value is None:
        return SkippedLine(where=where, reason=SkipReason.MALFORMED_JSON, message="the row is null")
    if isinstance(value, str):
        line = value.encode("utf-8", "surrogatepass")
    elif isinstance(value, bytes):
        line = value
    else:
        unsaid: list[str] = []
        plain = _plain(value, unsaid)
        if unsaid:
            message = f"the row holds a value JSON does not ({unsaid[0]})"
            return SkippedLine(where=where, reason=SkipReason.MALFORMED_JSON, message=message)
        try:
            line = json.dumps(plain, ensure_ascii=False, allow_nan=False).encode(
                "utf-8", "surrogatepass"
            )
        except ValueError as err:  # a float that is no JSON number (nan, inf)
            message = f"the row holds a value JSON does not ({err})"
            return SkippedLine(where=where, reason=SkipReason.MALFORMED_JSON, message=message)
    if len(line) > MAX_LINE_BYTES:
        message = f"the line is longer than {MAX_LINE_BYTES >> 20} MiB"
        return SkippedLine(where=where, reason=SkipReason.TOO_LARGE, message=message)
    return where, line


def _without_nulls(value: object) -> object:
    """``value`` with every null field of every object in it dropped (Arrow's filled-in fields)."""
    if isinstance(value, dict):
        fields = cast("dict[str, object]", value)
        return {key: _without_nulls(item) for key, item in fields.items() if item is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in cast("list[object]", value)]
    return value


def _plain(value: object, unsaid: list[str]) -> object:
    """``value`` as JSON holds it: a date or time as its ISO text.

    A type JSON has no word for (a decimal, bytes inside a record...) is put in ``unsaid``.
    """
    if isinstance(value, dict):
        fields = cast("dict[str, object]", value)
        return {key: _plain(item, unsaid) for key, item in fields.items()}
    if isinstance(value, list):
        return [_plain(item, unsaid) for item in cast("list[object]", value)]
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    unsaid.append(f"{type(value).__name__} is not JSON")
    return None
