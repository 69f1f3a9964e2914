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
    expected = {2: ((1638, 4118308, 9.207), (11360, 122248, 1.328)), 5: ((1064, 4134032, 5.670), (3943, 246496, 1.530)),
                10: ((743, 4178584, 4.059), (2031, 453318, 1.485)), 25: ((419, 4450012, 2.879), (1023, 890418, 1.179)),
                50: ((271, 4949608, 2.226), (512, 1776890, 1.178)), 100: ((172, 6294626, 1.754), (256, 3553734, 1.178))}
    for k, want in expected.items():
        for mode, (classes, dm, avg) in zip(("strict", "relaxed"), want):
            r = run_to_result(run_mondrian(x, k, mode))
            assert r.classes == classes and sm.discernibility_star(r.sizes) == dm
            assert round(sm.average_class_size(len(x), r.classes, k), 3) == avg
            assert r.sizes.min() >= k
            if mode == "strict" and k == 2:
                assert r.sizes.max() == 527
