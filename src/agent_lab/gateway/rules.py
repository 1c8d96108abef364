"""Which requests plain code may answer, and with which calls: the rules, then ``decide``.

The decision itself is ``agents.decide.decide``, the function the agents and
log replay call; this module only says when to ask it, from the request
alone (nothing is kept between requests), and turns its ``Decision`` into
calls. The body has been read and its types checked (``gateway.body``). A
request is forwarded untouched unless every rule holds:

* every field of the body is one this module understands (``UNDERSTOOD``);
  a ``response_format``, ``logprobs``, ``logit_bias``, audio, ``n`` other
  than 1, legacy ``functions`` or anything newer are forwarded;
* the request is within ``logs.bounds`` (tools, messages, schema values);
* the conversation is well formed, as the API requires: every tool call of
  an assistant message is answered by a tool message before the next other
  message, and every tool message answers one;
* the last message is the user's, and holds text only (an image is forwarded);
* tools are offered, each a function tool with a name and an object schema;
* ``tool_choice`` allows a call: absent, ``auto``, ``required``, or one named
  function (then the decision must call it); ``none`` is forwarded;
* plain code decided it all (``Decision.local``);
* with ``parallel_tool_calls: false``, at most one call;
* no setting would change the answer: no ``stop`` string occurs in it, and
  ``max_tokens`` (or ``max_completion_tokens``) is at least its length in
  UTF-8 bytes plus 16 a call, a bound on its tokens in any byte-level
  tokenizer.

A follow-up (``follow_up``, then ``reply_verdict``) is the turn after the
gateway's own calls: the request ends with the results of every call of its
last assistant message, each call one the gateway made (its id says so,
``is_local_call``), ``tool_choice`` absent or ``auto`` (a forced call is no
words), the same envelope rules; it is answered with the words each called
event declares for its result (``EventDefinition.reply``), or forwarded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_lab.agents.decide import decide
from agent_lab.agents.learned_rules import applied
from agent_lab.errors import AgentLabError
from agent_lab.integrations.seam import reply_locally
from agent_lab.logs.bounds import MAX_MESSAGES, MAX_TOOLS, schema_values_over, user_text_over
from agent_lab.logs.chat_completions import checked_messages, checked_tools, offered_names
from agent_lab.logs.record import LogError, SkipReason

if TYPE_CHECKING:
    from agent_lab.agents.outcome import Decision
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.gateway.wire import LocalCall
    from agent_lab.resolvers.learned import RuleBook
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = [
    "UNDERSTOOD",
    "FollowUp",
    "Gate",
    "Limits",
    "Verdict",
    "follow_up",
    "gate",
    "over_bounds",
    "reply_verdict",
    "verdict",
    "well_formed",
]

UNDERSTOOD = frozenset(
    {
        "model",
        "messages",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "stream",
        "stream_options",
        "n",
        # Sampling and bookkeeping: they shape how a model writes, not which call is right.
        "temperature",
        "top_p",
        "seed",
        "stop",
        "presence_penalty",
        "frequency_penalty",
        "max_tokens",
        "max_completion_tokens",
        "user",
        "metadata",
        "store",
        "service_tier",
        "safety_identifier",
        "prompt_cache_key",
    }
)
"""The request fields a local answer can honour; any other field sends the request upstream."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Gate:
    """A request that passed the rules the request alone decides."""

    messages: tuple[JSONObject, ...]
    tools: tuple[JSONObject, ...]
    forced: str | None
    """The function ``tool_choice`` names, if it names one."""
    single: bool
    """``parallel_tool_calls: false``: at most one call."""
    model: str
    stream: bool
    include_usage: bool
    limits: Limits


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """The request's settings that bound what a model may write: a local answer must fit them."""

    max_tokens: int | None = None
    stop: tuple[str, ...] = ()

    @classmethod
    def of(cls, body: JSONObject) -> Limits:
        """The smaller of ``max_tokens`` and ``max_completion_tokens``, and the ``stop`` strings."""
        given = [
            value
            for key in ("max_tokens", "max_completion_tokens")
            if isinstance(value := body.get(key), int)
        ]
        stop = body.get("stop")
        words = [stop] if isinstance(stop, str) else stop if isinstance(stop, list) else []
        return cls(
            max_tokens=min(given) if given else None,
            stop=tuple(word for word in words if isinstance(word, str) and word),
        )

    def refusal(self, calls: tuple[LocalCall, ...], text: str | None) -> str | None:
        """``stop`` or ``max_tokens`` when the answer would not be written whole, else ``None``."""
        said = [piece for call in calls for piece in call]
        if text is not None:
            said.append(text)
        if any(word in piece for word in self.stop for piece in said):
            return "stop"
        if self.max_tokens is not None:
            needed = sum(len(piece.encode()) for piece in said) + 16 * len(calls)
            if self.max_tokens < needed:
                return "max_tokens"
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """What the gateway may answer locally: the calls, or why the request goes upstream."""

    calls: tuple[LocalCall, ...] = ()
    """Empty (and no ``text``): forward."""
    text: str | None = None
    """The words that end a follow-up turn (``reply_verdict``)."""
    tools: tuple[str, ...] = ()
    """The tools the answer speaks for: the calls', or those whose results ``text`` says."""
    reason: str
    """``covered``, or the rule that forwards it (a fixed word, never the client's text)."""
    decision: Decision | None = None


def _tool_choice(choice: JSONValue | None, offered: frozenset[str]) -> str | None:
    """The function named, ``""`` for a choice that allows any call, ``None`` for any other."""
    if choice is None or choice in ("auto", "required"):
        return ""
    if isinstance(choice, dict) and choice.get("type") == "function":
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        if isinstance(name, str) and name in offered:
            return name
    return None


def _text_only(message: JSONObject) -> bool:
    content = message.get("content")
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(
        isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
        for part in content
    )


def well_formed(messages: tuple[JSONObject, ...]) -> bool:
    """Whether every tool call is answered before the next other message, and every result a call.

    That is the conversation the API takes. Legacy ``function`` results are not
    judged here, so they are never answered locally.
    """
    waiting: set[str] = set()
    for message in messages:
        role = message.get("role")
        if role == "tool":
            answered = message.get("tool_call_id")
            if not isinstance(answered, str) or answered not in waiting:
                return False
            waiting.discard(answered)
            continue
        if waiting or role == "function":
            return False
        calls = message.get("tool_calls") if role == "assistant" else None
        for call in calls if isinstance(calls, list) else []:
            ident = call.get("id") if isinstance(call, dict) else None
            if not isinstance(ident, str) or ident in waiting:
                return False
            waiting.add(ident)
    return not waiting


def over_bounds(body: JSONObject) -> bool:
    """Whether the request is past ``logs.bounds``: tools, messages, schema values, user text."""
    messages, tools = body.get("messages"), body.get("tools")
    if isinstance(messages, list) and (
        len(messages) > MAX_MESSAGES or any(user_text_over(message) for message in messages)
    ):
        return True
    if not isinstance(tools, list):
        return False
    if len(tools) > MAX_TOOLS:
        return True
    schemas: list[JSONValue] = []
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict):
            schemas.append(function.get("parameters"))
    return schema_values_over(schemas)


def _envelope(body: JSONObject) -> str | None:
    if "response_format" in body:
        return "response_format"
    if body.get("tool_choice") == "none":
        return "tool_choice_none"
    if any(key not in UNDERSTOOD for key in body):
        return "not_understood"
    if body.get("n") not in (None, 1) or not isinstance(body.get("stream", False), bool):
        return "not_understood"
    if not isinstance(body.get("parallel_tool_calls", True), bool):
        return "not_understood"
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        return "not_understood"
    return None


def gate(body: JSONValue) -> Gate | str:
    """The request's ``Gate``, or the fixed word saying which rule forwards it."""
    if not isinstance(body, dict):
        return "not_understood"
    refused = _envelope(body)
    if refused is not None:
        return refused
    try:
        messages = checked_messages(body.get("messages"), "request")
        tools = checked_tools(body.get("tools"), "request")
    except LogError as err:
        return "over_bounds" if err.skipped.reason is SkipReason.TOO_LARGE else "not_understood"
    if not messages or messages[-1].get("role") != "user":
        return "not_a_user_turn"
    if not well_formed(messages):
        return "ill_formed"
    if not _text_only(messages[-1]):
        return "not_understood"
    if not tools:
        return "no_tools"
    forced = _tool_choice(body.get("tool_choice"), offered_names(tools))
    if forced is None:
        return "not_understood"
    model = body.get("model")
    options = body.get("stream_options")
    return Gate(
        messages=messages,
        tools=tools,
        forced=forced or None,
        single=body.get("parallel_tool_calls") is False,
        model=model if isinstance(model, str) else "",
        stream=body.get("stream") is True,
        include_usage=isinstance(options, dict) and options.get("include_usage") is True,
        limits=Limits.of(body),
    )


def _calls(decision: Decision) -> tuple[LocalCall, ...] | None:
    if decision.calls:
        found: list[LocalCall] = []
        for call in decision.calls:
            if call.arguments is None:
                return None
            found.append((call.event, json.dumps(call.arguments, ensure_ascii=False)))
        return tuple(found)
    if decision.event is None or decision.arguments is None:
        return None
    return ((decision.event, json.dumps(decision.arguments, ensure_ascii=False)),)


def verdict(
    checked: Gate,
    *,
    plugins: PluginSet | None,
    read: Reading,
    now: str | None,
    rules: RuleBook | None = None,
) -> Verdict:
    """Decide the request with plain code (``decide``) and apply the rules about its calls.

    ``rules`` (``agent-lab learn``'s) apply to the offered tools and to ``plugins``
    (``learned_rules.applied``).
    """
    context = {"now": now} if now else None
    tools, ruled = applied(checked.tools, plugins, rules)
    try:
        decision = decide(checked.messages, tools, plugins=ruled, context=context, read=read)
    except AgentLabError:
        # A schema the registry refuses: the upstream's to judge.
        return Verdict(reason="bad_tools")
    if not decision.local:
        return Verdict(reason="not_covered", decision=decision)
    calls = _calls(decision)
    if not calls:
        return Verdict(reason="not_covered", decision=decision)
    if checked.forced is not None and any(name != checked.forced for name, _ in calls):
        return Verdict(reason="not_the_forced_tool", decision=decision)
    if checked.single and len(calls) > 1:
        return Verdict(reason="parallel_tool_calls", decision=decision)
    cut = checked.limits.refusal(calls, None)
    if cut is not None:
        return Verdict(reason=cut, decision=decision)
    names = tuple(name for name, _ in calls)
    return Verdict(calls=calls, tools=names, reason="covered", decision=decision)


@dataclass(frozen=True, slots=True, kw_only=True)
class FollowUp:
    """A request that ends with tool results, and passed the rules the request alone decides."""

    messages: tuple[JSONObject, ...]
    tools: tuple[JSONObject, ...]
    model: str
    stream: bool
    include_usage: bool
    limits: Limits


def follow_up(body: JSONValue) -> FollowUp | None:
    """The request as a ``FollowUp``, or ``None`` when it is none the gateway may answer."""
    if not isinstance(body, dict) or _envelope(body) is not None:
        return None
    if body.get("tool_choice") not in (None, "auto"):
        return None
    try:
        messages = checked_messages(body.get("messages"), "request")
        tools = checked_tools(body.get("tools"), "request")
    except LogError:
        return None
    if not tools or not messages or messages[-1].get("role") != "tool":
        return None
    if not well_formed(messages):
        return None
    model = body.get("model")
    options = body.get("stream_options")
    return FollowUp(
        messages=messages,
        tools=tools,
        model=model if isinstance(model, str) else "",
        stream=body.get("stream") is True,
        include_usage=isinstance(options, dict) and options.get("include_usage") is True,
        limits=Limits.of(body),
    )


def reply_verdict(checked: FollowUp, *, plugins: PluginSet | None) -> Verdict:
    """The declared replies' words for the results of the gateway's own calls, or forward."""
    answer = reply_locally(checked.messages, checked.tools, plugins=plugins)
    if answer is None or answer.text is None:
        return Verdict(reason="no_reply")
    cut = checked.limits.refusal((), answer.text)
    if cut is not None:
        return Verdict(reason=cut)
    decision = answer.decision
    said = [call.event for call in decision.calls] or [decision.event or ""]
    return Verdict(text=answer.text, tools=tuple(said), reason="local_reply", decision=decision)
