"""One release path (issue 21), through the real widgets: the Stream panel asks the release question (No
spends nothing), a run on derived inputs is refused and what is exported is what ran, declarations stay with
their file (re-applied only when asked, with that wording), column types are confirmed together, an absurd
epsilon is refused in words, and a second release in the same project follows a deliberate raise of the
dataset's lifetime total."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pandas as pd
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from dpstudio.io.budget_store import open_store
from dpstudio.model.project import provenance as pv
from dpstudio.model.project.project import RELEASE, Project
from dpstudio.model.stream.session import COUNTS, StreamSource
from tests.gui.export_fixtures import table_project
from tests.gui.test_run_epsilon import Answer, click_run, type_epsilon

Qt = QtCore.Qt


def spent(store_option=None):
    return {d.name: d.spent for d in (open_store(store_option).datasets())}


# -- 1. the Stream panel asks ---------------------------------------------------------------------------------
def test_stream_release_asks_and_no_spends_nothing(qtbot, tmp_path):
    from dpstudio.gui.panels.stream import StreamPanel

    path = tmp_path / "visits.csv"
    path.write_text("count\n" + "".join(f"{100 + i % 7}\n" for i in range(40)))
    project = Project()
    project.budget_store = str(tmp_path / "budget.sqlite")
    project.set_mode(RELEASE)
    panel = StreamPanel(project)
    qtbot.addWidget(panel)
    assert panel.set_source(StreamSource(COUNTS, path))
    panel.window_box.setValue(5)
    panel.eps_edit.setText("0.5")
    no = Answer(key=Qt.Key_Return)  # Enter: the default answer, No
    panel.exec_dialog = no
    click_run(qtbot, panel)
    assert len(no.boxes) == 1
    text, default_no = no.boxes[0]
    assert default_no and "dataset 'visits'" in text and "epsilon = 0.5" in text and "cannot be undone" in text
    assert panel.playback is None and "nothing was spent" in panel.last_message
    assert spent(project.budget_store) == {}
    yes = Answer(button=QtWidgets.QMessageBox.Yes)
    panel.exec_dialog = yes
    click_run(qtbot, panel)
    qtbot.waitUntil(lambda: panel.playback is not None, timeout=20000)
    assert spent(project.budget_store) == {"visits": Fraction(1, 2)}
    assert panel.result.is_release and panel.ledger.spent == Fraction(1, 2)
    # the lifetime total was this release's epsilon: a second run is refused before anything is asked
    click_run(qtbot, panel)
    assert len(yes.boxes) == 1 and "does not fit its lifetime budget" in panel.last_message
    assert spent(project.budget_store) == {"visits": Fraction(1, 2)}
    panel.shutdown()


# -- 2. derived inputs: refused at Run; what is exported is what ran --------------------------------------
def _studio(window, tmp_path):
    data = tmp_path / "people.csv"
    data.write_text("stand-in for the file name\n")
    p = table_project(steps=2, project=window.project, path=data)
    p.set_mode(RELEASE)
    panel = window.show_panel("Algorithm")
    panel.exec_dialog = Answer(button=QtWidgets.QMessageBox.Yes)
    return p, panel


def test_derived_bounds_refuse_the_run_and_the_export_describes_what_ran(qtbot, window, tmp_path):
    p, panel = _studio(window, tmp_path)
    p.propose_bounds("age")  # the data's min and max + 1: derived, not private
    click_run(qtbot, panel)
    qtbot.wait(50)
    assert p.result is None and "public bounds of age was derived from the data" in panel.last_error
    assert panel.eps_error.text() == "Not ready: 1 problem to fix first"  # the checklist beside Run lists it
    assert spent() == {} or "people" not in spent()
    export = window.panel("Export")
    assert not export.export_button.isEnabled()
    # confirmed deliberately, run, then public bounds typed over them without running again
    p.confirm_public(pv.key(pv.BOUNDS, "age"), "Ages of this survey are published as the range seen.")
    ran_with = p.bounds["age"]
    click_run(qtbot, panel)
    qtbot.waitUntil(lambda: p.result is not None, timeout=60000)
    p.set_bounds("age", 0, 120)  # typed by the user, after the run
    assert export.export_button.isEnabled()
    paths = export.export_to(tmp_path, "r", confirm=False)
    side = json.loads(paths[1].read_text())
    rec = {d["key"]: d for d in side["public_inputs"]}
    # the sidecar says what ran: the derived bounds with their confirmation, not "typed by you"
    assert rec["bounds:age"]["derived"] is True and rec["bounds:age"]["source"] == pv.BOUNDS_FROM_DATA
    assert rec["bounds:age"]["confirmed"] == "Ages of this survey are published as the range seen."
    assert (
        f"--bounds age={int(ran_with[0])}:{int(ran_with[1])}" in paths[3].read_text()
    )  # the re-run script: the bounds that ran


# -- 3. declarations stay with their file ------------------------------------------------------------------
def _write(path, seed):
    rng = np.random.default_rng(seed)
    pd.DataFrame(
        {"age": rng.integers(20, 60, 50), "sex": rng.choice(["F", "M"], 50), "income": rng.choice(["lo", "hi"], 50)}
    ).to_csv(path, index=False)
    return path


def test_opening_another_file_drops_its_declarations_and_offers_them(qtbot, window, tmp_path):
    from dpstudio.core.taxonomy_generators import flat_categorical

    data = window.show_panel("Data")
    first, second = _write(tmp_path / "adultlike.csv", 1), _write(tmp_path / "survey.csv", 2)
    data.open_file(first)
    qtbot.waitUntil(lambda: window.project.data_path == first, timeout=20000)
    p = window.project
    p.set_bounds("age", 17, 91, "the bundled Adult sample's public bounds")
    p.set_taxonomy("sex", flat_categorical(["F", "M"], "sex"), "declared by the sample's documentation")
    p.set_classes(["hi", "lo"])
    assert not data.reapply_row.isVisible()
    data.open_file(second)
    qtbot.waitUntil(lambda: window.project.data_path == second, timeout=20000)
    # nothing declared for the first file describes the second
    assert p.bounds == {} and p.taxonomies == {} and p.classes is None
    assert not any("Adult" in pr.source or "sample" in pr.source for pr in p.provenance.values())
    assert data.reapply_row.isVisible() and "adultlike.csv" in data.reapply_label.text()
    for named in ("bounds of age", "taxonomy of sex"):  # which inputs, not only how many
        assert named in data.reapply_label.text()
    qtbot.mouseClick(data.reapply_button, Qt.LeftButton)
    assert p.bounds["age"] == (17.0, 91.0) and "sex" in p.taxonomies and p.classes == ["hi", "lo"]
    words = p.provenance_of(pv.key(pv.BOUNDS, "age")).source
    assert words == (
        "the bundled Adult sample's public bounds; re-applied from the declarations for adultlike.csv to survey.csv"
    )
    assert not data.reapply_row.isVisible()


def test_declarations_are_offered_only_to_a_file_they_describe(qtbot, window, tmp_path):
    """A file sharing no column with the previous one is not offered its declarations."""
    from dpstudio.core.taxonomy_generators import flat_categorical

    data = window.show_panel("Data")
    first = _write(tmp_path / "adultlike.csv", 1)
    other = tmp_path / "votes.csv"
    pd.DataFrame({"ideo": ["a", "b"] * 30, "vote": ["y", "n"] * 30}).to_csv(other, index=False)
    data.open_file(first)
    qtbot.waitUntil(lambda: window.project.data_path == first, timeout=20000)
    window.project.set_taxonomy("sex", flat_categorical(["F", "M"], "sex"), "declared")
    data.open_file(other)
    qtbot.waitUntil(lambda: window.project.data_path == other, timeout=20000)
    assert window.project.previous_declarations is not None and not data.reapply_row.isVisible()


def test_column_types_are_confirmed_together(qtbot, window, tmp_path):
    data = window.show_panel("Data")
    path = _write(tmp_path / "survey.csv", 3)
    data.open_file(path)
    qtbot.waitUntil(lambda: window.project.data_path == path, timeout=20000)
    p = window.project
    p.set_mode(RELEASE)
    from dpstudio.model.release.readiness import readiness

    types = [x for x in readiness(p) if x.place == "data.types"]
    # the checklist names those the release depends on (the quasi-identifiers), in one line
    assert len(types) == 1 and "the types of 2 columns (age, sex)" in types[0].text
    assert data.types_button.isEnabled() and "(3)" in data.types_button.text()
    assert window.go_to("data.types", "age") is data.types_button

    def accept():
        dialog = data.types_dialog
        assert dialog.list.count() == 3 and dialog.checked() == ["age", "sex", "income"]
        QTest.keyClick(dialog.statement, Qt.Key_Return)  # Enter presses Confirm

    QtCore.QTimer.singleShot(0, accept)
    qtbot.mouseClick(data.types_button, Qt.LeftButton)
    assert [x for x in readiness(p) if x.place == "data.types"] == []
    prov = p.provenance_of(pv.key(pv.TYPE, "sex"))
    assert prov.derived and prov.confirmed.startswith("I confirm that these column types")
    assert not data.types_button.isEnabled()


# -- 4. an absurd epsilon ----------------------------------------------------------------------------------
def test_an_absurd_epsilon_is_refused_in_words_and_a_large_one_cautioned(qtbot, window, tmp_path):
    p, panel = _studio(window, tmp_path)
    type_epsilon(qtbot, panel, "1e9")  # any exception in a slot fails the test (pytest-qt)
    assert not panel.run_button.isEnabled()
    assert "beyond what any figure can show" in panel.eps_error.text()
    click_run(qtbot, panel)
    assert p.result is None
    type_epsilon(qtbot, panel, "50")
    assert panel.run_button.isEnabled() and "almost no privacy" in panel.eps_understood.text()
    answer = Answer(key=Qt.Key_Return)
    panel.exec_dialog = answer
    p.set_dataset_total(50)
    click_run(qtbot, panel)
    assert "almost no privacy" in answer.boxes[0][0]
    assert p.result is None  # No: nothing spent


# -- 5. a second release in the same project ---------------------------------------------------------------
def test_release_raise_the_total_and_release_again_in_the_same_project(qtbot, window, tmp_path):
    p, panel = _studio(window, tmp_path)
    click_run(qtbot, panel)
    qtbot.waitUntil(lambda: p.result is not None, timeout=60000)
    first = p.result
    assert spent()["people"] == 1
    qtbot.waitUntil(lambda: "0 of 1 epsilon left" in panel.budget_label.text(), timeout=5000)
    click_run(qtbot, panel)  # refused: the lifetime total is spent
    qtbot.wait(50)
    assert p.result is first and "does not fit its lifetime budget" in panel.last_error
    assert "Algorithm panel (dataset budget)" in panel.last_error and panel.eps_error.text().startswith(
        "Not ready: 1 problem"
    )
    assert panel.apply_dataset_budget(total="2")  # the deliberate raise (asked, answered Yes)
    click_run(qtbot, panel)
    qtbot.waitUntil(lambda: p.result is not first and p.result is not None, timeout=60000)
    assert spent()["people"] == 2 and p.release_ledger.spent == 1
    assert window.panel("Export").export_button.isEnabled()
    # the store changed outside the studio: the panel re-reads it when shown
    open_store().set_total("people", 3)
    window.show_panel("Data")
    window.show_panel("Algorithm")
    assert "1 of 3 epsilon left" in panel.budget_label.text()
