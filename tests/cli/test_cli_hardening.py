"""The command line under attack: broken plugins, hostile names, absurd options, bad paths."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agent_lab.cli import run

FAST = ["--provider", "simulated", "--simulated-latency", "1,2", "--no-progress"]
DEMO_RUN = ["run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "9"]


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def one_line_exit_2(*argv: str) -> str:
    code, _, err = cli(*argv)
    assert code == 2, err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


def plugin_folder(tmp_path: Path, events_json: str) -> Path:
    folder = tmp_path / "plugins"
    folder.mkdir(exist_ok=True)
    (folder / "events.json").write_text(events_json, encoding="utf-8")
    return folder


def event(parameters: object, name: str = "e") -> dict[str, object]:
    return {"name": name, "description": "", "parameters": parameters}


# 5000 containers deep, written as text: json.dumps itself cannot nest that far.
DEEP_TEXT = '{"type": "object", "properties": {"a": ' * 2500 + "{}" + "}}" * 2500


def events_json(*parameters: object) -> str:
    return json.dumps({"events": [event(p) for p in parameters]})


OBJECT = {"type": "object"}
BROKEN_PLUGINS = {
    "unknown-type": events_json({**OBJECT, "properties": {"a": {"type": "strin"}}}),
    "nan": '{"events": [{"name": "e", "parameters": {"type": "object", "maximum": NaN}}]}',
    "remote-ref": events_json({**OBJECT, "properties": {"a": {"$ref": "https://x.example/s"}}}),
    "duplicate-names": events_json(OBJECT, OBJECT),
    "duplicate-keys": '{"events": [{"name": "e", "name": "f", "parameters": {}}]}',
    "5000-deep": '{"events": [{"name": "e", "parameters": ' + DEEP_TEXT + "}]}",
    "not-a-list": json.dumps({"events": 3}),
}


@pytest.mark.parametrize("events_json", list(BROKEN_PLUGINS.values()), ids=list(BROKEN_PLUGINS))
def test_a_broken_plugin_folder_is_one_line_and_exit_2(tmp_path: Path, events_json: str) -> None:
    """events.json was read with plain json.loads, and a broken schema gave a traceback."""
    folder = plugin_folder(tmp_path, events_json)
    workload = tmp_path / "w.jsonl"
    case = {"id": "a", "event": "e", "text": "x"}
    workload.write_text(json.dumps(case | {"expected": {"status": "success", "arguments": {}}}))
    one_line_exit_2("events", "--plugins", str(folder))
    one_line_exit_2(
        "run", str(workload), "--plugins", str(folder), "--db", str(tmp_path / "r"), *FAST
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["--repeats", "0"],
        ["--repeats", "x"],
        ["--timeout", "0"],
        ["--timeout", "nan"],
        ["--timeout", "-1"],
        ["--rate-limit", "0"],
        ["--rate-limit", "1e-300"],
        ["--rate-limit", "nan"],
        ["--concurrency", "0"],
        ["--concurrency", "-5"],
        ["--concurrency", "3000000"],
        ["--limit", "0"],
        ["--limit", "-1"],
        ["--warmup", "-2"],
        ["--seed", "-1"],
        ["--simulated-latency", "1,inf"],
        ["--simulated-latency", "nan,nan"],
        ["--simulated-latency", "5,1"],
        ["--simulated-latency", "5"],
        ["--simulated-latency", "1e308,1e308"],
        ["--simulated-latency", "1,600001"],
    ],
    ids=" ".join,
)
def test_every_number_is_checked(argv: list[str], tmp_path: Path) -> None:
    """Accepted, reinterpreted, hung or crashed before; now one line and exit 2."""
    err = one_line_exit_2(*DEMO_RUN, "--db", str(tmp_path / "r.sqlite"), *FAST, *argv)
    assert argv[0] in err
    assert not (tmp_path / "r.sqlite").exists()


def test_output_paths_are_checked_before_the_first_trial(tmp_path: Path) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    db = tmp_path / "r.sqlite"
    assert cli(*DEMO_RUN, "--db", str(db), *FAST)[0] == 0
    assert "is a folder" in one_line_exit_2("report", str(db), "--html", str(tmp_path))
    assert "is a file" in one_line_exit_2("report", str(db), "--html", str(a_file / "report.html"))
    assert "is a file" in one_line_exit_2(
        "export", str(db), "--format", "csv", "--out", str(a_file)
    )
    assert "is a file" in one_line_exit_2("demo", *FAST, "--out", str(a_file))
    fresh = tmp_path / "fresh.sqlite"
    err = one_line_exit_2(
        *DEMO_RUN, "--db", str(fresh), *FAST, "--record", str(a_file / "cassette.jsonl")
    )
    assert "--record" in err
    assert not fresh.exists()  # refused before a run was even recorded


def test_unknown_run_ids_and_baselines_are_usage_errors(tmp_path: Path) -> None:
    """compare --baseline nope and export --run nope exited 0 with nothing."""
    db = tmp_path / "r.sqlite"
    assert cli(*DEMO_RUN, "--db", str(db), *FAST)[0] == 0
    assert "no policy 'nope'" in one_line_exit_2("compare", str(db), "--baseline", "nope")
    assert "no run 'nope'" in one_line_exit_2(
        "export", str(db), "--format", "csv", "--out", str(tmp_path / "x"), "--run", "nope"
    )
    assert "no run 'nope'" in one_line_exit_2("report", str(db), "--run", "nope")


HOSTILE_MODEL = (
    "[/oops] [link=https://evil.example]click[/link] \x1b]8;;https://evil.example\x07x\x1b[31m"
)


def test_markup_and_escape_sequences_in_a_model_name_are_shown_not_obeyed(tmp_path: Path) -> None:
    """A cassette's default_model of '[/oops]' crashed `report`; ANSI/OSC reached the terminal."""
    cassette = tmp_path / "c.jsonl"
    db = tmp_path / "r.sqlite"
    line = {
        "version": 1,
        "fingerprint": "0" * 64,
        "request": {},
        "provider": "openai",
        "default_model": HOSTILE_MODEL,
        "reply": {"text": "{}"},
    }
    cassette.write_text(json.dumps(line) + "\n")
    code, out, err = cli(
        *DEMO_RUN, "--db", str(db), "--provider", "replay", "--cassette", str(cassette),
        "--no-progress", "--policy", "deterministic-only",
    )  # fmt: skip
    assert code == 0, err
    html = tmp_path / "report.html"
    code, out, err = cli("report", str(db), "--html", str(html))
    assert code == 0, err
    assert html.is_file()
    assert "\x1b" not in out
    assert "[/oops]" in out
    assert "\x1b" not in html.read_text()
