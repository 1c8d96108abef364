"""The break-even sweep: its grid, its crossing, its interval, and the command end to end."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agent_lab.cli import run
from agent_lab.errors import SettingError
from agent_lab.lab.results.records import TrialRecord
from agent_lab.lab.stats.sweep import grid, parse_vary, summarize_sweep
from tests.lab.factories import trial


def test_vary_parses_and_grids_with_the_first_key_fastest() -> None:
    varied = parse_vary(["wrong_value=0,0.1,0.05", "no_call=0,0.5"])
    assert varied == [("wrong_value", [0.0, 0.05, 0.1]), ("no_call", [0.0, 0.5])]
    assert grid(varied)[:4] == [
        {"wrong_value": 0.0, "no_call": 0.0},
        {"wrong_value": 0.05, "no_call": 0.0},
        {"wrong_value": 0.1, "no_call": 0.0},
        {"wrong_value": 0.0, "no_call": 0.5},
    ]


@pytest.mark.parametrize(
    "items", [["colour=0,1"], ["wrong_value=0"], ["wrong_value=0,2"], ["wrong_value=a,b"], []]
)
def test_a_bad_vary_is_refused(items: list[str]) -> None:
    """Each refusal is a SettingError (a ValueError) naming the field vary, not its flag."""
    with pytest.raises(ValueError) as refused:  # noqa: PT011 - each message is shown as it is
        parse_vary(items)
    assert isinstance(refused.value, SettingError)
    assert refused.value.setting == "vary"
    assert str(refused.value).startswith("vary ")
    assert "--" not in str(refused.value)


def test_the_command_line_says_vary_as_its_flag() -> None:
    """The CLI words the field as the flag: one line, exit 2."""
    err = io.StringIO()
    argv = ["sweep", "demo", "--plugins", "agent_lab.demo:plugins", "--vary", "colour=0,1"]
    assert run(argv, stdout=io.StringIO(), stderr=err) == 2
    assert err.getvalue().startswith("agent-lab: --vary 'colour=0,1': expected KEY=V1,V2,...")
    assert err.getvalue().count("\n") == 1


def curve(first: float, always: float, cases: int = 200) -> list[TrialRecord]:
    """det-first right on the first ``first`` of the cases, llm-always on the last ``always``."""
    rows: list[TrialRecord] = []
    for index in range(cases):
        rows.append(trial(f"c{index}", "deterministic-first", correct=index < first * cases))
        rows.append(trial(f"c{index}", "llm-always", correct=index >= (1 - always) * cases))
    return rows


def test_the_break_even_is_where_the_curves_cross_with_an_interval() -> None:
    """det-first holds 0.8; llm-always falls from 0.9 by 1 point per 0.01: they meet at 0.1."""
    rates = [0.0, 0.05, 0.1, 0.15, 0.2]
    runs = [({"wrong_value": r}, f"r{r}", curve(0.8, 0.9 - r)) for r in rates]
    (even,) = summarize_sweep("s", [("wrong_value", rates)], runs).break_evens
    assert even.value == pytest.approx(0.1, abs=0.01)
    assert even.value is not None
    assert even.low is not None
    assert even.high is not None
    assert even.low < even.value < even.high
    # About 200 cases: the gap is known to about 4 points, the crossing to about 0.08 either way.
    assert even.high - even.low < 0.2
    assert even.above == "deterministic-first"
    assert "deterministic-first is also the more accurate policy" in even.sentence()


def test_a_tie_at_the_first_rate_then_a_reversal_is_not_the_break_even() -> None:
    """Tied at 0, det-first ahead at 0.05, behind from 0.15: the break-even lies in between."""
    rates = [0.0, 0.05, 0.1, 0.15, 0.2]
    always = {0.0: 0.8, 0.05: 0.7, 0.1: 0.8, 0.15: 0.9, 0.2: 0.95}
    runs = [({"wrong_value": r}, f"r{r}", curve(0.8, always[r])) for r in rates]
    (even,) = summarize_sweep("s", [("wrong_value", rates)], runs).break_evens
    assert even.value == pytest.approx(0.1, abs=0.001)
    assert even.above == "llm-always"


def test_curves_equal_all_along_have_no_break_even() -> None:
    """BFCL irrelevance: both policies decline everything at every rate."""
    rates = [0.0, 0.1, 0.2]
    runs = [({"wrong_value": r}, f"r{r}", curve(0.5, 0.5)) for r in rates]
    (even,) = summarize_sweep("s", [("wrong_value", rates)], runs).break_evens
    assert even.value is None
    assert even.above is None


def test_no_crossing_in_range_is_said_so() -> None:
    runs = [({"wrong_value": r}, f"r{r}", curve(0.5, 0.9)) for r in (0.0, 0.1)]
    (even,) = summarize_sweep("s", [("wrong_value", [0.0, 0.1])], runs).break_evens
    assert even.value is None
    assert "none in range" in even.sentence()


def test_sweep_end_to_end_prints_json_with_the_break_even(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = [
        "sweep", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "30",
        "--db", str(tmp_path / "s.sqlite"), "--vary", "wrong_value=0,0.2,0.5",
        "--no-progress", "--warmup", "0", "--json",
    ]  # fmt: skip
    assert run(argv, stdout=out, stderr=err) == 0, err.getvalue()
    figures = json.loads(out.getvalue())
    assert [p["setting"] for p in figures["points"]] == [
        {"wrong_value": 0.0},
        {"wrong_value": 0.2},
        {"wrong_value": 0.5},
    ]
    first = figures["points"][0]["accuracy"]["llm-always"]["value"]
    last = figures["points"][-1]["accuracy"]["llm-always"]["value"]
    assert last < first  # the varied rate reaches the model
    assert set(figures["break_even"][0]) >= {"key", "value", "low", "high", "above"}
    assert figures["always_decline"]["value"] is not None
    assert "truth" not in figures  # the demo's truth is a truth: no logged model's to name


def test_a_sweep_refuses_a_real_model() -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["sweep", "demo", "--plugins", "agent_lab.demo:plugins", "--vary", "nan=0,1",
            "--provider", "local"]  # fmt: skip
    assert run(argv, stdout=out, stderr=err) == 2
    assert "simulated model" in err.getvalue()


@pytest.mark.parametrize(("provider", "label"), [("oracle", "ORACLE"), ("simulated", "SIMULATED")])
def test_the_sweep_page_names_who_answered(tmp_path: Path, provider: str, label: str) -> None:
    """An oracle sweep's page says ORACLE (it said SIMULATED whatever the provider)."""
    page = tmp_path / "sweep.html"
    argv = [
        "sweep", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "8",
        "--db", str(tmp_path / "s.sqlite"), "--vary", "wrong_value=0,0.5", "--provider",
        provider, "--simulated-latency", "1,2", "--no-progress", "--warmup", "0",
        "--html", str(page),
    ]  # fmt: skip
    assert run(argv, stdout=io.StringIO(), stderr=io.StringIO()) == 0
    badge = page.read_text().split('<span class="simulated">', 1)[1].split("</span>", 1)[0]
    assert badge.startswith(label)
