"""``send_message`` cases: recipients, bodies and the channel each verb names."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import random

    from agent_lab.demo.generate._slots import Case

__all__ = ["EVENT", "INVALID", "MISSING", "stated"]

EVENT: str = "send_message"
MISSING: tuple[str, ...] = (
    "send a message to Dave",
    "text Anna",
    "send an email to Frank",
    "message Jonas",
    "send a text",
)
"""Utterances that leave a required value unsaid: expected ``missing_information``."""
INVALID: tuple[tuple[str, dict[str, Any]], ...] = (
    ("fax Carla that the contract is signed", {"to": "Carla", "body": "the contract is signed", "channel": "fax"}),
    ("whatsapp Bob that I'm outside", {"to": "Bob", "body": "I'm outside", "channel": "whatsapp"}),
    ("fax Eve that the forms are ready", {"to": "Eve", "body": "the forms are ready", "channel": "fax"}),
    ("whatsapp Anna that dinner is ready", {"to": "Anna", "body": "dinner is ready", "channel": "whatsapp"}),
)  # fmt: skip
"""Readable utterances the schema refuses, with the values they state: expected
``invalid_arguments`` (the values let a simulated model call the tool as a real one would)."""


def stated(rng: random.Random) -> list[Case]:
    """Message cases that state every value (complete or paraphrased)."""
    names = ["Anna", "Bob", "Carla", "Dave", "Eve", "Frank", "Grace", "Hugo", "Ines", "Jonas"]
    bodies = ["I'm running late", "dinner is ready", "the meeting moved to 3", "see you at the station",
              "happy birthday", "call me when you land", "the keys are under the mat", "I'll bring the wine"]  # fmt: skip
    verbs = [("text {n} that {b}", "sms"), ("email {n}: {b}", "email"), ("message {n} saying {b}", "chat"),
             ("tell {n} that {b}", "chat"), ("text {n}: {b}", "sms"), ("email {n} that {b}", "email")]  # fmt: skip
    out: list[Any] = []
    for index in range(40):
        name, body = names[index % len(names)], rng.choice(bodies)
        template, channel = verbs[index % len(verbs)]
        out.append(
            (
                "complete",
                template.format(n=name, b=body),
                {"to": name, "body": body, "channel": channel},
            )
        )
    out += [
        ("paraphrase", "let Carla know I'll be late", {"to": "Carla", "body": "I'll be late"}),
        ("paraphrase", "let Bob know that dinner is ready", {"to": "Bob", "body": "dinner is ready"}),
        ("paraphrase", "let Grace know the package arrived", {"to": "Grace", "body": "the package arrived"}),
        ("paraphrase", "send a quick text to Hugo, just say thanks", {"to": "Hugo", "body": "thanks", "channel": "sms"}),
        ("paraphrase", "drop Ines an email that the invoice is paid", {"to": "Ines", "body": "the invoice is paid", "channel": "email"}),
    ]  # fmt: skip
    return out
