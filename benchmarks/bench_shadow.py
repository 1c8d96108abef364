"""Log replay's throughput and memory: logged calls per second, and peak memory at two sizes.

Run on demand:

    uv run python benchmarks/bench_shadow.py [--sizes 10000,100000] [--workers 1,2]
        [--engines local,ray] [--messages 10]

A `pairs` log is generated from the demo workload (each case's text as the
user's message, its truth as the logged tool call, the demo's eight tools
offered, a usage), cycled to the size asked, gzipped; then `agent-lab
shadow --json` replays it in a fresh process per (size, workers), whose
wall time gives calls per second and whose peak resident memory (the
child's ``ru_maxrss``) shows whether memory grows with the log. With
``--engines ray``, `shadow --engine ray` runs too, at the largest worker
count, on a local Ray the command starts (its start-up counted in the wall
time); the peak of its replay actors is read from /proc while it runs. Each
row says whether its figures equal the first row's. ``--messages 10`` gives
each request a conversation of about ten messages (earlier tasks called and
answered, then the user's last message).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent_lab.demo import plugins as demo_plugins
from agent_lab.kernel.tools import openai_tool
from agent_lab.lab.workload import load_workload


def _call(index: int, name: str, arguments: str) -> dict[str, Any]:
    return {
        "id": f"call_{index}",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def _conversation(cases: list[Any], index: int, messages: int) -> list[dict[str, Any]]:
    """About ``messages`` messages: earlier tasks called and answered, then the user's last."""
    before: list[dict[str, Any]] = [{"role": "system", "content": "You are a helpful assistant."}]
    earlier = index
    while len(before) + 1 + 4 <= messages:
        earlier -= 1
        case = cases[earlier % len(cases)]
        call = _call(earlier, str(case.event), json.dumps(case.expected.arguments))
        before += [
            {"role": "user", "content": case.text},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call["id"], "content": '{"status": "ok"}'},
            {"role": "assistant", "content": "Done. Anything else?"},
        ]
    case = cases[index % len(cases)]
    return [*before, {"role": "user", "content": case.text}]


def write_log(path: Path, calls: int, messages: int = 1) -> None:
    """``calls`` logged requests of about ``messages`` messages each: pairs lines, gzipped."""
    tools = [openai_tool(definition) for definition in demo_plugins.definitions]
    cases = [c for c in load_workload("demo").cases if c.expected.arguments and c.event]
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as log:
        for index in range(calls):
            case = cases[index % len(cases)]
            arguments = json.dumps(case.expected.arguments)
            line: dict[str, Any] = {
                "request": {
                    "model": "gpt-4o-mini",
                    "messages": _conversation(cases, index, messages),
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
                                "tool_calls": [_call(index, str(case.event), arguments)],
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


def _ray_workers_peak(
    stop: threading.Event, peaks: dict[int, int], private: dict[int, int]
) -> None:
    """Poll the replay actors (``ray::MapWorker`` processes): each one's peak resident KiB.

    ``peaks``: the kernel's high-water mark (VmHWM), which counts the pages of Ray's shared
    object store a worker has read; ``private``: the largest anonymous memory seen (RssAnon),
    the worker's own.
    """
    while not stop.wait(0.5):
        for status in Path("/proc").glob("[0-9]*/status"):
            try:
                text = status.read_text()
                command = (status.parent / "cmdline").read_bytes()
            except OSError:
                continue
            if not command.startswith(b"ray::MapWorker"):
                continue
            pid = int(status.parent.name)
            for line in text.splitlines():
                for field, seen in (("VmHWM:", peaks), ("RssAnon:", private)):
                    if line.startswith(field):
                        seen[pid] = max(seen.get(pid, 0), int(line.split()[1]))


def measure(
    log: Path, engine: str, workers: int
) -> tuple[float, float, float, float, dict[str, Any]]:
    """Wall seconds, peak MiB of the command, of its largest worker and private, --json."""
    command = [sys.executable, "-c", CHILD, "shadow", str(log), "--json", "--workers", str(workers)]
    peaks: dict[int, int] = {}
    private: dict[int, int] = {}
    stop = threading.Event()
    watcher = threading.Thread(target=_ray_workers_peak, args=(stop, peaks, private), daemon=True)
    if engine == "ray":
        command += ["--engine", "ray"]
        watcher.start()
    started = time.perf_counter()
    # Ray's uv-run hook would rebuild the workers' environment: they run this interpreter.
    environment = {**os.environ, "RAY_ENABLE_UV_RUN_RUNTIME_ENV": "0"}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=environment)
    wall = time.perf_counter() - started
    stop.set()
    own, largest_worker = (int(v) / 1024 for v in done.stderr.split()[-2:])
    own_memory = 0.0  # read for Ray's workers only: ru_maxrss has no private share
    if engine == "ray":
        largest_worker = max(peaks.values(), default=0) / 1024
        own_memory = max(private.values(), default=0) / 1024
    return wall, own, largest_worker, own_memory, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="logged calls per log")
    parser.add_argument("--workers", default="1,2", help="process counts to measure")
    parser.add_argument(
        "--engines", default="local", help="local, ray or both (ray: at the largest worker count)"
    )
    parser.add_argument("--messages", type=int, default=1, help="messages per logged request")
    options = parser.parse_args()
    sizes = sorted(int(s) for s in options.sizes.split(","))
    workers = [int(w) for w in options.workers.split(",")]
    runs = [("local", count) for count in workers if "local" in options.engines]
    if "ray" in options.engines:
        runs.append(("ray", max(workers)))
    print(
        f"{'calls':>8} {'engine':>6} {'workers':>7} {'seconds':>8} {'calls/s':>9} "
        f"{'peak MiB':>9} {'worker MiB':>10} {'private':>7}  covered  same figures"
    )
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            log = Path(folder) / f"log-{size}.jsonl.gz"
            write_log(log, size, options.messages)
            first: dict[str, Any] | None = None
            for engine, count in runs:
                wall, own, worker, private, figures = measure(log, engine, count)
                first = figures if first is None else first
                apart = count > 1 or engine == "ray"
                print(
                    f"{size:>8} {engine:>6} {count:>7} {wall:>8.2f} {size / wall:>9,.0f} "
                    f"{own:>9.0f} {worker if apart else 0:>10.0f} "
                    f"{f'{private:.0f}' if engine == 'ray' else '-':>7}  "
                    f"{figures['covered']}/{figures['calls']}  {figures == first}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
