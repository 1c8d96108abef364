"""Cost from token counts: a maintained price table (genai-prices), with user overrides."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, cast

import genai_prices

from agent_lab._input_files import MAX_PRICES_BYTES, read_input
from agent_lab.errors import PriceError, StrictJSONError
from agent_lab.strict_json import loads
from agent_lab.usage import checked_count

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from agent_lab.strict_json import JSONValue

__all__ = ["FREE", "MAX_PRICE", "MIN_PRICE", "Price", "PriceTable", "price_problem"]

_MILLION = Decimal(1_000_000)


MAX_PRICE = Decimal(1_000_000)
"""The highest price taken, in dollars per million tokens: a dollar a token, above any model's."""
MIN_PRICE = Decimal("1e-9")
"""The lowest price taken but 0: a billionth of a dollar per million tokens. Less is a slip
or a hostile file (``1e-999999``), whose exponent every sum of costs would carry."""


def price_problem(value: object) -> str | None:
    """Why ``value`` cannot be a price (dollars per million tokens), or ``None`` when it can."""
    shown = repr(value) if not isinstance(value, Decimal) else str(value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    if not isinstance(value, Decimal):
        return f"{shown} is not a number"
    # First: comparing a NaN, signalling or quiet, raises or is meaningless.
    if not value.is_finite():
        return f"{shown} is not a finite number"
    if value < 0:
        return f"{shown} is negative"
    if value > MAX_PRICE:
        return f"{shown} is more than {MAX_PRICE} dollars per million tokens"
    if 0 < value < MIN_PRICE:
        return f"{shown} is less than {MIN_PRICE} dollars per million tokens, yet not 0"
    return None


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million tokens, each a finite decimal from 0 to ``MAX_PRICE``.

    Raises:
        PriceError: At construction, for a price no request could be costed with
            (NaN, an infinity, a negative or absurd amount).
    """

    input_per_mtok: Decimal
    output_per_mtok: Decimal

    def __post_init__(self) -> None:
        """Refuse a price no request could be costed with."""
        # Checked here, not at the first request: a price that cannot be multiplied
        # would fail every costed trial after its request was sent and paid for.
        for name in ("input_per_mtok", "output_per_mtok"):
            problem = price_problem(getattr(self, name))
            if problem is not None:
                raise PriceError(f"{name} {problem}")

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

        The file holds ``{"model": {"input_per_mtok": "0.15", "output_per_mtok": "0.6"}}``;
        a price is a JSON number or a decimal string, checked as ``Price`` checks it.

        Raises:
            PriceError: The file is not that shape, or a price is not one (the
                message names the file, the model and the price).
            InputFileError: The file is not a regular file of at most ``MAX_PRICES_BYTES``.
            OSError: The file cannot be read.
        """
        raw = read_input(path, what="price table", max_bytes=MAX_PRICES_BYTES)
        try:
            data = loads(raw, max_bytes=MAX_PRICES_BYTES, max_depth=_MAX_DEPTH)
        except StrictJSONError as err:
            raise PriceError(f"{path}: not a JSON price table: {err}") from err
        if not isinstance(data, dict):
            raise PriceError(f"{path}: expected an object of model prices")
        overrides: dict[str, Price] = {}
        for model, entry in data.items():
            if not isinstance(entry, dict):
                raise PriceError(
                    f"{path}: model {model!r} needs an object of input_per_mtok and output_per_mtok"
                )
            if any(name not in entry for name in _FIELDS):
                raise PriceError(
                    f"{path}: model {model!r} needs input_per_mtok and output_per_mtok numbers"
                )
            values = [_decimal(entry[name]) for name in _FIELDS]
            for name, value in zip(_FIELDS, values, strict=True):
                problem = price_problem(value)
                if problem is not None:
                    raise PriceError(f"{path}: model {model!r}: {name} {problem}")
            overrides[model] = Price(*cast("list[Decimal]", values))
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


_FIELDS = ("input_per_mtok", "output_per_mtok")
_MAX_DEPTH = 8
"""A price table nests two deep; deeper is refused as it is parsed, never a RecursionError."""


def _decimal(value: JSONValue) -> Decimal | JSONValue:
    # A JSON number or a decimal string; anything else stays as it is, for the check to name.
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float | str):
        try:
            return Decimal(str(value).strip())
        except InvalidOperation:
            return value
    return value


_UNPRICED: set[tuple[str, str | None]] = set()
"""Models genai-prices has no price for. Its lookup walks the whole table before it gives
up (3 ms each); a model it does not know is not looked up again for every new pair of
token counts (176 lookups, 0.5 s, in bench_runner.py's 6,015 simulated trials)."""


def _genai_cost(
    model: str, provider_id: str | None, prompt_tokens: int, completion_tokens: int
) -> Decimal | None:
    if (model, provider_id) in _UNPRICED:
        return None
    return _genai_priced(model, provider_id, prompt_tokens, completion_tokens)


@functools.lru_cache(maxsize=65_536)
def _genai_priced(
    model: str, provider_id: str | None, prompt_tokens: int, completion_tokens: int
) -> Decimal | None:
    # Cached: a price lookup walks genai-prices' whole table, and runs repeat token counts.
    try:
        calculation = genai_prices.calc_price(
            genai_prices.Usage(input_tokens=prompt_tokens, output_tokens=completion_tokens),
            model,
            provider_id=provider_id,
        )
    except LookupError:
        # No price for the model: unknown, never 0, and not looked up again.
        _UNPRICED.add((model, provider_id))
        return None
    except (ValueError, ArithmeticError):
        # Figures the table cannot price: unknown for these figures only.
        return None
    return Decimal(calculation.total_price)
