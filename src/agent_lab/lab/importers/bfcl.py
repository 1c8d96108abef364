"""Berkeley Function Calling Leaderboard (BFCL) files into events, workloads and a report (L4).

Mapping rules (also written into the output's ``import-report.json``):

* Every ``BFCL_*.json`` file of the folder is one category (JSON Lines
  despite the suffix); its answers are the same name under
  ``possible_answer/``. A category without answers whose name says
  ``irrelevance`` expects no call; any other is skipped as unanswerable.
* Each function offered becomes an event. Its parameters are turned into
  valid Draft 2020-12 JSON Schema: the types ``dict`` -> ``object``,
  ``float``/``double`` -> ``number``, ``tuple``/``Array``/``ArrayList`` ->
  ``array``, ``long`` -> ``integer``, ``String``/``char`` -> ``string``,
  ``Boolean`` -> ``boolean``, ``HashMap`` -> ``object``, ``any`` and ``""``
  -> no type; the ``optional`` keyword is removed (where a property is both
  ``optional`` and ``required``, ``required`` wins); ``required`` names that
  are not properties are dropped. Every conversion is counted. Names are
  made tool-safe (``math.factorial`` -> ``math_factorial``); two different
  functions with one name get ``__2``, ``__3``.
* Each question becomes a case offering its functions as ``candidates``,
  never naming the one it wants (``event_given`` is false even when one
  function is offered: whether to call it at all is the agent's to decide,
  as it is on the irrelevance questions, which look the same). Its truth
  lists the acceptable values per argument (``""``: may be left out) as
  ``expected.alternatives``; ``expected.arguments`` holds the first of each.
  A question expecting several calls (the parallel categories) becomes one
  case wanting every call, in any order, scored call by call
  (``expected.calls``). Truth that its own schema rejects is skipped and
  listed.
* Every field read has its type checked: a function of the wrong shape is a
  skipped function, a question of the wrong shape a skipped case, each with
  the JSON pointer of the fault; a line nested deeper than a registry takes is
  a skipped line; a question whose id its category already holds is skipped.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from agent_lab._input_files import MAX_BENCHMARK_FILE_BYTES
from agent_lab.errors import DefinitionError, SchemaInfrastructureError, StrictJSONError
from agent_lab.kernel.models import EventDefinition
from agent_lab.kernel.registry import MAX_SCHEMA_DEPTH, EventRegistry
from agent_lab.lab.importers._shape import (
    ShapeError,
    array,
    each,
    need,
    obj,
    optional,
    string,
)
from agent_lab.lab.importers.bfcl_schema import convert_schema
from agent_lab.lab.importers.common import (
    DatasetImportError,
    LeftOutLine,
    SkippedFile,
    SkippedItem,
    read_text,
    reason_counts,
    write_events,
    write_readme,
    write_report,
    write_workload,
)
from agent_lab.strict_json import ensure_json_data, loads

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONValue

__all__ = ["ATTRIBUTION", "BFCLCounts", "BFCLReport", "convert_schema", "import_bfcl", "tool_name"]

ATTRIBUTION = (
    "Converted from the Berkeley Function Calling Leaderboard (BFCL, the Gorilla project, "
    "UC Berkeley), Apache-2.0."
)


_MAX_DEPTH = MAX_SCHEMA_DEPTH + 8
"""A line nests its functions' schemas a few levels down: as deep as a registry takes, and no
deeper (deeper is a skipped line, never a RecursionError in the schema conversion)."""
_NO_PARAMETERS: dict[str, JSONValue] = {"type": "dict"}


@dataclass(frozen=True, slots=True, kw_only=True)
class BFCLCounts:
    """How much was read, written and skipped."""

    files: int
    events: int
    cases: int
    skipped_cases: int
    skipped_case_reasons: dict[str, int]
    skipped_functions: int
    skipped_lines: int
    skipped_files: int


@dataclass(frozen=True, slots=True, kw_only=True)
class BFCLReport:
    """What ``import_bfcl`` converted and skipped, as ``import-report.json`` holds it."""

    source: str = "bfcl"
    folder: str
    attribution: str = ATTRIBUTION
    rules: str
    skipped_files: tuple[SkippedFile, ...]
    skipped_lines: tuple[LeftOutLine, ...]
    skipped_cases: tuple[SkippedItem, ...]
    skipped_functions: tuple[SkippedItem, ...]
    conversions: dict[str, int]
    """How often each schema conversion was made."""
    categories: dict[str, int]
    """Cases written per category (0: every question skipped, no workload file)."""
    counts: BFCLCounts

    def summary(self) -> str:
        """One line: what was imported, per category, and how much was skipped."""
        c = self.counts
        per = ", ".join(f"{name} {count}" for name, count in self.categories.items())
        return (
            f"imported {c.events} events and {c.cases} cases ({per}); skipped "
            f"{c.skipped_cases} cases, {c.skipped_lines} lines, {c.skipped_files} files, "
            f"{c.skipped_functions} functions"
        )

    @property
    def first_workload(self) -> str:
        """A simple category when one was written (one function offered per question)."""
        written = [name for name, count in self.categories.items() if count]
        preferred = [name for name in written if "simple" in name] or written or ["simple"]
        return f"workload-{preferred[0]}.jsonl"


@dataclass(slots=True)
class _Skipped:
    """What the import leaves out, gathered while it runs."""

    files: list[SkippedFile] = field(default_factory=list[SkippedFile])
    lines: list[LeftOutLine] = field(default_factory=list[LeftOutLine])
    cases: list[SkippedItem] = field(default_factory=list[SkippedItem])
    functions: list[SkippedItem] = field(default_factory=list[SkippedItem])


def tool_name(name: str) -> str:
    """A name tool-calling APIs accept: letters, digits, ``_`` and ``-``, at most 64."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "function"


def _first(value: Any) -> Any:
    """The first acceptable value, at every depth (``""`` entries mean "left out")."""
    if isinstance(value, dict):
        reduced: dict[str, Any] = {}
        for key, options in cast("dict[str, Any]", value).items():
            if isinstance(options, list) and options:
                choices = [o for o in cast("list[Any]", options) if o != ""]
                if choices:
                    reduced[key] = _first(choices[0])
            else:
                reduced[key] = _first(options)
        return reduced
    if isinstance(value, list):
        return [_first(item) for item in cast("list[Any]", value)]
    return value


def _lines(path: Path, skipped: _Skipped, name: str) -> list[dict[str, Any]]:
    """The rows of a JSON Lines file; ``name`` is how the report names it."""
    rows: list[dict[str, Any]] = []
    text = read_text(path, skipped.files, name=name)
    # Lines as a text file has them: str.splitlines() would also cut at a U+2028 in a string.
    for number, line in enumerate(io.StringIO(text or "", newline=None), 1):
        if not line.strip():
            continue
        try:
            # Bounded: the functions' schemas are walked recursively further on.
            row = loads(line, max_bytes=MAX_BENCHMARK_FILE_BYTES, max_depth=_MAX_DEPTH)
        except StrictJSONError as err:
            skipped.lines.append(LeftOutLine(file=name, line=number, reason=str(err)))
            continue
        if isinstance(row, dict) and isinstance(row.get("id"), str):
            rows.append(cast("dict[str, Any]", row))
        else:
            reason = "not an object with an id"
            skipped.lines.append(LeftOutLine(file=name, line=number, reason=reason))
    return rows


class _Events:
    """Unique, registered, tool-safe events; the same function offered twice is one event."""

    def __init__(self, notes: Counter[str]) -> None:
        self.notes = notes
        self.registry = EventRegistry()
        self.written: list[dict[str, Any]] = []
        self._by_content: dict[str, str] = {}

    def add(self, function: object) -> tuple[str, str]:
        """The function's name and its event's; raises ``ShapeError`` or ``DefinitionError``."""
        fields = obj(function)
        original = need(fields, "name", string)
        description = optional(fields, "description", string, "")
        given = optional(fields, "parameters", obj, _NO_PARAMETERS) or _NO_PARAMETERS
        parameters = convert_schema(dict(given), self.notes)
        parameters.setdefault("type", "object")
        content = json.dumps([original, description, parameters], sort_keys=True)
        known = self._by_content.get(content)
        if known is not None:
            return original, known
        base = tool_name(original)
        name, suffix = base, 1
        while name in self.registry:
            suffix += 1
            name = f"{base[:60]}__{suffix}"
        self.registry.register(
            EventDefinition(name, description=description, parameters=parameters)
        )
        self._by_content[content] = name
        self.written.append(
            {
                "name": name,
                "original_name": original,
                "description": description,
                "parameters": parameters,
            }
        )
        return original, name

    def accepts(self, name: str, arguments: dict[str, Any]) -> bool:
        """Whether the event's schema takes these arguments as they are: nothing invalid or missing.

        (It once dispatched an event with no resolver, so the arguments never reached the
        schema and every truth passed.)
        """
        entry = self.registry.lookup(name)
        validator = entry.validator() if entry is not None else None
        if validator is None or isinstance(validator, DefinitionError):
            return False
        try:
            check = validator.check(ensure_json_data(arguments))  # type: ignore[arg-type]
        except (StrictJSONError, SchemaInfrastructureError):
            return False
        return not check.invalid and not check.missing


def import_bfcl(folder: str | Path, out: str | Path) -> BFCLReport:
    """Convert a BFCL folder; write ``events.json``, one workload per category and the report.

    Raises:
        DatasetImportError: No ``BFCL_*.json`` file in the folder.
    """
    source, target = Path(folder), Path(out)
    files = sorted(source.glob("BFCL_*.json"))
    if not files:
        raise DatasetImportError(f"{source}: no BFCL_*.json file, so nothing can be converted")
    notes: Counter[str] = Counter()
    skipped = _Skipped()
    events = _Events(notes)
    workloads: dict[str, list[dict[str, Any]]] = {}
    written: set[tuple[str, str]] = set()
    for path in files:
        category = re.sub(r"^BFCL_v\d+_", "", path.stem)
        answers_path = source / "possible_answer" / path.name
        answers: dict[str, Any] | None = None
        if answers_path.exists():
            rows = _lines(answers_path, skipped, f"possible_answer/{path.name}")
            answers = {row["id"]: row.get("ground_truth") for row in rows}
        elif "irrelevance" not in category:
            reason = "no possible_answer file and not an irrelevance set"
            skipped.files.append(SkippedFile(file=path.name, reason=reason))
            continue
        cases = workloads.setdefault(category, [])
        for row in _lines(path, skipped, path.name):
            if (category, row["id"]) in written:
                # Two files of one category, or a line repeated: one workload cannot hold both.
                skipped.cases.append(SkippedItem(case=row["id"], reason="duplicate case id"))
                continue
            case = _case(row, answers, events, skipped, category)
            if case is not None:
                written.add((category, row["id"]))
                cases.append(case)
    target.mkdir(parents=True, exist_ok=True)
    write_events(target, {"source": "bfcl", "attribution": ATTRIBUTION, "events": events.written})
    for category, cases in workloads.items():
        if cases:  # every question skipped (parallel calls): no empty workload
            write_workload(target, category, cases)
    write_readme(target, "BFCL", ATTRIBUTION, "every conversion and every skipped item")
    categories = {category: len(cases) for category, cases in workloads.items()}
    report = BFCLReport(
        folder=source.name,
        rules=(__doc__ or "").split("Mapping rules")[1].strip(),
        skipped_files=tuple(skipped.files),
        skipped_lines=tuple(skipped.lines),
        skipped_cases=tuple(skipped.cases),
        skipped_functions=tuple(skipped.functions),
        conversions=dict(sorted(notes.items())),
        categories=categories,
        counts=BFCLCounts(
            files=len(files),
            events=len(events.written),
            cases=sum(categories.values()),
            skipped_cases=len(skipped.cases),
            skipped_case_reasons=reason_counts(skipped.cases),
            skipped_functions=len(skipped.functions),
            skipped_lines=len(skipped.lines),
            skipped_files=len(skipped.files),
        ),
    )
    write_report(target, report)
    return report


def _call(
    call: object, names: dict[str, str], events: _Events
) -> tuple[str, dict[str, Any], dict[str, Any]] | str:
    """One ``{function: {argument: [options]}}`` truth: (event, first values, all), or why not."""
    if not isinstance(call, dict) or len(cast("dict[str, Any]", call)) != 1:
        return "ground truth is not one {function: arguments} object"
    ((function_name, alternatives),) = cast("dict[str, Any]", call).items()
    event = names.get(function_name)
    if event is None:
        return f"answer names a function not offered: {function_name}"
    if not isinstance(alternatives, dict):
        return "answer arguments are not an object"
    options = cast("dict[str, Any]", alternatives)
    if not all(isinstance(v, list) for v in options.values()):
        return "answer arguments are not lists of acceptable values"
    arguments = cast("dict[str, Any]", _first(options))
    if not events.accepts(event, arguments):
        return f"ground truth its own schema rejects: {json.dumps(arguments)[:200]}"
    return event, arguments, options


def _message(value: object) -> tuple[str, str]:
    fields = obj(value)
    return need(fields, "role", string), optional(fields, "content", string, "")


def _user_text(row: dict[str, Any]) -> str:
    """The question's user messages, one per line (``question``: a list of turns of messages)."""
    turns = optional(row, "question", lambda v: each(v, lambda turn: each(turn, _message)), ())
    return "\n".join(content for turn in turns for role, content in turn if role == "user")


def _case(
    row: dict[str, Any],
    answers: dict[str, Any] | None,
    events: _Events,
    skipped: _Skipped,
    category: str,
) -> dict[str, Any] | None:
    case_id: str = row["id"]

    def skip(reason: str) -> None:
        skipped.cases.append(SkippedItem(case=case_id, reason=reason))

    names: dict[str, str] = {}
    try:
        functions = optional(row, "function", array, [])
        text = _user_text(row)
    except ShapeError as err:
        skip(f"ShapeError: {err}")
        return None
    for index, function in enumerate(functions):
        try:
            original, event = events.add(function)
        except (ShapeError, DefinitionError) as err:
            where = err.under("function", index) if isinstance(err, ShapeError) else err
            reason = f"{type(err).__name__}: {where}"
            skipped.functions.append(SkippedItem(case=case_id, reason=reason))
        else:
            names[original] = event
    if not names:
        skip("no usable function")
        return None
    candidates = sorted(set(names.values()))
    # BFCL's own checker is looser than exact JSON: scored by its rules, and exactly beside.
    common: dict[str, Any] = {
        "id": case_id,
        "text": text,
        "tags": [category],
        "payload": {},
        "matching": "bfcl",
    }
    if answers is None:
        return {**common, "event": None, "candidates": candidates,
                "expected": {"status": "unknown_event"}}  # fmt: skip
    truth = answers.get(case_id)
    if not isinstance(truth, list) or not truth:
        skip("no ground truth for this question")
        return None
    calls: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    for call in cast("list[Any]", truth):
        read = _call(call, names, events)
        if isinstance(read, str):
            skip(read)
            return None
        calls.append(read)
    event, arguments, alternatives = calls[0]
    if len(calls) > 1:
        # A parallel question: every call is wanted, in any order, scored call by call.
        return {
            **common,
            "event": event,
            "candidates": candidates,
            "expected": {
                "status": "success",
                "arguments": arguments,
                "calls": [{"event": e, "arguments": a, "alternatives": alt} for e, a, alt in calls],
            },
        }
    return {
        **common,
        "event": event,
        "candidates": candidates,
        "expected": {"status": "success", "arguments": arguments, "alternatives": alternatives},
    }
