"""Parquet logs: a row is a line, as text or as the record's columns; read as the JSON lines."""

from __future__ import annotations

import decimal
from pathlib import Path
from typing import Any

import pytest

from agent_lab.errors import InputFileError
from agent_lab.logs import LoggedRequest, SkippedLine, SkipReason, read_logs
from tests.logs.lines import call, chat_line, jsonl, pair_line

pa = pytest.importorskip("pyarrow", reason="Parquet logs need pyarrow (the ray extra)")
pq = pytest.importorskip("pyarrow.parquet", reason="Parquet logs need pyarrow (the ray extra)")


def _records() -> list[dict[str, Any]]:
    """Lines of two shapes of tool calls and words, some fields in some rows only."""
    return [
        pair_line(),
        pair_line({"role": "assistant", "content": "It is sunny.", "tool_calls": None}),
        pair_line({"role": "assistant", "content": None, "tool_calls": [call(arguments="{}")]}),
    ]


def _read(path: Path) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for item in read_logs([path], on_error="skip"):
        if isinstance(item, LoggedRequest):
            found.append((item.where.rsplit(":", 1)[1], (item.messages, item.calls, item.text)))
        else:
            found.append((item.where.rsplit(":", 1)[1], item.reason))
    return found


def test_rows_as_text_and_as_columns_read_as_the_lines_they_hold(tmp_path: Path) -> None:
    records = _records()
    lines = tmp_path / "calls.jsonl"
    lines.write_text(jsonl(*records))
    as_text = tmp_path / "text.parquet"
    pq.write_table(pa.table({"line": lines.read_text().splitlines()}), as_text)
    as_columns = tmp_path / "columns.parquet"
    pq.write_table(pa.Table.from_pylist(records), as_columns, row_group_size=2)
    expected = _read(lines)
    assert [kind for _, kind in expected] != [SkipReason.MALFORMED_JSON] * 3
    assert _read(as_text) == expected
    assert _read(as_columns) == expected


def test_the_column_named_line_is_the_line_beside_others(tmp_path: Path) -> None:
    path = tmp_path / "export.parquet"
    line = jsonl(chat_line()).strip()
    pq.write_table(pa.table({"trace_id": ["t-1"], "line": [line], "note": ["kept aside"]}), path)
    requests = list(read_logs([path]))
    assert requests
    assert all(isinstance(r, LoggedRequest) for r in requests)
    assert all(r.where.startswith(f"{path}:1#") for r in requests)


def test_a_null_row_and_a_value_json_has_no_word_for_are_bad_lines(tmp_path: Path) -> None:
    nulls = tmp_path / "nulls.parquet"
    pq.write_table(pa.table({"line": [jsonl(chat_line()).strip(), None]}), nulls)
    skipped = list(read_logs([nulls], on_error="skip"))[-1]
    assert isinstance(skipped, SkippedLine)
    assert (skipped.where, skipped.message) == (f"{nulls}:2", "the row is null")
    odd = tmp_path / "decimal.parquet"
    pq.write_table(pa.table({"messages": [[{"role": "user"}]], "n": [decimal.Decimal("1.5")]}), odd)
    (unread,) = read_logs([odd], on_error="skip")
    assert isinstance(unread, SkippedLine)
    assert "a value JSON does not" in unread.message


def test_a_file_that_only_starts_like_parquet_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"PAR1" + b"\x00" * 64)
    with pytest.raises(InputFileError, match="not a Parquet file pyarrow reads") as caught:
        list(read_logs([path]))
    assert caught.value.path == str(path)
