"""Export panel messages: an existing file is named in the studio's words; a new run does not list the
previous release's files."""

import pytest

from dpstudio.gui.panels.export import ExportPanel
from dpstudio.io.atomic import OutputPathError
from tests.gui.export_fixtures import histogram_data_project, run


def _panel(qtbot, project):
    w = ExportPanel(project)
    qtbot.addWidget(w)
    w.show()
    return w


def test_existing_file_error_speaks_studio_words(qtbot, tmp_path):
    p = histogram_data_project()
    p.set_mode("release")
    run(p)
    w = _panel(qtbot, p)
    (tmp_path / "r.json").write_text("mine")
    with pytest.raises(OutputPathError) as err:
        w.export_to(tmp_path, "r", confirm=False)
    text = str(err.value)
    assert "--overwrite" not in text
    assert "r.json already exists" in text and "choose another file name or folder" in text
    w.folder_edit.setText(str(tmp_path))
    w.name_edit.setText("r")
    w.export_button.click()
    assert "--overwrite" not in w.message.text() and "choose another file name" in w.message.text()
    assert (tmp_path / "r.json").read_text() == "mine" and sorted(x.name for x in tmp_path.iterdir()) == ["r.json"]


def test_a_new_run_does_not_list_the_previous_release_files(qtbot, tmp_path):
    p = histogram_data_project()
    p.set_mode("release")
    run(p)
    w = _panel(qtbot, p)
    paths = w.export_to(tmp_path, "first", confirm=False)
    assert str(paths[0]) in w.message.text() and w.last_paths == paths
    p.set_epsilon(p.epsilon)  # nothing new: the list stays
    w.refresh()
    assert str(paths[0]) in w.message.text()
    p.set_mode("teaching")
    run(p)  # a new run (one release per project: the next one here is a teaching run)
    assert "first.csv" not in w.message.text() and w.last_paths == []
