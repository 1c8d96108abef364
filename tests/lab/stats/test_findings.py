"""The report's findings: headline, breakdowns and cases, from a store built to show them."""

from __future__ import annotations

import io
import json
from pathlib import Path

from agent_lab.cli import run
from agent_lab.lab.results.records import TrialRecord
from agent_lab.lab.results.store import Store
from agent_lab.lab.stats.breakdown import NO_EVENT, breakdown
from agent_lab.lab.stats.findings import find
from agent_lab.lab.stats.lessons import lessons
from agent_lab.lab.stats.metrics import compare, summarize
from agent_lab.log_replay.trial_status import TrialStatus
from tests.lab.factories import new_run, trial


def losing_paraphrases() -> list[TrialRecord]:
    """Deterministic-first is as right as llm-always on 30 complete requests, and wrong on
    every one of 12 paraphrases that llm-always gets right; it calls no LLM on either."""
    trials: list[TrialRecord] = []
    for n in range(30):
        trials.append(trial(f"complete-{n}", "deterministic-first", latency_ns=1_000))
        trials.append(trial(f"complete-{n}", "llm-always", llm_calls=1, latency_ns=500_000_000))
    for n in range(12):
        case = f"paraphrase-{n}"
        trials.append(
            trial(
                case, "deterministic-first", category="paraphrase", correct=False,
                status=TrialStatus.UNKNOWN_EVENT, reason="no_route", event=None, arguments=None,
                text=f"could you maybe time my tea, take {n + 2} minutes", latency_ns=1_000,
            )
        )  # fmt: skip
        trials.append(
            trial(case, "llm-always", category="paraphrase", llm_calls=1, latency_ns=500_000_000)
        )
    return trials


def findings_of(trials: list[TrialRecord]) -> list[str]:
    metrics = summarize(trials)
    return list(find(trials, metrics, compare(trials, "llm-always"), provenance="a test").headline)


def test_the_breakdown_puts_the_losing_category_first_and_marks_it() -> None:
    trials = losing_paraphrases()
    (first, second) = breakdown(trials, "category", baseline="llm-always")
    assert (first.name, second.name) == ("paraphrase", "complete")
    assert first.significant
    assert not second.significant
    figures = {f.policy: f for f in first.figures}
    difference = figures["deterministic-first"].difference
    assert difference is not None
    assert difference.value == -1.0
    assert figures["llm-always"].difference is None
    assert figures["llm-always"].llm_calls.value == 1.0


def test_the_headline_names_the_category_it_loses_on() -> None:
    sentence, attribution = findings_of(losing_paraphrases())
    assert sentence.startswith(
        "deterministic-first answered 100% [92, 100] of requests with no LLM call"
    )
    assert "at -28.6 points [" in sentence
    assert "of accuracy against llm-always" in sentence
    assert "cut mean latency" in sentence
    assert "it loses most on category 'paraphrase': -100.0 points" in sentence
    assert attribution == "Figures from a test; intervals are 95%, resampled by case."


def test_a_difference_within_the_noise_is_said_as_none() -> None:
    trials = [
        trial(f"c{n}", policy, correct=(n % 3 != 0) if policy == "a" else (n % 4 != 0))
        for n in range(24)
        for policy in ("a", "llm-always")
    ]
    (sentence, _) = findings_of(trials)
    assert "with no measurable difference in accuracy from llm-always" in sentence
    assert "loses most" not in sentence
    assert "no measurable difference in mean latency" in sentence


def test_cases_to_learn_from_carry_the_text_and_who_got_them_right() -> None:
    (group,) = lessons(losing_paraphrases(), per_group=5)
    assert (group.policy, group.reason) == ("deterministic-first", "no_route")
    assert len(group.shown) == 5
    assert group.more == 7
    first = group.shown[0]
    assert first.text.startswith("could you maybe time my tea")
    assert first.right_by == ("llm-always",)
    assert first.expected == {"n": 1}
    assert first.arguments is None


def test_a_case_nobody_got_right_is_no_lesson() -> None:
    trials = [trial("x", policy, correct=False) for policy in ("a", "b")]
    assert lessons(trials) == []


def test_out_of_domain_cases_have_an_event_group_of_their_own() -> None:
    trials = [trial("ood", "a", expected_event=None), trial("in", "a")]
    names = {g.name for g in breakdown(trials, "event", baseline=None)}
    assert names == {NO_EVENT, "e"}


def test_the_cli_report_shows_the_headline_and_breakdown_in_the_terminal_and_json(
    tmp_path: Path,
) -> None:
    db = tmp_path / "r.sqlite"
    with Store(db) as store:
        new_run(store)
        store.add_trials("r1", losing_paraphrases())
        store.finish_run("r1")
    out = io.StringIO()
    assert run(["report", str(db)], stdout=out, stderr=io.StringIO()) == 0
    shown = " ".join(out.getvalue().split())
    assert "it loses most on category 'paraphrase'" in shown
    assert "by category (accuracy points against llm-always; * beyond the noise)" in shown
    assert "-100.0 [-100.0, -100.0] *" in shown
    out = io.StringIO()
    assert run(["report", str(db), "--json"], stdout=out, stderr=io.StringIO()) == 0
    figures = json.loads(out.getvalue())
    assert "paraphrase" in figures["headline"][0]
    first = figures["breakdowns"]["category"][0]
    assert (first["name"], first["significant"]) == ("paraphrase", True)
    assert figures["lessons"][0]["more"] == 7
    assert figures["lessons"][0]["cases"][0]["right_by"] == ["llm-always"]
