"""Workloads: JSONL cases with their ground truth, read strictly, with line-numbered errors (L1)."""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import io
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from agent_lab._input_files import MAX_WORKLOAD_BYTES, read_input_text
from agent_lab.answering.asked import well_formed
from agent_lab.errors import (
    DefinitionError,
    MissingInputError,
    SchemaInfrastructureError,
    StrictJSONError,
    WorkloadError,
)
from agent_lab.kernel.models import Status
from agent_lab.log_replay.case import Case, Expectation, ExpectedCall
from agent_lab.strict_json import canonical_dumps, loads

if TYPE_CHECKING:
    from collections.abc import Iterable

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.kernel.registry import EventRegistry
    from agent_lab.strict_json import JSONObject

__all__ = [
    "LOGGED_TAGS",
    "LOGGED_TRUTH",
    "Workload",
    "WorkloadError",
    "load_workload",
    "truth_is_logged",
]

BUILT_IN = {"demo": "agent_lab.demo"}
_STATUSES = {status.value for status in Status}
_MATCHING = {"exact", "bfcl"}  # the values of log_replay.scoring.Matching

LOGGED_TAGS = frozenset({"logged_call", "logged_words"})
"""The tags ``import logs`` gives a case: its truth is what a logged model did."""
LOGGED_TRUTH = (
    "the truth is what the logged model did, so a figure scored against it is agreement "
    "with the logged model, not accuracy"
)


def truth_is_logged(categories: Iterable[str]) -> bool:
    """Whether every case (by its first tag) is scored against a logged model's calls."""
    seen = set(categories)
    return bool(seen) and seen <= LOGGED_TAGS


@dataclass(frozen=True, slots=True)
class Workload:
    """Cases, and the lines that were skipped (with why)."""

    name: str
    cases: tuple[Case, ...]
    skipped: tuple[WorkloadError, ...] = ()

    def fingerprint(self) -> str:
        """sha256 over every case's content: equal workloads, equal fingerprints (``--resume``)."""
        digest = hashlib.sha256()
        for case in self.cases:
            data = dataclasses.asdict(case)
            data.pop("line")
            digest.update(canonical_dumps(_jsonable(data)).encode("utf-8") + b"\n")
        return digest.hexdigest()

    def check_events(self, plugins: PluginSet) -> list[WorkloadError]:
        """Cases naming an event the plugin set does not define."""
        known = {definition.name for definition in plugins.definitions}
        return [
            WorkloadError(self.name, case.line, f"case {case.id!r}: unknown event {name!r}")
            for case in self.cases
            for name in dict.fromkeys(
                ([case.event] if case.event is not None else [])
                + list(case.candidates or ())
                + [call.event for call in case.expected.calls or ()]
            )
            if name not in known
        ]

    def check_truth(self, plugins: PluginSet) -> list[WorkloadError]:
        """Cases whose expected arguments their own event's schema rejects.

        A truth the schema refuses can never be matched by a valid dispatch, so
        it would score every policy wrong on that case, silently. Checked for
        expected successes (every argument valid and present) and expected
        asks (what is given valid; the rest may be missing). Alternatives lists
        (BFCL's) are not single values, and are not checked.
        """
        registry = plugins.registry(check_on_register=False)
        problems: list[WorkloadError] = []
        for case in self.cases:
            for event, arguments, complete in _truths(case):
                found = _truth_problem(registry, event, arguments, complete=complete)
                if found is not None:
                    problems.append(
                        WorkloadError(
                            self.name,
                            case.line,
                            f"case {case.id!r}: the expected arguments fail the schema "
                            f"of event {event!r}: {found}",
                        )
                    )
        return problems

    def without(self, problems: Iterable[WorkloadError]) -> Workload:
        """This workload without the cases on the problems' lines, which join ``skipped``."""
        bad = list(problems)
        lines = {problem.line for problem in bad}
        kept = tuple(case for case in self.cases if case.line not in lines)
        return dataclasses.replace(self, cases=kept, skipped=(*self.skipped, *bad))


def _truths(case: Case) -> list[tuple[str, JSONObject, bool]]:
    expected = case.expected
    if case.event is None or expected.alternatives is not None:
        return []
    if expected.status is Status.SUCCESS:
        if expected.calls:
            return [(c.event, c.arguments, True) for c in expected.calls if c.alternatives is None]
        return [] if expected.arguments is None else [(case.event, expected.arguments, True)]
    if expected.status is Status.MISSING_INFORMATION and expected.arguments:
        return [(case.event, expected.arguments, False)]
    return []


def _truth_problem(
    registry: EventRegistry, event: str, arguments: JSONObject, *, complete: bool
) -> str | None:
    entry = registry.lookup(event)
    validator = None if entry is None else entry.validator()
    if validator is None or isinstance(validator, DefinitionError):
        return None  # an unknown event is check_events'; a broken one is the plugin's
    try:
        check = validator.check(arguments, source="truth", with_model=complete)
    except SchemaInfrastructureError:
        return None
    if check.invalid:
        issue = check.invalid[0]
        return f"{issue.pointer or '/'}: {issue.message}"
    if complete and check.missing:
        return f"{check.missing[0]}: required, and missing"
    return None


def _jsonable(value: object) -> object:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in cast("dict[object, object]", value).items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in cast("list[object]", value)]
    if isinstance(value, str):
        return str(value)  # a StrEnum (the expected Status) as its plain value
    return value


def _calls(
    value: object, status: object, source: str, line: int
) -> tuple[ExpectedCall, ...] | None:
    if value is None:
        return None
    if status != Status.SUCCESS or not isinstance(value, list) or not value:
        raise WorkloadError(source, line, "expected calls must be a non-empty list, on success")
    calls: list[ExpectedCall] = []
    for item in cast("list[Any]", value):
        if not isinstance(item, dict):
            raise WorkloadError(source, line, "each expected call must be an object")
        call = cast("dict[str, Any]", item)
        event, arguments, alternatives = (
            call.get("event"),
            call.get("arguments"),
            call.get("alternatives"),
        )
        if not isinstance(event, str) or not isinstance(arguments, dict):
            raise WorkloadError(source, line, "each expected call needs an event and arguments")
        if alternatives is not None and not isinstance(alternatives, dict):
            raise WorkloadError(source, line, "a call's alternatives must be an object")
        calls.append(
            ExpectedCall(
                event,
                cast("JSONObject", arguments),
                None if alternatives is None else cast("JSONObject", alternatives),
            )
        )
    return tuple(calls)


_CASE_KEYS = (
    "id", "text", "event", "expected", "payload", "context", "tags", "event_given",
    "candidates", "matching", "messages",
)  # fmt: skip
_TRUTH_KEYS = ("status", "arguments", "alternatives", "calls")


def _misspelt(row: dict[str, Any], name: str, known: tuple[str, ...]) -> str:
    """A hint when a key the reader does not know is close to the one it missed."""
    unknown = [key for key in row if isinstance(key, str) and key not in known]
    # "ID" shares no character with "id" as difflib compares: case first.
    same = [key for key in unknown if key.casefold() == name]
    close = same or difflib.get_close_matches(name, unknown, n=1, cutoff=0.6)
    return f" (the line has {close[0]!r}: is it {name!r} misspelt?)" if close else ""


def _case(data: object, source: str, line: int) -> Case:
    if not isinstance(data, dict):
        raise WorkloadError(source, line, "a case must be a JSON object")
    row: dict[str, Any] = data  # pyright: ignore[reportUnknownVariableType]
    for name, kind in (("id", str), ("text", str)):
        if not isinstance(row.get(name), kind):
            hint = _misspelt(row, name, _CASE_KEYS) if name not in row else ""
            raise WorkloadError(source, line, f"{name!r} must be a string{hint}")
    event = row.get("event")
    if event is not None and not isinstance(event, str):
        raise WorkloadError(source, line, "'event' must be a string or null")
    expected = row.get("expected")
    if not isinstance(expected, dict):
        hint = _misspelt(row, "expected", _CASE_KEYS) if "expected" not in row else ""
        raise WorkloadError(source, line, f"'expected' must be an object with a status{hint}")
    truth: dict[str, Any] = expected  # pyright: ignore[reportUnknownVariableType]
    status = truth.get("status")
    if status not in _STATUSES:
        hint = _misspelt(truth, "status", _TRUTH_KEYS) if "status" not in truth else ""
        raise WorkloadError(
            source, line, f"expected status {status!r} is not one of {sorted(_STATUSES)}{hint}"
        )
    arguments = truth.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        raise WorkloadError(source, line, "expected arguments must be an object or null")
    if status == Status.SUCCESS and arguments is None:
        raise WorkloadError(source, line, "a case expected to succeed needs expected arguments")
    for name in ("payload", "context"):
        if not isinstance(row.get(name, {}), dict):
            raise WorkloadError(source, line, f"{name!r} must be an object")
    alternatives = truth.get("alternatives")
    if alternatives is not None and (
        not isinstance(alternatives, dict)
        or not all(isinstance(v, list) for v in alternatives.values())  # pyright: ignore[reportUnknownVariableType]
    ):
        raise WorkloadError(source, line, "expected alternatives must map names to lists")
    calls = _calls(truth.get("calls"), status, source, line)
    event_given = row.get("event_given", False)
    if type(event_given) is not bool:
        # bool("false") is True: a string here would silently mean the opposite.
        raise WorkloadError(source, line, "'event_given' must be true or false")
    candidates = row.get("candidates")
    if candidates is not None and (
        not isinstance(candidates, list) or not all(isinstance(c, str) for c in candidates)  # pyright: ignore[reportUnknownVariableType]
    ):
        raise WorkloadError(source, line, "'candidates' must be a list of event names")
    matching = row.get("matching", "exact")
    if matching not in _MATCHING:
        raise WorkloadError(source, line, f"'matching' must be one of {sorted(_MATCHING)}")
    tags = row.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):  # pyright: ignore[reportUnknownVariableType]
        raise WorkloadError(source, line, "'tags' must be a list of strings")
    messages = _messages(row.get("messages", []), row["text"], source, line)
    return Case(
        id=row["id"],
        event=event,
        text=row["text"],
        payload=row.get("payload", {}),
        context=row.get("context", {}),
        expected=Expectation(
            status=Status(status),
            arguments=arguments,  # pyright: ignore[reportUnknownArgumentType]
            alternatives=alternatives,  # pyright: ignore[reportUnknownArgumentType]
            calls=calls,
        ),
        tags=tuple(tags),  # pyright: ignore[reportUnknownArgumentType]
        event_given=event_given,
        candidates=None if candidates is None else tuple(candidates),  # pyright: ignore[reportUnknownArgumentType]
        matching=matching,
        messages=messages,
        line=line,
    )


_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})


def _messages(value: object, text: str, source: str, line: int) -> tuple[JSONObject, ...]:
    """A case's conversation: Chat Completions messages, well formed, ending with ``text``."""
    if not isinstance(value, list):
        raise WorkloadError(source, line, "'messages' must be a list of chat messages")
    items = cast("list[object]", value)
    if not items:
        return ()
    for index, message in enumerate(items):
        if (
            not isinstance(message, dict)
            or cast("dict[str, object]", message).get("role") not in _ROLES
        ):
            raise WorkloadError(
                source,
                line,
                f"message {index} must be an object whose role is one of {sorted(_ROLES)}",
            )
    messages = cast("list[JSONObject]", items)
    if not well_formed(messages):
        raise WorkloadError(
            source, line, "'messages' must answer every tool call, and every result a call"
        )
    last = messages[-1]
    if last.get("role") != "user" or last.get("content") != text:
        raise WorkloadError(
            source, line, "'messages' must end with the user's message, whose content is 'text'"
        )
    return tuple(messages)


def read_cases(
    lines: Iterable[str], source: str, *, on_error: Literal["fail", "skip"] = "fail"
) -> Workload:
    """Read JSONL lines into cases.

    Raises:
        WorkloadError: For the first bad line, unless ``on_error="skip"``
            (then bad lines are listed in ``Workload.skipped``, never lost silently).
    """
    cases: list[Case] = []
    skipped: list[WorkloadError] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            try:
                data = loads(line)
            except StrictJSONError as err:
                raise WorkloadError(source, number, f"not strict JSON: {err}") from err
            case = _case(data, source, number)
            if case.id in seen:
                first = seen[case.id]
                raise WorkloadError(  # noqa: TRY301 - every bad line is handled just below
                    source, number, f"duplicate id {case.id!r} (first on line {first})"
                )
            seen[case.id] = number
            cases.append(case)
        except WorkloadError as err:
            if on_error == "fail":
                raise
            skipped.append(err)
    return Workload(name=source, cases=tuple(cases), skipped=tuple(skipped))


def load_workload(reference: str | Path, *, on_error: Literal["fail", "skip"] = "fail") -> Workload:
    """Load a JSONL workload file, or a built-in one by name (``demo``).

    Raises:
        WorkloadError: A bad line (unless skipped).
        InputFileError: Not a regular file, over ``MAX_WORKLOAD_BYTES``, or not UTF-8.
        MissingInputError: No such file or built-in workload (a ``FileNotFoundError``).
    """
    if isinstance(reference, str) and reference in BUILT_IN:
        text = files(BUILT_IN[reference]).joinpath("workload.jsonl").read_text(encoding="utf-8")
        return read_cases(text.splitlines(), reference, on_error=on_error)
    path = Path(reference)
    if not path.exists():
        raise MissingInputError(
            f"no workload file {path} (built-in workloads: {', '.join(BUILT_IN)})"
        )
    text = read_input_text(path, what="workload", max_bytes=MAX_WORKLOAD_BYTES)
    # Lines as a text file gives them (universal newlines), not str.splitlines(),
    # which would also split at a U+2028 inside a JSON string.
    return read_cases(io.StringIO(text, newline=None), str(path), on_error=on_error)
