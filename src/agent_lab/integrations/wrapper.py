"""What the three framework wrappers share: their settings, the envelope, the shadow, the span.

``DeterministicFirstWrapper`` is the base the wrappers inherit first
(``DeterministicFirstModel`` for Pydantic AI and for the Agents SDK,
``DeterministicFirstChatModel`` for LangChain). It holds, once:

* the settings: ``plugins``, ``read``, ``shadow``, ``context``, ``rules`` (a
  ``RuleBook``, or the path of its file read once here), ``ask``, ``prices``,
  ``tracing`` and ``clock``;
* one ``Answerer`` built with them, the envelope around the decision that
  says what plain code answers for a turn (``agent_lab.answering``);
* the one call into it (``_answered``): the framework's turn as an ``Asked``,
  or ``None`` when the turn is the model's whatever plain code decides; back
  comes the ``LocalAnswer``, or ``None`` (always ``None`` in shadow mode). A
  local answer is also an OpenTelemetry ``execute_tool`` span carrying the
  decision's ledger, when tracing is live (``tracing``, else the global
  tracer provider once one is set);
* the shadow recorder (``_shadow.ShadowLog``): each exchange with the wrapped
  model, timed with ``clock``, replayed as ``agent-lab shadow`` replays a
  ``pairs`` log line, into ``figures``.

A framework's own module keeps only its conversion: its messages, tools and
settings into an ``Asked``, and a ``LocalAnswer`` into its response.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.answering import Answerer, LocalAnswer
from agent_lab.clock import SystemClock
from agent_lab.integrations._shadow import ShadowLog
from agent_lab.log_replay.figures import ShadowFigures
from agent_lab.resolvers.learned import load_rules

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.answering import Asked, ToolChoiceMode
    from agent_lab.clock import Clock
    from agent_lab.integrations._shadow import ModelAnswer
    from agent_lab.otel.tracing import Tracing
    from agent_lab.providers.pricing import PriceTable
    from agent_lab.resolvers.learned import RuleBook

__all__ = ["DeterministicFirstWrapper", "WrapperState"]


@dataclass(frozen=True, slots=True, kw_only=True)
class WrapperState:
    """Everything a wrapper holds, in one object (a pydantic model keeps it in a private attribute).

    Shared by every copy of a wrapper (LangChain's ``bind_tools`` returns one), so the
    copies count into the same figures.
    """

    answerer: Answerer
    """The settings ``plugins``, ``rules``, ``read``, ``context`` and ``ask`` live on it."""
    shadow: bool
    log: ShadowLog | None
    """The shadow's recorder; ``None`` unless ``shadow``."""
    figures: ShadowFigures
    """The shadow's figures (``log.figures``), or empty ones unless ``shadow``."""
    tracing: Tracing | None
    clock: Clock

    def __deepcopy__(self, memo: dict[int, object]) -> WrapperState:
        """Itself: a deep copy of a wrapper (``model_copy(deep=True)``) is the same wrapper.

        One answerer (its deciders, its lock) and one tally, never a second, empty one.
        """
        return self

    @classmethod
    def of(
        cls,
        source: str,
        plugins: PluginSet | None,
        *,
        read: Reading,
        shadow: bool,
        context: Mapping[str, object] | None,
        rules: RuleBook | str | Path | None,
        ask: bool,
        prices: PriceTable | None,
        tracing: Tracing | None,
        clock: Clock | None,
    ) -> WrapperState:
        """The state of a wrapper made with these settings; ``source`` names its shadow's lines.

        Raises:
            MissingInputError: ``rules`` names no file.
            InputFileError: ``rules`` names a file that is not a rules file.
            DefinitionError: ``plugins`` with ``rules`` applied are refused by the registry.
        """
        book = load_rules(rules) if isinstance(rules, str | Path) else rules
        answerer = Answerer(plugins, rules=book, read=read, context=context, ask=ask)
        log = ShadowLog(source, answerer=answerer, prices=prices) if shadow else None
        return cls(
            answerer=answerer,
            shadow=shadow,
            log=log,
            figures=log.figures if log is not None else ShadowFigures(),
            tracing=tracing if tracing is not None else _global_tracing(),
            clock=clock if clock is not None else SystemClock(),
        )


class DeterministicFirstWrapper:
    """The base of every framework wrapper: its settings, its envelope, its shadow and its span.

    A plain mixin, inherited first (``class DeterministicFirstModel(DeterministicFirstWrapper,
    WrapperModel)``). It has no ``__init__``: the wrapper calls ``_hold`` once made.
    """

    _held: WrapperState

    def _hold(
        self,
        source: str,
        plugins: PluginSet | None,
        *,
        read: Reading = "last",
        shadow: bool = False,
        context: Mapping[str, object] | None = None,
        rules: RuleBook | str | Path | None = None,
        ask: bool = True,
        prices: PriceTable | None = None,
        tracing: Tracing | None = None,
        clock: Clock | None = None,
    ) -> None:
        """Take the settings, once (``WrapperState.of``)."""
        self._held = WrapperState.of(
            source,
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
    def figures(self) -> ShadowFigures:
        """In shadow mode, what plain code would have done, as ``agent-lab shadow`` counts it.

        Empty when ``shadow`` is off: every local answer then sent no request at all.
        """
        return self._held.figures

    @property
    def plugins(self) -> PluginSet | None:
        """Your own resolvers, routes and replies, as given."""
        return self._held.answerer.plugins

    @property
    def rules(self) -> RuleBook | None:
        """The learned rules applied, read from their file when a path was given."""
        return self._held.answerer.rules

    @property
    def read(self) -> Reading:
        """What of the conversation the resolvers read."""
        return self._held.answerer.read

    @property
    def context(self) -> Mapping[str, object]:
        """The facts the resolvers are given (empty when none were)."""
        return self._held.answerer.context

    @property
    def shadow(self) -> bool:
        """Whether every turn goes to the wrapped model, plain code only counted."""
        return self._held.shadow

    def _answered(self, asked: Asked | None) -> LocalAnswer | None:
        """Plain code's answer to the turn, or ``None``: the wrapped model's turn.

        ``asked`` is ``None`` when the framework's turn is the model's whatever plain
        code decides. Always ``None`` in shadow mode. A local answer is an
        ``execute_tool`` span with its decision's ledger, when tracing is live.
        """
        held = self._held
        if asked is None or held.shadow:
            return None
        answer = held.answerer.answer(asked)
        if not isinstance(answer, LocalAnswer):
            return None
        tracing = held.tracing
        if tracing is not None and tracing.live:
            with tracing.dispatch_span(answer.decision.event) as span:
                tracing.record(span, answer.decision)
        return answer

    def _started(self) -> int:
        """The clock's reading as the wrapped model is asked, for ``_shadowed``."""
        return self._held.clock.monotonic_ns()

    def _shadowed(
        self,
        messages: Sequence[Mapping[str, object]],
        tools: Sequence[Mapping[str, object]],
        answer: ModelAnswer,
        started: int,
        *,
        tool_choice: ToolChoiceMode | None = None,
    ) -> None:
        """Count one exchange with the wrapped model, asked at ``started`` (no-op unless shadow)."""
        held = self._held
        if held.log is None:
            return
        elapsed_ms = (held.clock.monotonic_ns() - started) / 1e6
        held.log.record(messages, tools, answer, latency_ms=elapsed_ms, tool_choice=tool_choice)


def _global_tracing() -> Tracing | None:
    """Spans to the global tracer provider, or ``None`` without the ``otel`` extra."""
    try:
        from agent_lab.otel.tracing import Tracing  # noqa: PLC0415 - the optional extra
    except ImportError:
        return None
    return Tracing()
