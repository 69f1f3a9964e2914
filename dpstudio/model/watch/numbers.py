"""How the Watch writes a count (Qt-free), the same in the tree's labels, the icicle and a node's explanation:
whole numbers as they are, others to one decimal, thousands grouped ("30,148", "4,208.8"), and never "-0.0"
(a value that rounds to zero is written 0)."""

from __future__ import annotations


def count_text(value) -> str:
    """One count in words (see the module docstring)."""
    v = round(float(value), 1) + 0.0  # + 0.0 turns a rounded -0.0 into 0.0
    return f"{int(v):,}" if v.is_integer() else f"{v:,.1f}"


__all__ = ["count_text"]
