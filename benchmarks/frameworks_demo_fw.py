"""The demo workload through each framework's own agent loop, deterministic-first, against a run.

Run on demand:

    uv run python benchmarks/frameworks_demo_fw.py [--limit N] [--json]

Each case of the demo workload (``agent_lab.lab.workload.load_workload("demo")``)
goes through the OpenAI Agents SDK's ``Runner`` and LangChain's
``create_agent``, their model wrapped deterministic-first with the demo's
plugins (``agent_lab.demo:plugins``). The wrapped model is the simulated
model of the lab (``SimulatedProvider``, sighted, ideal profile, the
workload's truth as its oracle, as ``benchmarks/bench_runner.py`` sets it
up), behind each framework's model interface; it answers the turn after a
tool's result with a fixed sentence, counted as a call like any other.

One row per framework: wrapped-model calls per request for the user's turn
(the decision: what ``agent-lab run --policy deterministic-first`` counts),
and for the whole loop (the reply after the tool included); beside them,
``agent-lab run --policy deterministic-first`` on the same cases with the
same simulated model, and in how many cases the decision's count is the
run's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
from agents.model_settings import ModelSettings
from agents.models.chatcmpl_converter import Converter
from agents.models.interface import Model, ModelTracing
from agents.tool import Tool
from langchain.agents import create_agent  # pyright: ignore[reportUnknownVariableType]
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, ToolCall, convert_to_openai_messages
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from openai.types.responses.response_prompt_param import ResponsePromptParam
from pydantic import ConfigDict, Field
from typing_extensions import override

from agent_lab.agents.port import Message, ProviderRequest
from agent_lab.application.tools import openai_tool
from agent_lab.demo import plugins as demo_plugins
from agent_lab.integrations.langchain import DeterministicFirstChatModel
from agent_lab.integrations.openai_agents import DeterministicFirstModel
from agent_lab.lab.results.store import Store
from agent_lab.lab.run.policies import make_policy
from agent_lab.lab.run.runner import RunConfig as LabRunConfig
from agent_lab.lab.run.runner import Runner as LabRunner
from agent_lab.lab.workload import Case, Workload, load_workload
from agent_lab.providers import Expected, SimulatedProvider
from agents import Agent, FunctionTool, ModelResponse, Runner, Usage, set_tracing_disabled

POLICY = "deterministic-first"
INSTRUCTIONS = "You are an assistant: call the tool that does what the user asks."
REPLY = "Done."
"""What the simulated model says after a tool's result."""
TOOLS: list[dict[str, Any]] = [dict(openai_tool(d)) for d in demo_plugins.definitions]


def simulated(cases: tuple[Case, ...]) -> SimulatedProvider:
    truth = {case.id: case for case in cases}

    def oracle(request: ProviderRequest) -> Expected | None:
        case = truth.get(str(request.context.get("case_id")))
        return None if case is None else Expected(case.event, dict(case.expected.arguments or {}))

    return SimulatedProvider(oracle, wait=False)


@dataclass
class Counted:
    """The wrapped model's calls in one case: for the user's turn, and in all."""

    decision: int = 0
    loop: int = 0


class Asker:
    """The simulated model asked in Chat Completions terms, as a framework's model sends."""

    def __init__(self, provider: SimulatedProvider, case: Case) -> None:
        self.provider = provider
        self.case = case
        self.counted = Counted()

    async def ask(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> tuple[str | None, list[tuple[str, str]]]:
        """The reply's text, or its tool calls as (name, arguments JSON)."""
        self.counted.loop += 1
        if not messages or messages[-1].get("role") != "user":
            return REPLY, []
        self.counted.decision += 1
        request = ProviderRequest(
            purpose="tool_choice",
            messages=tuple(
                Message(role=m["role"], content=str(m.get("content") or ""))
                for m in messages
                if m.get("role") in ("system", "user", "assistant")
            ),
            tools=tuple(tools),
            tool_choice="auto",
            context={"case_id": self.case.id, "text": self.case.text},
        )
        reply = await self.provider.complete(request)
        if reply.tool_calls:
            return None, [(c.name, c.arguments_raw) for c in reply.tool_calls]
        return reply.text or "", []


# The OpenAI Agents SDK -----------------------------------------------------------------------


class SimulatedModel(Model):
    """The simulated model behind the Agents SDK's ``Model`` interface."""

    def __init__(self, asker: Asker) -> None:
        self.asker = asker

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
        messages = [dict(m) for m in Converter.items_to_messages(input)]
        specs = [dict(Converter.tool_to_openai(t)) for t in tools]
        text, calls = await self.asker.ask(messages, specs)
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
                    id="msg", type="message", role="assistant", status="completed", content=[part]
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
    ) -> AsyncIterator[TResponseStreamEvent]:
        raise NotImplementedError


async def _tool_ran(_context: object, _arguments: str) -> str:
    return "ok"


def agents_sdk(cases: tuple[Case, ...]) -> list[Counted]:
    """Each case through ``Runner.run``, the model wrapped by ``DeterministicFirstModel``."""
    set_tracing_disabled(True)
    tools: list[Tool] = [
        FunctionTool(
            name=spec["function"]["name"],
            description=spec["function"].get("description", ""),
            params_json_schema=spec["function"]["parameters"],
            on_invoke_tool=_tool_ran,
            strict_json_schema=False,
        )
        for spec in TOOLS
    ]
    provider = simulated(cases)

    async def run_all() -> list[Counted]:
        counts: list[Counted] = []
        for case in cases:
            asker = Asker(provider, case)
            model = DeterministicFirstModel(SimulatedModel(asker), demo_plugins)
            agent = Agent(name="demo", instructions=INSTRUCTIONS, tools=tools, model=model)
            await Runner.run(agent, case.text)
            counts.append(asker.counted)
        return counts

    return asyncio.run(run_all())


# LangChain -----------------------------------------------------------------------------------


class SimulatedChatModel(BaseChatModel):
    """The simulated model behind LangChain's chat model interface."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    asker: Asker
    specs: list[dict[str, Any]] = Field(default_factory=list[dict[str, Any]])

    @property
    @override
    def _llm_type(self) -> str:
        return "simulated"

    @override
    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self.model_copy(update={"specs": [convert_to_openai_tool(t) for t in tools]})

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
        text, calls = await self.asker.ask(convert_to_openai_messages(messages), self.specs)
        message = AIMessage(
            content=text or "",
            tool_calls=[
                ToolCall(name=name, args=json.loads(arguments), id=f"call_{i}", type="tool_call")
                for i, (name, arguments) in enumerate(calls)
            ],
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


def _tool_result(**_arguments: object) -> str:
    return "ok"


def langchain(cases: tuple[Case, ...]) -> list[Counted]:
    """Each case through ``create_agent``, the model wrapped by ``DeterministicFirstChatModel``."""
    tools = [
        StructuredTool.from_function(
            func=_tool_result,
            name=spec["function"]["name"],
            description=spec["function"].get("description") or spec["function"]["name"],
            args_schema=spec["function"]["parameters"],
        )
        for spec in TOOLS
    ]
    provider = simulated(cases)

    async def run_all() -> list[Counted]:
        counts: list[Counted] = []
        for case in cases:
            asker = Asker(provider, case)
            model = DeterministicFirstChatModel(SimulatedChatModel(asker=asker), demo_plugins)
            graph: Any = create_agent(model, tools, system_prompt=INSTRUCTIONS)  # pyright: ignore[reportUnknownVariableType]
            await graph.ainvoke({"messages": [{"role": "user", "content": case.text}]})
            counts.append(asker.counted)
        return counts

    return asyncio.run(run_all())


# agent-lab run --------------------------------------------------------------------------------


def lab_run(cases: tuple[Case, ...]) -> list[int]:
    """LLM calls per case of ``agent-lab run --policy deterministic-first``, in case order."""
    provider = simulated(cases)
    config = LabRunConfig(
        workload="demo",
        plugins="agent_lab.demo:plugins",
        policies=(POLICY,),
        provider="simulated",
        concurrency=8,
    )
    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "r.sqlite") as store:
        runner = LabRunner(
            store,
            Workload("demo", cases),
            demo_plugins,
            {POLICY: make_policy(POLICY, demo_plugins, provider)},
            config,
            simulated=True,
            progress=False,
        )
        run_id = runner.prepare(resume=False)
        asyncio.run(runner.run(run_id))
        calls = {trial.case_id: trial.llm_calls for trial in store.trials(run_id)}
    return [calls[case.id] for case in cases]


def row(
    name: str, cases: tuple[Case, ...], counts: list[Counted], lab: list[int]
) -> dict[str, Any]:
    n = len(counts)
    differs = [
        {"case": case.id, "tags": list(case.tags), "run": ran, "framework": counted.decision}
        for case, counted, ran in zip(cases, counts, lab, strict=True)
        if counted.decision != ran
    ]
    return {
        "framework": name,
        "requests": n,
        "answered_locally": sum(c.decision == 0 for c in counts),
        "decision_calls_per_request": sum(c.decision for c in counts) / n,
        "loop_calls_per_request": sum(c.loop for c in counts) / n,
        "agent_lab_run_calls_per_request": sum(lab) / n,
        "same_count_as_the_run": n - len(differs),
        "differs": differs,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The demo workload through framework loops.")
    parser.add_argument("--every", type=int, default=1, help="every K-th case only (1: all)")
    parser.add_argument("--limit", type=int, default=None, help="the first N of them only")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    options = parser.parse_args(argv)
    cases = load_workload("demo").cases[:: options.every][: options.limit]
    lab = lab_run(cases)
    rows = [
        row("openai-agents", cases, agents_sdk(cases), lab),
        row("langchain", cases, langchain(cases), lab),
    ]
    if options.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(
        "| framework | requests | answered locally | LLM calls / request, user turn | "
        "in the whole loop | agent-lab run deterministic-first | same count as the run |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(
            f"| {r['framework']} | {r['requests']} | {r['answered_locally']} | "
            f"{r['decision_calls_per_request']:.3f} | {r['loop_calls_per_request']:.3f} | "
            f"{r['agent_lab_run_calls_per_request']:.3f} | {r['same_count_as_the_run']} |"
        )
    for r in rows:
        kinds = Counter(tag for d in r["differs"] for tag in d["tags"][:1])
        print(f"{r['framework']}: differs from the run on {dict(kinds) or 'no case'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
