"""``agent-lab serve``'s usage errors: one line, exit 2, before anything listens."""

from __future__ import annotations

import pytest

pytest.importorskip("prometheus_client", reason="the gateway extra is not installed")

import io
import json
import logging
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import uvicorn

from agent_lab.cli import run
from agent_lab.cli.commands.serve import app
from agent_lab.cli.commands.serve.preflight import offered_tools
from agent_lab.errors import ArgumentError, UsageError
from agent_lab.exchange_stores import NewRow, open_exchanges
from agent_lab.gateway import Gateway, GatewaySettings
from tests.postgres_server import PostgresServer


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

    monkeypatch.setattr(app, "build_gateway", build)
    code, err = serve("--upstream", "http://127.0.0.1:9/v1", *argv)
    assert (code, "stop here" in err) == (2, True)
    (settings,) = seen
    assert settings.max_upstream_body_bytes == cap
    assert GatewaySettings.from_json(settings.to_json()) == settings
    with pytest.raises(ArgumentError, match="max_upstream_body_bytes"):
        GatewaySettings(upstream="http://127.0.0.1:9/v1", max_upstream_body_bytes=0)


def test_the_body_timeout_and_cors_setting_reach_the_gateway(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--body-timeout`` (10 s unless told), ``--pass-cors`` and ``--no-ask``, through the
    workers' JSON too;
    the instance id that tells a loop is the same in every worker."""
    seen: list[GatewaySettings] = []

    def build(settings: GatewaySettings, *, spans: bool = True) -> Gateway:
        seen.append(settings)
        raise UsageError("stop here: nothing is served")

    monkeypatch.setattr(app, "build_gateway", build)
    serve("--upstream", "http://127.0.0.1:9/v1")
    serve("--upstream", "http://127.0.0.1:9/v1", "--body-timeout", "2.5", "--pass-cors", "--no-ask")
    (default, told) = seen
    assert (default.body_timeout, default.pass_cors, default.ask) == (10.0, False, True)
    assert (told.body_timeout, told.pass_cors, told.ask) == (2.5, True, False)
    assert GatewaySettings.from_json(told.to_json()) == told
    assert default.instance != told.instance
    code, err = serve("--upstream", "http://127.0.0.1:9/v1", "--body-timeout", "0")
    assert code == 2
    assert "--body-timeout" in err
    code, err = serve("--upstream", "http://127.0.0.1:9/v1", "--reference-date", "soon")
    assert code == 2
    assert "--reference-date" in err


Started = Callable[..., tuple[int, str]]


def not_served(*_: object, **__: object) -> None:
    """In place of ``uvicorn.run``: the command returns as if the server had stopped."""


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Started]:
    """``agent-lab serve`` in-process up to the server, which is not started: (code, stderr)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(uvicorn, "run", not_served)
    before = signal.getsignal(signal.SIGTERM)
    yield serve
    signal.signal(signal.SIGTERM, before)


@pytest.mark.parametrize(
    ("upstream", "argv"),
    [
        ("http://127.0.0.1:8080/v1", []),
        ("http://localhost:8080/v1", []),
        ("http://127.0.0.1:7000/v1", ["--host", "localhost", "--port", "7000"]),
        ("http://[::1]:7000/v1", ["--host", "0.0.0.0", "--port", "7000"]),
        ("http://10.1.2.3/v1", ["--host", "10.1.2.3", "--port", "80"]),
        ("https://me:secret@localhost:8443/v1", ["--port", "8443"]),
    ],
    ids=["defaults", "localhost", "both-names", "any-address", "same-host", "credentials"],
)
def test_an_upstream_that_is_the_gateway_itself_is_refused(
    upstream: str, argv: list[str], started: Started
) -> None:
    """Requests sent to itself would loop until 429: exit 2, one line naming both addresses."""
    code, err = started("--upstream", upstream, *argv)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "is this gateway itself" in err
    assert upstream.replace("me:secret@", "") in err
    assert "--port" in err
    assert "secret" not in err


@pytest.mark.parametrize(
    ("upstream", "argv"),
    [
        ("http://127.0.0.1:8081/v1", []),
        ("http://127.0.0.1:8080/v1", ["--host", "10.1.2.3"]),
        ("http://127.0.0.1/v1", ["--port", "0"]),
    ],
    ids=["other-port", "other-interface", "any-free-port"],
)
def test_an_upstream_on_another_address_is_served(
    upstream: str, argv: list[str], started: Started
) -> None:
    """Another port, or loopback while the gateway listens on another interface: no refusal."""
    code, err = started("--upstream", upstream, *argv)
    assert (code, "itself" in err) == (0, False), err


UPSTREAM = "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("argv", "warning"),
    [
        (["--upstream", "http://127.0.0.1:9"], "usually serve under /v1"),
        (["--upstream", "http://127.0.0.1:9/api/"], "usually serve under /v1"),
        (["--enforce", "get_weather"], "--enforce has no effect in shadow mode"),
        (["--min-agreement", "0.99"], "--min-agreement has no effect in shadow mode"),
        (
            ["--mode", "enforce", "--min-agreement", "0.99", "--no-store"],
            "--min-agreement has no effect with --no-store",
        ),
        (["--mode", "enforce"], "--mode enforce trusts no tool"),
    ],
    ids=["no-path", "no-version", "enforce-in-shadow", "agreement-in-shadow", "agreement-no-store",
         "enforce-nothing"],
)  # fmt: skip
def test_a_setting_that_cannot_take_effect_is_a_warning_before_serving(
    argv: list[str], warning: str, started: Started
) -> None:
    """One warning line on stderr, then the start-up line; the gateway still serves."""
    code, err = started("--upstream", UPSTREAM, *argv)
    lines = err.splitlines()
    assert code == 0
    (said,) = [line for line in lines if line.startswith("agent-lab serve: warning: ")]
    assert warning in said
    assert lines[-1].startswith("agent-lab serve: http://127.0.0.1:8080 ")


@pytest.mark.parametrize(
    ("upstream", "argv", "trusted"),
    [
        (UPSTREAM, [], None),
        ("http://127.0.0.1:9/v1beta/", ["--mode", "enforce", "--enforce", "get_weather"],
         "; trusted: get_weather"),
        (UPSTREAM, ["--mode", "enforce", "--enforce", "a", "--enforce", "b", "--min-agreement",
         "0.99"], "; trusted: a, b and those earned at >= 0.99"),
        (UPSTREAM, ["--mode", "enforce", "--min-agreement", "0.9"],
         "; trusted: those earned at >= 0.9"),
    ],
    ids=["shadow", "listed", "listed-and-earned", "earned"],
)  # fmt: skip
def test_the_start_up_line_lists_what_enforce_trusts_and_nothing_is_warned_of(
    upstream: str, argv: list[str], trusted: str | None, started: Started
) -> None:
    """Settings that all take effect: no warning (a new store offered no tool yet, says nothing)."""
    code, err = started("--upstream", upstream, *argv)
    assert code == 0
    (line,) = err.splitlines()
    assert line.startswith("agent-lab serve: http://127.0.0.1:8080 ")
    assert line.endswith("; relative dates against each request's arrival time")
    if trusted is None:
        assert "trusted" not in line
    else:
        assert f"{trusted};" in line


def tool(name: str) -> dict[str, object]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}


def store_offering(path: Path, *requests: dict[str, object]) -> Path:
    """A gateway store holding these requests, oldest first."""
    table = open_exchanges(str(path), create=True)
    table.insert(
        [
            NewRow(
                request_id=str(n),
                at="2025-01-01T00:00:00.000+00:00",
                origin="upstream",
                status=200,
                line=json.dumps({"request": r}),
                decision=None,
                worker=1,
            )
            for n, r in enumerate(requests)
        ]
    )
    table.close()
    return path


def test_a_trusted_tool_no_stored_request_offered_is_a_warning(
    started: Started, tmp_path: Path
) -> None:
    """``--enforce get_wether``: none of the stored requests offered it, perhaps a typo."""
    store = store_offering(
        tmp_path / "gateway.sqlite",
        {"model": "m", "tools": [tool("get_weather"), tool("set_timer")]},
        {"model": "m", "functions": [{"name": "book_table", "parameters": {"type": "object"}}]},
    )
    code, err = started(
        "--upstream", UPSTREAM, "--mode", "enforce", "--db", str(store),
        "--enforce", "get_weather", "--enforce", "get_wether", "--enforce", "book_table",
    )  # fmt: skip
    assert code == 0
    (warning,) = [line for line in err.splitlines() if "warning" in line]
    assert "--enforce get_wether: none of the store's newest 2 requests offered" in warning


def test_the_tools_offered_are_read_from_the_newest_requests_only(tmp_path: Path) -> None:
    """Bounded by rows and by characters read; a request with odd tools is passed over."""
    store = str(
        store_offering(
            tmp_path / "gateway.sqlite",
            {"model": "m", "tools": [tool("oldest")]},
            {"model": "m", "tools": "not a list"},
            {"model": "m", "tools": [tool("newer"), 7, {"function": None}]},
            {"model": "m", "tools": [tool("newest")]},
        )
    )
    read = offered_tools(store)
    assert read is not None
    assert (read.names, read.requests) == ({"oldest", "newer", "newest"}, 4)
    read = offered_tools(store, newest=2)
    assert read is not None
    assert (read.names, read.requests) == ({"newer", "newest"}, 2)
    read = offered_tools(store, budget=1)
    assert read is not None
    assert (read.names, read.requests) == ({"newest"}, 1)
    assert offered_tools(str(store_offering(tmp_path / "new.sqlite"))) is None
    assert offered_tools(str(tmp_path / "none.sqlite")) is None


@pytest.fixture
def agent_lab_logger() -> Iterator[logging.Logger]:
    """The package's logger, its handlers and level put back after the test."""
    logger = logging.getLogger("agent_lab")
    handlers, level = list(logger.handlers), logger.level
    yield logger
    logger.handlers[:] = handlers
    logger.setLevel(level)


@pytest.mark.usefixtures("agent_lab_logger")
@pytest.mark.parametrize(
    ("verbosity", "lines"),
    [("0", []), ("1", ["INFO"]), ("2", ["INFO", "DEBUG"])],
    ids=["quiet", "v", "vv"],
)
def test_a_worker_logs_to_stderr_as_v_asked(
    verbosity: str,
    lines: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``gateway_app`` (each worker's factory) logs as the command does, controls shown."""
    settings = GatewaySettings(upstream=UPSTREAM, db=None)
    monkeypatch.setenv(app.SETTINGS_ENV, settings.to_json())
    monkeypatch.setenv(app.VERBOSITY_ENV, verbosity)
    app.gateway_app()
    app.gateway_app()  # one handler, however often it is called
    requests = logging.getLogger("agent_lab.gateway.requests")
    requests.info("POST /v1/chat/completions forwarded \x1b[2J")
    requests.debug("more")
    said = capsys.readouterr().err.splitlines()
    assert [line.split()[1] for line in said] == lines
    if lines:
        assert said[0] == (
            "agent-lab: INFO agent_lab.gateway.requests: POST /v1/chat/completions forwarded "
            "\\x1b[2J"
        )


def test_a_postgresql_store_down_at_start_is_refused_and_its_password_never_said() -> None:
    """The schema is checked when a replica starts: an unreachable database is exit 2."""
    pytest.importorskip("psycopg", reason="a PostgreSQL store needs the postgres extra")
    from tests.gateway.process import free_port

    db = f"postgresql://gateway:s3cr3t@127.0.0.1:{free_port()}/agent"
    code, err = serve("--upstream", "http://127.0.0.1:9/v1", "--db", db)
    assert code == 2
    assert "postgresql://gateway:***@127.0.0.1" in err
    assert "s3cr3t" not in err


def test_the_start_up_line_names_a_postgresql_store_without_its_password(
    started: Started, postgres: PostgresServer
) -> None:
    db = postgres.new_database().replace("agent_lab@", "agent_lab:s3cr3t@")
    code, err = started("--upstream", UPSTREAM, "--db", db)
    assert code == 0, err
    assert "; store: postgresql://agent_lab:***@127.0.0.1:" in err
    assert "s3cr3t" not in err
