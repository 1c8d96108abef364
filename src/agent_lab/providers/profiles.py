"""Error profiles of the simulated model: named sets of rates, each an assumption with its source.

Every figure the simulated model shapes is printed beside the profile that
shaped it (its name, its source, its rates), because the sign of an accuracy
gap between policies can depend on nothing else.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from agent_lab._input_files import MAX_PROFILE_BYTES, read_input
from agent_lab.errors import InputFileError, ProfileError, StrictJSONError
from agent_lab.strict_json import loads

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from agent_lab.strict_json import JSONObject

__all__ = ["PROFILES", "RATES", "ErrorProfile", "ProfileError", "load_profile"]

RATES = (
    "wrong_value",
    "wrong_type",
    "drop_field",
    "invalid_json",
    "nan",
    "mismatch",
    "wrong_tool",
    "spurious_call",
    "no_call",
    "invent",
)
"""The rates a profile sets, each a probability in [0, 1]."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorProfile:
    """How often the simulated model errs, per value, per reply and per tool choice.

    Values are drawn independently; a value the model could only work out
    (not found verbatim in what it was sent) errs ``derived_factor`` times as
    often. What the model cannot see at all it asks for, except at rate
    ``invent``, where it makes a value up.
    """

    name: str = "custom"
    source: str = "set by the user"
    """Where the rates come from: an assumption, or the measurement behind them."""
    wrong_value: float = 0.0
    """Per value: the right type, a wrong value (``601`` for ``600``)."""
    wrong_type: float = 0.0
    """Per value: a value of the wrong JSON type (``"600"`` for ``600``)."""
    drop_field: float = 0.0
    """Per value: left out."""
    invalid_json: float = 0.0
    """Per reply: truncated JSON text."""
    nan: float = 0.0
    """Per reply: a ``NaN`` in the JSON text."""
    mismatch: float = 0.0
    """Per reply: the adapter's parse disagrees with the raw text (``1`` parsed from ``true``)."""
    wrong_tool: float = 0.0
    """Per tool choice, in domain: another offered tool, called with the same arguments."""
    spurious_call: float = 0.0
    """Per tool choice, out of domain: a tool is called where none fits."""
    no_call: float = 0.0
    """Per tool choice, in domain: no tool is called although one fits."""
    invent: float = 0.0
    """Per required value the model cannot see: made up instead of asked for."""
    derived_factor: float = 2.0
    """How much more often a value not verbatim in the request errs (>= 1)."""

    def __post_init__(self) -> None:
        """Every rate is a probability; the factor is at least 1 and finite."""
        for rate in RATES:
            value = getattr(self, rate)
            if type(value) not in (int, float) or not 0.0 <= value <= 1.0:
                raise ProfileError(f"{rate} must be a number in [0, 1], not {value!r}")
        factor = self.derived_factor
        if type(factor) not in (int, float) or not math.isfinite(factor) or factor < 1:
            raise ProfileError(f"derived_factor must be a finite number >= 1, not {factor!r}")

    def rates(self) -> dict[str, float]:
        """The rates by name (``derived_factor`` included)."""
        return {name: float(getattr(self, name)) for name in (*RATES, "derived_factor")}

    def describe(self) -> str:
        """One line: the name, the non-zero rates, and the source."""
        shown = ", ".join(
            f"{k} {v:g}" for k, v in self.rates().items() if v and k != "derived_factor"
        )
        return f"profile {self.name!r} ({shown or 'no errors'}; {self.source})"

    def as_json(self) -> JSONObject:
        """The profile as JSON data, as a run stores it."""
        return {"name": self.name, "source": self.source, **self.rates()}

    def with_overrides(self, overrides: Iterable[str]) -> ErrorProfile:
        """The profile with ``KEY=RATE`` overrides applied.

        Raises:
            ProfileError: Of setting ``llm_error``: an item not ``KEY=RATE``; or a rate
                out of range.
        """
        changes: dict[str, float] = {}
        for item in overrides:
            key, sep, text = item.partition("=")
            if not sep or key not in (*RATES, "derived_factor"):
                raise ProfileError(
                    f"{item!r}: expected KEY=RATE, KEY one of {', '.join(RATES)}",
                    setting="llm_error",
                )
            try:
                changes[key] = float(text)
            except ValueError:
                raise ProfileError(
                    f"{item!r}: {text!r} is not a number", setting="llm_error"
                ) from None
        if not changes:
            return self
        return dataclasses.replace(
            self,
            name=f"{self.name}+overrides",
            source=f"{self.source}; overridden by the user",
            **changes,
        )


_ASSUMED = "an assumption (round figures, not a measurement)"
PROFILES: dict[str, ErrorProfile] = {
    profile.name: profile
    for profile in (
        ErrorProfile(
            name="ideal",
            source=(
                "an assumption: the model reads perfectly what it is sent and asks for "
                "what it is not (an optimistic bound for LLM-always)"
            ),
        ),
        ErrorProfile(
            name="careful",
            source=_ASSUMED,
            wrong_value=0.01,
            wrong_type=0.002,
            drop_field=0.005,
            invalid_json=0.002,
            wrong_tool=0.01,
            spurious_call=0.02,
            no_call=0.01,
            invent=0.05,
        ),
        ErrorProfile(
            name="typical",
            source=_ASSUMED,
            wrong_value=0.03,
            wrong_type=0.01,
            drop_field=0.02,
            invalid_json=0.005,
            mismatch=0.002,
            wrong_tool=0.03,
            spurious_call=0.1,
            no_call=0.03,
            invent=0.2,
        ),
        ErrorProfile(
            name="sloppy",
            source=_ASSUMED,
            wrong_value=0.1,
            wrong_type=0.03,
            drop_field=0.06,
            invalid_json=0.02,
            nan=0.005,
            mismatch=0.005,
            wrong_tool=0.1,
            spurious_call=0.3,
            no_call=0.1,
            invent=0.5,
        ),
    )
}
"""The built-in profiles, by name."""


def load_profile(reference: str) -> ErrorProfile:
    """A built-in profile by name, or one from a JSON file (keys: ``RATES``, name, source).

    Raises:
        ProfileError: An unknown name, an unreadable file, or a rate out of range.
    """
    if reference in PROFILES:
        return PROFILES[reference]
    path = Path(reference)
    if not path.exists():
        raise ProfileError(
            f"no profile {reference!r}: a built-in one ({', '.join(PROFILES)}) or a JSON file"
        )
    try:
        data: Any = loads(read_input(path, what="LLM profile", max_bytes=MAX_PROFILE_BYTES))
    except InputFileError as err:
        raise ProfileError(str(err)) from err
    except (OSError, StrictJSONError) as err:
        raise ProfileError(f"{path}: not a profile ({err})") from err
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: a profile is a JSON object")
    fields = cast("Mapping[str, Any]", data)
    allowed = {"name", "source", *RATES, "derived_factor"}
    unknown = sorted(set(fields) - allowed)
    if unknown:
        raise ProfileError(
            f"{path}: unknown key {unknown[0]!r} (known: {', '.join(sorted(allowed))})"
        )
    for key in ("name", "source"):
        if key in fields and not isinstance(fields[key], str):
            raise ProfileError(f"{path}: {key!r} must be a string")
    values: dict[str, Any] = {"name": path.stem, "source": f"from {path.name}", **fields}
    return ErrorProfile(**values)
