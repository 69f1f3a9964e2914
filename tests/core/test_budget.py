"""The budget ledger: exact arithmetic, refusals with amounts, composition, serialisation."""

import json
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from dpstudio.core.budget import NEIGHBOURING, BudgetExceededError, Ledger, as_fraction, check_epsilon


def test_decimal_spends_add_up_exactly():
    ledger = Ledger(1)
    ledger.spend("a", "laplace", 0.1)
    ledger.spend("b", "laplace", 0.2)
    assert 0.1 + 0.2 != 0.3  # the float trap the ledger avoids
    assert ledger.spent == Fraction(3, 10)
    assert ledger.remaining == Fraction(7, 10)
    for _ in range(7):
        ledger.spend("c", "laplace", 0.1)
    assert ledger.spent == 1 and ledger.remaining == 0  # ten spends of 0.1 use exactly 1


def test_conversions_are_exact():
    assert as_fraction(0.1) == Fraction(1, 10)
    assert as_fraction("0.25") == Fraction(1, 4)
    assert as_fraction("1/3") == Fraction(1, 3)
    assert as_fraction(np.float64(0.3)) == Fraction(3, 10)
    assert as_fraction(np.int64(2)) == 2
    assert as_fraction(Decimal("0.1")) == Fraction(1, 10)
    with pytest.raises(TypeError):
        as_fraction(True)


def test_spend_refuses_to_exceed_and_says_by_how_much():
    ledger = Ledger("1")
    ledger.spend("tree", "exponential", 0.75)
    with pytest.raises(BudgetExceededError) as err:
        ledger.spend("counts", "laplace", 0.5, note="leaf counts")
    msg = str(err.value)
    assert "by 0.25" in msg and "'counts'" in msg and "budget of 1" in msg and "already spent 0.75" in msg
    # a refused spend changes nothing
    assert ledger.spent == Fraction(3, 4) and len(ledger.entries) == 1
    ledger.spend("counts", "laplace", 0.25)  # exactly the rest fits
    assert ledger.remaining == 0
    with pytest.raises(BudgetExceededError, match="by 1e-09"):
        ledger.spend("more", "laplace", "1e-9")


@pytest.mark.parametrize("bad", [0, -0.5, "0"])
def test_non_positive_spends_are_refused(bad):
    with pytest.raises(ValueError, match="positive"):
        Ledger(1).spend("x", "laplace", bad)


def test_parallel_composition_charges_the_largest_spend():
    ledger = Ledger(2)
    ledger.spend("first", "exponential", 0.5)
    with ledger.parallel("children of the root"):
        ledger.spend("child 1", "laplace", 0.25)
        ledger.spend("child 2", "laplace", 0.75)
        ledger.spend("child 3", "laplace", 0.5)
    assert ledger.spent == Fraction(5, 4)  # 0.5 + max(0.25, 0.75, 0.5)
    assert [e.group for e in ledger.entries] == [None] + ["children of the root"] * 3
    ledger.spend("after", "laplace", 0.25)  # sequential again: adds
    assert ledger.spent == Fraction(3, 2)


def test_parallel_branches_add_within_and_max_across():
    ledger = Ledger(1)
    with ledger.parallel("partitions"):
        ledger.spend("p1 step 1", "laplace", 0.25, branch="p1")
        ledger.spend("p1 step 2", "laplace", 0.25, branch="p1")  # same records: p1 costs 0.5
        ledger.spend("p2", "laplace", 0.375, branch="p2")
    assert ledger.spent == Fraction(1, 2)
    with pytest.raises(ValueError, match="branch"):
        ledger.spend("x", "laplace", 0.1, branch="p1")


def test_parallel_block_over_budget_is_refused_with_amount():
    ledger = Ledger(1)
    ledger.spend("a", "laplace", 0.5)
    with ledger.parallel("g"):
        ledger.spend("g1", "laplace", 0.25)
        with pytest.raises(BudgetExceededError, match="by 0.25"):
            ledger.spend("g2", "laplace", 0.75)
        ledger.spend("g3", "laplace", 0.5)  # the block's charge grows from 0.25 to 0.5: fits exactly
    assert ledger.spent == 1


def test_parallel_blocks_do_not_nest():
    ledger = Ledger(1)
    with ledger.parallel("outer"):
        with pytest.raises(RuntimeError, match="nest"):
            with ledger.parallel("inner"):
                pass


def test_json_round_trip():
    ledger = Ledger("1.5")
    ledger.spend("split age", "exponential", 0.1, sensitivity=1, scale=20.0, note="first split")
    with ledger.parallel("step 1"):
        ledger.spend("a", "exponential", Fraction(1, 7), branch="left")
        ledger.spend("b", "exponential", Fraction(1, 7), branch="left")
        ledger.spend("c", "exponential", Fraction(1, 5))
    with ledger.parallel("step 1"):  # a second block with the same name stays a separate block
        ledger.spend("d", "laplace", Fraction(1, 10))
    ledger.spend("counts", "laplace", 0.3, scale=1 / 0.3)
    text = ledger.to_json()
    data = json.loads(text)
    assert data["neighbouring"] == NEIGHBOURING
    assert data["spent"] == str(ledger.spent)
    again = Ledger.from_json(text)
    assert again.total == ledger.total and again.spent == ledger.spent
    assert again.entries == ledger.entries
    assert Ledger.from_dict(ledger.to_dict()).to_dict() == ledger.to_dict()
    assert ledger.spent == Fraction(1, 10) + Fraction(2, 7) + Fraction(1, 10) + Fraction(3, 10)


def test_from_dict_refuses_entries_that_do_not_match_the_recorded_total():
    data = Ledger(1).to_dict()
    data["spent"] = "1/2"
    with pytest.raises(ValueError, match="add up"):
        Ledger.from_dict(data)
    ledger = Ledger(1)
    ledger.spend("a", "laplace", 0.5)
    data = ledger.to_dict()
    data["entries"][0]["epsilon"] = "2"  # an edited file cannot overspend
    with pytest.raises(BudgetExceededError):
        Ledger.from_dict(data)


@pytest.mark.parametrize(
    "value,expected",
    [
        ("0.5", Fraction(1, 2)),
        (" 1 ", 1),
        (0.1, Fraction(1, 10)),
        (2, 2),
        ("1e-2", Fraction(1, 100)),
        ("3/4", Fraction(3, 4)),
        (np.float64(0.25), Fraction(1, 4)),
    ],
)
def test_check_epsilon_accepts(value, expected):
    assert check_epsilon(value) == expected


@pytest.mark.parametrize(
    "value,message",
    [
        (None, "epsilon is missing"),
        ("", "epsilon is missing"),
        ("   ", "epsilon is missing"),
        (0, "must be positive"),
        ("0", "must be positive"),
        (-1, "must be positive"),
        ("-0.5", "must be positive"),
        (math.nan, "not a number \\(NaN\\)"),
        ("nan", "not a number \\(NaN\\)"),
        (np.float64("nan"), "not a number \\(NaN\\)"),
        (math.inf, "finite"),
        ("inf", "finite"),
        ("-Infinity", "finite"),
        ("abc", "not a number: 'abc'"),
        ("1/0", "not a number"),
        ([1], "must be a number"),
        (True, "must be a number"),
    ],
)
def test_check_epsilon_messages(value, message):
    with pytest.raises(ValueError, match=message):
        check_epsilon(value)


def test_ledger_total_goes_through_check_epsilon():
    with pytest.raises(ValueError, match="must be positive"):
        Ledger(0)
    with pytest.raises(ValueError, match="missing"):
        Ledger(None)


def test_replaying_the_entries_of_a_run_rebuilds_its_ledger():
    """``Ledger.replay``: the studio's copy of a ledger spent in the engine process, entry by entry, equals
    it, parallel blocks (two with the same name) and branches included; a spend that does not fit is refused."""
    from dpstudio.core.budget import BudgetExceededError, Ledger

    there = Ledger(2)
    there.spend("root", "laplace", 0.25)
    for _ in range(2):
        with there.parallel("level"):
            there.spend("a", "laplace", 0.25, branch="x")
            there.spend("b", "laplace", 0.25, branch="x")
            there.spend("c", "laplace", 0.25, branch="y")
    there.spend("leaves", "laplace", 0.5)
    here = Ledger(2)
    for entry in there.entries:
        here.replay(entry)
    here.end_replay()
    assert here.to_dict() == there.to_dict() and here.spent == there.spent == Fraction(7, 4)
    with pytest.raises(BudgetExceededError):
        here.replay(there.entries[-1])
