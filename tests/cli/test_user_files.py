"""Every file a user names, given as a FIFO, as /dev/zero or over its bound: a clear refusal.

A FIFO given as --prices or --cassette hung the command; /dev/zero read until
memory ran out. Each place a command reads a file the user named is tried
with each, through the command line: a one-line error naming the file (exit
2), or, for a benchmark folder's files, a skipped file with its reason in
import-report.json.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from agent_lab import _input_files as bounds
from agent_lab.cli import run
from tests.conftest import TEST_DATA

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX")

FAST = ["--provider", "simulated", "--simulated-latency", "1,2", "--no-progress"]
DEMO_RUN = ["run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "3"]


@dataclass(frozen=True)
class Site:
    """Where a command reads a user-named file: the file's place, the command, its bound."""

    place: Callable[[Path], Path]
    argv: Callable[[Path], list[str]]
    bound: int
    imported: str | None = None
    """A benchmark folder's file: skipped and reported under this name, the import going on."""


def _sgd(tmp: Path) -> Path:
    folder = tmp / "sgd"
    folder.mkdir(exist_ok=True)
    shutil.copy(TEST_DATA / "sgd" / "dev" / "schema.json", folder)
    shutil.copy(TEST_DATA / "sgd" / "dev" / "dialogues_001.json", folder / "dialogues_002.json")
    return folder


def _bfcl(tmp: Path) -> Path:
    folder = tmp / "bfcl"
    if not folder.exists():
        shutil.copytree(TEST_DATA / "bfcl", folder)
    return folder


SITES = {
    "workload": Site(
        place=lambda tmp: tmp / "w.jsonl",
        argv=lambda tmp: ["run", str(tmp / "w.jsonl"), "--plugins", "agent_lab.demo:plugins",
                          "--db", str(tmp / "r.sqlite"), *FAST],
        bound=bounds.MAX_WORKLOAD_BYTES,
    ),
    "--prices": Site(
        place=lambda tmp: tmp / "prices.json",
        argv=lambda tmp: [*DEMO_RUN, "--db", str(tmp / "r.sqlite"), *FAST,
                          "--prices", str(tmp / "prices.json")],
        bound=bounds.MAX_PRICES_BYTES,
    ),
    "--cassette": Site(
        place=lambda tmp: tmp / "c.jsonl",
        argv=lambda tmp: [*DEMO_RUN, "--db", str(tmp / "r.sqlite"), "--provider", "replay",
                          "--cassette", str(tmp / "c.jsonl"), "--no-progress"],
        bound=bounds.MAX_CASSETTE_BYTES,
    ),
    "--llm-profile": Site(
        place=lambda tmp: tmp / "profile.json",
        argv=lambda tmp: [*DEMO_RUN, "--db", str(tmp / "r.sqlite"), *FAST,
                          "--llm-profile", str(tmp / "profile.json")],
        bound=bounds.MAX_PROFILE_BYTES,
    ),
    "--plugins DIR": Site(
        place=lambda tmp: (tmp / "plugins").joinpath("events.json"),
        argv=lambda tmp: ["events", "--plugins", str(tmp / "plugins")],
        bound=bounds.MAX_EVENTS_BYTES,
    ),
    "sgd schema.json": Site(
        place=lambda tmp: _sgd(tmp) / "schema.json",
        argv=lambda tmp: ["import", "sgd", str(tmp / "sgd"), "--out", str(tmp / "out")],
        bound=bounds.MAX_BENCHMARK_FILE_BYTES,
    ),
    "sgd dialogues": Site(
        place=lambda tmp: _sgd(tmp) / "dialogues_001.json",
        argv=lambda tmp: ["import", "sgd", str(tmp / "sgd"), "--out", str(tmp / "out")],
        bound=bounds.MAX_BENCHMARK_FILE_BYTES,
        imported="dialogues_001.json",
    ),
    "bfcl questions": Site(
        place=lambda tmp: _bfcl(tmp) / "BFCL_v4_simple_python.json",
        argv=lambda tmp: ["import", "bfcl", str(tmp / "bfcl"), "--out", str(tmp / "out")],
        bound=bounds.MAX_BENCHMARK_FILE_BYTES,
        imported="BFCL_v4_simple_python.json",
    ),
    "bfcl answers": Site(
        place=lambda tmp: _bfcl(tmp) / "possible_answer" / "BFCL_v4_multiple.json",
        argv=lambda tmp: ["import", "bfcl", str(tmp / "bfcl"), "--out", str(tmp / "out")],
        bound=bounds.MAX_BENCHMARK_FILE_BYTES,
        imported="possible_answer/BFCL_v4_multiple.json",
    ),
}  # fmt: skip


def _fifo(path: Path, bound: int) -> str:
    del bound
    os.mkfifo(path)
    return "is a FIFO (named pipe), not a regular file"


def _device(path: Path, bound: int) -> str:
    del bound
    path.symlink_to("/dev/zero")
    return "is a character device, not a regular file"


def _over_bound(path: Path, bound: int) -> str:
    with path.open("wb") as handle:
        handle.truncate(bound + 1)  # sparse: nothing is written
    return "over the"


FILES = {"fifo": _fifo, "dev-zero": _device, "over-its-bound": _over_bound}


def cli_within(seconds: float, fifo: Path, *argv: str) -> tuple[int, str, str]:
    """The command's exit code and output; a failure, not a hang, if it blocks on ``fifo``."""
    out, err = io.StringIO(), io.StringIO()
    codes: list[int] = []
    thread = threading.Thread(
        target=lambda: codes.append(run(list(argv), stdout=out, stderr=err)), daemon=True
    )
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        if fifo.exists() and not fifo.is_file() and not fifo.is_symlink():
            with fifo.open("wb"):  # a writer releases the blocked reader
                pass
        thread.join(30)
        pytest.fail(f"agent-lab {' '.join(argv)} hung")
    assert codes, err.getvalue()
    return codes[0], out.getvalue(), err.getvalue()


@pytest.mark.parametrize("made", list(FILES.values()), ids=list(FILES))
@pytest.mark.parametrize("site", list(SITES.values()), ids=list(SITES))
def test_a_fifo_a_device_or_a_huge_file_is_refused_by_name(
    tmp_path: Path, site: Site, made: Callable[[Path, int], str]
) -> None:
    """No read hangs or runs out of memory; the refusal names the file and what is wrong."""
    path = site.place(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    said = made(path, site.bound)
    code, _, err = cli_within(60, path, *site.argv(tmp_path))
    assert "Traceback" not in err
    if site.imported is None:
        assert code == 2, err
        assert err.count("\n") == 1, err
        assert str(path) in err
        assert said in err
        return
    assert code == 0, err
    report = json.loads((tmp_path / "out" / "import-report.json").read_text(encoding="utf-8"))
    reasons = {entry["file"]: entry["reason"] for entry in report["skipped_files"]}
    assert said in reasons[site.imported]


OUTPUTS: dict[str, Callable[[Path], list[str]]] = {
    "--db": lambda fifo: [*DEMO_RUN, *FAST, "--db", str(fifo)],
    "--record": lambda fifo: [*DEMO_RUN, *FAST, "--record", str(fifo)],
    "--otel-file": lambda fifo: [*DEMO_RUN, *FAST, "--otel-file", str(fifo)],
    "--log-requests": lambda fifo: [*DEMO_RUN, *FAST, "--provider", "openai", "--model", "m",
                                    "--base-url", "http://127.0.0.1:9/v1",
                                    "--log-requests", str(fifo)],
    "--html": lambda fifo: ["sweep", "demo", "--plugins", "agent_lab.demo:plugins", "--vary",
                            "wrong_value=0,0.1", "--limit", "3", "--html", str(fifo), *FAST],
}  # fmt: skip


@pytest.mark.parametrize("option", list(OUTPUTS))
def test_a_fifo_given_as_an_output_is_refused_not_waited_on(tmp_path: Path, option: str) -> None:
    """Opening a FIFO to write waits for a reader, forever: refused by name before any work."""
    if option == "--otel-file":
        pytest.importorskip("opentelemetry.sdk")
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    code, _, err = cli_within(60, fifo, *OUTPUTS[option](fifo), "--warmup", "0")
    assert code == 2, err
    assert f"{option} {fifo} is a pipe or a socket, not a file" in err
