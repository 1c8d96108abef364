"""The runner's throughput: simulated trials per second, and concurrency against a real server.

Run on demand:

    uv run python benchmarks/bench_runner.py [--simulated-only] [--repeats N]

1. The simulated model at zero latency, the whole demo workload under all
   three policies, repeated, store writes included, the process pinned to
   one core: trials per second (target: at least 10,000), and per second of
   the process's CPU time, which other work on a shared machine disturbs less
   than the wall clock (compare runs made in one sitting all the same).
2. An OpenAI-compatible server on 127.0.0.1 that answers every request after
   a fixed 100 ms; 2,000 trials that each need one fallback request, at
   concurrency 64: wall time against the ideal 2000 / 64 x 100 ms (target:
   within 1.15x).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from agent_lab.agents.plugins import PluginSet, Route
from agent_lab.demo import plugins as demo_plugins
from agent_lab.kernel.models import EventDefinition, Resolution, Status
from agent_lab.lab.results.records import TrialStatus
from agent_lab.lab.results.store import Store
from agent_lab.lab.run.policies import make_policy
from agent_lab.lab.run.runner import RunConfig, Runner
from agent_lab.lab.workload import Case, Expectation, Workload, load_workload
from agent_lab.providers import Expected, OpenAIProvider, ProviderRequest, SimulatedProvider

POLICIES = ("deterministic-first", "llm-always", "deterministic-only")


def simulated_throughput(repeats: int) -> tuple[int, float, float]:
    """Trials written, and the wall and CPU seconds they took."""
    workload = load_workload("demo")
    truth = {case.id: case for case in workload.cases}

    def oracle(request: ProviderRequest) -> Expected | None:
        case = truth.get(str(request.context.get("case_id")))
        return None if case is None else Expected(case.event, dict(case.expected.arguments or {}))

    provider = SimulatedProvider(oracle, wait=False)
    config = RunConfig(
        workload="demo",
        plugins="agent_lab.demo:plugins",
        policies=POLICIES,
        provider="simulated",
        repeats=repeats,
        concurrency=8,
    )
    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "r.sqlite") as store:
        runner = Runner(
            store,
            workload,
            demo_plugins,
            {name: make_policy(name, demo_plugins, provider) for name in POLICIES},
            config,
            simulated=True,
            progress=False,
        )
        run_id = runner.prepare(resume=False)
        started, cpu = time.perf_counter(), time.process_time()
        written = asyncio.run(runner.run(run_id))
        return written, time.perf_counter() - started, time.process_time() - cpu


def loopback_run(url: str, trials: int, concurrency: int) -> float:
    """Seconds for ``trials`` deterministic-first trials that each need one fallback request."""
    definition = EventDefinition(
        "need_n",
        parameters={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        resolver=lambda event: Resolution({}),
    )
    plugins = PluginSet("bench", (definition,), (Route("need_n", patterns=("need",)),))
    cases = tuple(
        Case(
            id=f"c{i}",
            event="need_n",
            text=f"need n {i}",
            expected=Expectation(Status.SUCCESS, {"n": 1}),
            tags=("complete",),
        )
        for i in range(trials)
    )
    provider = OpenAIProvider("bench-model", base_url=url, api_key="x", keep_alive=True, timeout=30)
    config = RunConfig(
        workload="bench",
        plugins="bench",
        policies=("deterministic-first",),
        provider="openai",
        concurrency=concurrency,
    )
    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "r.sqlite") as store:
        policy: Any = make_policy("deterministic-first", plugins, provider)
        runner = Runner(
            store,
            Workload("bench", cases),
            plugins,
            {"deterministic-first": policy},
            config,
            progress=False,
            closing=(provider,),
        )
        run_id = runner.prepare(resume=False)
        started = time.perf_counter()
        asyncio.run(runner.run(run_id))
        elapsed = time.perf_counter() - started
        assert store.count(run_id) == trials
        assert all(t.status is TrialStatus.SUCCESS for t in store.trials(run_id))
    return elapsed


def loopback_concurrency(trials: int, concurrency: int, delay: float) -> tuple[float, float]:
    # The server runs in its own process, not sharing the interpreter with the client.
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.openai_server", str(delay)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert server.stdout is not None
    url = server.stdout.readline().strip()
    try:
        loopback_run(url, concurrency, concurrency)  # warm-up: imports, first connections
        return loopback_run(url, trials, concurrency), trials / concurrency * delay
    finally:
        server.terminate()
        server.wait(timeout=10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The runner's throughput.")
    parser.add_argument("--repeats", type=int, default=20, help="demo workload passes (20)")
    parser.add_argument("--simulated-only", action="store_true", help="skip the loopback server")
    options = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    simulated_throughput(repeats=1)  # warm-up: imports and first lookups are not throughput
    written, seconds, cpu = simulated_throughput(repeats=options.repeats)
    rate = written / seconds
    print(
        f"simulated, zero latency, one core: {written} trials in {seconds:.2f} s "
        f"= {rate:,.0f} trials/s "
        f"(target >= 10,000: {'met' if rate >= 10_000 else 'MISSED'}); "
        f"CPU {cpu:.2f} s = {written / cpu:,.0f} trials per CPU second"
    )
    if options.simulated_only:
        return 0
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))
    elapsed, ideal = loopback_concurrency(2000, 64, 0.1)
    print(
        f"loopback server at 100 ms, 2000 fallback trials, concurrency 64: {elapsed:.2f} s against "
        f"ideal {ideal:.3f} s = {elapsed / ideal:.3f}x (target <= 1.15x: "
        f"{'met' if elapsed / ideal <= 1.15 else 'MISSED'})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
