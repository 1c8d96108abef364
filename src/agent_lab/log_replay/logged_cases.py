"""From a logged request to a workload case: the logged model's answer as the case's truth.

``agent-lab shadow`` scores the deterministic decision against these cases,
and ``agent-lab import logs`` writes them as a workload, so that every other
command runs on the user's own traffic. The truth is what the logged model
did, not what was right: a figure scored against it is *agreement*.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from agent_lab.agents.tool_specs import tool_name
from agent_lab.agents.turn import Turn
from agent_lab.kernel.models import Status
from agent_lab.log_replay.case import Case, Expectation, ExpectedCall
from agent_lab.log_replay.scoring import OMITTED
from agent_lab.strict_json import same_json

if TYPE_CHECKING:
    from agent_lab.agents.turn import Reading
    from agent_lab.logs.record import LoggedRequest
    from agent_lab.strict_json import JSONObject

__all__ = ["acceptable", "case_of", "offered_tools"]


def offered_tools(request: LoggedRequest) -> tuple[str, ...]:
    """The names of the tools the request offered, in its order."""
    return tuple(name for tool in request.tools if (name := tool_name(tool)) is not None)


def _schemas(request: LoggedRequest) -> dict[str, Mapping[str, Any]]:
    found: dict[str, Mapping[str, Any]] = {}
    for tool in request.tools:
        name = tool_name(tool)
        function = tool.get("function")
        if name is None or not isinstance(function, Mapping):
            continue
        parameters = cast("Mapping[str, Any]", function).get("parameters")
        found[name] = (
            cast("Mapping[str, Any]", parameters) if isinstance(parameters, Mapping) else {}
        )
    return found


def acceptable(schema: Mapping[str, Any], arguments: JSONObject) -> JSONObject | None:
    """Per argument, its acceptable values, when the schema defaults some: else ``None``.

    A model may leave out what the schema defaults, or state it; either way the
    function receives the default, so a defaulted property at its default is
    right stated or left out (``scoring.OMITTED``), as in the SGD importer.
    """
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return None
    defaults = {
        name: cast("Mapping[str, Any]", spec)["default"]
        for name, spec in cast("Mapping[str, Any]", properties).items()
        if isinstance(spec, Mapping) and "default" in spec
    }
    at_default = {
        name: [default, OMITTED]
        for name, default in defaults.items()
        if same_json(arguments.get(name, default), default)
    }
    if not at_default:
        return None
    return {**{name: [value] for name, value in arguments.items()}, **at_default}


def case_of(
    request: LoggedRequest, *, read: Reading = "last", matching: str = "bfcl"
) -> Case | None:
    """The case of a logged request, or ``None`` when its conversation ends with no user turn.

    A request that continues after a tool's result (a follow-up) is the model's
    to phrase: no deterministic decision replaces it, and it has no case.
    """
    offered = offered_tools(request)
    turn = Turn.from_messages(request.messages, candidates=offered, read=read)
    if turn is None:
        return None
    context: JSONObject = {"now": request.timestamp} if request.timestamp else {}
    schemas = _schemas(request)
    calls = [
        (call.name, call.arguments, acceptable(schemas.get(call.name, {}), call.arguments))
        for call in request.calls
    ]
    if not calls:
        # It answered in words: asking or declining agrees with it, acting does not.
        expected = Expectation(status=Status.MISSING_INFORMATION)
        event: str | None = None
    elif len(calls) == 1:
        event, arguments, alternatives = calls[0]
        expected = Expectation(
            status=Status.SUCCESS, arguments=arguments, alternatives=alternatives
        )
    else:
        event = calls[0][0]
        expected = Expectation(
            status=Status.SUCCESS,
            calls=tuple(ExpectedCall(*call) for call in calls),
        )
    return Case(
        id=request.where,
        event=event,
        text=turn.text,
        context=context,
        expected=expected,
        tags=("logged_call" if calls else "logged_words",),  # lab.workload.LOGGED_TAGS
        candidates=offered,
        matching=matching,
    )
