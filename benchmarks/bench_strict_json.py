"""strict_json.loads on adversarial shapes at 64 KiB and 1 MiB, beside json.loads on the valid ones.

Run on demand (never part of the tests):

    uv run python benchmarks/bench_strict_json.py

Each shape is built at both sizes. The figure is the median of ``--repeats``
parses. A shape passes when its 1 MiB parse takes under 0.5 s and the time
grows about linearly: from 256 KiB to 1 MiB at most 8x, where linear is 4x
and quadratic 16x, so a quadratic parser fails whatever the machine's speed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable

from agent_lab.strict_json import StrictJSONError, loads

KIB = 1024
SIZES = (64 * KIB, 256 * KIB, 1024 * KIB)
MAX_SECONDS = 0.5
MAX_GROWTH = 8.0


def _fill(prefix: str, unit: str, suffix: str, size: int) -> str:
    count = max(1, (size - len(prefix) - len(suffix)) // len(unit))
    return prefix + unit * count + suffix


SHAPES: dict[str, Callable[[int], str]] = {
    # Invalid or refused: only strict_json is timed.
    "65 brackets, then escaped quotes": lambda n: _fill("[" * 65, '\\"', "", n),
    "65 brackets, then bare quotes and text": lambda n: _fill("[" * 65, '"a', "", n),
    "65 brackets, then an unterminated string": lambda n: _fill("[" * 65 + '"', "a", "", n),
    "opening brackets only": lambda n: "[" * n,
    "opening objects only": lambda n: _fill("", '{"a":', "", n),
    "a long integer": lambda n: "1" * n,
    "a long exponent": lambda n: _fill("1e", "1", "", n),
    "backslash runs in a string, unterminated": lambda n: _fill('"', "\\\\", "", n),
    # Valid: json.loads is timed beside it.
    "escaped quotes in one string": lambda n: _fill('"', '\\"', '"', n),
    "backslash runs in one string": lambda n: _fill('"', "\\\\", '"', n),
    "a long plain string": lambda n: _fill('"', "a", '"', n),
    "a long fraction": lambda n: _fill("0.", "1", "", n),
    "many shallow arrays": lambda n: _fill("[", "[[]],", "[]]", n),
    "objects 64 deep, repeated": lambda n: _fill("[", '{"a":' * 63 + "1" + "}" * 63 + ",", "1]", n),
    "many keys": lambda n: "{" + ",".join(f'"k{i}":{i}' for i in range(n // 12)) + "}",
    "whitespace runs": lambda n: _fill("[", " " * 60 + "1,", "1]", n),
}


def median_seconds(function: Callable[[], object], repeats: int) -> float:
    samples: list[float] = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def strict(text: str) -> Callable[[], object]:
    def parse() -> object:
        try:
            return loads(text, max_bytes=len(text.encode("utf-8")))
        except StrictJSONError as err:
            return err

    return parse


def outcome(text: str) -> str:
    try:
        loads(text, max_bytes=len(text.encode("utf-8")))
    except StrictJSONError as err:
        return err.reason
    return "accepted"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="parses per figure")
    options = parser.parse_args(argv)
    print(
        f"{'shape':<44} {'outcome':>16} {'64 KiB ms':>10} {'256 KiB ms':>11} {'1 MiB ms':>9} "
        f"{'growth':>7} "
        f"{'json 1 MiB ms':>14}"
    )
    failures = 0
    for name, build in SHAPES.items():
        texts = [build(size) for size in SIZES]
        large = texts[-1]
        times = [median_seconds(strict(text), options.repeats) for text in texts]
        result = outcome(large)
        baseline = "-"
        if result == "accepted":
            seconds = median_seconds(lambda text=large: json.loads(text), options.repeats)
            baseline = f"{seconds * 1e3:.2f}"
        growth = times[2] / max(times[1], 1e-9)
        ok = times[2] < MAX_SECONDS and growth <= MAX_GROWTH
        failures += not ok
        print(
            f"{name:<44} {result:>16} {times[0] * 1e3:>10.2f} {times[1] * 1e3:>11.2f} "
            f"{times[2] * 1e3:>9.2f} "
            f"{growth:>6.1f}x {baseline:>14}{'' if ok else '  MISSED'}"
        )
    print(
        f"target: every 1 MiB shape under {MAX_SECONDS} s, growth at most {MAX_GROWTH:.0f}x: "
        f"{'met' if not failures else f'MISSED on {failures}'}"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
