"""What every command shares: its streams, and plugin sets and workloads loaded as usage errors."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.errors import (
    DefinitionError,
    InputFileError,
    PluginLoadError,
    UsageError,
    WorkloadError,
)
from agent_lab.lab.report.terminal import printable
from agent_lab.lab.run.plugin_sets import load_plugins
from agent_lab.lab.workload import load_workload

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import TextIO

    from rich.console import Console

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.kernel.registry import EventRegistry
    from agent_lab.lab.workload import Workload

__all__ = [
    "DEMO_PLUGINS",
    "DEMO_SAMPLE",
    "POLICY_NAMES",
    "Handler",
    "Streams",
    "load_cases",
    "load_plugin_set",
    "plugin_registry",
    "with_rules_file",
]

POLICY_NAMES = ("deterministic-first", "llm-always", "deterministic-only")
DEMO_PLUGINS = "agent_lab.demo:plugins"
DEMO_SAMPLE = 100


@dataclass(frozen=True, slots=True)
class Streams:
    """Where a command writes: its output, its errors, and a rich console over the output."""

    out: TextIO
    err: TextIO
    console: Console
    wide: bool = False
    """``--wide``: tables with every column, not fitted to the terminal."""


if TYPE_CHECKING:
    Handler = Callable[[argparse.Namespace, Streams], int]


def load_plugin_set(reference: str) -> PluginSet:
    """The plugin set at ``MODULE:ATTRIBUTE`` or in an imported folder; else a usage error."""
    try:
        return load_plugins(reference)
    except PluginLoadError as err:
        raise UsageError(str(err)) from err


def plugin_registry(plugins: PluginSet, reference: str) -> EventRegistry:
    """The plugin set's registry; a broken definition is a one-line usage error."""
    try:
        return plugins.registry()
    except DefinitionError as err:
        raise UsageError(f"{reference}: a broken event definition: {err}") from err


def with_rules_file(
    plugins: PluginSet, reference: str, rules: str | None, stderr: TextIO
) -> tuple[PluginSet, str]:
    """The plugin set with a rules file applied, and the reference a run records for both.

    The reference names the file and its digest, so that the report says what
    shaped the figures and resuming with other rules is refused as another run.
    """
    if rules is None:
        return plugins, reference
    from agent_lab.agents.learned_rules import with_rules  # noqa: PLC0415
    from agent_lab.resolvers.learned import ANY_TOOL, load_rules  # noqa: PLC0415

    book = load_rules(rules)
    named = {rule.tool for rule in book.rules}
    events = {definition.name for definition in plugins.definitions}
    if ANY_TOOL not in named and not named & events:
        print(
            printable(f"{rules}: none of its {len(book.rules)} rules names one of these events"),
            file=stderr,
        )
    digest = hashlib.sha256(Path(rules).read_bytes()).hexdigest()[:12]
    return with_rules(plugins, book), f"{reference} with rules {Path(rules).name} ({digest})"


def load_cases(reference: str, *, skip_bad: bool, plugins: PluginSet, stderr: TextIO) -> Workload:
    """A workload whose every event the plugin set knows, with at least one case."""
    try:
        workload = load_workload(reference, on_error="skip" if skip_bad else "fail")
    except (WorkloadError, InputFileError, FileNotFoundError) as err:
        raise UsageError(str(err)) from err
    except OSError as err:  # unreadable: permissions, an I/O error
        raise UsageError(f"workload {reference}: {err.strerror or err}") from err
    for problem in workload.skipped:
        print(printable(f"skipped {problem}"), file=stderr)
    unknown = workload.check_events(plugins)
    if unknown:
        raise UsageError(
            f"{unknown[0]} (and {len(unknown) - 1} more)" if len(unknown) > 1 else str(unknown[0])
        )
    wrong = workload.check_truth(plugins)
    if wrong and not skip_bad:
        more = (
            f" (and {len(wrong) - 1} more; --skip-bad-lines skips them)" if len(wrong) > 1 else ""
        )
        raise UsageError(f"{wrong[0]}{more}")
    if wrong:
        workload = workload.without(wrong)
        for problem in wrong:
            print(printable(f"skipped {problem}"), file=stderr)
    if not workload.cases:
        raise UsageError(f"{reference}: no cases")
    return workload
