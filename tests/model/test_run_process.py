"""model.run_process through the run session (``RunSession.in_child``): a studio run in a forked engine process
gives the same events as in this process, the ledger here holds every spend before the noise it paid for,
input errors spend nothing, a session refused at its question stops the child having spent nothing, and
closing the events (Cancel) stops the child."""

from __future__ import annotations

import multiprocessing
import sys

import numpy as np
import pandas as pd
import pytest

from dpstudio.core.events import BudgetSpent, NodeNoised, RunFinished
from dpstudio.core.taxonomy import Node, Taxonomy
from dpstudio.io.budget_store import open_store
from dpstudio.model.project.project import RELEASE, Project, ProjectError
from dpstudio.model.release import run_process
from dpstudio.model.release.runs import RunInputError
from dpstudio.model.release.session import RunSession, make_job

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the engine process forks (Linux)")


def project(rows: int = 400, seed: int = 0, algorithm: str = "diffgen_consistency") -> Project:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.integers(17, 90, rows),
            "edu": rng.choice(["a", "b", "c", "d"], rows),
            "cls": rng.choice(["n", "y"], rows),
        }
    )
    root = Node("*")
    for group, leaves in (("ab", "ab"), ("cd", "cd")):
        g = root.add(Node(group))
        for leaf in leaves:
            g.add(Node(leaf))
    p = Project()
    p.set_data(df, None)
    p.set_taxonomy("edu", Taxonomy(root))
    p.set_bounds("age", 0, 100)
    p.set_algorithm(algorithm, {"steps": 4})
    p.set_epsilon(1)
    return p


def child_run(p: Project) -> tuple[list, dict]:
    session = RunSession.in_child(p)
    setup = session.begin(session.question())
    events = list(session.events())
    record = session.finish(events)
    assert record is p.record and record.ledger is setup.ledger  # the same record as an in-process run
    return events, {"setup": setup}


@pytest.mark.parametrize("algorithm", ["diffgen_consistency", "maxgddp"])
def test_the_engine_process_gives_the_events_of_an_in_process_run(algorithm):
    p = project(algorithm=algorithm)
    job, setup = make_job(p)
    here = list(job())
    there, holder = child_run(p)
    assert len(there) == len(here) and isinstance(there[-1], RunFinished)
    assert there[:-1] == here[:-1]  # the same seed: every event equal, in the same order
    a, b = here[-1].result, there[-1].result
    np.testing.assert_array_equal(a.counts, b.counts)
    assert a.cut == b.cut
    assert holder["setup"].ledger.to_dict() == setup.ledger.to_dict()
    assert not multiprocessing.active_children()


def test_the_ledger_here_holds_each_spend_before_the_noise_it_paid_for():
    p = project()
    session = RunSession.in_child(p)
    holder = {"setup": session.begin()}
    seen = 0
    for event in session.events():
        ledger = holder["setup"].ledger
        if isinstance(event, BudgetSpent):
            seen += 1
            assert ledger.entries[seen - 1] == event.spend
            assert float(ledger.spent) == pytest.approx(float(event.spent_total))
        if isinstance(event, NodeNoised):
            assert seen > 0 and len(ledger.entries) == seen
    assert holder["setup"].ledger.spent == 1


def test_an_input_error_comes_back_before_any_spend(monkeypatch):
    p = project()
    p.set_mode(RELEASE)
    p.set_classes(["n", "y"])
    p.set_bounds("age", 30, 100)  # ages below 30 lie outside the public bounds
    with pytest.raises(RunInputError, match="outside the public bounds"):
        RunSession.in_child(p)
    assert p.release_ledger is None or p.release_ledger.spent == 0
    assert not multiprocessing.active_children()


def test_the_engine_process_runs_at_a_lower_priority_than_the_studio(monkeypatch):
    """On two cores the engine, the studio's receiving thread and its GUI thread are three busy threads: at
    the same priority the GUI thread waited 7-11 ms in the run queue of a 15-20 ms freeze (issue 35). The
    engine process lowers its own priority (``ENGINE_NICE`` above the studio's niceness) before any work,
    and the studio keeps its own."""
    import os

    from dpstudio.model.release import runs

    def report_niceness(project):  # runs in the engine process: its niceness comes back as the input error
        raise RunInputError(f"niceness {os.getpriority(os.PRIO_PROCESS, 0)}")

    monkeypatch.setattr(runs, "prepare_run", report_niceness)
    here = os.getpriority(os.PRIO_PROCESS, 0)
    with pytest.raises(RunInputError) as raised:
        RunSession.in_child(project())
    assert str(raised.value) == f"niceness {min(here + run_process.ENGINE_NICE, 19)}"
    assert os.getpriority(os.PRIO_PROCESS, 0) == here
    assert not multiprocessing.active_children()


def test_a_session_refused_at_its_question_stops_the_engine_process(tmp_path, monkeypatch):
    """A question asked about other data starts nothing: the child, which had checked the inputs, is
    stopped and the store holds no spend."""
    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", str(tmp_path / "budget.sqlite"))
    other = project(seed=1)
    other.set_mode(RELEASE)
    other.set_classes(["n", "y"])
    p = project()
    p.set_mode(RELEASE)
    p.set_classes(["n", "y"])
    session = RunSession.in_child(p)
    assert multiprocessing.active_children()  # the inputs were checked in the child
    with pytest.raises(ProjectError):
        session.begin(other.release_question())
    assert not multiprocessing.active_children()
    assert open_store().datasets() == [] or not any(
        open_store().dataset(d.name).spends for d in open_store().datasets()
    )


def test_a_release_run_charges_the_store_once_here(tmp_path, monkeypatch):
    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", str(tmp_path / "budget.sqlite"))
    p = project()
    p.set_mode(RELEASE)
    p.set_classes(["n", "y"])
    events, holder = child_run(p)
    assert holder["setup"].ledger is p.release_ledger and p.release_ledger.spent == 1
    assert not holder["setup"].teaching and holder["setup"].noise.is_secure
    assert not any(getattr(e, "true_count", None) is not None for e in events)
    (dataset,) = open_store().datasets()
    assert [float(s.epsilon) for s in open_store().dataset(dataset.name).spends] == [1.0]


def _endless(*_args, teaching=False):
    """An engine that never ends (the child is a fork: this replaces the real one there too)."""
    import time

    from dpstudio.core.events import Progress

    k = 0
    while True:
        k += 1
        yield Progress(k, 0, "working")
        time.sleep(0.01)


def test_closing_the_events_stops_the_engine_process(monkeypatch):
    from dpstudio.model.release import runs

    p = project(rows=200)
    monkeypatch.setattr(runs, "prepare_run", lambda _p: runs.PreparedRun(_endless, (), 200))
    session = RunSession.in_child(p)
    session.begin()
    events = session.events()
    assert next(events).message == "working"
    assert multiprocessing.active_children()  # still running: it never ends by itself
    events.close()
    assert not multiprocessing.active_children()


def test_use_process_follows_the_table_size_and_the_environment(monkeypatch):
    monkeypatch.delenv(run_process.ENV, raising=False)
    assert not run_process.use_process(run_process.PROCESS_ROWS - 1)
    assert run_process.use_process(run_process.PROCESS_ROWS)
    monkeypatch.setenv(run_process.ENV, "never")
    assert not run_process.use_process(10**9)
    monkeypatch.setenv(run_process.ENV, "always")
    assert run_process.use_process(1)


def test_the_engine_process_sends_each_bulk_event_in_a_message_of_its_own(monkeypatch):
    """Unpickling a message holds the studio's GIL: a consistency pass and the released leaves (tens of
    thousands of values each) come alone, never behind hundreds of other events; the order is kept."""
    from dpstudio.core.budget import Ledger
    from dpstudio.core.events import ConsistencyDone, LeavesReleased, NodeCreated
    from dpstudio.model.release import runs

    sent = [NodeCreated(k, k - 1, f"n{k}", 1) for k in range(1, 8)]
    sent += [ConsistencyDone("least_squares", tuple(range(7))), LeavesReleased((1, 2), (3, 4))]
    sent += [NodeCreated(9, 1, "n9", 2), RunFinished(None)]

    class Conn:
        def __init__(self):
            self.messages = []

        def send(self, message):
            self.messages.append(message)

        def recv(self):
            return None, Ledger(1), True, 1.0

    monkeypatch.setattr(
        runs, "prepare_run", lambda _p: runs.PreparedRun(lambda noise, ledger, teaching: iter(sent), (), 10)
    )
    monkeypatch.setattr(run_process, "BATCH_SECONDS", 1e9)
    conn = Conn()
    run_process.serve_run(project(rows=10), conn)
    batches = [payload for kind, payload in conn.messages if kind == "events"]
    assert [e for batch in batches for e in batch] == sent
    for batch in batches:
        if any(isinstance(e, (ConsistencyDone, LeavesReleased, RunFinished)) for e in batch):
            assert len(batch) == 1
    assert [len(b) for b in batches if b] == [7, 1, 1, 1, 1]
    assert conn.messages[-1][0] == "end"


def test_the_receiving_thread_leaves_the_lock_free_between_messages(monkeypatch):
    """Before each message after the first the receiving thread sleeps ``YIELD_S`` (the window's thread gets
    the interpreter lock between messages, issue 35); the events are the same."""
    import time as real_time

    sleeps, received = [], []

    class Clock:
        monotonic = staticmethod(real_time.monotonic)

        @staticmethod
        def sleep(seconds):
            sleeps.append(seconds)
            real_time.sleep(seconds)

    real_receive = run_process._receive
    monkeypatch.setattr(run_process, "time", Clock)
    monkeypatch.setattr(run_process, "_receive", lambda conn: (received.append(1), real_receive(conn))[1])
    monkeypatch.setattr(run_process, "BATCH_EVENTS", 20)  # several messages from a small run
    p = project()
    events, _ = child_run(p)
    monkeypatch.undo()
    assert run_process.YIELD_S > 0
    messages = len(received) - 1  # the first message ("ready") came before the events were asked for
    assert messages > 5 and sleeps == [run_process.YIELD_S] * (messages - 1)
    assert [type(e) for e in events] == [type(e) for e in child_run(project())[0]]
