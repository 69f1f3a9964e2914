"""The privacy budget ledger: exact arithmetic, refuses to overspend, serialisable for reports.

Every noisy value that leaves the process is paid for here *before* it is shown or written.

Composition: spends on the same records add up (sequential). Spends inside one ``parallel`` group touch
disjoint record sets (for example sibling partitions of a DiffGen tree), so the group costs the largest of
its spends, not their sum.

Neighbouring datasets differ by adding or removing one record.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from fractions import Fraction

NEIGHBOURING = "add/remove one record (unbounded differential privacy)"


class BudgetExceededError(ValueError):
    """A spend would take the ledger past its total."""


def as_fraction(value) -> Fraction:
    """Exact conversion: ``0.1`` becomes 1/10 (its shortest decimal repr), not the binary float."""
    if isinstance(value, bool):
        raise TypeError("cannot use a bool as epsilon")
    if isinstance(value, Fraction):
        frac = value
    elif isinstance(value, numbers.Integral):  # int, numpy integers
        frac = Fraction(int(value))
    elif isinstance(value, numbers.Real) and not isinstance(value, numbers.Rational):  # float, numpy floats
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"epsilon must be finite, got {value!r}")
        frac = Fraction(repr(value))
    elif isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"epsilon must be finite, got {value!r}")
        frac = Fraction(value)
    elif isinstance(value, str):
        try:
            frac = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"not a number: {value!r}") from None
    else:
        raise TypeError(f"cannot use {type(value).__name__} as epsilon")
    return frac


def fraction_text(x, approx: bool = False) -> str:
    """An exact number in plain words: an integer, else its shortest decimal if that is exact (0.5,
    0.001), else the fraction (1/3; with ``approx``, "1/3 (~0.333333)")."""
    x = Fraction(x)
    if x.denominator == 1:
        return str(x.numerator)
    f = float(x)
    if Fraction(repr(f)) == x:
        return repr(f)
    return f"{x} (~{f:.6g})" if approx else str(x)


#: e^700 is about 1e304, the largest power of e a double holds with room to spare: above it no figure (odds,
#: variances) can show the guarantee
MAX_EPSILON = 700
#: below this a count's noise scale (1/epsilon, times the steps a run splits it into) leaves what a float and the
#: 64-bit noise samples hold
MIN_EPSILON = Fraction(1, 10**12)


def check_usable_epsilon(value, what: str = "epsilon") -> Fraction:
    """``value`` parsed by ``check_epsilon``, if it lies in [``MIN_EPSILON``, ``MAX_EPSILON``], else a one-line
    ValueError that says why. Every family's parameters check it before a question is asked, so nothing is
    charged for an epsilon no run can use. ``what`` names the quantity (a per-timestamp or per-unit share of
    epsilon)."""
    eps = check_epsilon(value)
    if eps < MIN_EPSILON:
        raise ValueError(
            f"{what} {show_epsilon(eps)} is below {float(MIN_EPSILON):g}: the noise (scale 1/epsilon on every count) "
            "would be beyond what the released numbers can hold; use a larger epsilon"
        )
    if eps > MAX_EPSILON:
        raise ValueError(
            f"{what} {show_epsilon(eps)} is beyond what any figure can show (e^epsilon, the guarantee's factor, "
            f"overflows); at most {MAX_EPSILON}, and above 10 the guarantee means little"
        )
    return eps


def show_epsilon(eps) -> str:
    """An epsilon in short form, also where a float would round it to 0 or infinity (1e-400, 1e400)."""
    from decimal import Decimal

    f = Fraction(eps)
    try:
        v = float(f)
    except OverflowError:
        v = math.inf
    if v != 0 and math.isfinite(v):
        return f"{v:g}"
    return f"{Decimal(f.numerator) / Decimal(f.denominator):.3g}"


def check_epsilon(value) -> Fraction:
    """Parse a user-supplied epsilon: a positive finite number, else a specific ValueError."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise ValueError("epsilon is missing")
    if isinstance(value, str):
        text = value.strip().lower()
        if text in {"nan", "+nan", "-nan"}:
            raise ValueError("epsilon is not a number (NaN)")
        if text.lstrip("+-") in {"inf", "infinity"}:
            raise ValueError(f"epsilon must be a finite number, got {value!r}")
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Rational):
        if math.isnan(float(value)):
            raise ValueError("epsilon is not a number (NaN)")
        if math.isinf(float(value)):
            raise ValueError(f"epsilon must be a finite number, got {value!r}")
    try:
        eps = as_fraction(value)
    except TypeError:
        raise ValueError(f"epsilon must be a number, got {type(value).__name__} {value!r}") from None
    if eps <= 0:
        raise ValueError(f"epsilon must be positive, got {value}")
    return eps


@dataclass(frozen=True)
class Spend:
    """One entry of the ledger."""

    step: str
    mechanism: str
    epsilon: Fraction
    sensitivity: float
    scale: float | None
    group: str | None = None  # name of the parallel group, if any
    note: str = ""
    branch: str | None = None  # inside a group: spends of one branch add up (same records)
    block: int | None = None  # which parallel block (blocks may share a name), numbered from 1

    def to_dict(self) -> dict:
        d = asdict(self)
        d["epsilon"] = str(self.epsilon)
        d["epsilon_float"] = float(self.epsilon)
        return d


@dataclass
class _Group:
    name: str
    number: int
    charged: Fraction = Fraction(0)
    branches: dict = field(default_factory=dict)  # branch name -> sum of its spends


@dataclass
class Ledger:
    """A budget of ``total`` epsilon and the list of what was spent from it."""

    total: Fraction
    entries: list[Spend] = field(default_factory=list)
    _spent: Fraction = Fraction(0)
    _group: _Group | None = None

    def __init__(self, total):
        self.total = check_epsilon(total)
        self.entries = []
        self._spent = Fraction(0)
        self._group = None
        self._blocks = 0

    @property
    def spent(self) -> Fraction:
        return self._spent

    @property
    def remaining(self) -> Fraction:
        return self.total - self._spent

    def spend(
        self,
        step: str,
        mechanism: str,
        epsilon,
        sensitivity: float = 1.0,
        scale: float | None = None,
        note: str = "",
        branch: str | None = None,
    ) -> Spend:
        """Record a spend of ``epsilon``; raise BudgetExceededError (saying by how much) if it does not fit.

        Inside a ``parallel`` block the block is charged the largest spend made in it. If several spends
        inside the block touch the same records, give them the same ``branch``: a branch costs the sum of
        its spends and the block the largest branch. Outside a block ``branch`` must be None.
        """
        eps = as_fraction(epsilon)
        if eps <= 0:
            raise ValueError(f"a spend must be positive, got {eps}")
        if branch is not None and self._group is None:
            raise ValueError("a branch only makes sense inside a parallel block")
        branch_total = eps
        if self._group is not None:
            if branch is not None:
                branch_total = self._group.branches.get(branch, Fraction(0)) + eps
            extra = max(Fraction(0), branch_total - self._group.charged)
        else:
            extra = eps
        if self._spent + extra > self.total:
            over = self._spent + extra - self.total
            raise BudgetExceededError(
                f"spending {float(eps):.6g} for '{step}' would exceed the budget of "
                f"{float(self.total):.6g} by {float(over):.6g} (already spent {float(self._spent):.6g})"
            )
        entry = Spend(
            step,
            mechanism,
            eps,
            float(sensitivity),
            None if scale is None else float(scale),
            self._group.name if self._group else None,
            note,
            branch,
            self._group.number if self._group else None,
        )
        self.entries.append(entry)
        self._spent += extra
        if self._group is not None:
            self._group.charged += extra
            if branch is not None:
                self._group.branches[branch] = branch_total
        return entry

    @contextmanager
    def parallel(self, name: str) -> Iterator[Ledger]:
        """Spends inside this block act on disjoint records: the block costs their maximum."""
        if self._group is not None:
            raise RuntimeError("parallel groups do not nest")
        self._blocks += 1
        self._group = _Group(name, self._blocks)
        try:
            yield self
        finally:
            self._group = None

    def replay(self, entry: Spend) -> Spend:
        """Record ``entry``, a spend the same run made on its own copy of this ledger in another process (the
        studio's engine process), so that this ledger holds it before the noisy value it paid for is shown.

        Entries must arrive in the order they were made; a run of entries with the same (group, block) is
        replayed as one parallel block, exactly as ``from_dict`` does. Call ``end_replay`` at the end."""
        key = None if entry.group is None else (entry.group, entry.block)
        if key != getattr(self, "_replay_key", None):
            self._group = None
            if entry.group is not None:
                self._blocks += 1
                self._group = _Group(entry.group, self._blocks)
            self._replay_key = key
        return self.spend(
            entry.step, entry.mechanism, entry.epsilon, entry.sensitivity, entry.scale, entry.note, entry.branch
        )

    def end_replay(self) -> None:
        """Close the parallel block a ``replay`` left open."""
        if getattr(self, "_replay_key", None) is not None:
            self._group = None
        self._replay_key = None

    def to_dict(self) -> dict:
        return {
            "total": str(self.total),
            "total_float": float(self.total),
            "spent": str(self._spent),
            "spent_float": float(self._spent),
            "neighbouring": NEIGHBOURING,
            "entries": [e.to_dict() for e in self.entries],
        }

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), **kw)

    @classmethod
    def from_dict(cls, data: dict) -> Ledger:
        """Rebuild a ledger (for reopening a project); replays the entries through ``spend``.

        Consecutive entries of the same group are replayed as one parallel block. The rebuilt ledger must
        spend what the file says it spent: a mismatch (an edited or corrupt file) raises ValueError.
        """
        ledger = cls(Fraction(data["total"]))
        order = [(None if e.get("group") is None else (e["group"], e.get("block")), e) for e in data.get("entries", [])]

        def replay(e):
            ledger.spend(
                e["step"],
                e["mechanism"],
                Fraction(e["epsilon"]),
                e["sensitivity"],
                e.get("scale"),
                e.get("note", ""),
                e.get("branch") if e.get("group") else None,
            )

        i = 0
        while i < len(order):
            group, e = order[i]
            if group is None:
                replay(e)
                i += 1
                continue
            with ledger.parallel(group[0]):
                while i < len(order) and order[i][0] == group:
                    replay(order[i][1])
                    i += 1
        if "spent" in data and Fraction(data["spent"]) != ledger.spent:
            raise ValueError(f"the ledger's entries add up to {ledger.spent}, not the recorded {data['spent']}")
        return ledger

    @classmethod
    def from_json(cls, text: str) -> Ledger:
        return cls.from_dict(json.loads(text))
