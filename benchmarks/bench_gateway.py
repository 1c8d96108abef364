"""``agent-lab serve`` measured: the latency it adds, the local answers per second, its memory.

One run, one fake upstream on loopback (an aiohttp server in its own process
that answers every chat completion with the same ``get_weather`` call), the
gateway in its own process (``agent-lab serve``, as a user starts it), and a
client in this process that speaks HTTP/1.1 over kept-alive connections with
as little work per request as possible, so that the figures are the
gateway's, not the client's:

* added latency of a forwarded request, p50 and p99, at concurrency 1 and 64:
  the same requests sent to the upstream directly and through the gateway
  (shadow mode, with the store on and with ``--no-store``), the gateway's
  percentile minus the direct one. Against an upstream that answers at once,
  64 clients that never pause saturate one gateway process: its figure at 64
  is queueing at the gateway's ceiling (the requests/s it shows), not the
  cost of a hop. So concurrency 64 is measured a second time against an
  upstream that answers in 100 ms on average (uniform over 50-150 ms; a
  third of the fastest model the lab assumes), where 64 requests in flight
  are about 640 requests/s: what a model's traffic looks like to the
  gateway. The upstream says each draw in a header, and the client takes it
  off that request's latency, directly or through the gateway alike;
* locally answered requests per second (enforce, the tool trusted), with one
  worker and with two;
* the gateway's resident memory every 20,000 of 100,000 local answers.

Targets (issue 24): p50 added latency at most 1 ms; at least 2,000 local
answers per second on a 2-core machine; memory flat. Everything shares the
machine's cores (the upstream, the gateway, the client), as a sidecar would.

With ``--against-litellm``, LiteLLM's proxy runs beside agent-lab's gateway
in the same run, against the same upstream and the same client, one worker
each, in alternating rounds: the added latency at concurrency 1 and the
forwarded requests a second at concurrency 64. LiteLLM is installed on
demand into an environment of its own (``uv``; a pinned release, ``LITELLM``,
never a dependency of the project), kept in the cache folder for later runs.

    uv run python benchmarks/bench_gateway.py            # the whole run, about 2 minutes
    uv run python benchmarks/bench_gateway.py --quick    # fewer requests, a smoke test
    uv run python benchmarks/bench_gateway.py --against-litellm   # only the side-by-side
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather forecast for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "enum": ["Paris", "Oslo", "Rome"]}},
                "required": ["city"],
            },
        },
    }
]
BODY = json.dumps(
    {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "You help with the weather."},
            {"role": "user", "content": "get the weather forecast in Paris"},
        ],
        "tools": TOOLS,
    }
).encode()
ANSWER = json.dumps(
    {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-4o-mini",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 80, "completion_tokens": 12, "total_tokens": 92},
    }
).encode()


def upstream_server(port: int, delay_ms: float) -> None:
    """The fake upstream: the same answer to every POST, nothing parsed, after ``delay_ms``."""
    from aiohttp import web

    draw = random.Random(7)

    async def answer(request: web.Request) -> web.Response:
        await request.read()
        if delay_ms:
            # Uniform over [delay/2, 3*delay/2]: one fixed delay would keep the 64 requests in
            # flight phase-locked, answered in one burst each round, which no model's traffic is.
            waited = delay_ms * draw.uniform(0.5, 1.5)
            await asyncio.sleep(waited / 1000)
            # Said to the client (the gateway relays it), which takes it off the latency:
            # the draw's spread would otherwise drown a millisecond in noise.
            headers = {DELAY_HEADER: str(round(waited * 1e6))}
            return web.Response(body=ANSWER, content_type="application/json", headers=headers)
        return web.Response(body=ANSWER, content_type="application/json")

    app = web.Application()
    app.router.add_post("/v1/chat/completions", answer)
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(port: int, process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"a server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("a server did not start")


def start(argv: list[str], port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(port, process)
    return process


def gateway(upstream: int, *options: str) -> tuple[int, subprocess.Popen[bytes]]:
    port = free_port()
    agent_lab = [sys.executable, "-m", "agent_lab.cli", "serve"]
    argv = [*agent_lab, "--upstream", f"http://127.0.0.1:{upstream}/v1", "--port", str(port)]
    return port, start([*argv, *options], port)


def stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


DELAY_HEADER = "x-bench-delay-ns"
PACED_MS = 100.0
"""The paced upstream's mean answer time (uniform over 50-150 ms): a third of the fastest
model the lab assumes (0.3 s)."""

DELAY_MARK = DELAY_HEADER.encode() + b":"

REQUEST = (
    b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Content-Type: application/json\r\nAuthorization: Bearer sk-bench\r\n"
    b"Content-Length: " + str(len(BODY)).encode() + b"\r\n\r\n" + BODY
)


async def one_connection(port: int, count: int, latencies: list[int], local: list[int]) -> None:
    """``count`` requests one after another on one kept-alive connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for _ in range(count):
            started = time.perf_counter_ns()
            writer.write(REQUEST)
            head = await reader.readuntil(b"\r\n\r\n")
            lower = head.lower()
            at = lower.index(b"content-length:") + 15
            length = int(lower[at : lower.index(b"\r\n", at)])
            await reader.readexactly(length)
            elapsed = time.perf_counter_ns() - started
            if DELAY_MARK in lower:
                at = lower.index(DELAY_MARK) + len(DELAY_MARK)
                elapsed -= int(lower[at : lower.index(b"\r\n", at)])
            latencies.append(elapsed)
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(head.decode(errors="replace"))
            local.append(b"x-agent-lab-answered: local" in lower)
    finally:
        writer.close()


def load(port: int, total: int, concurrency: int) -> tuple[list[int], float, int]:
    """Latencies (ns), seconds, and how many were answered locally."""
    latencies: list[int] = []
    local: list[int] = []

    async def everything() -> None:
        share = total // concurrency
        await asyncio.gather(
            *(one_connection(port, share, latencies, local) for _ in range(concurrency))
        )

    started = time.perf_counter()
    asyncio.run(everything())
    return latencies, time.perf_counter() - started, sum(local)


def percentile(values: list[int], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] / 1e6


def rss_mib(pid: int) -> float:
    """Resident memory of ``pid`` and its children (the workers), MiB."""
    total = 0
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(child) for child in children.read_text().split()]
    for each in pids:
        for line in Path(f"/proc/{each}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


def added_latency(
    upstream: int, store: str | None, runs: tuple[tuple[int, int], ...], *, paced: str = ""
) -> list[str]:
    """Added latency at each ``(concurrency, requests)`` of ``runs``."""
    port, process = gateway(upstream, *(("--db", store) if store else ("--no-store",)))
    kind = ("shadow, store on" if store else "shadow, --no-store") + paced
    lines: list[str] = []
    try:
        for concurrency, total in runs:
            load(upstream, min(total, 500), concurrency)  # warm-up: connections, first decisions
            load(port, min(total, 500), concurrency)
            direct, _, _ = load(upstream, total, concurrency)
            through, seconds, local = load(port, total, concurrency)
            assert local == 0, "shadow mode answered locally"
            p50 = percentile(through, 0.5) - percentile(direct, 0.5)
            p99 = percentile(through, 0.99) - percentile(direct, 0.99)
            target = "met" if p50 <= 1.0 else "MISSED"
            lines.append(
                f"forwarded ({kind}), concurrency {concurrency:>2}: "
                f"direct p50 {percentile(direct, 0.5):.3f} ms, "
                f"p99 {percentile(direct, 0.99):.3f} ms; through the gateway p50 "
                f"{percentile(through, 0.5):.3f} ms, p99 {percentile(through, 0.99):.3f} ms "
                f"({total / seconds:,.0f} requests/s); "
                f"added p50 {p50:.3f} ms (target <= 1 ms: {target}), added p99 {p99:.3f} ms"
            )
    finally:
        stop(process)
    return lines


def local_rate(upstream: int, store: str, total: int, workers: int) -> str:
    port, process = gateway(
        upstream, "--mode", "enforce", "--enforce", "get_weather", "--db", store,
        "--workers", str(workers),
    )  # fmt: skip
    try:
        load(port, 1000, 64)  # warm-up
        latencies, seconds, local = load(port, total, 64)
    finally:
        stop(process)
    assert local == len(latencies), "a covered request was forwarded"
    rate = local / seconds
    return (
        f"answered locally, {workers} worker(s), concurrency 64: {local} in {seconds:.2f} s = "
        f"{rate:,.0f} requests/s (target >= 2,000: {'met' if rate >= 2000 else 'MISSED'}); "
        f"p50 {percentile(latencies, 0.5):.3f} ms, p99 {percentile(latencies, 0.99):.3f} ms"
    )


def memory(upstream: int, store: str, total: int) -> str:
    port, process = gateway(
        upstream, "--mode", "enforce", "--enforce", "get_weather", "--db", store
    )
    step = total // 5
    samples: list[float] = []
    try:
        load(port, 1000, 64)  # warm-up: what is allocated once is not growth
        samples.append(rss_mib(process.pid))
        for _ in range(5):
            load(port, step, 64)
            time.sleep(0.5)  # let the store's writer catch up
            samples.append(rss_mib(process.pid))
    finally:
        stop(process)
    growth = samples[-1] - samples[1]
    flat = growth <= max(5.0, 0.05 * samples[0])
    shown = ", ".join(f"{value:.1f}" for value in samples)
    return (
        f"memory (MiB) after warm-up, then every {step:,} of {total:,} local answers: {shown}; "
        f"growth over the last {total - step:,}: {growth:+.1f} MiB "
        f"(target flat: {'met' if flat else 'MISSED'})"
    )


LITELLM = "1.82.6"
"""The release of LiteLLM measured: the last one before the two compromised releases (1.82.7
and 1.82.8, March 2026, withdrawn from PyPI), which are never installed here."""


def litellm_binary(cache: Path) -> Path:
    """LiteLLM's proxy in a virtual environment of its own, made once with uv."""
    venv = cache / f"litellm-{LITELLM}"
    binary = venv / "bin" / "litellm"
    if not binary.exists():
        subprocess.run(["uv", "venv", "--quiet", "--python", sys.executable, str(venv)], check=True)
        python = str(venv / "bin" / "python")
        install = ["uv", "pip", "install", "--quiet", "--python", python]
        subprocess.run([*install, f"litellm[proxy]=={LITELLM}"], check=True)
    return binary


def litellm_proxy(binary: Path, upstream: int, folder: Path) -> tuple[int, subprocess.Popen[bytes]]:
    """LiteLLM's proxy, one worker, forwarding ``gpt-4o-mini`` to the fake upstream."""
    config = folder / "litellm.yaml"
    config.write_text(
        "model_list:\n"
        "  - model_name: gpt-4o-mini\n"
        "    litellm_params:\n"
        "      model: openai/gpt-4o-mini\n"
        f"      api_base: http://127.0.0.1:{upstream}/v1\n"
        "      api_key: sk-bench\n"
        "litellm_settings:\n"
        "  telemetry: false\n"
    )
    port = free_port()
    # Its price table is the one in the package: no fetch at start (no network here).
    environment = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_LOG": "ERROR"}
    argv = [str(binary), "--config", str(config), "--port", str(port), "--num_workers", "1"]
    process = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment
    )
    wait_for(port, process, seconds=180)
    return port, process


def side_by_side(upstream: int, binary: Path, folder: Path, scale: int) -> list[str]:
    """agent-lab's gateway and LiteLLM's proxy, alternately, on the same upstream and client."""
    proxies = {
        "agent-lab serve --no-store": gateway(upstream, "--no-store"),
        f"LiteLLM proxy {LITELLM}": litellm_proxy(binary, upstream, folder),
    }
    lines: list[str] = []
    try:
        for port, _ in proxies.values():
            load(port, 200, 1)  # warm-up: connections, imports, first requests
        for turn in (1, 2):
            for name, (port, _) in proxies.items():
                direct, _, _ = load(upstream, 2000 // scale, 1)
                through, _, _ = load(port, 2000 // scale, 1)
                _, seconds, _ = load(port, 6400 // scale, 64)
                lines.append(
                    f"round {turn}, {name}: added p50 "
                    f"{percentile(through, 0.5) - percentile(direct, 0.5):.3f} ms, added p99 "
                    f"{percentile(through, 0.99) - percentile(direct, 0.99):.3f} ms "
                    f"(concurrency 1); {6400 // scale / seconds:,.0f} forwarded requests/s "
                    f"(concurrency 64)"
                )
    finally:
        for _, process in proxies.values():
            stop(process)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="What agent-lab serve adds, and how fast it is.")
    parser.add_argument("--quick", action="store_true", help="fewer requests: a smoke test")
    parser.add_argument(
        "--against-litellm",
        action="store_true",
        help=f"only LiteLLM's proxy ({LITELLM}, installed on demand) beside the gateway",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path.home() / ".cache" / "agent-lab-bench",
        help="where LiteLLM's environment is kept between runs",
    )
    parser.add_argument("--upstream-server", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--delay-ms", type=float, default=0.0, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.upstream_server:
        upstream_server(options.upstream_server, options.delay_ms)
        return 0
    scale = 10 if options.quick else 1
    upstream, paced = free_port(), free_port()
    server = start([sys.executable, __file__, "--upstream-server", str(upstream)], upstream)
    slow = start(
        [sys.executable, __file__, "--upstream-server", str(paced), "--delay-ms", str(PACED_MS)],
        paced,
    )
    print(f"cores: {os.cpu_count()}; upstream, gateway and client share them")
    if options.against_litellm:
        try:
            binary = litellm_binary(options.cache)
            with tempfile.TemporaryDirectory() as folder:
                for line in side_by_side(upstream, binary, Path(folder), scale):
                    print(line, flush=True)
        finally:
            stop(server)
            stop(slow)
        return 0
    try:
        with tempfile.TemporaryDirectory() as folder:
            runs = ((1, 2000 // scale), (64, 20_000 // scale))
            for store in (str(Path(folder) / "shadow.sqlite"), None):
                for line in added_latency(upstream, store, runs):
                    print(line, flush=True)
            for line in added_latency(
                paced,
                str(Path(folder) / "paced.sqlite"),
                ((64, 6400 // scale),),
                paced=f", upstream answering in {PACED_MS / 2:.0f}-{PACED_MS * 1.5:.0f} ms",
            ):
                print(line, flush=True)
            for workers in (1, 2):
                store = str(Path(folder) / f"local-{workers}.sqlite")
                print(local_rate(upstream, store, 20_000 // scale, workers), flush=True)
            print(memory(upstream, str(Path(folder) / "memory.sqlite"), 100_000 // scale))
    finally:
        stop(server)
        stop(slow)
    return 0


if __name__ == "__main__":
    sys.exit(main())
