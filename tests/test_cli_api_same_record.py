"""The command line and the Python API drive one run session: for the same inputs and the same noise, their
release sidecars are equal (public inputs and provenance included), except the creation time.

The noise: both runs go through the release service, which hands out its secure noise source; here that source
is replaced by a seeded one that calls itself secure, so that two runs can be compared value for value. The
budget store is real (one per front end), so each run is charged as a release.
"""

from __future__ import annotations

import json

import pytest

from dpstudio.cli import main
from dpstudio.core.noise import SecureNoise, SimulationNoise

TAXONOMIES = "dpstudio/resources/taxonomies/adult"


class SeededSecure(SecureNoise):
    """Seeded noise that the writers take for secure noise (tests only): every draw is a
    ``SimulationNoise(11)`` draw."""

    def __init__(self) -> None:
        self._seeded = SimulationNoise(11)

    def laplace_counts(self, counts, scale):
        return self._seeded.laplace_counts(counts, scale)

    def noisy_max(self, scores, scale):
        return self._seeded.noisy_max(scores, scale)

    def exponential(self, scores, scale):
        return self._seeded.exponential(scores, scale)

    def randbelow(self, n):
        return self._seeded.randbelow(n)


@pytest.fixture
def seeded(monkeypatch):
    import dpstudio.model.release.service as service

    monkeypatch.setattr(service, "SecureNoise", SeededSecure)


def _without_time(meta: dict) -> dict:
    meta = dict(meta)
    for key in ("created", "created_at", "time"):
        meta.pop(key, None)
    budget = dict(meta.get("dataset_budget") or {})
    budget.pop("time", None)
    meta["dataset_budget"] = budget
    return meta


def _api_release(tmp_path, store, algorithm, steps):
    from dpstudio import api
    from dpstudio.model.project.data import bundled_sample_path

    study = api.open_table(bundled_sample_path(), store=store, dataset_name="adult")
    study.use_only("age", "education", "sex", "Y")
    study.declare_class("Y", ["<=50K", ">50K"], why="declared on the command line: --classes")
    study.declare_taxonomy("education", f"{TAXONOMIES}/education.csv")
    study.declare_taxonomy("sex", f"{TAXONOMIES}/sex.csv")
    study.declare_bounds(
        "age", 17, 91, kind="integer", why="declared on the command line: --bounds age=17:91 --type age=integer"
    )
    study.choose(algorithm, steps=steps)
    release = study.release(study.question(1))
    (tmp_path / "api").mkdir()
    csv = release.export(tmp_path / "api", "out")[0]
    return json.loads(csv.with_suffix(".json").read_text())


def _cli_release(tmp_path, store, algorithm, steps):
    from dpstudio.model.project.data import bundled_sample_path

    out = tmp_path / "cli" / "out.csv"
    out.parent.mkdir()
    argv = [
        "release",
        "--data",
        str(bundled_sample_path()),
        "--class",
        "Y",
        "--classes",
        "<=50K,>50K",
        "--taxonomy",
        f"sex={TAXONOMIES}/sex.csv",
        "--taxonomy",
        f"education={TAXONOMIES}/education.csv",
        "--bounds",
        "age=17:91",
        "--type",
        "age=integer",
        "--algorithm",
        algorithm,
        "--epsilon",
        "1",
        "--out",
        str(out),
        "--budget-store",
        str(store),
        "--dataset-name",
        "adult",
    ]
    if steps:
        argv += ["--steps", str(steps)]
    assert main(argv) == 0
    return json.loads(out.with_suffix(".json").read_text())


@pytest.mark.parametrize("algorithm", ["diffgen-consistent", "diffgen", "maxgddp"])
def test_the_cli_and_the_api_write_the_same_sidecar(tmp_path, seeded, algorithm):
    """Same data, same declarations (the command line names the taxonomies in another order than the
    columns), same seed: the same run and the same sidecar, public inputs and their provenance included."""
    from dpstudio.algorithms.registry import algorithm_id

    cli = _cli_release(tmp_path, tmp_path / "cli.db", algorithm, 4)
    api = _api_release(tmp_path, tmp_path / "api.db", algorithm_id(algorithm), 4)
    assert cli["public_inputs"] == api["public_inputs"]
    assert [a["name"] for a in cli["attributes"]] == ["age", "education", "sex"]
    assert _without_time(cli) == _without_time(api)


def test_automatic_steps_are_recorded_alike(tmp_path, seeded):
    """Without a height, both choose h from epsilon and say so in the same words."""
    cli = _cli_release(tmp_path, tmp_path / "cli.db", "diffgen-consistent", None)
    api = _api_release(tmp_path, tmp_path / "api.db", "diffgen_consistency", 0)
    assert cli["steps_choice"]["automatic"] is True
    assert cli["steps_choice"] == api["steps_choice"]
    assert _without_time(cli) == _without_time(api)
