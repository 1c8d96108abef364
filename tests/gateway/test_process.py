"""``agent-lab serve`` as its own process: graceful shutdown, SIGKILL mid-write, ``--workers``.

Each test starts the command line in a child process on a free loopback
port, in front of the scripted upstream in this process.
"""

from __future__ import annotations

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import json
import os
import re
import signal
import sqlite3
import threading
import time
from pathlib import Path

import httpx

from agent_lab.logs import LoggedRequest, read_logs
from tests.gateway.conftest import TOOLS, user
from tests.gateway.process import output, serve
from tests.openai_server import Behavior, OpenAIServer, content, tool_calls

pytestmark = pytest.mark.slow


def chat(root: str, text: str) -> httpx.Response:
    body = {"model": "m", "messages": user(text), "tools": TOOLS}
    return httpx.post(f"{root}/v1/chat/completions", json=body, timeout=30)


def test_sigterm_finishes_the_request_in_flight_and_flushes_the_store(
    upstream: OpenAIServer, tmp_path: Path
) -> None:
    """The slow request in flight at SIGTERM is answered; the process exits 0; its row is there."""
    store = tmp_path / "gateway.sqlite"
    upstream.play(Behavior(delay=1.5, message={"role": "assistant", "content": "late"}))
    answers: list[httpx.Response] = []
    with serve("--upstream", upstream.url, "--db", str(store)) as (root, process, _):
        asking = threading.Thread(target=lambda: answers.append(chat(root, "hi")))
        asking.start()
        time.sleep(0.5)
        process.send_signal(signal.SIGTERM)
        asking.join(10)
        assert process.wait(15) == 0
    assert answers[0].status_code == 200
    assert answers[0].json()["choices"][0]["message"]["content"] == "late"
    rows = sqlite3.connect(store).execute("SELECT COUNT(*) FROM exchanges").fetchone()
    assert rows == (1,)


def stored(store: Path) -> int:
    try:
        with sqlite3.connect(f"{store.as_uri()}?mode=ro", uri=True) as connection:
            return int(connection.execute("SELECT COUNT(*) FROM exchanges").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_sigkill_during_shadow_writes_leaves_each_finished_request_once(
    upstream: OpenAIServer, tmp_path: Path
) -> None:
    """Killed while writing: the store opens, whole, no request twice, every row readable."""
    store = tmp_path / "gateway.sqlite"
    upstream.default = tool_calls(("get_weather", '{"city": "Paris"}'))
    answered: list[int] = []
    stop = threading.Event()

    def load(root: str, worker: int) -> None:
        with httpx.Client(timeout=10) as client:
            n = 0
            while not stop.is_set():
                body = {"model": "m", "messages": user(f"forecast #{worker}-{n}"), "tools": TOOLS}
                try:
                    client.post(f"{root}/v1/chat/completions", json=body)
                except httpx.TransportError:
                    return
                answered.append(1)
                n += 1

    with serve("--upstream", upstream.url, "--db", str(store)) as (root, process, log):
        threads = [threading.Thread(target=load, args=(root, w)) for w in range(8)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 20
        while stored(store) < 50:  # killed while it writes, not before it began
            assert time.monotonic() < deadline, "nothing was stored"
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGKILL)  # the gateway and its writer, mid-write
        process.wait(10)
        stop.set()
        said = output(log)
        for thread in threads:
            thread.join(10)
    connection = sqlite3.connect(store)
    assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    count, distinct = connection.execute(
        "SELECT COUNT(*), COUNT(DISTINCT request_id) FROM exchanges"
    ).fetchone()
    texts = [
        json.loads(line)["request"]["messages"][-1]["content"]
        for (line,) in connection.execute("SELECT line FROM exchanges")
    ]
    connection.close()
    assert 0 < count <= len(answered) + 8, said
    assert count == distinct == len(set(texts))
    read = list(read_logs(store))
    assert len(read) == count
    assert all(isinstance(item, LoggedRequest) for item in read)


def test_workers_share_one_store_and_one_set_of_counters(
    upstream: OpenAIServer, tmp_path: Path
) -> None:
    """``--workers 2``: every request stored once in the one file, /metrics sums both processes."""
    store = tmp_path / "gateway.sqlite"
    upstream.default = content("ok")
    with serve("--upstream", upstream.url, "--db", str(store), "--workers", "2") as (
        root,
        process,
        _,
    ):
        results = [chat(root, f"hello #{n}").status_code for n in range(40)]
        metrics = httpx.get(f"{root}/metrics", timeout=5).text
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    assert results == [200] * 40
    assert "agent_lab_gateway_forwarded_total 40.0" in metrics
    connection = sqlite3.connect(store)
    assert connection.execute("SELECT COUNT(DISTINCT request_id) FROM exchanges").fetchone() == (
        40,
    )


def test_the_gateway_binds_to_loopback_unless_told_otherwise(upstream: OpenAIServer) -> None:
    """The default host is 127.0.0.1: the banner says so, and the socket is bound there."""
    with serve("--upstream", upstream.url, "--no-store") as (root, process, said):
        assert root.startswith("http://127.0.0.1:")
        process.send_signal(signal.SIGTERM)
        process.wait(15)
        banner = output(said)
    assert "http://127.0.0.1:" in banner
    assert os.environ.get("AGENT_LAB_GATEWAY_SETTINGS") is None


def test_v_reaches_every_worker(upstream: OpenAIServer) -> None:
    """``-v --workers 2``: what each worker logs at INFO on the request logger reaches stderr.

    The plugin module logs, with its process id, when a process imports it: the
    command does, and so does each worker it spawns.
    """
    plugins = "tests.gateway.logging_plugins:plugins"
    argv = ("--upstream", upstream.url, "--no-store", "--workers", "2", "-v", "--plugins", plugins)
    line = re.compile(
        r"^agent-lab: INFO agent_lab\.gateway\.requests: imported in process (\d+) \\x1b\[2J$",
        re.MULTILINE,
    )
    with serve(*argv) as (_, process, said):
        deadline = time.monotonic() + 30
        while len(workers := {int(pid) for pid in line.findall(output(said))} - {process.pid}) < 2:
            assert time.monotonic() < deadline, output(said)
            time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
        logged = output(said)
    assert f"imported in process {process.pid} " in logged  # the command's own, as before
    assert len(workers) == 2
    assert "\x1b" not in logged
