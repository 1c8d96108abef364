"""``agent-lab import logs``: an agent's logs as a workload and a plugin folder.

Each logged request with a user turn becomes a case (``log_replay.logged_cases.case_of``) whose
truth is what the logged model did, and each tool offered becomes an event
of ``events.json`` with its JSON Schema and the schema-driven resolver: every
command that takes a workload (``run`` against a real endpoint, ``precision``,
``routing``, ``sweep``, ``gate``) then runs on the user's own traffic. Cases
are written as they are read: memory holds the tools, not the log. With
``--engine ray`` the cases are made on Ray, block by block, and written in
the order the lines were read: the files are the same.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from agent_lab.agents.tool_specs import tool_name
from agent_lab.lab.importers.common import write_events
from agent_lab.lab.shadow.ray_blocks import BlockWorker, map_blocks
from agent_lab.lab.shadow.run import logged_requests
from agent_lab.lab.workload import LOGGED_TRUTH
from agent_lab.log_replay.logged_cases import case_of
from agent_lab.logs.reader import read_logs
from agent_lab.logs.record import SkippedLine
from agent_lab.strict_json import canonical_dumps

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
    from pathlib import Path

    from agent_lab.lab.shadow.ray_blocks import RayEngine
    from agent_lab.lab.shadow.run import ShadowSettings
    from agent_lab.log_replay.case import Case
    from agent_lab.logs.reader import LogLine
    from agent_lab.logs.record import LoggedRequest
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["WORKLOAD", "LogImport", "import_logs"]

WORKLOAD = "logs"
"""The workload's name: ``workload-logs.jsonl``."""


@dataclass(slots=True)
class LogImport:
    """What an import read and wrote."""

    requests: int = 0
    cases: int = 0
    follow_ups: int = 0
    """Requests that continue after a tool's result: no case (the model's to phrase)."""
    events: int = 0
    skipped: Counter[str] = field(default_factory=Counter[str])
    conflicting_tools: list[str] = field(default_factory=list[str])
    """Tools offered under one name with different schemas: the first one seen is kept."""

    def as_json(self) -> JSONObject:
        """``import-report.json``."""
        return {
            "source": "logs",
            "requests": self.requests,
            "cases": self.cases,
            "follow_ups": self.follow_ups,
            "events": self.events,
            "skipped": dict(sorted(self.skipped.items())),
            # Sorted: the order they were found in depends on how the log was split.
            "conflicting_tools": cast("list[JSONValue]", sorted(self.conflicting_tools)),
            "truth": LOGGED_TRUTH,
        }


def case_json(case: Case) -> dict[str, Any]:
    """A case as a workload line (``lab.workload.read_cases`` reads it back)."""
    expected = case.expected
    truth: dict[str, Any] = {"status": str(expected.status)}
    if expected.arguments is not None:
        truth["arguments"] = expected.arguments
    if expected.alternatives is not None:
        truth["alternatives"] = expected.alternatives
    if expected.calls is not None:
        truth["calls"] = [
            {"event": c.event, "arguments": c.arguments}
            | ({} if c.alternatives is None else {"alternatives": c.alternatives})
            for c in expected.calls
        ]
    return {
        "id": case.id,
        "text": case.text,
        "event": case.event,
        "candidates": list(case.candidates or ()),
        "context": case.context,
        "expected": truth,
        "tags": list(case.tags),
        "matching": case.matching,
    }


def _keep_tools(
    offered: Iterable[Mapping[str, Any]], tools: dict[str, Mapping[str, Any]], report: LogImport
) -> None:
    for tool in offered:
        name = tool_name(tool)
        if name is None:
            continue
        kept = tools.get(name)
        if kept is None:
            tools[name] = tool
        elif (
            canonical_dumps(kept) != canonical_dumps(tool) and name not in report.conflicting_tools
        ):
            report.conflicting_tools.append(name)


def _event(tool: Mapping[str, Any]) -> JSONObject:
    function: Mapping[str, Any] = tool["function"]
    parameters = function.get("parameters")
    return {
        "name": function["name"],
        "description": function.get("description") or "",
        "parameters": parameters if isinstance(parameters, dict) else {"type": "object"},
    }


def import_logs(
    paths: Sequence[Path | str],
    settings: ShadowSettings,
    out: Path,
    *,
    engine: RayEngine | None = None,
) -> LogImport:
    """Write ``events.json``, ``workload-logs.jsonl`` and ``import-report.json`` into ``out``.

    With ``engine``, the logs are read and their cases made on Ray
    (``ray_blocks``): the files written are the same as in one process.

    Raises:
        LogError: A line that cannot be used, unless ``settings.on_error`` is ``"skip"``.
    """
    out.mkdir(parents=True, exist_ok=True)
    report = LogImport()
    tools: dict[str, Mapping[str, Any]] = {}
    workload = out / f"workload-{WORKLOAD}.jsonl"
    with workload.open("w", encoding="utf-8") as cases:
        if engine is None:
            items = read_logs(
                paths, format=settings.format, on_error=settings.on_error, window=settings.window
            )
            _take(items, settings, tools, report, cases.write)
        else:
            for part in _parts([str(path) for path in paths], settings, engine):
                cases.writelines(part.cases)
                _merge(report, tools, part)
    report.events = len(tools)
    write_events(
        out,
        {"source": "logs", "events": [_event(tools[name]) for name in sorted(tools)]},
        indent=1,
    )
    (out / "import-report.json").write_text(json.dumps(report.as_json(), indent=1), "utf-8")
    return report


def _take(
    items: Iterable[LoggedRequest | SkippedLine],
    settings: ShadowSettings,
    tools: dict[str, Mapping[str, Any]],
    report: LogImport,
    write: Callable[[str], object],
) -> None:
    """Count ``items``, keep their tools, and write a case line for each one with a user turn."""
    for item in items:
        if isinstance(item, SkippedLine):
            report.skipped[str(item.reason)] += 1
            continue
        report.requests += 1
        case = case_of(item, read=settings.read, matching="exact")
        if case is None:
            report.follow_ups += 1
            continue
        _keep_tools(item.tools, tools, report)
        write(json.dumps(case_json(case), sort_keys=True) + "\n")
        report.cases += 1


@dataclass(slots=True)
class _Part:
    """What one block of the logs gave: its cases' lines, its tools, its counts."""

    cases: list[str]
    tools: dict[str, Mapping[str, Any]]
    report: LogImport


class _ImportBlock(BlockWorker):
    def __init__(self, settings: ShadowSettings) -> None:
        self._settings = settings

    def part(self, lines: Iterator[LogLine | SkippedLine]) -> _Part:
        made = _Part(cases=[], tools={}, report=LogImport())
        items = logged_requests(lines, self._settings)
        _take(items, self._settings, made.tools, made.report, made.cases.append)
        return made


def _parts(sources: list[str], settings: ShadowSettings, engine: RayEngine) -> Iterator[_Part]:
    for part in map_blocks(
        sources,
        format=settings.format,
        engine=engine,
        worker=_ImportBlock,
        worker_args=(settings,),
    ):
        yield cast("_Part", part)


def _merge(report: LogImport, tools: dict[str, Mapping[str, Any]], part: _Part) -> None:
    """Add a block's part: a tool conflicts if any two of its offers differ, wherever they are."""
    report.requests += part.report.requests
    report.cases += part.report.cases
    report.follow_ups += part.report.follow_ups
    report.skipped.update(part.report.skipped)
    for name in part.report.conflicting_tools:
        if name not in report.conflicting_tools:
            report.conflicting_tools.append(name)
    _keep_tools(list(part.tools.values()), tools, report)
