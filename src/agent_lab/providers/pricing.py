"""Cost from token counts: a maintained price table (genai-prices), with user overrides."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any

import genai_prices

from agent_lab.usage import checked_count

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["FREE", "Price", "PriceTable"]

_MILLION = Decimal(1_000_000)


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million tokens."""

    input_per_mtok: Decimal
    output_per_mtok: Decimal

    def cost(self, prompt_tokens: int, completion_tokens: int) -> Decimal:
        """The price of one request."""
        return (
            self.input_per_mtok * prompt_tokens + self.output_per_mtok * completion_tokens
        ) / _MILLION


FREE = Price(Decimal(0), Decimal(0))
"""For models that run on this machine: no charge per token (electricity is not priced)."""


class PriceTable:
    """Prices per model: the user's overrides first, then genai-prices' bundled data.

    A model nobody prices costs ``None`` (unknown), never 0.

    Args:
        overrides: Prices by model name, taking precedence over genai-prices.
        provider_id: genai-prices provider to look models up under (``openai``,
            ``anthropic``...); ``None`` lets genai-prices match by model name.
    """

    def __init__(
        self, overrides: Mapping[str, Price] | None = None, *, provider_id: str | None = None
    ) -> None:
        self._overrides = dict(overrides or {})
        self._provider_id = provider_id

    @classmethod
    def from_file(cls, path: str | Path, *, provider_id: str | None = None) -> PriceTable:
        """Load overrides from a JSON file of prices per model.

        The file holds ``{"model": {"input_per_mtok": "0.15", "output_per_mtok": "0.6"}}``.

        Raises:
            ValueError: The file is not that shape.
        """
        data: Any = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected an object of model prices")  # noqa: TRY004
        entries: dict[str, Any] = data  # pyright: ignore[reportUnknownVariableType]
        overrides: dict[str, Price] = {}
        for model, entry in entries.items():
            try:
                overrides[model] = Price(
                    Decimal(str(entry["input_per_mtok"])),
                    Decimal(str(entry["output_per_mtok"])),
                )
            except (KeyError, TypeError, InvalidOperation) as err:
                raise ValueError(
                    f"{path}: model {model!r} needs input_per_mtok and output_per_mtok numbers"
                ) from err
        return cls(overrides, provider_id=provider_id)

    def preload(self) -> None:
        """Load genai-prices' data now (its first lookup takes about 1.5 s), before any timing."""
        _genai_cost("gpt-4o-mini", self._provider_id, 1, 1)

    def price(self, model: str | None) -> Price | None:
        """The override for ``model``, if any (genai-prices is consulted by ``cost``)."""
        return self._overrides.get(model) if model else None

    def cost(
        self, model: str | None, prompt_tokens: int | None, completion_tokens: int | None
    ) -> Decimal | None:
        """Cost of one request, or ``None`` when the tokens or the model's price are unknown."""
        if model is None or checked_count(prompt_tokens) is None:
            return None
        if checked_count(completion_tokens) is None:
            return None
        assert prompt_tokens is not None
        assert completion_tokens is not None
        override = self._overrides.get(model)
        if override is not None:
            return override.cost(prompt_tokens, completion_tokens)
        return _genai_cost(model, self._provider_id, prompt_tokens, completion_tokens)


@functools.lru_cache(maxsize=65_536)
def _genai_cost(
    model: str, provider_id: str | None, prompt_tokens: int, completion_tokens: int
) -> Decimal | None:
    # Cached: a price lookup walks genai-prices' whole table, and runs repeat token counts.
    try:
        calculation = genai_prices.calc_price(
            genai_prices.Usage(input_tokens=prompt_tokens, output_tokens=completion_tokens),
            model,
            provider_id=provider_id,
        )
    except (LookupError, ValueError, ArithmeticError):
        # No price for the model, or figures the table cannot price: unknown, never 0.
        return None
    return Decimal(calculation.total_price)
