"""Histogram release files: CSV columns, sidecar contents, no true counts, atomic refusal to overwrite."""

import json

import numpy as np
import pytest

from dpstudio.algorithms.interval_trees import IntervalTreeParams, release_histogram
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SimulationNoise
from dpstudio.io.atomic import OutputPathError
from dpstudio.io.histogram_release import write_histogram_release

COUNTS = np.array([1234567, 7654321, 1111111, 2222222, 3333333, 4444444])


def make(tmp_path, **kw):
    ledger = Ledger(1)
    result = release_histogram(COUNTS, IntervalTreeParams("luedp", 1.0, branching=2, **kw), SimulationNoise(4), ledger)
    return result, ledger


def test_csv_edges_are_written_exactly(tmp_path):
    # six significant digits printed 1000000 and 1000001 both as 1e+06: bins the reader cannot tell apart
    result, ledger = make(tmp_path)
    edges = [1_000_000 + k for k in range(6)] + [1_000_006.0625]
    csv_path, _ = write_histogram_release(tmp_path / "h.csv", result, ledger, edges, {"source": "test"})
    rows = [line.split(",") for line in csv_path.read_text().splitlines()[1:]]
    assert [float(r[2]) for r in rows] == edges[:-1] and [float(r[3]) for r in rows] == edges[1:]
    assert rows[0][2:4] == ["1000000", "1000001"] and rows[-1][3] == "1000006.0625"


def test_csv_and_sidecar(tmp_path):
    result, ledger = make(tmp_path)
    edges = [0, 10, 20, 30, 40, 50, 60]
    csv_path, json_path = write_histogram_release(tmp_path / "h.csv", result, ledger, edges, {"source": "test"})
    lines = csv_path.read_text().splitlines()
    assert lines[0] == "not_a_release,bin,lo,hi,count" and len(lines) == 7  # simulation noise: marked
    assert lines[1].startswith("simulation noise (simulation (seed 4)),1,0,10,")
    assert np.allclose([float(l.split(",")[4]) for l in lines[1:]], result.released)
    side = json.loads(json_path.read_text())
    assert side["release"] is False and side["algorithm"] == "luedp"
    assert side["ledger"]["spent"] == "1"
    assert side["tree"]["branching"] == 2 and side["tree"]["root_noised"] is True
    assert side["budgets"]["max_path_sum"] <= 1.0
    assert side["expected_all_range_mse"] == pytest.approx(result.plan.expected_consistent_mse)
    assert side["expected_raw_tree_all_range_mse"] == pytest.approx(result.plan.expected_raw_mse)
    # no true count (of any bin or tree node) anywhere in the files
    truth = set(result.plan.tree.node_counts(COUNTS).tolist())
    written = [float(l.split(",")[3]) for l in lines[1:]]

    def walk(o):
        if isinstance(o, dict):
            for v in o.values():
                yield from walk(v)
        elif isinstance(o, list):
            for v in o:
                yield from walk(v)
        elif isinstance(o, (int, float)) and not isinstance(o, bool):
            yield o
        elif isinstance(o, str):
            for tok in o.replace(",", " ").replace("(", " ").replace(")", " ").split():
                try:
                    yield float(tok)
                except ValueError:
                    pass

    assert not truth & set(written) and not truth & set(walk(side))


def test_refuses_to_overwrite_either_file(tmp_path):
    result, ledger = make(tmp_path)
    (tmp_path / "h.json").write_text("keep")
    with pytest.raises(OutputPathError, match="already exists"):
        write_histogram_release(tmp_path / "h.csv", result, ledger)
    assert not (tmp_path / "h.csv").exists() and (tmp_path / "h.json").read_text() == "keep"
    write_histogram_release(tmp_path / "h.csv", result, ledger, overwrite=True)
    assert json.loads((tmp_path / "h.json").read_text())["n_bins"] == 6
