"""Every shipped resolver and router stays linear on 40 KiB of adversarial text.

A pattern free to start anywhere and to backtrack over a run (``\\d+`` before
a word that never comes, ``(?:\\w+ )*?`` before a particle) is quadratic on
long input: ``"convert " + "9" * 40_000`` took 68 s in the demo's unit
converter, and ``"turn " * 8_000`` 3.4 s in its device reader. The bounds
here are 20x or more what a linear scan needs on this machine, so only a
quadratic pattern misses them.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from agent_lab.demo import plugins as demo_plugins
from agent_lab.kernel.models import Event
from agent_lab.lab.importers.bfcl import import_bfcl
from agent_lab.lab.importers.sgd import import_sgd
from agent_lab.lab.run.plugin_sets import load_plugins
from agent_lab.resolvers.schema import SchemaResolver
from tests.conftest import corpus

if TYPE_CHECKING:
    from agent_lab.kernel.models import EventDefinition

SIZE = 40 * 1024
UNITS = {
    "digits": "9",
    "digits after a verb": None,
    "digit and space": "9 ",
    "letters": "a",
    "spaces": " ",
    "turn": "turn ",
    "set": "set ",
    "number words": "twenty ",
    "clock colons": "9:",
    "percent": "9%",
    "decimal dots": "9.",
    "capitalised names": "Oslo ",
    "a phrase": "remind me in 5 minutes at 5pm tomorrow to call Ann ",
    "bare hours": "at 5 ",
    "parts of the day": "evening 6 ",
    "quarters": "quarter to ",
    "o'clock": "9 o'clock ",
    "acceptances": "Yes ",
    "corrections": "No, ",
    "thousands": "1,1",
    "questions": "is it for 3 seats? ",
    "negations": "no wifi ",
}


def shape(name: str) -> str:
    unit = UNITS[name]
    if unit is None:
        return "convert " + "9" * SIZE
    return unit * (SIZE // len(unit))


def seconds(definition: EventDefinition, text: str) -> float:
    assert definition.resolver is not None
    event = Event(definition.name, text=text, context={"now": "2026-12-01T09:00"})
    started = time.perf_counter()
    definition.resolver(event)
    return time.perf_counter() - started


DEMO = [d for d in demo_plugins.definitions if d.resolver is not None]


@pytest.mark.parametrize("name", list(UNITS))
@pytest.mark.parametrize("definition", DEMO, ids=[d.name for d in DEMO])
def test_demo_resolvers_are_linear(definition: EventDefinition, name: str) -> None:
    assert seconds(definition, shape(name)) < 1.0


@pytest.mark.parametrize("name", list(UNITS))
def test_the_demo_router_is_linear(name: str) -> None:
    started = time.perf_counter()
    demo_plugins.route(shape(name))
    assert time.perf_counter() - started < 1.0


IMPORTED_SHAPES = [
    "digit and space", "percent", "clock colons", "number words", "a phrase", "bare hours",
    "parts of the day", "acceptances", "corrections", "thousands", "questions", "negations",
]  # fmt: skip
# Every kind the schema-driven resolver reads, with names its cues and rivals work on.
ALL_KINDS = SchemaResolver(
    {
        "type": "object",
        "properties": {
            "number_of_seats": {"type": "integer", "description": "Number of seats"},
            "passengers": {"type": "integer"},
            "has_wifi": {"type": "boolean"},
            "appointment_time": {"type": "string", "format": "time"},
            "day": {"type": "string", "format": "date"},
            "account_type": {"type": "string", "enum": ["checking", "savings"]},
            "recipient_account_type": {"type": "string", "enum": ["checking", "savings"]},
            "city": {"type": "string"},
        },
    }
)


def best_of_five(text: str) -> float:
    event = Event("e", text=text, context={"now": "2026-12-01T09:00"})
    times: list[float] = []
    for _ in range(5):
        started = time.perf_counter()
        ALL_KINDS(event)
        times.append(time.perf_counter() - started)
    return min(times)


@pytest.mark.parametrize("name", list(UNITS))
def test_the_schema_resolver_is_linear(name: str) -> None:
    """Each of its readers (times, numbers, flags, dates, enums) and the doubts they share.

    Its many readers take a few tenths of a second on 40 KiB, too close to an
    absolute bound on a loaded machine: so it is the growth that is checked.
    Four times the text takes about four times as long when the readers are
    linear, and sixteen when one is quadratic; the bound is ten, on the best
    of five timings of each size, which a passing load leaves alone.
    """
    text = shape(name)
    quarter = text[: len(text) // 4]
    assert best_of_five(text) < 10 * max(best_of_five(quarter), 1e-3)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[EventDefinition]]:
    root = tmp_path_factory.mktemp("imported")
    import_sgd(corpus("sgd", "dev"), root / "sgd")
    import_bfcl(corpus("bfcl"), root / "bfcl")
    sets: dict[str, list[EventDefinition]] = {}
    for name, step in (("sgd", 3), ("bfcl", 60)):
        definitions = list(load_plugins(str(Path(root / name))).definitions)
        # A sample across the set: each definition's resolver is the same code over
        # a different schema, so patterns built from names, enums and formats vary.
        sets[name] = [d for d in definitions[::step] if d.resolver is not None]
    return sets


@pytest.mark.slow
@pytest.mark.parametrize("source", ["sgd", "bfcl"])
def test_importer_built_resolvers_are_linear(
    imported: dict[str, list[EventDefinition]], source: str
) -> None:
    slow = [
        (definition.name, name, round(took, 2))
        for definition in imported[source]
        for name in IMPORTED_SHAPES
        if (took := seconds(definition, shape(name))) > 2.0
    ]
    assert slow == []
