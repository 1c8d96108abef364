"""LLM calls per request: agent-lab's agents against the framework wrappers, on the demo workload.

Run on demand (no network: the model is the simulated one, with the oracle's truth):

    uv run --extra pydantic-ai python benchmarks/frameworks_demo.py [--json]

Every row answers the same 401 demo cases (``load_workload("demo")``, plugins
``agent_lab.demo:plugins``) with the same simulated model
(``SimulatedProvider``, ideal profile, the truth from the workload as in
``bench_runner.py``). A row per setup:

* ``agent-lab run, <policy>``: the lab's own agents, as ``agent-lab run
  --policy <policy>`` runs them; the model picks the call or fills the gaps,
  nothing phrases a result;
* ``<framework>, model alone``: the framework's own agent loop, the simulated
  model behind it: one request to choose the call, then one to phrase the
  tool's result;
* ``<framework> + deterministic-first``: the same loop with the wrapper;
  ``+ replies``: the demo's events also declare a reply, so a turn plain code
  completes ends with no request at all.

Columns: requests that chose the call (the user's turn) per case, requests in
the whole turn per case (phrasing included), the share of cases whose turn
plain code answered, and the share whose tool call (or its absence) matches
the truth. A framework with no phrasing step has the two request columns
equal. Other frameworks add a function that returns a ``Row``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import importlib.util
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent_lab.agents.outcome import Decision
from agent_lab.agents.plugins import PluginSet
from agent_lab.agents.port import Message, ProviderRequest
from agent_lab.application.events.models import EventDefinition, Status
from agent_lab.application.tools import openai_tool
from agent_lab.demo import plugins as demo_plugins
from agent_lab.lab.run.policies import make_policy
from agent_lab.lab.workload import Case, load_workload
from agent_lab.providers import Expected, SimulatedProvider
from agent_lab.strict_json import JSONObject, JSONValue, same_json


@dataclass(frozen=True, slots=True)
class Row:
    setup: str
    cases: int
    choosing_requests: int
    """Requests sent for the user's turn (choosing the call, or filling its gaps)."""
    turn_requests: int
    """Requests in the whole turn, the phrasing of the tool's result included."""
    local: int
    """Cases whose turn plain code answered with no request for choosing."""
    right: int
    """Cases whose call (tool and arguments), or its absence, matches the truth."""

    def as_json(self) -> dict[str, Any]:
        per = self.cases or 1
        return {
            "setup": self.setup,
            "cases": self.cases,
            "llm_calls_per_request": round(self.choosing_requests / per, 3),
            "llm_calls_per_turn": round(self.turn_requests / per, 3),
            "answered_locally": round(self.local / per, 3),
            "calls_right": round(self.right / per, 3),
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
    requests = local = correct = 0
    for case in cases:
        decision: Decision = await runner.run(case)
        requests += decision.llm_calls
        local += decision.local
        done = decision.status is Status.SUCCESS
        correct += right(case, decision.event if done else None, decision.arguments)
    return Row(f"agent-lab run, {policy}", len(cases), requests, requests, local, correct)


def with_replies(plugins: PluginSet) -> PluginSet:
    """The demo's events, each saying its handler's confirmation with no model."""

    def confirm(result: JSONValue) -> str:
        return f"Done: {json.dumps(result, ensure_ascii=False)}"

    definitions = tuple(dataclasses.replace(d, reply=confirm) for d in plugins.definitions)
    return dataclasses.replace(plugins, definitions=definitions)


async def pydantic_ai_row(cases: tuple[Case, ...], *, wrapped: bool, replies: bool = False) -> Row:
    """A Pydantic AI agent per case: the demo's events as its tools, the simulated model behind."""
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

    provider = simulated(cases)
    specs = tuple(cast("JSONObject", openai_tool(d)) for d in demo_plugins.definitions)
    plugins = with_replies(demo_plugins) if replies else demo_plugins
    tools = [_tool(Tool, d) for d in demo_plugins.definitions]
    totals = {"choosing": 0, "turn": 0, "local": 0, "right": 0}
    for case in cases:
        asked: list[str] = []

        async def answer(
            messages: list[ModelMessage],
            info: AgentInfo,
            case: Case = case,
            asked: list[str] = asked,
        ) -> ModelResponse:
            last = messages[-1]
            if isinstance(last, ModelRequest) and any(
                isinstance(p, ToolReturnPart) for p in last.parts
            ):
                asked.append("phrase")
                return ModelResponse(parts=[TextPart("Done.")])
            asked.append("choose")
            request = ProviderRequest(
                purpose="tool_choice",
                messages=(Message("user", case.text),),
                tools=specs,
                tool_choice="auto",
                # The simulated model sees what the lab shows it: the words, in its context.
                context={"case_id": case.id, "text": case.text},
            )
            reply = await provider.complete(request)
            calls = [ToolCallPart(call.name, call.arguments_raw) for call in reply.tool_calls]
            return ModelResponse(parts=calls or [TextPart(reply.text or "Could you say more?")])

        model: Any = FunctionModel(answer)
        if wrapped:
            model = DeterministicFirstModel(model, plugins, context=dict(case.context))
        agent = Agent(model, tools=tools)
        result = await agent.run(case.text)
        first = next(m for m in result.all_messages() if isinstance(m, ModelResponse))
        call = next((p for p in first.parts if isinstance(p, ToolCallPart)), None)
        totals["choosing"] += asked.count("choose")
        totals["turn"] += len(asked)
        totals["local"] += bool(first.provider_details)
        arguments = None if call is None else call.args_as_dict()
        totals["right"] += right(case, None if call is None else call.tool_name, arguments)
    name = "Pydantic AI + deterministic-first" if wrapped else "Pydantic AI, model alone"
    name += " + replies" if replies else ""
    return Row(
        name, len(cases), totals["choosing"], totals["turn"], totals["local"], totals["right"]
    )


def _tool(tool_class: Any, definition: EventDefinition) -> Any:
    handler: Callable[[Mapping[str, Any]], object] | None = definition.handler  # type: ignore[assignment]

    def run(**arguments: Any) -> object:
        try:
            return handler(arguments) if handler else {}
        except Exception as err:
            # The demo's handlers expect valid arguments; a model's invalid ones are an answer.
            return {"error": str(err)}

    schema = definition.parameters
    assert isinstance(schema, Mapping)
    return tool_class.from_schema(run, definition.name, definition.description, dict(schema))


def table(rows: list[Row]) -> str:
    lines = [
        "| setup | LLM calls per request | LLM calls per turn | answered locally | calls right |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        data = row.as_json()
        lines.append(
            f"| {data['setup']} | {data['llm_calls_per_request']:.3f} "
            f"| {data['llm_calls_per_turn']:.3f} | {data['answered_locally']:.1%} "
            f"| {data['calls_right']:.1%} |"
        )
    return "\n".join(lines)


async def measure(limit: int | None = None) -> list[Row]:
    cases = load_workload("demo").cases[:limit]
    rows = [
        await lab_row("deterministic-first", cases),
        await lab_row("llm-always", cases),
    ]
    if importlib.util.find_spec("pydantic_ai") is None:
        print(
            "Pydantic AI is not installed (uv run --extra pydantic-ai ...): its rows are left out"
        )
        return rows
    rows += [
        await pydantic_ai_row(cases, wrapped=False),
        await pydantic_ai_row(cases, wrapped=True),
        await pydantic_ai_row(cases, wrapped=True, replies=True),
    ]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object per row")
    parser.add_argument("--limit", type=int, help="the first N cases only (a quick check)")
    options = parser.parse_args()
    rows = asyncio.run(measure(options.limit))
    if options.json:
        print(json.dumps([row.as_json() for row in rows], indent=2))
    else:
        print(table(rows))


if __name__ == "__main__":
    main()
