"""The envelope every caller asks: a local call, a question for the user, a local reply, or none."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_lab.agents.plugins import PluginSet
from agent_lab.answering import (
    LOCAL_CALL_PREFIX,
    REPLY_REASON,
    Answerer,
    Asked,
    LocalAnswer,
    question,
    refusal,
)
from agent_lab.errors import DefinitionError
from agent_lab.kernel.models import EventDefinition
from agent_lab.kernel.tools import USER_ONLY_NOTE, openai_tool
from agent_lab.strict_json import JSONValue
from tests.integrations.booking import ASKING, BOOK_SCHEMA, QUESTION, booking_plugins
from tests.integrations.weather import CITY, WEATHER_TEXT, big_apple

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"minutes": {"type": "integer"}},
    "required": ["minutes"],
}
TOOLS = [{"type": "function", "function": {"name": "set_timer", "parameters": SCHEMA}}]
LOCAL = LOCAL_CALL_PREFIX + "1"


def replied(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, plugins: PluginSet | None
) -> LocalAnswer | None:
    """The envelope's answer to a turn after calls, ``None`` when it forwards."""
    answer = Answerer(plugins).answer(Asked(messages=messages, tools=tools))
    return answer if isinstance(answer, LocalAnswer) else None


def answered(
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    *,
    plugins: PluginSet | None = None,
    ask: bool = False,
    rules: Any = None,
) -> LocalAnswer | None:
    """The envelope's answer to a user turn, ``None`` when it forwards."""
    answer = Answerer(plugins, rules=rules, ask=ask).answer(Asked(messages=messages, tools=tools))
    return answer if isinstance(answer, LocalAnswer) else None


def plugins(reply: Any) -> PluginSet:
    return PluginSet("t", (EventDefinition("set_timer", parameters=SCHEMA, reply=reply),))


def after(result: str, *, call_id: str = LOCAL, name: str = "set_timer") -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "set a timer for 10 minutes"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": '{"minutes":10}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": result},
    ]


def test_a_template_says_the_result_of_a_local_call() -> None:
    """The reply is the template over the tool's JSON result; the decision is local."""
    answer = replied(after('{"minutes": 10}'), TOOLS, plugins=plugins("{minutes} min"))
    assert answer is not None
    assert (answer.text, answer.calls) == ("10 min", ())
    decision = answer.decision
    assert (decision.local, decision.reason, decision.llm_calls) == (True, REPLY_REASON, 0)
    assert (decision.event, decision.arguments) == ("set_timer", {"minutes": 10})
    assert decision.ledger.reason == REPLY_REASON


def raises(result: JSONValue) -> str:
    raise KeyError(result)


def says_a_number(result: JSONValue) -> Any:
    return 42


def says_nothing(result: JSONValue) -> str:
    return "  "


def says_it(result: JSONValue) -> str:
    return f"said {result}"


CASES: list[tuple[list[dict[str, Any]], Any]] = [
    (after('{"minutes": 10}', call_id="call_model"), "{minutes} min"),
    (after('{"minutes": 10}'), "{seconds} s"),
    (after("done"), "{minutes} min"),
    (after("[1, 2]"), "{minutes} min"),
    (after('{"minutes": 10}'), "{minutes"),
    (after('{"minutes": 10}'), None),
    (after('{"minutes": 10}'), raises),
    (after('{"minutes": 10}'), says_a_number),
    (after('{"minutes": 10}'), says_nothing),
    (after('{"minutes": 10}', name="other"), "{minutes} min"),
    (after('{"minutes": 10}')[:2], "{minutes} min"),
    (after('{"minutes": 10}')[2:], "{minutes} min"),
    ([*after('{"minutes": 10}'), {"role": "user", "content": "thanks"}], "{minutes} min"),
]


@pytest.mark.parametrize(
    ("messages", "reply"),
    CASES,
    ids=[
        "the model's call",
        "a missing key",
        "a result that is text",
        "a result that is no object",
        "a broken template",
        "no reply declared",
        "a function that raises",
        "a function that says no string",
        "empty words",
        "a tool not offered",
        "no result yet",
        "no assistant call before",
        "the user spoke after",
    ],
)
def test_no_local_reply_when_the_event_cannot_say_it(
    messages: list[dict[str, Any]], reply: Any
) -> None:
    """Anything short of a local call, answered, whose event says its result: the model's turn."""
    assert replied(messages, TOOLS, plugins=plugins(reply)) is None


def test_a_function_gets_a_text_result_as_it_is() -> None:
    """A result that is not JSON reaches a reply function as its text."""
    answer = replied(after("done"), TOOLS, plugins=plugins(says_it))
    assert answer is not None
    assert answer.text == "said done"


def test_several_local_calls_are_said_in_order() -> None:
    """Every call answered and said: one reply a line, a call each in the decision."""
    messages = after('{"minutes": 10}')
    second = dict(messages[1]["tool_calls"][0], id=LOCAL + "b")
    messages[1]["tool_calls"].append(second)
    messages.append({"role": "tool", "tool_call_id": LOCAL + "b", "content": '{"minutes": 5}'})
    answer = replied(messages, TOOLS, plugins=plugins("{minutes} min"))
    assert answer is not None
    assert answer.text == "10 min\n5 min"
    assert len(answer.decision.calls) == 2
    del messages[-1]
    assert replied(messages, TOOLS, plugins=plugins("{minutes} min")) is None


def test_no_plugins_no_reply() -> None:
    """Tool specs cannot declare replies."""
    assert replied(after('{"minutes": 10}'), TOOLS, plugins=None) is None


def test_a_reply_that_is_no_template_nor_function_is_refused_at_registration() -> None:
    """A broken reply is the plugin author's mistake: a DefinitionError, as for a handler."""
    with pytest.raises(DefinitionError, match="reply"):
        plugins(42).registry()


def test_a_local_answer_keeps_its_calls_and_no_text() -> None:
    """The first turn is still a tool call, with a local id."""
    answer = answered([{"role": "user", "content": "set a timer for 10 minutes"}], TOOLS)
    assert answer is not None
    assert answer.text is None
    assert answer.calls[0].id.startswith(LOCAL_CALL_PREFIX)


# A parameter only the user can supply ------------------------------------------------------

BOOK_TOOLS = [{"type": "function", "function": {"name": "book_table", "parameters": BOOK_SCHEMA}}]


def test_a_missing_user_only_value_is_asked_of_the_user_with_no_model() -> None:
    """``ask``: the answer is a question naming it, no call, the decision's reason and ledger."""
    answer = answered(
        [{"role": "user", "content": ASKING}], BOOK_TOOLS, plugins=booking_plugins(), ask=True
    )
    assert answer is not None
    assert (answer.text, answer.calls) == (QUESTION, ())
    decision = answer.decision
    assert (decision.reason, decision.llm_calls, decision.event) == (
        "user_only_missing",
        0,
        "book_table",
    )
    assert decision.usage.requests == 0
    assert decision.ledger.reason == "user_only_missing"


def test_without_ask_a_missing_user_only_value_is_the_models_turn() -> None:
    """Words may not end the turn (structured output, a call demanded): no answer."""
    messages = [{"role": "user", "content": ASKING}]
    assert answered(messages, BOOK_TOOLS, plugins=booking_plugins()) is None


def test_a_tool_spec_marking_the_value_user_only_is_enough() -> None:
    """``"x-user-only": true`` in the offered schema, no plugins: asked the same way.

    The tool a model is offered says "only the user can supply this"; the question does not.
    """
    definition = booking_plugins().definitions[0]
    marked = {
        **BOOK_SCHEMA,
        "properties": {
            **BOOK_SCHEMA["properties"],
            "party_size": {**BOOK_SCHEMA["properties"]["party_size"], "x-user-only": True},
        },
    }
    tool = openai_tool(
        EventDefinition("book_table", parameters=marked, resolver=definition.resolver)
    )
    assert USER_ONLY_NOTE in json.dumps(tool)
    answer = answered([{"role": "user", "content": ASKING}], [dict(tool)], ask=True)
    assert answer is not None
    assert answer.text == QUESTION


def test_missing_information_anyone_may_give_is_still_the_models() -> None:
    """Nothing user-only is missing: the model may fill the gap, so it gets the turn."""
    messages = [{"role": "user", "content": "set a timer"}]
    assert answered(messages, TOOLS, ask=True) is None


QUESTIONS: list[tuple[list[str], dict[str, Any] | None, str]] = [
    (["/party_size"], None, "Please tell me the party size."),
    (
        ["/party_size"],
        {"properties": {"party_size": {"title": "Party Size"}}},
        "Please tell me the party size.",
    ),
    (["/n"], {"properties": {"n": {"title": "Guests"}}}, "Please tell me the guests."),
    (["/url"], {"properties": {"url": {"title": "URL"}}}, "Please tell me the URL."),
    (
        ["/amount_cents"],
        {"properties": {"amount_cents": {"description": f"In cents. {USER_ONLY_NOTE}"}}},
        "Please tell me the amount cents (in cents).",
    ),
    (
        ["/n"],
        {"properties": {"n": {"title": "x" * 61, "description": "y" * 61}}},
        "Please tell me the n.",
    ),
    (["/a", "/b"], None, "Please tell me the a and the b."),
    (["/a", "/b", "/c", "/a"], None, "Please tell me the a, the b and the c."),
    (
        ["/guest/first_name"],
        {"properties": {"guest": {"properties": {"first_name": {"title": "Given name"}}}}},
        "Please tell me the given name.",
    ),
    (["/guest/first_name"], {"properties": {}}, "Please tell me the guest first name."),
    (
        ["/guest/first_name"],
        {"properties": {"guest": {"properties": {"first_name": {"title": "First Name"}}}}},
        "Please tell me the guest first name.",
    ),
    ([], None, "Please tell me more."),
]


@pytest.mark.parametrize(("missing", "schema", "words"), QUESTIONS)
def test_a_question_names_each_value_in_plain_words(
    missing: list[str], schema: dict[str, Any] | None, words: str
) -> None:
    """A short title, else the key with spaces; a short description in brackets; in order, once."""
    assert question(missing, schema) == words


# A value the tool's schema rejects ---------------------------------------------------------

BOUNDED: dict[str, Any] = {
    "type": "object",
    "properties": {"minutes": {"type": "integer", "minimum": 1, "maximum": 1440}},
    "required": ["minutes"],
}
BOUNDED_TOOLS = [{"type": "function", "function": {"name": "set_timer", "parameters": BOUNDED}}]
TOO_LONG = [{"role": "user", "content": "set a timer for 5000 minutes"}]


def test_an_invalid_value_is_said_back_to_the_user_with_no_model() -> None:
    """``ask``: the kernel's ``invalid_arguments`` (the user's mistake) ends the turn in words."""
    answer = answered(TOO_LONG, BOUNDED_TOOLS, ask=True)
    assert answer is not None
    assert answer.calls == ()
    assert answer.text is not None
    assert answer.text.startswith("That cannot be done as asked (minutes: ")
    assert "1440" in answer.text
    assert (str(answer.decision.status), answer.decision.llm_calls) == ("invalid_arguments", 0)


def test_without_ask_an_invalid_value_is_the_models_turn() -> None:
    assert answered(TOO_LONG, BOUNDED_TOOLS) is None


def test_a_refusal_names_each_value_and_none_for_no_issue() -> None:
    from agent_lab.kernel.models import ValidationIssue

    issues = [
        ValidationIssue(pointer="/party_size", keyword="maximum", message="20 is the most"),
        ValidationIssue(pointer="", keyword="required", message="'time' is required"),
    ]
    assert refusal(issues) == (
        "That cannot be done as asked (party size: 20 is the most; "
        "the request: 'time' is required)."
    )
    assert refusal([]) is None


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather forecast for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def test_learned_rules_are_written_into_the_tools_before_the_decision() -> None:
    """``rules=``: the alias reads the city; without it the model is needed; the tools untouched."""
    messages = [{"role": "user", "content": WEATHER_TEXT}]
    offered = json.dumps(WEATHER)

    assert answered(messages, [WEATHER]) is None
    answer = answered(messages, [WEATHER], rules=big_apple())

    assert answer is not None
    assert [(call.name, call.arguments) for call in answer.calls] == [
        ("get_weather", {"city": CITY})
    ]
    assert json.dumps(WEATHER) == offered


def _timer_turn(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


@pytest.mark.parametrize(
    ("messages", "tools"),
    [
        (_timer_turn("ok") * 1_001, TOOLS),
        (_timer_turn("set a timer for 10 minutes " + "x" * 20_000), TOOLS),
        (_timer_turn("set a timer for 10 minutes"), TOOLS * 129),
        (
            _timer_turn("set a timer for 10 minutes"),
            [{"type": "function", "function": {"name": "set_timer", "parameters": {
                **SCHEMA, "properties": {f"p{i}": {"type": "integer"} for i in range(12_000)}}}}],
        ),
    ],
    ids=["1001 messages", "a 20,000-character message", "129 tools", "schemas of 24,000 values"],
)  # fmt: skip
def test_a_request_past_the_bounds_is_forwarded_by_every_caller(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> None:
    """The envelope bounds its own work, so a wrapper's caller gets the gateway's bounds too."""
    answer = Answerer().answer(Asked(messages=messages, tools=tools))
    assert answer.reason == "over_bounds"


def test_schemas_past_the_bounds_get_no_decider_and_are_counted_once() -> None:
    answerer = Answerer()
    properties = {f"p{i}": {"type": "string"} for i in range(12_000)}
    huge = [
        {
            "type": "function",
            "function": {"name": "f", "parameters": {"type": "object", "properties": properties}},
        }
    ]
    assert answerer.decider(huge) is None
    assert answerer.decider(TOOLS) is not None


@pytest.mark.parametrize(
    "text",
    [
        "set a timer for " + "9" * 5_000 + " minutes",
        "set a timer for " + "1 " * 4_000 + "minutes",
        "set a timer for 10 minutes \u202e\u2066 " + "a" * 10_000,
        "set a timer for 10 minutes \ud800",
    ],
    ids=["a 5,000-digit number", "4,000 numbers", "bidi marks", "a lone surrogate"],
)
def test_hostile_text_gets_a_bounded_answer_never_a_value_the_schema_refuses(text: str) -> None:
    answer = Answerer().answer(Asked(messages=_timer_turn(text), tools=TOOLS))
    for call in answer.calls if isinstance(answer, LocalAnswer) else ():
        assert call.name == "set_timer"
        assert isinstance(call.arguments["minutes"], int)
