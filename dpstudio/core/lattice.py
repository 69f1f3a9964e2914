"""The public split-point lattice of a numeric attribute, and its declared kind (integer or continuous).

Everything here is public: it is computed from the attribute's public bounds and its declared kind and
resolution, never from the values. A numeric attribute's domain is [lo, hi] (hi inclusive), a kind and a
resolution delta (integer: 1; continuous: declared, or by default the power of ten
10^(floor(log10(hi - lo)) - 4), i.e. between 1e-5 and 1e-4 of the range). The lattice points are
c_k = lo + k * delta for k = 0..M-1, M = ceil((hi - lo) / delta); a released split point is one of
c_1..c_{M-1} (all strictly inside (lo, hi)), stored as the double nearest the exact decimal lo + k * delta,
so its bits depend on k and the public numbers only (no floating-point leak of the data, Mironov 2012).

Cells: record x lies in cell ``index(x)`` = the largest k with c_k <= x (the last cell [c_{M-1}, hi]
includes hi). A split at c_k sends x left iff x < c_k iff index(x) < k: a per-record rule, so a score's
sensitivity is what it is without the lattice. For an integer attribute every whole number in [lo, hi) has
its own cell except hi, which shares the last cell with hi - 1 (a split point lies strictly below hi).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .budget import fraction_text

INTEGER = "integer"
CONTINUOUS = "continuous"
KINDS = (INTEGER, CONTINUOUS)

_EXACT = 2**53  # numerators and denominators below this are exact doubles


class LatticeError(ValueError):
    """A numeric declaration or lattice that cannot be used (one line, says what to change)."""


def _decimal(x: float) -> Fraction:
    """A public bound as its shortest decimal (the double it came from is the nearest to it)."""
    x = float(x)
    if not math.isfinite(x):
        raise LatticeError(f"bounds must be finite, got {x!r}")
    return Fraction(repr(x))


def default_resolution(lo: float, hi: float) -> Fraction:
    """10^(floor(log10(hi - lo)) - 4): from the public bounds only."""
    span = _decimal(hi) - _decimal(lo)
    if span <= 0:
        raise LatticeError(f"bounds need lo < hi, got [{lo:g}, {hi:g}]")
    d = math.floor(math.log10(span))
    while Fraction(10) ** d > span:  # log10 of a float may round across a power of ten
        d -= 1
    while Fraction(10) ** (d + 1) <= span:
        d += 1
    return Fraction(10) ** (d - 4)


@dataclass(frozen=True)
class NumericType:
    """A numeric attribute's declared kind: "integer", or "continuous" with an optional resolution."""

    kind: str
    resolution: Fraction | None = None

    @classmethod
    def parse(cls, text) -> NumericType:
        """'integer', 'continuous' or 'continuous:RESOLUTION' (a positive number, e.g. 0.01)."""
        if isinstance(text, NumericType):
            return text
        raw = str(text).strip()
        kind, sep, res = raw.partition(":")
        kind = kind.strip().lower()
        if kind not in KINDS:
            raise LatticeError(f"a numeric type is integer, continuous or continuous:RESOLUTION, got {raw!r}")
        if not sep:
            return cls(kind)
        if kind == INTEGER:
            raise LatticeError(f"an integer attribute has resolution 1; got {raw!r} (use continuous:RESOLUTION)")
        try:
            r = Fraction(res.strip())
        except (ValueError, ZeroDivisionError):
            raise LatticeError(f"the resolution in {raw!r} is not a number") from None
        if r <= 0:
            raise LatticeError(f"the resolution in {raw!r} must be positive")
        return cls(kind, r)

    def __str__(self) -> str:
        return self.kind if self.resolution is None else f"{self.kind}:{fraction_text(self.resolution)}"


@dataclass(frozen=True)
class Lattice:
    """The public lattice of one numeric attribute (see the module docstring).

    ``declared``: the kind was a public declaration (False: a default from public inputs, ``rule`` says
    which)."""

    lo: float
    hi: float
    kind: str
    resolution: Fraction
    declared: bool = True
    rule: str = "declared"
    #: set by __post_init__: the number of cells M, and (A, B, D) with c_k = (A + k B) / D exactly
    cells: int = field(init=False, compare=False, repr=False)
    _abd: tuple[int, int, int] = field(init=False, compare=False, repr=False)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise LatticeError(f"kind must be integer or continuous, got {self.kind!r}")
        L, H, r = _decimal(self.lo), _decimal(self.hi), Fraction(self.resolution)
        if not L < H:
            raise LatticeError(f"bounds need lo < hi, got [{self.lo:g}, {self.hi:g}]")
        if r <= 0:
            raise LatticeError("the resolution must be positive")
        if self.kind == INTEGER and (r != 1 or L.denominator != 1 or H.denominator != 1):
            raise LatticeError(f"an integer attribute needs whole-number bounds, got [{self.lo:g}, {self.hi:g}]")
        cells = math.ceil((H - L) / r)
        # c_k = (A + k B) / D exactly; with A, B, D and A + M B below 2^53 numpy divides them exactly rounded
        A, B, D = L.numerator * r.denominator, r.numerator * L.denominator, L.denominator * r.denominator
        g = math.gcd(math.gcd(A, B), D)
        A, B, D = A // g, B // g, D // g
        if D >= _EXACT or abs(A) + cells * B >= _EXACT or float(r) < 8 * math.ulp(max(abs(self.lo), abs(self.hi))):
            raise LatticeError(f"resolution {fraction_text(r)} is too fine for the bounds [{self.lo:g}, {self.hi:g}]")
        object.__setattr__(self, "resolution", r)
        object.__setattr__(self, "_abd", (A, B, D))
        if cells > 1 and self.point(cells - 1) >= self.hi:  # the last point rounded onto hi
            cells -= 1
        object.__setattr__(self, "cells", cells)

    # -- construction --------------------------------------------------------------------------------
    @classmethod
    def for_bounds(cls, lo: float, hi: float, declaration=None) -> Lattice:
        """The lattice of a numeric attribute with public bounds and an optional declared type.

        Without a declaration the default comes from the bounds only: whole-number bounds -> integer,
        otherwise continuous with ``default_resolution``."""
        if declaration is not None:
            t = NumericType.parse(declaration)
            if t.kind == INTEGER:
                return cls(lo, hi, INTEGER, Fraction(1), True, "declared integer")
            if t.resolution is None:
                return cls(
                    lo,
                    hi,
                    CONTINUOUS,
                    default_resolution(lo, hi),
                    True,
                    "declared continuous; default resolution 10^(floor(log10(hi - lo)) - 4)",
                )
            return cls(lo, hi, CONTINUOUS, t.resolution, True, "declared continuous with its resolution")
        if float(lo).is_integer() and float(hi).is_integer():
            return cls(lo, hi, INTEGER, Fraction(1), False, "default: whole-number bounds -> integer")
        return cls(
            lo,
            hi,
            CONTINUOUS,
            default_resolution(lo, hi),
            False,
            "default: bounds not whole numbers -> continuous, resolution 10^(floor(log10(hi - lo)) - 4)",
        )

    # -- points and cells ------------------------------------------------------------------------------
    @property
    def n_points(self) -> int:
        """The number of possible split points c_1..c_{M-1}."""
        return self.cells - 1

    def point(self, k: int) -> float:
        """c_k: the double nearest lo + k * resolution (k and public numbers only)."""
        A, B, D = self._abd
        return (A + int(k) * B) / D

    def points(self, ks) -> np.ndarray:
        A, B, D = self._abd
        return (A + np.asarray(ks, dtype=np.int64).astype(np.float64) * B) / D

    def index(self, values) -> np.ndarray:
        """The cell of every value: the largest k in 0..M-1 with c_k <= x (int64). Values in [lo, hi]."""
        x = np.asarray(values, dtype=float)
        k = np.floor((x - self.lo) / float(self.resolution))
        k = np.clip(np.nan_to_num(k, nan=0.0), 0, self.cells - 1).astype(np.int64)
        for _ in range(64):  # the float guess is off by at most a step or two
            down = (k > 0) & (self.points(k) > x)
            up = (k < self.cells - 1) & (self.points(k + 1) <= x)
            if not (down.any() or up.any()):
                return k
            k = k - down + up
        raise AssertionError("lattice index did not settle")  # pragma: no cover

    def check_values(self, name: str, values) -> None:
        """An integer attribute's values must be whole numbers (a continuous value just maps to its cell)."""
        if self.kind != INTEGER:
            return
        x = np.asarray(values, dtype=float)
        bad = x != np.round(x)
        if bad.any():
            n = int(bad.sum())
            how = "is declared integer" if self.declared else "is integer by default (its bounds are whole numbers)"
            raise LatticeError(
                f"attribute {name!r} {how} but {n} row{'s' if n != 1 else ''} "
                f"hold{'s' if n == 1 else ''} a value that is not a whole number "
                f"(e.g. {x[bad][0]:g}); declare it continuous (--type {name}=continuous"
                "[:RESOLUTION])"
            )

    def describe(self) -> dict:
        """For a sidecar: kind, resolution, whether declared and by which rule, where split points lie."""
        return {
            "kind": self.kind,
            "resolution": fraction_text(self.resolution),
            "declared": self.declared,
            "rule": self.rule,
            "split_points": "on the public lattice lo + k * resolution, k = 1..M-1 (the double nearest "
            "each exact value), chosen by the discrete exponential mechanism",
            "lattice_points": self.n_points,
        }
