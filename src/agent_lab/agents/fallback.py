"""The kernel's fallback backed by a model: it asks for the missing fields, and only those."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from agent_lab.agents.port import FailureReason, ProviderFailure, ProviderReply
from agent_lab.agents.prompts import fallback_request
from agent_lab.kernel.models import FallbackReply
from agent_lab.kernel.validation import describe_error
from agent_lab.usage import Usage

if TYPE_CHECKING:
    from agent_lab.agents.port import Provider, ProviderRequest
    from agent_lab.kernel.models import FallbackRequest

__all__ = ["LLMFallback", "ask_model"]


async def ask_model(provider: Provider, request: ProviderRequest) -> ProviderReply:
    """The provider's reply to ``request``; a provider that raises gives a failed reply.

    The port promises no raise for what the remote side does; a provider's
    own bug is still a request that brought no reply, and counted as one.
    """
    try:
        return await provider.complete(request)
    except Exception as err:  # noqa: BLE001 - a failure is a value here, whoever made it
        return ProviderReply(
            usage=Usage(requests=1, succeeded=0),
            failure=ProviderFailure(
                reason=FailureReason.PROVIDER_ERROR,
                message=f"the provider raised {describe_error(err)}",
            ),
        )


class LLMFallback:
    """A kernel fallback backed by any provider: asks only for the missing fields.

    The prompt carries the user's words and payload, the resolved values as
    fixed facts, and the event's schema projected onto the missing
    properties, sent as structured output (``mode="json_schema"``) or as a
    forced tool call (``mode="tool"``). The model's raw text and the
    adapter's parse both go back to the kernel for its audit (K17, K18).

    A provider's failure travels back as it came, a ``Failure`` on the
    reply (``FallbackReply.failed``), which the kernel reports as
    ``FALLBACK_FAILED`` with its reason. Transport retries happen inside the
    provider and are counted in ``Usage.requests``; the failure is marked
    not retryable, so that the kernel does not multiply them.
    """

    def __init__(
        self,
        provider: Provider,
        *,
        model: str | None = None,
        mode: Literal["json_schema", "tool"] = "json_schema",
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> None:
        self.provider = provider
        self.model = model
        self.mode = mode
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.seed = seed

    async def __call__(self, request: FallbackRequest) -> FallbackReply:
        """Ask the provider for the missing fields of ``request``; never raises."""
        return await self.send(self.request_for(request))

    def request_for(self, request: FallbackRequest) -> ProviderRequest:
        """The provider request this fallback would send for ``request`` (nothing is sent)."""
        provider_request = fallback_request(
            request,
            model=self.model,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            seed=self.seed,
        )
        if self.mode == "tool":
            tool = {
                "type": "function",
                "function": {
                    "name": request.definition.name,
                    "description": "Supply the missing arguments.",
                    "parameters": provider_request.response_schema,
                },
            }
            provider_request = replace(
                provider_request,
                tools=(tool,),
                tool_choice=request.definition.name,
                response_schema=None,
            )
        return provider_request

    async def send(self, provider_request: ProviderRequest) -> FallbackReply:
        """Send a request built by ``request_for``; the reply as the kernel takes it."""
        reply = await ask_model(self.provider, provider_request)
        if reply.failure is not None:
            # The provider has used its retries: the kernel must not multiply them.
            return FallbackReply.failed(replace(reply.failure, retryable=False), usage=reply.usage)
        if self.mode == "tool":
            if not reply.tool_calls:
                return FallbackReply.failed(
                    ProviderFailure(
                        reason=FailureReason.NO_TOOL_CALL,
                        message="the model was asked to call the tool and did not",
                    ),
                    usage=reply.usage.as_failed(),
                )
            call = reply.tool_calls[0]
            parsed = call.arguments if isinstance(call.arguments, dict) else None
            return FallbackReply(call.arguments_raw, arguments=parsed, usage=reply.usage)
        if reply.text is None:
            return FallbackReply.failed(
                ProviderFailure(
                    reason=FailureReason.NO_CONTENT, message="the model replied with no text"
                ),
                usage=reply.usage.as_failed(),
            )
        parsed = reply.parsed if isinstance(reply.parsed, dict) else None
        return FallbackReply(reply.text, arguments=parsed, usage=reply.usage)
