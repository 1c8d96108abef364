"""Every exception agent-lab raises, in one tree whose branches say who must act.

Expected outcomes of a dispatch (bad arguments, missing information, a broken
LLM reply) are never exceptions: they are ``EventResult`` values with a
``Status``. Exceptions are for input that cannot be used, broken plugins,
failing servers and stores, and calls agent-lab cannot serve. The tree holds
every exception class of the package, each under whoever must act::

    AgentLabError
    ├── InputError                 a user's input cannot be used: they fix it (CLI: exit 2)
    │   ├── UsageError             bad command-line input
    │   ├── InputFileError         a file: not a regular one, too large, not UTF-8 (ValueError)
    │   ├── MissingInputError      no such file or built-in, or extra (FileNotFoundError)
    │   ├── WorkloadError          a workload line (ValueError)
    │   ├── PluginLoadError        a plugin reference or folder (ImportError)
    │   ├── DatasetImportError     a corpus folder nothing can be imported from
    │   ├── ShapeError             a corpus item's value missing or mistyped [lab.importers._shape]
    │   │   └── UnknownSlotError   an SGD slot not there (KeyError) [lab.importers._sgd_events]
    │   ├── CassetteError          a record/replay cassette (ValueError)
    │   ├── ProfileError           an error profile or a rate override (ValueError)
    │   ├── PriceError             a price table or a price (ValueError)
    │   ├── ComparisonError        runs, or a baseline policy, with nothing to compare (ValueError)
    │   ├── ToolSpecError          a tool spec without a name (ValueError) [agents.tool_specs]
    │   ├── LogError               a log line that cannot be used: its file and line [logs.record]
    │   └── SettingError           a setting out of range: a varied rate, a latency (ValueError)
    ├── DefinitionError            a plugin's event definition is broken: its author acts (K2, K4)
    │   └── SchemaError            a broken schema, found before its event is named (ValueError)
    │       └── UnresolvedReferenceError  a dangling $ref [kernel.validation]
    ├── ProviderError              an LLM provider failed: retry, or fix the server (K16)
    │   ├── _BodyTooLargeError     a reply body past its bound [providers.openai_compat]
    │   └── UpstreamFailure        the gateway's upstream gave nothing usable [gateway.upstream]
    ├── StoreError                 a results database cannot be used or written
    │   ├── ConfigMismatchError    the unfinished run to resume had another configuration
    │   └── StoreUnavailableError  a database not reachable now: the same write may work later
    ├── MisuseError                agent-lab cannot serve the call: the calling code must change
    │   ├── ArgumentError          an argument out of range (ValueError)
    │   ├── WrongTypeError         an argument or object of a type the call cannot take (TypeError)
    │   ├── NotFoundError          a name nothing is registered under (KeyError)
    │   └── ScriptExhaustedError   a test double ran out of replies (AssertionError)
    ├── StrictJSONError            text or data that is not strict RFC 8259 JSON (ValueError)
    │   └── NotJSONDataError       inside the check-and-copy, before its pointer [_json_walk]
    └── SchemaInfrastructureError  validation could not run: the schema or the engine failed (K14)

A builtin exception in parentheses is a second base: the class replaced a
raise of it, and an ``except ValueError`` written before still catches it.
``ArgumentError`` and ``WrongTypeError`` are two classes, not one with a
mixin, so that ``except ValueError`` and ``except TypeError`` each catch
only its own. A module in brackets is where a private class lives; it is
caught inside that module's package.

An ``InputError`` may name the *setting* it was given as (``vary``,
``llm_error``, ``model``): a field, never a command-line flag. A front end
words the message in its own names with ``worded()`` (the CLI, its flags).

The classes are plain exceptions with fields rather than frozen dataclasses:
Python's own machinery (``contextlib``, ``traceback``) assigns attributes such
as ``__traceback__`` on exceptions, which a frozen dataclass would refuse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from agent_lab.usage import Usage

__all__ = [
    "AgentLabError",
    "ArgumentError",
    "CassetteError",
    "ComparisonError",
    "ConfigChange",
    "ConfigMismatchError",
    "DatasetImportError",
    "DefinitionError",
    "InputError",
    "InputFileError",
    "MissingInputError",
    "MisuseError",
    "NotFoundError",
    "PluginLoadError",
    "PriceError",
    "ProfileError",
    "ProviderError",
    "SchemaError",
    "SchemaInfrastructureError",
    "ScriptExhaustedError",
    "SettingError",
    "StoreError",
    "StoreUnavailableError",
    "StrictJSONError",
    "UsageError",
    "WorkloadError",
    "WrongTypeError",
]


class AgentLabError(Exception):
    """Base class of every exception agent-lab raises on purpose."""


# Input: the user must fix what they supplied ---------------------------------------------


class InputError(AgentLabError):
    """Something a user supplied cannot be used: they must fix it and try again.

    Attributes:
        setting: The field the input was given as (``vary``, ``llm_error``,
            ``model``), when it was one; ``None`` when the message names a file
            or a value of its own.
        detail: The message after the setting's name (all of it without one).
    """

    def __init__(self, detail: str, *, setting: str | None = None) -> None:
        self.setting = setting
        self.detail = detail
        super().__init__(self.worded())

    def worded(self, name: Callable[[str], str] | None = None) -> str:
        """The message with the setting called ``name(setting)``: a front end's word for it."""
        if self.setting is None:
            return self.detail
        return f"{name(self.setting) if name is not None else self.setting} {self.detail}"


class UsageError(InputError):
    """Bad input from the user on the command line: printed in one line, exit code 2."""


class InputFileError(InputError, ValueError):
    """A file the user named that is not read: no regular file, over its size bound, or not UTF-8.

    Attributes:
        path: The file, as named.
        reason: What is wrong with it, in one phrase.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class MissingInputError(InputError, FileNotFoundError):
    """What the user named is not there: no such file or built-in, or an extra not installed."""


class WorkloadError(InputError, ValueError):
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


class PluginLoadError(InputError, ImportError):
    """A ``module:attribute`` plugin reference, or a plugin folder, that cannot be loaded."""


class DatasetImportError(InputError):
    """A benchmark folder that cannot be imported at all (nothing in it can be converted)."""


class CassetteError(InputError, ValueError):
    """A cassette file that cannot be read: wrong version or a malformed line."""


class ProfileError(InputError, ValueError):
    """An error profile (a name, a file, its rates) or a rate override that cannot be used."""


class PriceError(InputError, ValueError):
    """A price table that is not one, or a price no request could be costed with."""


class ComparisonError(InputError, ValueError):
    """Two runs, or a run and a baseline policy, that share nothing to compare."""


class SettingError(InputError, ValueError):
    """A setting out of its range: a varied rate, a simulated latency, a router's margin.

    Args:
        setting: The field's name (``vary``, ``latency``, ``margin``), first in the message.
        detail: What is wrong, after the name: ``must be in [0, 1], not 2``.
    """

    def __init__(self, setting: str, detail: str) -> None:
        super().__init__(detail, setting=setting)


# Definitions: the plugin's author must act ------------------------------------------------


class DefinitionError(AgentLabError):
    """A plugin's event definition is broken: the plugin's fault, not the user's.

    Attributes:
        event: The name of the definition, or ``None`` for a schema resource
            that belongs to the registry rather than to one event (and for a
            ``SchemaError``, whose event is not known where it is raised).
        pointer: JSON pointer into the schema where the problem is ("" for the root).
        cause: What is wrong, in one sentence.
    """

    def __init__(self, event: str | None, pointer: str, cause: str) -> None:
        self.event = event
        self.pointer = pointer
        self.cause = cause
        super().__init__(self._message())

    def _message(self) -> str:
        where = f"event {self.event!r}" if self.event is not None else "schema resources"
        return f"{where}: at {self.pointer or '/'!s}: {self.cause}"


class SchemaError(DefinitionError, ValueError):
    """A broken schema, found below the registry, which names its event in a ``DefinitionError``."""

    def __init__(self, cause: str, *, pointer: str = "") -> None:
        super().__init__(None, pointer, cause)

    def _message(self) -> str:
        return f"at {self.pointer or '/'}: {self.cause}"


# Providers: retry, or fix the server ----------------------------------------------------


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
            raise ArgumentError("attempts must be >= 0")
        self.reason = reason
        self.retryable = retryable
        self.attempts = attempts
        self.usage = usage
        super().__init__(message)


# Stores ---------------------------------------------------------------------------------


class StoreError(AgentLabError):
    """A results database that cannot be used: not one, without what was asked, or unwritable.

    Unwritable: locked by another process past the store's patience, or a full disk.
    """


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigChange:
    """One field whose value differs between a stored run's configuration and a new one."""

    setting: str
    """The field's name (``policies``, ``seed``; a nested one by its own key)."""
    was: str
    """The stored value, as JSON text cut to 80 characters."""
    now: str
    """The new value, likewise."""


class ConfigMismatchError(StoreError):
    """The unfinished run to resume was started with another configuration.

    Attributes:
        run_id: The unfinished run.
        changes: Each field that differs, in the order of their names.
    """

    def __init__(self, run_id: str, changes: Sequence[ConfigChange] = ()) -> None:
        self.run_id = run_id
        self.changes = tuple(changes)
        super().__init__(
            self.worded(advice="resume with the same configuration, or start a new run")
        )

    def worded(self, name: Callable[[str], str] | None = None, *, advice: str) -> str:
        """The message with each field called ``name(field)``, ending with ``advice``."""
        listed = "; ".join(
            f"{name(c.setting) if name is not None else c.setting} (was {c.was}, now {c.now})"
            for c in self.changes
        )
        return (
            f"the unfinished run {self.run_id} used another configuration"
            + (f": {listed}" if listed else "")
            + f"; {advice}"
        )


class StoreUnavailableError(StoreError):
    """A database that cannot be reached or written now (down, slow, locked): retry later.

    The same write may succeed once it is back; a ``StoreError`` that is not this
    one will fail again whatever the wait.
    """


# Misuse: the calling code must change ---------------------------------------------------


class MisuseError(AgentLabError):
    """agent-lab was called in a way it cannot serve: the calling code must change."""


class ArgumentError(MisuseError, ValueError):
    """An argument out of its range: ``advance(-1)`` on a clock that only goes forward."""


class WrongTypeError(MisuseError, TypeError):
    """An argument, or an object, of a type the call cannot take (a frozen value changed)."""


class NotFoundError(MisuseError, KeyError):
    """A name nothing is registered under: an unknown policy, a resource never registered."""

    def __str__(self) -> str:
        """The message as written: ``KeyError`` would quote it, as it quotes a missing key."""
        return str(self.args[0]) if self.args else ""


class ScriptExhaustedError(MisuseError, AssertionError):
    """A ScriptedProvider was asked for more replies than its script holds."""


# Data and the schema engine -------------------------------------------------------------


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


class SchemaInfrastructureError(AgentLabError):
    """Validation could not be carried out: the schema or the engine failed, not the data (K14)."""
