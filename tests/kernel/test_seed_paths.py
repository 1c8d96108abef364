"""The seed's file list still resolves: ``agent_lab.application`` re-exports the kernel."""

from __future__ import annotations

import importlib

import pytest

SEED_PATHS = {
    "agent_lab.application.events.models": "agent_lab.kernel.models",
    "agent_lab.application.events.registry": "agent_lab.kernel.registry",
    "agent_lab.application.events.kernel": "agent_lab.kernel.event_kernel",
    "agent_lab.application.tools": "agent_lab.kernel.tools",
}


@pytest.mark.parametrize(("seed", "kernel"), SEED_PATHS.items())
def test_each_seed_path_exports_its_kernel_modules_objects(seed: str, kernel: str) -> None:
    old, new = importlib.import_module(seed), importlib.import_module(kernel)
    assert old.__all__ == new.__all__
    assert new.__all__
    for name in new.__all__:
        assert getattr(old, name) is getattr(new, name), name
