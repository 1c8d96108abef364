"""The files learn reads and writes: a rules file edited by hand, and outputs that are inputs."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agent_lab.cli import run
from agent_lab.errors import InputFileError
from agent_lab.resolvers.learned import load_rules
from tests.lab.learn.test_learn import APPLE, WINDY, logs
from tests.logs.lines import jsonl

CONSTANT = (
    '{"format": "agent-lab.rules/1", "rules": [{"kind": "constant", "tool": "t", '
    '"parameter": "p", "value": 1, "evidence": {"heldout_low": LOW}}]}'
)


@pytest.mark.parametrize("low", ["1" + "0" * 400, "-0.5", "1.5"])
def test_a_heldout_low_out_of_range_is_a_clear_error(tmp_path: Path, low: str) -> None:
    """A 401-digit bound raised OverflowError in learn --explain, shadow and precision."""
    path = tmp_path / "rules.json"
    path.write_text(CONSTANT.replace("LOW", low))
    with pytest.raises(InputFileError, match="heldout_low is not a number from 0 to 1"):
        load_rules(path)


def test_a_rules_file_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "rules.json"
    path.write_bytes(b"\xef\xbb\xbf" + CONSTANT.replace("LOW", "0.5").encode())
    assert load_rules(path).rules[0].value == 1


def learn_cli(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), stdout=out, stderr=err)
    return code, err.getvalue()


@pytest.mark.parametrize(
    ("outputs", "message"),
    [
        (["--out", "LOG"], "--out LOG is one of the files read"),
        (["--out", "rules.json", "--html", "LOG"], "--html LOG is one of the files read"),
        (["--out", "same", "--html", "same"], "--out and --html name the same file"),
    ],
)
def test_learn_never_writes_over_what_it_reads_or_one_output_over_another(
    tmp_path: Path, outputs: list[str], message: str
) -> None:
    """learn copy.jsonl --out copy.jsonl replaced the logs with the rules and exited 0."""
    log = tmp_path / "logs.jsonl"
    text = jsonl(*logs(10, train=APPLE, held=APPLE, other=WINDY))
    log.write_text(text)
    named = {"LOG": str(log), "same": str(tmp_path / "same"), "rules.json": str(tmp_path / "r")}
    code, err = learn_cli("learn", str(log), *(named.get(o, o) for o in outputs))
    assert code == 2
    assert message.replace("LOG", str(log)) in " ".join(err.split())
    assert log.read_text() == text
    assert not (tmp_path / "same").exists()


def test_shadow_never_writes_its_page_over_the_logs(tmp_path: Path) -> None:
    log = tmp_path / "logs.jsonl"
    text = jsonl(*logs(4, train=APPLE, held=APPLE))
    log.write_text(text)
    code, err = learn_cli("shadow", str(log), "--html", str(log))
    assert code == 2
    assert "is one of the files read" in err
    assert log.read_text() == text


def test_learn_counts_the_lines_it_left_out_as_shadow_does(tmp_path: Path) -> None:
    """--skip-bad-lines left lines out and said nothing; a line whose tools shadow refuses
    was learned from, so learn's and shadow's counts of the same logs disagreed."""
    made = logs(10, train=APPLE, held=APPLE, other=WINDY)
    broken = json.loads(json.dumps(made[0]))
    broken["request"]["tools"][0]["function"]["parameters"]["properties"] = [1, 2]
    log = tmp_path / "logs.jsonl"
    log.write_text(jsonl(*made, broken) + "{not json\n")
    rules = tmp_path / "rules.json"
    code, err = learn_cli("learn", str(log), "--out", str(rules))
    assert code == 2
    assert ":11" in err or ":12" in err
    out = io.StringIO()
    argv = ["learn", str(log), "--out", str(rules), "--skip-bad-lines"]
    assert run(argv, stdout=out, stderr=io.StringIO()) == 0
    said = " ".join(out.getvalue().split())
    assert "Left out: bad_tools 1, malformed_json 1." in said
    assert load_rules(rules).source["left_out"] == {"bad_tools": 1, "malformed_json": 1}


def test_a_page_that_cannot_be_written_leaves_no_rules_file_behind(tmp_path: Path) -> None:
    """--html /dev/full failed with exit 2 after the rules file was already written."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    log = tmp_path / "logs.jsonl"
    log.write_text(jsonl(*logs(10, train=APPLE, held=APPLE, other=WINDY)))
    rules = tmp_path / "rules.json"
    code, err = learn_cli("learn", str(log), "--out", str(rules), "--html", "/dev/full")
    assert code == 2, err
    assert not rules.exists()


def test_explain_shows_characters_that_reorder_or_hide_text_as_escapes(tmp_path: Path) -> None:
    """A right-to-left override in a value made a rule read as another under review."""
    from agent_lab.lab.report.terminal import printable

    assert printable("New York\u202e kroY weN") == "New York\\u202e kroY weN"
    assert printable("a\u200bb\u2066c\x1b") == "a\\u200bb\\u2066c\\x1b"
    assert printable("tab\tand\nnewline, lumière") == "tab\tand\nnewline, lumière"
    path = tmp_path / "rules.json"
    path.write_text(
        '{"format": "agent-lab.rules/1", "rules": [{"kind": "alias", "tool": "t", '
        '"parameter": "p", "phrase": "the big apple", "value": "Paris\\u202eknaB"}]}'
    )
    out = io.StringIO()
    assert run(["learn", "--explain", str(path)], stdout=out, stderr=io.StringIO()) == 0
    assert "\u202e" not in out.getvalue()
    assert "\\u202e" in out.getvalue()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["learn", "FOLDER", "--out", "r.json"], "is a folder: name the log files in it"),
        (["learn", "EMPTY", "--out", "r.json"], "the logs hold no request to learn from"),
        (["learn", "--explain", "RULES", "--out", "r.json"], "writes nothing: no --out or --html"),
    ],
)
def test_learn_says_what_is_wrong_with_what_it_was_given(
    tmp_path: Path, argv: list[str], message: str
) -> None:
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "rules.json").write_text('{"format": "agent-lab.rules/1", "rules": []}')
    named = {
        "FOLDER": str(tmp_path),
        "EMPTY": str(tmp_path / "empty.jsonl"),
        "RULES": str(tmp_path / "rules.json"),
        "r.json": str(tmp_path / "r.json"),
    }
    code, err = learn_cli(*(named.get(a, a) for a in argv))
    assert code == 2
    assert message in " ".join(err.split())
    assert not (tmp_path / "r.json").exists()
