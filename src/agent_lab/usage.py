"""Usage: what LLM requests cost, in tokens and money. ``None`` means unknown, never zero."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from decimal import Decimal

__all__ = ["ZERO_USAGE", "Usage"]


@dataclass(frozen=True, slots=True)
class Usage:
    """What LLM requests cost. ``None`` means unknown, never zero."""

    _: KW_ONLY
    prompt_tokens: int | None = None
    """Tokens sent, or ``None`` when the provider did not say."""
    completion_tokens: int | None = None
    """Tokens generated, or ``None`` when the provider did not say."""
    cost: Decimal | None = None
    """Money spent, or ``None`` when the model cannot be priced."""
    model: str | None = None
    """The model that answered."""
    estimated: bool = False
    """Token counts come from an estimate, not from the provider."""
    requests: int = 1
    """How many requests these figures cover (retries included)."""

    @classmethod
    def zero(cls) -> Usage:
        """Usage of a dispatch that sent no request: known to be nothing."""
        return ZERO_USAGE

    def __add__(self, other: Usage) -> Usage:
        """Sum two usages; an unknown part makes the sum unknown."""
        if self is ZERO_USAGE:
            return other
        if other.model is None or other.model == self.model:
            model = self.model
        elif self.model is None:
            model = other.model
        else:
            model = f"{self.model}+{other.model}"
        return Usage(
            prompt_tokens=_add_known(self.prompt_tokens, other.prompt_tokens),
            completion_tokens=_add_known(self.completion_tokens, other.completion_tokens),
            cost=None if self.cost is None or other.cost is None else self.cost + other.cost,
            model=model,
            estimated=self.estimated or other.estimated,
            requests=self.requests + other.requests,
        )


def _add_known(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


ZERO_USAGE = Usage(prompt_tokens=0, completion_tokens=0, cost=Decimal(0), requests=0)
