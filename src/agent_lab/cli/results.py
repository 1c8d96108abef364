"""Reading a results database from the command line: tables, comparisons, the HTML report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.cli.checks import check_output_file
from agent_lab.cli.output import write_whole
from agent_lab.errors import StoreError, UsageError
from agent_lab.lab.results.store import Store
from agent_lab.lab.stats.figures import report_json
from agent_lab.lab.stats.metrics import compare, references, summarize

if TYPE_CHECKING:
    from rich.console import Console

    from agent_lab.lab.results.records import RunRecord, TrialRecord

__all__ = ["read_run", "write_report"]


def read_run(db: Path, run_id: str | None) -> tuple[RunRecord, list[TrialRecord]]:
    """A run and its trials, read without writing; every problem is a usage error."""
    if not db.is_file():
        raise UsageError(f"no database {db}")
    try:
        with Store(db, read_only=True) as store:
            run = store.run(run_id)
            trials = store.trials(run.run_id)
    except StoreError as err:
        raise UsageError(str(err)) from err
    if not trials:
        raise UsageError(f"run {run.run_id} has no trials to report")
    return run, trials


def write_report(
    db: Path,
    run_id: str | None,
    html: str | None,
    baseline: str | None,
    console: Console,
    *,
    baseline_required: bool = False,
    as_json: bool = False,
    wide: bool = False,
) -> Path | None:
    """Print the run's tables (or, ``as_json``, its figures); write the HTML report to ``html``."""
    # The report module draws with matplotlib (about 1.5 s to import): only here.
    from agent_lab.lab.report.render import provenance, render_html, terminal_tables  # noqa: PLC0415
    from agent_lab.lab.stats.findings import find  # noqa: PLC0415

    target = Path(html) if html else None
    if target is not None:
        check_output_file(target, "--html")
    run, trials = read_run(db, run_id)
    metrics = summarize(trials)
    policies = sorted({m.policy for m in metrics})
    if baseline is not None and baseline not in policies and baseline_required:
        raise UsageError(
            f"run {run.run_id} has no policy {baseline!r}; it has {', '.join(policies)}"
        )
    comparisons = compare(trials, baseline) if baseline in policies and len(policies) > 1 else []
    baselines = references(trials)
    said = provenance(run, trials)
    found = find(trials, metrics, comparisons, provenance=said)
    if as_json:
        figures = report_json(
            run,
            metrics,
            provenance=said,
            references=baselines,
            comparisons=comparisons,
        )
        figures.update(found.as_json())
        console.file.write(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    else:
        terminal_tables(
            run, metrics, comparisons, console=console, references=baselines, wide=wide,
            wide_hint="--wide shows every column", findings=found,
        )  # fmt: skip
    if target is not None:
        return write_whole(
            target,
            "--html",
            lambda path: render_html(
                run, trials, metrics, comparisons, path, references=baselines, findings=found
            ),
        )
    return None
