"""load_table: formats, sniffing, header detection, types, missing values, errors, progress."""

import csv
import gzip
import hashlib
import string

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpstudio.io import dataset_sniff as sniff
from dpstudio.io.datasets import (
    CATEGORICAL,
    NUMERIC,
    Cancelled,
    DatasetError,
    load_table,
)

ROWS = [
    ["39", "State-gov", "Bachelors", "<=50K"],
    ["50", "?", "Bachelors", "<=50K"],
    ["38", "Private", "HS-grad", ">50K"],
    ["53", "Private", "", "<=50K"],
    ["28", "Private", "Bachelors", ">50K"],
]
NAMES = ["age", "workclass", "education", "class"]


def write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding))
    return path


def table_text(sep, header=True, rows=ROWS, names=NAMES):
    lines = ([sep.join(names)] if header else []) + [sep.join(r) for r in rows]
    return "\n".join(lines) + "\n"


# --- Adult, the reference file ------------------------------------------------------------------------


def test_adult_data_shape_types_and_missing(shared_data):
    ds = load_table(shared_data / "adult" / "adult.data")
    assert ds.frame.shape == (32561, 15)
    assert ds.header is True and ds.separator == ", " and ds.encoding == "utf-8"
    assert ds.columns[:3] == ["age", "workclass", "fnlwgt"] and ds.columns[-1] == "Y"
    assert ds.numeric_columns() == [
        "age",
        "fnlwgt",
        "education-num",
        "capital-gain",
        "capital-loss",
        "hours-per-week",
    ]
    report = ds.missing_report()
    assert report.complete_rows == 30162 and report.rows_with_missing == 2399
    # independent count straight from the text
    lines = (shared_data / "adult" / "adult.data").read_text().splitlines()[1:]
    cells = [[c.strip() for c in line.split(",")] for line in lines if line]
    for j, name in enumerate(ds.columns):
        assert report.per_column[name] == sum(row[j] == "?" for row in cells)
    assert ds.frame["age"].iloc[0] == 39 and ds.frame["workclass"].iloc[0] == "State-gov"
    assert not any(str(v).startswith(" ") for v in ds.frame["workclass"].dropna().unique())
    dropped, n = ds.drop_missing()
    assert (len(dropped), n) == (30162, 2399)
    assert dropped.frame["age"].dtype == np.int64
    assert dropped.missing_report().rows_with_missing == 0
    assert ds.sha256 == hashlib.sha256((shared_data / "adult" / "adult.data").read_bytes()).hexdigest()


# --- separators and headers ---------------------------------------------------------------------------


@pytest.mark.parametrize("sep", [",", ";", "\t", "|", ", "])
def test_separator_is_sniffed(tmp_path, sep):
    ds = load_table(write(tmp_path / "t.csv", table_text(sep)))
    assert ds.separator == sep
    assert ds.columns == NAMES
    assert ds.frame["age"].tolist() == [39, 50, 38, 53, 28]
    assert ds.frame["education"].tolist()[:3] == ["Bachelors", "Bachelors", "HS-grad"]


def test_semicolon_file_with_commas_inside_values(tmp_path):
    rows = [["a,b", "1"], ["c", "2"], ["d,e,f", "3"]]
    ds = load_table(write(tmp_path / "t.csv", table_text(";", rows=rows, names=["x", "n"])))
    assert ds.separator == ";" and ds.frame["x"].tolist() == ["a,b", "c", "d,e,f"]


def test_explicit_separator(tmp_path):
    ds = load_table(write(tmp_path / "t.txt", table_text("|")), sep="|")
    assert ds.columns == NAMES
    with pytest.raises(DatasetError, match="not supported"):
        load_table(tmp_path / "t.txt", sep="||")


def test_no_header_gives_col_names(tmp_path):
    ds = load_table(write(tmp_path / "t.csv", table_text(",", header=False)))
    assert ds.header is False
    assert ds.columns == ["col1", "col2", "col3", "col4"]
    assert len(ds) == 5 and ds.types["col1"] == NUMERIC


def test_all_text_table_header_detection(tmp_path):
    rows = [["red", "small"], ["blue", "large"], ["red", "large"]]
    with_header = load_table(write(tmp_path / "h.csv", table_text(",", rows=rows, names=["colour", "size"])))
    assert with_header.columns == ["colour", "size"] and len(with_header) == 3
    # first row repeats values found below it: data, not names
    without = load_table(write(tmp_path / "n.csv", table_text(",", header=False, rows=rows + [["blue", "small"]])))
    assert without.columns == ["col1", "col2"] and len(without) == 4


def test_header_can_be_forced(tmp_path):
    path = write(tmp_path / "t.csv", table_text(",", header=False))
    forced = load_table(path, header=True)
    assert forced.columns == ROWS[0] and len(forced) == 4
    path2 = write(tmp_path / "t2.csv", table_text(","))
    as_data = load_table(path2, header=False)
    assert len(as_data) == 6 and as_data.frame["col1"].iloc[0] == "age"
    assert as_data.types["col1"] == CATEGORICAL


def test_quoted_fields_and_crlf(tmp_path):
    text = 'name,note,n\r\n"Smith, J","said ""hi""",1\r\nLee,plain,2\r\n'
    ds = load_table(write(tmp_path / "q.csv", text))
    assert ds.frame["name"].tolist() == ["Smith, J", "Lee"]
    assert ds.frame["note"].tolist() == ['said "hi"', "plain"]
    assert ds.frame["n"].tolist() == [1, 2]


def test_utf8_bom_and_non_ascii_text(tmp_path):
    path = tmp_path / "b.csv"
    path.write_bytes("\ufeffstadt,n\nZürich,1\nGenève,2\n".encode("utf-8"))
    ds = load_table(path)
    assert ds.columns == ["stadt", "n"] and ds.frame["stadt"].tolist() == ["Zürich", "Genève"]


def test_other_encoding_when_asked(tmp_path):
    path = write(tmp_path / "l.csv", "stadt,n\nZürich,1\nGenève,2\n", encoding="latin-1")
    assert load_table(path, encoding="latin-1").frame["stadt"].tolist() == ["Zürich", "Genève"]


def test_utf16_when_asked(tmp_path):
    path = write(tmp_path / "w.csv", "stadt,n\nZürich,1\nGenève,2\n", encoding="utf-16")
    with pytest.raises(DatasetError, match="is UTF-16 text.*encoding='utf-16'"):
        load_table(path)
    ds = load_table(path, encoding="utf-16")
    assert ds.columns == ["stadt", "n"] and ds.frame["stadt"].tolist() == ["Zürich", "Genève"]
    with pytest.raises(DatasetError, match="line 3: 1 field"):
        load_table(write(tmp_path / "r.csv", "a,b\n1,2\n3\n", encoding="utf-16"), encoding="utf-16")


def test_gzip_is_read_transparently(tmp_path):
    text = table_text(", ")
    path = tmp_path / "t.csv.gz"
    path.write_bytes(gzip.compress(text.encode()))
    plain = load_table(write(tmp_path / "t.csv", text))
    zipped = load_table(path)
    pd.testing.assert_frame_equal(zipped.frame, plain.frame)
    assert zipped.sha256 == hashlib.sha256(path.read_bytes()).hexdigest() != plain.sha256


def test_file_without_final_newline_and_blank_lines(tmp_path):
    ds = load_table(write(tmp_path / "t.csv", "a,b\n1,x\n\n2,y\n\n3,z"))
    assert ds.frame["a"].tolist() == [1, 2, 3]


# --- types --------------------------------------------------------------------------------------------


def test_inferred_types_and_float_column(tmp_path):
    ds = load_table(write(tmp_path / "t.csv", "x,y,z\n1.5,a,1\n2,b,?\n-3e2,c,4\n"))
    assert ds.types == {"x": NUMERIC, "y": CATEGORICAL, "z": NUMERIC}
    assert ds.frame["x"].tolist() == [1.5, 2.0, -300.0]
    assert ds.frame["z"].isna().tolist() == [False, True, False]


def test_infinity_is_not_a_number(tmp_path):
    ds = load_table(write(tmp_path / "t.csv", "a,b\ninf,1\n-inf,2\n5,3\n"))
    assert ds.kind("a") == CATEGORICAL and ds.frame["a"].tolist() == ["inf", "-inf", "5"]
    assert ds.numeric_problems("a") == {"inf": 1, "-inf": 1}


def test_set_type_numeric_reports_bad_values(tmp_path):
    text = "code,v\n10,a\n20,b\nn/a,c\n30,d\nn/a,e\nunknown,f\n?,g\n"
    ds = load_table(write(tmp_path / "t.csv", text))
    assert ds.kind("code") == CATEGORICAL
    assert ds.numeric_problems("code") == {"n/a": 2, "unknown": 1}
    assert ds.kind("code") == CATEGORICAL  # looking changes nothing
    change = ds.set_type("code", NUMERIC)
    assert change.unconvertible == {"n/a": 2, "unknown": 1} and change.n_unconvertible == 3
    assert ds.kind("code") == NUMERIC
    values = ds.frame["code"].tolist()
    assert values[:2] == [10.0, 20.0] and np.isnan(values[2]) and values[3] == 30.0
    assert ds.missing_report().per_column["code"] == 4  # 3 unconvertible + the original '?'
    assert "became missing" in ds.history[-1]


def test_set_type_categorical_and_back(tmp_path):
    ds = load_table(write(tmp_path / "t.csv", "n,c\n1,a\n2,b\n?,c\n2,d\n"))
    ds.set_type("n", CATEGORICAL)
    assert ds.frame["n"].tolist()[:2] == ["1", "2"] and ds.frame["n"].isna().sum() == 1
    assert ds.categories("n") == ["1", "2"]
    ds.set_type("n", NUMERIC)
    assert ds.frame["n"].tolist()[:2] == [1.0, 2.0]
    with pytest.raises(DatasetError, match="unknown column kind"):
        ds.set_type("n", "date")
    with pytest.raises(DatasetError, match="no column named 'x'"):
        ds.set_type("x", NUMERIC)


def test_types_at_load_keep_leading_zeros(tmp_path):
    path = write(tmp_path / "z.csv", "zip,n\n00501,1\n10001,2\n")
    assert load_table(path).frame["zip"].tolist() == [501, 10001]
    kept = load_table(path, types={"zip": CATEGORICAL})
    assert kept.frame["zip"].tolist() == ["00501", "10001"] and kept.kind("zip") == CATEGORICAL
    with pytest.raises(DatasetError, match="asked to be numeric"):
        load_table(write(tmp_path / "w.csv", "a,b\nx,1\ny,2\n"), types={"a": NUMERIC})
    with pytest.raises(DatasetError, match="unknown columns"):
        load_table(path, types={"nope": NUMERIC})


# --- missing values -----------------------------------------------------------------------------------


def test_missing_report_and_drop(tmp_path):
    ds = load_table(write(tmp_path / "t.csv", table_text(",")))
    report = ds.missing_report()
    assert report.per_column == {"age": 0, "workclass": 1, "education": 1, "class": 0}
    assert report.rows_with_missing == 2 and report.complete_rows == 3 and report.any
    dropped, n = ds.drop_missing()
    assert n == 2 and dropped.frame["age"].tolist() == [39, 38, 28]
    assert dropped.sha256 == ds.sha256 and len(ds) == 5  # the original is unchanged


def test_custom_missing_tokens(tmp_path):
    ds = load_table(write(tmp_path / "t.csv", "a,b\nNA,x\n1,-\n2,y\n"), missing=("NA", "-"))
    assert ds.missing_report().per_column == {"a": 1, "b": 1}
    assert ds.kind("a") == NUMERIC


def test_missing_as_category(tmp_path):
    ds = load_table(write(tmp_path / "t.csv", table_text(",")))
    filled = ds.missing_as_category()
    assert filled.frame["workclass"].tolist()[1] == "Missing"
    assert filled.frame["education"].tolist()[3] == "Missing"
    assert filled.missing_report().rows_with_missing == 0
    assert "Missing" in filled.categories("workclass")
    other = ds.missing_as_category("(unknown)")
    assert other.frame["workclass"].iloc[1] == "(unknown)"
    assert ds.missing_report().rows_with_missing == 2


def test_missing_as_category_refuses_numeric_and_clashing_label(tmp_path):
    ds = load_table(write(tmp_path / "t.csv", "age,w\n39,a\n?,b\n40,?\n"))
    with pytest.raises(DatasetError, match=r"numeric column.*'age' \(1 missing\).*drop the rows"):
        ds.missing_as_category()
    ds2 = load_table(write(tmp_path / "t2.csv", "w,n\nMissing,1\n?,2\n"))
    with pytest.raises(DatasetError, match="already has the value 'Missing'"):
        ds2.missing_as_category()
    with pytest.raises(DatasetError, match="must not be empty"):
        ds2.missing_as_category("  ")


# --- errors -------------------------------------------------------------------------------------------


def test_missing_file_folder_and_empty(tmp_path):
    with pytest.raises(DatasetError, match="file not found"):
        load_table(tmp_path / "nope.csv")
    with pytest.raises(DatasetError, match="is a folder"):
        load_table(tmp_path)
    (tmp_path / "e.csv").write_bytes(b"")
    with pytest.raises(DatasetError, match="is empty"):
        load_table(tmp_path / "e.csv")
    (tmp_path / "blank.csv").write_bytes(b"\n\n  \n")
    with pytest.raises(DatasetError, match="no data"):
        load_table(tmp_path / "blank.csv")
    (tmp_path / "h.csv").write_bytes(b"name,size\n")
    with pytest.raises(DatasetError, match="no data rows"):
        load_table(tmp_path / "h.csv")


def test_non_utf8_says_where(tmp_path):
    path = tmp_path / "l.csv"
    path.write_bytes("stadt,n\nBern,1\nZürich,2\n".encode("latin-1"))
    with pytest.raises(DatasetError) as err:
        load_table(path)
    message = str(err.value)
    assert "not valid UTF-8" in message and "line 3" in message
    offset = len(b"stadt,n\nBern,1\nZ")
    assert f"byte offset {offset} (byte 0xfc)" in message
    assert "encoding=" in message and "UTF-8" in message


def test_non_utf8_beyond_the_sample(tmp_path):
    good = "".join(f"{i},name{i}\n" for i in range(20000))
    path = tmp_path / "late.csv"
    path.write_bytes(("n,s\n" + good).encode() + "99,Zürich\n".encode("latin-1"))
    with pytest.raises(DatasetError, match="line 20002"):
        load_table(path)


@pytest.mark.parametrize("bad_line,fields", [("4,x,extra", "3 fields"), ("4", "1 field")])
def test_ragged_rows_name_the_line(tmp_path, bad_line, fields):
    text = "a,b\n1,x\n2,y\n\n" + bad_line + "\n5,z\n"
    with pytest.raises(DatasetError, match=rf"line 5: {fields} where line 1 has 2"):
        load_table(write(tmp_path / "r.csv", text))


def test_ragged_row_far_into_a_large_file(tmp_path):
    body = "".join(f"{i},v{i % 7}\n" for i in range(300_000))
    text = "a,b\n" + body + "1\n"
    with pytest.raises(DatasetError, match="line 300002: 1 field where"):
        load_table(write(tmp_path / "big.csv", text))


def test_ragged_row_in_quoted_file(tmp_path):
    text = 'a,b\n"x, y",1\n"z",2,3\n'
    with pytest.raises(DatasetError, match="line 3: 3 fields"):
        load_table(write(tmp_path / "q.csv", text))
    text2 = 'a,b\n"x, y",1\n"z"\n'
    with pytest.raises(DatasetError, match="line 3: 1 field where"):
        load_table(write(tmp_path / "q2.csv", text2))


def test_duplicate_column_name(tmp_path):
    with pytest.raises(DatasetError, match=r"duplicate column name 'a' \(columns 1 and 3\)"):
        load_table(write(tmp_path / "d.csv", "a,b,a\n1,2,3\n4,5,6\n"), header=True)


def test_old_xls_and_broken_gzip(tmp_path):
    (tmp_path / "o.xls").write_bytes(b"\xd0\xcf\x11\xe0")
    with pytest.raises(DatasetError, match=r"\.xls"):
        load_table(tmp_path / "o.xls")
    (tmp_path / "b.csv.gz").write_bytes(gzip.compress(b"a,b\n1,2\n" * 1000)[:50])
    with pytest.raises(DatasetError):
        load_table(tmp_path / "b.csv.gz")


# --- progress -----------------------------------------------------------------------------------------


def _big_csv(path, n):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "colour", "value"])
        for i in range(n):
            w.writerow([i, ("red", "green", "blue")[i % 3], i * 0.5])
    return path


def test_progress_reports_bytes_and_can_cancel(tmp_path):
    path = _big_csv(tmp_path / "p.csv", 200_000)
    total = path.stat().st_size
    seen = []
    ds = load_table(path, progress=lambda done, tot: seen.append((done, tot)))
    assert len(ds) == 200_000 and ds.frame["value"].iloc[-1] == 199_999 * 0.5
    assert len(seen) > 2 and all(tot == total for _, tot in seen)
    dones = [d for d, _ in seen]
    assert dones == sorted(dones) and dones[0] == 0 and dones[-1] == total

    calls = []

    def stop_early(done, tot):
        calls.append(done)
        return len(calls) < 3

    with pytest.raises(Cancelled):
        load_table(path, progress=stop_early)
    assert len(calls) == 3 and calls[-1] < total


# --- Excel and Parquet --------------------------------------------------------------------------------


def test_excel_round_trip(tmp_path):
    frame = pd.DataFrame(
        {"age": [39, 50, None, 28], "workclass": ["State-gov", "?", "Private", " Private "], "w": [1.5, 2, 3, 4]}
    )
    path = tmp_path / "t.xlsx"
    frame.to_excel(path, index=False)
    ds = load_table(path)
    assert ds.header is True and ds.columns == ["age", "workclass", "w"]
    assert ds.types == {"age": NUMERIC, "workclass": CATEGORICAL, "w": NUMERIC}
    assert ds.frame["workclass"].tolist()[2:] == ["Private", "Private"]
    assert ds.missing_report().per_column == {"age": 1, "workclass": 1, "w": 0}
    assert ds.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    dropped, n = ds.drop_missing()
    assert n == 2 and dropped.frame["age"].tolist() == [39, 28]


def test_excel_without_header(tmp_path):
    path = tmp_path / "n.xlsx"
    pd.DataFrame([[1, "a"], [2, "b"]]).to_excel(path, index=False, header=False)
    ds = load_table(path)
    assert ds.columns == ["col1", "col2"] and ds.frame["col1"].tolist() == [1, 2]


def test_parquet_round_trip(tmp_path):
    frame = pd.DataFrame({"age": [39.0, np.nan, 28.0], "c": ["x", "?", None], "k": [1, 2, 3]})
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    ds = load_table(path)
    assert ds.types == {"age": NUMERIC, "c": CATEGORICAL, "k": NUMERIC}
    assert ds.missing_report().per_column == {"age": 1, "c": 2, "k": 0}
    assert ds.frame["k"].dtype == np.int64
    (tmp_path / "bad.parquet").write_bytes(b"not parquet")
    with pytest.raises(DatasetError, match="cannot read the Parquet file"):
        load_table(tmp_path / "bad.parquet")


def test_pandas_index_column_header(tmp_path):
    frame = pd.DataFrame({"age": [39, 50, 38], "sex": ["Male", "Female", "Male"]})
    path = tmp_path / "idx.csv"
    frame.to_csv(path)  # header ",age,sex" with an unnamed index column
    ds = load_table(path)
    assert ds.header is True and ds.columns == ["col1", "age", "sex"]
    assert ds.frame["age"].tolist() == [39, 50, 38]


def test_unclosed_quote_is_a_dataset_error(tmp_path):
    with pytest.raises(DatasetError, match="could not be read as a table"):
        load_table(write(tmp_path / "u.csv", 'a,b\n1,"open\n2,x\n'))


def test_unknown_encoding(tmp_path):
    with pytest.raises(DatasetError, match="unknown text encoding 'utf-9'"):
        load_table(write(tmp_path / "t.csv", "a,b\n1,2\n"), encoding="utf-9")


def test_renamed(tmp_path):
    ds = load_table(write(tmp_path / "t.csv", table_text(",")))
    r = ds.renamed({"age": "Age", "class": "income"})
    assert r.columns == ["Age", "workclass", "education", "income"]
    assert r.kind("Age") == NUMERIC and r.missing_report().rows_with_missing == 2
    assert r.drop_missing()[1] == 2 and ds.columns == NAMES
    with pytest.raises(DatasetError, match="duplicate column name 'workclass'"):
        ds.renamed({"age": "workclass"})


# --- round trip of generated tables (hypothesis) ----------------------------------------------------

_WORDS = (
    st.text(alphabet=string.ascii_letters + "-_ éü", min_size=1, max_size=8)
    .map(str.strip)
    .filter(lambda w: w and w != "?")
)


@st.composite
def _tables(draw):
    ncols, nrows = draw(st.integers(1, 5)), draw(st.integers(2, 30))
    kinds = draw(st.lists(st.sampled_from(["int", "float", "text"]), min_size=ncols, max_size=ncols))
    names = draw(
        st.lists(st.text(string.ascii_lowercase, min_size=1, max_size=6), min_size=ncols, max_size=ncols, unique=True)
    )
    columns = {}
    for name, kind in zip(names, kinds):
        if kind == "int":
            values = st.integers(-(10**6), 10**6)
        elif kind == "float":
            values = st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: round(x, 3))
        else:
            values = _WORDS
        columns[name] = draw(st.lists(values, min_size=nrows, max_size=nrows))
    return pd.DataFrame(columns), kinds


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_tables(), st.sampled_from([",", ";", "\t", "|", ", "]), st.booleans())
def test_generated_tables_round_trip(tmp_path, table, sep, header):
    frame, kinds = table
    path = tmp_path / "t.csv"
    lines = [sep.join(str(v) for v in row) for row in frame.itertuples(index=False)]
    path.write_text("\n".join(([sep.join(frame.columns)] if header else []) + lines) + "\n", encoding="utf-8")
    wide = frame.shape[1] > 1
    ds = load_table(path, header=header, sep=None if wide else sep)
    assert ds.frame.shape == frame.shape
    for j, kind in enumerate(kinds):
        got = ds.frame.iloc[:, j]
        if kind == "text" and not all(sniff.is_number(str(v)) for v in frame.iloc[:, j]):
            assert ds.types[ds.columns[j]] == CATEGORICAL
            assert got.tolist() == [str(v) for v in frame.iloc[:, j]]
        elif kind != "text":
            assert ds.types[ds.columns[j]] == NUMERIC
            np.testing.assert_allclose(got.to_numpy(dtype=float), frame.iloc[:, j].to_numpy(dtype=float))
    if wide:
        assert ds.separator == sep
        if set(kinds) != {"text"}:  # a name above a column of numbers: the header is detected
            assert load_table(path).header is header
