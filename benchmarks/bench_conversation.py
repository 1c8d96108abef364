"""The conversation reader's cost: per request by conversation length, and shadow's throughput.

Run on demand:

    uv run python benchmarks/bench_conversation.py [--lengths 10,20,100,1000] [--calls 5000]

1. **Per request.** An ``Answerer`` answers conversations of 10, 20, 100 and
   1,000 messages (searches, their results, the assistant's words, the user's
   turns, ending with the user accepting a booking's summary), each asked
   ``--repeats`` times with a different last message so that the last
   message is never a text read before; the median and p90 are printed, and
   the ratio of each length's median to the 10-message one (linear cost: about
   the ratio of the lengths, or less).
2. **Shadow.** A ``pairs`` log of ``--calls`` such requests of about ten
   messages is written and replayed by ``agent-lab shadow`` in a fresh process;
   logged calls per second over its wall time (start-up included).

Targets (issue 34): shadow at least 2,000 logged calls a second on one core for
conversations of about ten messages; the local decision's p50 at most 0.5 ms for
twenty messages; cost linear in the length. Nothing here asserts them: the
numbers are printed, with the machine's own noise.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent_lab.answering import Answerer, Asked

NOW = "2026-04-01T09:00"
CITIES = ["Ghent", "Porto", "Leeds", "Lyon", "Graz", "Turin", "Bergen", "Malmo", "Cork", "Split"]


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> Any:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


TOOLS = [
    _tool(
        "find_tables",
        "Find restaurants with a free table in a city.",
        {"city": {"type": "string", "description": "The city"}},
        ["city"],
    ),
    _tool(
        "reserve_table",
        "Reserve a table at a restaurant.",
        {
            "restaurant": {"type": "string", "description": "The restaurant's name"},
            "city": {"type": "string", "description": "The city"},
            "guests": {"type": "integer", "minimum": 1, "description": "Guests at the table"},
            "day": {"type": "string", "format": "date", "description": "The day"},
            "time": {"type": "string", "format": "time", "description": "The time"},
        },
        ["restaurant", "city", "guests", "day", "time"],
    ),
    _tool(
        "get_weather",
        "Get the current weather for a city.",
        {"city": {"type": "string", "description": "The city"}},
        ["city"],
    ),
]


def _search(city: str, ident: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": f"Could you find a restaurant in {city} for Friday?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": ident,
                    "type": "function",
                    "function": {"name": "find_tables", "arguments": json.dumps({"city": city})},
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": ident,
            "content": json.dumps([{"restaurant": "De Vitrine"}, {"restaurant": "Pakhuis"}]),
        },
        {"role": "assistant", "content": "De Vitrine or Pakhuis have tables. Which one?"},
    ]


def conversation(length: int, variant: int) -> list[dict[str, Any]]:
    """About ``length`` messages, ending with the user accepting a booking's summary."""
    messages: list[dict[str, Any]] = []
    index = 0
    while len(messages) + 10 < length:
        messages += _search(CITIES[index % len(CITIES)], f"c{index}")
        messages += [
            {"role": "user", "content": "Not now, thanks."},
            {"role": "assistant", "content": "Anything else?"},
        ]
        index += 1
    city = CITIES[variant % len(CITIES)]
    messages += _search(city, "last")
    messages += [
        {"role": "user", "content": f"Pakhuis, for {2 + variant % 5} of us at 7:30 pm."},
        {
            "role": "assistant",
            "content": f"Please confirm: a table for {2 + variant % 5} at Pakhuis in {city} on "
            "Friday, April 3rd, at 7:30 pm. Is that right?",
        },
        {"role": "user", "content": ["Yes, that's right.", "Yes please.", "Correct."][variant % 3]},
    ]
    return messages


def per_request(lengths: list[int], repeats: int) -> dict[int, float]:
    answerer = Answerer(ask=False)
    medians: dict[int, float] = {}
    for length in lengths:
        asked = [Asked(messages=conversation(length, v), tools=TOOLS) for v in range(repeats)]
        answerer.answer(asked[0], now=NOW)  # the deciders and readers, made once
        took: list[float] = []
        for one in asked:
            start = time.perf_counter()
            answerer.answer(one, now=NOW)
            took.append((time.perf_counter() - start) * 1000)
        took.sort()
        medians[length] = statistics.median(took)
        p90 = took[int(len(took) * 0.9)]
        print(
            f"{len(asked[0].messages):5d} messages: median {medians[length]:.3f} ms, "
            f"p90 {p90:.3f} ms"
        )
    base = medians[lengths[0]]
    for length in lengths[1:]:
        print(f"  {length} / {lengths[0]} messages: {medians[length] / base:.1f}x")
    return medians


def shadow(calls: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "pairs.jsonl"
        with log.open("w", encoding="utf-8") as out:
            for index in range(calls):
                messages = conversation(10, index)
                line = {
                    "request": {"model": "gpt-4o-mini", "messages": messages, "tools": TOOLS},
                    "response": {
                        "id": f"chatcmpl-{index}",
                        "object": "chat.completion",
                        "created": 1775034000,
                        "model": "gpt-4o-mini",
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "tool_calls",
                                "message": {
                                    "role": "assistant",
                                    "content": None,
                                    "tool_calls": [
                                        {
                                            "id": "c",
                                            "type": "function",
                                            "function": {
                                                "name": "reserve_table",
                                                "arguments": "{}",
                                            },
                                        }
                                    ],
                                },
                            }
                        ],
                        "usage": {"prompt_tokens": 400, "completion_tokens": 30},
                    },
                }
                out.write(json.dumps(line) + "\n")
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "agent_lab.cli", "shadow", str(log), "--json"],
            check=True,
            capture_output=True,
        )
        took = time.perf_counter() - start
    rate = calls / took
    print(
        f"shadow: {calls} logged calls of about 10 messages in {took:.2f} s: {rate:,.0f} a second"
    )
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description="The conversation reader's cost.")
    parser.add_argument("--lengths", default="10,20,100,1000")
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--calls", type=int, default=5000)
    options = parser.parse_args()
    per_request([int(n) for n in options.lengths.split(",")], options.repeats)
    shadow(options.calls)


if __name__ == "__main__":
    main()
