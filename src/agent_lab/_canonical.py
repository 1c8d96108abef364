"""RFC 8785 (JCS) canonical text of checked JSON data: sorted keys, ECMAScript numbers.

Private: ``agent_lab.strict_json.canonical_dumps`` is the public face, and
checks its input first; this writer assumes JSON data.
"""

# pyright: reportUnknownVariableType=false, reportUnknownArgumentType=false

from __future__ import annotations

import json
from typing import Any

from agent_lab.errors import StrictJSONError

__all__ = ["write_canonical"]


def _format_number(value: float) -> str:
    # ECMAScript Number::toString, which RFC 8785 section 3.2.2.3 prescribes.
    # repr() already yields the shortest round-tripping digits.
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    fraction = fraction.rstrip("0")
    significant = (whole + fraction).lstrip("0")
    digits = significant.rstrip("0")
    # point: where the decimal point sits relative to the first significant digit.
    point = len(whole) + (int(exponent) if exponent else 0)
    point -= len(whole + fraction) - len(significant)
    k = len(digits)
    if k <= point <= 21:
        text = digits + "0" * (point - k)
    elif 0 < point <= 21:
        text = f"{digits[:point]}.{digits[point:]}"
    elif -6 < point <= 0:
        text = "0." + "0" * -point + digits
    else:
        shown = digits[0] + ("." + digits[1:] if k > 1 else "")
        text = f"{shown}e{'+' if point - 1 >= 0 else '-'}{abs(point - 1)}"
    return sign + text


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be")


def write_canonical(value: Any, out: list[str]) -> None:
    """Append the RFC 8785 text of checked JSON data to ``out``, piece by piece."""
    kind = type(value)
    if value is None:
        out.append("null")
    elif kind is bool:
        out.append("true" if value else "false")
    elif kind is int:
        try:
            out.append(str(value))
        except ValueError as err:
            # str() refuses integers over sys.get_int_max_str_digits() digits.
            raise StrictJSONError("number_too_long", str(err)) from None
    elif kind is float:
        out.append(_format_number(value))
    elif kind is str:
        out.append(json.dumps(value, ensure_ascii=False))
    elif kind is list:
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            write_canonical(item, out)
        out.append("]")
    else:
        obj: dict[str, Any] = value
        out.append("{")
        for index, key in enumerate(sorted(obj, key=_utf16_key)):
            if index:
                out.append(",")
            out.append(json.dumps(key, ensure_ascii=False))
            out.append(":")
            write_canonical(obj[key], out)
        out.append("}")
