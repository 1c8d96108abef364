"""One conversation, one answer: the gateway, each framework wrapper and log replay agree.

Each row is a conversation in the Chat Completions form, with the tool a
request forces, if any. It goes through every caller of the envelope, each
in its own shape: the gateway over HTTP with the official ``openai`` SDK
(``enforce``, every tool trusted, a real upstream on 127.0.0.1), the three
wrappers through the model interface their framework's agent loop calls
(the conversation written as that framework's messages, a wrapped model
that answers in words), and ``replay`` of the same request as a log holds
it. Each caller's answer is reduced to what was decided: the envelope's
word, the calls, the words said. A caller that drifted from the envelope
shows as a row where one column differs.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest

pytest.importorskip("agents", reason="the openai-agents extra is not installed")
pytest.importorskip("langchain_core", reason="the langchain extra is not installed")
pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")
pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import openai
from agents.model_settings import ModelSettings as AgentsSettings
from agents.models.interface import ModelTracing
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.settings import ModelSettings as PydanticSettings
from pydantic_ai.tools import ToolDefinition

from agent_lab.agents.plugins import PluginSet
from agent_lab.answering import Answerer, Asked, LocalAnswer
from agent_lab.gateway import Gateway, GatewaySettings, Mode
from agent_lab.integrations.langchain import DeterministicFirstChatModel
from agent_lab.integrations.openai_agents import DeterministicFirstModel as AgentsModel
from agent_lab.integrations.pydantic_ai import DeterministicFirstModel as PydanticModel
from agent_lab.kernel.models import EventDefinition
from agent_lab.log_replay.replayed import Replayed, replay
from agent_lab.logs.record import LogFormat, LoggedRequest
from agent_lab.resolvers.schema import SchemaResolver
from agents import FunctionTool
from tests.gateway.running import serving
from tests.integrations.agents_doubles import ScriptedModel, said
from tests.integrations.test_langchain import fake
from tests.openai_server import Behavior, OpenAIServer
from tests.openai_server import serving as upstream_serving

MODEL_WORDS = "the model's own words"
"""What every wrapped model and the upstream answer: a turn plain code left to the model."""

TIMER: dict[str, Any] = {
    "type": "object",
    "properties": {"minutes": {"type": "integer", "minimum": 1, "maximum": 1440}},
    "required": ["minutes"],
}
BOOK: dict[str, Any] = {
    "type": "object",
    "properties": {
        "party_size": {"type": "integer", "minimum": 1, "description": "How many people."},
        "time": {"type": "string"},
    },
    "required": ["party_size"],
}


def plugins() -> PluginSet:
    """A timer that says its result, and a booking whose party size only the user can say."""
    return PluginSet(
        "every-caller",
        (
            EventDefinition(
                "set_timer",
                description="Set a countdown timer.",
                parameters=TIMER,
                resolver=SchemaResolver(TIMER),
                reply="Timer set for {minutes} minutes.",
            ),
            EventDefinition(
                "book_table",
                description="Book a table at the restaurant.",
                parameters=BOOK,
                resolver=SchemaResolver(BOOK),
                user_only=("party_size",),
            ),
        ),
    )


TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {"name": d.name, "description": d.description, "parameters": d.parameters},
    }
    for d in plugins().definitions
]
LOCAL_ID = "call_al_0123456789abcdef01234567"
"""A call a local answer made: the turn after it may be said with the event's reply."""


@dataclass(frozen=True)
class Answered:
    """What a caller decided: the calls, the words, or the model's turn (``calls`` and ``text``
    both empty)."""

    calls: tuple[tuple[str, str], ...] = ()
    """Each call's tool and its arguments as canonical JSON text."""
    text: str | None = None

    @classmethod
    def of_calls(cls, calls: Sequence[tuple[str, object]]) -> Answered:
        return cls(calls=tuple((name, _canonical(arguments)) for name, arguments in calls))


MODEL = Answered()


def _canonical(arguments: object) -> str:
    parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    return json.dumps(parsed, sort_keys=True)


@dataclass(frozen=True)
class Row:
    id: str
    messages: list[dict[str, Any]]
    forced: str | None
    word: str
    """The envelope's word: ``covered``, ``asked``, ``refused``, ``local_reply``, or the rule
    that forwards the turn."""
    answered: Answered


def user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


AFTER_LOCAL_CALL = [
    *user("set a timer for 10 minutes"),
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": LOCAL_ID,
                "type": "function",
                "function": {"name": "set_timer", "arguments": '{"minutes": 10}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": LOCAL_ID, "content": '{"minutes": 10}'},
]

ROWS = [
    Row(
        "complete",
        user("could you start a countdown of 25 minutes"),
        None,
        "covered",
        Answered.of_calls([("set_timer", {"minutes": 25})]),
    ),
    Row("missing information", user("start a countdown please"), None, "not_covered", MODEL),
    Row(
        "a user-only value",
        user("reserve a table at the restaurant for this evening"),
        None,
        "asked",
        Answered(text="Please tell me the party size (how many people)."),
    ),
    Row(
        "an invalid value",
        user("set a timer for 3000 minutes"),
        None,
        "refused",
        Answered(
            text="That cannot be done as asked (minutes: 3000 is greater than the maximum of 1440)."
        ),
    ),
    Row(
        "a follow-up after local calls",
        AFTER_LOCAL_CALL,
        None,
        "local_reply",
        Answered(text="Timer set for 10 minutes."),
    ),
    Row(
        "a forced tool plain code calls",
        user("set a timer for 10 minutes"),
        "set_timer",
        "covered",
        Answered.of_calls([("set_timer", {"minutes": 10})]),
    ),
    Row(
        "a forced tool plain code does not call",
        user("set a timer for 10 minutes"),
        "book_table",
        "not_the_forced_tool",
        MODEL,
    ),
]


# The envelope itself, and log replay ------------------------------------------------------


def by_envelope(row: Row) -> tuple[str, Answered]:
    asked = Asked(
        messages=row.messages,
        tools=TOOLS,
        tool_choice="required" if row.forced else "auto",
        forced=row.forced,
    )
    answer = Answerer(plugins()).answer(asked)
    if not isinstance(answer, LocalAnswer):
        return answer.reason, MODEL
    calls = [(call.name, call.arguments_json) for call in answer.calls]
    return answer.reason, Answered(calls=Answered.of_calls(calls).calls, text=answer.text)


def by_replay(row: Row) -> str:
    """What ``replay`` says the envelope would have answered (it keeps the word, not the text)."""
    request = LoggedRequest(
        where="every-caller.jsonl:1",
        format=LogFormat.PAIRS,
        messages=tuple(row.messages),
        tools=tuple(TOOLS),
        calls=(),
        text=MODEL_WORDS,
        forced=row.forced,
    )
    replayed = replay(request, Answerer(plugins()))
    assert isinstance(replayed, Replayed)
    if replayed.answered == "covered":
        assert replayed.covered
        assert (replayed.produced_tool, replayed.produced) is not None
    return replayed.answered


# The gateway ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def upstream() -> Iterator[OpenAIServer]:
    for server in upstream_serving():
        server.default = Behavior(message={"content": MODEL_WORDS})
        yield server


@pytest.fixture(scope="module")
def gateway_url(upstream: OpenAIServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder: Path = tmp_path_factory.mktemp("gateway")
    settings = GatewaySettings(
        upstream=upstream.url,
        mode=Mode.ENFORCE,
        enforce=("set_timer", "book_table"),
        db=str(folder / "gateway.sqlite"),
    )
    with serving(settings, gateway=Gateway(settings, load_plugins=plugins)) as served:
        yield served.url


def by_gateway(row: Row, url: str) -> Answered:
    client = openai.OpenAI(base_url=url, api_key="sk-every-caller", max_retries=0)
    choice: Any = (
        openai.NOT_GIVEN
        if row.forced is None
        else {"type": "function", "function": {"name": row.forced}}
    )
    try:
        answer = client.chat.completions.create(
            model="gpt-4o-mini",
            messages=cast("Any", row.messages),
            tools=cast("Any", TOOLS),
            tool_choice=choice,
        )
    finally:
        client.close()
    message = answer.choices[0].message
    if message.content == MODEL_WORDS:
        return MODEL
    calls = [
        (call.function.name, call.function.arguments)
        for call in message.tool_calls or []
        if call.type == "function"
    ]
    return Answered(calls=Answered.of_calls(calls).calls, text=message.content)


# The wrappers, each in its framework's messages -------------------------------------------


def _arguments(call: dict[str, Any]) -> dict[str, Any]:
    return cast("dict[str, Any]", json.loads(call["function"]["arguments"]))


def pydantic_messages(row: Row) -> list[ModelMessage]:
    history: list[ModelMessage] = []
    for message in row.messages:
        if message["role"] == "user":
            history.append(ModelRequest(parts=[UserPromptPart(message["content"])]))
        elif message["role"] == "assistant":
            calls = message["tool_calls"]
            parts = [ToolCallPart(c["function"]["name"], _arguments(c), c["id"]) for c in calls]
            history.append(ModelResponse(parts=parts))
        else:
            named = {c["id"]: c["function"]["name"] for c in row.messages[1]["tool_calls"]}
            content = json.loads(message["content"])
            part = ToolReturnPart(named[message["tool_call_id"]], content, message["tool_call_id"])
            history.append(ModelRequest(parts=[part]))
    return history


def by_pydantic_ai(row: Row) -> Answered:
    def words(_: list[ModelMessage], __: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(MODEL_WORDS)])

    model = PydanticModel(FunctionModel(words), plugins())
    tools = [
        ToolDefinition(
            name=tool["function"]["name"],
            description=tool["function"]["description"],
            parameters_json_schema=tool["function"]["parameters"],
        )
        for tool in TOOLS
    ]
    settings = PydanticSettings(tool_choice=[row.forced]) if row.forced else None
    parameters = ModelRequestParameters(
        function_tools=tools, allow_text_output=True, output_mode="text"
    )
    response = asyncio.run(model.request(pydantic_messages(row), settings, parameters))
    texts = "".join(part.content for part in response.parts if isinstance(part, TextPart))
    if texts == MODEL_WORDS:
        return MODEL
    calls = [
        (part.tool_name, part.args_as_json_str())
        for part in response.parts
        if isinstance(part, ToolCallPart)
    ]
    return Answered(calls=Answered.of_calls(calls).calls, text=texts or None)


def langchain_messages(row: Row) -> list[BaseMessage]:
    said_: list[BaseMessage] = []
    for message in row.messages:
        if message["role"] == "user":
            said_.append(HumanMessage(message["content"]))
        elif message["role"] == "assistant":
            calls = [
                {"name": c["function"]["name"], "args": _arguments(c), "id": c["id"]}
                for c in message["tool_calls"]
            ]
            said_.append(AIMessage("", tool_calls=calls))
        else:
            said_.append(ToolMessage(message["content"], tool_call_id=message["tool_call_id"]))
    return said_


def by_langchain(row: Row) -> Answered:
    wrapped = fake(AIMessage(MODEL_WORDS))
    model = DeterministicFirstChatModel(wrapped, plugins()).bind_tools(
        TOOLS, tool_choice=row.forced
    )
    message = model.invoke(langchain_messages(row))
    if message.content == MODEL_WORDS:
        return MODEL
    calls = [(call["name"], call["args"]) for call in message.tool_calls]
    text = message.content if isinstance(message.content, str) and message.content else None
    return Answered(calls=Answered.of_calls(calls).calls, text=text)


def agents_items(row: Row) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for message in row.messages:
        if message["role"] == "user":
            items.append({"role": "user", "content": message["content"]})
        elif message["role"] == "assistant":
            items.extend(
                {
                    "type": "function_call",
                    "call_id": c["id"],
                    "name": c["function"]["name"],
                    "arguments": c["function"]["arguments"],
                }
                for c in message["tool_calls"]
            )
        else:
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message["tool_call_id"],
                    "output": message["content"],
                }
            )
    return items


async def _never(*_: Any) -> str:
    raise AssertionError("the wrapper never runs a tool")


def by_openai_agents(row: Row) -> Answered:
    model = AgentsModel(ScriptedModel([said(MODEL_WORDS)]), plugins())
    tools = [
        FunctionTool(
            name=tool["function"]["name"],
            description=tool["function"]["description"],
            params_json_schema=tool["function"]["parameters"],
            on_invoke_tool=_never,
            strict_json_schema=False,
        )
        for tool in TOOLS
    ]
    response = asyncio.run(
        model.get_response(
            None,
            cast("Any", agents_items(row)),
            AgentsSettings(tool_choice=row.forced),
            cast("Any", tools),
            None,
            [],
            ModelTracing.DISABLED,
            previous_response_id=None,
            conversation_id=None,
            prompt=None,
        )
    )
    calls: list[tuple[str, object]] = []
    texts: list[str] = []
    for item in response.output:
        if item.type == "function_call":
            calls.append((item.name, item.arguments))
        elif item.type == "message":
            texts.extend(part.text for part in item.content if part.type == "output_text")
    text = "".join(texts) or None
    if text == MODEL_WORDS:
        return MODEL
    return Answered(calls=Answered.of_calls(calls).calls, text=text)


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_every_caller_answers_the_same_conversation_alike(row: Row, gateway_url: str) -> None:
    """The envelope's answer, and the same from the gateway, each wrapper and replay."""
    word, answered = by_envelope(row)
    assert (word, answered) == (row.word, row.answered)
    assert by_replay(row) == row.word
    assert {
        "gateway": by_gateway(row, gateway_url),
        "pydantic-ai": by_pydantic_ai(row),
        "langchain": by_langchain(row),
        "openai-agents": by_openai_agents(row),
    } == dict.fromkeys(("gateway", "pydantic-ai", "langchain", "openai-agents"), row.answered)


def test_with_no_ask_the_gateway_forwards_the_question_and_the_refusal(
    upstream: OpenAIServer, tmp_path: Path
) -> None:
    """``--no-ask``: the user-only and the invalid rows go to the model; a complete call stays."""
    settings = GatewaySettings(
        upstream=upstream.url,
        mode=Mode.ENFORCE,
        enforce=("set_timer", "book_table"),
        db=None,
        ask=False,
    )
    rows = {row.id: row for row in ROWS}
    with serving(settings, gateway=Gateway(settings, load_plugins=plugins)) as served:
        asked = by_gateway(rows["a user-only value"], served.url)
        refused = by_gateway(rows["an invalid value"], served.url)
        covered = by_gateway(rows["complete"], served.url)
    assert (asked, refused) == (MODEL, MODEL)
    assert covered == rows["complete"].answered
