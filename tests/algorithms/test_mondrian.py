"""Mondrian against SYNTACTIC.md K9.7 (the paper's Fig. 1 table; Adult numeric QIs, skipped without data)."""

from pathlib import Path

import numpy as np
import pytest

from dpstudio.algorithms.fulldomain import run_to_result
from dpstudio.algorithms.mondrian import PartitionCut, run_mondrian
from dpstudio.core import syntactic_metrics as sm

ADULT = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "adult" / "adult.data"


@pytest.mark.parametrize("mode", ["strict", "relaxed"])
def test_patient_table(mode):
    x = np.array([[25, 0, 53711], [25, 1, 53712], [26, 0, 53711], [27, 0, 53710], [27, 1, 53712], [28, 0, 53711]])
    events = list(run_mondrian(x, 2, mode))
    r = events[-1].result
    assert r.class_of.tolist() == [0, 0, 0, 1, 1, 1]
    assert sm.discernibility_star(r.sizes) == 18 and sm.average_class_size(6, r.classes, 2) == 1.5
    cuts = [e for e in events if isinstance(e, PartitionCut)]
    assert cuts[0].dim == 0  # all widths tie at 1: Age first in QI order


@pytest.mark.skipif(not ADULT.is_file(), reason="shared Adult data absent")
def test_adult_numeric_table():
    import pandas as pd

    df = pd.read_csv(ADULT, skipinitialspace=True, na_values="?").dropna()
    assert len(df) == 30162
    x = df[["age", "education-num", "hours-per-week"]].to_numpy(float)
    expected = {
        2: ((1638, 4118308, 9.207), (11360, 122248, 1.328)),
        5: ((1064, 4134032, 5.670), (3943, 246496, 1.530)),
        10: ((743, 4178584, 4.059), (2031, 453318, 1.485)),
        25: ((419, 4450012, 2.879), (1023, 890418, 1.179)),
        50: ((271, 4949608, 2.226), (512, 1776890, 1.178)),
        100: ((172, 6294626, 1.754), (256, 3553734, 1.178)),
    }
    for k, want in expected.items():
        for mode, (classes, dm, avg) in zip(("strict", "relaxed"), want):
            r = run_to_result(run_mondrian(x, k, mode))
            assert r.classes == classes and sm.discernibility_star(r.sizes) == dm
            assert round(sm.average_class_size(len(x), r.classes, k), 3) == avg
            assert r.sizes.min() >= k
            if mode == "strict" and k == 2:
                assert r.sizes.max() == 527


@pytest.mark.parametrize(
    "disease, cm",
    [
        (["flu", "flu", "cold", "hiv", "cold", "cold"], 2),  # one minority row in each class
        (["flu", "flu", "flu", "hiv", "cold", "flu"], 2),  # class 2 has three labels once each: two minority rows
        (["flu"] * 6, 0),
    ],
)
def test_cm_metric_of_a_mondrian_output(disease, cm):
    """C_CM of Mondrian's classes (model.anonymize_job): the patient table splits into rows {0,1,2} and {3,4,5}
    (test_patient_table); the minority rows are counted by hand in the parameters."""
    import pandas as pd

    from dpstudio.model.anonymize.job import AnonymizeSettings, run_to_outcome

    frame = pd.DataFrame(
        {
            "age": [25, 25, 26, 27, 27, 28],
            "sex": [0, 1, 0, 0, 1, 0],
            "zip": [53711, 53712, 53711, 53710, 53712, 53711],
            "disease": disease,
        }
    )
    s = AnonymizeSettings(("age", "sex", "zip"), 2, "mondrian-strict", "cm", class_attr="disease")
    out = run_to_outcome(frame, {}, s)
    assert out.sizes.tolist() == [3, 3] and out.metric == cm
    assert out.table["disease"].tolist() == disease and out.table["age"].tolist() == ["[25-26]"] * 3 + ["[27-28]"] * 3


@pytest.mark.parametrize("mode", ["strict", "relaxed"])
def test_cuts_keep_l_diversity_and_t_closeness(mode):
    """k = 2 alone cuts 1..8 into four homogeneous pairs; distinct 2-diversity allows only the cut at the
    median (both halves hold a and b); every class of the output satisfies the model."""
    from dpstudio.core.syntactic_models import LDiversity, TCloseness

    x = np.arange(1, 9, dtype=float)[:, None]
    codes = np.array([0, 0, 1, 1, 0, 0, 1, 1])
    extras = {"s": (codes, 2)}
    plain = run_to_result(run_mondrian(x, 2, mode))
    assert plain.class_of.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    r = run_to_result(run_mondrian(x, 2, mode, [LDiversity("distinct", 2, "s")], extras))
    assert r.class_of.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    # equal-distance t-closeness with t = 0: each class must have the table's distribution (half a, half b)
    r = run_to_result(run_mondrian(x, 2, mode, [TCloseness("equal", 0.0, "s")], extras))
    assert r.class_of.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    r = run_to_result(run_mondrian(x, 2, mode, [TCloseness("equal", 0.5, "s")], extras))
    assert r.class_of.tolist() == plain.class_of.tolist()  # distance 0.5 for a pure pair: allowed


def test_mondrian_refuses_a_table_failing_the_model():
    import pandas as pd

    from dpstudio.io.anonymize import AnonymizeError
    from dpstudio.model.anonymize.job import AnonymizeSettings, run_to_outcome

    frame = pd.DataFrame({"age": [1, 2, 3, 4], "s": ["a"] * 4})
    s = AnonymizeSettings(("age",), 2, "mondrian-relaxed", sensitive="s", l_diversity=("distinct", 1, 1.0))
    assert run_to_outcome(frame, {}, s).sizes.tolist() == [2, 2]
    frame["s"] = ["a", "a", "a", "b"]
    s = AnonymizeSettings(("age",), 1, "mondrian-relaxed", sensitive="s", l_diversity=("distinct", 2, 1.0))
    out = run_to_outcome(frame, {}, s)
    assert out.sizes.tolist() == [4]  # no cut keeps b on both sides
    # recursive (1,2)-diversity needs r1 < 1 * r2: 3 a's against 1 b fail it in the whole table
    s = AnonymizeSettings(("age",), 1, "mondrian-relaxed", sensitive="s", l_diversity=("recursive", 2, 1.0))
    with pytest.raises(AnonymizeError, match="whole table fails") as info:
        run_to_outcome(frame, {}, s)
    assert "\n" not in str(info.value)
