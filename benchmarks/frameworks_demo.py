"""LLM calls per request: agent-lab run against each framework's own agent loop, on the demo.

Run on demand (no network: the model is the simulated one, with the oracle's truth):

    uv run --all-extras python benchmarks/frameworks_demo.py [--limit N] [--every K] [--json]

Every row answers the same 401 demo cases (``load_workload("demo")``, plugins
``agent_lab.demo:plugins``) with the same simulated model
(``SimulatedProvider``, ideal profile, the truth from the workload as in
``bench_runner.py``). A row per setup:

* ``agent-lab run, <policy>``: the lab's own agents, as ``agent-lab run
  --policy <policy>`` runs them; the model picks the call or fills the gaps,
  nothing phrases a result;
* ``<framework>, model alone``: the framework's own agent loop (Pydantic AI's
  ``Agent``, the OpenAI Agents SDK's ``Runner``, LangChain's
  ``create_agent``), the simulated model behind its model interface, the
  demo's events as its tools (their handlers run): one request to choose the
  call, then one to phrase the tool's result ("Done.");
* ``<framework> + deterministic-first``: the same loop, the model wrapped
  (``agent_lab.integrations``) with the demo's plugins; ``+ replies``: the
  demo's events also declare a reply, so a turn plain code completes ends
  with no request at all.

Columns: requests that chose the call (the user's turn) per case, requests in
the whole turn per case (phrasing included), the share of cases whose user's
turn no model answered, and the share whose tool call (or its absence)
matches the truth. Below the table, for each wrapped row, the cases whose
requests for the user's turn differ from ``agent-lab run, deterministic-first``,
counted by how the run's decision ended (``--json``: ``differs_from_run``).
A framework that is not installed is left out, and said so.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import importlib.util
import json
import sys
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from typing_extensions import override

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent_lab.agents.plugins import PluginSet
from agent_lab.agents.port import Message, ProviderRequest
from agent_lab.demo import plugins as demo_plugins
from agent_lab.kernel.models import EventDefinition, Status
from agent_lab.kernel.tools import openai_tool
from agent_lab.lab.run.policies import make_policy
from agent_lab.lab.workload import Case, load_workload
from agent_lab.providers import Expected, SimulatedProvider
from agent_lab.strict_json import JSONObject, JSONValue, same_json

INSTRUCTIONS = "You are an assistant: call the tool that does what the user asks."
PHRASED = "Done."
"""What the simulated model says after a tool's result."""
SPECS = tuple(cast("JSONObject", openai_tool(d)) for d in demo_plugins.definitions)
FRAMEWORKS = (
    ("Pydantic AI", "pydantic_ai"),
    ("OpenAI Agents SDK", "agents"),
    ("LangChain", "langchain"),
)
"""Each framework's name in the table, and the module that says it is installed."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """One case through one setup: its requests, and the call its user's turn was answered with."""

    choosing: int
    """Requests for the user's turn (choosing the call, or filling its gaps)."""
    turn: int
    """Requests in the whole turn, the phrasing of the tool's result included."""
    local: bool
    """The user's turn was answered with no request."""
    right: bool
    """The call (tool and arguments), or its absence, matches the truth."""
    reason: str = ""
    """How the lab's decision ended (the lab's rows only)."""


@dataclass(frozen=True, slots=True)
class Row:
    setup: str
    outcomes: tuple[Outcome, ...]
    differs: dict[str, int] = field(default_factory=dict[str, int])
    """Cases whose requests for the user's turn differ from the deterministic-first run's,
    by how the run's decision ended."""

    def as_json(self) -> dict[str, Any]:
        per = len(self.outcomes) or 1
        return {
            "setup": self.setup,
            "cases": len(self.outcomes),
            "llm_calls_per_request": round(sum(o.choosing for o in self.outcomes) / per, 3),
            "llm_calls_per_turn": round(sum(o.turn for o in self.outcomes) / per, 3),
            "answered_locally": round(sum(o.local for o in self.outcomes) / per, 3),
            "calls_right": round(sum(o.right for o in self.outcomes) / per, 3),
            "differs_from_run": dict(self.differs),
        }


def simulated(cases: tuple[Case, ...]) -> SimulatedProvider:
    truth = {case.id: case for case in cases}

    def oracle(request: ProviderRequest) -> Expected | None:
        case = truth.get(str(request.context.get("case_id")))
        return None if case is None else Expected(case.event, dict(case.expected.arguments or {}))

    return SimulatedProvider(oracle, wait=False)


def right(case: Case, tool: str | None, arguments: Mapping[str, Any] | None) -> bool:
    """The call matches the truth: the expected tool and arguments, or no call when none is due."""
    if case.expected.status is not Status.SUCCESS:
        # Missing, invalid or out of domain: no call is due (the lab's kernel refuses one).
        return tool is None
    return tool == case.event and same_json(dict(arguments or {}), case.expected.arguments or {})


async def lab_row(policy: str, cases: tuple[Case, ...]) -> Row:
    """``agent-lab run --policy <policy>``'s agent, case by case."""
    runner = make_policy(policy, demo_plugins, simulated(cases))
    outcomes: list[Outcome] = []
    for case in cases:
        decision = await runner.run(case)
        done = decision.status is Status.SUCCESS
        outcomes.append(
            Outcome(
                choosing=decision.llm_calls,
                turn=decision.llm_calls,
                local=decision.llm_calls == 0,
                right=right(case, decision.event if done else None, decision.arguments),
                reason=str(decision.reason),
            )
        )
    return Row(f"agent-lab run, {policy}", tuple(outcomes))


def with_replies(plugins: PluginSet) -> PluginSet:
    """The demo's events, each saying its handler's confirmation with no model."""

    def confirm(result: JSONValue) -> str:
        return f"Done: {json.dumps(result, ensure_ascii=False)}"

    definitions = tuple(dataclasses.replace(d, reply=confirm) for d in plugins.definitions)
    return dataclasses.replace(plugins, definitions=definitions)


def handled(definition: EventDefinition, arguments: Mapping[str, Any]) -> JSONValue:
    """The demo handler's result for a call, as the framework's tool returns it."""
    handler = cast("Callable[[Mapping[str, Any]], JSONValue] | None", definition.handler)
    try:
        return handler(arguments) if handler else {}
    except Exception as err:
        # The demo's handlers expect valid arguments; a model's invalid ones are an answer.
        return {"error": str(err)}


@dataclass
class Model:
    """The simulated model for one case, behind any framework: it counts what it is asked."""

    provider: SimulatedProvider
    case: Case
    choosing: int = 0
    turn: int = 0

    async def answer(self, *, after_tool: bool) -> tuple[str | None, list[tuple[str, str]]]:
        """After a tool's result, "Done."; else the call it chooses (name, arguments JSON)."""
        self.turn += 1
        if after_tool:
            return PHRASED, []
        self.choosing += 1
        request = ProviderRequest(
            purpose="tool_choice",
            messages=(Message("user", self.case.text),),
            tools=SPECS,
            tool_choice="auto",
            # The simulated model sees what the lab shows it: the words, in its context.
            context={"case_id": self.case.id, "text": self.case.text},
        )
        reply = await self.provider.complete(request)
        if reply.tool_calls:
            return None, [(call.name, call.arguments_raw) for call in reply.tool_calls]
        return reply.text or "Could you say more?", []

    def outcome(self, call: tuple[str, Mapping[str, Any]] | None) -> Outcome:
        tool, arguments = call if call is not None else (None, None)
        return Outcome(
            choosing=self.choosing,
            turn=self.turn,
            local=self.choosing == 0,
            right=right(self.case, tool, arguments),
        )


Setup = Callable[[Model, PluginSet | None], Awaitable[Outcome]]
"""One case through a framework: the simulated model, wrapped with these plugins (or not)."""


# Pydantic AI ----------------------------------------------------------------------------------


def pydantic_ai() -> Setup:
    """A Pydantic AI ``Agent`` per case: the simulated model a ``FunctionModel``."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.tools import Tool

    from agent_lab.integrations.pydantic_ai import DeterministicFirstModel

    def tool(definition: EventDefinition) -> Tool[None]:
        def run(**arguments: Any) -> JSONValue:
            return handled(definition, arguments)

        schema = cast("Mapping[str, Any]", definition.parameters)
        return Tool.from_schema(run, definition.name, definition.description, dict(schema))

    tools: list[Any] = [tool(d) for d in demo_plugins.definitions]

    async def one(model: Model, plugins: PluginSet | None) -> Outcome:
        async def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            last = messages[-1]
            after = isinstance(last, ModelRequest) and any(
                isinstance(part, ToolReturnPart) for part in last.parts
            )
            text, calls = await model.answer(after_tool=after)
            parts = [ToolCallPart(name, arguments) for name, arguments in calls]
            return ModelResponse(parts=[*parts, TextPart(text)] if text is not None else parts)

        wrapped: Any = FunctionModel(answer)
        if plugins is not None:
            wrapped = DeterministicFirstModel(wrapped, plugins, context=dict(model.case.context))
        result = await Agent(wrapped, tools=tools, instructions=INSTRUCTIONS).run(model.case.text)
        first = next(m for m in result.all_messages() if isinstance(m, ModelResponse))
        call = next((p for p in first.parts if isinstance(p, ToolCallPart)), None)
        return model.outcome(None if call is None else (call.tool_name, call.args_as_dict()))

    return one


# The OpenAI Agents SDK ------------------------------------------------------------------------


def openai_agents() -> Setup:
    """The Agents SDK's ``Runner`` per case: the simulated model behind its ``Model``."""
    from agents.agent_output import AgentOutputSchemaBase
    from agents.handoffs import Handoff
    from agents.items import TResponseInputItem, TResponseOutputItem
    from agents.model_settings import ModelSettings
    from agents.models.interface import Model as SDKModel
    from agents.models.interface import ModelTracing
    from agents.tool import Tool
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )
    from openai.types.responses.response_prompt_param import ResponsePromptParam

    from agent_lab.integrations.openai_agents import DeterministicFirstModel
    from agents import (
        Agent,
        FunctionTool,
        ModelResponse,
        RunContextWrapper,
        Runner,
        Usage,
        set_tracing_disabled,
    )

    set_tracing_disabled(True)

    class Simulated(SDKModel):
        def __init__(self, model: Model) -> None:
            self.model = model

        @override
        async def get_response(
            self,
            system_instructions: str | None,
            input: str | list[TResponseInputItem],
            model_settings: ModelSettings,
            tools: list[Tool],
            output_schema: AgentOutputSchemaBase | None,
            handoffs: list[Handoff],
            tracing: ModelTracing,
            *,
            previous_response_id: str | None,
            conversation_id: str | None,
            prompt: ResponsePromptParam | None,
        ) -> ModelResponse:
            last = input[-1] if isinstance(input, list) and input else None
            after = isinstance(last, Mapping) and last.get("type") == "function_call_output"
            text, calls = await self.model.answer(after_tool=after)
            output: list[TResponseOutputItem] = [
                ResponseFunctionToolCall(
                    type="function_call", call_id=f"call_{i}", name=name, arguments=arguments
                )
                for i, (name, arguments) in enumerate(calls)
            ]
            if text is not None:
                part = ResponseOutputText(type="output_text", text=text, annotations=[])
                output.append(
                    ResponseOutputMessage(
                        id="msg",
                        type="message",
                        role="assistant",
                        status="completed",
                        content=[part],
                    )
                )
            return ModelResponse(output=output, usage=Usage(requests=1), response_id=None)

        @override
        def stream_response(
            self,
            system_instructions: str | None,
            input: str | list[TResponseInputItem],
            model_settings: ModelSettings,
            tools: list[Tool],
            output_schema: AgentOutputSchemaBase | None,
            handoffs: list[Handoff],
            tracing: ModelTracing,
            *,
            previous_response_id: str | None,
            conversation_id: str | None,
            prompt: ResponsePromptParam | None,
        ) -> Any:
            raise NotImplementedError

    def tool(definition: EventDefinition) -> FunctionTool:
        async def run(_context: RunContextWrapper[Any], arguments: str) -> str:
            return json.dumps(handled(definition, json.loads(arguments or "{}")))

        return FunctionTool(
            name=definition.name,
            description=definition.description,
            params_json_schema=dict(cast("Mapping[str, Any]", definition.parameters)),
            on_invoke_tool=run,
            strict_json_schema=False,
        )

    tools: list[Tool] = [tool(d) for d in demo_plugins.definitions]

    async def one(model: Model, plugins: PluginSet | None) -> Outcome:
        sdk_model: SDKModel = Simulated(model)
        if plugins is not None:
            sdk_model = DeterministicFirstModel(sdk_model, plugins)
        agent = Agent(name="demo", instructions=INSTRUCTIONS, tools=tools, model=sdk_model)
        result = await Runner.run(agent, model.case.text)
        first = result.raw_responses[0].output if result.raw_responses else []
        call = next((i for i in first if isinstance(i, ResponseFunctionToolCall)), None)
        return model.outcome(None if call is None else (call.name, json.loads(call.arguments)))

    return one


# LangChain ------------------------------------------------------------------------------------


def langchain() -> Setup:
    """LangChain's ``create_agent`` per case: the simulated model behind its chat model."""
    from collections.abc import Sequence

    from langchain.agents import create_agent  # pyright: ignore[reportUnknownVariableType]
    from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
    from langchain_core.language_models import BaseChatModel, LanguageModelInput
    from langchain_core.messages import AIMessage, BaseMessage, ToolCall, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.runnables import Runnable
    from langchain_core.tools import StructuredTool
    from pydantic import ConfigDict

    from agent_lab.integrations.langchain import DeterministicFirstChatModel

    class Simulated(BaseChatModel):
        model_config = ConfigDict(arbitrary_types_allowed=True)

        model: Any
        """The ``Model`` it answers for (``Any``: pydantic would inspect the dataclass)."""

        @property
        @override
        def _llm_type(self) -> str:
            return "simulated"

        @override
        def bind_tools(
            self,
            tools: Sequence[dict[str, Any] | type | Callable[..., Any] | Any],
            *,
            tool_choice: str | None = None,
            **kwargs: Any,
        ) -> Runnable[LanguageModelInput, AIMessage]:
            return self

        @override
        def _generate(
            self,
            messages: list[BaseMessage],
            stop: list[str] | None = None,
            run_manager: CallbackManagerForLLMRun | None = None,
            **kwargs: Any,
        ) -> ChatResult:
            raise NotImplementedError

        @override
        async def _agenerate(
            self,
            messages: list[BaseMessage],
            stop: list[str] | None = None,
            run_manager: AsyncCallbackManagerForLLMRun | None = None,
            **kwargs: Any,
        ) -> ChatResult:
            after = bool(messages) and isinstance(messages[-1], ToolMessage)
            text, calls = await cast("Model", self.model).answer(after_tool=after)
            message = AIMessage(
                content=text or "",
                tool_calls=[
                    ToolCall(
                        name=name, args=json.loads(arguments), id=f"call_{i}", type="tool_call"
                    )
                    for i, (name, arguments) in enumerate(calls)
                ],
            )
            return ChatResult(generations=[ChatGeneration(message=message)])

    def tool(definition: EventDefinition) -> StructuredTool:
        def run(**arguments: Any) -> str:
            return json.dumps(handled(definition, arguments))

        return StructuredTool.from_function(
            func=run,
            name=definition.name,
            description=definition.description or definition.name,
            args_schema=dict(cast("Mapping[str, Any]", definition.parameters)),
        )

    tools = [tool(d) for d in demo_plugins.definitions]

    async def one(model: Model, plugins: PluginSet | None) -> Outcome:
        chat: BaseChatModel = Simulated(model=model)
        if plugins is not None:
            chat = DeterministicFirstChatModel(chat, plugins)
        graph: Any = create_agent(chat, tools, system_prompt=INSTRUCTIONS)  # pyright: ignore[reportUnknownVariableType]
        out = await graph.ainvoke({"messages": [{"role": "user", "content": model.case.text}]})
        first = next(m for m in out["messages"] if isinstance(m, AIMessage))
        call = first.tool_calls[0] if first.tool_calls else None
        return model.outcome(None if call is None else (call["name"], call["args"]))

    return one


# The table ------------------------------------------------------------------------------------


async def framework_rows(name: str, setup: Setup, cases: tuple[Case, ...]) -> list[Row]:
    """The model alone, wrapped, and wrapped with replies, through one framework's loop."""
    rows: list[Row] = []
    for label, plugins in (
        (f"{name}, model alone", None),
        (f"{name} + deterministic-first", demo_plugins),
        (f"{name} + deterministic-first + replies", with_replies(demo_plugins)),
    ):
        provider = simulated(cases)
        outcomes = [await setup(Model(provider, case), plugins) for case in cases]
        rows.append(Row(label, tuple(outcomes)))
    return rows


def compared(row: Row, run: Row) -> Row:
    """The row with its cases that differ from the run's requests, by the run's reason."""
    differs = Counter(
        ran.reason
        for here, ran in zip(row.outcomes, run.outcomes, strict=True)
        if here.choosing != ran.choosing
    )
    return dataclasses.replace(row, differs=dict(sorted(differs.items())))


SETUPS: dict[str, Callable[[], Setup]] = {
    "Pydantic AI": pydantic_ai,
    "OpenAI Agents SDK": openai_agents,
    "LangChain": langchain,
}


async def measure(cases: tuple[Case, ...]) -> list[Row]:
    run = await lab_row("deterministic-first", cases)
    rows = [run, await lab_row("llm-always", cases)]
    for name, module in FRAMEWORKS:
        if importlib.util.find_spec(module) is None:
            print(f"{name} is not installed (uv run --all-extras ...): its rows are left out")
            continue
        found = await framework_rows(name, SETUPS[name](), cases)
        rows += [compared(row, run) if "deterministic-first" in row.setup else row for row in found]
    return rows


def table(rows: list[Row]) -> str:
    lines = [
        "| setup | LLM calls per request | LLM calls per turn | no model asked | calls right |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        data = row.as_json()
        lines.append(
            f"| {data['setup']} | {data['llm_calls_per_request']:.3f} "
            f"| {data['llm_calls_per_turn']:.3f} | {data['answered_locally']:.1%} "
            f"| {data['calls_right']:.1%} |"
        )
    lines.append("")
    for row in rows:
        if "deterministic-first" in row.setup and not row.setup.startswith("agent-lab"):
            said = ", ".join(f"{reason} {n}" for reason, n in row.differs.items()) or "none"
            lines.append(f"{row.setup}: cases whose requests differ from the run's: {said}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object per row")
    parser.add_argument("--every", type=int, default=1, help="every K-th case only (1: all)")
    parser.add_argument("--limit", type=int, help="the first N of them only (a quick check)")
    options = parser.parse_args(argv)
    cases = load_workload("demo").cases[:: options.every][: options.limit]
    rows = asyncio.run(measure(cases))
    if options.json:
        print(json.dumps([row.as_json() for row in rows], indent=2))
    else:
        print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
