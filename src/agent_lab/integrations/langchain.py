"""LangChain, deterministic-first: a chat model that answers the tool calls plain code completes.

``DeterministicFirstChatModel`` wraps the chat model an agent already has.
Its settings, the envelope that decides (``agent_lab.answering``), the
shadow's figures and the ``execute_tool`` span are the base's
(``integrations.wrapper.DeterministicFirstWrapper``); this module binds tools and
turns each call into the envelope's ``Asked`` and a local answer into an
``AIMessage``. ``bind_tools`` binds the tools to the wrapped model, as that
model formats them, and keeps them as OpenAI tool specs
(``convert_to_openai_tool``) with what its ``tool_choice`` allows. Each call:

* the user's turn, when plain code completes the call: an ``AIMessage``
  with ``tool_calls`` and zero usage, its ledger in
  ``response_metadata["agent_lab"]``; under a ``tool_choice`` naming one
  tool, only a call to that tool (another is the model's to make);
* the user's turn, when a parameter only the user can supply is missing
  and words may end the turn: an ``AIMessage`` asking for it, zero usage,
  the same ledger (a model would have to ask the same, or guess);
* the turn after the results of those calls, when each tool's event declares
  a ``reply`` that can say its result and words may end the turn: an
  ``AIMessage`` of those words, zero usage, the same ledger;
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

from agent_lab.answering import ToolChoiceMode  # noqa: TC001 -- a field pydantic checks
from agent_lab.integrations._langchain_messages import (
    LOCAL_MODEL,
    asked_of,
    binding_choice,
    chat_messages,
    local_chunk,
    local_message,
    model_answer,
)
from agent_lab.integrations.wrapper import DeterministicFirstWrapper, WrapperState

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from langchain_core.messages import AIMessage, AIMessageChunk

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.answering import LocalAnswer
    from agent_lab.clock import Clock
    from agent_lab.otel.tracing import Tracing
    from agent_lab.providers.pricing import PriceTable
    from agent_lab.resolvers.learned import RuleBook

__all__ = ["LOCAL_MODEL", "DeterministicFirstChatModel"]

_OUTPUT_OPTIONS = frozenset({"response_format", "ls_structured_output_format"})
"""``bind_tools`` options that ask for structured output: the model's to give, never a reply."""


_DECIDED: ContextVar[tuple[tuple[BaseMessage, ...], LocalAnswer] | None] = ContextVar(
    "agent_lab_langchain_decided", default=None
)
"""The answer ``invoke`` decided, for the ``_generate`` its ``super().invoke`` runs (which
keeps LangChain's callbacks and tracing): the turn is decided once, not twice."""


def _same(decided: tuple[BaseMessage, ...], messages: Sequence[BaseMessage]) -> bool:
    # LangChain converts the input again on the way down: the same message objects.
    return len(decided) == len(messages) and all(
        one is other for one, other in zip(decided, messages, strict=True)
    )


class DeterministicFirstChatModel(DeterministicFirstWrapper, BaseChatModel):
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
        context: Facts for the resolvers, such as ``{"now": "2026-12-01T09:00"}``.
        ask: Answer in words what plain code knows with no model (a question for a
            missing value only the user can supply, a refusal of a value the schema
            forbids); ``False``: those turns go to the model.
        tracing: Where a local answer's ``execute_tool`` span goes, with its ledger
            (extra ``otel``); ``None``: the global tracer provider, when one is set.
        clock: Times the wrapped model's calls in shadow mode (the saved latency).
        **options: ``BaseChatModel``'s own fields (``callbacks``, ``tags``...).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    wrapped: BaseChatModel
    tool_specs: tuple[dict[str, Any], ...] = ()
    """The tools bound by ``bind_tools``, as OpenAI tool specs."""
    bound: Runnable[LanguageModelInput, BaseMessage] | None = None
    """The wrapped model with the same tools bound by its own ``bind_tools``."""
    choice: tuple[ToolChoiceMode, str | None] | None = ("auto", None)
    """The bound ``tool_choice`` as the envelope reads it, with the one tool it names
    (``binding_choice``); ``None``: every call is the model's (a tool that is not a function)."""
    at_most_one: bool = False
    """``parallel_tool_calls=False`` was bound: an answer of several calls is the model's."""
    words: bool = True
    """No structured output is bound (``create_agent``'s ``response_format``): as far as that
    goes, words may end the turn."""
    # The settings, the envelope and the shadow: shared by every copy bind_tools makes.
    _held: WrapperState = PrivateAttr()

    def __init__(
        self,
        wrapped: BaseChatModel,
        plugins: PluginSet | None = None,
        *,
        read: Reading = "last",
        shadow: bool = False,
        prices: PriceTable | None = None,
        rules: RuleBook | str | Path | None = None,
        context: Mapping[str, object] | None = None,
        ask: bool = True,
        tracing: Tracing | None = None,
        clock: Clock | None = None,
        **options: Any,
    ) -> None:
        # BaseChatModel's own signature names none of this class's fields.
        fields: dict[str, Any] = {"wrapped": wrapped}
        super().__init__(**fields, **options)
        self._hold(
            "langchain",
            plugins,
            read=read,
            shadow=shadow,
            context=context,
            rules=rules,
            ask=ask,
            prices=prices,
            tracing=tracing,
            clock=clock,
        )

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
        return self.model_copy(
            update={
                "tool_specs": specs,
                "bound": bound,
                "choice": binding_choice(tool_choice, specs),
                "at_most_one": kwargs.get("parallel_tool_calls") is False,
                "words": not _OUTPUT_OPTIONS & kwargs.keys(),
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
            token = _DECIDED.set((tuple(messages), answer))
            try:
                return super().invoke(input, config, stop=stop, **kwargs)
            finally:
                _DECIDED.reset(token)
        started = self._started()
        message = self._target.invoke(input, config, stop=stop, **kwargs)
        self._record(messages, message, started)
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
            token = _DECIDED.set((tuple(messages), answer))
            try:
                return await super().ainvoke(input, config, stop=stop, **kwargs)
            finally:
                _DECIDED.reset(token)
        started = self._started()
        message = await self._target.ainvoke(input, config, stop=stop, **kwargs)
        self._record(messages, message, started)
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
        answer = self._answer(messages)
        if answer is not None:
            own = super().stream(input, config, stop=stop, **kwargs)
            # LangChain's run decides in _stream, at the first chunk asked for: this answer.
            token = _DECIDED.set((tuple(messages), answer))
            try:
                first = next(own, None)
            finally:
                _DECIDED.reset(token)
            if first is not None:
                yield first
                yield from own
            return
        started = self._started()
        chunks: list[AIMessageChunk] = []
        for chunk in self._target.stream(input, config, stop=stop, **kwargs):
            chunks.append(cast("AIMessageChunk", chunk))
            yield cast("AIMessageChunk", chunk)
        self._record_chunks(messages, chunks, started)

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
        answer = self._answer(messages)
        if answer is not None:
            own = super().astream(input, config, stop=stop, **kwargs)
            token = _DECIDED.set((tuple(messages), answer))
            try:
                first = await anext(own, None)
            finally:
                _DECIDED.reset(token)
            if first is not None:
                yield first
                async for chunk in own:
                    yield chunk
            return
        started = self._started()
        chunks: list[AIMessageChunk] = []
        async for chunk in self._target.astream(input, config, stop=stop, **kwargs):
            chunks.append(cast("AIMessageChunk", chunk))
            yield cast("AIMessageChunk", chunk)
        self._record_chunks(messages, chunks, started)

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
        started = self._started()
        message = self._target.invoke(messages, config, stop=stop, **kwargs)
        self._record(messages, message, started)
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
        started = self._started()
        message = await self._target.ainvoke(messages, config, stop=stop, **kwargs)
        self._record(messages, message, started)
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
        started = self._started()
        chunks: list[AIMessageChunk] = []
        for piece in self._target.stream(messages, config, stop=stop, **kwargs):
            chunks.append(cast("AIMessageChunk", piece))
            yield ChatGenerationChunk(message=chunks[-1])
        self._record_chunks(messages, chunks, started)

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
        started = self._started()
        chunks: list[AIMessageChunk] = []
        async for piece in self._target.astream(messages, config, stop=stop, **kwargs):
            chunks.append(cast("AIMessageChunk", piece))
            yield ChatGenerationChunk(message=chunks[-1])
        self._record_chunks(messages, chunks, started)

    # The call as the envelope asks it, and shadow mode's record.

    def _answer(self, messages: Sequence[BaseMessage]) -> LocalAnswer | None:
        decided = _DECIDED.get()
        if decided is not None and _same(decided[0], messages):
            return decided[1]
        if self.shadow:
            return None
        asked = asked_of(
            messages,
            self.tool_specs,
            self.choice,
            at_most_one=self.at_most_one,
            words=self.words,
        )
        return self._answered(asked)

    def _record(self, messages: Sequence[BaseMessage], message: BaseMessage, started: int) -> None:
        if not self.shadow or not self.tool_specs:
            return
        model = getattr(self.wrapped, "model_name", None) or getattr(self.wrapped, "model", None)
        self._shadowed(
            chat_messages(messages),
            self.tool_specs,
            model_answer(message, model),
            started,
            tool_choice=None if self.choice is None else self.choice[0],
        )

    def _record_chunks(
        self, messages: Sequence[BaseMessage], chunks: list[AIMessageChunk], started: int
    ) -> None:
        if not self.shadow or not chunks:
            return
        whole = chunks[0]
        for chunk in chunks[1:]:
            whole = whole + chunk
        self._record(messages, whole, started)


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
