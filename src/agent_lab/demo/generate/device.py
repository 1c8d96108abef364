"""``control_device`` cases: devices on, off and set to a level, in range or not."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_lab.demo.generate._slots import spoken

if TYPE_CHECKING:
    import random

    from agent_lab.demo.generate._slots import Case

__all__ = ["EVENT", "INVALID", "MISSING", "stated"]

EVENT: str = "control_device"
MISSING: tuple[str, ...] = (
    "turn on the lights",
    "switch it off",
    "turn the lights off",
    "switch on the lights please",
    "turn everything off",
    "switch the lights on",
    "switch it on",
)
"""Utterances that leave a required value unsaid: expected ``missing_information``."""
INVALID: tuple[tuple[str, dict[str, Any]], ...] = (
    ("set the thermostat to 95", {"device": "thermostat", "action": "set", "value": 95}),
    ("set the thermostat to 5", {"device": "thermostat", "action": "set", "value": 5}),
    ("set the fan to 150", {"device": "fan", "action": "set", "value": 150}),
    ("set the heating to 40", {"device": "thermostat", "action": "set", "value": 40}),
)
"""Readable utterances the schema refuses, with the values they state: expected
``invalid_arguments`` (the values let a simulated model call the tool as a real one would)."""


def stated(rng: random.Random) -> list[Case]:
    """Smart-home cases that state every value (complete or paraphrased)."""
    named = {"living room lights": "living room lights", "bedroom lights": "bedroom lights",
             "kitchen lights": "kitchen lights", "fan": "fan", "tv": "tv", "heating": "thermostat"}  # fmt: skip
    out: list[Any] = []
    for index, (words, device) in enumerate(list(named.items()) * 4):
        action = ("on", "off")[index % 2]
        template = ["turn {a} the {d}", "switch {a} the {d}", "please turn the {d} {a}"][index % 3]
        out.append(
            ("complete", template.format(a=action, d=words), {"device": device, "action": action})
        )
    for level in (18, 19, 20, 21, 22, 23):
        out.append(
            (
                "complete",
                f"set the thermostat to {spoken(rng, level)}",
                {"device": "thermostat", "action": "set", "value": level},
            )
        )
    for level in (25, 50, 75):
        out.append(
            (
                "complete",
                f"set the fan to {level}",
                {"device": "fan", "action": "set", "value": level},
            )
        )
    out += [
        ("paraphrase", "it's too dark in the living room", {"device": "living room lights", "action": "on"}),
        ("paraphrase", "it's too cold in here, warm it up to 23 degrees", {"device": "thermostat", "action": "set", "value": 23}),
        ("paraphrase", "it's too bright in the kitchen", {"device": "kitchen lights", "action": "off"}),
        ("paraphrase", "it's too hot, can you get some air moving", {"device": "fan", "action": "on"}),
        ("paraphrase", "kill the lights in the bedroom", {"device": "bedroom lights", "action": "off"}),
    ]  # fmt: skip
    return out
