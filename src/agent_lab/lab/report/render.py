"""The report: a terminal table, and one self-contained HTML file with its charts inline (L12)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar, cast

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup
from rich.table import Table
from rich.text import Text

from agent_lab.lab.report.charts import CHARTS, Chart, charts, sweep_charts
from agent_lab.lab.report.columns import (
    BREAKDOWN_COLUMNS,
    COMPARISON_COLUMNS,
    REFERENCE_COLUMNS,
    SUMMARY_COLUMNS,
    Column,
    breakdown_rows,
    every_column,
    fit,
)
from agent_lab.lab.report.palette import policy_colors
from agent_lab.lab.report.terminal import plain, printable
from agent_lab.lab.report.tradeoff_charts import MAX_GROUPS, breakdown_chart, tradeoff_chart
from agent_lab.lab.report.wording import counted
from agent_lab.lab.stats.findings import Findings, find
from agent_lab.lab.stats.llm_calls import CALLED_CASES_SHOWN
from agent_lab.lab.workload import LOGGED_TRUTH, truth_is_logged
from agent_lab.log_replay.trial_status import TrialStatus

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from rich.console import Console

    from agent_lab.lab.results.records import RunRecord, TrialRecord
    from agent_lab.lab.stats.metrics import Comparison, PolicyMetrics, Reference
    from agent_lab.lab.stats.sweep import SweepSummary

__all__ = [
    "CHARTS",
    "footnote",
    "profile_of",
    "provenance",
    "render_html",
    "render_sweep_html",
    "terminal_tables",
]

Row = TypeVar("Row")


def _shown(value: object) -> object:
    # Markup (the charts' SVG, marked safe) stays as it is; other text shows its controls.
    if isinstance(value, str) and not isinstance(value, Markup):
        return printable(value)
    return value


# Autoescaped: run ids, workload and plugin names come from the user. Only the
# charts, SVG that matplotlib wrote, go in as markup (``|safe`` in the template).
_TEMPLATES = Environment(
    loader=PackageLoader("agent_lab.lab.report", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    keep_trailing_newline=True,
    # Control characters from user or model strings are shown escaped, as in the terminal.
    finalize=_shown,
)


ORACLE_LABEL = "ORACLE: reads the answer key; a ceiling, not a model"
SIMULATED_LABEL = "SIMULATED model: answers only from what it is sent"


def _mapping(value: object) -> dict[str, Any]:
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


def profile_of(run: RunRecord) -> str:
    """The simulated model's error profile as the run stored it, in one line ("" if none)."""
    settings = _mapping(run.config.get("provider_settings"))
    profile = _mapping(settings.get("profile"))
    if not profile:
        return ""
    rates = ", ".join(
        f"{key} {value:g}"
        for key, value in profile.items()
        if key not in ("name", "source", "derived_factor")
        and isinstance(value, int | float)
        and value
    )
    name, source = profile.get("name", "?"), profile.get("source", "")
    described = f"profile {name!r}: {rates or 'no errors'}"
    # The source is a clause of its own, not a parenthesis: it may hold one itself.
    return f"{described}; {source}" if source else described


def provenance(run: RunRecord, trials: Sequence[TrialRecord] = ()) -> str:
    """Which model produced the figures, and what the truth was where it is no truth.

    The model: a real one, the sighted simulation, or the oracle. The truth of a workload
    made from logs is a logged model's calls: its figures are agreement with that model.
    """
    if run.provider == "oracle":
        said = f"{ORACLE_LABEL}; {profile_of(run)}"
    elif run.provider == "simulated":
        said = f"{SIMULATED_LABEL}; {profile_of(run)}"
    else:
        said = f"provider {run.provider}, model {run.model or 'default'}"
    if truth_is_logged(t.category for t in trials):
        said += f"; {LOGGED_TRUTH}"
    return said


def footnote(run: RunRecord) -> str:
    """What the figures can and cannot say, for the provider the run used."""
    model = run.model or "its default model"
    match run.provider:
        case "local":
            return (
                f"Model {model}, a small model run locally on the CPU: "
                "its accuracy says nothing about a production model's."
            )
        case "simulated":
            profile = _mapping(_mapping(run.config.get("provider_settings")).get("profile"))
            name = profile.get("name")
            rates = f"the rates of profile {name!r}" if name else "its profile's rates"
            return (
                "No model was run: a simulated model answered from what it was sent, "
                f"erring at {rates}. Its accuracy follows from those rates; "
                "it measures no model."
            )
        case "oracle":
            return (
                "No model was run: the oracle reads the answer key, "
                "so its accuracy is a ceiling, not a measurement of any model."
            )
        case "replay":
            return (
                f"Replies replayed from a cassette recorded from model {model}; "
                "no request was made."
            )
        case "openai":
            return f"Model {model}, asked at an OpenAI-compatible endpoint."
        case _:
            return f"Model {model}, from provider {run.provider}."


def _table(
    title: str,
    columns: Sequence[Column[Row]],
    rows: Sequence[Row],
    width: int,
    *,
    wide: bool,
    wide_hint: str | None = None,
    colors: dict[str, str] | None = None,
    colored: int = 0,
) -> Table:
    table = Table(title=plain(title), title_justify="left")
    fitted = every_column(columns, rows) if wide else fit(columns, rows, width)
    for column, need in fitted.shown:
        table.add_column(column.name, justify=column.align, min_width=need, no_wrap=not column.wrap)
    for row in rows:
        cells: list[str | Text] = [plain(cell) for cell in fitted.cells(row)]
        named = cells[colored] if len(cells) > colored else None
        if colors and isinstance(named, str) and named in colors:
            # The policy's name in its chart colour, so that tables and charts read alike.
            cells[colored] = Text(named, style=colors[named])
        table.add_row(*cells)
    if fitted.dropped:
        names = ", ".join(column.name for column in fitted.dropped)
        hint = f" ({wide_hint})" if wide_hint else ""
        table.caption = f"left out to fit {width} columns: {names}{hint}"
        table.caption_justify = "left"
    return table


def _calls_table(findings: Findings) -> Table:
    """Per policy: its LLM-called trials by avoidability, and the property behind most."""
    table = Table(
        title="why the LLM was called (by the workload's truth; the ranking is in the HTML report)",
        title_justify="left",
    )
    for name in ("policy", "LLM-called", "avoidable", "unavoidable", "out of domain"):
        table.add_column(name, justify="left" if name == "policy" else "right")
    table.add_column("most avoidable calls from", justify="left")
    for row in findings.calls:
        top = next((p for p in findings.avoidable if p.policy == row.policy), None)
        table.add_row(
            plain(row.policy),
            str(row.called),
            str(row.avoidable),
            str(row.unavoidable),
            str(row.out_of_domain),
            "-" if top is None else plain(f"{top.event} {top.pointer} ({top.calls})"),
        )
    return table


def terminal_tables(
    run: RunRecord,
    metrics: Sequence[PolicyMetrics],
    comparisons: Sequence[Comparison] = (),
    *,
    console: Console,
    references: Sequence[Reference] = (),
    wide: bool = False,
    wide_hint: str | None = None,
    findings: Findings | None = None,
) -> None:
    """Print the run's headline and tables (and the comparison against the baseline).

    The tables fit the console's width, leaving out columns by priority and
    saying which, followed by ``wide_hint`` (how the reader asks for all of
    them); ``wide`` shows every column, the HTML report's too.
    """
    width = console.width
    title = f"run {run.run_id}: {run.workload}, {provenance(run)}"
    colors = policy_colors([m.policy for m in metrics])
    if findings is not None:
        for sentence in findings.headline:
            console.print(Text(printable(sentence)))
    if run.plugins:
        # The plugin set, and the rules file applied to it (name and digest), shaped the figures.
        console.print(Text(printable(f"Plugins: {run.plugins}")))
    console.print(
        _table(
            title, SUMMARY_COLUMNS, metrics, width, wide=wide, wide_hint=wide_hint, colors=colors
        )
    )
    if findings is not None and findings.categories:
        against = f"against {findings.baseline}" if findings.baseline else "no baseline"
        console.print(
            _table(
                f"by category (accuracy points {against}; * beyond the noise)",
                BREAKDOWN_COLUMNS, breakdown_rows(findings.categories), width, wide=wide,
                wide_hint=wide_hint, colors=colors, colored=1,
            )
        )  # fmt: skip
    if findings is not None and any(row.called for row in findings.calls):
        console.print(_calls_table(findings))
    if references:
        console.print(
            _table(
                "baselines (the same cases, no LLM)", REFERENCE_COLUMNS, references, width,
                wide=wide, wide_hint=wide_hint,
            )
        )  # fmt: skip
    statuses = Table(title="status counts", title_justify="left")
    statuses.add_column("policy")
    present = [s for s in TrialStatus if any(s in m.status_counts for m in metrics)]
    for status in present:
        statuses.add_column(status, justify="right")
    for m in metrics:
        statuses.add_row(plain(m.policy), *(str(m.status_counts.get(s, 0)) for s in present))
    console.print(statuses)
    if comparisons:
        baseline = comparisons[0].baseline
        title = f"against {baseline} (ratio of means on the same cases, 95% CI)"
        console.print(
            _table(title, COMPARISON_COLUMNS, comparisons, width, wide=wide, wide_hint=wide_hint)
        )


def render_html(
    run: RunRecord,
    trials: Sequence[TrialRecord],
    metrics: Sequence[PolicyMetrics],
    comparisons: Sequence[Comparison],
    path: Path,
    *,
    references: Sequence[Reference] = (),
    findings: Findings | None = None,
) -> Path:
    """Write the self-contained HTML report (no scripts, no network) and return its path."""
    found = findings or find(trials, metrics, comparisons, provenance=provenance(run, trials))
    policies = [m.policy for m in metrics]
    drawn: dict[str, Chart] = {
        "tradeoff": tradeoff_chart(metrics, references),
        "by-category": breakdown_chart(found.categories),
        "by-event": breakdown_chart(found.events),
        **charts(trials, metrics),
    }
    document = _TEMPLATES.get_template("report.html.j2").render(
        run=run,
        provenance=provenance(run, trials),
        footnote=footnote(run),
        python=run.environment.get("python"),
        cpu=run.environment.get("cpu"),
        revision=run.environment.get("git_revision"),
        summary_columns=SUMMARY_COLUMNS,
        metrics=metrics,
        comparison_columns=COMPARISON_COLUMNS,
        comparisons=comparisons,
        reference_columns=REFERENCE_COLUMNS,
        references=references,
        baseline=comparisons[0].baseline if comparisons else "-",
        charts=drawn,
        findings=found,
        breakdown_columns=BREAKDOWN_COLUMNS,
        breakdown_rows=breakdown_rows,
        colors=policy_colors(policies),
        max_groups=MAX_GROUPS,
        called_shown=CALLED_CASES_SHOWN,
        counted=counted,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document, encoding="utf-8")
    return path


def render_sweep_html(summary: SweepSummary, path: Path, *, label: str = "SIMULATED") -> Path:
    """Write the sweep's self-contained page (no scripts, no network) and return its path."""
    document = _TEMPLATES.get_template("sweep.html.j2").render(
        summary=summary,
        label=label,
        profile="the policies on the same cases at each setting of the simulated model's rates",
        charts=sweep_charts(summary),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document, encoding="utf-8")
    return path
