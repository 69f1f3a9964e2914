"""Sweeps: reproducible seeds, resuming from the results file, claims, summaries (small synthetic data)."""

import json
import os

import numpy as np
import pandas as pd
import pytest

from dpstudio.algorithms.diffgen_input import CategoricalAttribute, DiffGenInput, NumericAttribute
from dpstudio.core.taxonomy import Node, Taxonomy
from dpstudio.evaluation import sweeps
from dpstudio.evaluation.sweeps import Setup, SweepError, read_results, summarize, sweep


def _setup(n=800, seed=0):
    tax = Taxonomy(Node("*", [Node("A", [Node("a1"), Node("a2")]), Node("B", [Node("b1"), Node("b2")])]), "c")
    names = np.array(["a1", "a2", "b1", "b2"])

    def frame(m, s):
        r = np.random.default_rng(s)
        c = names[r.integers(0, 4, m)]
        x = r.integers(0, 100, m)
        y = np.where((x > 50) & np.isin(c, ["a1", "a2"]) | (r.random(m) < 0.1), ">50K", "<=50K")
        return pd.DataFrame({"c": c, "x": x, "Y": y})

    train, test = frame(n, seed), frame(n // 2, seed + 1)
    leaf = {tax.labels[i]: i for i in tax.leaves}
    classes = ("<=50K", ">50K")
    data = DiffGenInput(
        (
            CategoricalAttribute("c", tax, train["c"].map(leaf).to_numpy()),
            NumericAttribute("x", train["x"].to_numpy(float), 0.0, 100.0, integer=True),
        ),
        "Y",
        classes,
        (train["Y"] == ">50K").to_numpy().astype(np.int64),
    ).validate()
    return Setup(train, test, data, "Y", ("x",), ("c", "x"))


def test_sweep_is_reproducible_and_resumes(tmp_path):
    setup = _setup()
    path = tmp_path / "runs.jsonl"
    first = sweep(setup, ["maxgddp", "diffgen"], [1.0], [2, 3], 2, seed=5, results=path)
    assert len(first) == 8
    again = sweep(setup, ["maxgddp", "diffgen"], [1.0], [2, 3], 2, seed=5)  # no file: recomputed
    key = lambda r: (r["algorithm"], r["steps"], r["run"])
    assert [r["accuracy"] for r in sorted(first, key=key)] == [r["accuracy"] for r in sorted(again, key=key)]
    lines = path.read_text().splitlines()
    # resuming computes nothing new; asking for one more run computes exactly the missing ones
    assert len(sweep(setup, ["maxgddp", "diffgen"], [1.0], [2, 3], 2, seed=5, results=path)) == 8
    assert path.read_text().splitlines() == lines
    more = sweep(setup, ["maxgddp"], [1.0], [2], 3, seed=5, results=path)
    assert len(more) == 3
    done, _ = read_results(path)
    assert len(done) == 9


def test_claims_of_live_processes_are_respected_and_dead_ones_taken_over(tmp_path):
    setup = _setup()
    path = tmp_path / "runs.jsonl"
    live = {"claim": True, "algorithm": "maxgddp", "epsilon": 1.0, "steps": 2, "run": 0, "pid": os.getppid()}
    dead = {"claim": True, "algorithm": "maxgddp", "epsilon": 1.0, "steps": 2, "run": 1, "pid": 2**22 + 12345}
    path.write_text(json.dumps(live) + "\n" + json.dumps(dead) + "\n" + "{broken line\n")
    recs = sweep(setup, ["maxgddp"], [1.0], [2], 2, results=path)
    assert [r["run"] for r in recs] == [1]  # run 0 belongs to a live process, run 1's claimer is gone


def test_summarize_and_format():
    recs = [
        {"algorithm": "a", "epsilon": 1.0, "steps": 4, "run": r, "accuracy": acc}
        for r, acc in enumerate([0.8, 0.82, 0.84])
    ]
    (row,) = summarize(recs)
    assert row["mean"] == pytest.approx(0.82) and row["std"] == pytest.approx(0.02)
    assert (row["min"], row["max"], row["runs"]) == (0.8, 0.84, 3)
    text = sweeps.format_summary([row], {"majority": 0.75})
    assert "82.00" in text and "not a release" in text


def test_bad_sweep_input():
    setup = _setup(200)
    with pytest.raises(SweepError, match="unknown algorithm"):
        sweep(setup, ["nope"], [1.0], [2], 1)
    with pytest.raises(SweepError, match="runs"):
        sweep(setup, ["maxgddp"], [1.0], [2], 0)
    with pytest.raises(SweepError, match="epsilon"):
        sweep(setup, ["maxgddp"], [0.0], [2], 1)
