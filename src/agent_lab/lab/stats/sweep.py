"""A break-even sweep: the policies at each setting of the simulated model's error rates.

Every setting runs the same cases with the same seeds, so the policies'
accuracies can be compared point by point. Along the first varied rate the
sweep finds the break-even: where deterministic-first's accuracy equals
llm-always's. Its interval comes from resampling cases (the same cases at
every point, so a resample is one draw of the whole curve); a resample whose
curves never cross in the range counts as "none in range", and when more
than 2.5% of them do, the interval is open on that side.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from agent_lab.errors import SettingError
from agent_lab.lab.stats.metrics import Estimate, references, summarize
from agent_lab.lab.workload import LOGGED_TRUTH, truth_is_logged
from agent_lab.providers.profiles import RATES

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.lab.results.records import TrialRecord
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = [
    "BreakEven",
    "SweepPoint",
    "SweepSummary",
    "grid",
    "parse_vary",
    "summarize_sweep",
]

RESAMPLES = 2000
CHALLENGER = "deterministic-first"
BASELINE = "llm-always"


def parse_vary(items: Sequence[str]) -> list[tuple[str, list[float]]]:
    """``KEY=V1,V2,...`` items into (key, values), each value a rate in [0, 1].

    Raises:
        SettingError: Of setting ``vary``: a malformed item, an unknown key, a value
            out of range, a key twice, or no item.
    """
    varied: list[tuple[str, list[float]]] = []
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or key not in RATES:
            raise SettingError(
                "vary", f"{item!r}: expected KEY=V1,V2,... with KEY one of {', '.join(RATES)}"
            )
        try:
            values = [float(part) for part in text.split(",") if part.strip()]
        except ValueError:
            raise SettingError("vary", f"{item!r}: the values must be numbers") from None
        if len(values) < 2 or any(not 0 <= v <= 1 or math.isnan(v) for v in values):
            raise SettingError("vary", f"{item!r}: give at least two rates, each in [0, 1]")
        if key in dict(varied):
            raise SettingError("vary", f"{key} is given twice")
        varied.append((key, sorted(set(values))))
    if not varied:
        raise SettingError("vary", "needs at least one KEY=V1,V2,... for a sweep")
    return varied


def grid(varied: Sequence[tuple[str, list[float]]]) -> list[dict[str, float]]:
    """Every combination of the varied rates, the first key varying fastest."""
    keys = [key for key, _ in varied]
    combinations = itertools.product(*(values for _, values in reversed(varied)))
    return [dict(zip(keys, reversed(values), strict=True)) for values in combinations]


@dataclass(frozen=True, slots=True, kw_only=True)
class SweepPoint:
    """The policies at one setting of the rates."""

    setting: dict[str, float]
    run_id: str
    accuracy: dict[str, Estimate]
    llm_calls: dict[str, Estimate]


@dataclass(frozen=True, slots=True, kw_only=True)
class BreakEven:
    """Where deterministic-first's accuracy meets llm-always's, along ``key``."""

    key: str
    fixed: dict[str, float]
    """The other varied rates, held at these values."""
    value: float | None
    """The crossing, or ``None`` when the curves do not cross in the range."""
    low: float | None
    high: float | None
    no_crossing_share: float
    """Share of case resamples whose curves never cross in the range."""
    above: str | None
    """Which policy is the more accurate above the crossing."""

    def sentence(self) -> str:
        """The break-even in one line, as a user reads it."""
        held = ", ".join(f"{k}={v:g}" for k, v in self.fixed.items())
        where = f" (with {held})" if held else ""
        if self.value is None:
            return f"break-even {self.key}{where}: none in range"
        low = "below range" if self.low is None else f"{self.low:.3g}"
        high = "above range" if self.high is None else f"{self.high:.3g}"
        tail = ""
        if self.above == CHALLENGER:
            tail = (
                f": with a model that errs more often than that, {CHALLENGER} "
                "is also the more accurate policy"
            )
        elif self.above == BASELINE:
            tail = f": above it, {BASELINE} is the more accurate policy"
        return f"break-even {self.key}{where} = {self.value:.3g} [{low}, {high}]{tail}"

    def as_json(self) -> JSONObject:
        """The break-even as JSON data."""
        return {
            "key": self.key,
            "fixed": dict(self.fixed),
            "value": self.value,
            "low": self.low,
            "high": self.high,
            "no_crossing_share": self.no_crossing_share,
            "above": self.above,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class SweepSummary:
    """A whole sweep: its points, its break-evens, and the always-decline baseline."""

    sweep_id: str
    varied: list[tuple[str, list[float]]]
    points: list[SweepPoint]
    break_evens: list[BreakEven]
    decline: Estimate
    policies: list[str]
    provider: str = "simulated"
    """Who answered: ``simulated`` (the sighted model) or ``oracle`` (the answer key)."""
    truth: str | None = None
    """What the truth was where it is no truth (``LOGGED_TRUTH``: a logged model's calls)."""

    def as_json(self) -> JSONObject:
        """The sweep as JSON data (what ``agent-lab sweep --json`` prints)."""

        def estimate(e: Estimate) -> JSONObject:
            return {"value": e.value, "low": e.low, "high": e.high, "n": e.n}

        figures: JSONObject = {
            "sweep": self.sweep_id,
            "vary": {key: cast("list[JSONValue]", values) for key, values in self.varied},
            "points": [
                {
                    "setting": dict(p.setting),
                    "run_id": p.run_id,
                    "accuracy": {k: estimate(v) for k, v in p.accuracy.items()},
                    "llm_calls_per_trial": {k: estimate(v) for k, v in p.llm_calls.items()},
                }
                for p in self.points
            ],
            "break_even": [b.as_json() for b in self.break_evens],
            "always_decline": estimate(self.decline),
        }
        if self.truth:
            figures["truth"] = self.truth
        return figures


def summarize_sweep(
    sweep_id: str,
    varied: list[tuple[str, list[float]]],
    runs: Sequence[tuple[dict[str, float], str, Sequence[TrialRecord]]],
    *,
    seed: int = 0,
) -> SweepSummary:
    """The sweep's figures from each setting's (run id, trials)."""
    points: list[SweepPoint] = []
    policies: list[str] = []
    for setting, run_id, trials in runs:
        metrics = summarize(trials, seed=seed)
        policies = policies or [m.policy for m in metrics]
        points.append(
            SweepPoint(
                setting=setting,
                run_id=run_id,
                accuracy={m.policy: m.accuracy for m in metrics},
                llm_calls={m.policy: m.llm_calls_per_trial for m in metrics},
            )
        )
    decline = references(runs[0][2])[0].accuracy if runs else Estimate(None)
    key = varied[0][0]
    break_evens: list[BreakEven] = []
    others = [k for k, _ in varied[1:]]
    for fixed_values in itertools.product(*(values for _, values in varied[1:])):
        fixed = dict(zip(others, fixed_values, strict=True))
        line = [
            (setting[key], trials)
            for setting, _, trials in runs
            if all(setting[k] == v for k, v in fixed.items())
        ]
        break_evens.append(_break_even(key, fixed, sorted(line, key=lambda item: item[0]), seed))
    return SweepSummary(
        sweep_id=sweep_id,
        varied=varied,
        points=points,
        break_evens=break_evens,
        decline=decline,
        policies=policies,
        truth=LOGGED_TRUTH
        if truth_is_logged(t.category for _, _, trials in runs for t in trials)
        else None,
    )


def _case_matrix(
    line: Sequence[tuple[float, Sequence[TrialRecord]]], policy: str
) -> tuple[list[str], np.ndarray]:
    """Per case (rows) and setting (columns), the policy's mean correctness."""
    per_point: list[dict[str, list[float]]] = []
    for _, trials in line:
        by_case: dict[str, list[float]] = {}
        for trial in trials:
            if trial.policy == policy:
                by_case.setdefault(trial.case_id, []).append(float(trial.correct))
        per_point.append(by_case)
    common: set[str] = set(per_point[0]) if per_point else set()
    for point in per_point[1:]:
        common &= set(point)
    cases = sorted(common)
    matrix = np.array(
        [[sum(p[case]) / len(p[case]) for p in per_point] for case in cases], dtype=np.float64
    ).reshape(len(cases), len(per_point))
    return cases, matrix


def _crossing(rates: np.ndarray, gap: np.ndarray) -> float | None:
    """The last rate where ``gap`` (challenger minus baseline) reaches zero or changes sign.

    The last, not the first: above it one policy leads all the way to the end of the
    range, which is what "above the break-even, X is the more accurate" must mean. A
    tie at the first rate followed by a lead that later reverses is not a break-even.
    """
    signs = np.sign(gap)
    if not signs.any():
        return None  # equal all along: the rate changes nothing between them
    final = signs[-1]
    if final == 0:
        return float(rates[-1])
    for index in range(len(rates) - 2, -1, -1):
        if signs[index] == final:
            continue
        left, right = gap[index], gap[index + 1]
        if left == 0:
            return float(rates[index])
        return float(rates[index] + (rates[index + 1] - rates[index]) * left / (left - right))
    return None


def _break_even(
    key: str,
    fixed: dict[str, float],
    line: Sequence[tuple[float, Sequence[TrialRecord]]],
    seed: int,
) -> BreakEven:
    rates = np.array([rate for rate, _ in line], dtype=np.float64)
    challenger_cases, challenger = _case_matrix(line, CHALLENGER)
    baseline_cases, baseline = _case_matrix(line, BASELINE)
    shared = sorted(set(challenger_cases) & set(baseline_cases))
    if len(rates) < 2 or not shared:
        return BreakEven(
            key=key, fixed=fixed, value=None, low=None, high=None, no_crossing_share=1.0, above=None
        )
    a = challenger[[challenger_cases.index(c) for c in shared]]
    b = baseline[[baseline_cases.index(c) for c in shared]]
    gap = a.mean(axis=0) - b.mean(axis=0)
    value = _crossing(rates, gap)
    rng = np.random.default_rng(seed)
    crossings: list[float] = []
    below = beyond = 0
    # A resample that never crosses stays on one side: on the side the measured curve
    # ends on, the crossing lies below the first rate; on the other, beyond the last.
    final = np.sign(gap[-1]) or -np.sign(gap[0])
    for _ in range(RESAMPLES):
        picks = rng.integers(0, len(shared), size=len(shared))
        drawn = a[picks].mean(axis=0) - b[picks].mean(axis=0)
        found = _crossing(rates, drawn)
        if found is not None:
            crossings.append(found)
        elif np.sign(drawn[-1]) == final:
            below += 1
        else:
            beyond += 1
    no_crossing = (below + beyond) / RESAMPLES
    low = high = None
    if value is not None and crossings:
        low_q, high_q = np.percentile(crossings, [2.5, 97.5])
        low = None if below / RESAMPLES > 0.025 else float(low_q)
        high = None if beyond / RESAMPLES > 0.025 else float(high_q)
    above = None
    if value is not None:
        above = CHALLENGER if gap[-1] > 0 else BASELINE if gap[-1] < 0 else None
    return BreakEven(
        key=key,
        fixed=fixed,
        value=value,
        low=low,
        high=high,
        no_crossing_share=no_crossing,
        above=above,
    )
