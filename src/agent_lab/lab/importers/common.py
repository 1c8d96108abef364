"""What every importer shares: skipped-item records, the report protocol, the files written."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol

from agent_lab._input_files import MAX_BENCHMARK_FILE_BYTES, read_input_text
from agent_lab.errors import DatasetImportError, InputFileError, StrictJSONError

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path

    from _typeshed import DataclassInstance

    from agent_lab.strict_json import JSONValue

__all__ = [
    "DatasetImportError",
    "ImportReport",
    "LeftOutLine",
    "SkippedEntry",
    "SkippedFile",
    "SkippedItem",
    "parse_json",
    "read_text",
    "reason_counts",
    "write_events",
    "write_readme",
    "write_report",
    "write_workload",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class SkippedFile:
    """A file of the benchmark left out, and why."""

    file: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LeftOutLine:
    """A line of a JSON Lines file left out, and why."""

    file: str
    line: int
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SkippedEntry:
    """An entry of a JSON file left out (a dialogue of a list), by where its fault is, and why."""

    file: str
    pointer: str
    """JSON pointer into the file of the value at fault, e.g. ``/12/turns/3/speaker``."""
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SkippedItem:
    """A case, a call or a function left out, by the case it belongs to, and why."""

    case: str
    reason: str


class ImportReport(Protocol):
    """What an importer converted and skipped; written to ``import-report.json``."""

    def summary(self) -> str:
        """One line: what was imported, and how much was skipped."""
        ...

    @property
    def first_workload(self) -> str:
        """The file name of the workload to try first."""
        ...


def reason_counts(skipped: Iterable[SkippedItem]) -> dict[str, int]:
    """How many items were skipped per kind of reason (the text before its first colon)."""
    return dict(Counter(item.reason.split(":")[0] for item in skipped))


def read_text(path: Path, skipped: list[SkippedFile], *, name: str | None = None) -> str | None:
    """The file's text, or ``None`` with the reason added to ``skipped`` under ``name``.

    Through the one reader of user-named files: a FIFO, a device or a file over
    ``MAX_BENCHMARK_FILE_BYTES`` is a skipped file, never a hang.
    """
    shown = path.name if name is None else name
    try:
        return read_input_text(path, what="benchmark file", max_bytes=MAX_BENCHMARK_FILE_BYTES)
    except InputFileError as err:
        skipped.append(SkippedFile(file=shown, reason=err.reason))
    except OSError as err:
        skipped.append(SkippedFile(file=shown, reason=f"{type(err).__name__}: {err.strerror}"))
    return None


def parse_json(text: str) -> JSONValue:
    """A benchmark file's JSON; too deep to parse is an error like any other, never a crash.

    ``json.loads`` (C, three times faster here than ``strict_json.loads`` on SGD's
    40 MB of dialogues) with its depth bounded by the interpreter's recursion
    limit. Safe where the reader never walks the data recursively, as SGD's
    typed reader does not; BFCL's schemas are walked, so its lines go through
    ``strict_json.loads`` with a depth bound instead.

    Raises:
        StrictJSONError: Not JSON (with the character it fails at), NaN or an
            infinity, or nested too deep.
    """
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise StrictJSONError("syntax", str(err), position=err.pos) from err
    except RecursionError as err:
        raise StrictJSONError("too_deep", "nested too deep to read") from err


def _no_constant(name: str) -> JSONValue:
    raise StrictJSONError("syntax", f"{name} is not JSON")


def write_events(
    target: Path, document: Mapping[str, object], *, indent: int | None = None
) -> None:
    """``events.json``: the event definitions, with where they came from."""
    (target / "events.json").write_text(json.dumps(document, indent=indent), encoding="utf-8")


def write_report(target: Path, report: DataclassInstance) -> None:
    """``import-report.json``: the report dataclass as JSON (tuples as lists)."""
    (target / "import-report.json").write_text(json.dumps(asdict(report), indent=1), "utf-8")


def write_workload(target: Path, name: str, cases: list[dict[str, Any]]) -> Path:
    """``workload-<name>.jsonl``, one case per line, keys sorted (stable diffs)."""
    path = target / f"workload-{name}.jsonl"
    path.write_text(
        "".join(json.dumps(case, sort_keys=True) + "\n" for case in cases), encoding="utf-8"
    )
    return path


def write_readme(target: Path, title: str, attribution: str, report_says: str) -> None:
    """The licence and attribution travel with every adaptation of the data."""
    (target / "README.md").write_text(
        f"# {title}, imported by agent-lab\n\n{attribution}\n\n"
        f"See import-report.json for the mapping rules, {report_says}.\n",
        encoding="utf-8",
    )
