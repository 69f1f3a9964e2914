"""Small items of issue 9: ledger columns, message bar layout, status bar, window title, Qt log noise."""

from __future__ import annotations

from PySide6 import QtWidgets

from dpstudio.gui.widgets.ledger_view import COLUMNS, TITLES, LedgerView


def test_ledger_columns_show_their_whole_titles_beside_the_tree(qtbot):
    from dpstudio.core.budget import Ledger

    ledger = Ledger(1)
    for i in range(4):
        ledger.spend(
            f"step {i}: choose a specialization",
            "exponential mechanism",
            "1/8",
            sensitivity=1,
            scale=16.0,
            note="a note",
        )
    view = LedgerView()
    qtbot.addWidget(view)
    view.resize(472, 300)  # its width beside the tree at 1280 x 800 (seen: "scale" cut to "sca")
    view.show()
    view.set_ledger(ledger)
    qtbot.wait(20)
    header, table = view.table.horizontalHeader(), view.table
    fm = header.fontMetrics()
    shown = [c for c in range(len(COLUMNS)) if not table.isColumnHidden(c)]
    assert sum(header.sectionSize(c) for c in shown) <= table.viewport().width()  # nothing off the edge
    for c in shown:
        title = TITLES.get(COLUMNS[c], COLUMNS[c])
        assert header.sectionSize(c) >= max(fm.horizontalAdvance(t) for t in title.split("\n")) + 8, COLUMNS[c]
    assert "a note" in table.item(0, 0).toolTip()  # the hidden note column is each row's tooltip


def test_closing_the_message_bar_does_not_shift_the_panels(qtbot, window):
    window.show_error("something went wrong")
    qtbot.wait(20)
    top = window.tabs.mapTo(window, window.tabs.rect().topLeft()).y()
    window.message_close.click()
    qtbot.wait(20)
    assert not window.message_label.text()
    assert window.tabs.mapTo(window, window.tabs.rect().topLeft()).y() == top


def test_a_long_message_neither_moves_the_panels_nor_widens_the_window(qtbot, window):
    """Issue 24 item 4: a 14-item readiness message used to become a 10-line bar squashing the controls."""
    window.resize(1280, 800)
    qtbot.wait(20)
    before = window.tabs.geometry(), window.width()
    long = "; ".join(f"attribute_{i}: no taxonomy covers its values ('a', 'b', 'c', 'd')" for i in range(14))
    window.show_error(long)
    qtbot.wait(20)
    assert (window.tabs.geometry(), window.width()) == before
    assert window.message_label.text() == long and window.message_label.toolTip() == long
    assert window.message_label.is_elided()  # drawn cut, all of it in the tooltip
    window.message_close.click()
    qtbot.wait(20)
    assert (window.tabs.geometry(), window.width()) == before


def test_status_bar_forgets_a_dismissed_message_and_a_finished_job(qtbot, window):
    from dpstudio.gui.worker import Worker

    window.show_info("project saved to /tmp/x")
    assert window.status_label.text() == "project saved to /tmp/x"
    window.clear_message()
    assert window.status_label.text() == ""

    def job():
        yield 1

    worker = Worker(job)
    with qtbot.waitSignal(worker.signals.finished, timeout=5000):
        window.start_worker(worker, "counting sheep")
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=5000)
    qtbot.wait(20)
    assert "counting sheep" not in window.status_label.text()


def test_window_title_names_the_application_once(qtbot, window):
    app = QtWidgets.QApplication.instance()
    old = app.applicationDisplayName()
    try:
        app.setApplicationDisplayName("dpstudio")  # Qt adds " — dpstudio" to every title itself
        window._update_title()
        assert "dpstudio" not in window.windowTitle() and "untitled" in window.windowTitle()
        app.setApplicationDisplayName("other")
        window._update_title()
        assert window.windowTitle().count("dpstudio") == 1
    finally:
        app.setApplicationDisplayName(old)


def test_qt_log_drops_only_the_offscreen_plugins_repeated_warning(capsys):
    from PySide6 import QtCore

    from dpstudio.gui.app import qt_message

    for _ in range(20):
        qt_message(QtCore.QtMsgType.QtWarningMsg, None, "This plugin does not support propagateSizeHints()")
    qt_message(QtCore.QtMsgType.QtWarningMsg, None, "a real problem")
    assert capsys.readouterr().err == "a real problem\n"


def test_help_menu_shows_the_guide_and_the_local_docs(qtbot, window):
    from pathlib import Path

    from dpstudio.core.range_error import discrete_laplace_half_width

    titles = [a.text() for a in window.help_menu.actions()]
    assert "Getting started" in titles and "Documentation" in titles
    window.act_guide.trigger()
    guide = window.help_window.browser.toPlainText()
    for words in ("epsilon", "Teaching mode", "Release mode", "Public inputs"):
        assert words in guide
    # the guide's figures are the noise that runs: all of epsilon 1 (0.1) on one count
    assert f"at most {discrete_laplace_half_width(1.0)}" in guide
    assert f"at most {discrete_laplace_half_width(10.0)}" in guide
    docs = {a.text(): a for a in window.doc_actions}
    assert "The studio" in docs
    docs["The studio"].trigger()
    assert window.help_window.shown.name == "gui.md"
    assert "Help, guidance and accessibility" in window.help_window.browser.toPlainText()
    assert Path(window.help_window.shown).is_file()


def test_ledger_hides_an_empty_parallel_group_column_and_gives_its_room_to_the_step(qtbot):
    from dpstudio.core.budget import Ledger

    ledger = Ledger(1)
    ledger.spend("counts: level 0 of the DiffGen tree x class", "discrete Laplace", "1/4", sensitivity=1, scale=4.0)
    view = LedgerView()
    qtbot.addWidget(view)
    view.resize(410, 300)  # the Watch pane at 1280 x 800 (seen: "coun..." in the step column)
    view.show()
    view.set_ledger(ledger)
    qtbot.wait(20)
    group = COLUMNS.index("parallel group")
    assert view.table.isColumnHidden(group)
    assert view.table.horizontalHeader().sectionSize(0) >= 90  # 26 px before
    with ledger.parallel("cells"):
        ledger.spend("a cell", "discrete Laplace", "1/4", sensitivity=1, scale=4.0)
    view.set_ledger(ledger)
    assert view.table.isColumnHidden(group)  # the group is said in the step cell instead
    assert view.table.item(1, 0).text() == "a cell (in parallel: cells)"


def test_ledger_step_stays_readable_beside_the_tree_with_a_parallel_group(qtbot):
    """Seen at 1280 x 800 after a DiffGen run: with the group column shown (and the mechanism "exponential
    mechanism over split-point intervals of the public lattice") the step column was 31 to 63 px
    ("coun..."); the group now goes into the step cell and text columns are capped."""
    from dpstudio.core.budget import Ledger

    ledger = Ledger(1)
    with ledger.parallel("step 4: split points of fnlwgt"):
        ledger.spend(
            "split point of fnlwgt in one partition",
            "exponential mechanism over split-point intervals of the public lattice (count-weighted)",
            "1/4",
            sensitivity=1,
            scale=4.0,
        )
    for i in range(5):
        ledger.spend(
            f"counts: level {i} of the DiffGen tree x class",
            "discrete Laplace",
            "1/1000000",
            sensitivity=1,
            scale=190400.0,
        )
    view = LedgerView()
    qtbot.addWidget(view)
    view.resize(456, 300)  # the Watch ledger at 1280 x 800
    view.show()
    view.set_ledger(ledger)
    qtbot.wait(20)
    header, table = view.table.horizontalHeader(), view.table
    shown = [c for c in range(len(COLUMNS)) if not table.isColumnHidden(c)]
    assert sum(header.sectionSize(c) for c in shown) <= table.viewport().width()
    assert header.sectionSize(0) >= 100
    assert "in parallel: step 4: split points of fnlwgt" in table.item(0, 0).text()
    fm = table.fontMetrics()
    for c in shown[1:]:
        if COLUMNS[c] in ("epsilon", "sensitivity", "scale"):  # every number fits its column
            for r in range(table.rowCount()):
                assert fm.horizontalAdvance(table.item(r, c).text()) <= header.sectionSize(c), (COLUMNS[c], r)


def test_the_documentation_menu_names_every_document_in_words():
    """Issue 24 item 8: the Docs menu said "scale" and "stream" (file names)."""
    from dpstudio.gui.help import doc_files, doc_title

    files = doc_files()
    assert {"stream.md", "scale.md"} <= {p.name for p in files}
    for p in files:
        assert doc_title(p) not in (p.stem, p.name) and doc_title(p)[0].isupper(), p.name


def test_a_new_file_clears_the_previous_files_message(qtbot, window, small_csv):
    """Issue 24 item 5: old errors stayed in the status bar after a file change."""
    window.show_error("not ready to run: the previous file's taxonomy misses 'x'")
    window.panels["Data"].open_file(small_csv)
    qtbot.waitUntil(lambda: window.project.frame is not None, timeout=30000)
    assert "previous file" not in window.message_label.text()
    assert "small.csv" in window.message_label.text()  # what is shown now is about the new file


def test_a_live_release_runs_gauge_says_the_budget_was_charged_first(qtbot, window):
    """Issue 24 item 5: the Watch read "spent 0" during a release run already charged to the store."""
    watch = window.panels["Watch"]
    window.project.set_mode("release")
    watch.live = True
    watch._ledger_key = None
    watch._side_drawn = 0.0
    watch._refresh()
    assert "charged before the run" in watch.ledger.gauge.format()
    watch.live = False
    watch._ledger_key = None
    watch._refresh()
    assert "charged" not in watch.ledger.gauge.format()
    # walk finding: "spent 1 of epsilon 1" read as the dataset's lifetime budget; it is this run's
    assert watch.ledger.gauge.format().startswith("this run spent") and "of its epsilon" in watch.ledger.gauge.format()


def test_the_stream_source_dialog_names_its_file_inside_the_dialog(qtbot, tmp_path):
    """Walk finding: without a title bar nothing said which file the dialog was about."""
    from dpstudio.gui.widgets.stream_source_dialog import StreamSourceDialog

    dialog = StreamSourceDialog(tmp_path / "visits <2024>.csv", ["who", "at"])
    qtbot.addWidget(dialog)
    assert "visits &lt;2024&gt;.csv" in dialog.heading.text() and dialog.heading.wordWrap()


def test_a_job_started_after_a_note_shows_its_own_words_but_an_error_stays(qtbot, window):
    """A walk saw the billion-row open's progress bar with no words: the 'opened adult.csv.gz' note hid the
    job's status (which pass of the file). A note gives way to the job; an error is kept."""
    import threading

    from dpstudio.gui.worker import Worker

    go = threading.Event()

    def job(progress):
        progress(1, 4, "counting each column's values")
        go.wait(5)

    window.show_info("opened adult.csv.gz: 30,162 rows, 15 attributes")
    worker = window.start_worker(Worker(job, function=True, name="loading big.parquet"))
    assert worker is not None and not window.message_bar.isVisible()
    qtbot.waitUntil(lambda: window.status_label.text() == "counting each column's values", timeout=5000)
    assert window.status_label.isVisible()
    go.set()
    qtbot.waitUntil(lambda: worker.outcome is not None, timeout=5000)

    go.clear()
    window.show_error("could not open broken.csv: it is empty")
    worker = window.start_worker(Worker(job, function=True, name="loading other.parquet"))
    assert window.message_bar.isVisible() and "broken.csv" in window.message_label.text()
    go.set()
    qtbot.waitUntil(lambda: worker.outcome is not None, timeout=5000)
