"""SGD rendered as logs: chat and pairs read back into the same calls, the importer's own truth."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from agent_lab.lab.importers.sgd import import_sgd
from agent_lab.logs import LogFormat, LoggedRequest, read_logs
from tests.conftest import TEST_DATA
from tests.logs.sgd_logs import SGDLogs, main

SGD_DEV = TEST_DATA / "sgd" / "dev"


@pytest.fixture(scope="module")
def logs() -> SGDLogs:
    return SGDLogs(SGD_DEV)


def _write(logs: SGDLogs, format: str, path: Path) -> list[LoggedRequest]:
    path.write_text("".join(line + "\n" for line in logs.render(format)))  # type: ignore[arg-type]
    found = list(read_logs([path]))
    assert all(isinstance(r, LoggedRequest) for r in found)
    return [r for r in found if isinstance(r, LoggedRequest)]


def test_chat_and_pairs_read_back_into_the_same_calls(logs: SGDLogs, tmp_path: Path) -> None:
    """Each tool-call request: the same messages, tools and calls in both renderings."""
    chat = [r for r in _write(logs, "chat", tmp_path / "chat.jsonl") if r.calls]
    pairs = _write(logs, "pairs", tmp_path / "pairs.jsonl")
    assert {r.format for r in pairs} == {LogFormat.PAIRS}
    assert len(pairs) == len(chat) > 0
    for left, right in zip(chat, pairs, strict=True):
        assert (left.messages, left.tools, left.calls) == (right.messages, right.tools, right.calls)
        assert right.usage is not None
        assert right.usage.estimated
        assert right.timestamp == "2019-03-01T00:00:00+00:00"


def test_the_calls_are_the_importers_cases_and_its_tools(logs: SGDLogs, tmp_path: Path) -> None:
    """Names, schemas and arguments are those of import_sgd's events and utterance cases."""
    import_sgd(SGD_DEV, tmp_path / "imported")
    events = json.loads((tmp_path / "imported" / "events.json").read_text())["events"]
    schemas = {e["name"]: e["parameters"] for e in events}
    cases = [
        json.loads(line)
        for line in (tmp_path / "imported" / "workload-utterance.jsonl").read_text().splitlines()
    ]
    pairs = _write(logs, "pairs", tmp_path / "pairs.jsonl")
    assert [(r.calls[0].name, r.calls[0].arguments) for r in pairs] == [
        (case["event"], case["expected"]["arguments"]) for case in cases
    ]
    for request, case in zip(pairs, cases, strict=True):
        tools: list[Any] = json.loads(json.dumps(request.tools))
        offered = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
        assert offered == {name: schemas[name] for name in offered}
        # What the user had said by the call is the utterance case's text.
        said = [m["content"] for m in request.messages if m["role"] == "user"]
        assert " ".join(str(text) for text in said) == case["text"]


def test_the_rendering_is_deterministic(logs: SGDLogs) -> None:
    """Two renderings, the same bytes: experiments compare like with like."""
    assert list(logs.render("pairs")) == list(SGDLogs(SGD_DEV).render("pairs"))


def test_the_command_writes_a_log_file(tmp_path: Path) -> None:
    """python -m tests.logs.sgd_logs FOLDER --format chat --out FILE."""
    out = tmp_path / "chat.jsonl"
    printed = io.StringIO()
    with redirect_stdout(printed):
        assert main([str(SGD_DEV), "--format", "chat", "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert printed.getvalue().startswith(f"{len(lines)} chat lines")
    with pytest.raises(SystemExit) as caught:
        main([str(tmp_path), "--format", "chat", "--out", str(out)])
    assert caught.value.code == 2
