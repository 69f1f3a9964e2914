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


# -- generated: every value-taking option of every spending command, with every hostile value ---------------
HOSTILE = ["0", "-1", "nan", "inf", "1e-400", "1e400", BIG, "abc", "", "0.5", "1e9"]
#: options that name files, columns or other text (refused or read elsewhere, not numbers)
TEXT_OPTIONS = {
    "--out", "--data", "--counts", "--events", "--report", "--budget-store", "--taxonomy", "--bounds", "--type",
    "--classes", "--classes-file", "--class", "--column", "--edges", "--categories", "--sep", "--user", "--time",
    "--time-column", "--region", "--from", "--dataset-name", "--start", "--end", "--time-origin", "--missing-token",
    "--spark-master", "--derive-edges",
}  # fmt: skip
BASES = {
    "stream": STREAM + ["--window", "20", "--epsilon", "1"],
    "release": RELEASE + ["--epsilon", "1"],
    "histogram": HISTOGRAM + ["--epsilon", "1"],
}
#: (command, option, value) that may run: the value is valid for the option
VALID = {
    ("stream", "--seed", "0"), ("stream", "--seed", BIG), ("release", "--seed", "0"), ("release", "--seed", BIG),
    ("histogram", "--seed", "0"), ("histogram", "--seed", BIG), ("stream", "--epsilon", "0.5"),
    ("release", "--epsilon", "0.5"), ("histogram", "--epsilon", "0.5"), ("stream", "--ratio", "0.5"),
    ("release", "--steps", "0"), ("release", "--count-share", "0.5"),
}  # fmt: skip


def _generated_cases():
    from dpstudio.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    for cmd, base in BASES.items():
        for action in sub.choices[cmd]._actions:
            if not action.option_strings or action.nargs == 0 or action.choices:
                continue
            opt = max(action.option_strings, key=len)
            if opt in TEXT_OPTIONS or opt == "--help":
                continue
            for value in HOSTILE:
                argv = list(base)
                if opt in argv:
                    argv[argv.index(opt) + 1] = value
                else:
                    argv += [opt, value]
                yield pytest.param(cmd, opt, value, argv, id=f"{cmd} {opt} {value[:8]}")


GENERATED = list(_generated_cases())


def test_the_generated_table_covers_every_numeric_option():
    options = {(p.values[0], p.values[1]) for p in GENERATED}
    for expected in ("--epsilon", "--window", "--horizon", "--groups", "--ratio", "--seed", "--per-bucket-cap"):
        assert ("stream", expected) in options
    for expected in ("--epsilon", "--steps", "--grid-bins", "--tree-fraction", "--count-share", "--fanout"):
        assert ("release", expected) in options
    assert ("histogram", "--branching") in options and ("histogram", "--epsilon") in options


@pytest.mark.parametrize("cmd,opt,value,argv", GENERATED)
def test_every_hostile_value_is_refused_in_one_line_or_is_valid(cmd, opt, value, argv, tmp_path):
    import contextlib
    import io

    from dpstudio.cli import main

    store = tmp_path / "store.sqlite"
    (tmp_path / "out").mkdir()
    argv = [a.replace("OUT.csv", str(tmp_path / "out" / "x.csv")) for a in argv]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main([*argv, "--budget-store", str(store)])
        except SystemExit as exc:  # argparse's own refusals
            code = exc.code
    if (cmd, opt, value) in VALID:
        assert code == 0, err.getvalue()
        return
    lines = err.getvalue().strip().splitlines()
    assert code == 2 and len(lines) == 1 and "error:" in lines[0], err.getvalue()
    assert not list((tmp_path / "out").iterdir())
    assert not store.exists() or not open_store(str(store)).datasets()
