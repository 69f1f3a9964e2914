"""The Python API (dpstudio.api, docs/api.md): the studio's release path without a window. Every release asks
the release service's question and charges the budget store before any noise; refusals spend nothing and
write nothing; teaching runs cannot be exported; the exported files are what ran."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from dpstudio import api
from dpstudio.io.budget_store import open_store


@pytest.fixture
def store(tmp_path):
    return tmp_path / "store.sqlite"


def _survey(path, n=400, seed=0):
    rng = np.random.default_rng(seed)
    pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "region": rng.choice(["north", "south", "east", "west"], n),
            "answer": rng.choice(["yes", "no"], n),
            "note": rng.choice(["x", "y"], n),
        }
    ).to_csv(path, index=False)
    tax = path.parent / "region.csv"
    tax.write_text("north;N;*\nsouth;S;*\neast;EW;*\nwest;EW;*\n", encoding="utf-8")
    return path, tax


def _declared(tmp_path, store):
    data, tax = _survey(tmp_path / "survey.csv")
    study = api.open_table(data, store=store)
    study.declare_class("answer", ["yes", "no"], why="the questionnaire's two answers")
    study.declare_taxonomy("region", tax)
    study.declare_bounds("age", 18, 90, kind="integer", why="the survey's eligibility range")
    study.ignore("note")
    study.choose("diffgen", steps=3)
    return study


def test_a_release_asks_charges_runs_and_exports_what_ran(tmp_path, store):
    study = _declared(tmp_path, store)
    question = study.question(1)
    assert not question.refusal and question.epsilon == 1
    assert not open_store(str(store)).datasets()  # asking charges nothing
    release = study.release(question)
    assert release.is_release and release.epsilon_spent == pytest.approx(1.0)
    assert float(study.budget().spent) == pytest.approx(1.0)  # charged to the store
    out = tmp_path / "out"
    out.mkdir()
    paths = release.export(out, "survey")
    assert [p.name for p in paths] == [
        "survey.csv",
        "survey.json",
        "survey.report.html",
        "survey.command.sh",
        "survey.reproduce.py",
    ]
    sidecar = json.loads(paths[1].read_text())
    assert sidecar["not_a_release"] is False
    assert sidecar["ledger"]["total"] == "1"
    keys = {x["key"] for x in sidecar["public_inputs"]}
    assert {"classes:answer", "taxonomy:region", "bounds:age"} <= keys
    released = pd.read_csv(paths[0])
    assert "not_a_release" not in released.columns
    assert set(released["answer"]) <= {"yes", "no"}
    assert "note" not in released.columns


def test_a_second_release_beyond_the_lifetime_budget_is_refused_and_spends_nothing(tmp_path, store):
    study = _declared(tmp_path, store)
    study.release(study.question(1))
    again = study.question(1)
    assert again.refusal
    with pytest.raises(api.StudyError, match="not released"):
        study.release(again)
    assert float(study.budget().spent) == pytest.approx(1.0)


def test_inputs_derived_from_the_data_must_be_confirmed_before_any_spend(tmp_path, store):
    data, tax = _survey(tmp_path / "survey.csv")
    study = api.open_table(data, store=store)
    study.declare_taxonomy("region", tax)
    study.declare_bounds("age", 18, 90)
    study.ignore("note")
    study.project.set_role("answer", "class")
    assert study.propose_classes() == ["no", "yes"]
    assert study.unconfirmed() == ["classes:answer"]
    study.choose("diffgen", steps=2)
    with pytest.raises(api.StudyError, match="not confirmed"):
        study.release(study.question(1))
    assert not open_store(str(store)).datasets()  # nothing charged
    study.confirm_public("classes:answer", "The questionnaire offers exactly these answers.")
    release = study.release(study.question(1))
    out = tmp_path / "o"
    out.mkdir()
    sidecar = json.loads(release.export(out, "r")[1].read_text())
    record = next(x for x in sidecar["public_inputs"] if x["key"] == "classes:answer")
    assert record["derived"] is True and record["confirmed"] == "The questionnaire offers exactly these answers."


def test_a_simulation_charges_nothing_and_cannot_be_exported(tmp_path, store):
    study = _declared(tmp_path, store)
    sim = study.simulate(1, seed=3)
    assert not sim.is_release
    assert not open_store(str(store)).datasets()
    with pytest.raises(api.StudyError):
        sim.export(tmp_path, "sim")
    assert not list(tmp_path.glob("sim*"))


def test_bad_declarations_are_refused_in_words(tmp_path, store):
    data, _ = _survey(tmp_path / "survey.csv")
    study = api.open_table(data, store=store)
    with pytest.raises(api.StudyError, match="lower bound"):
        study.declare_bounds("age", 90, 18)
    with pytest.raises(api.StudyError, match="unknown algorithm"):
        study.choose("magic")
    with pytest.raises(api.StudyError, match="not a column"):
        study.use_only("age", "nope")
    with pytest.raises(api.StudyError, match="could not open"):
        api.open_table(tmp_path / "missing.csv")


def test_the_bundled_sample_opens_ready_to_release(tmp_path, store):
    study = api.open_sample(store=store)
    assert study.rows > 30000 and study.project.class_attribute == "Y"
    assert not study.unconfirmed()
    study.choose("diffgen", steps=4)
    release = study.release(study.question("0.5"))
    assert release.epsilon_spent == pytest.approx(0.5)


def test_the_exported_python_script_reruns_through_the_api_twice(tmp_path, store, monkeypatch):
    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", str(store))
    study = _declared(tmp_path, None)  # the default store: $DPSTUDIO_BUDGET_STORE
    out = tmp_path / "out"
    out.mkdir()
    paths = study.release(study.question(1)).export(out, "survey")
    text = paths[4].read_text()
    assert "from dpstudio import api" in text and "dpstudio.cli" not in text
    name = json.loads(paths[1].read_text())["dataset_budget"]["dataset"]
    open_store(str(store)).set_total(name, 3)
    for _ in range(2):
        done = subprocess.run([sys.executable, str(paths[4])], capture_output=True, text=True, cwd=out, timeout=300)
        assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.glob("survey*.csv")) == ["survey.csv", "survey.rerun-2.csv", "survey.rerun.csv"]
    assert len(open_store(str(store)).dataset(name).spends) == 3


def test_the_cli_and_the_api_write_the_same_public_inputs_for_the_same_release(tmp_path, store):
    """Issue 31 item 3: the CLI's sidecar had no ``public_inputs``; the studio's and the API's had them. Now
    the same release names the same inputs, in the same order, none derived from the data."""
    from dpstudio.cli import main

    study = _declared(tmp_path, store)
    out = tmp_path / "api"
    out.mkdir()
    api_side = json.loads(study.release(study.question(1)).export(out, "survey")[1].read_text())
    data, tax = tmp_path / "survey.csv", tmp_path / "region.csv"
    argv = ["release", "--data", str(data), "--class", "answer", "--classes", "yes,no"]
    argv += ["--taxonomy", f"region={tax}", "--bounds", "age=18:90", "--type", "age=integer"]
    argv += ["--algorithm", "diffgen", "--steps", "3", "--epsilon", "1", "--seed", "1"]
    argv += ["--out", str(tmp_path / "cli.csv"), "--budget-store", "none"]
    assert main(argv) == 0
    cli_side = json.loads((tmp_path / "cli.json").read_text())
    keys = [x["key"] for x in cli_side["public_inputs"]]
    assert sorted(keys) == sorted(x["key"] for x in api_side["public_inputs"])
    assert all(not x["derived"] for x in cli_side["public_inputs"])
    by_key = {x["key"]: x for x in cli_side["public_inputs"]}
    said = "declared on the command line: --bounds age=18:90 --type age=integer"
    assert by_key["bounds:age"]["source"] == by_key["kind:age"]["source"] == by_key["type:age"]["source"] == said
    assert by_key["taxonomy:region"]["source"].endswith("the taxonomy file region.csv")
    assert [x["input"] for x in cli_side["public_inputs"]][-1] == "class values of answer"


def test_the_command_lines_algorithm_names_are_accepted(tmp_path, store):
    """Issue 31: the API said 'unknown algorithm diffgen-consistent' for the name every command uses."""
    study = _declared(tmp_path, store)
    study.choose("diffgen-consistent", steps=2)
    assert study.project.algorithm == "diffgen_consistency"
    with pytest.raises(api.StudyError, match="diffgen-consistent, luedp are accepted too"):
        study.choose("nope")
