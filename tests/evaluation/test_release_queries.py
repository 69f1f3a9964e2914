"""Range queries over a written release (table + cut) agree with the engine's own cells."""

import io

import numpy as np
import pandas as pd
import pytest

from dpstudio.algorithms.diffgen import preset, run_to_result
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SimulationNoise
from dpstudio.core.range_queries import answer, cell_weights, random_boxes
from dpstudio.evaluation.diffgen_trees import domain_of, leaf_cells
from dpstudio.evaluation.release_queries import ReleaseQueryError, parse_box, release_cells
from dpstudio.io.release import release_frame

from .test_diffgen_trees import small_input


def _release(seed=2):
    data = small_input(seed=seed)
    result = run_to_result(data, preset("diffgen", 1.0, 4), SimulationNoise(seed), Ledger(1.0))
    text = release_frame(result).to_csv(index=False)
    return data, result, pd.read_csv(io.StringIO(text))


def test_release_file_answers_equal_engine_cells():
    data, result, frame = _release()
    tax = {a.name: a.taxonomy for a in data.attributes if a.kind == "categorical"}
    domain, cells, counts, classes = release_cells(frame, result.cut, tax)
    assert classes == list(result.classes)
    engine_domain = domain_of(data)
    wl = random_boxes(engine_domain, 200, np.random.default_rng(0), attributes=(1, 2), n_classes=2)
    expected = answer(cell_weights(engine_domain, leaf_cells(result, engine_domain), wl), result.counts, wl.classes)
    got = answer(cell_weights(domain, cells, wl), counts, wl.classes)
    np.testing.assert_allclose(got, expected, atol=1e-9)


def test_release_without_taxonomies_uses_the_cut():
    _, result, frame = _release(3)
    domain, cells, counts, classes = release_cells(frame, result.cut)
    label = frame["colour"].iloc[0]
    wl = domain.workload([parse_box(f"colour={label}", domain)])
    got = answer(cell_weights(domain, cells, wl), counts, wl.classes)[0]
    assert got == pytest.approx(frame.loc[frame["colour"] == label, "count"].sum())
    box = parse_box("age=[0,50); colour=*", domain)
    assert box == {"age": (0.0, 50.0), "colour": "*"}


@pytest.mark.parametrize(
    "text, message",
    [
        ("height=[1,2)", "unknown attribute"),
        ("age=30", "interval like"),
        ("age=[5,5)", "empty interval"),
        ("colour=purple", "not a node"),
        ("colour", "attribute=value"),
    ],
)
def test_bad_queries(text, message):
    _, result, frame = _release()
    domain, *_ = release_cells(frame, result.cut)
    with pytest.raises(ReleaseQueryError, match=message):
        parse_box(text, domain)
