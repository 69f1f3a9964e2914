"""How the studio writes its numbers (Qt-free), the same in every panel.

- ``count_text``: a count, the same in the tree's labels, the icicle and a node's explanation: whole numbers
  as they are, others to one decimal, thousands grouped ("30,148", "4,208.8"), and never "-0.0" (a value that
  rounds to zero is written 0).
- ``figure_text``: an epsilon, a noise scale, a variance: four significant digits ("0.1923", "28"), thousands
  grouped and never in exponent form from 1,000 up ("1,190", "708,300"; walk finding: the noise chart wrote
  "1.19e+03" where the ledger wrote 1190, the split bar 0.192 where the figures wrote 0.1923), and written out
  down to a millionth ("0.00005241"; walk 52 read "5.241e-05" in the ledger).
- ``ratio_text``: how many times likelier, to two significant digits, never in exponent form ("7.7", "550",
  "1,000"; walk 52 read "5e+02 times likelier"), and "more than a million" beyond.
- ``bound_text``: a public bound as it was declared, never rounded and never in exponent form for a whole
  number ("1,484,705", not "1.48471e+06"; ungrouped for an edit field)."""

from __future__ import annotations

from dpstudio.io.plain_numbers import written_out


def count_text(value) -> str:
    """One count in words (see the module docstring)."""
    v = round(float(value), 1) + 0.0  # + 0.0 turns a rounded -0.0 into 0.0
    return f"{int(v):,}" if v.is_integer() else f"{v:,.1f}"


def figure_text(value) -> str:
    """One figure in words (see the module docstring)."""
    v = float(value)
    if v != v or v in (float("inf"), float("-inf")):
        return str(v)
    if abs(v) >= 1000:
        return f"{round(float(f'{v:.4g}')):,}"
    if 1e-6 <= abs(v) < 1e-3:  # written out: "0.00005241", not "5.241e-05" (walk 52, the ledger)
        return written_out(v, 4)
    text = f"{v:.4g}"
    return "0" if text in ("0", "-0") else text


def ratio_text(value) -> str:
    """A ratio in words (see the module docstring)."""
    v = float(f"{float(value):.2g}")
    if v > 1e6:
        return "more than a million"
    return f"{round(v):,}" if v >= 100 else f"{v:g}"


def bound_text(value, grouped: bool = True) -> str:
    """One public bound in words (see the module docstring): exact, the shortest form that reads back."""
    v = float(value)
    if v.is_integer() and abs(v) < 1e15:
        return f"{int(v):,}" if grouped else str(int(v))
    return repr(v)


__all__ = ["bound_text", "count_text", "figure_text", "ratio_text"]
