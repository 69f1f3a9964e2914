"""``dpstudio anonymize``: outputs, the not-DP label, and bad input (exit 2, one line, nothing written)."""

import csv
import json
from pathlib import Path

import pytest

from dpstudio.cli import main

ARX = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "arx"
needs_arx = pytest.mark.skipif(not (ARX / "adult.csv").is_file(), reason="shared ARX Adult data absent")
LABEL = "syntactic anonymization: no differential-privacy guarantee"


def _args(tmp_path, *extra, qi=("age", "sex", "race", "marital-status")):
    out = ["anonymize", "--data", str(ARX / "adult.csv"), "--qi", ",".join(qi), "--out", str(tmp_path / "o.csv")]
    for c in qi:
        out += ["--taxonomy", f"{c}={ARX / f'adult_hierarchy_{c}.csv'}"]
    return out + list(extra)


@needs_arx
def test_optimal_with_suppression_writes_table_and_sidecar(tmp_path, capsys):
    assert main(_args(tmp_path, "--k", "10", "--suppression", "0.01")) == 0
    side = json.loads((tmp_path / "o.json").read_text())
    assert side["label"] == LABEL and side["not_a_release"] is True
    assert side["levels"] == {"age": 0, "sex": 0, "race": 1, "marital-status": 2}
    assert side["metric"] == {"name": "dm", "value": 13357407.0}
    assert (side["classes"], side["suppressed"]) == (125, 67)
    assert side["lattice"] == {"nodes": 60, "satisfying": 47, "minimal": 7}
    rows = list(csv.reader((tmp_path / "o.csv").open()))
    assert rows[0] == ["not_a_dp_release", "age", "sex", "race", "marital-status"]
    assert len(rows) - 1 == 30162 - 67
    assert all(r[0] == LABEL for r in rows[1:]) and {r[3] for r in rows[1:]} == {"*"}
    assert main(_args(tmp_path, "--k", "10")) == 2  # refuses to overwrite
    assert "already exists" in capsys.readouterr().err


@needs_arx
def test_mondrian_and_t_closeness(tmp_path):
    assert main(_args(tmp_path, "--k", "10", "--algorithm", "mondrian-strict", "--metric", "avg")) == 0
    side = json.loads((tmp_path / "o.json").read_text())
    assert side["suppressed"] == 0 and side["label"] == LABEL and "levels" not in side
    out2 = tmp_path / "t"
    out2.mkdir()
    assert (
        main(
            _args(
                out2,
                "--k",
                "5",
                "--t-closeness",
                "equal:0.2:occupation",
                "--suppression",
                "0.04",
                "--metric",
                "dm-star",
                qi=("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"),
            )
        )
        == 0
    )
    side = json.loads((out2 / "o.json").read_text())
    assert list(side["levels"].values()) == [1, 4, 1, 0, 3, 2, 2, 1] and side["metric"]["value"] == 311880088


@needs_arx
@pytest.mark.parametrize(
    "extra, message",
    [
        (["--k", "0"], "--k must be >= 1"),
        (["--k", "2", "--suppression", "1"], "--suppression must be in [0, 1)"),
        (["--k", "2", "--suppression", "-0.1"], "--suppression must be in [0, 1)"),
        (["--k", "2", "--l-diversity", "distinct:6:salary-class"], "larger than the domain"),
        (["--k", "2", "--qi", "age,workclass"], "has no taxonomy"),
        (["--k", "2", "--algorithm", "incognito", "--t-closeness", "equal:0.2:occupation"], "use --algorithm optimal"),
        (
            [
                "--k",
                "2",
                "--algorithm",
                "mondrian-strict",
                "--l-diversity",
                "recursive:2:salary-class",
                "--recursive-c",
                "0.01",
            ],
            "whole table fails",
        ),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, extra, message):
    argv = _args(tmp_path)
    if "--qi" in extra:
        i = extra.index("--qi")
        argv[argv.index("--qi") + 1] = extra[i + 1]
        extra = extra[:i] + extra[i + 2 :]
    assert main(argv + extra) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not list(tmp_path.iterdir())


@needs_arx
def test_mondrian_with_l_diversity_classes_are_diverse(tmp_path):
    """Every class of the written table (strict: rows sharing all generalized QI values) holds >= 3 occupations."""
    assert (
        main(
            _args(
                tmp_path,
                "--k",
                "5",
                "--algorithm",
                "mondrian-strict",
                "--metric",
                "dm",
                "--l-diversity",
                "distinct:3:occupation",
                qi=("age", "sex"),
            )
        )
        == 0
    )
    rows = list(csv.DictReader((tmp_path / "o.csv").open()))
    classes = {}
    for r in rows:
        classes.setdefault((r["age"], r["sex"]), set()).add(r["occupation"])
    side = json.loads((tmp_path / "o.json").read_text())
    assert len(classes) == side["classes"] > 1 and len(rows) == 30162
    assert min(len(v) for v in classes.values()) >= 3
