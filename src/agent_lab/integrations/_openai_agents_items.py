"""The Agents SDK's items, to and from what the seam reads: Chat Completions messages and answers.

Each way across: a turn's input items, tools and handoffs become Chat
Completions messages and tool specs (with the SDK's own converter, as its
Chat Completions model does); the output items a model answered become the
``ModelAnswer`` shadow mode logs; and a local answer becomes the output
items a model would have answered (function calls, or an assistant message).
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

    from agent_lab.integrations.seam import LocalAnswer
    from agent_lab.strict_json import JSONObject

__all__ = ["ITEM_ID", "ChatRequest", "chat_request", "local_items", "model_answer"]

ITEM_ID = "__fake_id__"
"""The id of a local answer's items, as the SDK's own Chat Completions model fills it in
(``agents.models.fake_id.FAKE_RESPONSES_ID``): no Responses API made them."""


class ChatRequest:
    """The turn as Chat Completions would send it: messages, tool specs, one call or several."""

    __slots__ = ("at_most_one", "messages", "says", "tools")

    def __init__(
        self,
        messages: list[JSONObject],
        tools: list[JSONObject],
        *,
        at_most_one: bool,
        says: bool,
    ) -> None:
        self.messages = messages
        self.tools = tools
        self.at_most_one = at_most_one
        self.says = says
        """Words may end the turn: ``tool_choice`` does not demand a call, the output is text."""


def chat_request(
    system_instructions: str | None,
    items: str | list[TResponseInputItem],
    settings: ModelSettings,
    tools: list[Tool],
    handoffs: list[Handoff],
    *,
    output_schema: AgentOutputSchemaBase | None,
) -> ChatRequest | None:
    """The turn in Chat Completions form, or ``None`` when it is the model's whatever it says.

    ``None``: a tool Chat Completions cannot carry (hosted tools), input the
    converter refuses, or ``tool_choice`` set to ``none`` or to one tool by name.
    A function call's output is a ``tool`` message answering its ``call_id``.
    """
    if settings.tool_choice not in (None, "auto", "required"):
        return None
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
    chat: list[JSONObject] = [cast("JSONObject", dict(message)) for message in messages]
    if system_instructions:
        chat.insert(0, {"role": "system", "content": system_instructions})
    return ChatRequest(
        chat,
        [cast("JSONObject", dict(spec)) for spec in specs],
        at_most_one=settings.parallel_tool_calls is False,
        # A structured output type is the model's to give: a reply in words would not be it.
        says=settings.tool_choice in (None, "auto")
        and (output_schema is None or output_schema.is_plain_text()),
    )


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
