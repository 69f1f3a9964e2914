"""Columns of small whole-number codes (survey answers coded 1..12) are proposed as categorical, with the
reason, among the guessed types the data owner confirms together; quantities stay numeric."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpstudio.model.project.data import load_dataset
from dpstudio.model.project.project import CODE_LIMIT, Project


def test_codes_are_proposed_as_categorical_and_quantities_stay_numeric(tmp_path):
    rng = np.random.default_rng(0)
    n = 300
    df = pd.DataFrame(
        {
            "ideology": rng.integers(1, 8, n),  # 7 codes
            "income": rng.choice([*map(str, range(1, 13)), "?"], n),  # 12 codes and '?' for missing
            "age": rng.integers(18, 90, n),  # a quantity: many values
            "score": rng.choice([0.5, 1.5, 2.5], n),  # few values, not whole numbers
            "big": rng.choice([100, 200, 300], n),  # whole numbers beyond 0..99
            "many": rng.integers(1, CODE_LIMIT + 2, n),  # 13 whole numbers: more than codes
            "vote": rng.choice(["yes", "no"], n),
        }
    )
    path = tmp_path / "survey.csv"
    df.to_csv(path, index=False)
    p = Project()
    p.set_data(load_dataset(path), path)
    assert p.types["ideology"] == p.types["income"] == "categorical"
    assert all(p.types[c] == "numeric" for c in ("age", "score", "big", "many"))
    prov = p.provenance_of("type:income")
    assert prov.derived and "12 distinct whole numbers" in prov.source
    assert sorted(str(v) for v in p.value_counts("ideology")[0]) == [str(i) for i in range(1, 8)]
    assert {"type:ideology", "type:income"} <= set(p.unconfirmed_inputs())  # confirmed with the other guesses


def test_the_confirm_dialog_shows_why_a_column_is_taken_for_codes(qtbot, tmp_path):
    from dpstudio.gui.widgets.confirm_types import ConfirmTypesDialog

    rng = np.random.default_rng(1)
    path = tmp_path / "s.csv"
    pd.DataFrame({"ideo": rng.integers(1, 6, 200), "vote": rng.choice(["y", "n"], 200)}).to_csv(path, index=False)
    p = Project()
    p.set_data(load_dataset(path), path)
    dialog = ConfirmTypesDialog(p)
    qtbot.addWidget(dialog)
    texts = [dialog.list.item(i).text() for i in range(dialog.list.count())]
    assert any(t.startswith("ideo: categorical (5 distinct whole numbers") for t in texts), texts
