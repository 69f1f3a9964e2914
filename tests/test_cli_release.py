"""`dpstudio release` end to end, and every bad input: exit 2, one line, nothing written, inputs untouched."""

import hashlib
import json
import os

import pytest

from dpstudio.cli import main

ROWS = [
    ("China", 18, "N"),
    ("Korea", 21, "Y"),
    ("Canada", 27, "N"),
    ("USA", 35, "N"),
    ("USA", 29, "Y"),
    ("China", 39, "Y"),
    ("Korea", 22, "N"),
    ("China", 28, "N"),
] * 5


@pytest.fixture
def files(tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("country,age,hired\n" + "".join(f"{c},{a},{h}\n" for c, a, h in ROWS))
    tax = tmp_path / "country.csv"
    tax.write_text("China;Asian;Any\nKorea;Asian;Any\nCanada;American;Any\nUSA;American;Any\n")
    return tmp_path, data, tax


def args(data, tax, out, *extra, epsilon="1", steps="3"):
    a = [
        "release",
        "--data",
        str(data),
        "--class",
        "hired",
        "--classes",
        "N,Y",
        "--taxonomy",
        f"country={tax}",
        "--bounds",
        "age=15:40",
        "--algorithm",
        "diffgen-consistent",
        "--out",
        str(out),
    ]
    if epsilon is not None:
        a += ["--epsilon", epsilon]
    if steps is not None:
        a += ["--steps", steps]
    return a + list(extra)


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("algorithm", ["diffgen", "diffgen-consistent", "maxgddp"])
def test_release_writes_csv_and_sidecar(files, capsys, algorithm):
    tmp, data, tax = files
    out = tmp / "rel.csv"
    a = args(data, tax, out)
    a[a.index("--algorithm") + 1] = algorithm
    assert main(a) == 0
    header = out.read_text().splitlines()[0]
    assert header == "country,age,hired,count"
    meta = json.loads((tmp / "rel.json").read_text())
    assert meta["algorithm"] == algorithm and meta["not_a_release"] is False
    assert "leaf_to_label" in meta["cut"]["country"] and "intervals" in meta["cut"]["age"]
    assert meta["ledger"]["spent"] == "1" and meta["ledger"]["entries"]
    assert "wrote" in capsys.readouterr().out


def test_seed_marks_not_a_release(files, capsys):
    tmp, data, tax = files
    assert main(args(data, tax, tmp / "s.csv", "--seed", "5", "--consistency", "hay")) == 0
    meta = json.loads((tmp / "s.json").read_text())
    assert meta["not_a_release"] is True and meta["seed"] == 5
    assert meta["post_processing"][0]["method"] == "hay_generalized"
    assert "NOT A RELEASE" in capsys.readouterr().err


def test_leaves_out_unnamed_attributes_and_expands(files):
    tmp, data, tax = files
    a = [
        "release",
        "--data",
        str(data),
        "--class",
        "hired",
        "--classes",
        "N,Y",
        "--taxonomy",
        f"country={tax}",
        "--algorithm",
        "diffgen",
        "--epsilon",
        "2",
        "--steps",
        "2",
        "--out",
        str(tmp / "x.csv"),
        "--seed",
        "1",
        "--expand-records",
    ]
    assert main(a) == 0
    lines = (tmp / "x.csv").read_text().splitlines()
    assert lines[0] == "not_a_release,country,hired"


def _bad(files, capsys, argv, message, prepare=None):
    tmp, data, tax = files
    before = {p: digest(p) for p in (data, tax)}
    listing = sorted(os.listdir(tmp))
    code = main(argv)
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and message in err, err
    assert sorted(os.listdir(tmp)) == listing  # nothing written
    assert {p: digest(p) for p in (data, tax)} == before


@pytest.mark.parametrize(
    "epsilon, message",
    [
        (None, "--epsilon is missing"),
        ("0", "positive"),
        ("-1", "positive"),
        ("abc", "not a number"),
        ("inf", "finite"),
        ("nan", "not a number"),
    ],
)
def test_bad_epsilon(files, capsys, epsilon, message):
    tmp, data, tax = files
    _bad(files, capsys, args(data, tax, tmp / "o.csv", epsilon=epsilon), message)


def test_bad_steps(files, capsys):
    tmp, data, tax = files
    _bad(files, capsys, args(data, tax, tmp / "o.csv", steps="-2"), "--steps must be >= 0")
    _bad(files, capsys, args(data, tax, tmp / "o.csv", steps="x"), "--steps must be a whole number")


def test_missing_steps_are_chosen_from_epsilon_and_recorded(files, capsys):
    tmp, data, tax = files
    from dpstudio.algorithms.diffgen_auto import automatic_steps

    for eps in ("0.1", "1"):
        out = tmp / f"auto{eps}.csv"
        assert main(args(data, tax, out, "--budget-store", "none", epsilon=eps, steps=None)) == 0
        meta = json.loads(out.with_suffix(".json").read_text())
        h, reason = automatic_steps("diffgen-consistent", eps)
        assert meta["steps_choice"] == {"steps": h, "automatic": True, "reason": reason}
        assert meta["parameters"]["steps"] == h


def test_class_absent_or_single_valued(files, capsys):
    tmp, data, tax = files
    a = args(data, tax, tmp / "o.csv")
    a[a.index("--class") + 1] = "salary"
    _bad(files, capsys, a, "class attribute 'salary' is not a column")
    a = args(data, tax, tmp / "o.csv")
    a[a.index("--classes") + 1] = "N"
    _bad(files, capsys, a, "at least two public classes")


def test_value_not_covered_by_taxonomy(files, capsys):
    tmp, data, tax = files
    bad = tmp / "bad.csv"
    bad.write_text("country,age,hired\nChina,20,N\nMars,30,Y\nMars,31,N\n")
    _bad(files, capsys, args(bad, tax, tmp / "o.csv"), "'Mars' (2 rows)")


def test_numeric_outside_bounds(files, capsys):
    tmp, data, tax = files
    a = args(data, tax, tmp / "o.csv")
    a[a.index("--bounds") + 1] = "age=20:40"
    _bad(files, capsys, a, "outside the public bounds [20, 40]")


def test_empty_table(files, capsys):
    tmp, data, tax = files
    empty = tmp / "empty.csv"
    empty.write_text("country,age,hired\n")
    _bad(files, capsys, args(empty, tax, tmp / "o.csv"), "empty")


def test_output_exists_or_not_writable(files, capsys):
    tmp, data, tax = files
    existing = tmp / "there.csv"
    existing.write_text("old")
    _bad(files, capsys, args(data, tax, existing), "already exists")
    assert existing.read_text() == "old"
    _bad(files, capsys, args(data, tax, tmp / "no_such_dir" / "o.csv"), "does not exist")
    if os.geteuid() != 0:
        ro = tmp / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        try:
            _bad(files, capsys, args(data, tax, ro / "o.csv"), "not writable")
        finally:
            ro.chmod(0o700)
    assert main(args(data, tax, existing, "--overwrite")) == 0
    assert existing.read_text().startswith("country,age,hired,count")


def test_missing_files(files, capsys):
    tmp, data, tax = files
    _bad(files, capsys, args(tmp / "nope.csv", tax, tmp / "o.csv"), "data file not found")
    _bad(files, capsys, args(data, tmp / "nope.csv", tmp / "o.csv"), "taxonomy file for 'country' not found")


def test_missing_values_dropped_or_kept_as_category(files, capsys):
    tmp, data, tax = files
    holes = tmp / "holes.csv"
    holes.write_text("country,age,hired\n" + "".join(f"{c},{a},{h}\n" for c, a, h in ROWS) + "?,30,Y\n?,31,N\n")
    assert main(args(holes, tax, tmp / "d.csv", "--seed", "1")) == 0
    printed = capsys.readouterr()
    assert "dropped 2" not in printed.err + printed.out and " 42 " not in printed.err + printed.out  # data
    assert "dropped" not in (tmp / "d.json").read_text()
    # as a category: the taxonomy must cover "?"
    code = main(args(holes, tax, tmp / "k.csv", "--seed", "1", "--missing", "category"))
    assert code == 2 and "'?' (2 rows)" in capsys.readouterr().err
    tax2 = tmp / "country2.csv"
    tax2.write_text(tax.read_text() + "?;Unknown;Any\n")
    assert main(args(holes, tax2, tmp / "k.csv", "--seed", "1", "--missing", "category")) == 0
    meta = json.loads((tmp / "k.json").read_text())
    assert "?" in meta["cut"]["country"]["leaf_to_label"]


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_rows_left_out_for_missing_values_are_stated_never_counted(files, capsys, engine):
    """Issue 34 item 4: without --missing the rows with a missing value are left out, and the data owner is
    told on stderr (a rounded share, the columns, the other choice); the sidecar states the rule, the same
    for a table with and without such rows (no figure)."""
    tmp, data, tax = files
    holes = tmp / "holes.csv"
    body = "".join(f"{c},{a},{h}\n" for c, a, h in ROWS)
    holes.write_text("country,age,hired\n" + body + "?,30,Y\n?,31,N\n,32,N\n")  # 3 of 43 rows: 7 %
    assert main(args(holes, tax, tmp / "d.csv", "--seed", "1", "--engine", engine)) == 0
    err = capsys.readouterr().err
    assert "note: 7 % of the rows have a missing value in country and were left out" in err
    assert "--missing category keeps them" in err and " 3 " not in err and "43" not in err
    rule = json.loads((tmp / "d.json").read_text())["missing"]
    assert rule == {"rule": "drop", "words": "rows with a missing value in a released column were left out"}
    assert main(args(data, tax, tmp / "c.csv", "--seed", "1", "--engine", engine)) == 0
    assert "missing value" not in capsys.readouterr().err  # nothing left out: nothing said
    assert json.loads((tmp / "c.json").read_text())["missing"] == rule
    tax2 = tmp / "country2.csv"
    tax2.write_text(tax.read_text() + "?;Unknown;Any\n")
    assert main(args(holes, tax2, tmp / "k.csv", "--seed", "1", "--missing", "category", "--engine", engine)) == 0
    assert "left out" not in capsys.readouterr().err
    assert json.loads((tmp / "k.json").read_text())["missing"]["rule"] == "category"


def test_engine_options_reach_the_sidecar(files):
    tmp, data, tax = files
    a = args(
        data,
        tax,
        tmp / "o.csv",
        "--seed",
        "2",
        "--score",
        "infogain",
        "--score-scope",
        "pooled",
        "--no-round",
        "--no-clamp",
        "--node-budget",
        "path",
    )
    assert main(a) == 0
    meta = json.loads((tmp / "o.json").read_text())
    p = meta["parameters"]
    assert (p["score"], p["score_scope"], p["round_counts"], p["clamp_negative"], p["node_budget"]) == (
        "infogain",
        "pooled",
        False,
        False,
        "path",
    )
    assert [s["step"] for s in meta["post_processing"]] == ["consistency"]


@pytest.mark.parametrize(
    "grid, expected",
    [
        (None, [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]),
        ("equal", [500, 1000, 1500, 2000]),
        ("log", [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]),
        ("round", [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]),
    ],
)
def test_numeric_grid_option_chooses_maxgddps_split_grid(files, grid, expected):
    tmp, data, tax = files
    a = args(data, tax, tmp / "g.csv", "--seed", "1", "--grid-bins", "5", *(["--numeric-grid", grid] if grid else []))
    a[a.index("--algorithm") + 1] = "maxgddp"
    a[a.index("age=15:40")] = "age=0:2500"  # bounds that span three decades
    assert main(a) == 0
    meta = json.loads((tmp / "g.json").read_text())
    age = next(x for x in meta["attributes"] if x["name"] == "age")
    assert age["lattice"]["grid"] == expected
    assert meta["parameters"]["numeric_grid"] == (grid or "round")


@pytest.mark.parametrize(
    "grid, expected",
    [(None, [20, 25, 30, 35]), ("round", [20, 25, 30, 35]), ("log", [20, 25, 30, 35]), ("equal", [20, 25, 30, 35])],
)
def test_numeric_grid_below_three_decades(files, grid, expected):
    """age in [15, 40) with 5 bins: the round step is 5 (25 / 5); the equal-width bins are 5 wide too, so
    here the rules agree; with 6 bins (4.17 wide) they part: round 20, 25, 30, 35 against 19, 23, 28, 32, 36."""
    tmp, data, tax = files
    for bins, want in (("5", expected), ("6", expected if grid in (None, "round") else [19, 23, 28, 32, 36])):
        out = tmp / f"b{bins}.csv"
        a = args(data, tax, out, "--seed", "1", "--grid-bins", bins, *(["--numeric-grid", grid] if grid else []))
        a[a.index("--algorithm") + 1] = "maxgddp"
        assert main(a) == 0
        meta = json.loads(out.with_suffix(".json").read_text())
        age = next(x for x in meta["attributes"] if x["name"] == "age")
        assert age["lattice"]["grid"] == want, (grid, bins)


def test_numeric_grid_is_refused_for_diffgen(files, capsys):
    tmp, data, tax = files
    out = tmp / "d.csv"
    assert main(args(data, tax, out, "--numeric-grid", "equal")) == 2
    assert "--numeric-grid applies to --algorithm maxgddp only" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("algorithm", ["diffgen", "maxgddp"])
def test_count_share_flag_sets_the_counts_budget(files, algorithm):
    from fractions import Fraction

    tmp, data, tax = files
    out = tmp / "cs.csv"
    a = args(data, tax, out, "--seed", "2", "--count-share", "3/4", epsilon="2")
    a[a.index("--algorithm") + 1] = algorithm
    assert main(a) == 0
    meta = json.loads((tmp / "cs.json").read_text())
    # the sidecar states the split that ran as explicit shares, as the studio's and the API's do
    shares = meta["parameters"]
    given = sum(Fraction(f) for f in shares["selection_fractions"]) + Fraction(shares.get("split_fraction") or 0)
    assert 1 - given == Fraction(3, 4)
    entries = meta["ledger"]["entries"]
    counts = [Fraction(e["epsilon"]) for e in entries if e["step"].startswith("counts")]
    assert meta["ledger"]["spent"] == "2"
    if algorithm == "maxgddp":
        sel = [Fraction(e["epsilon"]) for e in entries if "choose a specialization" in e["step"]]
        assert sum(sel) == Fraction(1, 2) and counts == [Fraction(3, 2)]
    else:
        # h = 3, one numeric attribute: every call gets eps (1 - 3/4) / (1 + 2 * 3) = 1/14
        others = [e for e in entries if not e["step"].startswith("counts")]
        assert {Fraction(e["epsilon"]) for e in others} == {Fraction(1, 14)}
        charged = sum(1 for e in others if e.get("group") is None) + len(
            {(e["group"], e.get("block")) for e in others if e.get("group")}
        )
        assert charged <= 7 and counts == [2 - Fraction(charged, 14)] and counts[0] >= Fraction(3, 2)


@pytest.mark.parametrize("value", ["0", "1", "abc", "-0.2"])
def test_count_share_bad_values(files, capsys, value):
    tmp, data, tax = files
    out = tmp / "bad.csv"
    assert main(args(data, tax, out, "--count-share", value)) == 2
    assert "--count-share" in capsys.readouterr().err and not out.exists()


def test_count_share_and_tree_fraction_conflict(files, capsys):
    tmp, data, tax = files
    a = args(data, tax, tmp / "c.csv", "--count-share", "1/2", "--tree-fraction", "1/2")
    assert main(a) == 2 and "not both" in capsys.readouterr().err


def test_classes_are_required_and_a_record_outside_them_is_refused(files, capsys):
    tmp, data, tax = files
    a = args(data, tax, tmp / "o.csv")
    i = a.index("--classes")
    _bad(files, capsys, a[:i] + a[i + 2 :], "--classes is missing")
    b = args(data, tax, tmp / "o.csv")
    b[b.index("--classes") + 1] = "N,Maybe"
    n_yes = sum(h == "Y" for _, _, h in ROWS)
    _bad(files, capsys, b, f"'hired': {n_yes} rows hold a value outside the public classes ('Y')")


def test_a_declared_class_without_records_is_released_in_every_partition(files):
    """The release lists exactly the public classes, in their order, empty cells kept."""
    tmp, data, tax = files
    listed = tmp / "classes.txt"
    listed.write_text("Y\nMaybe\n\nN\n")
    a = args(data, tax, tmp / "o.csv", "--seed", "3")
    i = a.index("--classes")
    a[i : i + 2] = ["--classes-file", str(listed)]
    assert main(a) == 0
    meta = json.loads((tmp / "o.json").read_text())
    assert meta["classes"] == ["Y", "Maybe", "N"]
    import csv

    rows = list(csv.DictReader((tmp / "o.csv").open()))
    assert [r["hired"] for r in rows] == ["Y", "Maybe", "N"] * meta["leaf_partitions"]


def test_seed_marks_every_csv_row_and_evaluate_still_reads_it(files, capsys):
    tmp, data, tax = files
    assert main(args(data, tax, tmp / "s.csv", "--seed", "7")) == 0
    import csv

    rows = list(csv.reader((tmp / "s.csv").open()))
    assert rows[0] == ["not_a_release", "country", "age", "hired", "count"]
    assert {r[0] for r in rows[1:]} == {"simulation noise, seed 7"}
    capsys.readouterr()
    assert main(["evaluate", "--release", str(tmp / "s.csv"), "--query", "country=Asian"]) == 0
    assert "not a release" in capsys.readouterr().out


@pytest.mark.parametrize("algorithm", ["diffgen", "maxgddp"])
def test_leaf_only_release_projects_by_default_and_clamps_on_request(files, algorithm):
    tmp, data, tax = files
    steps = {}
    for name, extra in (("p", ()), ("c", ("--post-processing", "clamp"))):
        a = args(data, tax, tmp / f"{name}.csv", "--seed", "3", *extra)
        a[a.index("--algorithm") + 1] = algorithm
        assert main(a) == 0
        steps[name] = [s["step"] for s in json.loads((tmp / f"{name}.json").read_text())["post_processing"]]
    assert steps["p"] == ["projection", "rounding"]
    assert steps["c"][-1] == "clamping" and "projection" not in steps["c"]
