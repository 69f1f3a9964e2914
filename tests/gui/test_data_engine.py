"""The studio on a table read through DuckDB (a large file): the Data panel shows the first rows, the
counts per attribute and the missing cells of the whole file; a run from the Algorithm panel gives the
events of the same run on the file loaded into memory; the neighbour view says why it is off."""

from __future__ import annotations

import pytest

from dpstudio.io.datasets import load_table
from tests.gui.conftest import shot
from tests.io.test_engines import adult_files

pytest.importorskip("duckdb")


def open_in(qtbot, win, path):
    data = win.panels["Data"]
    with qtbot.waitSignal(data.loaded, timeout=30000):
        data.open_file(path)
    return data


def test_a_large_file_opens_through_duckdb_and_runs(qtbot, window, tmp_path, monkeypatch):
    from dpstudio.io.engine_table import PREVIEW_ROWS
    from tests.model.test_engine_runs import declare_adult, project_on

    csv, _ = adult_files(tmp_path, rows=2500)
    monkeypatch.setenv("DPSTUDIO_STUDIO_ENGINE", "duckdb")
    data = open_in(qtbot, window, csv)
    p = window.project
    loaded = load_table(csv)
    assert p.engine_table is not None and p.frame is None and p.n_rows == 2500
    assert "DuckDB" in data.file_label.text() and "2,500 rows" in data.file_label.text()
    assert data.preview_model.rowCount() == min(PREVIEW_ROWS, 2500)
    assert data.missing_report() == {c: int(n) for c, n in loaded.frame.isna().sum().items() if n}
    rows_any = int(loaded.frame.isna().any(axis=1).sum())
    assert f"{rows_any:,} of 2,500 rows" in data.missing_label.text()
    col = p.columns.index("workclass")
    assert data.attr_table.item(col, 5).text() == f"{loaded.frame['workclass'].nunique():,}"
    shot(window, "data_engine")

    declare_adult(p)
    assert window.panels["Taxonomy"].badge("sex")[0] == "covered"
    algo = window.panels["Algorithm"]
    algo.refresh_budget()
    worker = algo.run(watch=window.panels["Watch"])
    assert worker is not None
    qtbot.waitUntil(lambda: worker.outcome is not None, timeout=60000)
    assert worker.outcome == "finished", algo.eps_error.text()
    qtbot.waitUntil(lambda: p.result is not None, timeout=60000)

    reference = project_on(loaded, csv)  # the same file in memory, same seed
    from dpstudio.model.release.session import make_job

    job, _setup = make_job(reference)
    expected = list(job())
    assert p.events[:-1] == expected[:-1]
    for field in vars(p.result):
        if field != "noise":  # the noise object (same seed, same draws) is another instance
            assert repr(getattr(p.result, field)) == repr(getattr(expected[-1].result, field)), field
    watch = window.panels["Watch"]
    watch._show_node(0)
    assert not watch.btn_neighbour.isEnabled() and "DuckDB" in watch.btn_neighbour.toolTip()

    compare = window.panels["Compare"]  # the raw-data baseline trains on records: said, not crashed
    compare.refresh() if hasattr(compare, "refresh") else None
    scores = compare.evaluate_classification(loaded.frame.dropna().head(400))
    assert scores.raw is None and "DuckDB" in compare.class_label.text()
    worker = compare.run_monte_carlo(runs=2)  # teaching: the true counts are read in the worker
    assert worker is not None
    qtbot.waitUntil(lambda: worker.outcome is not None, timeout=60000)
    assert worker.outcome == "finished"


def test_cancel_while_the_file_is_read_spends_nothing(qtbot, window, tmp_path, monkeypatch):
    from tests.model.test_engine_runs import declare_adult

    csv, _ = adult_files(tmp_path, rows=500)
    monkeypatch.setenv("DPSTUDIO_STUDIO_ENGINE", "duckdb")
    open_in(qtbot, window, csv)
    p = window.project
    declare_adult(p)
    algo = window.panels["Algorithm"]
    table = p.engine_table
    real = table.group_counts

    def slow(columns, progress=None):  # the Cancel button pressed while the engine reads the file
        algo.worker.cancel()
        return real(columns, progress)

    monkeypatch.setattr(table, "group_counts", slow)
    worker = algo.run(watch=window.panels["Watch"])
    qtbot.waitUntil(lambda: worker.outcome is not None, timeout=30000)
    assert worker.outcome == "cancelled"
    assert p.result is None and (p.run_ledger is None or p.run_ledger.spent == 0)


def test_a_project_on_a_large_file_saves_and_reopens_through_duckdb(qtbot, window, tmp_path, monkeypatch):
    from PySide6 import QtWidgets

    from dpstudio.gui.main_window import MainWindow
    from tests.model.test_engine_runs import declare_adult

    csv, _ = adult_files(tmp_path, rows=800)
    monkeypatch.setenv("DPSTUDIO_STUDIO_ENGINE", "duckdb")
    open_in(qtbot, window, csv)
    p = window.project
    declare_adult(p)
    p.set_type("education-num", "categorical")
    target = tmp_path / "big.dpstudio"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    window.act_save.trigger()
    assert target.is_file() and "<=50K" not in target.read_text().split('"classes"')[0]  # no data cells
    other = MainWindow()
    qtbot.addWidget(other)
    worker = other.open_project(target)
    assert worker is not None
    qtbot.waitUntil(lambda: other.project.has_data, timeout=30000)
    q = other.project
    assert q.engine_table is not None and q.frame is None and q.n_rows == 800
    for attr in ("columns", "roles", "types", "bounds", "data_hash"):
        assert getattr(q, attr) == getattr(p, attr), attr
    assert q.taxonomies == p.taxonomies
    assert q.engine_table.types["education-num"] == "categorical"  # the reopened data reads as declared
    assert q.value_counts("education-num")[0].tolist() == p.value_counts("education-num")[0].tolist()
    other.project.dirty = False
    other.close()


def _held_open(monkeypatch):
    """``open_engine_table`` held back (polling its progress, so Cancel stops it) until the event is set:
    the counts of a billion rows take minutes; here the test decides when they are done."""
    import threading
    import time

    from dpstudio.io import engine_table
    from dpstudio.io.datasets import Cancelled

    go, real = threading.Event(), engine_table.open_engine_table

    def held(path, progress=None, fingerprint=True):
        while not go.is_set():
            if progress is not None and progress(0, 1000, "counting each column's values") is False:
                raise Cancelled("cancelled")
            time.sleep(0.01)
        return real(path, progress, fingerprint)

    monkeypatch.setattr(engine_table, "open_engine_table", held)
    return go


def test_a_large_files_first_rows_show_at_once_and_cancel_brings_back_the_data(qtbot, window, tmp_path, monkeypatch):
    """A walk opened a billion-row file and saw no preview in 8 minutes: the first rows now show as soon
    as Open is chosen, with a line saying the counts are being read; the loaded data stays the project's
    until the file is adopted, and comes back on Cancel."""
    from tests.io.test_engines import adult_files

    first = tmp_path / "first.csv"
    first.write_text("a,b\n1,x\n2,y\n")
    open_in(qtbot, window, first)
    csv, _ = adult_files(tmp_path, rows=1500)
    monkeypatch.setenv("DPSTUDIO_STUDIO_ENGINE", "duckdb")
    go = _held_open(monkeypatch)
    data = window.panels["Data"]
    try:
        worker = data.open_file(csv)
        assert worker is not None
        loaded = load_table(csv).frame
        model = data.preview_model
        assert model.rowCount() == 1000 and "reading the whole file" in data.file_label.text()
        col = model._columns.index("age")
        shown = [float(model.data(model.index(r, col))) for r in range(5)]
        assert shown == [float(v) for v in loaded["age"].tolist()[:5]]
        assert window.project.data_path == first  # not adopted yet: every figure is still the loaded data's
        shot(window, "data_engine_first_look")
        with qtbot.waitSignal(worker.signals.cancelled, timeout=10000):
            worker.cancel()
        qtbot.wait(50)
        assert window.project.data_path == first and model.rowCount() == 2
        assert "first.csv" in data.file_label.text()

        worker = data.open_file(csv)  # again, this time to the end
        assert "reading the whole file" in data.file_label.text()
    finally:
        go.set()
    qtbot.waitUntil(lambda: window.project.data_path == csv, timeout=30000)
    assert "1,500 rows" in data.file_label.text() and "DuckDB" in data.file_label.text()
