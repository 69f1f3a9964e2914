"""A release question is bound to the data it was asked about and to the inputs frozen when it was asked
(``Project.question_binding``): answering it for another study, after loading other data, or after
changing an input starts nothing and charges nothing (issue 31, item 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpstudio import api
from dpstudio.io.budget_store import open_store
from dpstudio.model.project.data import load_dataset


def _study(folder, store, seed, name):
    folder.mkdir()
    rng = np.random.default_rng(seed)
    n = 300
    path = folder / f"{name}.csv"
    pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "region": rng.choice(["north", "south", "east", "west"], n),
            "answer": rng.choice(["yes", "no"], n),
        }
    ).to_csv(path, index=False)
    tax = folder / "region.csv"
    tax.write_text("north;N;*\nsouth;S;*\neast;EW;*\nwest;EW;*\n", encoding="utf-8")
    study = api.open_table(path, store=store, dataset_name=name)
    study.declare_class("answer", ["yes", "no"], why="the questionnaire's two answers")
    study.declare_taxonomy("region", tax)
    study.declare_bounds("age", 18, 90, kind="integer", why="the survey's eligibility range")
    study.choose("diffgen", steps=2)
    return study, path


def _spent(store) -> dict:
    return {d.name: d.spent for d in open_store(str(store)).datasets()}


@pytest.fixture
def two(tmp_path):
    store = tmp_path / "store.sqlite"
    adult, _ = _study(tmp_path / "a", store, 1, "adult")
    junk, junk_path = _study(tmp_path / "j", store, 2, "junk")
    return store, adult, junk, junk_path


def test_another_studys_question_is_refused_with_nothing_spent(two):
    store, adult, junk, _ = two
    adult.release(adult.question(1))
    assert _spent(store) == {"adult": 1}
    question = junk.question(1)  # junk's budget is untouched: its question is not a refusal
    assert not question.refusal
    with pytest.raises(api.StudyError, match="asked about other data"):
        adult.release(question)
    assert _spent(store) == {"adult": 1}  # junk was not charged for a run on adult
    assert adult.project.result is not None and len(adult.project.events) > 0  # the first run stays the last


def test_set_data_after_a_question_is_refused_with_nothing_spent(two, tmp_path):
    store, adult, _, junk_path = two
    question = adult.question(1)
    adult.project.set_data(load_dataset(junk_path), junk_path)
    adult.declare_class("answer", ["yes", "no"], why="the questionnaire's two answers")  # declared again
    adult.declare_taxonomy("region", junk_path.parent / "region.csv")
    adult.declare_bounds("age", 18, 90, kind="integer", why="the survey's eligibility range")
    for key in adult.unconfirmed():
        adult.confirm_public(key, "the same public inputs as before")
    adult.choose("diffgen", steps=2)
    with pytest.raises(api.StudyError, match="asked about other data"):
        adult.release(question)
    assert _spent(store) == {}


def test_an_input_changed_after_the_question_is_refused(two):
    store, adult, _, _ = two
    question = adult.question(1)
    adult.declare_bounds("age", 0, 120, kind="integer", why="wider")
    with pytest.raises(api.StudyError, match="asked about other data or other inputs"):
        adult.release(question)
    adult.choose("diffgen", steps=3)
    assert _spent(store) == {}
    adult.release(adult.question(1))  # asked again: it runs and is charged once
    assert _spent(store) == {"adult": 1}
