"""One missing-value convention in every path: a kept missing cell takes the project's token (the file's own,
'?' by default), which the taxonomies must cover. The coverage check and the checklist see exactly what the
run will check, for every attribute at once; the studio's run, the Anonymize tab, the exported command and
Python script and the CLI all use the same token."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dpstudio.core.taxonomy_generators as tg
from dpstudio.cli import main
from dpstudio.gui.panels.data import DataPanel
from dpstudio.io.taxonomy_formats import write_taxonomy
from dpstudio.model.anonymize import job as aj
from dpstudio.model.project.data import load_dataset
from dpstudio.model.project.project import Project
from dpstudio.model.release.readiness import readiness
from tests.gui.export_fixtures import release_and_export


def _survey(folder: Path, n: int = 400, seed: int = 0) -> Path:
    """Coded answers 1..5 and '?' for a missing answer, as survey files write them."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "income": rng.choice(["1", "2", "3", "4", "5", "?"], n).astype(object),
            "ideology": rng.choice(["1", "2", "3", "?"], n).astype(object),
            "vote": rng.choice(["yes", "no"], n),
        }
    )
    path = folder / "survey.csv"
    df.to_csv(path, index=False)
    return path


def _project(path: Path, token_leaf: bool) -> Project:
    p = Project()
    p.set_data(load_dataset(path), path)
    for c in ("income", "ideology"):
        p.set_type(c, "categorical")
        codes = sorted(str(v) for v in p.value_counts(c)[0])
        p.set_taxonomy(c, tg.flat_categorical(codes + (["?"] if token_leaf else []), c), f"{c}.csv")
    p.set_role("vote", "class")
    p.set_classes(["yes", "no"])
    p.set_missing("keep")
    p.set_algorithm("diffgen", {"steps": 2})
    return p


def test_the_checklist_names_every_attribute_whose_taxonomy_misses_the_token(tmp_path):
    p = _project(_survey(tmp_path), token_leaf=False)
    assert p.missing_token == "?"
    assert {a for a in ("income", "ideology") if p.uncovered_values(a)[1]} == {"income", "ideology"}
    problems = [x for x in readiness(p) if x.place == "taxonomy"]
    assert {x.attribute for x in problems} == {"income", "ideology"}
    assert all("'?'" in x.text or "?" in x.text for x in problems)
    p.set_missing("drop")  # dropped rows need no token
    assert not [x for x in readiness(p) if x.place == "taxonomy"]


def test_another_token_is_checked_and_used(tmp_path):
    p = _project(_survey(tmp_path), token_leaf=True)
    assert not [x for x in readiness(p) if x.place == "taxonomy"]
    p.set_missing_token("NA")  # the taxonomies say '?': now they do not cover what the run will use
    assert {x.attribute for x in readiness(p) if x.place == "taxonomy"} == {"income", "ideology"}
    with pytest.raises(ValueError):
        p.set_missing_token("  ")


def test_the_data_panel_declares_the_token(qtbot, tmp_path):
    p = _project(_survey(tmp_path), token_leaf=True)
    panel = DataPanel(p)
    qtbot.addWidget(panel)
    assert panel.token_edit.text() == "?" and panel.token_edit.isEnabled()
    panel.token_edit.setText("NA")
    panel.token_edit.editingFinished.emit()
    assert p.missing_token == "NA"
    p.set_missing("drop")
    assert not panel.token_edit.isEnabled()


def test_anonymize_keeps_missing_as_the_same_token(tmp_path):
    p = _project(_survey(tmp_path), token_leaf=True)
    settings = aj.AnonymizeSettings(("income", "ideology"), 2, missing_token=p.missing_token)
    table, dropped = aj.prepare(p.frame, settings, "keep")
    assert dropped == 0 and "?" in set(table["income"]) and not table.isna().any().any()


def test_release_export_and_both_rerun_scripts_use_the_token(qtbot, tmp_path, monkeypatch):
    data = _survey(tmp_path)
    p = _project(data, token_leaf=True)
    out = tmp_path / "out"
    paths = release_and_export(qtbot, p, out, "survey")
    sh, py = paths[3].read_text(), paths[4].read_text()
    assert "--missing-token" in sh and "'?'" in sh and "Missing" not in sh
    assert "keep_missing(True, token='?')" in py
    name = json.loads(paths[1].read_text())["dataset_budget"]["dataset"]
    assert main(["budget", "set-total", name, "3"]) == 0
    env = {**os.environ, "DPSTUDIO": str(Path(sys.executable).with_name("dpstudio"))}
    for cmd in (["sh", str(paths[3])], [sys.executable, str(paths[4])]):
        done = subprocess.run([*cmd, str(data)], capture_output=True, text=True, env=env, cwd=out, timeout=300)
        assert done.returncode == 0, done.stderr


def test_the_cli_takes_another_token(tmp_path):
    path = tmp_path / "na.csv"
    pd.DataFrame({"a": ["x", "y", None, "x"] * 30, "c": ["p", "q"] * 60}).to_csv(path, index=False)  # empty cells
    tax = tmp_path / "a.json"
    write_taxonomy(tg.flat_categorical(["x", "y", "NA"], "a"), tax)
    common = ["release", "--data", str(path), "--class", "c", "--classes", "p,q", "--taxonomy", f"a={tax}"]
    common += ["--algorithm", "diffgen", "--epsilon", "1", "--steps", "1", "--missing", "category", "--seed", "1"]
    assert main([*common, "--missing-token", "NA", "--out", str(tmp_path / "ok.csv")]) == 0
    assert main([*common, "--out", str(tmp_path / "bad.csv")]) == 2  # '?' is not in the taxonomy
