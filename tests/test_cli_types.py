"""`dpstudio release --type NAME=integer|continuous[:RESOLUTION]`: the declared kind of a numeric attribute,
its lattice in the sidecar, and one extra record (age 30.5) that cannot change either (issue 8, item 3)."""

import json
import os
from fractions import Fraction

import pytest

from dpstudio.cli import main

ROWS = [(18, "N"), (21, "Y"), (27, "N"), (35, "N"), (29, "Y"), (39, "Y"), (22, "N"), (28, "N")] * 5


def write(path, rows):
    path.write_text("age,hired\n" + "".join(f"{a},{h}\n" for a, h in rows))
    return path


@pytest.fixture
def tables(tmp_path):
    d = write(tmp_path / "d.csv", ROWS)
    d2 = write(tmp_path / "d2.csv", ROWS + [(30.5, "Y")])
    return tmp_path, d, d2


def release(data, out, *extra):
    return main(
        [
            "release",
            "--data",
            str(data),
            "--class",
            "hired",
            "--classes",
            "N,Y",
            "--bounds",
            "age=15:40",
            "--algorithm",
            "diffgen",
            "--epsilon",
            "4",
            "--steps",
            "3",
            "--out",
            str(out),
            *extra,
        ]
    )


def age_entry(json_path):
    meta = json.loads(json_path.read_text())
    return next(a for a in meta["attributes"] if a["name"] == "age"), meta["cut"]["age"]["intervals"]


def test_declared_continuous_gives_both_neighbours_the_same_lattice(tables):
    tmp, d, d2 = tables
    for data, name in ((d, "a"), (d2, "b")):
        assert release(data, tmp / f"{name}.csv", "--type", "age=continuous:0.5") == 0
    (a, cut_a), (b, _) = age_entry(tmp / "a.json"), age_entry(tmp / "b.json")
    assert a["lattice"] == b["lattice"]
    assert a["lattice"]["kind"] == "continuous" and a["lattice"]["resolution"] == "0.5"
    assert a["lattice"]["declared"] is True and a["lattice"]["lattice_points"] == 49
    # every released split point lies on 15 + k * 0.5
    for lo, hi, _ in cut_a:
        for x in (lo, hi):
            assert (Fraction(repr(x)) - 15) % Fraction(1, 2) == 0


def test_default_kind_is_from_the_bounds_and_a_fractional_record_is_refused(tables, capsys):
    tmp, d, d2 = tables
    assert release(d, tmp / "a.csv", "--seed", "1") == 0
    entry, cut = age_entry(tmp / "a.json")
    assert entry["lattice"]["kind"] == "integer" and entry["lattice"]["declared"] is False
    assert "whole-number bounds" in entry["lattice"]["rule"]
    assert all(float(x).is_integer() for lo, hi, _ in cut for x in (lo, hi))
    capsys.readouterr()
    listing = sorted(os.listdir(tmp))
    assert release(d2, tmp / "b.csv", "--seed", "1") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--type age=continuous" in err and "not a whole number" in err
    assert sorted(os.listdir(tmp)) == listing  # nothing written


@pytest.mark.parametrize(
    "declaration, message",
    [
        ("age=real", "integer, continuous or continuous:RESOLUTION"),
        ("age=integer:2", "resolution 1"),
        ("age=continuous:-1", "must be positive"),
        ("hired=integer", "not a numeric attribute"),
        ("age", "--type expects ATTR=VALUE"),
    ],
)
def test_bad_type_declarations(tables, capsys, declaration, message):
    tmp, d, _ = tables
    listing = sorted(os.listdir(tmp))
    assert release(d, tmp / "o.csv", "--type", declaration) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err
    assert sorted(os.listdir(tmp)) == listing


@pytest.mark.parametrize(
    "type_, rule, grid, words",
    [
        # the default: multiples of the round step 2 (25 / 16 = 1.5625, rounded up to 2)
        ("integer", [], list(range(16, 40, 2)), "the multiples of 2 inside the public bounds"),
        ("continuous:0.5", [], list(range(16, 40, 2)), "the multiples of 2 inside the public bounds"),
        (
            "integer",
            ["--numeric-grid", "log"],
            [17, 18, 20, 21, 23, 24, 26, 28, 29, 31, 32, 34, 35, 37, 38],  # 15 + 25 k / 16, rounded
            "16 equal-width",
        ),
        ("continuous:0.5", ["--numeric-grid", "equal"], [15 + 25 * k / 16 for k in range(1, 16)], "16 equal-width"),
    ],
)
def test_maxgddp_sidecar_names_its_split_grid_not_the_lattice(tables, type_, rule, grid, words):
    # MAXGDDP's split points come from the public grid (report-noisy-max), not from DiffGen's lattice
    tmp, d, _ = tables
    assert (
        main(
            [
                "release",
                "--data",
                str(d),
                "--class",
                "hired",
                "--classes",
                "N,Y",
                "--bounds",
                "age=15:40",
                "--type",
                f"age={type_}",
                "--algorithm",
                "maxgddp",
                "--epsilon",
                "4",
                "--steps",
                "3",
                *rule,
                "--out",
                str(tmp / "m.csv"),
            ]
        )
        == 0
    )
    entry, cut = age_entry(tmp / "m.json")
    assert entry["lattice"]["grid"] == grid and "lattice_points" not in entry["lattice"]
    assert "public grid" in entry["lattice"]["split_points"] and words in entry["lattice"]["split_points"]
    assert {lo for lo, _, _ in cut[1:]} <= set(grid)
