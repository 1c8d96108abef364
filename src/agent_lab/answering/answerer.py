"""``Answerer``: the one envelope around the decision, for the gateway, wrappers and replay.

A caller builds one ``Answerer`` with its plugins, learned rules, what the
resolvers read, their context and whether words may answer, as an
``httpx.Client`` holds its settings, and asks it turn after turn
(``answer``). It keeps one ``Decider`` per set of tools offered, on itself:
no state lives in a module.

``answer`` is every rule about when plain code may answer, in one place:

* ``tool_choice: "none"`` is the model's; so is a conversation that is not
  well formed (a call unanswered, a result answering no call) or that ends
  with neither the user's words nor tool results;
* after tool results: the events' declared replies, when every call was a
  local one and words may end the turn (``replies.said_replies``);
* the user's turn (text only, tools offered): the decision (``decide``),
  with the learned rules applied. A complete decision is its calls, made
  once (``answers.local_calls``), unless they are not the tool the request
  forces or are several where ``parallel_tool_calls`` is false. With
  ``ask`` and words allowed, a decision made with no model that misses a
  value only the user can supply is a question naming it, and one whose
  values break the tool's schema is said back as a refusal (``words``);
* anything else is a ``Forward``, naming the rule, with the decision.
"""

from __future__ import annotations

import dataclasses
import json
from collections import OrderedDict
from collections.abc import Mapping
from threading import Lock
from typing import TYPE_CHECKING, cast
from weakref import WeakKeyDictionary

from agent_lab.agents.decider import Decider
from agent_lab.agents.decision import Routing
from agent_lab.agents.learned_rules import with_rules
from agent_lab.agents.tool_specs import (
    action_verb,
    plugins_from_tools,
    tool_acts,
    tool_name,
    tool_parameters,
)
from agent_lab.agents.turn import Turn
from agent_lab.answering.answers import Forward, LocalAnswer, local_calls
from agent_lab.answering.asked import Asked, well_formed
from agent_lab.answering.conversation import Conversation
from agent_lab.answering.kept_readings import Reader
from agent_lab.answering.known_values import changes
from agent_lab.answering.reading import read_conversation
from agent_lab.answering.replies import said_replies
from agent_lab.answering.utterances import asks_to_act, withheld
from agent_lab.answering.words import question, refusal, schema_of
from agent_lab.errors import AgentLabError
from agent_lab.kernel.models import Reason, Status
from agent_lab.logs.bounds import MAX_MESSAGES, MAX_TOOLS, schema_values_over, user_text_over
from agent_lab.resolvers.learned import RuleBook
from agent_lab.resolvers.places import city_name
from agent_lab.resolvers.schema import SchemaResolver
from agent_lab.strict_json import canonical_dumps

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from agent_lab.agents.decision import Decision
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.strict_json import JSONValue

__all__ = ["Answerer"]

EARLIER_WORDS_UNREAD = "earlier_words_unread"
"""Why a call complete from the last message is not made: the conversation's earlier words of
the same task may hold a value plain code could not read (``read_conversation``)."""
NO_CHANGE = "no_change"
"""Why a call to the last call's tool, complete from the last message, is not made: it
changes none of that call's values (``known_values.changes``)."""
NOT_ASKED_TO_ACT = "not_asked_to_act"
"""Why a call complete from the last message is not made: the message opens by holding it
back ("Don't refill..."), or, for a tool that acts, asks about the act, sets a condition on
it or holds a no ("...actually, hold off"): ``utterances.withheld``, ``asks_to_act``."""

VALUES_LEFT = "values_left"
"""Why a call to the last call's tool, complete from the last message, is not made: it
leaves a value that call had and the message does not restate ("How about Vallejo?" after
the forecast for Sacramento on the 12th: the same day, or today?)."""
ANOTHER_TOOLS_VALUES = "another_tools_values"
"""Why a call complete from the last message is not made: the words give another offered
tool a value this call leaves ("room 412, could we get some extra towels" routed to a menu
look-up by "get"): the router's choice is in doubt."""

_PLAIN = (Routing.ROUTER, Routing.LEXICAL, Routing.GIVEN)
"""Routes plain code took: the last message's own tool, which the conversation's reading keeps."""

_KEPT = 128
"""Deciders kept per answerer, the most recently used: each holds a registry and compiled
validators, about 2 ms to build for eight tools against 0.06 ms to decide with."""


class Answerer:
    """Plain code's answer to one turn, or the rule that leaves it to the model.

    Args:
        plugins: Your own resolvers, routes and replies for the tools they name;
            the other tools offered get the schema-driven resolver.
        rules: Learned rules (``agent-lab learn``'s, ``load_rules``): written into the
            offered tools' schemas (``RuleBook.annotate``) and applied to ``plugins``
            (``with_rules``), once here.
        read: What of the conversation the resolvers read: its last user message,
            or every user message so far (``"user_turns"``).
        context: Facts for the resolvers, such as ``{"now": "2026-12-01T09:00"}``;
            a ``now`` given to ``answer`` or ``decide`` takes its place.
        ask: Answer in words what plain code knows with no model: a question for a
            missing value only the user can supply, a refusal of a value the tool's
            schema forbids. ``False``: those turns go to the model.

    Raises:
        DefinitionError: ``plugins`` with ``rules`` applied are refused by the registry.
    """

    def __init__(
        self,
        plugins: PluginSet | None = None,
        *,
        rules: RuleBook | None = None,
        read: Reading = "last",
        context: Mapping[str, object] | None = None,
        ask: bool = True,
    ) -> None:
        self.plugins = plugins
        self.rules = rules
        # What the words say, read with the rules that read words: a constant is no value
        # the words give (nor a route), and the reader asks which tool the words give values.
        self._words_rules = (
            None
            if rules is None
            else RuleBook(
                rules=tuple(r for r in rules.rules if r.kind not in ("constant", "route")),
                tools_seen=rules.tools_seen,
            )
        )
        self.read: Reading = read
        self.context: Mapping[str, object] = dict(context) if context else {}
        self.ask = ask
        self._ruled = plugins if plugins is None or rules is None else with_rules(plugins, rules)
        self._deciders: OrderedDict[str, Decider | None] = OrderedDict()
        # Each decider's tools' readers, made on first use (a reader compiles validators).
        self._readers: WeakKeyDictionary[Decider, dict[str, Reader]] = WeakKeyDictionary()
        self._lock = Lock()

    def decider(self, tools: Sequence[Mapping[str, object]]) -> Decider | None:
        """The ``Decider`` for these tools (the rules written in), prepared once and kept.

        ``None`` when their schemas hold more values than ``logs.bounds`` decides on
        (counted once per set of tools): the model's to read.

        Raises:
            ToolSpecError: A tool spec that is not a function tool with a name.
            DefinitionError: A schema the registry refuses.
        """
        key = _tools_key(tools)
        with self._lock:
            if key in self._deciders:
                self._deciders.move_to_end(key)
                return self._deciders[key]
        made: Decider | None = None
        if not schema_values_over([_parameters(tool) for tool in tools]):
            offered = tools if self.rules is None else self.rules.annotate(tools)
            made = Decider(plugins_from_tools(offered, plugins=self._ruled))
        with self._lock:
            self._deciders[key] = made
            while len(self._deciders) > _KEPT:
                self._deciders.popitem(last=False)
        return made

    def decide(
        self,
        messages: Sequence[Mapping[str, object]],
        tools: Sequence[Mapping[str, object]],
        *,
        now: str | None = None,
    ) -> Decision | None:
        """Plain code's decision for the conversation's last user turn.

        ``None`` for no user turn, or tools whose schemas are past the bounds.

        Raises:
            AgentLabError: Tools the registry refuses (``ToolSpecError``,
                ``DefinitionError``).
        """
        decider = self.decider(tools)
        return None if decider is None else self._decided(decider, messages, tools, now)

    def _decided(
        self,
        decider: Decider,
        messages: Sequence[Mapping[str, object]],
        tools: Sequence[Mapping[str, object]],
        now: str | None,
    ) -> Decision | None:
        offered = tuple(name for tool in tools if (name := tool_name(tool)) is not None)
        context = {**self.context, "now": now} if now else self.context
        turn = Turn.from_messages(messages, candidates=offered, context=context, read=self.read)
        if turn is None:
            return None
        decision = decider.decide(turn)
        if decision.llm_calls or decision.status is Status.DEFINITION_ERROR:
            return decision
        event = decision.event
        if (
            decision.local
            and event is not None
            and (
                withheld(turn.text)
                or (
                    tool_acts(tools, event)
                    and not asks_to_act(turn.text, action_verb(event), acting=True)
                )
            )
        ):
            # "How much would it cost to rent an ebike at Central Park for 3 hours?" holds
            # every value of the rental, and asks for none.
            return dataclasses.replace(
                decision, status=Status.MISSING_INFORMATION, reason=NOT_ASKED_TO_ACT
            )
        if decision.local and decision.routed_by is Routing.LEXICAL and event is not None:
            reader_of = self._reader_of(decider, tools)
            if _leaves_values(reader_of, offered, event, turn, decision.arguments or {}):
                return dataclasses.replace(
                    decision, status=Status.MISSING_INFORMATION, reason=ANOTHER_TOOLS_VALUES
                )
        last = Conversation.of(messages).last_call if decision.local else None
        if last is not None and last.name == event and not changes(decision.arguments or {}, last):
            # "What about the other movies?", "Who's in this movie?" after a film search: the
            # same search again, or less of it, is a question for words about what it found.
            return dataclasses.replace(
                decision, status=Status.MISSING_INFORMATION, reason=NO_CHANGE
            )
        # "How about Vallejo?" after the forecast for the 12th: the whole conversation says
        # whether the day holds.
        left = (
            last is not None
            and last.name == event
            and bool(set(last.arguments) - set(decision.arguments or {}))
        )
        earlier = _earlier_words(messages)
        if decision.local and not earlier and not left:
            return decision
        # The last message alone did not decide it, or the user said more of the task
        # before it: the whole conversation decides.
        routed = decision.event if decision.routed_by in _PLAIN else None
        read = read_conversation(
            decider, messages, tools, turn, routed, reader_of=self._reader_of(decider, tools)
        )
        if read is not None or not decision.local:
            return read if read is not None else decision
        # Complete from its last message, but earlier words of the task may hold a value
        # plain code could not place, or the last call one: the model's to weigh.
        return dataclasses.replace(
            decision,
            status=Status.MISSING_INFORMATION,
            reason=VALUES_LEFT if left else EARLIER_WORDS_UNREAD,
        )

    def _reader_of(
        self, decider: Decider, tools: Sequence[Mapping[str, object]]
    ) -> Callable[[str], Reader]:
        def reader(event: str) -> Reader:
            with self._lock:
                kept = self._readers.setdefault(decider, {})
                found = kept.get(event)
            if found is None:
                # With the rules written in: what earlier turns and a summary say is read
                # as the last message is, learned spellings and aliases included.
                words = self._words_rules
                offered = tools if words is None else words.annotate(tools)
                found = Reader(SchemaResolver(tool_parameters(offered, event)), tool=event)
                with self._lock:
                    kept[event] = found
            return found

        return reader

    def answer(self, asked: Asked, *, now: str | None = None) -> LocalAnswer | Forward:
        """The turn plain code answers (calls or words), or the rule that forwards it.

        ``now`` is the reference date relative dates are read against (the request's
        time, a log line's timestamp).
        """
        if asked.tool_choice == "none":
            return Forward(reason="tool_choice_none")
        messages = asked.messages
        if _over_bounds(asked):
            return Forward(reason="over_bounds")
        role = messages[-1].get("role") if messages else None
        if role not in ("user", "tool"):
            return Forward(reason="not_a_user_turn")
        if not well_formed(messages):
            return Forward(reason="ill_formed")
        if not asked.tools:
            return Forward(reason="no_tools")
        if role == "tool":
            if not asked.words_allowed:
                return Forward(reason="no_reply")
            said = said_replies(messages, asked.tools, plugins=self.plugins)
            return said if said is not None else Forward(reason="no_reply")
        if not _text_only(messages[-1]):
            return Forward(reason="not_understood")
        try:
            decider = self.decider(asked.tools)
            if decider is None:
                return Forward(reason="over_bounds")
            decision = self._decided(decider, messages, asked.tools, now)
        except AgentLabError as err:
            return Forward(reason="bad_tools", detail=str(err))
        if decision is None:
            return Forward(reason="not_a_user_turn")
        if not decision.local:
            said = self._words(decision, asked) if self.ask and asked.words_allowed else None
            return said if said is not None else Forward(reason="not_covered", decision=decision)
        calls = local_calls(decision)
        if not calls:
            return Forward(reason="not_covered", decision=decision)
        if asked.forced is not None and any(call.name != asked.forced for call in calls):
            return Forward(reason="not_the_forced_tool", decision=decision)
        if asked.at_most_one and len(calls) > 1:
            return Forward(reason="parallel_tool_calls", decision=decision)
        return LocalAnswer(calls=calls, text=None, decision=decision, reason="covered")

    def _words(self, decision: Decision, asked: Asked) -> LocalAnswer | None:
        """A question or a refusal plain code can say with no model, or ``None``."""
        if decision.llm_calls != 0:
            return None
        if decision.reason == Reason.USER_ONLY_MISSING:
            missing = decision.result.missing if decision.result is not None else ()
            if not missing or decision.event is None:
                return None
            schema = schema_of(decision.event, asked.tools, self._ruled)
            text = question(missing, schema)
            return LocalAnswer(calls=(), text=text, decision=decision, reason="asked")
        if decision.status is Status.INVALID_ARGUMENTS and decision.result is not None:
            text = refusal(decision.result.errors)
            if text is not None:
                return LocalAnswer(calls=(), text=text, decision=decision, reason="refused")
        return None


def _leaves_values(
    reader_of: Callable[[str], Reader],
    offered: Sequence[str],
    event: str,
    turn: Turn,
    arguments: Mapping[str, JSONValue],
) -> bool:
    """Whether another offered tool reads a value in the words that the call leaves.

    A city another tool reads as said ("Philly") is the one the call took by its name.
    """
    taken = list(arguments.values())
    return any(
        value not in taken and not (isinstance(value, str) and city_name(value) in taken)
        for name in offered
        if name != event
        for value in reader_of(name).read(name, turn.text, turn.context).values()
    )


def _earlier_words(messages: Sequence[Mapping[str, object]]) -> bool:
    """Whether a user message came before the last one since the last tool call."""
    for message in reversed(messages[:-1]):
        role = message.get("role")
        if role == "user":
            return True
        if role == "tool" or (role == "assistant" and message.get("tool_calls")):
            return False
    return False


def _over_bounds(asked: Asked) -> bool:
    """Past ``logs.bounds`` in messages, tools or one user message's text.

    The schemas' values are counted once per set of tools, when its decider is made.
    """
    if len(asked.messages) > MAX_MESSAGES or len(asked.tools) > MAX_TOOLS:
        return True
    return any(user_text_over(cast("JSONValue", message)) for message in asked.messages)


def _parameters(tool: Mapping[str, object]) -> JSONValue:
    function = tool.get("function")
    if isinstance(function, Mapping):
        return cast("JSONValue", cast("Mapping[str, object]", function).get("parameters"))
    return None


def _text_only(message: Mapping[str, object]) -> bool:
    """Whether a message holds only text (an image or a file is the model's to read)."""
    content = message.get("content")
    if isinstance(content, str):
        return True
    if not isinstance(content, list):
        return False
    for part in cast("list[object]", content):
        if not isinstance(part, Mapping):
            return False
        fields = cast("Mapping[str, object]", part)
        if fields.get("type") != "text" or not isinstance(fields.get("text"), str):
            return False
    return True


def _plain(value: object) -> object:
    if isinstance(value, Mapping):
        return dict(cast("Mapping[str, object]", value))
    raise TypeError(f"{type(value).__name__} is not JSON data")


def _tools_key(tools: Sequence[Mapping[str, object]]) -> str:
    """The tools' text, for finding their decider again: equal tools, equal text.

    ``json.dumps`` with sorted keys, not the canonical form: a log offers the same
    tools with every request, freshly parsed, and the canonical writer (pure Python)
    took 14 ms for the demo's eight tools against 0.1 ms (cProfile of `agent-lab
    shadow`). Two spellings of one number (1 and 1.0) only cost a second decider.
    """
    try:
        return json.dumps(
            list(tools), sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=_plain
        )
    except (TypeError, ValueError, RecursionError):
        # Not plain JSON data: the canonical writer says what is wrong with it.
        return canonical_dumps(list(tools))
