"""Reading log files: each format, gzipped or not, told apart; every bad line named and counted."""

from __future__ import annotations

import gzip
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_lab.errors import InputFileError, MissingInputError
from agent_lab.logs import (
    LogError,
    LogFormat,
    LoggedRequest,
    LoggedToolCall,
    LoggedUsage,
    SkippedLine,
    SkipReason,
    detect_format,
    read_line,
    read_logs,
)
from agent_lab.logs.reader import COUNTED
from agent_lab.strict_json import JSONValue
from tests.logs.lines import (
    ASKED,
    CURRENT,
    WEATHER,
    call,
    chat_line,
    export,
    jsonl,
    pair_line,
    span,
)


def write(path: Path, text: str, *, zipped: bool = False) -> Path:
    path.write_bytes(gzip.compress(text.encode()) if zipped else text.encode())
    return path


def requests(path: Path, **options: Any) -> list[LoggedRequest | SkippedLine]:
    return list(read_logs([path], **options))


@pytest.mark.parametrize("zipped", [False, True], ids=["plain", "gzipped"])
def test_a_chat_line_is_one_request_per_assistant_message(tmp_path: Path, zipped: bool) -> None:
    """chat: the n-th assistant message is file:line#n, sent what came before it."""
    path = write(tmp_path / "log.txt", "\n" + jsonl(chat_line(model="m")), zipped=zipped)
    first, second = requests(path)
    assert isinstance(first, LoggedRequest)
    assert isinstance(second, LoggedRequest)
    assert first.where == f"{path}:2#1"
    assert first.format is LogFormat.CHAT
    assert first.messages == tuple(ASKED)
    assert first.tools == (WEATHER,)
    assert first.calls == (
        LoggedToolCall(name="get_weather", arguments={"city": "Paris"}, raw='{"city": "Paris"}'),
    )
    assert (first.text, first.model, first.usage) == (None, "m", None)
    assert second.where == f"{path}:2#2"
    assert len(second.messages) == 4
    assert second.calls == ()
    assert second.text == "It is sunny in Paris."


def test_a_chat_lines_timestamp_is_every_request_s_time(tmp_path: Path) -> None:
    """chat: ``timestamp`` (ISO or unix seconds, or in ``metadata``) is each request's ``now``."""
    lines = [
        chat_line(timestamp="2019-03-01T00:00:00+00:00"),
        chat_line(metadata={"timestamp": 1551398400}),
        chat_line(),
    ]
    path = write(tmp_path / "log.jsonl", "".join(jsonl(line) for line in lines))
    stamps = [r.timestamp for r in requests(path) if isinstance(r, LoggedRequest)]
    assert stamps == ["2019-03-01T00:00:00+00:00"] * 4 + [None] * 2


@pytest.mark.parametrize("zipped", [False, True], ids=["plain", "gzipped"])
def test_a_pairs_line_is_one_request_with_usage_latency_and_time(
    tmp_path: Path, zipped: bool
) -> None:
    """pairs: the response's model, its usage with cached tokens, the wrapper's latency."""
    path = write(tmp_path / "calls.log", jsonl(pair_line()), zipped=zipped)
    [found] = requests(path)
    assert isinstance(found, LoggedRequest)
    assert found.where == f"{path}:1"
    assert found.format is LogFormat.PAIRS
    assert found.messages == tuple(ASKED)
    assert found.tools == (WEATHER,)
    assert [c.name for c in found.calls] == ["get_weather"]
    assert found.model == "gpt-4o-mini-2024-07-18"
    assert found.usage == LoggedUsage(prompt_tokens=80, completion_tokens=17, cached_tokens=64)
    assert found.latency_ms == 412.5
    assert found.timestamp == "2023-11-14T22:13:20+00:00"


def test_the_wrappers_timestamp_and_estimate_are_read() -> None:
    """A wrapper's own time wins over response.created; metadata.estimated marks the usage."""
    line = pair_line(timestamp="2024-05-01T10:00:00Z", metadata={"estimated": True})
    [found] = read_line(json.dumps(line), where="f:1", format=LogFormat.PAIRS)
    assert isinstance(found, LoggedRequest)
    assert found.timestamp == "2024-05-01T10:00:00Z"
    assert found.usage is not None
    assert found.usage.estimated


def test_a_litellm_standard_logging_payload_is_a_pair() -> None:
    """LiteLLM's payload: messages, model_parameters.tools and response at the top."""
    pair = pair_line()
    payload = {
        "id": "x",
        "call_type": "acompletion",
        "model": "gpt-4o-mini",
        "messages": ASKED,
        "model_parameters": {"tools": [WEATHER], "temperature": 0},
        "response": pair["response"],
        "startTime": 1_700_000_000.0,
        "endTime": 1_700_000_000.5,
        "status": "success",
    }
    assert detect_format(json.loads(json.dumps(payload))) is LogFormat.PAIRS
    [found] = read_line(json.dumps(payload), where="f:1", format=LogFormat.PAIRS)
    assert isinstance(found, LoggedRequest)
    assert (found.tools, found.latency_ms) == ((WEATHER,), 500.0)
    assert found.timestamp == "2023-11-14T22:13:20+00:00"
    assert found.forwarded is None


@pytest.mark.parametrize(
    ("choice", "forwarded"),
    [("none", "tool_choice_none"), ("auto", None), ("required", None)],
    ids=["none", "auto", "required"],
)
def test_tool_choice_none_makes_a_pair_the_models_alone(choice: str, forwarded: str | None) -> None:
    """Calls forbidden: the request is the model's whatever plain code decides (``forwarded``),
    in a pair's request and in a LiteLLM payload's ``model_parameters``."""
    pair = pair_line()
    pair["request"]["tool_choice"] = choice
    [found] = read_line(json.dumps(pair), where="f:1", format=LogFormat.PAIRS)
    assert isinstance(found, LoggedRequest)
    assert found.forwarded == forwarded
    payload = {"messages": ASKED, "call_type": "acompletion", "response": pair["response"],
               "model_parameters": {"tools": [WEATHER], "tool_choice": choice}}  # fmt: skip
    [found] = read_line(json.dumps(payload), where="f:1", format=LogFormat.PAIRS)
    assert isinstance(found, LoggedRequest)
    assert found.forwarded == forwarded


def test_legacy_functions_are_read_as_tools() -> None:
    """The legacy form: functions offered, a function_call answered."""
    function = WEATHER["function"]
    line = {
        "messages": [*ASKED, {"role": "assistant", "function_call": call()["function"]}],
        "functions": [function],
    }
    [found] = read_line(json.dumps(line), where="f:1", format=LogFormat.CHAT)
    assert isinstance(found, LoggedRequest)
    assert found.tools == (WEATHER,)
    assert [c.arguments for c in found.calls] == [{"city": "Paris"}]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (chat_line(), LogFormat.CHAT),
        (pair_line(), LogFormat.PAIRS),
        (export(span(CURRENT)), LogFormat.OTEL),
        ({"nothing": 1}, None),
        ([1, 2], None),
    ],
    ids=["chat", "pairs", "otel", "unknown-object", "array"],
)
def test_a_lines_format_is_told_by_its_shape(line: JSONValue, expected: LogFormat | None) -> None:
    """Detection reads the keys of a line, not the file's name."""
    assert detect_format(line) is expected


def test_each_file_is_detected_on_its_own(tmp_path: Path) -> None:
    """Three files, three formats, one call; a gzipped file named .jsonl is still gzip."""
    chat = write(tmp_path / "a.jsonl", jsonl(chat_line()), zipped=True)
    pairs = write(tmp_path / "b.jsonl", jsonl(pair_line()))
    otel = write(tmp_path / "c.jsonl", jsonl(export(span(CURRENT))))
    found = list(read_logs([chat, pairs, otel]))
    assert [r.format for r in found if isinstance(r, LoggedRequest)] == [
        LogFormat.CHAT,
        LogFormat.CHAT,
        LogFormat.PAIRS,
        LogFormat.OTEL,
    ]


def good(format: LogFormat) -> dict[str, Any]:
    """A line of ``format`` that reads whole."""
    match format:
        case LogFormat.CHAT:
            return chat_line()
        case LogFormat.PAIRS:
            return pair_line()
        case LogFormat.OTEL:
            return export(span(CURRENT))


def _bad_arguments() -> dict[str, Any]:
    return pair_line({"role": "assistant", "tool_calls": [call(arguments="{city: Paris}")]})


BAD: list[tuple[str, LogFormat, SkipReason, str]] = [
    ("{not json", LogFormat.CHAT, SkipReason.MALFORMED_JSON, "not JSON"),
    ('{"a": 1, "a": 2}', LogFormat.PAIRS, SkipReason.MALFORMED_JSON, "duplicate"),
    ("[1, 2]", LogFormat.OTEL, SkipReason.MALFORMED_JSON, "not a JSON object"),
    (json.dumps({"tools": []}), LogFormat.CHAT, SkipReason.NOT_A_CHAT_REQUEST, "no messages"),
    (
        json.dumps({"messages": [{"role": "wizard", "content": "x"}]}),
        LogFormat.CHAT,
        SkipReason.UNKNOWN_ROLE,
        "'wizard'",
    ),
    (
        json.dumps(chat_line(tools=[{"type": "function", "function": {}}])),
        LogFormat.CHAT,
        SkipReason.BAD_TOOLS,
        "no name",
    ),
    (
        json.dumps(pair_line({"role": "assistant", "tool_calls": [call("launch")]})),
        LogFormat.PAIRS,
        SkipReason.TOOL_NOT_OFFERED,
        "'launch'",
    ),
    (json.dumps(_bad_arguments()), LogFormat.PAIRS, SkipReason.ARGUMENTS_NOT_JSON, "not JSON"),
    (
        json.dumps(pair_line({"role": "assistant", "tool_calls": [call(arguments="[1]")]})),
        LogFormat.PAIRS,
        SkipReason.ARGUMENTS_NOT_JSON,
        "not a JSON object",
    ),
    (
        json.dumps({"request": {"model": "e", "input": "text"}, "response": {}}),
        LogFormat.PAIRS,
        SkipReason.NOT_A_CHAT_REQUEST,
        "Responses API",
    ),
    (
        json.dumps({"request": {"messages": ASKED}, "error": "HTTP 429"}),
        LogFormat.PAIRS,
        SkipReason.FAILED_REQUEST,
        "429",
    ),
    (
        json.dumps(export(span({"gen_ai.operation.name": "chat"}))),
        LogFormat.OTEL,
        SkipReason.NO_CONTENT,
        "without its messages",
    ),
]
BAD_IDS = [
    "not-json",
    "duplicate-key",
    "not-an-object",
    "no-messages",
    "unknown-role",
    "tool-without-name",
    "tool-not-offered",
    "arguments-not-json",
    "arguments-an-array",
    "responses-api",
    "failed-attempt",
    "span-without-content",
]


@pytest.mark.parametrize(("text", "format", "reason", "says"), BAD, ids=BAD_IDS)
def test_a_bad_line_raises_log_error_naming_file_and_line(
    tmp_path: Path, text: str, format: LogFormat, reason: SkipReason, says: str
) -> None:
    """on_error='fail': the first bad line raises LogError, 'file:line: the problem'.

    A line that is whole but holds nothing to replay (``COUNTED``) is yielded instead.
    """
    path = write(tmp_path / "log.jsonl", jsonl(good(format)) + text + "\n")
    if reason in COUNTED:
        *_, last = read_logs([path], format=format)
        assert isinstance(last, SkippedLine)
        assert (last.reason, last.where.split("#")[0]) == (reason, f"{path}:2")
        return
    with pytest.raises(LogError) as caught:
        list(read_logs([path], format=format))
    assert caught.value.reason is reason
    assert str(caught.value).startswith(f"{path}:2")
    assert says in str(caught.value)


@pytest.mark.parametrize(("text", "format", "reason", "says"), BAD, ids=BAD_IDS)
def test_with_skip_a_bad_line_is_counted_with_its_reason_and_reading_goes_on(
    tmp_path: Path, text: str, format: LogFormat, reason: SkipReason, says: str
) -> None:
    """on_error='skip': the bad line is a SkippedLine; the lines after it are read."""
    path = write(tmp_path / "log.jsonl", text + "\n" + jsonl(good(format)))
    found = requests(path, format=format, on_error="skip")
    skipped = [r for r in found if isinstance(r, SkippedLine)]
    assert [(s.reason, s.where.split("#")[0]) for s in skipped] == [(reason, f"{path}:1")]
    assert says in skipped[0].message
    assert any(isinstance(r, LoggedRequest) and r.where.startswith(f"{path}:2") for r in found)


def test_a_bad_call_in_a_conversation_skips_that_request_only(tmp_path: Path) -> None:
    """chat: a tool not offered at message #1 skips #1; #2 of the same line is read."""
    line = chat_line()
    line["messages"][2]["tool_calls"] = [call("launch")]
    path = write(tmp_path / "log.jsonl", jsonl(line))
    first, second = requests(path, on_error="skip")
    assert isinstance(first, SkippedLine)
    assert (first.where, first.reason) == (f"{path}:1#1", SkipReason.TOOL_NOT_OFFERED)
    assert isinstance(second, LoggedRequest)


def test_an_undetectable_line_is_skipped_and_the_next_one_decides(tmp_path: Path) -> None:
    """Detection moves on past lines of no known shape; with fail, such a line raises."""
    path = write(tmp_path / "log.jsonl", '{"hello": 1}\n' + jsonl(pair_line()))
    first, second = requests(path, on_error="skip")
    assert isinstance(first, SkippedLine)
    assert first.where == f"{path}:1"
    assert "name the format" in first.message
    assert isinstance(second, LoggedRequest)
    assert second.format is LogFormat.PAIRS
    with pytest.raises(LogError, match=":1: not a line of any log format"):
        requests(path)


def test_a_line_over_the_bound_is_passed_over_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line past MAX_LINE_BYTES is too_large; the line after it is read."""
    from agent_lab.logs import reader

    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 1000)
    monkeypatch.setattr(reader, "_BLOCK", 64)
    long_line = json.dumps(chat_line(padding="x" * 5000))
    path = write(tmp_path / "log.jsonl", long_line + "\n" + jsonl(pair_line()))
    first, second = requests(path, on_error="skip")
    assert isinstance(first, SkippedLine)
    assert (first.where, first.reason) == (f"{path}:1", SkipReason.TOO_LARGE)
    assert isinstance(second, LoggedRequest)
    assert second.where == f"{path}:2"


def test_a_gzip_stream_cut_short_is_a_bad_line_not_a_crash(tmp_path: Path) -> None:
    """A truncated .gz (a log still being written) yields what it holds, then one skip."""
    data = gzip.compress(jsonl(*[pair_line()] * 200).encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    found = requests(path, on_error="skip")
    assert isinstance(found[-1], SkippedLine)
    assert "cannot be read past here" in found[-1].message
    with pytest.raises(LogError):
        requests(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_before_a_byte_is_read(tmp_path: Path) -> None:
    """A FIFO would block forever waiting for a writer: it is refused as no regular file."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputFileError, match="FIFO"):
        requests(fifo)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_an_endless_device_is_refused() -> None:
    """/dev/zero never ends: it is refused as a character device, not read."""
    with pytest.raises(InputFileError, match="character device"):
        requests(Path("/dev/zero"))


def test_a_missing_file_and_a_folder_are_input_errors(tmp_path: Path) -> None:
    """No file: MissingInputError; a folder: InputFileError; both name the path."""
    with pytest.raises(MissingInputError, match="no such log file"):
        requests(tmp_path / "absent.jsonl")
    with pytest.raises(InputFileError, match="a folder"):
        requests(tmp_path)


def test_a_byte_order_mark_and_blank_lines_are_no_lines(tmp_path: Path) -> None:
    """A UTF-8 BOM before the first line (Windows editors) and blank lines are not errors."""
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + jsonl(pair_line()).encode() + b"\n  \n")
    assert [r.where for r in requests(path)] == [f"{path}:1"]


@pytest.mark.parametrize("zipped", [False, True], ids=["plain", "gzipped"])
def test_millions_of_blank_lines_are_passed_over_and_counted(tmp_path: Path, zipped: bool) -> None:
    """Blank lines cost native time, not a readline each (issue 36: a 1 MB gzip of a
    gigabyte of them kept shadow busy for minutes); the lines around them keep their numbers."""
    line = jsonl(pair_line()).encode()
    data = (
        b"\xef\xbb\xbf"
        + line
        + b"\n" * 2_000_000
        + b" \t\r\n" * 500_000
        + line
        + b"\n" * 1_000_000
        + line.rstrip(b"\n")
    )
    path = tmp_path / "blank.jsonl"
    path.write_bytes(gzip.compress(data, compresslevel=1) if zipped else data)
    found = requests(path)
    assert [r.where for r in found] == [f"{path}:1", f"{path}:2500002", f"{path}:3500003"]


def _read_one_at_a_time(data: bytes, bound: int) -> list[tuple[int, bytes | None]]:
    """What the reader once did, a readline at a time: each line's number, and its bytes."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()  # the newline ending the last line begins none
    read: list[tuple[int, bytes | None]] = []
    for number, line in enumerate(lines, 1):
        if len(line) > bound:
            read.append((number, None))
            continue
        text = line.removeprefix(b"\xef\xbb\xbf") if number == 1 else line
        if text.strip():
            read.append((number, text))
    return read


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(
        st.tuples(
            st.sampled_from(
                [b"", b" ", b"\t\r", b"\x0b\x0c", b"\xef\xbb\xbf", b"{}", b" [1]", b"x" * 12]
            ),
            st.booleans(),
        ),
        max_size=40,
    ),
    block=st.integers(1, 16),
    beyond=st.integers(0, 12),
)
def test_lines_read_in_blocks_are_the_lines_read_one_at_a_time(
    pieces: list[tuple[bytes, bool]], block: int, beyond: int
) -> None:
    """Whatever the blocks cut: the same lines, numbers, BOM and too-long lines (blank ones
    too) as a readline at a time."""
    from agent_lab.logs import reader

    data = b"".join(piece + (b"\n" if ends else b"") for piece, ends in pieces)
    bound = block + beyond  # a block is no longer than the bound, as in the reader
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reader, "_BLOCK", block)
        patch.setattr(reader, "MAX_LINE_BYTES", bound)
        got = list(reader._lines(io.BytesIO(data), "f"))  # pyright: ignore[reportPrivateUsage]
    assert got == [(f"f:{n}", line) for n, line in _read_one_at_a_time(data, bound)]


def test_read_line_is_pure_and_takes_bytes() -> None:
    """The per-line function a caller maps over partitions: bytes or text, never raising."""
    text = json.dumps(pair_line())
    assert read_line(text.encode(), where="x:9", format=LogFormat.PAIRS) == read_line(
        text, where="x:9", format=LogFormat.PAIRS
    )
    assert read_line("   \n", where="x:1", format=LogFormat.CHAT) == []
    [skipped] = read_line(b"\xff\xfe", where="x:2", format=LogFormat.CHAT)
    assert isinstance(skipped, SkippedLine)
    assert skipped.reason is SkipReason.MALFORMED_JSON
