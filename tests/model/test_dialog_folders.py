"""The studio's file dialogs open beside the user's data, never inside the installed package (a walk
found the stream export and the test-file dialog opening in dpstudio/resources/samples)."""

from __future__ import annotations

from pathlib import Path

from dpstudio.model.project.folders import PACKAGE, beside
from dpstudio.resources import resource


def test_beside_the_users_data(tmp_path):
    data = tmp_path / "visits.csv"
    data.write_text("count\n1\n")
    assert beside(data) == tmp_path.resolve()


def test_home_for_a_bundled_sample_no_data_or_a_folder_that_is_gone(tmp_path):
    sample = resource("samples", "ILINet.csv.gz")
    assert PACKAGE in Path(sample).resolve().parents
    assert beside(sample) == Path.home()
    assert beside(None) == Path.home()
    assert beside(tmp_path / "gone" / "x.csv") == Path.home()


def test_the_stream_export_and_the_test_file_dialog_use_it(tmp_path):
    import numpy as np

    from dpstudio.algorithms.stream_runs import StreamParams
    from dpstudio.model.compare.held_out_table import folder_for_test_file
    from dpstudio.model.project.project import Project
    from dpstudio.model.stream.run import StreamRecord
    from dpstudio.model.stream.session import COUNTS, StreamSource

    sample = StreamSource(COUNTS, resource("samples", "ILINet.csv.gz"))
    record = StreamRecord(None, None, None, None, StreamParams("swm", 1, 4), sample, None, False)
    assert record.default_export_path() == Path.home() / "ILINet_swm.csv"
    own = StreamSource(COUNTS, tmp_path / "visits.csv")
    (tmp_path / "visits.csv").write_text("count\n" + "\n".join(map(str, np.arange(10))) + "\n")
    assert StreamRecord(None, None, None, None, StreamParams("swm", 1, 4), own, None, False).default_export_path() == (
        tmp_path.resolve() / "visits_swm.csv"
    )
    assert folder_for_test_file(Project()) == str(Path.home())
