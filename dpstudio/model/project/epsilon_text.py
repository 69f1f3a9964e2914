"""Reading the epsilon the user typed (Qt-free): exactly what the box shows, or a plain-words refusal.

``parse_epsilon_text(text) -> Fraction`` accepts what ``dpstudio.core.budget.check_epsilon`` accepts
(``1``, ``0.5``, ``1/4``, ``2e-1``) and one decimal comma: ``0,1`` is 0.1. It refuses, with a message
saying why, anything it could read two ways: a comma and a point together (``1,000.5``), more than one
comma, and a comma followed by exactly three digits after a non-zero whole part (``1,000`` is one
thousand in some conventions and one in others), and a value beyond what the figures can show
(``model.release.question.MAX_EPSILON``). ``understood_text(eps)`` is how the studio shows the
value it read, so a decimal comma is never silently read as something else.

Privacy: epsilon is the budget a release spends; a value the user did not see must never be used, so a
refusal here stops the run instead of falling back to an earlier value.
"""

from __future__ import annotations

import re
from fractions import Fraction

from dpstudio.core.budget import check_epsilon, fraction_text
from dpstudio.model.release.question import epsilon_refusal

_AMBIGUOUS_THOUSANDS = re.compile(r"^[+-]?0*[1-9]\d{0,2},\d{3}$")


def parse_epsilon_text(text: str) -> Fraction:
    """The epsilon the text shows, as an exact Fraction; ValueError with the reason in plain words."""
    raw = "" if text is None else str(text)
    s = raw.strip()
    if not s:
        raise ValueError("type an epsilon (for example 1, 0.5 or 1/4)")
    if "," in s:
        if s.count(",") > 1:
            raise ValueError(f"{raw.strip()!r} has more than one comma: write epsilon with one decimal point, e.g. 0.5")
        if "." in s:
            raise ValueError(
                f"{raw.strip()!r} mixes a comma and a point: write epsilon with one decimal point, e.g. 0.5"
            )
        if "/" in s or "e" in s.lower():
            raise ValueError(f"{raw.strip()!r}: a decimal comma only works in a plain decimal number like 0,5")
        if _AMBIGUOUS_THOUSANDS.match(s):
            whole, frac = s.split(",")
            raise ValueError(
                f"{raw.strip()!r} is ambiguous ({whole}.{frac} or {whole}{frac}): write it with a decimal point"
            )
        s = s.replace(",", ".")
    try:
        eps = check_epsilon(s)
    except ValueError as exc:
        msg = str(exc)
        if msg.startswith("not a number"):
            msg = f"{raw.strip()!r} is not a number: write epsilon like 1, 0.5 or 1/4"
        raise ValueError(msg) from None
    too_large = epsilon_refusal(eps)
    if too_large:
        raise ValueError(too_large)
    return eps


def understood_text(eps: Fraction) -> str:
    """Epsilon as the studio writes it back: an integer, the shortest exact decimal, else a fraction."""
    return fraction_text(eps)


__all__ = ["parse_epsilon_text", "understood_text"]
