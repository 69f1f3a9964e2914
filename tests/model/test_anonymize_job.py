"""model/anonymize_job and model/anonymize_teaching: the studio's Anonymize computation agrees with
``dpstudio anonymize`` and with the oracles of SYNTACTIC.md (K9.1, K9.5); the neighbour contrast is checked
against an independent recount; bad settings give one line."""

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpstudio.cli import main
from dpstudio.cli.release import read_taxonomies
from dpstudio.io.anonymize import LABEL, AnonymizeError
from dpstudio.io.atomic import OutputPathError
from dpstudio.model.anonymize.job import AnonymizeSettings, export, run_to_outcome
from dpstudio.model.anonymize.teaching import SWEENEY_ROWS, homogeneity_steps, neighbour_contrast

ARX = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "arx"
needs_arx = pytest.mark.skipif(not (ARX / "adult.csv").is_file(), reason="shared ARX Adult data absent")
QI4 = ("age", "sex", "race", "marital-status")


@pytest.fixture(scope="module")
def arx():
    frame = pd.read_csv(ARX / "adult.csv", sep=";", dtype=str)
    return frame, read_taxonomies({c: str(ARX / f"adult_hierarchy_{c}.csv") for c in QI4})


@needs_arx
def test_optimal_with_suppression_is_the_k95_node_and_the_cli_result(arx, tmp_path):
    frame, tax = arx
    out = run_to_outcome(frame, tax, AnonymizeSettings(QI4, 10, "optimal", "dm", 0.01))
    # K9.5: k=10, MaxSup 301: best C_DM node (0,0,1,2), 13,357,407 with 67 suppressed, 125 classes
    assert out.levels == (0, 0, 1, 2)
    assert (out.metric, out.suppressed, out.classes) == (13357407.0, 67, 125)
    assert (len(out.search.satisfying), len(out.search.minimal), out.search.nodes) == (47, 7, 60)
    assert out.sizes.sum() == 30162 - 67 and len(out.sizes) == 125 and out.sizes.min() >= 10
    # the class sizes recounted from the anonymized table
    recount = sorted(Counter(map(tuple, out.table[list(QI4)].to_numpy().tolist())).values())
    assert recount == sorted(out.sizes.tolist())
    args = [
        "anonymize",
        "--data",
        str(ARX / "adult.csv"),
        "--qi",
        ",".join(QI4),
        "--k",
        "10",
        "--suppression",
        "0.01",
        "--out",
        str(tmp_path / "cli.csv"),
    ]
    for c in QI4:
        args += ["--taxonomy", f"{c}={ARX / f'adult_hierarchy_{c}.csv'}"]
    assert main(args) == 0
    side = json.loads((tmp_path / "cli.json").read_text())
    assert side["metric"]["value"] == out.metric and side["levels"] == out.sidecar["levels"]
    assert side["lattice"] == out.sidecar["lattice"]
    export(out, tmp_path / "studio.csv")
    assert (tmp_path / "studio.csv").read_text() == (tmp_path / "cli.csv").read_text()
    assert json.loads((tmp_path / "studio.json").read_text())["label"] == LABEL
    with pytest.raises(OutputPathError, match="already exists"):
        export(out, tmp_path / "studio.csv")  # never overwrites silently


@needs_arx
def test_lattice_node_details_are_the_evaluated_nodes(arx):
    frame, tax = arx
    out = run_to_outcome(frame, tax, AnonymizeSettings(QI4, 2, "optimal", "dm", 0.0))
    minimal = {(1, 0, 1, 2), (1, 1, 1, 1), (2, 0, 1, 1), (3, 0, 0, 2), (4, 0, 0, 1), (4, 0, 1, 0)}  # K9.5
    assert set(out.search.minimal) == minimal
    node = out.node((1, 1, 1, 1))
    assert node.satisfies and (node.metric, node.classes) == (55170356.0, 30)
    assert not out.node((0, 0, 0, 0)).satisfies
    with pytest.raises(AnonymizeError, match="not a node"):
        out.node((5, 0, 0, 0))


def test_mondrian_outcome_recounted_independently():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"a": rng.integers(0, 50, 200), "b": rng.integers(0, 9, 200)})
    out = run_to_outcome(frame, {}, AnonymizeSettings(("a", "b"), 7, "mondrian-strict", "dm"))
    sizes = Counter(map(tuple, out.table[["a", "b"]].to_numpy().tolist()))
    assert sorted(sizes.values()) == sorted(out.sizes.tolist()) and min(sizes.values()) >= 7
    assert out.metric == sum(s * s for s in sizes.values()) and out.suppressed == 0 and out.search is None
    assert (out.table["not_a_dp_release"] == LABEL).all()


@pytest.mark.parametrize(
    "settings, message",
    [
        (AnonymizeSettings((), 2), "at least one quasi-identifier"),
        (AnonymizeSettings(("a",), 0), "k must be"),
        (AnonymizeSettings(("a",), 2, suppression=1.0), r"\[0, 1\)"),
        (AnonymizeSettings(("a",), 2), "has no taxonomy"),
        (AnonymizeSettings(("a",), 2, "mondrian-strict", "entropy"), "needs a full-domain node"),
        (AnonymizeSettings(("a",), 2, "incognito", sensitive="b", t_closeness=("equal", 0.2)), "use optimal"),
        (
            AnonymizeSettings(("a",), 2, "mondrian-strict", sensitive="a", l_diversity=("distinct", 2, 1.0)),
            "cannot also be",
        ),
    ],
)
def test_bad_settings_one_line(settings, message):
    frame = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]})
    with pytest.raises(AnonymizeError, match=message) as info:
        run_to_outcome(frame, {}, settings)
    assert "\n" not in str(info.value)


def test_homogeneity_steps_point_at_the_all_hypertension_class():
    steps = homogeneity_steps()
    # independently: the class of (Black, 1965, f) holds t3 and t4, both hypertension
    rows = [i for i, r in enumerate(SWEENEY_ROWS) if r[:3] == ("Black", 1965, "f")]
    assert rows == [2, 3] and {SWEENEY_ROWS[i][4] for i in rows} == {"hypertension"}
    attack = next(s for s in steps if s.title.endswith("Homogeneity"))
    assert attack.rows == (2, 3) and "hypertension" in attack.text and "distinct l = 1" in attack.text
    assert "sizes [2, 2, 2, 3, 2]" in steps[0].text and "2-anonymous" in steps[0].text


@pytest.mark.parametrize("algorithm", ["mondrian-strict", "optimal"])
def test_neighbour_contrast_changes_the_removed_record_class(algorithm):
    rng = np.random.default_rng(5)
    n = 120
    frame = pd.DataFrame({"a": rng.integers(0, 40, n), "b": rng.integers(0, 6, n)})
    from dpstudio.core.taxonomy_generators import numeric_equal_width

    tax = {"a": numeric_equal_width(0, 40, 2, 3, "a"), "b": numeric_equal_width(0, 6, 3, 1, "b")}
    settings = AnonymizeSettings(("a", "b"), 4, algorithm, "dm")
    c = neighbour_contrast(frame, tax, settings, epsilon=0.5)
    # independently: D' is D without the removed row, and the D' output is recomputed from scratch
    d_prime = frame.drop(index=c.removed).reset_index(drop=True)
    again = run_to_outcome(d_prime, tax, settings)
    assert again.table.equals(c.after.table)
    assert c.changed, "removing one record of the smallest class must change some class"
    label = " | ".join(map(str, c.before.table.loc[list(np.flatnonzero(c.before.kept)).index(c.removed), ["a", "b"]]))
    assert any(lab == label for lab, _, _ in c.changed)
    assert (
        c.count
        == Counter(map(tuple, c.before.table[["a", "b"]].astype(str).to_numpy().tolist()))[tuple(label.split(" | "))]
    )
    assert c.max_ratio <= math.exp(0.5) * (1 + 1e-12) and c.max_ratio >= math.exp(0.5) * (1 - 1e-9)


@needs_arx
def test_run_with_progress_reports_lattice_steps(arx):
    from dpstudio.core.events import Progress, RunFinished
    from dpstudio.model.anonymize.job import run_with_progress

    frame, tax = arx
    events = list(run_with_progress(frame, tax, AnonymizeSettings(QI4, 10, "optimal", "dm", 0.01), every=8))
    progress = [e for e in events if isinstance(e, Progress)]
    assert isinstance(events[-1], RunFinished) and events[-1].result.levels == (0, 0, 1, 2)
    assert [p.done for p in progress] == list(range(8, 61, 8)) and {p.total for p in progress} == {60}
