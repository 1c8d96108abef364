"""``--plugins`` finds a user's module where they are: in the current folder, or by its file."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from agent_lab.cli import run
from agent_lab.errors import PluginLoadError
from agent_lab.lab.run.plugin_sets import load_plugins

PLUGIN = """
from agent_lab import EventDefinition, PluginSet, Route

plugins = PluginSet(
    "mine",
    (EventDefinition("greet", parameters={"type": "object", "properties": {}}),),
    (Route("greet", keywords=("hello",)),),
)
"""


def events(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(["events", *argv, "--summary"], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_a_module_in_the_current_folder_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A console script's sys.path lacks the folder it runs in: the loader looks there too."""
    (tmp_path / "my_events_here.py").write_text(PLUGIN)
    monkeypatch.chdir(tmp_path)
    assert str(tmp_path) not in sys.path
    code, out, err = events("--plugins", "my_events_here:plugins")
    assert code == 0, err
    assert "greet" in out
    assert str(tmp_path) not in sys.path  # looked in, not left on the path


def test_a_module_may_be_named_by_its_file(tmp_path: Path) -> None:
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "by_file_events.py").write_text(PLUGIN)
    code, out, err = events("--plugins", f"{tmp_path}/plugins/by_file_events.py:plugins")
    assert code == 0, err
    assert "greet" in out


def test_a_module_that_is_nowhere_is_still_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PluginLoadError, match="cannot import no_such_module_anywhere"):
        load_plugins("no_such_module_anywhere:plugins")
    with pytest.raises(PluginLoadError, match="cannot import"):
        load_plugins(f"{tmp_path}/missing.py:plugins")
