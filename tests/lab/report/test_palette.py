"""Colours: a status is never drawn in a policy's colour, nor in one a reader could take for it."""

from __future__ import annotations

import math
import re

from agent_lab.lab.report.charts import charts
from agent_lab.lab.report.palette import (
    POLICY_PALETTE,
    REFERENCE_COLOR,
    STATUS_COLORS,
    policy_colors,
)
from agent_lab.lab.stats.metrics import summarize
from agent_lab.log_replay.trial_status import TrialStatus
from tests.lab.factories import trial

FAR_FROM_POLICIES = 30.0
"""CIELAB distance (1976) a status colour keeps from every policy colour: about 13 times the
just-noticeable 2.3, so the two read as different families, not shades of one."""
APART = 15.0
"""CIELAB distance between two status colours: told apart side by side in a stacked bar."""


def lab(color: str) -> tuple[float, float, float]:
    """An sRGB hex colour in CIELAB (D65)."""

    def linear(channel: float) -> float:
        return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(int(color[i : i + 2], 16) / 255) for i in (1, 3, 5))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def distance(one: str, other: str) -> float:
    """CIELAB delta E (1976): 0 for the same colour, about 2.3 just noticeable."""
    return math.dist(lab(one), lab(other))


def test_the_colour_distance_is_cielab() -> None:
    """The measure itself: white to black is 100, a colour to itself 0."""
    assert math.isclose(distance("#ffffff", "#000000"), 100.0, abs_tol=0.1)
    assert distance("#1f6feb", "#1f6feb") == 0.0


def test_every_status_has_a_colour_far_from_every_policy_colour() -> None:
    """No status colour equals, or is near, a policy's or the reference lines' colour."""
    assert set(STATUS_COLORS) == set(TrialStatus)
    drawn = {
        *POLICY_PALETTE,
        REFERENCE_COLOR,
        *policy_colors([f"p{n}" for n in range(12)]).values(),
    }
    near = [
        (status, color, other, round(distance(color, other), 1))
        for status, color in STATUS_COLORS.items()
        for other in drawn
        if distance(color, other) < FAR_FROM_POLICIES
    ]
    assert near == []


def test_status_colours_are_told_apart() -> None:
    """Two statuses side by side in one bar never look alike."""
    colors = list(STATUS_COLORS.values())
    close = [
        (one, other)
        for index, one in enumerate(colors)
        for other in colors[index + 1 :]
        if distance(one, other) < APART
    ]
    assert close == []


def test_how_trials_ended_is_drawn_in_status_colours_only() -> None:
    """Every fill in the status chart is far from every policy colour (it once reused them)."""
    statuses = list(TrialStatus)
    trials = [
        trial(f"c{n}", policy, status=statuses[n % len(statuses)], correct=n % 3 == 0)
        for policy in ("deterministic-first", "llm-always", "deterministic-only", "mine")
        for n in range(16)
    ]
    metrics = summarize(trials)
    (svg,) = charts(trials, metrics)["status-breakdown"].panels
    fills = set(re.findall(r"fill: (#[0-9a-f]{6})", svg)) - {"#ffffff"}
    assert set(STATUS_COLORS.values()) <= fills
    policies = policy_colors([m.policy for m in metrics]).values()
    assert [
        (fill, policy) for fill in fills for policy in policies
        if distance(fill, policy) < FAR_FROM_POLICIES
    ] == []  # fmt: skip
