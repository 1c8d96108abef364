"""What a server sends is shown as it is and never obeyed, and only real keys are redacted."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

import pytest

from agent_lab.cli import run
from tests.openai_server import Behavior, OpenAIServer, serving, status, tool_calls

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    yield from serving()


def demo_against(server: OpenAIServer, tmp_path: Path, *extra: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(
        [
            "run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "6",
            "--db", str(tmp_path / "r.sqlite"), "--provider", "openai", "--model", "gpt-4o-mini",
            "--base-url", server.url, "--no-progress", "--policy", "llm-always", *extra,
        ],
        stdout=out,
        stderr=err,
    )  # fmt: skip
    return code, out.getvalue(), err.getvalue()


HOSTILE = "\x1b]0;owned\x07\x1b[2J\x1b[31mred\x9b1m"


def test_escape_sequences_in_a_servers_error_are_shown_not_obeyed(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """A server's error text with OSC and ANSI sequences reached the terminal raw."""
    server.default = status(400, json.dumps({"error": {"message": f"refused {HOSTILE}"}}))
    code, out, err = demo_against(server, tmp_path, "-v")
    assert code == 1, err
    shown = out + err
    assert "refused" in err  # said, in the summary and in the -v log
    assert "\\x1b]0;owned\\x07" in err
    assert not any(c in shown for c in "\x1b\x07\x9b")


@pytest.mark.parametrize("key", ["t", "x", "none", "EMPTY", "lm-studio"])
def test_a_placeholder_key_is_not_redacted_out_of_replies(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    """With the key ``t``, every ``t`` of every reply became [redacted]: tool names, JSON.

    Strings shorter than 12 characters are not secrets (``MIN_RUN``): no key a
    provider issues is that short, and a local server's placeholder is a word.
    """
    arguments = '{"city": "Paris", "note": "the text, none of it EMPTY for lm-studio"}'
    server.default = tool_calls(("get_weather_at_the_place", arguments))
    monkeypatch.setenv("OPENAI_API_KEY", key)
    cassette = tmp_path / "c.jsonl"
    code, _, err = demo_against(server, tmp_path, "--record", str(cassette))
    assert server.requests, err
    assert all(r.headers["Authorization"] == f"Bearer {key}" for r in server.requests)
    replies = [json.loads(line)["reply"] for line in cassette.read_text().splitlines()]
    assert replies
    assert "[redacted]" not in cassette.read_text()
    for reply in replies:
        assert reply["tool_calls"] == [
            {
                "name": "get_weather_at_the_place",
                "arguments_raw": arguments,
                "arguments": json.loads(arguments),
            }
        ]
    assert code in (0, 1), err


def test_a_real_key_is_still_redacted_whatever_placeholders_are_left_alone(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bound that spares ``none`` spares no key: 12 characters of one are redacted."""
    key = "sk-" + "Gh4Kp9Wd2Mx7Rt1Vb6Zq3Ns8Lc5Fy0Ja"
    server.default = Behavior(
        kind="echo", echo=lambda sent: tool_calls((f"tool_{sent[3:15]}", "{}"))
    )
    monkeypatch.setenv("OPENAI_API_KEY", key)
    cassette = tmp_path / "c.jsonl"
    demo_against(server, tmp_path, "--record", str(cassette))
    recorded = cassette.read_text()
    assert key[3:15] not in recorded
    assert '"name": "tool_[redacted]"' in recorded
