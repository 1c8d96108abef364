"""A chat-completion body read into a ``ProviderReply``: redacted, priced, or a failure."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.agents.port import FailureReason, ProviderFailure, ProviderReply
from agent_lab.providers._openai_wire import read_completion
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from agent_lab.providers.pricing import PriceTable
    from agent_lab.providers.redaction import Redactor

__all__ = ["MESSAGE_LIMIT", "completion_reply"]

MESSAGE_LIMIT = 300
"""The longest failure message kept (server text is redacted, then cut to this)."""


def completion_reply(
    body: bytes,
    *,
    model: str,
    attempts: int,
    latency_ns: int,
    format_tool: str | None,
    redact: Redactor,
    prices: PriceTable,
) -> ProviderReply:
    """The reply a chat-completion body makes, redacted; a body that is none is a failure.

    ``attempts`` counts the requests sent for it (the earlier ones failed);
    ``format_tool`` names the forced call whose arguments are the reply
    (``structured_output="tools"``).
    """
    try:
        # A server may echo what it was sent, the key included: every string it
        # returns is redacted before any is read, so that none reaches a result,
        # a cassette, the store or a log unredacted, whatever field it came in.
        completion = read_completion(redact.loads(body), model)
    except Exception as err:  # noqa: BLE001 - any malformed body is a failure reply
        return ProviderReply(
            usage=Usage(requests=attempts, model=model),
            latency_ns=latency_ns,
            failure=ProviderFailure(
                reason=FailureReason.INVALID_RESPONSE,
                message=redact.truncate(
                    f"not a chat completion: {type(err).__name__}: {err}", MESSAGE_LIMIT
                ),
            ),
        )
    answered_by = completion.model
    text, parsed, calls = completion.text, completion.parsed, completion.tool_calls
    if format_tool is not None and text is None:
        # structured_output="tools": the forced call's arguments are the reply.
        answer = next((call for call in calls if call.name == format_tool), None)
        if answer is not None:
            text, parsed, calls = answer.arguments_raw, answer.arguments, ()
    usage = Usage(
        prompt_tokens=completion.prompt_tokens,
        completion_tokens=completion.completion_tokens,
        cost=prices.cost(answered_by, completion.prompt_tokens, completion.completion_tokens),
        model=answered_by,
        requests=attempts,
        cached_tokens=completion.cached_tokens,
        # The earlier attempts were the retried failures; this one answered.
        succeeded=1,
    )
    if text is None and not calls:
        return ProviderReply(
            usage=usage,
            latency_ns=latency_ns,
            finish_reason=completion.finish_reason,
            failure=ProviderFailure(
                reason=FailureReason.NO_CONTENT, message="neither text nor a tool call"
            ),
        )
    return ProviderReply(
        text=text,
        parsed=parsed,
        tool_calls=calls,
        usage=usage,
        latency_ns=latency_ns,
        finish_reason=completion.finish_reason,
    )
