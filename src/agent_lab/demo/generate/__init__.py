"""Writes the demo workload (``workload.jsonl``): natural utterances with their ground truth.

Run ``uv run python -m agent_lab.demo.generate`` to rewrite the shipped file;
a test checks that the shipped file is exactly what this produces.

Every case says which event is meant (``null`` when none is), the status a
correct assistant ends with, and, for ``success``, the exact arguments. The
expected values come from the templates' own slot values, never from the
resolvers, so the resolvers are checked against them. Categories (tags):

* ``complete``: plain code can read everything: expected ``success``.
* ``paraphrase``: the information is there, in words the resolvers do not
  read (or the router does not recognise): expected ``success``, which only
  an LLM can reach.
* ``missing``: the information is not in the words: expected
  ``missing_information`` (the assistant should ask).
* ``invalid``: readable, but outside what the event accepts: expected
  ``invalid_arguments``.
* ``out_of_domain``: no event fits: expected ``unknown_event``. A few use
  words the router keys on ("book", "play"), on purpose.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_lab.demo.generate import (
    calendar,
    device,
    message,
    music,
    reminder,
    timer,
    units,
    weather,
)
from agent_lab.demo.generate._slots import NOW
from agent_lab.demo.generate.out_of_domain import OUT_OF_DOMAIN

if TYPE_CHECKING:
    from collections.abc import Iterator

    from agent_lab.demo.generate._slots import Case

__all__ = ["NOW", "WORKLOAD", "cases", "render", "write"]

WORKLOAD = Path(__file__).parent.with_name("workload.jsonl")
"""The shipped workload file."""


class _EventCases(Protocol):
    """What each event's module offers: its name, its stated cases, its missing and invalid."""

    EVENT: str
    MISSING: tuple[str, ...]
    INVALID: tuple[tuple[str, dict[str, Any]], ...]

    def stated(self, rng: random.Random) -> list[Case]: ...


# One seeded generator draws for every event in this order: reordering
# would rewrite the workload.
_EVENTS: tuple[_EventCases, ...] = (
    timer,
    reminder,
    weather,
    calendar,
    message,
    music,
    units,
    device,
)


def _of(event: _EventCases, rng: random.Random) -> Iterator[Case]:
    """One event's cases: those stating every value, then the missing, then the invalid."""
    yield from event.stated(rng)
    for text in event.MISSING:
        yield "missing", text, None
    for text, stated in event.INVALID:
        yield "invalid", text, stated


_STATUS = {"complete": "success", "paraphrase": "success", "missing": "missing_information",
           "invalid": "invalid_arguments"}  # fmt: skip


def _row(
    case_id: str, *, event: str | None, text: str, status: str, arguments: Any, tags: list[str]
) -> dict[str, Any]:
    return {
        "id": case_id,
        "event": event,
        "text": text,
        "payload": {},
        "context": {"now": NOW.isoformat(timespec="minutes")},
        # An invalid case keeps the values its words state: what a model would call the tool
        # with (and the kernel refuse); scoring reads only its status.
        "expected": {"status": status, "arguments": arguments},
        "tags": tags,
    }


def cases() -> list[dict[str, Any]]:
    """Every case of the demo workload, in a fixed order."""
    rng = random.Random(2026)
    rows: list[dict[str, Any]] = []
    counters: dict[str, int] = {}
    seen: set[str] = set()
    for module in _EVENTS:
        event = module.EVENT
        for category, text, arguments in _of(module, rng):
            if text in seen:
                continue  # random templates can repeat an utterance; each text is one case
            seen.add(text)
            key = f"{event}-{category}"
            counters[key] = counters.get(key, 0) + 1
            case_id = f"{key}-{counters[key]:03d}"
            status, tags = _STATUS[category], [category, event]
            rows.append(
                _row(case_id, event=event, text=text, status=status, arguments=arguments, tags=tags)
            )
    for index, text in enumerate(OUT_OF_DOMAIN, start=1):
        case_id = f"out_of_domain-{index:03d}"
        tags = ["out_of_domain"]
        rows.append(
            _row(case_id, event=None, text=text, status="unknown_event", arguments=None, tags=tags)
        )
    return rows


def render() -> str:
    """The workload file's exact text."""
    return "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in cases())


def write(target: Path = WORKLOAD) -> str:
    """Write the workload file to ``target``; return how many cases of each category it holds."""
    target.write_text(render(), encoding="utf-8")
    counts = Counter(row["tags"][0] for row in cases())
    return f"wrote {target} ({counts.total()} cases): {dict(counts)}"
