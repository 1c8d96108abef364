"""``--log-requests``: a run against a real endpoint writes its own pairs log, whole, redacted."""

from __future__ import annotations

import gzip
import io
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_lab.cli import run
from agent_lab.lab.results.store import Store
from tests.openai_server import Behavior, OpenAIServer, serving, status, tool_calls

KEY = "sk-proj-" + "".join(chr(ord("a") + (i * 5) % 26) for i in range(80))
DEV_FULL = Path("/dev/full")
RUN = ["run", "demo", "--plugins", "agent_lab.demo:plugins", "--no-progress", "--warmup", "0"]


@pytest.fixture(autouse=True)
def no_endpoint_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    yield from serving()


def openai(server: OpenAIServer) -> list[str]:
    # A fixed structured-output mode: no set-up probes, every request is a trial's.
    return ["--provider", "openai", "--model", "gpt-4o-mini", "--base-url", server.url,
            "--structured-output", "json_object"]  # fmt: skip


def cli(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    code = run(list(argv), stdout=io.StringIO(), stderr=err)
    return code, err.getvalue()


def careful(body: dict[str, Any]) -> Behavior:
    """Calls the first tool offered, else answers an empty object."""
    tools = body.get("tools")
    if tools:
        return tool_calls((str(tools[0]["function"]["name"]), "{}"))
    return Behavior(message={"role": "assistant", "content": "{}"})


def logged(path: Path) -> list[dict[str, Any]]:
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if path.name.endswith(".gz") else raw).decode("utf-8")
    return [json.loads(line) for line in text.splitlines()]


def canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def test_a_run_logs_every_request_the_server_received_with_what_it_answered(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """Concurrency 8, three 503s retried: one whole line per request, each pair the server's."""
    server.play(*(status(503) for _ in range(3)))
    server.responder = careful
    path = tmp_path / "requests.jsonl"
    code, err = cli(
        *RUN, "--limit", "24", "--concurrency", "8", *openai(server), "--db",
        str(tmp_path / "r.sqlite"), "--log-requests", str(path),
    )  # fmt: skip
    assert code in (0, 1), err
    lines = logged(path)
    assert len(lines) == len(server.requests) > 24
    assert f"requests: {path} ({len(lines)} logged)" in err
    failed = [line for line in lines if "error" in line]
    assert [line["error"]["status"] for line in failed] == [503, 503, 503]
    assert all("response" not in line for line in failed)
    # The lines are in the order the requests ended, not sent: compared as a multiset of pairs.
    assert Counter(
        (canonical(line["request"]), canonical(line.get("response"))) for line in lines
    ) == Counter(
        (canonical(r.body), canonical(r.reply if "choices" in r.reply else None))
        for r in server.requests
    )
    assert all(line["metadata"]["provider"] == "openai" for line in lines)
    assert all(isinstance(line["metadata"]["case_id"], str) for line in lines)
    assert max(line["metadata"]["attempt"] for line in lines) == 2


def test_no_form_of_the_key_reaches_a_gzip_log(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server echoes the key in error bodies and replies; the .gz log holds it redacted."""
    server.play(status(401, json.dumps({"error": {"message": f"bad key {KEY}"}})))
    server.default = Behavior(kind="echo_key")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    path = tmp_path / "requests.jsonl.gz"
    cli(*RUN, "--limit", "6", *openai(server), "--db", str(tmp_path / "r.sqlite"),
        "--log-requests", str(path))  # fmt: skip
    lines = logged(path)
    assert len(lines) == len(server.requests) > 1
    text = gzip.decompress(path.read_bytes()).decode("utf-8")
    assert "[redacted]" in text
    assert [KEY[i : i + 12] for i in range(len(KEY) - 11) if KEY[i : i + 12] in text] == []


@pytest.mark.parametrize("provider", ["simulated", "oracle", "replay", "local"])
def test_a_provider_that_sends_no_http_request_is_refused(tmp_path: Path, provider: str) -> None:
    """An empty log would say the run sent nothing: a one-line usage error instead."""
    path = tmp_path / "requests.jsonl"
    code, err = cli(*RUN, "--provider", provider, "--log-requests", str(path),
                    "--db", str(tmp_path / "r.sqlite"))  # fmt: skip
    assert code == 2, err
    assert err.count("\n") == 1, err
    assert "--log-requests needs --provider openai" in err
    assert f"--provider {provider} sends none" in err
    assert not path.exists()


def test_demo_takes_the_flag_too(server: OpenAIServer, tmp_path: Path) -> None:
    """``agent-lab demo --provider openai --log-requests F`` logs what the demo sent."""
    server.responder = careful
    path = tmp_path / "requests.jsonl"
    code, err = cli(
        "demo", "--limit", "6", "--no-progress", *openai(server), "--out", str(tmp_path / "demo"),
        "--log-requests", str(path),
    )  # fmt: skip
    assert code in (0, 1), err
    assert len(logged(path)) == len(server.requests) > 0


@pytest.mark.skipif(not DEV_FULL.exists(), reason="no /dev/full here")
def test_requests_that_cannot_be_logged_fail_the_command_and_keep_the_run(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """As with spans: one line, exit 2, how many were lost and why; the trials are stored."""
    server.responder = careful
    db = tmp_path / "r.sqlite"
    code, err = cli(*RUN, "--limit", "6", *openai(server), "--db", str(db),
                    "--log-requests", str(DEV_FULL))  # fmt: skip
    assert code == 2, err
    assert err.count("\n") == 1, err
    assert (
        f"--log-requests /dev/full: {len(server.requests)} request(s) could not be logged "
        "(No space left on device); the run's trials are stored"
    ) in err
    with Store(db, read_only=True) as store:
        [record] = store.runs()
        assert record.state == "finished"
        assert store.count(record.run_id) > 0


def test_a_lab_runs_request_log_is_replayable_by_shadow(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """The lab writes what shadow reads: every request a line, failed attempts counted apart."""
    server.play(status(503))
    server.responder = careful
    path = tmp_path / "requests.jsonl.gz"
    code, err = cli(
        *RUN, "--limit", "12", "--policy", "llm-always", *openai(server), "--db",
        str(tmp_path / "r.sqlite"), "--log-requests", str(path),
    )  # fmt: skip
    assert code in (0, 1), err
    out = io.StringIO()
    # A failed attempt is no fault of the log: counted, without --skip-bad-lines too.
    assert run(["shadow", str(path), "--json"], stdout=out) == 0
    document = json.loads(out.getvalue())
    assert document["skipped"] == {"failed_request": 1}
    assert document["requests"] == len(server.requests) - 1
    assert document["calls"] > 0
    assert document["by_tool"]
