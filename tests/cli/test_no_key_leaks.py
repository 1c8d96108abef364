"""No form of the API key, nor a password in the base URL, reaches anything agent-lab writes.

A run against a real OpenAI-compatible server on loopback that echoes the key
back in every way it can (error bodies, cut at any length, a reply's content
and model), recorded to a cassette, reported as HTML, exported as CSV and
Parquet: then every byte written, and every line printed, is searched for any
12 characters of the key.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_lab.cli import run
from tests.openai_server import Behavior, OpenAIServer, serving, status

KEY = "sk-proj-" + "".join(chr(ord("a") + (i * 11) % 26) for i in range(150))
PASSWORD = "hunter2-url-password"


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    yield from serving()


def fragments(secret: str) -> list[str]:
    return [secret[i : i + 12] for i in range(4, len(secret) - 11)]


def leaked(text: str) -> list[str]:
    return [f for f in fragments(KEY) if f in text] + ([PASSWORD] if PASSWORD in text else [])


def test_no_form_of_the_key_is_written_anywhere(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def body(text: str) -> str:
        return json.dumps({"error": {"message": text}})

    server.play(
        status(401, body(f"bad key {KEY}")),
        status(400, body("x" * 150 + KEY)),
        status(400, body("y" * 190 + KEY)),
        status(403, body(f"key {KEY[:40]} refused")),
        status(429, body(f"slow down, {KEY}"), **{"retry-after-ms": "1"}),
    )
    server.default = Behavior(kind="echo_key")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.url.replace("http://", f"http://u:{PASSWORD}@"))
    db, cassette, html = tmp_path / "r.sqlite", tmp_path / "c.jsonl", tmp_path / "report.html"
    printed: list[str] = []

    def cli(*argv: str) -> int:
        out, err = io.StringIO(), io.StringIO()
        code = run(list(argv), stdout=out, stderr=err)
        printed.extend([out.getvalue(), err.getvalue()])
        return code

    cli(
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "24", "--db", str(db),
        "--provider", "openai", "--model", "gpt-4o-mini", "--record", str(cassette),
        "--no-progress", "--concurrency", "2",
    )  # fmt: skip
    assert cassette.stat().st_size > 0
    assert cli("report", str(db), "--html", str(html)) == 0
    assert cli("export", str(db), "--format", "csv", "--out", str(tmp_path / "csv")) == 0
    assert cli("export", str(db), "--format", "parquet", "--out", str(tmp_path / "pq")) == 0
    assert cli("providers") == 0
    assert "[redacted]" in cassette.read_text()
    written = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    assert len(written) >= 6
    found = {
        str(path.relative_to(tmp_path)): hits
        for path in written
        if (hits := leaked(path.read_bytes().decode("utf-8", "replace")))
    }
    assert found == {}
    assert [text for text in printed if leaked(text)] == []


BODY = "Xq7Lm2Vb9Tz4Rk8Wn3Hy6Jd1Fs5Gp0Ac7Ue2Io9Bt4Nv8Mw3Q"
KEY48 = "sk-proj-" + BODY
"""A key of the common shape: a known prefix and 48 characters of body."""
ZWSP = "\u200b"


def echoed(key: str) -> Behavior:
    """A reply that reflects the key in every field a server fills, each in another form."""
    body = key.removeprefix("sk-proj-")
    call = {
        "id": f"call_{key}",
        "type": "function",
        "function": {
            "name": f"tool_{body[:20]}{ZWSP}{body[20:]}",
            "arguments": json.dumps({body.upper(): f"{body[:30]}\n{body[30:]}"}),
        },
    }
    return Behavior(
        message={"role": "assistant", "content": f"{body[:9]}-{body[9:]}", "tool_calls": [call]},
        model=f"model-{body}",
        finish_reason=f"stop {key}",
    )


def escaped(text: str) -> str:
    """``text`` with every character as a JSON \\u escape."""
    return "".join(f"\\u{ord(c):04x}" for c in text)


def test_no_form_of_a_key_from_any_field_is_written_or_shown(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """finish_reason reached the cassette whole; a key without its prefix, or split by one
    character, left 38 to 40 of its 48 characters in the store, cassette, CSV and -v log."""
    server.play(
        Behavior(kind="echo", echo=lambda key: status(400, json.dumps({"error": {"message": (
            f"bad key {key.removeprefix('sk-proj-')}"
        )}}))),
        Behavior(kind="echo", echo=lambda key: status(400, json.dumps({"error": {"message": (
            f"bad key {key[:30]}\n{key[30:]}"
        )}}))),
        Behavior(kind="echo", echo=lambda key: status(
            400, '{"error": {"message": "key ' + escaped(key.upper()) + '"}}'
        )),
        # FastAPI's shape, the key's last 4 characters cut off by a line break.
        Behavior(kind="echo", echo=lambda key: status(
            422, json.dumps({"detail": f"bad key {key[:-4]}\n{key[-4:]}"})
        )),
    )  # fmt: skip
    server.default = Behavior(kind="echo", echo=echoed)
    monkeypatch.setenv("OPENAI_API_KEY", KEY48)
    db, cassette = tmp_path / "r.sqlite", tmp_path / "c.jsonl"
    printed: list[str] = []

    def cli(*argv: str) -> int:
        out, err = io.StringIO(), io.StringIO()
        code = run(list(argv), stdout=out, stderr=err)
        printed.extend([out.getvalue(), err.getvalue()])
        return code

    cli(
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "12", "--db", str(db),
        "--provider", "openai", "--model", "gpt-4o-mini", "--base-url", server.url,
        "--record", str(cassette), "--no-progress", "-vv",
    )  # fmt: skip
    assert len(server.requests) > 3
    assert cli("report", str(db), "--html", str(tmp_path / "report.html")) == 0
    assert cli("export", str(db), "--format", "csv", "--out", str(tmp_path / "csv")) == 0
    shown = "\n".join(printed).lower()
    written = {
        str(path.relative_to(tmp_path)): path.read_bytes().decode("utf-8", "replace").lower()
        for path in tmp_path.rglob("*")
        if path.is_file()
    }
    assert "[redacted]" in written["c.jsonl"]
    pieces = [BODY[i : i + 12].lower() for i in range(len(BODY) - 11)]
    assert {name: [p for p in pieces if p in text] for name, text in written.items()} == {
        name: [] for name in written
    }
    assert [p for p in pieces if p in shown] == []
    # Nothing is left beside a redacted part: the cut-off tail went with the rest.
    tail = f"[redacted]\\n{BODY[-4:]}".lower()
    assert [name for name, text in written.items() if tail in text] == []
    assert tail not in shown
