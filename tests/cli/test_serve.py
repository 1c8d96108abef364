"""``agent-lab serve``'s usage errors: one line, exit 2, before anything listens."""

from __future__ import annotations

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import io
from pathlib import Path

from agent_lab.cli import run, serving
from agent_lab.errors import ArgumentError, UsageError
from agent_lab.gateway import Gateway, GatewaySettings


def serve(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    code = run(["serve", *argv], stdout=io.StringIO(), stderr=err)
    return code, err.getvalue()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--upstream", "ftp://example.invalid/v1"], "http"),
        (["--upstream", "http://127.0.0.1:9/v1", "--api-key-env", "AGENT_LAB_NOT_SET"], "not set"),
        (
            ["--upstream", "http://127.0.0.1:9/v1", "--upstream-key-env", "AGENT_LAB_NOT_SET"],
            "not set",
        ),
        (["--upstream", "http://127.0.0.1:9/v1", "--plugins", "no_such_module:x"], "no_such"),
        (["--upstream", "http://127.0.0.1:9/v1", "--workers", "0"], "workers"),
        (["--upstream", "http://127.0.0.1:9/v1", "--min-agreement", "2"], "min-agreement"),
        (
            ["--upstream", "http://127.0.0.1:9/v1", "--max-upstream-body-bytes", "0"],
            "max-upstream-body-bytes",
        ),
        (["--upstream", "http://127.0.0.1:9/v1", "--rules", "no-such-rules.json"], "rules"),
        (["--upstream", "http://127.0.0.1:9/v1", "--port", "99999"], "99999 is not a port"),
    ],
    ids=[
        "not-http",
        "gateway-key-unset",
        "upstream-key-unset",
        "bad-plugins",
        "no-workers",
        "agreement",
        "no-upstream-body",
        "no-rules-file",
        "port-past-65535",
    ],
)
def test_a_bad_option_is_one_line_and_exit_2(
    argv: list[str], said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENT_LAB_NOT_SET", raising=False)
    code, err = serve(*argv)
    assert code == 2
    assert said in err
    assert len(err.strip().splitlines()) == 1


def test_a_store_that_is_not_a_gateway_store_is_refused(tmp_path: Path) -> None:
    """A file that is not SQLite: exit 2, the file left as it was."""
    db = tmp_path / "notes.txt"
    db.write_text("my notes\n" * 200)
    code, err = serve("--upstream", "http://127.0.0.1:9/v1", "--db", str(db))
    assert code == 2
    assert "store" in err
    assert db.read_text() == "my notes\n" * 200


@pytest.mark.parametrize(
    ("argv", "cap"), [([], 64 << 20), (["--max-upstream-body-bytes", "4096"], 4096)]
)
def test_the_upstream_body_cap_reaches_every_workers_settings(
    argv: list[str], cap: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--max-upstream-body-bytes`` (64 MiB unless told), carried through the workers' JSON."""
    seen: list[GatewaySettings] = []

    def build(settings: GatewaySettings, *, spans: bool = True) -> Gateway:
        seen.append(settings)
        raise UsageError("stop here: nothing is served")

    monkeypatch.setattr(serving, "build_gateway", build)
    code, err = serve("--upstream", "http://127.0.0.1:9/v1", *argv)
    assert (code, "stop here" in err) == (2, True)
    (settings,) = seen
    assert settings.max_upstream_body_bytes == cap
    assert GatewaySettings.from_json(settings.to_json()) == settings
    with pytest.raises(ArgumentError, match="max_upstream_body_bytes"):
        GatewaySettings(upstream="http://127.0.0.1:9/v1", max_upstream_body_bytes=0)
