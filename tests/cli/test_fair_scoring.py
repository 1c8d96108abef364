"""The fair protocol, end to end through the command line, with a provider of one's own.

The provider below (loaded with ``--provider MODULE:ATTR``) calls the wrong
tool with the right arguments on one case, and asks a question instead of
calling a tool on a case whose information is missing: the first must be
scored wrong, the second right.
"""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest

from agent_lab.cli import run

MODULE = """
from agent_lab.agents.port import ProviderReply, ToolCall
from agent_lab.testing import FunctionProvider


def answer(request):
    text = request.context.get("text")
    if text == "set a timer for 10 minutes":
        # Right arguments, wrong tool.
        call = ToolCall(name="set_reminder", arguments_raw='{"duration_seconds": 600}',
                        arguments={"duration_seconds": 600})
        return ProviderReply(tool_calls=(call,))
    return ProviderReply(text="How long should the timer run?")


provider = FunctionProvider(answer, name="asker", model="asker-1")
"""


def test_a_wrong_tool_is_wrong_and_asking_where_information_is_missing_is_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "asking_provider.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))  # pyright: ignore[reportUnknownMemberType]
    cases = [
        {"id": "wrong-tool", "event": "set_timer", "text": "set a timer for 10 minutes",
         "expected": {"status": "success", "arguments": {"duration_seconds": 600}}},
        {"id": "asks", "event": "set_timer", "text": "set a timer",
         "expected": {"status": "missing_information", "arguments": None}},
    ]  # fmt: skip
    workload = tmp_path / "w.jsonl"
    workload.write_text("".join(json.dumps(case) + "\n" for case in cases))
    db = tmp_path / "r.sqlite"
    out, err = io.StringIO(), io.StringIO()
    code = run(
        [
            "run", str(workload), "--plugins", "agent_lab.demo:plugins", "--db", str(db),
            "--provider", "asking_provider:provider", "--policy", "llm-always",
            "--no-progress", "--warmup", "0",
        ],
        stdout=out,
        stderr=err,
    )  # fmt: skip
    assert code == 0, err.getvalue()
    with sqlite3.connect(db) as connection:
        rows = dict(connection.execute("SELECT case_id, correct FROM trials").fetchall())
        raw = dict(connection.execute("SELECT case_id, llm_raw FROM trials").fetchall())
    assert rows == {"wrong-tool": 0, "asks": 1}
    assert raw["asks"] == "How long should the timer run?"


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("no_such_module_here:provider", "cannot load it"),
        ("json:dumps", "its factory raised"),
        ("json:__name__", "a str, not a provider"),
    ],
)
def test_a_provider_reference_that_is_no_provider_is_one_line(reference: str, message: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = run(
        ["run", "demo", "--plugins", "agent_lab.demo:plugins", "--provider", reference],
        stdout=out,
        stderr=err,
    )
    assert code == 2
    assert message in err.getvalue()
    assert err.getvalue().count("\n") == 1
