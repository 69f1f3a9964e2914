"""Large sparse releases: ``--omit-zero-cells`` (and the Export panel's box) leave out the rows whose released
count is 0. The sidecar says so and gives the number of cells, every absent leaf partition x class has count
0 (the same run written in full shows it), the report states the size, and D and D + one record give the
same non-noisy metadata."""

from __future__ import annotations

import pytest

from tests.cli_outputs import report_structure, run_writer, without
from tests.test_cli_neighbours import RELEASE_MECHANISM_OUTPUTS, release_argv, table_rows, write_table

SPARSE = (*RELEASE_MECHANISM_OUTPUTS, "zero_cells_omitted.cells")


def _argv(extra=()):
    argv = release_argv("diffgen", steps="4")
    return [*argv[:-4], "--out", "out.csv", "--report", "out.html", *extra]


def test_omitted_rows_are_exactly_the_zero_cells_of_the_same_run(tmp_path):
    rows = table_rows(120)
    write_table(tmp_path / "full", rows)
    write_table(tmp_path / "sparse", rows)
    seed = ["--seed", "5"]  # the same simulated noise twice: the same released counts
    full = run_writer(tmp_path / "full", _argv(seed), report="out.html")
    sparse = run_writer(tmp_path / "sparse", _argv([*seed, "--omit-zero-cells"]), report="out.html")
    header = full.rows[0]
    count = header.index("count")
    nonzero = [r for r in full.rows[1:] if float(r[count]) != 0]
    assert 0 < len(nonzero) < len(full.rows) - 1  # the case is met: some cells are 0
    assert sparse.rows[0] == header and sparse.rows[1:] == nonzero
    note = sparse.sidecar["zero_cells_omitted"]
    assert note["omitted"] is True and note["cells"] == len(full.rows) - 1
    assert "zero_cells_omitted" not in full.sidecar
    assert "count other than 0" in sparse.report and "count other than 0" in full.report
    assert "leaves out the cells whose count is 0" in sparse.report
    assert "leaves out the cells whose count is 0" not in full.report


@pytest.mark.parametrize("added", [("China", 33, "Maybe"), ("USA", 50, "Y")])
def test_neighbouring_tables_give_the_same_metadata(tmp_path, added):
    rows = table_rows(300)
    write_table(tmp_path / "d", rows)
    write_table(tmp_path / "d1", rows + [added])
    a, b = (run_writer(tmp_path / n, _argv(["--omit-zero-cells"]), report="out.html") for n in ("d", "d1"))
    assert a.rows[0] == b.rows[0]
    assert without(a.sidecar, SPARSE) == without(b.sidecar, SPARSE)
    assert report_structure(a.report) == report_structure(b.report)
