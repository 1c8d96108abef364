"""What every importer writes the same way: the error, the workload files, the README."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agent_lab.errors import DatasetImportError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["DatasetImportError", "write_readme", "write_workload"]


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
