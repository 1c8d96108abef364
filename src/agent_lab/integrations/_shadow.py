"""A wrapper's shadow mode: each exchange with the model replayed as ``agent-lab shadow`` would.

The exchange is written as the ``pairs`` log line a proxy would have logged
(the Chat Completions request beside the model's answer, the time the
wrapped model took as ``latency_ms``) and read back by the same reader, so
the figures a wrapper shows are the figures ``agent-lab shadow`` gives on
that log: one reader, one replay, one tally.
"""

from __future__ import annotations

from dataclasses import dataclass
from threading import Lock
from typing import TYPE_CHECKING, cast

from agent_lab.chat_completions import assistant_message, logged_completion, pairs_line
from agent_lab.log_replay.figures import ShadowFigures
from agent_lab.log_replay.replayed import replay
from agent_lab.logs.pairs import pair_request
from agent_lab.logs.record import LogError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent_lab.answering import Answerer, ToolChoiceMode
    from agent_lab.chat_completions import FunctionCall
    from agent_lab.providers.pricing import PriceTable
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["ModelAnswer", "ShadowLog"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelAnswer:
    """What the wrapped model answered, in the Chat Completions form a ``pairs`` log holds."""

    calls: tuple[FunctionCall, ...] = ()
    text: str | None = None
    prompt_tokens: int | None = None
    """``None`` when the framework reported no usage (unknown, never 0)."""
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    """Prompt tokens read from the provider's cache, when the framework reports them."""
    model: str | None = None
    timestamp: str | None = None
    """When the model answered (ISO 8601), when the framework says: the replay reads relative
    dates against it, as ``agent-lab shadow`` reads a logged line's."""


class ShadowLog:
    """The figures of every exchange a wrapper saw in shadow mode (``ShadowFigures``).

    Args:
        source: Names the exchanges (``where`` of each: ``source:n``).
        answerer: The wrapper's own envelope (its plugins, rules, read and context),
            so that each exchange is replayed as the wrapper would have answered it.
        prices: Prices the saved tokens; ``None`` takes genai-prices' table, as
            ``agent-lab shadow`` does.
    """

    def __init__(
        self,
        source: str,
        *,
        answerer: Answerer,
        prices: PriceTable | None = None,
    ) -> None:
        if prices is None:
            from agent_lab.providers.pricing import PriceTable  # noqa: PLC0415

            prices = PriceTable()
        self.figures = ShadowFigures(prices=prices)
        self._source = source
        self._answerer = answerer
        self._count = 0
        # Sync framework calls may run in threads (a batch): one tally, added to under a lock.
        self._lock = Lock()

    def record(
        self,
        messages: Sequence[Mapping[str, object]],
        tools: Sequence[Mapping[str, object]],
        answer: ModelAnswer,
        *,
        latency_ms: float | None = None,
        tool_choice: ToolChoiceMode | None = None,
    ) -> None:
        """Replay one exchange and add it to the figures (a line the reader refuses is skipped).

        ``latency_ms``: how long the wrapped model took, the time a local answer saves.
        ``tool_choice``: the request's, as the envelope reads it; ``none`` is written into
        the line, so that the replay never counts the request covered (the wrapper forwards it).
        """
        line = _line(messages, tools, answer, latency_ms=latency_ms, tool_choice=tool_choice)
        with self._lock:
            self._count += 1
            where = f"{self._source}:{self._count}"
        try:
            item = replay(pair_request(line, where), self._answerer)
        except LogError as err:
            item = err.skipped
        with self._lock:
            self.figures.add(item)


def _line(
    messages: Sequence[Mapping[str, object]],
    tools: Sequence[Mapping[str, object]],
    answer: ModelAnswer,
    *,
    latency_ms: float | None,
    tool_choice: ToolChoiceMode | None,
) -> JSONObject:
    """The exchange as a ``pairs`` log line: the request body beside a ``chat.completion``."""
    usage: JSONObject | None = None
    if answer.prompt_tokens is not None and answer.completion_tokens is not None:
        usage = {
            "prompt_tokens": answer.prompt_tokens,
            "completion_tokens": answer.completion_tokens,
        }
        if answer.cached_tokens is not None:
            usage["prompt_tokens_details"] = {"cached_tokens": answer.cached_tokens}
    response = logged_completion(
        assistant_message(answer.text, answer.calls),
        model=answer.model,
        usage=usage,
    )
    request: JSONObject = {
        # The frameworks hand over typed dicts of JSON values: the log line is JSON data.
        "messages": cast("list[JSONValue]", [dict(m) for m in messages]),
        "tools": cast("list[JSONValue]", [dict(t) for t in tools]),
    }
    if tool_choice == "none":
        request["tool_choice"] = "none"
    return pairs_line(request, response=response, latency_ms=latency_ms, timestamp=answer.timestamp)
