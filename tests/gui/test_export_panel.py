"""Export panel: refuses in teaching mode; in release mode writes CSV + JSON + HTML after confirmation,
atomically, and never overwrites."""

import json

import pandas as pd
import pytest
from PySide6 import QtWidgets

from dpstudio.gui.panels.export import ExportPanel, ExportRefused
from dpstudio.io.atomic import OutputPathError
from tests.gui.export_fixtures import histogram_data_project, run, table_project


def make_panel(qtbot, project):
    w = ExportPanel(project)
    qtbot.addWidget(w)
    w.show()
    return w


def released_histogram_panel(qtbot):
    """The panel over a histogram run in release mode (ready to export)."""
    p = histogram_data_project()
    p.set_mode("release")
    run(p)
    return make_panel(qtbot, p)


@pytest.fixture
def yes(monkeypatch):
    asked = []

    def question(parent, title, text, *args, **kw):
        asked.append(text)
        return QtWidgets.QMessageBox.Yes

    monkeypatch.setattr(QtWidgets.QMessageBox, "question", question)
    return asked


def test_teaching_mode_refuses(qtbot, tmp_path, yes):
    p = run(table_project())  # projects start in teaching mode
    assert p.teaching and p.result is not None
    w = make_panel(qtbot, p)
    assert not w.export_button.isEnabled()
    assert "TEACHING: NOT A RELEASE" in w.banner.text() and w.banner.isVisible()
    with pytest.raises(ExportRefused, match="Teaching mode"):
        w.export_to(tmp_path)
    assert list(tmp_path.iterdir()) == [] and yes == []  # nothing asked, nothing written
    from tests.gui.conftest import shot

    shot(w, "export_teaching")


def test_release_table_writes_three_files_after_confirmation(qtbot, tmp_path, yes):
    p = table_project()
    p.set_mode("release")
    run(p)
    w = make_panel(qtbot, p)
    assert w.export_button.isEnabled()
    paths = w.export_to(tmp_path, "adult")
    assert [x.name for x in paths] == [
        "adult.csv",
        "adult.json",
        "adult.report.html",
        "adult.command.sh",
        "adult.reproduce.py",
    ]
    assert len(yes) == 1 and f"epsilon = {float(p.run_ledger.spent):g}" in yes[0]
    frame = pd.read_csv(paths[0])
    assert list(frame.columns) == ["age", "sex", "work", "income", "count"]
    assert len(frame) == len(p.result.leaf_labels) * len(p.result.classes)
    side = json.loads(paths[1].read_text())
    assert side["not_a_release"] is False and side["ledger"]["spent"] == str(p.run_ledger.spent)
    assert side["dataset_budget"] == {
        "tracked": True,
        "dataset": "data",
        "charged": "1",
        "dataset_total": "1",
        "dataset_spent": "1",
        "dataset_remaining": "0",
    }
    html = paths[2].read_text()
    assert "differential privacy" in html and "add/remove one record" in html
    assert "NOT A RELEASE" not in html
    for e in p.run_ledger.entries:
        assert e.step in html
    from tests.gui.conftest import shot

    shot(w, "export_release_done")
    # no temporary files left behind
    assert sorted(x.name for x in tmp_path.iterdir()) == [
        "adult.command.sh",
        "adult.csv",
        "adult.json",
        "adult.report.html",
        "adult.reproduce.py",
    ]


def test_never_overwrites(qtbot, tmp_path, yes):
    w = released_histogram_panel(qtbot)
    (tmp_path / "hist.report.html").write_text("mine")
    with pytest.raises(OutputPathError, match="already exists"):
        w.export_to(tmp_path, "hist")
    assert yes == []  # refused before asking
    assert sorted(x.name for x in tmp_path.iterdir()) == ["hist.report.html"]
    assert (tmp_path / "hist.report.html").read_text() == "mine"
    paths = w.export_to(tmp_path, "hist2")
    assert len(paths) == 5 and all(x.exists() for x in paths)
    with pytest.raises(OutputPathError):
        w.export_to(tmp_path, "hist2")
    # the button path shows the reason instead of raising
    w.folder_edit.setText(str(tmp_path))
    w.name_edit.setText("hist2")
    w.export_button.click()
    assert "already exists" in w.message.text()


def test_a_refusal_is_gone_when_the_next_name_is_asked_about(qtbot, tmp_path, monkeypatch):
    """Walk 52: after "already exists", a new name's question was shown beside the old refusal."""
    w = released_histogram_panel(qtbot)
    (tmp_path / "hist.csv").write_text("mine")
    w.folder_edit.setText(str(tmp_path))
    w.name_edit.setText("hist")
    w.export_button.click()
    assert "already exists" in w.message.text()
    shown_when_asked = []

    def question(*a, **k):
        shown_when_asked.append(w.message.text())
        return QtWidgets.QMessageBox.Yes

    monkeypatch.setattr(QtWidgets.QMessageBox, "question", question)
    w.name_edit.setText("hist_second")
    w.export_button.click()
    assert shown_when_asked == [""]
    assert w.message.text().startswith("Written:") and (tmp_path / "hist_second.csv").exists()


def test_declined_confirmation_writes_nothing(qtbot, tmp_path, monkeypatch):
    w = released_histogram_panel(qtbot)
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", lambda *a, **k: QtWidgets.QMessageBox.No)
    with pytest.raises(ExportRefused, match="cancelled"):
        w.export_to(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_switching_to_teaching_disables_export(qtbot):
    w = released_histogram_panel(qtbot)
    assert w.export_button.isEnabled()
    w.project.set_mode("teaching")
    assert not w.export_button.isEnabled()
    assert "export is disabled" in w.banner.text()


def test_a_second_release_is_offered_a_name_of_its_own_after_an_export(qtbot, tmp_path, yes):
    """Walk 52: the name stayed "adult_release" after an export, so the next release's export was refused
    until renamed. A new release after an export gets the first free name (NAME_2, NAME_3, ...)."""
    w = released_histogram_panel(qtbot)
    w.folder_edit.setText(str(tmp_path))
    w.name_edit.setText("hist")
    w.export_button.click()
    assert (tmp_path / "hist.csv").exists() and w.name_edit.text() == "hist"  # the name stays with its files
    p = w.project
    p.set_dataset_total(3)  # room for two more releases of epsilon 1
    run(p)  # a second release of the same project
    assert w.name_edit.text() == "hist_2" and not w.message.text()
    w.export_button.click()
    assert w.message.text().startswith("Written:") and (tmp_path / "hist_2.report.html").exists()
    run(p)
    assert w.name_edit.text() == "hist_3"


def test_the_free_name_counts_on_past_every_file_of_a_release(tmp_path):
    from dpstudio.model.release.export import free_release_name, release_paths

    assert free_release_name(tmp_path, "adult_release") == "adult_release"
    (tmp_path / "adult_release.reproduce.py").write_text("")  # any one of the five files takes the name
    assert free_release_name(tmp_path, "adult_release") == "adult_release_2"
    for p in release_paths(tmp_path, "adult_release_2")[:1]:
        p.write_text("")
    assert free_release_name(tmp_path, "adult_release.csv") == "adult_release_3"
    (tmp_path / "run_7.json").write_text("")
    assert free_release_name(tmp_path, "run_7") == "run_8"  # a trailing number counts on
    assert free_release_name(tmp_path, "  ") == "release"
