"""Providers of a user's own (``--provider MODULE:ATTR``) whose attributes misbehave."""

from __future__ import annotations

from agent_lab.providers import ProviderReply, ProviderRequest
from agent_lab.usage import Usage


class _Answers:
    """Answers every request with an empty object, as one request that succeeded."""

    model: str | None = "own-model"

    async def complete(self, request: ProviderRequest) -> ProviderReply:
        del request
        return ProviderReply(text="{}", parsed={}, usage=Usage(requests=1, succeeded=1))

    async def aclose(self) -> None:
        pass


class RaisingName(_Answers):
    @property
    def name(self) -> str:
        raise RuntimeError("no name today")


class RaisingModel(_Answers):
    name = "own"

    @property
    def model(self) -> str | None:  # type: ignore[override]
        raise LookupError("which model?")


class NumberName(_Answers):
    name = 42


class NameRaisesAfterItsFirstRead(_Answers):
    """Its name can be read once; every read after that raises."""

    def __init__(self) -> None:
        self.reads = 0

    @property
    def name(self) -> str:
        self.reads += 1
        if self.reads > 1:
            raise RuntimeError(f"read {self.reads} times")
        return "own"


raising_name = RaisingName()
raising_model = RaisingModel()
number_name = NumberName()
name_raises_after_its_first_read = NameRaisesAfterItsFirstRead()
