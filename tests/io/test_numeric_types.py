"""A numeric attribute's kind is a public declaration (issue 8, item 3): never read from the values.

One record with age 30.5 added to D cannot change the kind or the split lattice of a release: with a
declaration both tables get the declared lattice (or D' is refused); without one the kind is a default from
the public bounds, and D' is refused with a message saying how to declare the attribute continuous.
"""

import pandas as pd
import pytest

from dpstudio.core.lattice import NumericType
from dpstudio.io.encoding import EncodingError, encode_table

AGES = [18, 21, 27, 35, 29, 39, 22, 28]
LABELS = ["N", "Y", "N", "N", "Y", "Y", "N", "N"]


def frame(ages, labels, dtype=None):
    return pd.DataFrame({"age": pd.Series(ages, dtype=dtype), "y": labels})


def lattice_of(df, bounds=(15, 40), types=None):
    data = encode_table(df, "y", bounds={"age": bounds}, types=types)
    (age,) = data.attributes
    return age.split_lattice, age.integer


D = frame(AGES, LABELS)
D2 = frame(AGES + [30.5], LABELS + ["Y"])


@pytest.mark.parametrize("declared", [None, "integer", "continuous", "continuous:0.5"])
def test_one_fractional_record_cannot_change_the_kind_or_the_lattice(declared):
    types = None if declared is None else {"age": declared}
    lattice, integer = lattice_of(D, types=types)
    try:
        lattice2, integer2 = lattice_of(D2, types=types)
    except EncodingError as exc:  # an integer attribute refuses 30.5, naming how to declare it otherwise
        assert lattice.kind == "integer" and "--type age=continuous" in str(exc) and "30.5" in str(exc)
        return
    assert (lattice2, integer2) == (lattice, integer)
    assert lattice.describe() == lattice2.describe()


def test_default_kind_comes_from_the_bounds_only():
    assert lattice_of(D)[0].kind == "integer" and not lattice_of(D)[0].declared
    # whole-number values, bounds that are not whole numbers: continuous
    lat, integer = lattice_of(D, bounds=(15, 40.5))
    assert lat.kind == "continuous" and not integer and "bounds not whole numbers" in lat.rule


def test_the_dtype_and_the_values_do_not_decide_the_kind():
    kinds = {
        (lattice_of(frame(AGES, LABELS, dtype), types=t)[0].describe()["kind"])
        for dtype in ("int64", "float64", "object")
        for t in [{"age": "continuous"}]
    }
    assert kinds == {"continuous"}
    whole = lattice_of(frame(AGES, LABELS, "int64"), types={"age": NumericType("continuous")})[0]
    fractional = lattice_of(frame([a + 0.25 for a in AGES], LABELS), types={"age": "continuous"})[0]
    assert whole == fractional


def test_bad_declarations_are_refused():
    with pytest.raises(EncodingError, match="whole-number bounds"):
        lattice_of(D, bounds=(15.5, 40), types={"age": "integer"})
    with pytest.raises(EncodingError, match="not a numeric attribute"):
        encode_table(D, "y", bounds={"age": (15, 40)}, types={"y": "integer"})
    with pytest.raises(EncodingError, match="declared integer"):
        lattice_of(D2, types={"age": "integer"})
