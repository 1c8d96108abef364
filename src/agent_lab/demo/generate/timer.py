"""``set_timer`` cases: durations in digits and words, labels, impossible lengths."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_lab.demo.generate._slots import spoken

if TYPE_CHECKING:
    import random

    from agent_lab.demo.generate._slots import Case

__all__ = ["EVENT", "INVALID", "MISSING", "stated"]

EVENT: str = "set_timer"
MISSING: tuple[str, ...] = (
    "set a timer",
    "start a timer for the pasta",
    "I need a timer",
    "can you set a timer for the eggs",
    "timer please",
    "start a countdown for the bread",
)
"""Utterances that leave a required value unsaid: expected ``missing_information``."""
INVALID: tuple[tuple[str, dict[str, Any]], ...] = (
    ("set a timer for 2 days", {"duration_seconds": 172800}),
    ("set a timer for 3 days for the dough", {"duration_seconds": 259200, "label": "dough"}),
    ("set a timer for 25 hours", {"duration_seconds": 90000}),
    ("set a timer for 0 seconds", {"duration_seconds": 0}),
    ("start a timer for 48 hours", {"duration_seconds": 172800}),
)
"""Readable utterances the schema refuses, with the values they state: expected
``invalid_arguments`` (the values let a simulated model call the tool as a real one would)."""


def stated(rng: random.Random) -> list[Case]:
    """Timer cases that state every value (complete or paraphrased)."""
    labels = ["pasta", "eggs", "tea", "laundry", "oven", "pizza", "bread", "rice"]
    out: list[Any] = []
    for minutes in (2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 18, 20, 25, 30, 35, 45, 50):
        label = rng.choice(labels)
        templates: list[tuple[str, dict[str, Any]]] = [
            ("set a timer for {m} minutes", {}),
            ("start a {m} minute timer", {}),
            ("{m} minute timer for the {label}", {"label": label}),
            ("set a timer for {m} minutes for my {label}", {"label": label}),
            ("count down {m} minutes", {}),
        ]  # fmt: skip
        said, extra = rng.choice(templates)
        text = said.format(m=spoken(rng, minutes), label=label)
        out.append(("complete", text, {"duration_seconds": minutes * 60, **extra}))
    for seconds in (30, 45, 90):
        out.append(
            (
                "complete",
                f"set a timer for {spoken(rng, seconds)} seconds",
                {"duration_seconds": seconds},
            )
        )
    for hours in (1, 2, 3):
        out.append(
            (
                "complete",
                f"set a timer for {hours} hour{'s' if hours > 1 else ''}",
                {"duration_seconds": hours * 3600},
            )
        )
    out += [
        ("complete", "set a timer for half an hour", {"duration_seconds": 1800}),
        ("complete", "start a timer for an hour and a half", {"duration_seconds": 5400}),
        ("complete", "set a timer for a quarter of an hour for the tea", {"duration_seconds": 900, "label": "tea"}),
        ("complete", "bread timer for 40 minutes", {"duration_seconds": 2400, "label": "bread"}),
        ("complete", "timer for 1.5 hours", {"duration_seconds": 5400}),
        ("complete", "set a timer for 6 minutes for the eggs", {"duration_seconds": 360, "label": "eggs"}),
        ("paraphrase", "set a timer for two and a half minutes", {"duration_seconds": 150}),
        ("paraphrase", "timer for 1h30 please", {"duration_seconds": 5400}),
        ("paraphrase", "set a timer for a quarter hour", {"duration_seconds": 900}),
        ("complete", "timer: three quarters of an hour", {"duration_seconds": 2700}),
        ("paraphrase", "set a timer for twenty minutes less five", {"duration_seconds": 900}),
        ("paraphrase", "set a timer for three and a half minutes for the eggs", {"duration_seconds": 210, "label": "eggs"}),
        ("paraphrase", "set a timer for one hundred and twenty seconds", {"duration_seconds": 120}),
    ]  # fmt: skip
    return out
