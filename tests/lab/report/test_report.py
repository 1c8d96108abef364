"""The report's tables: one column spec for the terminal and the HTML; user text escaped (L12)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from markupsafe import escape
from rich.console import Console

from agent_lab.lab.report.columns import COMPARISON_COLUMNS, SUMMARY_COLUMNS
from agent_lab.lab.report.render import CHARTS, footnote, provenance, render_html, terminal_tables
from agent_lab.lab.results.records import RunRecord, RunState
from agent_lab.lab.stats.metrics import compare, summarize
from tests.lab.factories import trial

HOSTILE = '<script>alert("x")</script>'


def run_record(**changes: object) -> RunRecord:
    values: dict[str, object] = {
        "run_id": "r1",
        "started_at": "2025-01-01T00:00:00",
        "finished_at": None,
        "state": RunState.FINISHED,
        "config": {},
        "config_hash": "h",
        "environment": {"python": "3.11", "cpu": "cpu", "git_revision": None},
        "workload": "w",
        "plugins": "p",
        "provider": "simulated",
        "model": "m",
        "simulated": True,
    }
    return RunRecord(**(values | changes))  # pyright: ignore[reportArgumentType]


TRIALS = [
    trial(f"c{n}", policy, latency_ns=(n + 1) * 1_000_000 * (2 if policy == "slow" else 1))
    for policy in ("base", "slow")
    for n in range(20)
]


def cells(html: str, table: str, tag: str) -> list[str]:
    """The text of every ``th`` or ``td`` of one table, in document order."""
    section = html.split(f'<table id="{table}">')[1].split("</table>", maxsplit=1)[0]
    found = re.findall(rf"<{tag}[^>]*>(.*?)</{tag}>", section, flags=re.DOTALL)
    # A policy's cell carries its colour swatch (an empty span): the text is what counts.
    return [re.sub(r"<[^>]+>", "", cell) for cell in found]


def test_user_text_in_the_html_report_is_escaped(tmp_path: Path) -> None:
    """Run ids, workload and plugin names are the user's: shown as text, never as markup."""
    metrics = summarize(TRIALS)
    path = render_html(
        run_record(workload=HOSTILE, plugins=HOSTILE, run_id=HOSTILE),
        TRIALS,
        metrics,
        compare(TRIALS, "base"),
        tmp_path / "report.html",
    )
    document = path.read_text(encoding="utf-8")
    assert "<script" not in document
    assert document.count("&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") == 4
    assert document.count('<section class="chart"') == len(CHARTS)
    assert document.count("<svg") >= len(CHARTS)


def test_the_terminal_and_the_html_tables_share_one_column_spec(tmp_path: Path) -> None:
    """The HTML shows every column; the terminal the ones marked for it, in the same order."""
    metrics = summarize(TRIALS)
    comparisons = compare(TRIALS, "base")
    document = render_html(run_record(), TRIALS, metrics, comparisons, tmp_path / "r.html")
    html = document.read_text(encoding="utf-8")
    assert cells(html, "summary", "th") == [column.name for column in SUMMARY_COLUMNS]
    assert cells(html, "summary", "td")[: len(SUMMARY_COLUMNS)] == [
        column.cell(metrics[0]) for column in SUMMARY_COLUMNS
    ]
    assert cells(html, "comparison", "th") == [column.name for column in COMPARISON_COLUMNS]
    assert cells(html, "comparison", "td")[: len(COMPARISON_COLUMNS)] == [
        column.cell(comparisons[0]) for column in COMPARISON_COLUMNS
    ]
    out = io.StringIO()
    terminal_tables(run_record(), metrics, comparisons, console=Console(file=out, width=400))
    header = next(line for line in out.getvalue().splitlines() if "policy" in line)
    shown = [name.strip() for name in header.strip("┃ ").split("┃")]
    assert shown == [column.name for column in SUMMARY_COLUMNS if column.terminal]


TYPICAL = {"provider_settings": {"profile": {"name": "typical", "source": "an assumption",
                                             "wrong_value": 0.03}}}  # fmt: skip
SMALL_MODEL = "small model"


@pytest.mark.parametrize(
    ("provider", "model", "config", "said"),
    [
        ("local", "SmolLM2-135M-Instruct", {}, ["SmolLM2-135M-Instruct", SMALL_MODEL, "locally"]),
        ("simulated", "simulated(typical)", TYPICAL, ["No model was run", "simulated",
                                                      "profile 'typical'"]),
        ("oracle", "oracle(ideal)", {}, ["No model was run", "oracle", "ceiling"]),
        ("openai", "gpt-4o-mini", {}, ["gpt-4o-mini", "OpenAI-compatible endpoint"]),
        ("replay", "gpt-4o-mini", {}, ["gpt-4o-mini", "cassette", "no request was made"]),
        ("my.module:provider", "mine-1", {}, ["mine-1", "my.module:provider"]),
    ],
    ids=["local", "simulated", "oracle", "openai", "replay", "custom"],
)  # fmt: skip
def test_the_footnote_says_what_the_runs_provider_was(
    tmp_path: Path, provider: str, model: str, config: dict[str, object], said: list[str]
) -> None:
    """The small-model caveat only for the local model; a simulation says so and names its
    profile; a real endpoint, a cassette or a plugin's provider names its model."""
    record = run_record(provider=provider, model=model, config=config,
                        simulated=provider in ("simulated", "oracle"))  # fmt: skip
    note = footnote(record)
    assert all(words in note for words in said), note
    assert (SMALL_MODEL in note) == (provider == "local")
    document = render_html(record, TRIALS, summarize(TRIALS), [], tmp_path / "r.html")
    html = document.read_text(encoding="utf-8")
    assert escape(note) in html
    assert (SMALL_MODEL in html) == (provider == "local")


@pytest.mark.parametrize(
    ("categories", "logged"),
    [
        (["logged_call", "logged_words"], True),
        (["logged_call"], True),
        (["logged_call", "complete"], False),
        (["complete"], False),
        ([], False),
    ],
)
def test_a_run_scored_against_logged_calls_says_its_figures_are_agreement(
    categories: list[str], logged: bool
) -> None:
    """A workload from ``import logs`` holds what the logged model did, not a truth: its
    run's provenance says so; a run with any case of another truth says nothing of it."""
    trials = [trial(f"c{n}", category=category) for n, category in enumerate(categories)]
    said = provenance(run_record(), trials)
    assert ("agreement with the logged model, not accuracy" in said) == logged


def test_a_profiles_source_is_no_parenthesis_inside_the_provenance() -> None:
    """The profile's source often holds a parenthesis; the provenance adds none around it."""
    config = {"provider_settings": {"profile": {"name": "typical", "wrong_value": 0.03,
              "source": "an assumption (round figures, not a measurement)"}}}  # fmt: skip
    said = provenance(run_record(config=config))
    assert said.endswith(
        "profile 'typical': wrong_value 0.03; an assumption (round figures, not a measurement)"
    )
