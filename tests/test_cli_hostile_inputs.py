"""Hostile parameters on every spending command (issue 34, item 2): each is refused before the question, with
one line on stderr and exit 2; nothing is charged to the budget store, nothing is written, no traceback.
Each row was charged and then crashed (or allocated gigabytes) before the shared checks of
``core.budget.check_usable_epsilon``, ``DiffGenParams.validate`` (steps) and ``StreamParams.validate``
(horizon and cap against epsilon)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dpstudio.io.budget_store import open_store
from dpstudio.resources import resource

BIG = "1" + "0" * 400

S, T = resource("samples"), resource("taxonomies", "adult")
STREAM = ["stream", "--data", str(S / "ILINet.csv.gz"), "--column", "ILITOTAL", "--region", "national"]
STREAM += ["--from", "2002-W40", "--mechanism", "tpm", "--out", "OUT.csv"]
RELEASE = ["release", "--data", str(S / "adult.csv.gz"), "--class", "Y", "--classes", "<=50K,>50K"]
RELEASE += ["--taxonomy", f"workclass={T / 'workclass.csv'}", "--bounds", "age=17:91", "--type", "age=integer"]
RELEASE += ["--algorithm", "diffgen", "--out", "OUT.csv"]
HISTOGRAM = ["histogram", "--data", str(S / "adult.csv.gz"), "--column", "age", "--edges", "17:91:1"]
HISTOGRAM += ["--algorithm", "hb", "--out", "OUT.csv"]

CASES = {
    "stream epsilon 1e-300": STREAM + ["--window", "200", "--epsilon", "1e-300"],
    "stream epsilon 1e-320": STREAM + ["--window", "200", "--epsilon", "1e-320"],
    "stream epsilon 1e-400": STREAM + ["--window", "200", "--epsilon", "1e-400"],
    "stream epsilon 1e400": STREAM + ["--window", "200", "--epsilon", "1e400"],
    "stream epsilon 100000 seeded": STREAM + ["--window", "200", "--epsilon", "100000", "--seed", "3"],
    "stream horizon 10^400": STREAM + ["--window", "200", "--epsilon", "1", "--horizon", BIG],
    "stream horizon 10^15": STREAM + ["--window", "200", "--epsilon", "1", "--horizon", "1" + "0" * 15],
    "stream window 20000": STREAM + ["--window", "20000", "--epsilon", "1"],
    "release epsilon 1e-300": RELEASE + ["--epsilon", "1e-300"],
    "release epsilon 1e-400": RELEASE + ["--epsilon", "1e-400"],
    "release epsilon 1e400": RELEASE + ["--epsilon", "1e400"],
    "release steps 10^9": RELEASE + ["--epsilon", "1", "--steps", "1000000000"],
    "release dataset budget 1e-300": RELEASE + ["--epsilon", "1", "--dataset-budget", "1e-300"],
    "histogram epsilon 1e-400": HISTOGRAM + ["--epsilon", "1e-400"],
    "histogram epsilon 1e13": HISTOGRAM + ["--epsilon", "1e13"],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_in_one_line_before_any_charge(name, tmp_path):
    store = tmp_path / "store.sqlite"
    argv = [a.replace("OUT.csv", str(tmp_path / "out" / "x.csv")) for a in CASES[name]]
    (tmp_path / "out").mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "dpstudio", *argv, "--budget-store", str(store)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "error:" in lines[0], done.stderr
    assert "Traceback" not in done.stderr
    assert not list((tmp_path / "out").iterdir())  # nothing written
    assert not store.exists() or not open_store(str(store)).datasets()  # nothing charged
