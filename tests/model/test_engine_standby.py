"""model.release.engine_standby: a large run's engine process forked from a standby that holds the table.

A run forked from the standby gives the events of an in-process run, with the settings the project has now
(changed after the standby was forked); the standby serves only the load it was forked on; a table changed
under it, a setting that does not pickle, or a standby that died make the run fork from the studio instead;
input errors come back before any spend; closing the events stops the run's process."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

from dpstudio.core.events import RunFinished
from dpstudio.core.taxonomy import Node, Taxonomy
from dpstudio.io.datasets import Dataset
from dpstudio.model.project.project import PART_FIELDS
from dpstudio.model.release import engine_standby, run_process
from dpstudio.model.release.runs import RunInputError
from dpstudio.model.release.session import RunSession, make_job

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the engine process forks (Linux)")

sys.path.insert(0, os.path.dirname(__file__))
from test_run_process import child_run, project  # noqa: E402


@pytest.fixture
def forks(monkeypatch):
    """Which way each run's engine process was forked: "standby", "stale" (the standby refused) or "studio"."""
    seen: list[str] = []
    fork_run = engine_standby.StandbyEngine.fork_run
    start = run_process.ChildRun._start
    fork_here = run_process._fork_here

    def counted_fork_run(self, project):
        forked = fork_run(self, project)
        seen.append("standby" if forked is not None else "standby failed")
        return forked

    def counted_start(self, project, standby):
        kind, payload = start(self, project, standby)
        if kind == "stale":
            seen.append("stale")
        return kind, payload

    def counted_fork_here(project):
        seen.append("studio")
        return fork_here(project)

    monkeypatch.setattr(engine_standby.StandbyEngine, "fork_run", counted_fork_run)
    monkeypatch.setattr(run_process.ChildRun, "_start", counted_start)
    monkeypatch.setattr(run_process, "_fork_here", counted_fork_here)
    return seen


def in_process(p) -> list:
    job, _setup = make_job(p)
    return list(job())


def same_run(here: list, there: list) -> None:
    assert len(there) == len(here) and isinstance(there[-1], RunFinished)
    assert there[:-1] == here[:-1]  # the same seed: every event equal, in the same order
    np.testing.assert_array_equal(here[-1].result.counts, there[-1].result.counts)


@pytest.mark.parametrize("algorithm", ["diffgen_consistency", "maxgddp"])
def test_a_run_forked_from_the_standby_gives_the_events_of_an_in_process_run(algorithm, forks):
    p = project(algorithm=algorithm)
    assert engine_standby.keep_ready(p, True, run_process.serve_run)
    there, _ = child_run(p)
    assert forks == ["standby"]
    same_run(in_process(p), there)


def test_the_run_takes_the_settings_the_project_has_now_not_those_of_the_standbys_fork(forks):
    p = project()
    engine_standby.keep_ready(p, True, run_process.serve_run)
    # every part changes after the fork: the epsilon and the algorithm's steps, a taxonomy, a role, the mode's seed
    p.set_epsilon(3)
    p.set_algorithm("diffgen_consistency", {"steps": 2})
    root = Node("*")
    for leaf in "abcd":
        root.add(Node(leaf))
    p.set_taxonomy("edu", Taxonomy(root))
    p.set_role("age", "ignore")
    p.settings.seed = 7
    there, _ = child_run(p)
    assert forks == ["standby"]
    same_run(in_process(p), there)
    assert there[-1].result.counts.size == 4 * 2  # four leaves, two classes, age ignored: the new settings ran


def test_a_run_sends_the_parts_fields_but_not_their_caches():
    """The studio pickles what it sends while holding its interpreter lock: a part's caches (value counts or
    missing-value masks of every row, filled as panels ask) once made that 130 MB and a third of a second."""
    p = project()
    p.value_counts("edu")  # fills the source part's cache
    p.source.__dict__["_big_cache"] = np.zeros(10**6)
    sent = engine_standby._settings(p)
    assert "_vc_cache" in vars(p.source) and not any(k.endswith("_cache") for k in sent["source"])
    assert set(sent["inputs"]) == set(PART_FIELDS["inputs"])  # every field of the declarations and settings
    assert set(sent["settings"]) == set(PART_FIELDS["settings"])
    assert set(sent["source"]) == set(PART_FIELDS["source"]) - {"dataset", "_loaded"}
    assert len(pickle.dumps(sent)) < 50_000


def test_the_standby_serves_only_the_load_it_was_forked_on():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"n": rng.integers(0, 1000, 300), "cls": rng.choice(["a", "b"], 300)})
    p = project()
    p.set_data(Dataset(frame, types={"n": "numeric", "cls": "categorical"}), None)
    assert engine_standby.keep_ready(p, True, run_process.serve_run)
    assert engine_standby.serving(p) is not None
    assert not engine_standby.keep_ready(p, True, run_process.serve_run)  # kept: no second fork
    p.set_type("n", "categorical")  # converted in place: the same frame object, a new history
    assert engine_standby.serving(p) is None
    assert engine_standby.keep_ready(p, True, run_process.serve_run)  # the stale one closed, a new one forked
    assert len(multiprocessing.active_children()) == 1
    p.dataset.frame = p.dataset.frame.copy()  # another frame under the same load and dataset: not served
    assert engine_standby.serving(p) is None
    assert engine_standby.keep_ready(p, True, run_process.serve_run)
    p.set_data(frame.copy(), None)  # another load
    assert engine_standby.serving(p) is None
    assert not engine_standby.keep_ready(
        p, False, run_process.serve_run
    )  # not wanted (a small table): closed, none forked
    assert engine_standby.serving(p) is None and not multiprocessing.active_children()


def test_a_table_changed_under_the_standby_is_refused_by_the_run_and_the_run_forks_from_the_studio(forks):
    p = project()
    engine_standby.keep_ready(p, True, run_process.serve_run)
    p.frame["age"] = p.frame["age"].astype(float)  # in place, without a history: only the run's check sees it
    assert engine_standby.serving(p) is not None
    there, _ = child_run(p)
    assert forks == ["standby", "stale", "studio"]
    same_run(in_process(p), there)


def test_a_setting_that_does_not_pickle_or_a_dead_standby_makes_the_run_fork_from_the_studio(forks, monkeypatch):
    p = project()
    engine_standby.keep_ready(p, True, run_process.serve_run)
    with monkeypatch.context() as m:
        m.setattr(engine_standby, "_settings", lambda _p: {"settings": {"seed": lambda: 0}})
        there, _ = child_run(p)
    assert forks == ["standby failed", "studio"]
    same_run(in_process(p), there)
    forks.clear()
    standby = engine_standby.serving(p)
    standby._process.kill()
    standby._process.join()
    assert engine_standby.serving(p) is None  # a dead standby serves nobody
    there, _ = child_run(p)
    assert forks == ["studio"]
    same_run(in_process(p), there)


def test_an_input_error_in_a_run_from_the_standby_comes_back_before_any_spend(monkeypatch, forks):
    from dpstudio.model.release import runs

    def refuse(_p):
        raise RunInputError("no such column")

    monkeypatch.setattr(runs, "prepare_run", refuse)  # before the fork: the standby holds it
    p = project()
    engine_standby.keep_ready(p, True, run_process.serve_run)
    with pytest.raises(RunInputError, match="no such column"):
        RunSession.in_child(p)
    assert forks == ["standby"]
    assert p.record is None and p.release_ledger is None


def _silent(*_args, **_kwargs):
    """A run that says one thing and then computes for ever without sending: only a kill stops it."""
    from dpstudio.core.events import Progress

    yield Progress(1, 0, "working")
    time.sleep(run_process.BATCH_SECONDS)
    yield Progress(2, 0, "working")  # the first batch goes now
    while True:
        time.sleep(0.01)


def test_closing_the_events_of_a_run_from_the_standby_stops_its_process(monkeypatch, forks):
    from dpstudio.model.release import runs

    monkeypatch.setattr(runs, "prepare_run", lambda _p: runs.PreparedRun(_silent, (), 200))
    p = project(rows=200)
    engine_standby.keep_ready(p, True, run_process.serve_run)
    pids: list[int] = []
    fork_run = engine_standby.StandbyEngine.fork_run
    monkeypatch.setattr(
        engine_standby.StandbyEngine,
        "fork_run",
        lambda self, q: (lambda f: (pids.append(f[1]), f)[1])(fork_run(self, q)),
    )
    session = RunSession.in_child(p)
    session.begin()
    events = session.events()
    assert next(events).message == "working"
    assert _alive(pids[0])  # it runs: it never ends by itself
    closing = threading.Thread(target=events.close, daemon=True)
    closing.start()
    closing.join(10)
    assert not closing.is_alive()  # the standby killed it (a process that never sends never sees its pipe close)
    assert not _alive(pids[0])
    assert engine_standby.serving(p) is not None  # the standby stays for the next run


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie that nobody reaped yet does not: a container's init may not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_run_process_does_not_outlive_its_standby(monkeypatch):
    from dpstudio.model.release import runs

    monkeypatch.setattr(runs, "prepare_run", lambda _p: runs.PreparedRun(_silent, (), 200))
    p = project(rows=200)
    engine_standby.keep_ready(p, True, run_process.serve_run)
    standby = engine_standby.serving(p)
    here, pid = standby.fork_run(p)
    assert here.recv()[0] == "ready"
    standby._process.kill()  # the standby dies (the studio's end) while its run computes without sending
    standby._process.join()
    for _ in range(200):
        if not _alive(pid):
            break
        time.sleep(0.01)
    else:
        pytest.fail("the run process outlived its standby")
    here.close()


def test_keep_standby_wants_one_for_a_table_that_runs_in_its_own_process(monkeypatch):
    p = project()
    monkeypatch.setenv(run_process.ENV, "never")
    assert not run_process.keep_standby(p)
    assert engine_standby.serving(p) is None
    monkeypatch.setenv(run_process.ENV, "always")
    assert run_process.keep_standby(p)
    assert engine_standby.serving(p) is not None
    monkeypatch.setenv(run_process.ENV, "never")
    run_process.keep_standby(p)
    assert engine_standby.serving(p) is None and not multiprocessing.active_children()
