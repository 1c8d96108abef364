"""The ``chat`` format: one conversation a line, each assistant message one logged request.

A line is ``{"messages": [...], "tools": [...]}``, the format of OpenAI's
fine-tuning files and of most conversation exports. The n-th assistant
message is the request ``file:line#n``: the messages before it were sent, the
tools were offered, and its ``tool_calls`` (or its words) are the answer.

Read beside them, when the line has them: ``model``; ``usage`` (on the
assistant message itself, or on the line when the line holds one assistant
message only); ``metadata.estimated`` (the usage is an estimate);
``timestamp`` (or ``metadata.timestamp``: when the conversation took place,
ISO 8601 or unix seconds, the resolvers' ``now``). The legacy
form is read too: ``functions`` for the tools, an assistant's
``function_call`` for its call, and ``function`` messages kept as logged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.logs._values import as_object, fail, is_estimated, iso_timestamp, usage_from
from agent_lab.logs.chat_completions import calls_of, checked_messages, checked_tools, reply_text
from agent_lab.logs.record import LogError, LogFormat, LoggedRequest, SkippedLine, SkipReason

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONValue

__all__ = ["chat_requests"]


def chat_requests(line: JSONValue, where: str) -> list[LoggedRequest | SkippedLine]:
    """The requests of one conversation line: one per assistant message, or its skip.

    A problem of the whole line (not a conversation, an unknown role, bad
    tools) raises; a problem of one assistant message (a tool not offered,
    arguments that are not JSON) skips that request only, as ``file:line#n``.

    Raises:
        LogError: The line as a whole cannot be used.
    """
    fields = as_object(line)
    if fields is None:
        fail(where, SkipReason.MALFORMED_JSON, "the line is not a JSON object")
    if "messages" not in fields:
        fail(where, SkipReason.NOT_A_CHAT_REQUEST, "the line has no messages")
    messages = checked_messages(fields.get("messages"), where)
    tools = checked_tools(fields.get("tools"), where, functions=fields.get("functions"))
    model = fields.get("model")
    metadata = fields.get("metadata")
    estimated = is_estimated(metadata)
    stamp = fields.get("timestamp")
    if stamp is None and isinstance(metadata, dict):
        stamp = metadata.get("timestamp")
    timestamp = iso_timestamp(stamp)
    answers = sum(1 for message in messages if message.get("role") == "assistant")
    line_usage = fields.get("usage") if answers == 1 else None
    found: list[LoggedRequest | SkippedLine] = []
    for index, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        here = f"{where}#{len(found) + 1}"
        try:
            calls = calls_of(message, here, tools)
        except LogError as err:
            found.append(err.skipped)
            continue
        found.append(
            LoggedRequest(
                where=here,
                format=LogFormat.CHAT,
                messages=messages[:index],
                tools=tools,
                calls=calls,
                text=reply_text(message),
                model=model if isinstance(model, str) else None,
                usage=usage_from(message.get("usage", line_usage), estimated=estimated),
                timestamp=timestamp,
            )
        )
    return found
