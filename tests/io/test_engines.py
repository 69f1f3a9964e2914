"""The data engines (numpy, DuckDB, Spark): the same release byte for byte with --seed, the same budget-store
fingerprint, the same one-line input errors, progress and cancel. Spark tests skip (with the reason) when
pyspark or Java is missing."""

import gzip
import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpstudio.cli import main
from dpstudio.io import engines
from dpstudio.io.dataset_fingerprint import table_print
from dpstudio.io.datasets import Cancelled, load_table
from dpstudio.io.engines.source import describe

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "dpstudio" / "resources" / "samples" / "adult.csv.gz"
TAX = ROOT / "dpstudio" / "resources" / "taxonomies" / "adult"

duckdb = pytest.importorskip("duckdb")


def adult_files(folder: Path, rows: int = 4000) -> tuple[Path, Path]:
    """The first rows of the bundled Adult sample as CSV (", "-separated, '?' for missing, as adult.data
    is written) and as Parquet (typed columns)."""
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as fh:
        lines = [next(fh) for _ in range(rows + 1)]
    frame = pd.read_csv(SAMPLE, nrows=rows)
    frame.loc[::97, "workclass"] = "?"  # missing values, dropped (or kept) the same way by every engine
    csv = folder / "adult.csv"
    csv.write_text(
        lines[0].replace(",", ", ")
        + "".join(", ".join(str(v) for v in row) + "\n" for row in frame.itertuples(index=False))
    )
    parquet = folder / "adult.parquet"
    frame.to_parquet(parquet, index=False)
    return csv, parquet


def release_argv(data, out, engine, *extra, algorithm="maxgddp"):
    return [
        "release",
        "--data",
        str(data),
        "--class",
        "Y",
        "--classes",
        "<=50K,>50K",
        "--taxonomy",
        f"workclass={TAX / 'workclass.csv'}",
        "--taxonomy",
        f"education={TAX / 'education.csv'}",
        "--taxonomy",
        f"marital-status={TAX / 'marital-status.csv'}",
        "--taxonomy",
        f"sex={TAX / 'sex.csv'}",
        "--bounds",
        "age=17:91",
        "--bounds",
        "hours-per-week=1:100",
        "--type",
        "age=integer",
        "--algorithm",
        algorithm,
        "--epsilon",
        "1",
        "--steps",
        "8",
        "--seed",
        "11",
        "--out",
        str(out),
        "--budget-store",
        "none",
        "--engine",
        engine,
        *extra,
    ]


def run(argv, capsys):
    code = main([str(a) for a in argv])
    return code, capsys.readouterr()


def outputs(out: Path) -> tuple[bytes, bytes]:
    return out.read_bytes(), out.with_suffix(".json").read_bytes()


@pytest.fixture(scope="module")
def adult(tmp_path_factory):
    return adult_files(tmp_path_factory.mktemp("adult"))


@pytest.mark.parametrize(
    "algorithm,extra",
    [("maxgddp", []), ("diffgen-consistent", ["--score", "infogain"]), ("diffgen", ["--missing", "category"])],
)
def test_duckdb_release_is_byte_identical_to_numpy(adult, tmp_path, capsys, algorithm, extra):
    csv, parquet = adult
    if "--missing" in extra:  # "?" kept as a value: the taxonomy must cover it
        extra = extra + ["--taxonomy", f"workclass={_with_question_mark(tmp_path)}"]
    got = {}
    for name, data, engine in (
        ("numpy", csv, "numpy"),
        ("duckdb", csv, "duckdb"),
        ("duckdb-parquet", parquet, "duckdb"),
        ("numpy-parquet", parquet, "numpy"),
    ):
        out = tmp_path / f"{name}.csv"
        argv = release_argv(data, out, engine, algorithm=algorithm)
        if "--missing" in extra:
            i = argv.index(f"workclass={TAX / 'workclass.csv'}")
            argv = argv[: i - 1] + argv[i + 1 :]
        code, cap = run(argv + extra, capsys)
        assert code == 0, cap.err
        got[name] = outputs(out)
    assert got["duckdb"] == got["numpy"]
    assert got["duckdb-parquet"] == got["numpy-parquet"]
    assert got["numpy"][0].count(b"\n") > 20  # a real release, not an empty one


def _with_question_mark(folder: Path) -> Path:
    """The workclass taxonomy with "?" (a missing value kept as a category) as one more leaf."""
    tax = folder / "workclass_q.csv"
    tax.write_text((TAX / "workclass.csv").read_text().rstrip("\n") + "\n?;Unknown;*\n")
    return tax


def test_duckdb_fingerprint_is_the_numpy_engines(adult):
    for path in adult:
        with engines.open_engine("duckdb") as eng:
            assert eng.table_print(describe(path)) == table_print(load_table(path).frame)


def test_duckdb_fingerprint_of_a_neighbour_differs(adult, tmp_path):
    csv, _ = adult
    lines = csv.read_text().splitlines(keepends=True)
    shuffled = tmp_path / "shuffled.csv"
    shuffled.write_text(lines[0] + "".join(reversed(lines[1:])))
    neighbour = tmp_path / "neighbour.csv"
    neighbour.write_text("".join(lines[:-1]))
    doubled = tmp_path / "doubled.csv"  # every record twice: identical rows are hashed once, counted twice
    doubled.write_text(lines[0] + "".join(lines[1:]) * 2)
    with engines.open_engine("duckdb") as eng:
        base = eng.table_print(describe(csv))
        assert eng.table_print(describe(shuffled)) == base
        assert eng.table_print(describe(neighbour)).fingerprint != base.fingerprint
        twice = eng.table_print(describe(doubled))
    assert twice == table_print(load_table(doubled).frame) and twice.fingerprint != base.fingerprint


@pytest.mark.parametrize(
    "bad,message",
    [
        (("Private", "Martian"), "Martian"),  # a value outside the workclass taxonomy
        (("39, ", "150, "), "outside the public bounds"),
        ((">50K", "rich"), "outside the public classes"),
    ],
)
def test_input_errors_are_the_same_line_with_every_engine(adult, tmp_path, capsys, bad, message):
    csv, _ = adult
    text = csv.read_text()
    head, body = text.split("\n", 1)
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text(head + "\n" + body.replace(bad[0], bad[1]))  # many records changed: a count > 1
    errs = []
    for engine in ("numpy", "duckdb"):
        out = tmp_path / f"{engine}.csv"
        code, cap = run(release_argv(bad_csv, out, engine), capsys)
        assert code == 2 and not out.exists() and not out.with_suffix(".json").exists()
        assert message in cap.err and len(cap.err.strip().splitlines()) == 1
        errs.append(cap.err)
    assert errs[0] == errs[1]


def test_auto_engine_is_numpy_for_small_files_and_duckdb_above_the_threshold(adult, monkeypatch):
    csv, _ = adult
    assert engines.choose_engine("auto", csv) == "numpy"
    assert engines.choose_engine("spark", csv) == "spark"
    monkeypatch.setattr(engines, "AUTO_BYTES", csv.stat().st_size - 1)
    assert engines.choose_engine("auto", csv) == "duckdb"
    with pytest.raises(engines.EngineError):
        engines.choose_engine("pandas", csv)


def test_spark_master_without_spark_and_a_workbook_for_duckdb_are_refused(adult, tmp_path, capsys):
    csv, _ = adult
    code, cap = run(release_argv(csv, tmp_path / "o.csv", "duckdb", "--spark-master", "local[1]"), capsys)
    assert code == 2 and "--spark-master goes with --engine spark" in cap.err
    book = tmp_path / "adult.xlsx"
    load_table(csv).frame.head(50).to_excel(book, index=False)
    code, cap = run(release_argv(book, tmp_path / "o.csv", "duckdb"), capsys)
    assert code == 2 and "--engine numpy" in cap.err and not (tmp_path / "o.csv").exists()


def test_duckdb_reports_progress_and_cancels_a_running_query():
    calls = []

    def progress(fraction, what):
        calls.append((fraction, what))
        return len(calls) < 2  # cancel on the second report

    with engines.open_engine("duckdb") as eng:
        with pytest.raises(Cancelled):
            eng.watched(lambda: eng.frame("SELECT sum(i * i) FROM range(100000000000) t(i)"), progress, "a long sum")
        assert len(calls) == 2 and all(0.0 <= f <= 1.0 for f, _ in calls)
        assert eng.frame("SELECT 41 + 1 AS x")["x"].iloc[0] == 42  # the connection still works


def test_group_counts_are_the_records_per_distinct_value(adult):
    csv, _ = adult
    frame = load_table(csv).frame
    with engines.open_engine("duckdb") as eng:
        got, counts = eng.group_counts(describe(csv), ["sex", "Y"])
    assert int(counts.sum()) == len(frame)
    want = frame.groupby(["sex", "Y"]).size()
    assert {(s, y): int(n) for s, y, n in zip(got["sex"], got["Y"], counts)} == {k: int(v) for k, v in want.items()}


# -- Spark --------------------------------------------------------------------------------------------------
def _spark_skip_reason():
    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (pip install '.[spark]')"
    if shutil.which("java") is None:
        return "Java is missing (Spark needs Java 17)"
    return None


@pytest.fixture(scope="module")
def spark_session():
    reason = _spark_skip_reason()
    if reason:
        pytest.skip(reason)
    eng = engines.open_engine("spark", "local[2]")  # one JVM for the module; the CLI runs reuse it
    yield eng
    eng._owns = True
    eng.close()


def test_spark_release_fingerprint_and_cancel(spark_session, adult, tmp_path, capsys):
    csv, _ = adult  # Parquet goes through the same SQL (and is covered with DuckDB); Spark starts slowly
    for data in (csv,):
        outs = []
        for engine in ("numpy", "spark"):
            out = tmp_path / f"{engine}-{data.suffix[1:]}.csv"
            code, cap = run(release_argv(data, out, engine), capsys)
            assert code == 0, cap.err
            outs.append(outputs(out))
        assert outs[0] == outs[1]
        assert spark_session.table_print(describe(data)) == table_print(load_table(data).frame)
    seen = []

    def progress(fraction, what):
        seen.append(fraction)
        return False

    with pytest.raises(Cancelled):
        spark_session.watched(
            lambda: spark_session.frame("SELECT sum(id * id) FROM range(100000000000)"), progress, "a long sum"
        )
    assert seen and 0.0 <= seen[0] <= 1.0
    assert spark_session.frame("SELECT 41 + 1 AS x")["x"].iloc[0] == 42


@pytest.mark.parametrize(
    "extra",
    [
        ["--column", "age", "--edges", "17:91:2", "--algorithm", "hb"],
        [
            "--column",
            "workclass",
            "--drop-missing",
            "--categories",
            "Private,Self-emp-not-inc,Self-emp-inc,Federal-gov,Local-gov,State-gov,Without-pay,Never-worked",
        ],
    ],
    ids=["edges", "categories"],
)
def test_duckdb_histogram_is_byte_identical_to_numpy(adult, tmp_path, capsys, extra):
    csv, _ = adult
    got = []
    for engine in ("numpy", "duckdb"):
        out = tmp_path / f"{engine}.csv"
        code, cap = run(
            [
                "histogram",
                "--data",
                csv,
                "--epsilon",
                "1",
                "--seed",
                "5",
                "--out",
                out,
                "--budget-store",
                "none",
                "--engine",
                engine,
                *extra,
            ],
            capsys,
        )
        assert code == 0, cap.err
        sidecar = json.loads(out.with_suffix(".json").read_text())
        sidecar.pop("created_utc")  # the time of writing
        got.append((out.read_bytes(), sidecar))
    assert got[0] == got[1]


def test_duckdb_histogram_input_errors_and_budget_fingerprint_match_numpy(adult, tmp_path, capsys):
    csv, _ = adult
    errs = []
    for engine in ("numpy", "duckdb"):  # missing workclass values without --drop-missing: the same line
        code, cap = run(
            [
                "histogram",
                "--data",
                csv,
                "--column",
                "workclass",
                "--categories",
                "Private,x",
                "--epsilon",
                "1",
                "--out",
                tmp_path / "o.csv",
                "--engine",
                engine,
            ],
            capsys,
        )
        assert code == 2 and not (tmp_path / "o.csv").exists()
        errs.append(cap.err)
    assert errs[0] == errs[1] and "rows have a missing value" in errs[0]
    store = tmp_path / "store.sqlite"
    for i, engine in enumerate(("numpy", "duckdb")):  # one dataset in the store: both charge it
        code, cap = run(
            [
                "histogram",
                "--data",
                csv,
                "--column",
                "age",
                "--edges",
                "17:91:2",
                "--epsilon",
                "0.5",
                "--out",
                tmp_path / f"h{i}.csv",
                "--budget-store",
                store,
                "--dataset-budget",
                "1",
                "--engine",
                engine,
            ],
            capsys,
        )
        assert code == 0, cap.err
    code, cap = run(
        [
            "histogram",
            "--data",
            csv,
            "--column",
            "age",
            "--edges",
            "17:91:2",
            "--epsilon",
            "0.5",
            "--out",
            tmp_path / "h3.csv",
            "--budget-store",
            store,
            "--engine",
            "duckdb",
        ],
        capsys,
    )
    assert code == 2 and not (tmp_path / "h3.csv").exists()  # the lifetime budget is spent whichever engine


@pytest.mark.parametrize("added", [("China", 33, "Maybe"), ("?", 33, "N")], ids=["unseen-class", "missing-value"])
def test_duckdb_release_metadata_is_the_same_for_neighbouring_tables(tmp_path, added):
    """Secure noise, D and D + one record read by DuckDB: the same non-noisy metadata (as with numpy,
    tests/test_cli_neighbours.py), and no exact count in any artefact."""
    from tests.cli_outputs import assert_no_exact_counts, owner_notes, report_structure, run_writer, without
    from tests.test_cli_neighbours import (
        RELEASE_MECHANISM_OUTPUTS,
        mask_mechanism_outputs,
        release_argv,
        table_rows,
        write_table,
    )

    rows = table_rows(300)
    write_table(tmp_path / "d", rows)
    write_table(tmp_path / "d1", rows + [added])
    a, b = (
        run_writer(tmp_path / name, release_argv("maxgddp") + ["--engine", "duckdb"], report="out.html")
        for name in ("d", "d1")
    )
    assert without(a.sidecar, RELEASE_MECHANISM_OUTPUTS) == without(b.sidecar, RELEASE_MECHANISM_OUTPUTS)
    assert report_structure(a.report) == report_structure(b.report)
    notes, rest = owner_notes(b.stderr)  # the rounded share of rows left out, for the data owner
    assert len(notes) == (added[0] == "?") and all("under 1 % of the rows" in n for n in notes)
    assert a.stderr == rest and mask_mechanism_outputs(a.stdout) == mask_mechanism_outputs(b.stdout)
    assert_no_exact_counts(b, {"rows": len(rows) + 1, **{f"class {k}": sum(r[2] == k for r in rows) for k in "NY"}})


def test_duckdb_histogram_metadata_is_the_same_for_neighbouring_tables(tmp_path):
    from tests.cli_outputs import run_writer, without
    from tests.test_cli_neighbours import HISTOGRAM_VARYING, table_rows

    values = [str(a) for _, a, _ in table_rows(300)]
    for name, column in (("d", values), ("d1", values + ["?"])):
        (tmp_path / name).mkdir()
        (tmp_path / name / "d.csv").write_text("age\n" + "\n".join(column) + "\n")
    argv = [
        "histogram",
        "--data",
        "d.csv",
        "--column",
        "age",
        "--edges",
        "0:100:10",
        "--drop-missing",
        "--algorithm",
        "hb",
        "--epsilon",
        "1",
        "--out",
        "out.csv",
        "--engine",
        "duckdb",
    ]
    a, b = (run_writer(tmp_path / name, argv) for name in ("d", "d1"))
    assert [r[:3] for r in a.rows] == [r[:3] for r in b.rows] and a.rows[0] == ["bin", "lo", "hi", "count"]
    assert without(a.sidecar, HISTOGRAM_VARYING) == without(b.sidecar, HISTOGRAM_VARYING)
    assert a.stdout == b.stdout and a.stderr == b.stderr


# -- the three engines print alike on the values pandas and SQL parse differently (issue 34 item 5) -----------
ODD_COLUMNS = {
    "bool": ["true", "false", "true", "?"],
    "bool_caps": ["True", "FALSE", "true", "false"],
    "inf": ["inf", "1.5", "-inf", "2"],
    "Infinity": ["Infinity", "1", "2", "3"],
    "nan_in_numbers": ["1", "NaN", "2", "3"],
    "nan_in_text": ["x", "NaN", "y", "z"],
    "underscore": ["1_000", "2", "3", "4"],
    "hex": ["0x10", "1", "2", "3"],
    "exponent": ["1e3", "2", "+3", "4."],
    "big": ["12345678901234567890", "1", "2", "-0"],
    "spaces": [" 1", "2 ", " 3 ", "?"],
    "mixed": ["1", "a", "2", ""],
}


def _odd_files(tmp_path):
    csv = tmp_path / "odd.csv"
    pd.DataFrame({"k": ["a", "b", "c", "d"], **ODD_COLUMNS}).to_csv(csv, index=False)
    parquet = tmp_path / "odd.parquet"
    pd.DataFrame(
        {"k": list("abcd"), "b": [True, False, True, None], "f": [1.5, np.inf, 2.0, -np.inf], "g": [1.0, np.nan, 2, 3]}
    ).to_parquet(parquet)
    return csv, parquet


#: DuckDB's two ways to the print (``DuckDBEngine.print_rows``): the raw distinct rows grouped first (a file
#: that repeats its records), or the file itself (every row distinct); both must give the numpy print
BOTH_PATHS = pytest.mark.parametrize("repeats", [1, 10**9], ids=["grouped-first", "direct"])


@BOTH_PATHS
@pytest.mark.parametrize("column", list(ODD_COLUMNS))
def test_duckdb_prints_each_odd_column_as_numpy_does(tmp_path, column, repeats, monkeypatch):
    """true/false, infinities, NaN and 1_000 used to print differently (or fail) through DuckDB."""
    monkeypatch.setattr("dpstudio.io.engines.duckdb_engine.REPEATS", repeats)
    path = tmp_path / f"{column}.csv"
    pd.DataFrame({"k": list("abcd"), column: ODD_COLUMNS[column]}).to_csv(path, index=False)
    with engines.open_engine("duckdb") as eng:
        assert eng.table_print(describe(path)) == table_print(load_table(path).frame)


@BOTH_PATHS
def test_duckdb_prints_native_booleans_and_infinities_as_numpy_does(tmp_path, repeats, monkeypatch):
    monkeypatch.setattr("dpstudio.io.engines.duckdb_engine.REPEATS", repeats)
    _csv, parquet = _odd_files(tmp_path)
    with engines.open_engine("duckdb") as eng:
        assert eng.table_print(describe(parquet)) == table_print(load_table(parquet).frame)


def test_spark_prints_the_odd_columns_as_numpy_does(spark_session, tmp_path):
    for path in _odd_files(tmp_path):
        assert spark_session.table_print(describe(path)) == table_print(load_table(path).frame), path.name


@BOTH_PATHS
def test_rows_that_differ_only_in_spaces_or_missing_tokens_are_one_row_to_every_engine(tmp_path, repeats, monkeypatch):
    """The engines group the raw values first and clean them after (``sql.distinct_rows``): rows that
    differ only in spaces or in which missing token they hold must still merge into one distinct row, as
    pandas reads them, in the print (its distinct-rows part too) and in the release's counts."""
    monkeypatch.setattr("dpstudio.io.engines.duckdb_engine.REPEATS", repeats)
    path = tmp_path / "spaces.csv"
    path.write_text("k,v\na,1\n a,1\na , 1\nb,?\nb,\nb, ?\nc,2\n")
    loaded = load_table(path).frame
    with engines.open_engine("duckdb") as eng:
        assert eng.table_print(describe(path)) == table_print(loaded)
        rows, counts = eng.group_counts(describe(path), ["k", "v"])
    merged = {(r.k, None if pd.isna(r.v) else r.v): int(n) for r, n in zip(rows.itertuples(), counts)}
    assert merged == {("a", "1"): 3, ("b", None): 3, ("c", "2"): 1}


def test_a_column_named_like_the_engines_weight_is_refused_in_one_line(tmp_path):
    path = tmp_path / "weight.csv"
    path.write_text("k,dpstudio_weight\na,1\n")
    with engines.open_engine("duckdb") as eng, pytest.raises(engines.EngineError, match="cannot be read"):
        eng.table_print(describe(path))
