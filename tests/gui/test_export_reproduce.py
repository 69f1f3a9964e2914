"""Export: the equivalent `dpstudio release` / `histogram` command and Python script re-run the release's
settings with fresh noise, charge the budget store, and hold no data and no exact count."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dpstudio.cli import main
from dpstudio.gui.panels.export import ExportPanel
from dpstudio.io.taxonomy_formats import format_json, read_taxonomy
from tests.cli_outputs import integers_in
from tests.gui.export_fixtures import histogram_data_project, run, table_project

#: engine fields that carry the studio's explicit split; equal to the CLI's default split here (checked by
#: comparing the ledgers' budgets per step kind below)
SPLIT_FIELDS = ("selection_fractions", "split_fraction", "level_fractions", "count_fraction")


def _export(qtbot, project, folder: Path, name: str) -> list[Path]:
    frame_path = folder / "data.csv"
    project.frame.to_csv(frame_path, index=False)
    project.data_path = frame_path  # the file the re-run reads (the project's own data)
    project.set_mode("release")
    run(project)
    w = ExportPanel(project)
    qtbot.addWidget(w)
    return w.export_to(folder / "out", name, confirm=False)


def _without_sources(attributes):
    wording = ("grid_source", "split_points")
    return [{**a, "lattice": {k: v for k, v in a.get("lattice", {}).items() if k not in wording}} for a in attributes]


def _rerun(script: Path, data: Path, out: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "DPSTUDIO": str(Path(sys.executable).with_name("dpstudio"))}
    cmd = ["sh", str(script)] if script.suffix == ".sh" else [sys.executable, str(script)]
    return subprocess.run([*cmd, str(data), str(out)], capture_output=True, text=True, env=env, timeout=300)


def _no_data_no_counts(texts, project, sidecar):
    frame = project.frame
    exact = {len(frame)} | {int(v) for v in frame[project.class_attribute].value_counts()}
    for text in texts:
        text = re.sub(r"pytest-\d+", "pytest-N", text)  # pytest's numbered temporary folder is no count
        assert not (integers_in(text) & exact), "an exact count in an exported script"
    assert sidecar["leaf_partitions"]  # (what the scripts must not need: they hold inputs only)


def test_table_command_and_script_reproduce_the_settings_and_charge_the_store(qtbot, tmp_path):
    (tmp_path / "out").mkdir()
    p = table_project(n=300, steps=3)
    paths = _export(qtbot, p, tmp_path, "rel")
    sh, py = paths[3], paths[4]
    assert (sh.name, py.name) == ("rel.command.sh", "rel.reproduce.py")
    first = json.loads(paths[1].read_text())
    texts = [sh.read_text(), py.read_text()]
    _no_data_no_counts(texts, p, first)
    assert '"$@" release' in texts[0] and "--epsilon 1 " in texts[0] and "NOTE" not in texts[0]
    # the store's lifetime budget of this data is spent: raise it deliberately, as a data owner would
    assert main(["budget", "set-total", first["dataset_budget"]["dataset"], "3"]) == 0
    for i, script in enumerate((sh, py)):
        out = tmp_path / f"again{i}.csv"
        done = _rerun(script, tmp_path / "data.csv", out)
        assert done.returncode == 0, done.stderr
        again = json.loads(out.with_suffix(".json").read_text())
        for key in ("algorithm", "class_attribute", "classes", "not_a_release", "noise"):
            assert again[key] == first[key], key
        # the grid's source names where it was read (the studio's provenance, the script's taxonomy file)
        assert _without_sources(again["attributes"]) == _without_sources(first["attributes"])
        strip = {k: v for k, v in first["parameters"].items() if k not in SPLIT_FIELDS}
        assert {k: v for k, v in again["parameters"].items() if k not in SPLIT_FIELDS} == strip
        assert again["ledger"]["total"] == first["ledger"]["total"] == "1"
        assert again["dataset_budget"]["dataset"] == first["dataset_budget"]["dataset"]
        assert again["dataset_budget"]["dataset_spent"] == str(2 + i)  # charged: 1 by the studio, 1 per re-run
    # the embedded taxonomies are the project's own
    from dpstudio.io.reproduce import input_files
    from dpstudio.model.release.settings import release_settings

    files = input_files(release_settings(p.run_snapshot, p.result, p.run_budget))
    for i, a in enumerate(["age", "sex", "work"]):
        path = tmp_path / f"t{i}.json"
        path.write_text(files[f"taxonomy{i}.json"])
        assert format_json(read_taxonomy(path)) == format_json(p.taxonomies[a])


def test_histogram_command_reproduces_the_settings(qtbot, tmp_path):
    (tmp_path / "out").mkdir()
    p = histogram_data_project(bins=16)
    paths = _export(qtbot, p, tmp_path, "hist")
    first = json.loads(paths[1].read_text())
    text = paths[3].read_text()
    assert '"$@" histogram' in text
    _no_data_no_counts([text, paths[4].read_text()], p, {"leaf_partitions": 1})
    assert main(["budget", "set-total", first["dataset_budget"]["dataset"], "2"]) == 0
    out = tmp_path / "again.csv"
    done = _rerun(paths[3], tmp_path / "data.csv", out)
    assert done.returncode == 0, done.stderr
    again = json.loads(out.with_suffix(".json").read_text())
    for key in ("algorithm", "parameters", "tree", "expected_all_range_mse"):
        if key in first:
            assert again[key] == first[key], key
    assert again["dataset_budget"]["dataset_spent"] == "2"


def test_a_custom_split_is_named_in_the_command_and_reproduced_by_the_python_script(qtbot, tmp_path):
    """The command line has no option for a drawn split (its script says so); the Python script goes through
    the API with the project's parameters, so its re-run has the same split: every parameter and every
    selection step's amount in the ledger equal."""
    from fractions import Fraction

    from dpstudio.model.release import budget_plan as bp

    (tmp_path / "out").mkdir()
    p = table_project(steps=3)
    params = {**p.params, "numeric_attributes": 1}
    plan = bp.default_plan(p.algorithm, params, p.epsilon)
    levels = len(plan.level_shares())
    shares = [Fraction(1, 10), Fraction(1, 10)] + [Fraction(8, 10) / levels] * levels
    p.set_algorithm(p.algorithm, {**p.params, **plan.with_shares(shares).to_params()})
    paths = _export(qtbot, p, tmp_path, "custom")
    assert "NOTE: the release used a custom split of epsilon" in paths[3].read_text()
    assert "NOTE" not in paths[4].read_text()
    first = json.loads(paths[1].read_text())
    assert main(["budget", "set-total", first["dataset_budget"]["dataset"], "2"]) == 0
    done = _rerun(paths[4], tmp_path / "data.csv", tmp_path / "again.csv")
    assert done.returncode == 0, done.stderr
    again = json.loads((tmp_path / "again.json").read_text())
    assert again["parameters"] == first["parameters"]
    # the selection steps' amounts are the drawn shares (the count levels' depend on the tree that grew)
    chosen = {e["epsilon"] for e in first["ledger"]["entries"] if "exponential" in e["mechanism"]}
    assert {e["epsilon"] for e in again["ledger"]["entries"] if "exponential" in e["mechanism"]} == chosen


@pytest.mark.parametrize("name", ["a b", "o'brien"])
def test_paths_with_spaces_and_quotes_survive_the_shell(qtbot, tmp_path, name):
    folder = tmp_path / name
    (folder / "out").mkdir(parents=True)
    p = table_project(n=120, steps=2)
    paths = _export(qtbot, p, folder, "r")
    assert main(["budget", "set-total", json.loads(paths[1].read_text())["dataset_budget"]["dataset"], "2"]) == 0
    done = _rerun(paths[3], folder / "data.csv", folder / "again.csv")
    assert done.returncode == 0, done.stderr


def test_release_files_are_readable_the_script_executes_and_reruns_take_new_names(qtbot, tmp_path):
    """Files meant for publication: 0644 under the usual umask, the command script executable; the re-run
    scripts run twice without OUT (a new name each time) and charge the store each time."""
    import stat

    (tmp_path / "out").mkdir()
    old = os.umask(0o022)
    try:
        p = table_project(n=200, steps=2)
        paths = _export(qtbot, p, tmp_path, "pub")
    finally:
        os.umask(old)
    modes = {q.name: stat.S_IMODE(q.stat().st_mode) for q in paths}
    assert modes == {
        "pub.csv": 0o644,
        "pub.json": 0o644,
        "pub.report.html": 0o644,
        "pub.command.sh": 0o755,
        "pub.reproduce.py": 0o755,
    }, modes
    name = json.loads(paths[1].read_text())["dataset_budget"]["dataset"]
    assert main(["budget", "set-total", name, "5"]) == 0
    env = {**os.environ, "DPSTUDIO": str(Path(sys.executable).with_name("dpstudio"))}
    for script, cmd in ((paths[4], [sys.executable]), (paths[3], [])):
        for _ in range(2):
            done = subprocess.run(
                [*cmd, str(script), str(tmp_path / "data.csv")],
                capture_output=True,
                text=True,
                env=env,
                timeout=300,
                cwd=tmp_path / "out",
            )
            assert done.returncode == 0, done.stderr
    written = sorted(q.name for q in (tmp_path / "out").glob("pub.rerun*.csv"))
    assert written == ["pub.rerun-2.csv", "pub.rerun-3.csv", "pub.rerun-4.csv", "pub.rerun.csv"], written
    from dpstudio.io.budget_store import open_store

    assert len(open_store().dataset(name).spends) == 5  # the studio's release and four re-runs


def test_rerun_scripts_run_from_any_folder_without_the_venv_and_charge_the_releases_store(qtbot, tmp_path):
    """The scripts name the interpreter that wrote them and the store the release was charged to: started
    from another folder with only the system's PATH, and with another store as the environment's default,
    each re-run is charged to the release's store (where the data's budget was raised), never to a store
    where the data looks new and would get a fresh lifetime budget."""
    from dpstudio.io.budget_store import open_store

    (tmp_path / "out").mkdir()
    p = table_project(steps=2)
    paths = _export(qtbot, p, tmp_path, "anywhere")
    sh, py = paths[3], paths[4]
    first = json.loads(paths[1].read_text())
    name = first["dataset_budget"]["dataset"]
    release_store = p.run_store
    assert release_store and Path(release_store).is_file()
    assert py.read_text().splitlines()[0] == f"#!{sys.executable}"
    assert os.access(sh, os.X_OK) and os.access(py, os.X_OK)
    assert main(["budget", "--budget-store", release_store, "set-total", name, "3"]) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    decoy = tmp_path / "decoy.sqlite"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DPSTUDIO_BUDGET_STORE": str(decoy)}
    for i, cmd in enumerate((["/bin/sh", str(sh)], [str(py)])):
        out = elsewhere / f"again{i}.csv"
        done = subprocess.run(
            [*cmd, str(tmp_path / "data.csv"), str(out)], cwd=elsewhere, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        again = json.loads(out.with_suffix(".json").read_text())
        assert again["dataset_budget"]["dataset"] == name
        assert again["dataset_budget"]["dataset_spent"] == str(2 + i)
    spent = {d.name: d.spent for d in open_store(release_store).datasets()}
    assert spent[name] == 3
    # the budget is spent: a third re-run says why in one line, without first printing a question whose
    # figures ("remaining afterwards: 0") do not hold
    done = subprocess.run([str(py), str(tmp_path / "data.csv")], cwd=elsewhere, env=env, capture_output=True, text=True)
    assert done.returncode != 0 and done.stderr.strip().splitlines() == [done.stderr.strip()], done.stderr
    assert done.stderr.startswith("not released: ") and "does not fit its lifetime budget" in done.stderr
    assert not decoy.exists() or not open_store(str(decoy)).datasets()
