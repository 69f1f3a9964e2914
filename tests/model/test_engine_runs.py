"""A studio project on a table read through DuckDB (io.engine_table): the same checks, the same runs event
for event as on the same file loaded into memory, the same budget-store charge, and a cancelled read spends
nothing."""

from __future__ import annotations

import numpy as np
import pytest

from dpstudio.io.datasets import Cancelled, load_table
from dpstudio.model.project.data import declare_bundled_sample, load_dataset
from dpstudio.model.project.project import RELEASE, Project
from dpstudio.model.release.runs import RunInputError, used_frame
from dpstudio.model.release.session import make_job
from tests.io.test_engines import adult_files

pytest.importorskip("duckdb")

from dpstudio.io.engine_table import open_engine_table  # noqa: E402

BOUNDS = {
    "age": (17, 91),
    "education-num": (1, 17),
    "hours-per-week": (1, 100),
    "capital-gain": (0, 100000),
    "capital-loss": (0, 4357),
    "fnlwgt": (10000, 1500000),
}


def declare_adult(p: Project, algorithm="maxgddp", **params) -> Project:
    """The Adult sample's public inputs and BOUNDS declared on ``p`` (data loaded), the algorithm at eps = 1."""
    declare_bundled_sample(p)
    for a, (lo, hi) in BOUNDS.items():
        p.set_bounds(a, lo, hi)
    p.set_algorithm(algorithm, params or None)
    p.set_epsilon(1.0)
    return p


def project_on(dataset, path, algorithm="maxgddp", **params) -> Project:
    p = Project()
    p.set_data(dataset, path)
    return declare_adult(p, algorithm, **params)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return adult_files(tmp_path_factory.mktemp("engine-runs"), rows=3000)


@pytest.mark.parametrize("which", [0, 1])  # CSV (", "-separated, '?' missing) and Parquet
@pytest.mark.parametrize(
    "algorithm,params",
    [("maxgddp", {}), ("diffgen_consistency", {"steps": 5}), ("hb", {"attribute": "age", "bins": 64})],
)
def test_runs_are_the_runs_on_the_loaded_table(files, which, algorithm, params):
    path = files[which]
    runs = []
    for dataset in (load_table(path), open_engine_table(path)):
        p = project_on(dataset, path, algorithm, **params)
        job, setup = make_job(p)
        events = list(job())
        runs.append((events, setup.ledger.to_dict(), p.dataset_print()))
    (ev_a, led_a, fp_a), (ev_b, led_b, fp_b) = runs
    assert len(ev_a) == len(ev_b) > 3
    for a, b in zip(ev_a[:-1], ev_b[:-1]):
        assert a == b
    res_a, res_b = ev_a[-1].result, ev_b[-1].result
    for field in vars(res_a):
        if field != "noise":  # the noise object (same seed, same draws) is another instance
            assert repr(getattr(res_a, field)) == repr(getattr(res_b, field)), field
    assert led_a == led_b and fp_a == fp_b


def test_missing_values_drop_and_keep_count_the_same(files):
    csv = files[0]
    for choice in ("drop", "keep"):
        sizes = []
        for dataset in (load_table(csv), open_engine_table(csv)):
            p = project_on(dataset, csv)
            p.set_missing(choice)
            if choice == "keep":
                with pytest.raises(RunInputError) as err:  # the taxonomy does not cover "Missing"
                    make_job(p)
                sizes.append(str(err.value))
            else:
                from dpstudio.model.release.runs import encode_table

                sizes.append(encode_table(p).n_records)
        assert sizes[0] == sizes[1]


def test_errors_are_found_before_any_spend(files):
    csv = files[0]
    p = project_on(open_engine_table(csv), csv)
    p.set_bounds("age", 30, 91)  # rows below 30 lie outside: found on the counts, nothing spent
    p.set_classes(["<=50K", ">50K"])
    p.set_mode(RELEASE)
    with pytest.raises(RunInputError, match="outside"):
        make_job(p)
    assert p.release_ledger is None or p.release_ledger.spent == 0
    with pytest.raises(RunInputError, match="DuckDB"):  # what needs the records says so
        used_frame(p, ["age"])


def test_a_cancelled_read_spends_nothing(files):
    csv = files[0]
    p = project_on(open_engine_table(csv), csv)
    p.set_classes(["<=50K", ">50K"])
    p.set_mode(RELEASE)
    with pytest.raises(Cancelled):
        make_job(p, progress=lambda done, total, what: False)
    assert p.release_ledger is None or p.release_ledger.spent == 0
    assert p.dataset_budget().spent == 0


def test_the_studio_opens_large_files_through_duckdb(files, monkeypatch):
    monkeypatch.setenv("DPSTUDIO_STUDIO_ENGINE", "duckdb")
    table = load_dataset(files[0])
    assert table.frame is None and table.records_print is not None
    monkeypatch.setenv("DPSTUDIO_STUDIO_ENGINE", "numpy")
    assert load_dataset(files[0]).frame is not None


@pytest.mark.parametrize("listed", [100_000, 10])  # 10: fnlwgt and age are summarised by SQL, not listed
def test_proposals_from_the_counts(files, listed, monkeypatch):
    """Bounds, kinds and class values proposed from the data (marked derived) are the same either way."""
    monkeypatch.setattr("dpstudio.io.engine_table.MAX_LISTED", listed)
    csv = files[1]
    got = []
    for dataset in (load_table(csv), open_engine_table(csv)):
        p = Project()
        p.set_data(dataset, csv)
        got.append(
            (
                p.propose_bounds("age"),
                p.propose_bounds("fnlwgt"),
                p.propose_numeric_type("fnlwgt"),
                p.propose_classes(),
                p.uncovered_values("sex"),
            )
        )
    assert got[0] == got[1]


def test_histogram_counts_of_a_column_with_missing_values(tmp_path):
    """One column comes from the counts read at opening (no pass): the same bins, and the same refusal of
    missing numbers under 'keep', as in memory."""
    from dpstudio.model.release.runs import histogram_counts

    path = tmp_path / "h.csv"
    ages = [str(a) for a in np.random.default_rng(5).integers(18, 90, 700)]
    for i in range(0, 700, 23):
        ages[i] = "?"
    path.write_text("age,y\n" + "".join(f"{a},{'ab'[i % 2]}\n" for i, a in enumerate(ages)))
    got = []
    for dataset in (load_table(path), open_engine_table(path)):
        p = Project()
        p.set_data(dataset, path)
        p.set_bounds("age", 0, 100)
        counts, edges, _ = histogram_counts(p, "age", 20)
        p.set_missing("keep")
        with pytest.raises(RunInputError) as err:
            histogram_counts(p, "age", 20)
        got.append((counts.tolist(), edges.tolist(), str(err.value)))
    assert got[0] == got[1] and sum(got[0][0]) == 700 - 31
