"""Taxonomy file formats: reading ARX's real files, round trips, and located error messages."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpstudio.core.taxonomy import CATEGORICAL, NUMERIC, Node, Taxonomy, TaxonomyError, interval_label
from dpstudio.core.taxonomy_generators import numeric_equal_width
from dpstudio.io.atomic import OutputPathError
from dpstudio.io.taxonomy_formats import (
    FORMATS,
    detect_format,
    format_arx,
    format_brace,
    format_indented,
    format_json,
    format_taxonomy,
    parse_arx,
    parse_brace,
    parse_indented,
    parse_json,
    parse_taxonomy,
    read_taxonomy,
    sniff_separator,
    write_taxonomy,
)

SEED_BRACE = (
    "{Any {Worked {With-Pay {Private} {Self-emp {Self-emp-not-inc }{Self-emp-inc }} "
    "{Gov {Federal-gov}{Local-gov}{State-gov}}} {Without-pay}} {Never-worked}}"
)
SEED_NUMERIC = "{1-20 {1-12 {1-5} {5-12}} {12-20 {12-16} {16-20}}}"
ARX_ATTRIBUTES = [
    "age",
    "education",
    "marital-status",
    "native-country",
    "occupation",
    "race",
    "salary-class",
    "sex",
    "workclass",
]


# -- the real ARX files ----------------------------------------------------------------------------
@pytest.mark.parametrize("attribute", ARX_ATTRIBUTES)
def test_real_arx_files_load_and_match_their_rows(shared_data, attribute):
    path = shared_data / "arx" / f"adult_hierarchy_{attribute}.csv"
    t = read_taxonomy(path)
    assert t.attribute == attribute and t.kind == CATEGORICAL
    rows = [line.split(";") for line in path.read_text().splitlines() if line.strip()]
    assert t.labels[0] == "*"
    assert len(t.leaves) == len(rows)
    for row in rows:  # every row is the leaf's path read bottom-up
        leaf = t.index(row[0])
        assert [t.labels[i] for i in reversed(t.path(leaf))] == row


def test_native_country_file_without_final_newline(shared_data):
    path = shared_data / "arx" / "adult_hierarchy_native-country.csv"
    assert not path.read_bytes().endswith(b"\n")
    t = read_taxonomy(path)
    last = path.read_text().splitlines()[-1].split(";")[0]
    assert last == "Holand-Netherlands" and t.is_leaf(t.index(last))
    assert t.labels[t.parents[t.index(last)]] == "Europe"
    assert len(t.leaves) == 41


def test_every_value_of_arx_adult_maps_to_a_leaf(shared_data):
    lines = (shared_data / "arx" / "adult.csv").read_text().splitlines()
    header = lines[0].split(";")
    table = np.array([line.split(";") for line in lines[1:] if line])
    assert table.shape == (30162, 9)
    for k, attribute in enumerate(header):
        t = read_taxonomy(shared_data / "arx" / f"adult_hierarchy_{attribute}.csv")
        m = t.map_values(table[:, k])
        assert m.all_covered, (attribute, m.uncovered)
        assert np.array_equal(np.array(t.labels, dtype=object)[m.leaf_ids], table[:, k].astype(object))
    age = read_taxonomy(shared_data / "arx" / "adult_hierarchy_age.csv")
    ids = age.map_values_strict(table[:, header.index("age")].astype(int))  # numbers compare as text
    assert len(ids) == 30162


# -- seed 002 brace examples -----------------------------------------------------------------------
def test_seed_brace_examples():
    t = parse_brace(SEED_BRACE)
    assert t.kind == CATEGORICAL
    assert [t.labels[i] for i in t.leaves] == [
        "Private",
        "Self-emp-not-inc",
        "Self-emp-inc",
        "Federal-gov",
        "Local-gov",
        "State-gov",
        "Without-pay",
        "Never-worked",
    ]
    assert t.labels[t.parents[t.index("Self-emp-inc")]] == "Self-emp"
    n = parse_brace(SEED_NUMERIC)
    assert n.kind == NUMERIC
    assert [(n.lo[i], n.hi[i]) for i in n.leaves] == [(1, 5), (5, 12), (12, 16), (16, 20)]
    assert n.labels[0] == "[1,20)"
    assert parse_brace("{Any age {young people {17-30}} {older {30-90}}}").labels[1] == "young people"


def test_all_formats_of_the_seed_trees_agree():
    for text in (SEED_BRACE, SEED_NUMERIC):
        t = parse_brace(text)
        for fmt in FORMATS:
            s = format_taxonomy(t, fmt)
            assert detect_format(s) == fmt
            assert parse_taxonomy(s) == t


def test_numeric_label_forms_in_each_format():
    n = parse_brace(SEED_NUMERIC)
    assert parse_indented("1-20\n  1-12\n    1-5\n    5-12\n  12-20\n    12-16\n    16-20\n") == n
    assert parse_indented("[1,20)\n [1,12)\n  [1,5)\n  [5,12)\n [12,20)\n  [12,16)\n  [16,20)") == n
    arx = (
        '"[1,5)";"[1,12)";"[1,20)"\n"[5,12)";"[1,12)";"[1,20)"\n"[12,16)";"[12,20)";"[1,20)"\n'
        '"[16,20)";"[12,20)";"[1,20)"\n'
    )
    assert parse_arx(arx) == n
    # ARX ranges like 0-4 are closed categories, not intervals
    closed = parse_arx("0-4;0-9;*\n5-9;0-9;*\n")
    assert closed.kind == CATEGORICAL and closed.labels == ["*", "0-9", "0-4", "5-9"]
    # forcing the kind
    assert parse_brace(SEED_NUMERIC, kind=CATEGORICAL).labels[0] == "1-20"
    with pytest.raises(TaxonomyError, match="'x' is not an interval"):
        parse_brace("{1-20 {1-5} {x}}", kind=NUMERIC)


def test_json_keeps_custom_labels_on_numeric_nodes():
    doc = {
        "attribute": "age",
        "root": {
            "label": "all ages",
            "lo": 17,
            "hi": 91,
            "children": [{"label": "young", "lo": 17, "hi": 30}, {"label": "older", "lo": 30, "hi": 91}],
        },
    }
    t = parse_json(json.dumps(doc))
    assert t.kind == NUMERIC and t.attribute == "age" and t.labels == ["all ages", "young", "older"]
    assert parse_json(format_json(t)) == t
    plain = parse_json('{"label": "*", "children": [{"label": "a"}, {"label": "b"}]}')
    assert plain.kind == CATEGORICAL and plain.labels == ["*", "a", "b"]


# -- separators ------------------------------------------------------------------------------------
@pytest.mark.parametrize("sep", [";", ",", "|", "\t"])
def test_arx_separators_are_sniffed(sep):
    text = sep.join(["Private", "Non-Gov", "*"]) + "\n" + sep.join(["State-gov", "Gov", "*"]) + "\n"
    assert sniff_separator(text) == sep
    t = parse_arx(text)
    assert t.labels == ["*", "Non-Gov", "Private", "Gov", "State-gov"]


def test_arx_padding_gives_shallow_leaves():
    t = parse_arx("Never-worked;Never-worked;*\nPrivate;Paid;*\nState-gov;Paid;*\n")
    assert t.labels[t.parents[t.index("Never-worked")]] == "*"
    assert format_arx(t) == "Never-worked;Never-worked;*\nPrivate;Paid;*\nState-gov;Paid;*\n"


# -- round trips on random trees (hypothesis) ------------------------------------------------------
LABEL_CHARS = st.sampled_from(list("abcXYZ019 -&()/.;,|'\"{}\\[]_é"))
labels_st = st.lists(
    st.text(LABEL_CHARS, min_size=1, max_size=8).map(str.strip).filter(lambda s: s and s != "*"),
    min_size=0,
    max_size=25,
    unique=True,
)


@st.composite
def categorical_trees(draw):
    labels = ["*"] + draw(labels_st)
    parents = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, len(labels))]
    return Taxonomy.from_parents(labels, parents, attribute="a")


@st.composite
def numeric_trees(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    integer = draw(st.booleans())
    lo = float(draw(st.integers(-1000, 1000)))
    hi = lo + float(draw(st.integers(10, 10_000)))
    budget = [draw(st.integers(0, 25))]

    def build(a, b):
        node = Node(interval_label(a, b), [], a, b)
        if budget[0] > 0 and rng.random() < 0.7:
            k = int(rng.integers(2, 5))
            cuts = np.sort(rng.uniform(a, b, k - 1))
            if integer:
                cuts = np.round(cuts)
            edges = [a, *sorted(set(float(c) for c in cuts) - {a, b}), b]
            if len(edges) > 2:
                budget[0] -= 1
                node.children = [build(x, y) for x, y in zip(edges, edges[1:])]
        return node

    return Taxonomy(build(lo, hi), attribute="n")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(categorical_trees(), st.sampled_from(FORMATS), st.sampled_from([";", ",", "|", "\t"]))
def test_categorical_round_trip(t, fmt, sep):
    t.validate()
    options = {"sep": sep} if fmt == "arx" else {}
    text = format_taxonomy(t, fmt, **options)
    back = parse_taxonomy(text, fmt)
    assert back == t and back.kind == CATEGORICAL
    assert parse_taxonomy(text) == t  # format detected from the content


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(numeric_trees(), st.sampled_from(FORMATS))
def test_numeric_round_trip(t, fmt):
    t.validate()
    text = format_taxonomy(t, fmt)
    back = parse_taxonomy(text)
    assert back == t and back.kind == NUMERIC


@settings(max_examples=20, deadline=None)
@given(categorical_trees())
def test_multiline_brace_round_trip(t):
    assert parse_brace(format_brace(t, multiline=True)) == t


def test_files_round_trip_through_write_and_read(tmp_path):
    t = parse_brace(SEED_BRACE)
    t.attribute = "workclass"
    for name in ["w.csv", "w.tsv", "w.json", "w.txt", "w.brace"]:
        path = write_taxonomy(t, tmp_path / name)
        back = read_taxonomy(path)
        assert back == t, name
    assert "\t" in (tmp_path / "w.tsv").read_text()
    assert read_taxonomy(tmp_path / "w.json").attribute == "workclass"
    assert read_taxonomy(tmp_path / "w.txt").attribute == "w"
    assert read_taxonomy(tmp_path / "w.txt", attribute="wc").attribute == "wc"
    with pytest.raises(OutputPathError, match="already exists"):
        write_taxonomy(t, tmp_path / "w.csv")
    write_taxonomy(t, tmp_path / "w.csv", overwrite=True)
    with pytest.raises(TaxonomyError, match="cannot tell the taxonomy format"):
        write_taxonomy(t, tmp_path / "w.dat")
    write_taxonomy(t, tmp_path / "w.dat", format="brace")
    assert read_taxonomy(tmp_path / "w.dat") == t
    n = numeric_equal_width(17, 91, 3, 2, attribute="age")
    write_taxonomy(n, tmp_path / "age.csv")
    assert read_taxonomy(tmp_path / "age.csv") == n


def test_arx_writer_needs_unique_labels():
    t = parse_brace("{* {A {Other}} {B {Other2} {x}}}")
    dup = parse_json(
        '{"label": "*", "children": [{"label": "A", "children": [{"label": "o"}]},'
        ' {"label": "B", "children": [{"label": "A"}]}]}'
    )
    assert parse_arx(format_arx(t)) == t
    with pytest.raises(TaxonomyError, match="'A' is used by two nodes"):
        format_arx(dup)


# -- located error messages on crafted bad files ---------------------------------------------------
def _bad(tmp_path: Path, name: str, text: str) -> TaxonomyError:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(TaxonomyError) as e:
        read_taxonomy(path)
    assert str(path) in str(e.value)
    return e.value


BAD_FILES = [
    # (file name, content, line, problem fragment)
    ("ragged.csv", "a;A;*\nb;*\nc;A;*\n", 2, "ragged row: 2 cells, expected 3 as on line 1"),
    ("two_parents.csv", "a;A;*\nb;A;*\nA2;B;*\nc;A;B\n", 4, "label 'A' has two parents: '*' (line 1) and 'B'"),
    ("cycle.csv", "a;B;C\nb;C;B\n", 2, "cycle: 'B' -> 'C' -> 'B'"),
    ("cycle_row.csv", "a;B;a;*\n", 1, "cycle: 'a' -> 'B' -> 'a'"),
    ("dup_leaf.csv", "a;A;*\nb;A;*\n\na;B;*\n", 4, "duplicate leaf 'a' (first at line 1)"),
    ("empty.csv", "a;A;*\nb;;*\n", 2, "empty label in column 2"),
    ("leaf_and_group.csv", "A;A;*\nb;A;*\n", 2, "'A' is a leaf value on line 1 and also a generalization"),
    ("two_roots.csv", "a;*\nb;Any\n", 2, "the last column must hold one root, found 2"),
    (
        "gap.csv",
        '"[0,5)";"[0,10)"\n"[6,10)";"[0,10)"\n',
        2,
        "gap between numeric child intervals under [0,10): [5,6) is not covered",
    ),
    (
        "overlap.csv",
        '"[0,6)";"[0,10)"\n"[5,10)";"[0,10)"\n',
        2,
        "overlap between numeric child intervals under [0,10): [0,6) and [5,10) share [5,6)",
    ),
    (
        "unclosed.brace",
        "{Any\n {Worked {Private}}\n {Never-worked}\n",
        1,
        "unbalanced braces: '{' of 'Any' opened on line 1 is never closed",
    ),
    ("extra_close.brace", "{Any {a} {b}}\n}\n", 2, "unbalanced braces: '}' closes nothing"),
    ("stray.brace", "{Any {a} oops {b}}", 1, "text 'oops' after a child of 'Any'"),
    ("empty_label.brace", "{Any\n {a}\n { }\n}", 3, "empty label"),
    ("dup.brace", "{Any\n {A {x}}\n {B {x}}}", 3, "duplicate leaf 'x' (first at line 2)"),
    ("gap.brace", "{0-20\n {0-5}\n {6-20}}", 3, "gap between numeric child intervals under [0,20): [5,6)"),
    ("overlap.brace", "{0-20 {0-12 {0-5} {5-12}}\n {10-20}}", 2, "overlap between numeric child intervals"),
    ("siblings.txt", "Any\n    a\n  b\n", 3, "bad indentation: 'b' is indented by 2, its earlier siblings by 4"),
    ("tabs.txt", "Any\n\ta\n  b\n", 3, "bad indentation: spaces here, tabs on line 2"),
    ("mixed.txt", "Any\n \ta\n", 2, "bad indentation: mixes tabs and spaces"),
    ("roots.txt", "Any\n  a\nOther\n", 3, "more than one root: 'Other' is not indented under 'Any'"),
    ("dup.txt", "Any\n  A\n    x\n  B\n    x\n", 5, "duplicate leaf 'x' (first at line 3)"),
    ("gap.txt", "[0,10)\n  [0,4)\n  [5,10)\n", 3, "gap between numeric child intervals"),
    ("syntax.json", '{"label": "*",\n "children": [\n  {"label": "a"},\n ]}', 4, "bad JSON: "),
    ("nolabel.json", '{"label": "*",\n "children": [\n  {"name": "a"}]}', 1, 'a node has no "label"'),
    (
        "dup.json",
        '{"label": "*", "children": [\n {"label": "x"},\n {"label": "x"}]}',
        3,
        "duplicate leaf 'x' (first at line 2)",
    ),
    (
        "gap.json",
        '{"label": "r", "lo": 0, "hi": 10, "children": [\n {"label": "a", "lo": 0, "hi": 4},\n'
        ' {"label": "b", "lo": 5, "hi": 10}]}',
        3,
        "gap between numeric child intervals",
    ),
    ("half.json", '{"label": "r",\n "lo": 0, "children": []}', 1, 'has only one of "lo" and "hi"'),
]


@pytest.mark.parametrize("name, text, line, problem", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_file_messages_name_file_line_and_problem(tmp_path, name, text, line, problem):
    err = _bad(tmp_path, name, text)
    assert err.line == line, str(err)
    assert f", line {line}: " in str(err)
    assert problem in str(err)


def test_string_parsers_report_lines_without_a_file():
    with pytest.raises(TaxonomyError) as e:
        parse_indented("Any\n  a\n a2\n")
    assert str(e.value).startswith("line 3: bad indentation")
    with pytest.raises(TaxonomyError, match="unknown taxonomy format"):
        parse_taxonomy("x", format="yaml")


def test_unreadable_and_non_utf8_files(tmp_path):
    with pytest.raises(TaxonomyError, match="cannot read the file"):
        read_taxonomy(tmp_path / "missing.csv")
    p = tmp_path / "latin.csv"
    p.write_bytes(b"a;*\n\xe9;*\n")
    with pytest.raises(TaxonomyError, match=r"line 2: not UTF-8"):
        read_taxonomy(p)


def test_writers_exact_text():
    t = parse_brace("{* {Gov {Federal-gov} {State-gov}} {Private}}")
    assert format_indented(t) == "*\n  Gov\n    Federal-gov\n    State-gov\n  Private\n"
    assert format_brace(t) == "{* {Gov {Federal-gov} {State-gov}} {Private}}\n"
    assert format_brace(t, multiline=True) == ("{*\n  {Gov\n    {Federal-gov}\n    {State-gov}\n  }\n  {Private}\n}\n")
    assert format_arx(t, sep="|") == "Federal-gov|Gov|*\nState-gov|Gov|*\nPrivate|Private|*\n"
    escaped = parse_brace(r"{* {a\{b\} c\\}}")
    assert escaped.labels == ["*", "a{b} c\\"]
    assert format_brace(escaped) == "{* {a\\{b\\} c\\\\}}\n"
