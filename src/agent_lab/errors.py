"""Every exception agent-lab raises on purpose, in one tree.

Expected outcomes of a dispatch (bad arguments, missing information, a broken
LLM reply) are never exceptions: they are ``EventResult`` values with a
``Status``. Exceptions are for programmer mistakes, unusable files and bad
command-line input, and at adapter boundaries::

    AgentLabError
    ├── DefinitionError            a plugin's event definition is broken (K2, K4)
    ├── SchemaInfrastructureError  validation could not run: the schema or the engine failed (K14)
    ├── StrictJSONError            text is not strict RFC 8259 JSON (also a ValueError)
    ├── ProviderError              an LLM provider failed; says whether a retry may help (K16)
    ├── CassetteError              a record/replay cassette cannot be read (also a ValueError)
    ├── ScriptExhaustedError       a ScriptedProvider ran out of replies (also an AssertionError)
    ├── PluginLoadError            a plugin reference cannot be loaded (also an ImportError)
    ├── WorkloadError              a workload line cannot be used (also a ValueError)
    ├── InputFileError             a file the user named is no regular file, too large, or not UTF-8
    ├── DatasetImportError         a benchmark folder cannot be imported at all
    ├── StoreError                 a file is not a usable results database, or cannot be written
    │   └── ConfigMismatchError    --resume found a run with another configuration
    └── UsageError                 bad command-line input: one line, exit code 2

The classes are plain exceptions with fields rather than frozen dataclasses:
Python's own machinery (``contextlib``, ``traceback``) assigns attributes such
as ``__traceback__`` on exceptions, which a frozen dataclass would refuse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_lab.usage import Usage

__all__ = [
    "AgentLabError",
    "CassetteError",
    "ConfigMismatchError",
    "DatasetImportError",
    "DefinitionError",
    "InputFileError",
    "PluginLoadError",
    "ProviderError",
    "SchemaInfrastructureError",
    "ScriptExhaustedError",
    "StoreError",
    "StrictJSONError",
    "UsageError",
    "WorkloadError",
]


class AgentLabError(Exception):
    """Base class of every exception agent-lab raises on purpose."""


class DefinitionError(AgentLabError):
    """A plugin's event definition is broken: the plugin's fault, not the user's.

    Attributes:
        event: The name of the definition, or ``None`` for a schema resource
            that belongs to the registry rather than to one event.
        pointer: JSON pointer into the schema where the problem is ("" for the root).
        cause: What is wrong, in one sentence.
    """

    def __init__(self, event: str | None, pointer: str, cause: str) -> None:
        self.event = event
        self.pointer = pointer
        self.cause = cause
        where = f"event {event!r}" if event is not None else "schema resources"
        super().__init__(f"{where}: at {pointer or '/'!s}: {cause}")


class StrictJSONError(AgentLabError, ValueError):
    """Text that is not strict RFC 8259 JSON, or not within the size and depth bounds.

    Attributes:
        reason: A machine-readable code, one of ``syntax``, ``duplicate_key``,
            ``non_finite_number``, ``number_too_long``, ``lone_surrogate``,
            ``encoding``, ``too_large``, ``too_deep``, ``not_json_data``.
        position: Character offset of the problem in the text, when known.
        pointer: JSON pointer of the offending value, when known.
    """

    def __init__(
        self,
        reason: str,
        message: str,
        *,
        position: int | None = None,
        pointer: str | None = None,
    ) -> None:
        self.reason = reason
        self.position = position
        self.pointer = pointer
        super().__init__(message)


class ProviderError(AgentLabError):
    """An LLM provider failed to produce a reply.

    Providers raise it (or ``TimeoutError``/``ConnectionError``) from a
    fallback; the kernel turns it into ``FALLBACK_FAILED`` after its bounded
    retries (K16) and never lets it escape ``dispatch``.

    Attributes:
        reason: A machine-readable code such as ``timeout``, ``rate_limited``
            or ``http_5xx``; copied to ``EventResult.reason``.
        retryable: Whether sending the request again may succeed.
        attempts: How many requests were sent before failing (counted in
            ``EventResult.llm_calls``).
        usage: What those requests cost, when the provider knows (a 429 costs
            nothing); ``None`` leaves tokens and cost unknown.
    """

    def __init__(
        self,
        reason: str,
        message: str,
        *,
        retryable: bool = False,
        attempts: int = 1,
        usage: Usage | None = None,
    ) -> None:
        if attempts < 0:
            raise ValueError("attempts must be >= 0")
        self.reason = reason
        self.retryable = retryable
        self.attempts = attempts
        self.usage = usage
        super().__init__(message)


class SchemaInfrastructureError(AgentLabError):
    """Validation could not be carried out: the schema or the engine failed, not the data (K14)."""


class CassetteError(AgentLabError, ValueError):
    """A cassette file that cannot be read: wrong version or a malformed line."""


class ScriptExhaustedError(AgentLabError, AssertionError):
    """A ScriptedProvider was asked for more replies than its script holds."""


class PluginLoadError(AgentLabError, ImportError):
    """A ``module:attribute`` plugin reference, or a plugin folder, that cannot be loaded."""


class WorkloadError(AgentLabError, ValueError):
    """A workload line that cannot be used, with where it is.

    Attributes:
        source: The workload's file or name.
        line: The 1-based line number.
        reason: What is wrong with the line.
    """

    def __init__(self, source: str, line: int, message: str) -> None:
        self.source = source
        self.line = line
        self.reason = message
        super().__init__(f"{source}:{line}: {message}")


class InputFileError(AgentLabError, ValueError):
    """A file the user named that is not read: no regular file, over its size bound, or not UTF-8.

    Attributes:
        path: The file, as named.
        reason: What is wrong with it, in one phrase.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class DatasetImportError(AgentLabError):
    """A benchmark folder that cannot be imported at all (nothing in it can be converted)."""


class StoreError(AgentLabError):
    """A results database that cannot be used: not one, without what was asked, or unwritable.

    Unwritable: locked by another process past the store's patience, or a full disk.
    """


class ConfigMismatchError(StoreError):
    """``--resume`` found an unfinished run whose configuration differs."""


class UsageError(AgentLabError):
    """Bad input from the user on the command line: printed in one line, exit code 2."""
