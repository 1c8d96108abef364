"""LangChain, deterministic-first: a chat model that answers the tool calls plain code completes.

``DeterministicFirstChatModel`` wraps the chat model an agent already has.
``bind_tools`` binds the tools to the wrapped model, as that model formats
them, and keeps them as OpenAI tool specs
(``convert_to_openai_tool``). Each call turns the messages into Chat
Completions messages and asks the integrations' seam:

* the user's turn, when plain code completes the call (``answer_locally``):
  an ``AIMessage`` with ``tool_calls`` and zero usage, its ledger in
  ``response_metadata["agent_lab"]``;
* the user's turn, when a parameter only the user can supply is missing
  and words may end the turn: an ``AIMessage`` asking for it, zero usage,
  the same ledger (a model would have to ask the same, or guess);
* the turn after the results of those calls, when each tool's event declares
  a ``reply`` that can say its result (``reply_locally``) and words may end
  the turn: an ``AIMessage`` of those words, zero usage, the same ledger;
* otherwise the call goes to the wrapped model as it came (``invoke``,
  ``stream`` and their async forms, with the caller's config), so its
  answer, its callbacks and its usage are its own.

Install with ``pip install 'agent-lab[langchain]'``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence  # noqa: TC003 -- pydantic reads them
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, cast

from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManager,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import BaseMessage  # noqa: TC002 -- a field pydantic checks
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, PrivateAttr
from typing_extensions import override

from agent_lab.agents.turn import Reading  # noqa: TC001 -- a field pydantic checks
from agent_lab.integrations._langchain_messages import (
    LOCAL_MODEL,
    chat_messages,
    local_chunk,
    local_message,
    model_answer,
    tool_results,
)
from agent_lab.integrations._shadow import ShadowLog
from agent_lab.integrations.seam import LocalAnswer, answer_locally, reply_locally, rule_book
from agent_lab.log_replay.figures import ShadowFigures
from agent_lab.providers.pricing import PriceTable  # noqa: TC001 -- a field pydantic checks

if TYPE_CHECKING:
    from pathlib import Path

    from langchain_core.messages import AIMessage, AIMessageChunk

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.resolvers.learned import RuleBook

__all__ = ["LOCAL_MODEL", "DeterministicFirstChatModel"]

_FREE_CHOICES = (None, "auto", "any", "required")
"""``tool_choice`` values a local call obeys (``none``, ``True``, one tool named: the model's)."""
_WORDS_CHOICES = (None, "auto")
"""``tool_choice`` values a reply in words obeys (``any``, ``required``: a call is due)."""
_OUTPUT_OPTIONS = frozenset({"response_format", "ls_structured_output_format"})
"""``bind_tools`` options that ask for structured output: the model's to give, never a reply."""


_DECIDED: ContextVar[tuple[tuple[int, ...], LocalAnswer] | None] = ContextVar(
    "agent_lab_langchain_decided", default=None
)
"""The answer ``invoke`` decided, for the ``_generate`` its ``super().invoke`` runs (which
keeps LangChain's callbacks and tracing): the turn is decided once, not twice."""


def _identity(messages: Sequence[BaseMessage]) -> tuple[int, ...]:
    # LangChain converts the input again on the way down: the same message objects.
    return tuple(id(message) for message in messages)


class DeterministicFirstChatModel(BaseChatModel):
    """A LangChain chat model that answers what plain code completes: a call, a declared reply.

    Args:
        wrapped: The chat model asked whenever plain code cannot complete a call;
            it must support ``bind_tools``.
        plugins: Your own resolvers, routes and replies for the tools they name
            (the others get the schema-driven resolver).
        read: What of the conversation the resolvers read: the last user
            message, or every user message so far (``"user_turns"``).
        shadow: Never answer locally: always ask the wrapped model, and count
            what plain code would have done in ``figures``.
        prices: Prices the saved tokens in shadow mode; ``None``: genai-prices'.
        rules: Learned rules (``agent-lab learn``'s), or the path of their file, read
            once here: written into the tools' schemas before each decision (and
            each shadow replay), so the schema-driven resolver applies them.
        **options: ``BaseChatModel``'s own fields (``callbacks``, ``tags``...).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    wrapped: BaseChatModel
    read: Reading = "last"
    shadow: bool = False
    prices: PriceTable | None = None
    tool_specs: tuple[dict[str, Any], ...] = ()
    """The tools bound by ``bind_tools``, as OpenAI tool specs."""
    bound: Runnable[LanguageModelInput, BaseMessage] | None = None
    """The wrapped model with the same tools bound by its own ``bind_tools``."""
    free: bool = True
    """Whether ``tool_choice`` lets plain code answer (``none`` or one tool named do not)."""
    at_most_one: bool = False
    """``parallel_tool_calls=False`` was bound: an answer of several calls is the model's."""
    says: bool = True
    """Words may end the turn: ``tool_choice`` demands no call and no structured output is
    bound (``create_agent``'s ``response_format``), so a declared reply may answer."""
    _log: ShadowLog | None = PrivateAttr(default=None)
    # A plugin set is a dataclass of callables: kept as it is given, never validated as data.
    _plugins: PluginSet | None = PrivateAttr(default=None)
    _rules: RuleBook | None = PrivateAttr(default=None)

    def __init__(
        self,
        wrapped: BaseChatModel,
        plugins: PluginSet | None = None,
        *,
        read: Reading = "last",
        shadow: bool = False,
        prices: PriceTable | None = None,
        rules: RuleBook | str | Path | None = None,
        **options: Any,
    ) -> None:
        # BaseChatModel's own signature names none of this class's fields.
        fields: dict[str, Any] = {
            "wrapped": wrapped,
            "read": read,
            "shadow": shadow,
            "prices": prices,
        }
        super().__init__(**fields, **options)
        self._plugins = plugins
        self._rules = rule_book(rules)
        if shadow:
            self._log = ShadowLog(
                "langchain", plugins=plugins, read=read, prices=prices, rules=self._rules
            )

    @property
    def figures(self) -> ShadowFigures:
        """In shadow mode, what plain code would have done, as ``agent-lab shadow`` counts it.

        Shared by every model ``bind_tools`` returns; empty when ``shadow`` is off.
        """
        return self._log.figures if self._log is not None else ShadowFigures()

    @property
    def plugins(self) -> PluginSet | None:
        """Your own resolvers and routes, as given."""
        return self._plugins

    @property
    def rules(self) -> RuleBook | None:
        """The learned rules applied, read from their file when a path was given."""
        return self._rules

    @property
    @override
    def _llm_type(self) -> str:
        return "agent-lab-deterministic-first"

    @override
    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind ``tools`` to the wrapped model, and keep them as specs for plain code."""
        specs = tuple(convert_to_openai_tool(tool) for tool in tools)
        bound = self.wrapped.bind_tools(tools, tool_choice=tool_choice, **kwargs)
        functions = all(spec.get("type") == "function" for spec in specs)
        return self.model_copy(
            update={
                "tool_specs": specs,
                "bound": bound,
                "free": functions and tool_choice in _FREE_CHOICES,
                "at_most_one": kwargs.get("parallel_tool_calls") is False,
                "says": tool_choice in _WORDS_CHOICES and not _OUTPUT_OPTIONS & kwargs.keys(),
            }
        )

    # The public calls: a turn plain code cannot answer goes to the wrapped model untouched.

    @property
    def _target(self) -> Runnable[LanguageModelInput, BaseMessage]:
        return self.bound if self.bound is not None else self.wrapped

    @override
    def invoke(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> AIMessage:
        """The local answer when plain code completes the turn, else the wrapped model's."""
        messages = self._convert_input(input).to_messages()
        answer = self._answer(messages)
        if answer is not None:
            token = _DECIDED.set((_identity(messages), answer))
            try:
                return super().invoke(input, config, stop=stop, **kwargs)
            finally:
                _DECIDED.reset(token)
        message = self._target.invoke(input, config, stop=stop, **kwargs)
        self._record(messages, message)
        return cast("AIMessage", message)

    @override
    async def ainvoke(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> AIMessage:
        """``invoke``, awaited."""
        messages = self._convert_input(input).to_messages()
        answer = self._answer(messages)
        if answer is not None:
            token = _DECIDED.set((_identity(messages), answer))
            try:
                return await super().ainvoke(input, config, stop=stop, **kwargs)
            finally:
                _DECIDED.reset(token)
        message = await self._target.ainvoke(input, config, stop=stop, **kwargs)
        self._record(messages, message)
        return cast("AIMessage", message)

    @override
    def stream(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> Iterator[AIMessageChunk]:
        """The local answer as one chunk, else the wrapped model's stream."""
        messages = self._convert_input(input).to_messages()
        if self._answer(messages) is not None:
            yield from super().stream(input, config, stop=stop, **kwargs)
            return
        chunks: list[AIMessageChunk] = []
        for chunk in self._target.stream(input, config, stop=stop, **kwargs):
            chunks.append(cast("AIMessageChunk", chunk))
            yield cast("AIMessageChunk", chunk)
        self._record_chunks(messages, chunks)

    @override
    async def astream(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[AIMessageChunk]:
        """``stream``, asynchronously."""
        messages = self._convert_input(input).to_messages()
        if self._answer(messages) is not None:
            async for chunk in super().astream(input, config, stop=stop, **kwargs):
                yield chunk
            return
        chunks: list[AIMessageChunk] = []
        async for chunk in self._target.astream(input, config, stop=stop, **kwargs):
            chunks.append(cast("AIMessageChunk", chunk))
            yield cast("AIMessageChunk", chunk)
        self._record_chunks(messages, chunks)

    # The model's own run, for a local answer (and for callers of the legacy generate()).

    @override
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        answer = self._answer(messages)
        if answer is not None:
            return ChatResult(generations=[ChatGeneration(message=local_message(answer))])
        config = _nested(run_manager)
        message = self._target.invoke(messages, config, stop=stop, **kwargs)
        self._record(messages, message)
        return ChatResult(generations=[ChatGeneration(message=message)])

    @override
    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        answer = self._answer(messages)
        if answer is not None:
            return ChatResult(generations=[ChatGeneration(message=local_message(answer))])
        config = _nested(run_manager)
        message = await self._target.ainvoke(messages, config, stop=stop, **kwargs)
        self._record(messages, message)
        return ChatResult(generations=[ChatGeneration(message=message)])

    @override
    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        answer = self._answer(messages)
        if answer is not None:
            chunk = ChatGenerationChunk(message=local_chunk(answer))
            if run_manager is not None:
                run_manager.on_llm_new_token("", chunk=chunk)
            yield chunk
            return
        config = _nested(run_manager)
        chunks: list[AIMessageChunk] = []
        for piece in self._target.stream(messages, config, stop=stop, **kwargs):
            chunks.append(cast("AIMessageChunk", piece))
            yield ChatGenerationChunk(message=chunks[-1])
        self._record_chunks(messages, chunks)

    @override
    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        answer = self._answer(messages)
        if answer is not None:
            chunk = ChatGenerationChunk(message=local_chunk(answer))
            if run_manager is not None:
                await run_manager.on_llm_new_token("", chunk=chunk)
            yield chunk
            return
        config = _nested(run_manager)
        chunks: list[AIMessageChunk] = []
        async for piece in self._target.astream(messages, config, stop=stop, **kwargs):
            chunks.append(cast("AIMessageChunk", piece))
            yield ChatGenerationChunk(message=chunks[-1])
        self._record_chunks(messages, chunks)

    # The decision, and shadow mode's record.

    def _answer(self, messages: Sequence[BaseMessage]) -> LocalAnswer | None:
        if self.shadow or not self.free or not self.tool_specs:
            return None
        decided = _DECIDED.get()
        if decided is not None and decided[0] == _identity(messages):
            return decided[1]
        results = tool_results(messages)
        if results:
            # The turn after calls: said by their replies, if every tool succeeded and words may.
            if not self.says or any(result.status != "success" for result in results):
                return None
            return reply_locally(chat_messages(messages), self.tool_specs, plugins=self.plugins)
        return answer_locally(
            chat_messages(messages),
            self.tool_specs,
            plugins=self.plugins,
            read=self.read,
            at_most_one=self.at_most_one,
            ask=self.says,
            rules=self.rules,
        )

    def _record(self, messages: Sequence[BaseMessage], message: BaseMessage) -> None:
        if self._log is None or not self.tool_specs:
            return
        model = getattr(self.wrapped, "model_name", None) or getattr(self.wrapped, "model", None)
        self._log.record(chat_messages(messages), self.tool_specs, model_answer(message, model))

    def _record_chunks(self, messages: Sequence[BaseMessage], chunks: list[AIMessageChunk]) -> None:
        if self._log is None or not chunks:
            return
        whole = chunks[0]
        for chunk in chunks[1:]:
            whole = whole + chunk
        self._record(messages, whole)


def _nested(
    run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None,
) -> RunnableConfig | None:
    """The wrapped model's run inside ours (``generate()`` callers): what ``get_child`` does."""
    if run_manager is None:
        return None
    manager = CallbackManager(handlers=[], parent_run_id=run_manager.run_id)
    manager.set_handlers(run_manager.inheritable_handlers)
    manager.add_tags(run_manager.inheritable_tags)
    manager.add_metadata(run_manager.inheritable_metadata)
    return RunnableConfig(callbacks=manager)
