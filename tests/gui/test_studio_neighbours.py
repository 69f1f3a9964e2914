"""Neighbouring inputs through the studio's export (issue 8, definition of done).

D and D' = D + one record go through the studio as a user would: open the CSV in the Data panel, declare
roles, types, the numeric kind, bounds and the class values there, import the taxonomies in the Taxonomy
panel, run in release mode from the Algorithm panel (secure noise; each input charges its own throwaway
budget store), and export through the Export panel; once with the table in memory, once read through DuckDB
(the studio's way with a large file). Every non-noisy part of the two exports must be
identical: the sidecar without the documented outputs of a mechanism, the CSV header and its class column's
structure, the report's structure. The added record has a class value no other record holds: before issue 8
the class set came from the data, so the neighbour's release had a third class and more cells.
"""

import csv
import json
import os

import pytest
from PySide6 import QtWidgets

from dpstudio.model.project.project import RELEASE
from tests.cli_outputs import report_structure, without
from tests.gui.test_run_epsilon import Answer
from tests.test_cli_neighbours import HISTOGRAM_VARYING, RELEASE_MECHANISM_OUTPUTS, table_rows, write_table

CLASSES = ["N", "Y", "Maybe"]


def _through_the_panels(qtbot, folder, algorithm, declare_table):
    """Open ``folder/d.csv`` in one studio window, declare age (numeric, integer, 0:100) and, for a table
    release, the rest (``declare_table(window, data panel)``), run ``algorithm`` in release mode from the
    Algorithm panel and export through the Export panel; (CSV rows, sidecar, report)."""
    from dpstudio.gui.main_window import MainWindow

    win = MainWindow()
    win.project.budget_store = str(folder / "budget.sqlite")  # a first release on its own data
    win.show()
    try:
        data = win.panel("Data")
        data.open_file(folder / "d.csv")
        qtbot.waitUntil(lambda: win.project.has_data, timeout=30000)
        p = win.project
        if declare_table is not None:
            declare_table(win, data)
        assert data.set_type("age", "numeric")  # chosen by hand: declared, not read from the values
        data.select_attribute("age")
        data.lo_edit.setText("0")
        data.hi_edit.setText("100")
        assert data.apply_bounds()
        assert data.set_numeric_kind("integer")
        alg = win.panel("Algorithm")
        alg.set_algorithm(algorithm)
        if declare_table is not None:
            alg.set_param("steps", 3)
        win.set_mode(RELEASE)
        alg.eps_edit.setText("1")
        alg.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes)
        assert alg.run() is not None, alg.last_error
        qtbot.waitUntil(lambda: p.can_export, timeout=60000)
        assert p.unconfirmed_inputs() == []
        assert (p.engine_table is not None) == (os.environ.get("DPSTUDIO_STUDIO_ENGINE") == "duckdb")
        paths = win.panel("Export").export_to(folder / "out", "release", confirm=False)
    finally:
        win.project.dirty = False
        win.close()
        win.runner.shutdown()
        win.deleteLater()
    rows = list(csv.reader(paths[0].open()))
    return rows, json.loads(paths[1].read_text()), paths[2].read_text()


def _declare_table(win, data):
    assert win.project.class_attribute == "hired"
    for attr, kind in (("country", "categorical"), ("hired", "categorical")):
        assert data.set_type(attr, kind)
    assert data.declare_classes(", ".join(CLASSES))
    assert win.panel("Taxonomy").import_file(data.project.data_path.parent / "country.csv", attribute="country")


def studio_export(qtbot, folder, algorithm):
    """Open, declare, run (release) and export ``folder/d.csv`` through one studio window's panels."""
    return _through_the_panels(qtbot, folder, algorithm, _declare_table)


@pytest.fixture(params=["numpy", "duckdb"])
def engine(request, monkeypatch):
    """The table in memory, or read through DuckDB as the studio reads a large file."""
    if request.param == "duckdb":
        pytest.importorskip("duckdb")
    monkeypatch.setenv("DPSTUDIO_STUDIO_ENGINE", request.param)
    return request.param


@pytest.mark.parametrize("algorithm", ["diffgen", "diffgen_consistency", "maxgddp"])
def test_studio_export_metadata_is_the_same_for_neighbouring_tables(qtbot, tmp_path, algorithm, engine):
    rows = table_rows(300)
    write_table(tmp_path / "d", rows)  # d.csv and the country taxonomy, as the CLI test writes them
    write_table(tmp_path / "d1", rows + [("China", 33, "Maybe")])
    for name in ("d", "d1"):
        (tmp_path / name / "out").mkdir()
    (a_rows, a_side, a_html), (b_rows, b_side, b_html) = (
        studio_export(qtbot, tmp_path / name, algorithm) for name in ("d", "d1")
    )
    assert a_rows[0] == b_rows[0] == ["country", "age", "hired", "count"]
    for out_rows, side in ((a_rows, a_side), (b_rows, b_side)):  # exactly the public classes, in order
        assert [r[2] for r in out_rows[1:]] == CLASSES * side["leaf_partitions"]
    assert a_side["dataset_budget"]["tracked"] is True and a_side["public_inputs"]
    assert without(a_side, RELEASE_MECHANISM_OUTPUTS) == without(b_side, RELEASE_MECHANISM_OUTPUTS)
    assert report_structure(a_html) == report_structure(b_html) and report_structure(a_html)
    # the re-run scripts hold public inputs only: the same for both tables, but for the data file's folder
    for script in ("release.command.sh", "release.reproduce.py"):
        a, b = ((tmp_path / n / "out" / script).read_text().replace(str(tmp_path / n), "FOLDER") for n in ("d", "d1"))
        assert a == b and "FOLDER" in a


def studio_histogram_export(qtbot, folder, algorithm):
    """Open, declare, run (release) and export a histogram of ``folder/d.csv``'s age through the panels."""
    return _through_the_panels(qtbot, folder, algorithm, None)


@pytest.mark.parametrize("algorithm", ["hb", "luedptree", "hopt", "pidentity"])
def test_studio_histogram_export_metadata_is_the_same_for_neighbouring_tables(qtbot, tmp_path, algorithm, engine):
    rows = table_rows(300)
    write_table(tmp_path / "d", rows)
    write_table(tmp_path / "d1", rows + [("China", 99, "Maybe")])
    for name in ("d", "d1"):
        (tmp_path / name / "out").mkdir()
    (a_rows, a_side, a_html), (b_rows, b_side, b_html) = (
        studio_histogram_export(qtbot, tmp_path / name, algorithm) for name in ("d", "d1")
    )
    assert a_rows[0] == b_rows[0] and len(a_rows) == len(b_rows) == 101  # one bin per year of [0, 100)
    assert [r[:-1] for r in a_rows] == [r[:-1] for r in b_rows]  # the bins; only the counts differ
    assert a_side["algorithm"] == {"luedptree": "luedp"}.get(algorithm, algorithm)
    assert without(a_side, HISTOGRAM_VARYING) == without(b_side, HISTOGRAM_VARYING)  # ledger included
    assert report_structure(a_html) == report_structure(b_html) and report_structure(a_html)
