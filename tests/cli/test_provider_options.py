"""The provider options under attack: URLs that do not parse, and providers whose name raises."""

from __future__ import annotations

import io
import sys
from typing import TYPE_CHECKING

import pytest

from agent_lab.cli import run

if TYPE_CHECKING:
    from pathlib import Path

PASSWORD = "hunter2-url-password"
DEMO_RUN = ["run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "6", "--no-progress"]


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


BAD_URLS = {
    "bracket left open": f"http://user:{PASSWORD}@[::1/v1",
    "port too large": f"http://user:{PASSWORD}@127.0.0.1:99999/v1",
    "port not a number": "http://127.0.0.1:abc/v1",
    "password with a slash": f"http://user:{PASSWORD}/x@127.0.0.1/v1",
    "no host": "http:///v1",
    "not http": f"ftp://user:{PASSWORD}@127.0.0.1/v1",
    "port 0": "http://127.0.0.1:0/v1",
}


@pytest.mark.parametrize("url", list(BAD_URLS.values()), ids=list(BAD_URLS))
@pytest.mark.parametrize("given", ["--base-url", "OPENAI_BASE_URL"])
def test_an_unusable_base_url_is_exit_2_and_its_password_is_never_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, given: str
) -> None:
    """``http://user:pw@[::1/v1``, which urlsplit refuses, was stored and printed with its
    password; a bad port was a traceback."""
    db = tmp_path / "r.sqlite"
    argv = [*DEMO_RUN, "--db", str(db), "--provider", "openai", "--model", "m"]
    if given == "--base-url":
        argv += ["--base-url", url]
    else:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
    code, out, err = cli(*argv)
    assert code == 2, err
    assert err.count("\n") == 1, err
    assert err.startswith(f"agent-lab: {given} is not a usable endpoint: ")
    assert PASSWORD not in out + err
    assert not db.exists()


def test_providers_never_shows_the_password_of_a_url_that_does_not_parse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://user:{PASSWORD}@[::1/v1")
    code, out, err = cli("providers")
    assert code == 0, err
    assert PASSWORD not in out + err
    assert "http://[::1/v1; the credentials in OPENAI_BASE_URL are ignored" in out


@pytest.mark.parametrize(
    ("attribute", "said"),
    [
        ("raising_name", "raised RuntimeError: no name today"),
        ("raising_model", "raised LookupError: which model?"),
        ("number_name", "its name must be a string"),
    ],
)
def test_a_provider_whose_name_or_model_misbehaves_is_exit_2(
    tmp_path: Path, attribute: str, said: str
) -> None:
    """A user's provider whose ``name`` property raised was a traceback."""
    reference = f"tests.cli.hostile_providers:{attribute}"
    code, _, err = cli(*DEMO_RUN, "--db", str(tmp_path / "r.sqlite"), "--provider", reference)
    assert code == 2, err
    assert err.count("\n") == 1, err
    assert err.startswith(f"agent-lab: --provider {reference}: ")
    assert said in err


def test_a_providers_name_is_read_once(tmp_path: Path) -> None:
    """Read once, checked, kept: a name that raises later cannot crash the run."""
    from tests.cli import hostile_providers

    reference = "tests.cli.hostile_providers:name_raises_after_its_first_read"
    db = tmp_path / "r.sqlite"
    code, _, err = cli(*DEMO_RUN, "--db", str(db), "--provider", reference, "--policy",
                       "llm-always")  # fmt: skip
    assert "Traceback" not in err
    assert code in (0, 1), err
    assert db.exists()
    assert hostile_providers.name_raises_after_its_first_read.reads == 1


SHY_MODEL = """
from agent_lab import ProviderReply, Usage


class Shy:
    name = "shy"
    model = "shy-1"

    async def complete(self, request):
        text = "{}" if request.purpose == "fallback" else "Say that again?"
        return ProviderReply(text=text, usage=Usage(prompt_tokens=1, completion_tokens=1))

    async def aclose(self):
        pass


provider = Shy()
"""


@pytest.mark.parametrize("reference", ["shy_model_here:provider", "models/shy_by_file.py:provider"])
def test_a_provider_of_your_own_is_found_where_you_are_as_plugins_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference: str
) -> None:
    """``--provider MODULE:ATTR`` looks in the current folder too, and takes a file's path.

    A console script's sys.path lacks the folder it runs in, so a user's
    ``shy_model_here.py`` beside them was "No module named", where
    ``--plugins`` found the same module.
    """
    (tmp_path / "shy_model_here.py").write_text(SHY_MODEL)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "shy_by_file.py").write_text(SHY_MODEL)
    monkeypatch.chdir(tmp_path)
    assert str(tmp_path) not in sys.path
    db = str(tmp_path / "r.sqlite")
    code, _, err = cli(*DEMO_RUN, "--provider", reference, "--warmup", "0", "--db", db)
    assert code == 0, err
    assert str(tmp_path) not in sys.path  # looked in, not left on the path
