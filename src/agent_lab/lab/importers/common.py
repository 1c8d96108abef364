"""What every importer shares: skipped-item records, the report protocol, the files written."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol

from agent_lab.errors import DatasetImportError

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path

    from _typeshed import DataclassInstance

__all__ = [
    "DatasetImportError",
    "ImportReport",
    "SkippedFile",
    "SkippedItem",
    "SkippedLine",
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
class SkippedLine:
    """A line of a JSON Lines file left out, and why."""

    file: str
    line: int
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


def read_text(path: Path, skipped: list[SkippedFile]) -> str | None:
    """The file's text, or ``None`` with the reason added to ``skipped``."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        skipped.append(SkippedFile(file=path.name, reason=f"{type(err).__name__}: {err}"))
        return None


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
