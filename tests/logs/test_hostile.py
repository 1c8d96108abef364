"""Hostile logs: random bytes or JSON, in every format, yield values or raise documented errors."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_lab.errors import InputFileError
from agent_lab.logs import LogError, LogFormat, LoggedRequest, SkippedLine, read_line, read_logs
from agent_lab.logs.exchanges import MAGIC
from agent_lab.logs.parquet import MAGIC as PARQUET_MAGIC
from tests.logs.lines import CURRENT, chat_line, export, jsonl, pair_line, span

FORMATS = list(LogFormat)
KEYS = st.sampled_from(
    [
        "messages", "tools", "functions", "role", "content", "tool_calls", "function", "name",
        "arguments", "request", "response", "choices", "message", "usage", "resourceSpans",
        "scopeSpans", "spans", "attributes", "key", "value", "stringValue", "intValue",
        "arrayValue", "kvlistValue", "values", "events", "parts", "type", "error", "id",
        "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.operation.name", "spanId",
        "startTimeUnixNano", "created", "timestamp", "latency_ms", "parameters", "call_type",
    ]
)  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["chat", "assistant", "user", "tool", "function", "{}", '{"a":1}', "[1]"]),
)
JSONISH = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(KEYS | st.text(max_size=5), inner, max_size=5)
    ),
    max_leaves=40,
)


def _check(found: list[LoggedRequest | SkippedLine]) -> None:
    for item in found:
        assert isinstance(item, LoggedRequest | SkippedLine)


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=300), format=st.sampled_from(FORMATS))
def test_random_bytes_are_a_request_or_a_skip(data: bytes, format: LogFormat) -> None:
    """Whatever the bytes, read_line returns values; it never raises."""
    _check(read_line(data, where="f:1", format=format))


@settings(max_examples=500, deadline=None)
@given(value=JSONISH, format=st.sampled_from(FORMATS))
def test_random_json_is_a_request_or_a_skip(value: Any, format: LogFormat) -> None:
    """JSON of the formats' own keys, in any shape: values, never an exception."""
    _check(read_line(json.dumps(value), where="f:1", format=format))


def _mutations(line: dict[str, Any]) -> st.SearchStrategy[str]:
    text = json.dumps(line)

    def insert(cut: int, junk: str) -> str:
        return text[:cut] + junk + text[cut:]

    return st.builds(insert, st.integers(min_value=0, max_value=len(text)), st.text(max_size=6))


@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(
        _mutations(chat_line()), _mutations(pair_line()), _mutations(export(span(CURRENT)))
    ),
    format=st.sampled_from(FORMATS),
)
def test_a_real_line_with_junk_inserted_is_a_request_or_a_skip(
    text: str, format: LogFormat
) -> None:
    """A good line of each format, with a few characters put in anywhere."""
    _check(read_line(text, where="f:1", format=format))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.binary(max_size=400)
    | st.binary(max_size=400).map(MAGIC.__add__)
    | st.binary(max_size=400).map(PARQUET_MAGIC.__add__)
)
def test_a_file_of_random_bytes_raises_only_documented_errors(tmp_path: Path, data: bytes) -> None:
    """read_logs on a random file: requests, skips, a LogError for a line, or an
    InputFileError naming the file (one that starts like a SQLite database and is no
    gateway store, or like Parquet and is no Parquet pyarrow reads); nothing else
    escapes, in either mode."""
    path = tmp_path / "random.log"
    path.write_bytes(data)
    for on_error in ("skip", "fail"):
        escaped: Exception | None = None
        try:
            _check(list(read_logs([path], on_error=on_error)))
        except (LogError, InputFileError) as err:
            escaped = err
        if isinstance(escaped, LogError):
            assert on_error == "fail"
        elif isinstance(escaped, InputFileError):
            assert escaped.path == str(path)
            if data.startswith(PARQUET_MAGIC):
                assert "Parquet" in escaped.reason  # unread, or no pyarrow to read it
            else:
                assert data.startswith(MAGIC), escaped
                assert "not a readable gateway store" in escaped.reason


def test_a_file_that_only_looks_like_a_store_names_the_file(tmp_path: Path) -> None:
    """SQLite's 16-byte header and nothing else: a clear error about the file, not a crash."""
    path = tmp_path / "store.db"
    path.write_bytes(MAGIC)
    with pytest.raises(InputFileError, match="not a readable gateway store"):
        list(read_logs([path], on_error="skip"))


def test_memory_stays_flat_over_a_long_file(tmp_path: Path) -> None:
    """50,000 lines read one at a time: the peak is a few lines' worth, not the file's size."""
    path = tmp_path / "big.jsonl"
    path.write_text(jsonl(pair_line()) * 50_000)
    size = path.stat().st_size
    tracemalloc.start()
    try:
        count = sum(1 for _ in read_logs([path]))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 50_000
    assert size > 20 << 20  # tens of MiB, read with a peak of under 2 MiB
    assert peak < 2 << 20, f"peak {peak} bytes reading a {size}-byte file"


@pytest.mark.parametrize("format", FORMATS, ids=[f.value for f in FORMATS])
def test_deep_nesting_is_a_skip_not_a_recursion_error(format: LogFormat) -> None:
    """A line nested 100,000 deep is malformed_json: the parser's depth bound holds."""
    [found] = read_line("[" * 100_000, where="f:1", format=format)
    assert isinstance(found, SkippedLine)
