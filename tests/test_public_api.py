"""The public API: names of the contract importable from agent_lab, __all__ sorted and complete."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

import agent_lab
import agent_lab.log_replay.replayed
import agent_lab.strict_json

CONTRACT = {
    "DefinitionError",
    "Event",
    "EventDefinition",
    "EventKernel",
    "EventRegistry",
    "EventResult",
    "FallbackReply",
    "FallbackRequest",
    "Resolution",
    "Status",
}


def test_contract_names_are_importable_from_the_package() -> None:
    """Every public name of docs/kernel-contract.md is importable from agent_lab."""
    assert set(agent_lab.__all__) >= CONTRACT
    for name in agent_lab.__all__:
        assert getattr(agent_lab, name) is not None


def test_all_is_sorted_and_has_no_duplicates() -> None:
    """__all__ is sorted, so a new name has one obvious place."""
    assert agent_lab.__all__ == sorted(set(agent_lab.__all__))
    assert agent_lab.strict_json.__all__ == sorted(set(agent_lab.strict_json.__all__))


def test_no_public_name_is_the_name_of_a_module_of_the_package() -> None:
    """Importing ``agent_lab.x`` binds ``x`` on the package: a public name ``x`` would be lost."""
    modules = {module.name for module in pkgutil.iter_modules(agent_lab.__path__)}
    assert sorted(set(agent_lab.__all__) & modules) == []


def test_replay_is_the_function_once_log_replay_has_loaded() -> None:
    """``agent_lab.replay`` is log replay's function, not its package (``agent_lab.log_replay``)."""
    assert agent_lab.replay is agent_lab.log_replay.replayed.replay


def test_strict_json_names() -> None:
    """agent_lab.strict_json holds loads, canonical_dumps, same_json and StrictJSONError."""
    for name in ("loads", "canonical_dumps", "same_json", "StrictJSONError"):
        assert name in agent_lab.strict_json.__all__
    assert issubclass(agent_lab.strict_json.StrictJSONError, ValueError)


def test_status_values_are_the_contracts() -> None:
    """Status is a str enum with exactly the contract's values."""
    assert {s.value for s in agent_lab.Status} == {
        "success",
        "invalid_arguments",
        "missing_information",
        "fallback_failed",
        "definition_error",
        "unknown_event",
        "handler_error",
    }
    assert agent_lab.Status.SUCCESS == "success"


def test_the_contract_in_the_repository_names_the_same_public_names() -> None:
    """The table of public names in docs/kernel-contract.md is the one tested above."""
    import re
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "kernel-contract.md").read_text("utf-8")
    section = text.split("## Public names", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"^\| `([A-Za-z]+)` \|", section, flags=re.MULTILINE))
    assert named == CONTRACT


def test_importing_the_package_loads_no_provider_nor_numpy() -> None:
    """``import agent_lab`` stays light: the providers and what they need load on first use."""
    heavy = ("numpy", "openai", "genai_prices", "llama_cpp", "agent_lab.providers.simulated")
    code = f"import sys, agent_lab; print(sorted(set({heavy!r}) & sys.modules.keys()))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("ErrorProfile", "agent_lab.providers.profiles"),
        ("Expected", "agent_lab.providers.simulated"),
        ("LatencyModel", "agent_lab.providers.simulated"),
        ("PriceTable", "agent_lab.providers.pricing"),
        ("SimulatedProvider", "agent_lab.providers.simulated"),
    ],
    ids=["ErrorProfile", "Expected", "LatencyModel", "PriceTable", "SimulatedProvider"],
)
def test_a_name_loaded_on_first_use_is_the_modules_own(name: str, module: str) -> None:
    """What a simulated model is built from comes from the package, as the class it builds."""
    import importlib

    assert getattr(agent_lab, name) is getattr(importlib.import_module(module), name)
