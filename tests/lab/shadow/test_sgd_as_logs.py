"""SGD dev rendered as logs: chat and pairs give the same figures, consistent with precision."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from agent_lab.cli import run
from tests.conftest import REPO_ROOT
from tests.logs.sgd_logs import SGDLogs

SGD_DEV = REPO_ROOT / "tests" / "data" / "sgd" / "dev"
CALL_FIGURES = (
    "calls", "covered", "coverage", "agreement", "agreement_lenient", "arguments_agreement",
    "router",
)  # fmt: skip


def cli(*argv: str) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    assert run(list(argv), stdout=out, stderr=err) == 0, err.getvalue()
    document: dict[str, Any] = json.loads(out.getvalue())
    return document


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("sgd-logs")
    logs = SGDLogs(SGD_DEV)
    paths: dict[str, Path] = {}
    for form in ("chat", "pairs"):
        path = folder / f"{form}.jsonl"
        path.write_text("".join(line + "\n" for line in logs.render(form)), encoding="utf-8")
        paths[form] = path
    return paths


@pytest.mark.parametrize("read", ["last", "user_turns"])
def test_chat_and_pairs_renderings_give_the_same_figures(
    rendered: dict[str, Path], read: str
) -> None:
    chat = cli("shadow", str(rendered["chat"]), "--json", "--read", read)
    pairs = cli("shadow", str(rendered["pairs"]), "--json", "--read", read)
    assert {k: chat[k] for k in CALL_FIGURES} == {k: pairs[k] for k in CALL_FIGURES}
    assert chat["calls"] == pairs["requests"] > 200
    assert pairs["skipped"] == chat["skipped"] == {}
    # Each pairs line is one call; its tokens are estimates, and said to be.
    assert pairs["tokens_estimated"] is True


def test_agreement_on_the_values_is_consistent_with_precision(
    rendered: dict[str, Path], tmp_path: Path
) -> None:
    """The same resolver on the same text: call-level agreement and value-level precision."""
    shadow = cli("shadow", str(rendered["pairs"]), "--json", "--read", "user_turns")
    out = io.StringIO()
    assert run(["import", "sgd", str(SGD_DEV), "--out", str(tmp_path)], stdout=out) == 0
    precision = cli(
        "precision", str(tmp_path / "workload-utterance.jsonl"), "--plugins", str(tmp_path),
        "--json",
    )["overall"]  # fmt: skip
    values = shadow["arguments_agreement"]
    assert values["of"] > 10
    # A call agrees only when every value does: at most as often as a value is right,
    # and here no less than precision's interval allows.
    assert values["low"] <= precision["precision"]
    assert values["rate"] >= precision["low"] - 0.1
