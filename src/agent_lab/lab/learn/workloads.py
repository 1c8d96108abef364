"""A workload as logs to learn from: each case the request an agent would have logged.

A workload's case holds the user's words and the call its truth names, as a
logged request holds the user's words and the call a model made; so a
workload learns rules as logs do. Each case becomes one request: its words
as the only user message, every event of the plugin set offered as a tool
(its schema as the registry holds it), the truth's call as the answer (none
when the truth is not a success: the words are the model's), and the case's
``now`` as the request's time. A conversation is its first messages, as
for logs: cases of the same words are one conversation, on one side of the
split.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, cast

from agent_lab.kernel.models import Status
from agent_lab.logs.record import LogFormat, LoggedRequest, LoggedToolCall
from agent_lab.strict_json import thaw_json

if TYPE_CHECKING:
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.lab.workload import Workload
    from agent_lab.log_replay.case import Case
    from agent_lab.strict_json import JSONObject

__all__ = ["requests_of_workload"]


def requests_of_workload(workload: Workload, plugins: PluginSet) -> list[LoggedRequest]:
    """The workload's cases as logged requests, offering the plugin set's events as tools.

    A case whose event is given (a structured event, no words to read) is left out.

    Raises:
        DefinitionError: A definition the registry refuses.
    """
    registry = plugins.registry()
    tools: tuple[JSONObject, ...] = tuple(
        {
            "type": "function",
            "function": {
                "name": definition.name,
                "description": definition.description,
                "parameters": cast("JSONObject", thaw_json(registry.schema(definition.name))),
            },
        }
        for definition in plugins.definitions
    )
    return [
        _request(case, workload.name, tools)
        for case in workload.cases
        if not case.event_given and case.text
    ]


def _request(case: Case, name: str, tools: tuple[JSONObject, ...]) -> LoggedRequest:
    expected = case.expected
    calls: tuple[LoggedToolCall, ...] = ()
    if (
        expected.status is Status.SUCCESS
        and case.event is not None
        and expected.arguments is not None
    ):
        arguments = dict(expected.arguments)
        calls = (LoggedToolCall(name=case.event, arguments=arguments, raw=json.dumps(arguments)),)
    now = case.context.get("now")
    offered = (
        tools
        if case.candidates is None
        else tuple(t for t in tools if _name(t) in (case.candidates or ()))
    )
    return LoggedRequest(
        where=f"{name}:{case.id}",
        format=LogFormat.CHAT,
        messages=({"role": "user", "content": case.text},),
        tools=offered,
        calls=calls,
        timestamp=now if isinstance(now, str) else None,
    )


def _name(tool: JSONObject) -> str:
    function = tool.get("function")
    return str(cast("JSONObject", function).get("name")) if isinstance(function, dict) else ""
