"""``convert_units`` cases: values between units of one family, or of two."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import random

    from agent_lab.demo.generate._slots import Case

__all__ = ["EVENT", "INVALID", "MISSING", "stated"]

EVENT: str = "convert_units"
MISSING: tuple[str, ...] = (
    "convert to miles",
    "how many kilometers",
    "convert kilograms to pounds",
    "convert this to fahrenheit",
    "can you convert some units for me",
)
"""Utterances that leave a required value unsaid: expected ``missing_information``."""
INVALID: tuple[tuple[str, dict[str, Any]], ...] = (
    ("convert 5 km to kg", {"value": 5, "from_unit": "km", "to_unit": "kg"}),
    ("convert 10 pounds to celsius", {"value": 10, "from_unit": "lb", "to_unit": "c"}),
    ("convert 3 miles to grams", {"value": 3, "from_unit": "mi", "to_unit": "g"}),
    ("convert 20 fahrenheit to feet", {"value": 20, "from_unit": "f", "to_unit": "ft"}),
)
"""Readable utterances the schema refuses, with the values they state: expected
``invalid_arguments`` (the values let a simulated model call the tool as a real one would)."""


def stated(rng: random.Random) -> list[Case]:
    """Unit conversion cases that state every value (complete or paraphrased)."""
    said = {"km": ["kilometers", "km"], "mi": ["miles"], "kg": ["kilograms", "kg", "kilos"], "lb": ["pounds"],
            "c": ["celsius"], "f": ["fahrenheit"], "m": ["meters"], "ft": ["feet"], "g": ["grams"], "oz": ["ounces"]}  # fmt: skip
    pairs = [("km", "mi"), ("mi", "km"), ("kg", "lb"), ("lb", "kg"), ("c", "f"), ("f", "c"), ("m", "ft"), ("ft", "m"),
             ("g", "oz"), ("oz", "g")]  # fmt: skip
    out: list[Any] = []
    for index in range(45):
        source, target = pairs[index % len(pairs)]
        value: int | float = rng.choice([1, 2, 3, 5, 10, 12, 20, 25, 42, 100, 2.5, 0.5])
        words_from, words_to = rng.choice(said[source]), rng.choice(said[target])
        template = ["convert {v} {f} to {t}", "how many {t} is {v} {f}", "what is {v} {f} in {t}"][
            index % 3
        ]
        if template.startswith("how many") and source in ("c", "f"):
            template = "convert {v} {f} to {t}"
        out.append(
            (
                "complete",
                template.format(v=value, f=words_from, t=words_to),
                {"value": value, "from_unit": source, "to_unit": target},
            )
        )
    out += [
        ("paraphrase", "I weigh 150 pounds, what's that in kilos", {"value": 150, "from_unit": "lb", "to_unit": "kg"}),
        ("paraphrase", "it's 30 degrees celsius here, what's that for an American", {"value": 30, "from_unit": "c", "to_unit": "f"}),
        ("paraphrase", "a 10k run is how many miles", {"value": 10, "from_unit": "km", "to_unit": "mi"}),
        ("paraphrase", "my suitcase is 23 kilos, is that under 50 pounds", {"value": 23, "from_unit": "kg", "to_unit": "lb"}),
        ("paraphrase", "the recipe says 200 grams of flour, how much is that in ounces", {"value": 200, "from_unit": "g", "to_unit": "oz"}),
    ]  # fmt: skip
    return out
