"""The Agents SDK's items, to and from the envelope's: Chat Completions messages and answers.

Each way across: a turn's input items, tools, handoffs and settings become
the envelope's ``Asked``, Chat Completions messages and tool specs (with the
SDK's own converter, as its Chat Completions model does); the output items a
model answered become the ``ModelAnswer`` shadow mode logs; and a local
answer becomes the output items a model would have answered (function calls,
or an assistant message).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from agents.exceptions import UserError
from agents.models.chatcmpl_converter import Converter
from agents.tool import FunctionTool
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from agent_lab.agents.tool_specs import tool_name
from agent_lab.answering import Asked
from agent_lab.chat_completions import FunctionCall, joined_text
from agent_lab.integrations._shadow import ModelAnswer

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agents.agent_output import AgentOutputSchemaBase
    from agents.handoffs import Handoff
    from agents.items import TResponseInputItem, TResponseOutputItem
    from agents.model_settings import ModelSettings
    from agents.tool import Tool
    from agents.usage import Usage

    from agent_lab.answering import LocalAnswer, ToolChoiceMode
    from agent_lab.strict_json import JSONObject

__all__ = ["ITEM_ID", "chat_request", "local_items", "model_answer"]

ITEM_ID = "__fake_id__"
"""The id of a local answer's items, as the SDK's own Chat Completions model fills it in
(``agents.models.fake_id.FAKE_RESPONSES_ID``): no Responses API made them."""


def chat_request(
    system_instructions: str | None,
    items: str | list[TResponseInputItem],
    settings: ModelSettings,
    tools: list[Tool],
    handoffs: list[Handoff],
    *,
    output_schema: AgentOutputSchemaBase | None,
) -> Asked | None:
    """The turn as the envelope asks it, in Chat Completions form, or ``None``: the model's.

    ``None`` whatever plain code decides: a tool Chat Completions cannot carry
    (hosted tools), input the converter refuses, or a ``tool_choice`` that names
    no function tool offered (a hosted tool, an MCP tool). A ``tool_choice`` naming
    a function tool (or a handoff) is that tool, ``required``. A function call's
    output is a ``tool`` message answering its ``call_id``.
    """
    if any(not isinstance(tool, FunctionTool) for tool in tools):
        return None
    try:
        specs = [Converter.tool_to_openai(tool) for tool in tools]
        messages = Converter.items_to_messages(
            items if isinstance(items, str) else [_one_text(item) for item in items]
        )
    except UserError:
        return None
    specs.extend(Converter.convert_handoff_tool(handoff) for handoff in handoffs)
    offered = [cast("JSONObject", dict(spec)) for spec in specs]
    chosen = _tool_choice(settings.tool_choice, offered)
    if chosen is None:
        return None
    chat: list[JSONObject] = [cast("JSONObject", dict(message)) for message in messages]
    if system_instructions:
        chat.insert(0, {"role": "system", "content": system_instructions})
    return Asked(
        messages=chat,
        tools=offered,
        tool_choice=chosen[0],
        forced=chosen[1],
        at_most_one=settings.parallel_tool_calls is False,
        # A structured output type is the model's to give: a reply in words would not be it.
        words=output_schema is None or output_schema.is_plain_text(),
    )


def _tool_choice(
    choice: object, offered: Sequence[JSONObject]
) -> tuple[ToolChoiceMode, str | None] | None:
    """``ModelSettings.tool_choice`` as the envelope reads it, and the one tool it names."""
    if choice is None or choice == "auto":
        return "auto", None
    if choice in ("required", "none"):
        return cast("ToolChoiceMode", choice), None
    names = {tool_name(spec) for spec in offered}
    return ("required", choice) if isinstance(choice, str) and choice in names else None


def _one_text(item: TResponseInputItem) -> TResponseInputItem:
    """An assistant message's text parts as one, joined by the one rule (``joined_text``).

    The SDK's converter would put a line break between them, words no model wrote.
    """
    found = cast("Mapping[str, object]", item)
    content = found.get("content")
    if found.get("role") != "assistant" or not isinstance(content, list):
        return item
    parts = cast("list[Mapping[str, object]]", content)
    texts = [part for part in parts if part.get("type") == "output_text"]
    if len(texts) < 2:
        return item
    text = joined_text(str(part.get("text", "")) for part in texts)
    others = [part for part in parts if part.get("type") != "output_text"]
    return cast("TResponseInputItem", {**found, "content": [{**texts[0], "text": text}, *others]})


def _said(text: str) -> ResponseOutputMessage:
    """The assistant message a model's answer in words is."""
    return ResponseOutputMessage(
        id=ITEM_ID,
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def local_items(answer: LocalAnswer) -> list[TResponseOutputItem]:
    """The local answer as a model's output items: its words, or its function calls."""
    if answer.text is not None:
        return [_said(answer.text)]
    return [
        ResponseFunctionToolCall(
            type="function_call",
            call_id=call.id,
            name=call.name,
            arguments=call.arguments_json,
            status="completed",
        )
        for call in answer.calls
    ]


def model_answer(output: Sequence[object], usage: Usage | None, model: object) -> ModelAnswer:
    """What the wrapped model answered, as shadow mode logs it; ``model``: the wrapped model's."""
    calls = tuple(
        FunctionCall(id=item.call_id, name=item.name, arguments=item.arguments)
        for item in output
        if isinstance(item, ResponseFunctionToolCall)
    )
    texts = [
        part.text
        for item in output
        if isinstance(item, ResponseOutputMessage)
        for part in item.content
        if isinstance(part, ResponseOutputText)
    ]
    known = usage is not None and (usage.requests > 0 or usage.total_tokens > 0)
    return ModelAnswer(
        calls=calls,
        text=joined_text(texts),
        prompt_tokens=usage.input_tokens if known and usage is not None else None,
        completion_tokens=usage.output_tokens if known and usage is not None else None,
        model=model if isinstance(model, str) else None,
    )
