"""The CLI against real OpenAI-compatible servers on loopback: options, and failing loudly."""

from __future__ import annotations

import io
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from agent_lab.cli import run
from agent_lab.lab.results.store import Store
from tests.openai_server import OpenAIServer, content, serving, status
from tests.server_personas import llama_cpp


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    yield from serving()


@pytest.fixture(autouse=True)
def no_endpoint_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "MY_KEY"):
        monkeypatch.delenv(name, raising=False)


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # closed again when the block ends


RUN = ("run", "demo", "--plugins", "agent_lab.demo:plugins", "--no-progress", "--warmup", "0")


def test_openai_with_neither_key_nor_base_url_is_one_line_exit_2(tmp_path: Path) -> None:
    code, _, err = cli(*RUN, "--provider", "openai", "--model", "m", "--db", str(tmp_path / "r"))
    assert code == 2
    assert err.strip().count("\n") == 0
    assert "$OPENAI_API_KEY" in err
    assert "--base-url" in err
    assert not (tmp_path / "r").exists()


def test_the_key_is_read_from_the_variable_named(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_KEY", "sk-test-123")
    server.default = content('{"label": "x"}')
    code, _, err = cli(
        *RUN, "--limit", "4", "--provider", "openai", "--model", "m", "--api-key-env", "MY_KEY",
        "--base-url", server.url, "--db", str(tmp_path / "r.sqlite"), "--policy", "llm-always",
    )  # fmt: skip
    assert code in (0, 1), err
    assert server.requests
    assert all(r.headers["Authorization"] == "Bearer sk-test-123" for r in server.requests)


def test_structured_output_json_object_is_what_the_server_receives(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.default = content('{"label": "pasta"}')
    db = tmp_path / "r.sqlite"
    code, _, err = cli(
        *RUN, "--provider", "openai", "--model", "m", "--base-url", server.url, "--concurrency",
        "16", "--structured-output", "json_object", "--db", str(db), "--policy",
        "deterministic-first", "--max-failure-rate", "1",
    )  # fmt: skip
    # Every demo case: the few whose projected fallback is the smaller request send one.
    formats: list[Any] = [
        r.body.get("response_format") for r in server.requests if "tools" not in r.body
    ]
    assert formats
    # llama.cpp's form: the type, with the schema beside it.
    kinds = [cast("dict[str, Any]", f).get("type") for f in formats]
    assert set(kinds) == {"json_object"}, err
    code, shown, _ = cli("report", str(db), "--json")
    assert code == 0
    settings = json.loads(shown)["run"]["config"]["provider_settings"]
    assert settings["structured_output"] == "json_object"


def test_a_run_against_a_closed_port_exits_1_with_a_failure_summary(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    code, _, err = cli(
        *RUN, "--limit", "12", "--provider", "openai", "--model", "m", "--base-url", url,
        "--db", str(tmp_path / "r.sqlite"), "--policy", "llm-always",
    )  # fmt: skip
    assert code == 1
    assert "failed for the provider's reasons" in err
    assert "connection_error x" in err
    assert "--max-failure-rate" in err


def test_failures_under_the_rate_exit_0_and_are_still_summed_up(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.play(status(400, json.dumps({"error": {"message": "the server says no"}})))
    server.default = content('{"label": "x"}')
    code, _, err = cli(
        *RUN, "--limit", "12", "--provider", "openai", "--model", "m", "--base-url", server.url,
        "--db", str(tmp_path / "r.sqlite"), "--policy", "llm-always", "--max-failure-rate", "0.5",
        "--concurrency", "1", "--structured-output", "json_object",
    )  # fmt: skip
    assert code == 0, err
    assert "http_4xx x1: " in err
    assert "the server says no" in err


@pytest.mark.parametrize(
    ("option", "value"), [("--max-failure-rate", "1.5"), ("--prices", "missing.json")]
)
def test_bad_endpoint_options_are_usage_errors(option: str, value: str, tmp_path: Path) -> None:
    code, _, err = cli(
        *RUN, "--provider", "simulated", option, value, "--db", str(tmp_path / "r.sqlite")
    )
    assert code == 2
    assert option in err


def test_a_models_bad_replies_are_figures_not_provider_failures(tmp_path: Path) -> None:
    """Invalid JSON from the (simulated) model is what the lab measures: exit 0, no summary."""
    code, _, err = cli(
        *RUN, "--limit", "20", "--provider", "simulated", "--simulated-latency", "1,2",
        "--llm-error", "invalid_json=1", "--db", str(tmp_path / "r.sqlite"),
    )  # fmt: skip
    assert code == 0, err
    assert "provider's reasons" not in err


def test_auto_is_the_default_and_the_run_records_and_says_the_mode_it_found(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.responder = llama_cpp('{"label": "pasta"}')
    db = tmp_path / "r.sqlite"
    code, _, err = cli(
        *RUN, "--provider", "openai", "--model", "m", "--base-url", server.url, "--db", str(db),
        "--policy", "deterministic-first", "--max-failure-rate", "1",
    )  # fmt: skip
    assert code == 0, err
    said = next(line for line in err.splitlines() if line.startswith("structured output: "))
    assert said.startswith("structured output: auto: json_object")
    assert "json_schema: HTTP 500" in said
    code, shown, _ = cli("report", str(db), "--json")
    found = json.loads(shown)["run"]
    assert found["structured_output_used"] == "json_object"
    assert found["structured_output_note"].startswith("auto: json_object")


def test_a_retried_request_is_stored_as_sent_and_failed_beside_its_ledger(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """One 503 and then answers: the trial counts two requests, one failed, and says why."""
    server.play(status(503))
    server.default = content('{"label": "x"}')
    db = tmp_path / "r.sqlite"
    code, _, err = cli(
        *RUN, "--limit", "12", "--provider", "openai", "--model", "m", "--base-url", server.url,
        "--db", str(db), "--policy", "llm-always", "--concurrency", "1",
        "--max-failure-rate", "1", "--structured-output", "json_object",
    )  # fmt: skip
    assert code == 0, err
    with Store(db) as store:
        [record] = store.runs()
        trials = store.trials(record.run_id)
    [retried] = [t for t in trials if t.failed_calls]
    assert retried.failed_calls == 1
    assert retried.llm_calls == 2
    assert retried.ledger is not None
    assert retried.ledger["llm_reason"] == "model_resolves"
    code, out, err = cli("report", str(db), "--json")
    assert code == 0, err
    [figures] = json.loads(out)["policies"]
    assert figures["failed_llm_calls"] == 1
    assert set(figures["cost_per_correct"]) == {"value", "low", "high", "n"}
