"""Writing a DiffGen release: CSV rows, sidecar contents, secure-noise rule, no true counts."""

import csv
import json

import numpy as np
import pandas as pd
import pytest

from dpstudio.algorithms.diffgen import preset, run_diffgen
from dpstudio.algorithms.diffgen_input import CategoricalAttribute, DiffGenInput, NumericAttribute
from dpstudio.core.budget import Ledger
from dpstudio.core.events import NodeNoised
from dpstudio.core.noise import NotSecureNoiseError, SecureNoise, SimulationNoise
from dpstudio.core.taxonomy import Node, Taxonomy
from dpstudio.io.atomic import OutputPathError
from dpstudio.io.release import generalize_table, sidecar_path, write_release


def table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    tax = Taxonomy(Node("Any", [Node("=Formula", [Node("-a"), Node("b")]), Node("c")]), "Group")
    groups = rng.choice(["-a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    age = rng.integers(0, 100, size=n).astype(float)
    y = ((age > 50) ^ (groups == "b")).astype(int)
    data = DiffGenInput(
        (
            CategoricalAttribute("Group", tax, np.array([tax.index(g) for g in groups])),
            NumericAttribute("Age", age, 0.0, 100.0, integer=True),
        ),
        "Label",
        ("no", "yes"),
        y,
    )
    return data, pd.DataFrame({"Group": groups, "Age": age, "Label": np.where(y, "yes", "no")})


def run(params, noise, teaching=False):
    evs = list(run_diffgen(table()[0], params, noise, Ledger(params.epsilon), teaching=teaching))
    return evs, evs[-1].result


def read_csv(path):
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


def test_secure_release_csv_and_sidecar(tmp_path):
    params = preset("diffgen-consistent", 1, 4)
    _, result = run(params, SecureNoise())
    out = tmp_path / "rel.csv"
    csv_path, json_path = write_release(result, out)
    assert json_path == tmp_path / "rel.json" == sidecar_path(out)
    rows = read_csv(csv_path)
    assert rows[0] == ["Group", "Age", "Label", "count"]
    assert len(rows) - 1 == len(result.leaf_labels) * 2
    assert all(not r[0].startswith(("=", "-", "+", "@")) for r in rows[1:])  # neutralised labels
    assert [int(r[3]) for r in rows[1:]] == result.counts.ravel().tolist()
    meta = json.loads(json_path.read_text())
    assert meta["not_a_release"] is False and meta["noise"] == "secure (OpenDP)"
    assert meta["algorithm"] == "diffgen-consistent"
    assert meta["ledger"]["spent"] == "1" and meta["neighbouring"].startswith("add/remove")
    assert [p["step"] for p in meta["post_processing"]][0] == "consistency"
    assert len(meta["error_estimates"]["per_cell_variance"]) == len(rows) - 1
    assert set(meta["cut"]) == {"Group", "Age"}
    assert set(meta["cut"]["Group"]["leaf_to_label"]) == {"-a", "b", "c"}
    iv = meta["cut"]["Age"]["intervals"]
    assert iv[0][0] == 0 and iv[-1][1] == 100


def test_simulation_needs_explicit_consent_and_is_marked(tmp_path):
    _, result = run(preset("diffgen", 1, 3), SimulationNoise(7))
    with pytest.raises(NotSecureNoiseError):
        write_release(result, tmp_path / "a.csv")
    assert not (tmp_path / "a.csv").exists() and not (tmp_path / "a.json").exists()
    _, json_path = write_release(result, tmp_path / "a.csv", simulation=True)
    meta = json.loads(json_path.read_text())
    assert meta["not_a_release"] is True and meta["seed"] == 7


def test_refuses_to_overwrite_either_file(tmp_path):
    _, result = run(preset("diffgen", 1, 2), SimulationNoise(1))
    (tmp_path / "b.json").write_text("keep")
    with pytest.raises(OutputPathError):
        write_release(result, tmp_path / "b.csv", simulation=True)
    assert (tmp_path / "b.json").read_text() == "keep" and not (tmp_path / "b.csv").exists()
    write_release(result, tmp_path / "b.csv", simulation=True, overwrite=True)
    assert json.loads((tmp_path / "b.json").read_text())["algorithm"] == "diffgen"


def test_teaching_run_writes_no_true_counts(tmp_path):
    params = preset("diffgen", 0.05, 3, tree_projection=False)  # leaves clamped: comparable to the events
    evs, result = run(params, SimulationNoise(3), teaching=True)
    truth = {e.node: e.true_count for e in evs if isinstance(e, NodeNoised)}
    noisy = {e.node: e.noisy for e in evs if isinstance(e, NodeNoised)}
    assert truth and all(v is not None for v in truth.values())
    csv_path, json_path = write_release(result, tmp_path / "t.csv", simulation=True)
    rows = read_csv(csv_path)[1:]
    assert {r[0] for r in rows} == {"simulation noise, seed 3"}  # the mark on every row
    released = [int(r[4]) for r in rows]
    expected = [max(0, c) for node in result.leaf_nodes.tolist() for c in noisy[node]]
    assert released == expected  # the noisy counts, clamped
    true_flat = [c for node in result.leaf_nodes.tolist() for c in truth[node]]
    assert released != true_flat
    text = json_path.read_text()
    assert "true" not in text.replace("true,", "").replace("true\n", "").replace('"closed_top": true', "")
    # nothing in the result object holds the true leaf counts
    for value in vars(result).values():
        if isinstance(value, np.ndarray) and value.size == len(true_flat):
            assert value.ravel().tolist() != true_flat


def test_expand_records_repeats_rows(tmp_path):
    _, result = run(preset("diffgen", 1, 2), SimulationNoise(2))
    csv_path, _ = write_release(result, tmp_path / "e.csv", expand_records=True, simulation=True)
    rows = read_csv(csv_path)
    assert rows[0] == ["not_a_release", "Group", "Age", "Label"]
    assert len(rows) - 1 == int(result.counts.sum())


def test_generalize_table_with_the_released_cut(tmp_path):
    _, result = run(preset("diffgen", 1, 4), SimulationNoise(4))
    _, frame = table()
    out = generalize_table(frame, result.cut)
    labels = set(map(tuple, out[["Group", "Age"]].itertuples(index=False)))
    assert labels <= set(result.leaf_labels)
    edge = generalize_table(pd.DataFrame({"Age": [100.0, 0.0, 101.0]}), result.cut)
    iv = result.cut["Age"]["intervals"]
    assert edge["Age"].tolist()[:2] == [iv[-1][2], iv[0][2]] and pd.isna(edge["Age"].iloc[2])
