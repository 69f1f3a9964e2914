"""Small numbers written out in plain decimals, never in exponent form ("0.00005241", not "5.241e-05"): the
one rule behind the studio's figures (``model.numbers.figure_text``, four significant digits) and the release
report's numbers (``io.report``, six). Public values only: epsilons, noise scales, variances."""

from __future__ import annotations

import math


def written_out(value: float, significant: int) -> str:
    """``value`` (not 0) to ``significant`` significant digits in plain decimals, trailing zeros dropped. The
    digits are counted after rounding, so a value that rounds up to the next power of ten keeps as many."""
    v = float(value)
    digits = significant - 1 - math.floor(math.log10(abs(float(f"{v:.{significant}g}"))))
    return f"{v:.{digits}f}".rstrip("0")


__all__ = ["written_out"]
