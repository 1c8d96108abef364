"""Log replay's throughput and memory: logged calls per second, and peak memory at two sizes.

Run on demand:

    uv run python benchmarks/bench_shadow.py [--sizes 10000,100000] [--workers 1,2]

A `pairs` log is generated from the demo workload (each case's text as the
user's message, its truth as the logged tool call, the demo's eight tools
offered, a usage), cycled to the size asked, gzipped; then `agent-lab
shadow --json` replays it in a fresh process per (size, workers), whose
wall time gives calls per second and whose peak resident memory (the
child's ``ru_maxrss``) shows whether memory grows with the log. A log larger
than one machine is processed the same way in parts: `replay` is a pure
function of one logged request, and the figures of parts merge, so any
engine that runs Python over a split dataset maps it over partitions of the
files and adds the parts' `--json` counts.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent_lab.demo import plugins as demo_plugins
from agent_lab.kernel.tools import openai_tool
from agent_lab.lab.workload import load_workload


def write_log(path: Path, calls: int) -> None:
    """``calls`` logged requests, in the pairs format, gzipped."""
    tools = [openai_tool(definition) for definition in demo_plugins.definitions]
    cases = [c for c in load_workload("demo").cases if c.expected.arguments and c.event]
    with gzip.open(path, "wt", encoding="utf-8") as log:
        for index in range(calls):
            case = cases[index % len(cases)]
            arguments = json.dumps(case.expected.arguments)
            line: dict[str, Any] = {
                "request": {
                    "model": "gpt-4o-mini",
                    "messages": [{"role": "user", "content": case.text}],
                    "tools": tools,
                },
                "response": {
                    "id": f"chatcmpl-{index}",
                    "object": "chat.completion",
                    "created": 1764547200 + index,
                    "model": "gpt-4o-mini",
                    "choices": [
                        {
                            "index": 0,
                            "message": {
                                "role": "assistant",
                                "content": None,
                                "tool_calls": [
                                    {
                                        "id": f"call_{index}",
                                        "type": "function",
                                        "function": {"name": case.event, "arguments": arguments},
                                    }
                                ],
                            },
                            "finish_reason": "tool_calls",
                        }
                    ],
                    "usage": {"prompt_tokens": 412, "completion_tokens": 23, "total_tokens": 435},
                },
                "latency_ms": 640.0,
            }
            log.write(json.dumps(line) + "\n")


# The child reports its own peak and its workers' (the largest one), after the command.
CHILD = """
import resource, sys
from agent_lab.cli import run
code = run(sys.argv[1:])
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(own, workers, file=sys.stderr)
sys.exit(code)
"""


def measure(log: Path, workers: int) -> tuple[float, float, float, dict[str, Any]]:
    """Wall seconds, the peak resident MiB of the command and of its largest worker, --json."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, "shadow", str(log), "--json", "--workers", str(workers)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    wall = time.perf_counter() - started
    own, largest_worker = (int(v) / 1024 for v in done.stderr.split()[-2:])
    return wall, own, largest_worker, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="logged calls per log")
    parser.add_argument("--workers", default="1,2", help="process counts to measure")
    options = parser.parse_args()
    sizes = sorted(int(s) for s in options.sizes.split(","))
    workers = [int(w) for w in options.workers.split(",")]
    print(
        f"{'calls':>8} {'workers':>7} {'seconds':>8} {'calls/s':>9} {'peak MiB':>9} "
        f"{'worker MiB':>10}  covered"
    )
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            log = Path(folder) / f"log-{size}.jsonl.gz"
            write_log(log, size)
            for count in workers:
                wall, own, worker, figures = measure(log, count)
                print(
                    f"{size:>8} {count:>7} {wall:>8.2f} {size / wall:>9,.0f} {own:>9.0f} "
                    f"{worker if count > 1 else 0:>10.0f}  {figures['covered']}/{figures['calls']}"
                )


if __name__ == "__main__":
    main()
