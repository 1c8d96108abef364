"""Median per-dispatch time of the kernel, side by side with its baselines, in one run.

Run on demand (never part of the tests):

    uv run --group bench python benchmarks/bench_dispatch.py

It measures, in the same process and the same run:

* the raw jsonschema-rs ``is_valid`` call (the floor) and pure-Python ``jsonschema``;
* ``EventKernel.dispatch`` and ``adispatch`` on a 4-property schema and on a
  40-property schema with ``oneOf``/``anyOf``/``$ref``, deterministic path;
* the fallback path with an instant scripted fallback, and its overhead over
  the deterministic path on the same schema;
* with the ``otel`` extra, the same deterministic dispatch inside a dispatch span,
  with no tracer provider configured and with the SDK recording it;
* LangChain's ``StructuredTool.invoke`` and Semantic Kernel's
  ``kernel.invoke`` on the same models, when the ``bench`` group is installed.

Each figure is the median of ``--repeats`` batches of ``--loops`` calls.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import platform
import statistics
import sys
import time
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import jsonschema
import jsonschema_rs
from pydantic import BaseModel, Field, create_model

from agent_lab import (
    Event,
    EventDefinition,
    EventKernel,
    EventRegistry,
    FallbackReply,
    FallbackRequest,
    Status,
)

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    from agent_lab.strict_json import JSONValue

# The schemas -------------------------------------------------------------------


class Unit(StrEnum):
    SECONDS = "s"
    MINUTES = "min"


class Timer(BaseModel):
    """A 4-property event: set a timer."""

    duration_seconds: int = Field(ge=1, le=86_400)
    label: str = Field(max_length=80)
    unit: Unit
    loud: bool


class Person(BaseModel):
    name: str = Field(min_length=1)
    email: str = Field(pattern=r"^[^@\s]+@[^@\s]+$")
    optional: bool = False


class Room(BaseModel):
    kind: Literal["room"]
    building: str
    floor: int = Field(ge=-5, le=200)


class VideoCall(BaseModel):
    kind: Literal["video"]
    url: str = Field(pattern=r"^https://")
    dial_in: str | None = None


class Recurrence(BaseModel):
    frequency: Literal["daily", "weekly", "monthly"]
    interval: int = Field(ge=1, le=365)
    until: str | None = None


def _calendar_model() -> type[BaseModel]:
    fields: dict[str, Any] = {
        "title": (str, Field(min_length=1, max_length=200)),
        "start": (str, Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")),
        "end": (str, Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")),
        "timezone": (Literal["UTC", "Europe/Oslo", "America/New_York", "Asia/Tokyo"], ...),
        "organizer": (Person, ...),
        "attendees": (list[Person], Field(max_length=50)),
        "location": (Annotated[Room | VideoCall, Field(discriminator="kind")], ...),
        "reminders": (list[int | Recurrence], Field(max_length=5)),
        "recurrence": (Recurrence | None, None),
        "priority": (Literal["low", "normal", "high"], "normal"),
    }
    for index in range(10):
        fields[f"flag_{index}"] = (bool, False)
    for index in range(10):
        fields[f"count_{index}"] = (int, Field(default=0, ge=0, le=1000))
    for index in range(10):
        fields[f"note_{index}"] = (str, Field(default="", max_length=500))
    model: type[BaseModel] = create_model("CalendarEvent", **fields)
    return model


CalendarEvent = _calendar_model()

TIMER_ARGS: dict[str, JSONValue] = {
    "duration_seconds": 600,
    "label": "tea",
    "unit": "s",
    "loud": True,
}
CALENDAR_ARGS: dict[str, JSONValue] = {
    "title": "Design review",
    "start": "2026-12-01T09:00",
    "end": "2026-12-01T10:00",
    "timezone": "Europe/Oslo",
    "organizer": {"name": "Ada", "email": "ada@example.com"},
    "attendees": [
        {"name": "Grace", "email": "grace@example.com"},
        {"name": "Linus", "email": "linus@example.com", "optional": True},
    ],
    "location": {"kind": "video", "url": "https://meet.example.com/x"},
    "reminders": [10, {"frequency": "daily", "interval": 1}],
    "recurrence": {"frequency": "weekly", "interval": 1},
    "priority": "high",
    **{f"flag_{i}": i % 2 == 0 for i in range(10)},
    **{f"count_{i}": i for i in range(10)},
    **{f"note_{i}": f"note {i}" for i in range(10)},
}


# Timing ------------------------------------------------------------------------------


def median_us(function: Callable[[], object], *, loops: int, repeats: int) -> float:
    """Median over ``repeats`` batches of the mean time of one call, in microseconds."""
    for _ in range(max(1, loops // 10)):
        function()
    samples: list[float] = []
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeats):
            started = time.perf_counter_ns()
            for _ in range(loops):
                function()
            samples.append((time.perf_counter_ns() - started) / loops / 1_000)
    finally:
        if gc_was_enabled:
            gc.enable()
    return statistics.median(samples)


def median_us_async(make: Callable[[], Awaitable[object]], *, loops: int, repeats: int) -> float:
    """Like ``median_us`` for a coroutine, awaited in a loop inside one event loop."""

    async def batch(count: int) -> float:
        started = time.perf_counter_ns()
        for _ in range(count):
            await make()
        return (time.perf_counter_ns() - started) / count / 1_000

    async def run() -> float:
        await batch(max(1, loops // 10))
        return statistics.median([await batch(loops) for _ in range(repeats)])

    return asyncio.run(run())


# What is measured ----------------------------------------------------------------------


def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def build_kernel() -> EventKernel:
    registry = EventRegistry()
    timer_missing = {k: v for k, v in TIMER_ARGS.items() if k != "duration_seconds"}
    calendar_missing = {k: v for k, v in CALENDAR_ARGS.items() if k != "title"}

    def done(arguments: Mapping[str, JSONValue]) -> JSONValue:
        return "ok"

    # The kernel's rows register the models' JSON Schemas, so that they measure the
    # kernel alone; the "model validated" rows register the classes, whose own
    # validation then runs too (what LangChain's StructuredTool also does).
    timer, calendar = schema_of(Timer), schema_of(CalendarEvent)
    registry.register(
        EventDefinition("timer", parameters=timer, resolver=lambda e: TIMER_ARGS, handler=done)
    )
    registry.register(
        EventDefinition(
            "calendar", parameters=calendar, resolver=lambda e: CALENDAR_ARGS, handler=done
        )
    )
    registry.register(
        EventDefinition(
            "timer_model", parameters=Timer, resolver=lambda e: TIMER_ARGS, handler=done
        )
    )
    registry.register(
        EventDefinition(
            "calendar_model",
            parameters=CalendarEvent,
            resolver=lambda e: CALENDAR_ARGS,
            handler=done,
        )
    )
    registry.register(
        EventDefinition(
            "timer_fallback", parameters=timer, resolver=lambda e: timer_missing, handler=done
        )
    )
    registry.register(
        EventDefinition(
            "calendar_fallback",
            parameters=calendar,
            resolver=lambda e: calendar_missing,
            handler=done,
        )
    )
    replies = {
        "timer_fallback": FallbackReply(
            '{"duration_seconds": 600}', arguments={"duration_seconds": 600}
        ),
        "calendar_fallback": FallbackReply(
            '{"title": "Design review"}', arguments={"title": "Design review"}
        ),
    }

    def instant_fallback(request: FallbackRequest) -> FallbackReply:
        return replies[request.definition.name]

    async def async_resolver(event: Event) -> Mapping[str, JSONValue]:
        return timer_missing

    async def async_handler(arguments: Mapping[str, JSONValue]) -> JSONValue:
        return "ok"

    registry.register(
        EventDefinition(
            "timer_async",
            parameters=timer,
            resolver=async_resolver,
            handler=async_handler,
        )
    )
    replies["timer_async"] = replies["timer_fallback"]

    async def fallback(request: FallbackRequest) -> FallbackReply:
        return replies[request.definition.name]

    def either_fallback(request: FallbackRequest) -> FallbackReply | Awaitable[FallbackReply]:
        # Only the async event's fallback is a coroutine: the other rows stay synchronous.
        if request.definition.name == "timer_async":
            return fallback(request)
        return instant_fallback(request)

    return EventKernel(registry, either_fallback)


def check(kernel: EventKernel) -> None:
    for name, calls in (
        ("timer", 0),
        ("calendar", 0),
        ("timer_model", 0),
        ("calendar_model", 0),
        ("timer_fallback", 1),
        ("calendar_fallback", 1),
        ("timer_async", 1),
    ):
        result = kernel.dispatch(Event(name))
        if result.status is not Status.SUCCESS or result.llm_calls != calls:
            raise SystemExit(f"benchmark setup is wrong: {name} gave {result}")


def langchain_tools() -> dict[str, Callable[[], object]]:
    try:
        from langchain_core.tools import StructuredTool
    except ImportError:
        return {}

    def timer(**kwargs: Any) -> str:
        return "ok"

    timer_tool = StructuredTool.from_function(
        timer, name="timer", description="Set a timer", args_schema=Timer
    )
    calendar_tool = StructuredTool.from_function(
        timer, name="calendar", description="Create an event", args_schema=CalendarEvent
    )
    return {
        "small": lambda: timer_tool.invoke(TIMER_ARGS),
        "large": lambda: calendar_tool.invoke(CALENDAR_ARGS),
    }


def semantic_kernel_invoke() -> Callable[[], Awaitable[object]] | None:
    try:
        from semantic_kernel import Kernel
        from semantic_kernel.functions import KernelArguments, kernel_function
    except ImportError:
        return None

    class TimerPlugin:
        @kernel_function(name="set_timer", description="Set a timer")
        def set_timer(self, duration_seconds: int, label: str, unit: str, loud: bool) -> str:  # noqa: FBT001
            return "ok"

    kernel = Kernel()
    kernel.add_plugin(TimerPlugin(), plugin_name="timers")
    function = kernel.get_function("timers", "set_timer")
    arguments = KernelArguments(duration_seconds=600, label="tea", unit="s", loud=True)
    return lambda: kernel.invoke(function, arguments)


def tracing_rows(kernel: EventKernel, *, loops: int, repeats: int) -> list[tuple[str, str, float]]:
    """The otel extra's cost: no tracer provider (the default), and an SDK that records."""
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        from agent_lab.otel import Tracing
    except ImportError:
        return []
    idle = Tracing()
    exporter = InMemorySpanExporter()
    sdk = TracerProvider()
    sdk.add_span_processor(SimpleSpanProcessor(exporter))
    recording = Tracing(sdk)
    deterministic = Event("timer")

    def recorded() -> object:
        result = recording.dispatch(kernel, deterministic)
        exporter.clear()  # keep memory flat: the exporter would hold every span
        return result

    return [
        (
            "small",
            "dispatch in a span, no tracer provider",
            median_us(lambda: idle.dispatch(kernel, deterministic), loops=loops, repeats=repeats),
        ),
        (
            "small",
            "dispatch in a span, SDK recording it",
            median_us(recorded, loops=loops, repeats=repeats),
        ),
    ]


def measure_size(
    size: str,
    *,
    kernel: EventKernel,
    raw: jsonschema_rs.Validator,
    pure: jsonschema.Draft202012Validator,
    arguments: dict[str, JSONValue],
    events: tuple[Event, Event, Event],
    chain: Callable[[], object] | None,
    sk: Callable[[], Awaitable[object]] | None,
    loops: int,
    repeats: int,
) -> list[tuple[str, str, float]]:
    """Measure every contender on one schema size, side by side."""
    deterministic, fallback, modelled = events
    slow_loops = max(1, loops // 10)
    rows = [
        (
            size,
            "jsonschema-rs is_valid (floor)",
            median_us(lambda: raw.is_valid(arguments), loops=loops, repeats=repeats),
        ),
        (
            size,
            "jsonschema (pure Python) is_valid",
            median_us(
                lambda: pure.is_valid(arguments),  # pyright: ignore[reportUnknownMemberType]
                loops=slow_loops,
                repeats=repeats,
            ),
        ),
        (
            size,
            "agent-lab dispatch, deterministic",
            median_us(lambda: kernel.dispatch(deterministic), loops=loops, repeats=repeats),
        ),
        (
            size,
            "agent-lab adispatch, deterministic",
            median_us_async(lambda: kernel.adispatch(deterministic), loops=loops, repeats=repeats),
        ),
        (
            size,
            "agent-lab dispatch, instant fallback",
            median_us(lambda: kernel.dispatch(fallback), loops=loops, repeats=repeats),
        ),
        (
            size,
            "agent-lab dispatch, Pydantic model validated too",
            median_us(lambda: kernel.dispatch(modelled), loops=loops, repeats=repeats),
        ),
    ]
    if chain is not None:
        rows.append(
            (
                size,
                "langchain-core StructuredTool.invoke",
                median_us(chain, loops=slow_loops, repeats=repeats),
            )
        )
    if sk is not None:
        rows.append(
            (
                size,
                "semantic-kernel kernel.invoke",
                median_us_async(sk, loops=slow_loops, repeats=repeats),
            )
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--loops", type=int, default=2_000, help="calls per batch")
    parser.add_argument("--repeats", type=int, default=15, help="batches per figure")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    options = parser.parse_args(argv)
    loops, repeats = options.loops, options.repeats

    kernel = build_kernel()
    check(kernel)
    raw = {
        "small": jsonschema_rs.validator_for(schema_of(Timer)),
        "large": jsonschema_rs.validator_for(schema_of(CalendarEvent)),
    }
    pure = {
        "small": jsonschema.Draft202012Validator(schema_of(Timer)),
        "large": jsonschema.Draft202012Validator(schema_of(CalendarEvent)),
    }
    args = {"small": TIMER_ARGS, "large": CALENDAR_ARGS}
    events = {
        "small": (Event("timer"), Event("timer_fallback"), Event("timer_model")),
        "large": (Event("calendar"), Event("calendar_fallback"), Event("calendar_model")),
    }
    chains = langchain_tools()
    sk = semantic_kernel_invoke()

    asynchronous = Event("timer_async")
    rows: list[tuple[str, str, float]] = [
        (
            "small",
            "dispatch, async resolver+fallback+handler",
            median_us(
                lambda: kernel.dispatch(asynchronous),
                loops=max(1, loops // 10),
                repeats=repeats,
            ),
        ),
        (
            "small",
            "adispatch, async resolver+fallback+handler",
            median_us_async(lambda: kernel.adispatch(asynchronous), loops=loops, repeats=repeats),
        ),
    ]
    for size in ("small", "large"):
        rows += measure_size(
            size,
            kernel=kernel,
            raw=raw[size],
            pure=pure[size],
            arguments=args[size],
            events=events[size],
            chain=chains.get(size),
            sk=sk if size == "small" else None,
            loops=loops,
            repeats=repeats,
        )

    rows += tracing_rows(kernel, loops=loops, repeats=repeats)

    figures = {(size, name): value for size, name, value in rows}
    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{loops} calls x {repeats} batches, median of batches"
    )
    print(f"{'schema':<7} {'what':<40} {'median us':>10} {'x dispatch':>11}")
    for size, name, value in rows:
        base = figures[(size, "agent-lab dispatch, deterministic")]
        print(f"{size:<7} {name:<40} {value:>10.2f} {value / base:>10.1f}x")
    overhead = {
        size: figures[(size, "agent-lab dispatch, instant fallback")]
        - figures[(size, "agent-lab dispatch, deterministic")]
        for size in ("small", "large")
    }
    for size, value in overhead.items():
        print(f"{size:<7} {'fallback-path overhead over deterministic':<40} {value:>10.2f}")
    targets = [
        ("small dispatch <= 5 us", figures[("small", "agent-lab dispatch, deterministic")] <= 5),
        (
            "40-property dispatch <= 15 us",
            figures[("large", "agent-lab dispatch, deterministic")] <= 15,
        ),
        ("fallback overhead <= 10 us", max(overhead.values()) <= 10),
    ]
    for label, met in targets:
        print(f"target {label}: {'met' if met else 'MISSED'}")
    if options.json:
        with Path(options.json).open("w", encoding="utf-8") as out:
            json.dump(
                {
                    "python": sys.version,
                    "rows": [{"schema": s, "what": n, "median_us": v} for s, n, v in rows],
                    "fallback_overhead_us": overhead,
                },
                out,
                indent=2,
            )
    return 0 if all(met for _, met in targets) else 1


if __name__ == "__main__":
    sys.exit(main())
