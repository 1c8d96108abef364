"""The wrappers' converters write the Chat Completions shape, and join text parts by one rule.

The rule is ``chat_completions.joined_text``: nothing between the parts. The
frameworks' own converters put line breaks between them; the wrappers do not.
"""

from __future__ import annotations

import pytest

pytest.importorskip("agents", reason="the openai-agents extra is not installed")
pytest.importorskip("langchain_core", reason="the langchain extra is not installed")
pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")

from agents.model_settings import ModelSettings
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart

from agent_lab.chat_completions import content_text
from agent_lab.integrations import _langchain_messages as langchain
from agent_lab.integrations import _openai_agents_items as openai_agents
from agent_lab.integrations import _pydantic_ai_messages as pydantic_ai

PARTS = [{"type": "text", "text": "Sun"}, {"type": "text", "text": "ny."}]


def test_langchain_text_parts_stay_parts_and_strings_stay_strings() -> None:
    """A list content is the message's parts, never joined by a line break; a string is kept."""
    converted = langchain.chat_messages(
        [HumanMessage("hi"), AIMessage(list(PARTS)), ToolMessage("done", tool_call_id="c1")]
    )
    assert [message["content"] for message in converted] == ["hi", PARTS, "done"]
    assert content_text(converted[1]["content"]) == "Sunny."


def test_langchain_answer_text_is_its_parts_joined_and_no_words_is_none() -> None:
    """The model's words by the one rule; an answer of calls only says nothing (``None``)."""
    assert langchain.model_answer(AIMessage(list(PARTS)), "m").text == "Sunny."
    call = {"name": "f", "args": {"x": 1}, "id": "c1", "type": "tool_call"}
    answer = langchain.model_answer(AIMessage("", tool_calls=[call]), "m")
    assert answer.text is None
    assert [c.as_json() for c in answer.calls] == [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}
    ]


def test_agents_sdk_assistant_text_parts_are_joined_with_nothing_between() -> None:
    """The SDK's converter would join them with a line break; the wrapper joins them first."""
    said: list[dict[str, object]] = [
        {"type": "output_text", "text": part["text"], "annotations": []} for part in PARTS
    ]
    assistant = {"type": "message", "role": "assistant", "id": "m1", "status": "completed"}
    items: list[dict[str, object]] = [
        {"role": "user", "content": "weather?"},
        {**assistant, "content": said},
    ]
    request = openai_agents.chat_request(
        None,
        items,  # type: ignore[arg-type]
        ModelSettings(),
        [],
        [],
        output_schema=None,
    )
    assert request is not None
    assert request.messages[-1] == {"role": "assistant", "content": "Sunny."}


def test_pydantic_ai_text_parts_are_joined_with_nothing_between() -> None:
    """A response's text parts are one content; its calls beside them; user parts kept."""
    history = [
        ModelRequest(parts=[UserPromptPart(["Sun", "ny?"])]),
        ModelResponse(parts=[TextPart("Sun"), TextPart("ny."), ToolCallPart("f", {}, "c1")]),
    ]
    user, assistant = pydantic_ai.chat_messages(history)
    assert user["content"] == [{"type": "text", "text": "Sun"}, {"type": "text", "text": "ny?"}]
    assert assistant == {
        "role": "assistant",
        "content": "Sunny.",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    }
