"""The Chat Completions shape written: what the SDK parses, what the log readers read back."""

from __future__ import annotations

import json

import pytest
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from agent_lab.chat_completions import (
    FunctionCall,
    assembled,
    assistant_message,
    completion,
    content_text,
    joined_text,
    logged_completion,
    pairs_line,
    stream_chunks,
    tool_spec,
)
from agent_lab.logs.pairs import pair_request
from agent_lab.strict_json import JSONValue

WEATHER = FunctionCall(id="call_1", name="get_weather", arguments='{"city": "Paris"}')
TIMER = FunctionCall(id="call_2", name="set_timer", arguments='{"minutes": 10}')
ANSWERS = [((WEATHER, TIMER), None), ((), "Sunny in Paris."), ((), None)]
IDS = ["calls", "words", "nothing"]


@pytest.mark.parametrize(("calls", "text"), ANSWERS, ids=IDS)
def test_an_answer_is_what_the_sdk_parses(
    calls: tuple[FunctionCall, ...], text: str | None
) -> None:
    """The completion is a ``ChatCompletion``: the calls with their ids, or the words."""
    body = json.loads(completion(calls, model="m", created=7, text=text))
    parsed = ChatCompletion.model_validate(body)
    choice = parsed.choices[0]
    assert choice.finish_reason == ("tool_calls" if calls else "stop")
    assert choice.message.content == text
    said = [(c.id, c.function.name, c.function.arguments) for c in choice.message.tool_calls or []]  # type: ignore[union-attr]
    assert said == [(c.id, c.name, c.arguments) for c in calls]
    assert parsed.usage is not None
    assert parsed.usage.total_tokens == 0


@pytest.mark.parametrize(("calls", "text"), ANSWERS, ids=IDS)
@pytest.mark.parametrize("include_usage", [True, False], ids=["usage", "no-usage"])
def test_a_stream_put_back_together_is_the_completion_it_streams(
    calls: tuple[FunctionCall, ...], text: str | None, include_usage: bool
) -> None:
    """Every chunk is a ``ChatCompletionChunk``; ``assembled`` gives back the same message."""
    stream = stream_chunks(calls, model="m", created=7, include_usage=include_usage, text=text)
    events = [line[6:] for line in stream.decode().split("\n\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [ChatCompletionChunk.model_validate_json(event) for event in events[:-1]]
    assert len({chunk.id for chunk in chunks}) == 1
    whole = assembled(stream)
    body = json.loads(completion(calls, model="m", created=7, text=text))
    assert whole is not None
    expected = body["choices"][0]["message"]
    del expected["refusal"]
    assert whole["choices"] == [
        {"index": 0, "message": expected, "finish_reason": body["choices"][0]["finish_reason"]}
    ]
    assert ("usage" in whole) is include_usage


def test_a_stream_is_put_back_together_piece_by_piece_in_the_order_of_its_calls() -> None:
    """Words and arguments come in pieces; calls are ordered by ``index``, not by arrival."""
    pieces: list[JSONValue] = [
        {"index": 1, "function": {"name": "b"}},
        {"index": 0, "id": "x", "function": {"name": "a", "arguments": '{"k"'}},
        {"index": 0, "function": {"arguments": ":1}"}},
    ]
    chunks: list[JSONValue] = [
        {"id": "c", "model": "m", "created": 1, "choices": [{"delta": {"content": "Hel"}}]},
        {"choices": [{"delta": {"content": "lo"}}]},
        *({"choices": [{"delta": {"tool_calls": [piece]}}]} for piece in pieces),
        {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]},
    ]
    stream = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    assert assembled(stream.encode()) == {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": assistant_message(
                    "Hello",
                    [
                        FunctionCall(id="x", name="a", arguments='{"k":1}'),
                        FunctionCall(id=None, name="b", arguments=""),
                    ],
                ),
                "finish_reason": "tool_calls",
            }
        ],
    }


@pytest.mark.parametrize(
    "stream",
    [b"", b": keep-alive\n\n", b'data: {"error": {"message": "overloaded"}}\n\n', b"data: [\n\n"],
    ids=["empty", "comments-only", "an-error-event", "not-json"],
)
def test_no_completion_is_made_up_from_a_stream_that_spells_none(stream: bytes) -> None:
    """No chunk, or an error event, or a chunk that is not JSON: ``None``."""
    assert assembled(stream) is None


@pytest.mark.parametrize(
    ("content", "text"),
    [
        ("words", "words"),
        ("", ""),
        (None, None),
        ([{"type": "text", "text": "Sun"}, {"type": "text", "text": "ny."}], "Sunny."),
        ([{"type": "text", "text": "a"}, {"type": "image_url"}], "a"),
        ([{"type": "image_url"}], None),
        (list[JSONValue](), None),
    ],
    ids=[
        "a-string",
        "empty",
        "none",
        "parts-joined",
        "an-image-left-out",
        "image-only",
        "no-parts",
    ],
)
def test_text_parts_are_joined_with_nothing_between(content: JSONValue, text: str | None) -> None:
    """The one rule for text in parts: joined as they come, ``None`` when none says anything."""
    assert content_text(content) == text


def test_the_join_adds_nothing_and_none_is_no_text() -> None:
    """``joined_text``: the pieces as one text; no pieces, ``None``; an empty piece is text."""
    assert joined_text(["Hel", "lo"]) == "Hello"
    assert joined_text([]) is None
    assert joined_text([""]) == ""


def test_a_pairs_line_holds_what_its_writer_knows_and_reads_back() -> None:
    """Fields given ``None`` are left out; the log reader reads the calls and words back."""
    request: JSONValue = {
        "messages": [{"role": "user", "content": "weather in Paris"}],
        "tools": [tool_spec("get_weather", {"type": "object"}, "The weather.")],
    }
    response = logged_completion(assistant_message(None, [WEATHER]), model="m")
    line = pairs_line(request, response=response, latency_ms=12.34567, timestamp="2026-01-01")
    assert list(line) == ["request", "response", "latency_ms", "timestamp"]
    assert line["latency_ms"] == 12.346
    assert list(response) == ["object", "model", "choices"]
    read = pair_request(line, "test:1")
    assert [(call.name, call.arguments) for call in read.calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert (read.model, read.latency_ms, read.text) == ("m", 12.346, None)


def test_a_tool_spec_names_its_description_only_when_it_has_one() -> None:
    """``{"type": "function", "function": {name, parameters[, description]}}``."""
    assert tool_spec("f", {"type": "object"}) == {
        "type": "function",
        "function": {"name": "f", "parameters": {"type": "object"}},
    }
    assert tool_spec("f", {}, "")["function"] == {"name": "f", "parameters": {}, "description": ""}
