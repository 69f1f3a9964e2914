"""A studio run in a separate process, so the engine's numpy work never holds the window's interpreter lock.

In one process the engine thread and the GUI thread share Python's GIL: a long numpy or pandas call on a
million rows (coding the table, counting partitions) freezes the window for its whole duration (issue 10
measured about 100 ms). ``RunSession.in_child(project)`` (``model.release.session``) runs the same steps with
the engine in a forked child (``ChildRun``, the session's prepared run) and yields the same events, in the
same order, in this process:

1. the child (a fork: it shares the project's table without copying or pickling it; forked from the table's
   standby engine process when one serves, ``engine_standby``, else from this process) runs
   ``runs.prepare_run``: coding and every input check, nothing spent. An input error comes back as the
   exception and is raised here; nothing was spent.
2. Here, the session's ``begin`` spends (release mode charges the persistent budget store, in this process,
   as for an in-process run) and hands out the noise and the ledger. The child gets the noise source and a
   copy of the ledger; a session that never begins closes the child, which leaves having spent nothing.
3. The child runs the engine and sends its events in batches (every ``BATCH_SECONDS`` or
   ``BATCH_EVENTS``; a consistency pass, the released leaves and the result alone, ``_SENT_ALONE``). Here each
   ``BudgetSpent`` is replayed into ``setup.ledger`` (``Ledger.replay``) before that event and every later
   one (the noisy values it paid for) are yielded: the ledger the studio shows always holds a spend before
   its noise is shown. At the end the child's ledger must equal the replayed one (else the run fails).

The child runs at a lower priority than the studio (``ENGINE_NICE``): on a machine with fewer cores than busy
threads (the engine, the studio's receiving thread and its GUI thread on two cores) the window goes first.
Without it the GUI thread waited in the run queue for 7-11 ms of a 15-20 ms freeze while the receiving thread
unpickled a burst of events on its core (benchmarks/RESULTS.md, session 21). The benchmark's run took as long
as before (2.1 s).

Closing the generator (the studio's Cancel) kills the child at once. The child never touches Qt and leaves
with ``os._exit`` (multiprocessing's fork children do). Teaching runs give exactly the events of an
in-process run with the same seed (the noise source is pickled with its state). Forking needs Linux; on
other systems, and for small tables, ``use_process`` says no and the studio runs the engine on its worker
thread as before.

``DPSTUDIO_ENGINE_PROCESS``: ``auto`` (default: a process for tables of ``PROCESS_ROWS`` rows or more),
``always`` or ``never``.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import sys
import time
from collections.abc import Callable, Iterator

from dpstudio.core.events import BudgetSpent, ConsistencyDone, LeavesReleased, RunFinished
from dpstudio.model.release import engine_standby

BATCH_SECONDS = 0.03
#: at most this many events a batch: unpickling holds this process's GIL (a level of 20,000 new nodes sent at
#: once took about 30 ms), so batches stay small enough to unpickle in a millisecond or two
BATCH_EVENTS = 500
PROCESS_ROWS = 100_000
#: events sent in a message of their own: unpickling a message holds this process's GIL, and a consistency pass
#: of 38,431 nodes behind 441 other events held it for 10.6 ms (benchmarks/bench_gui_stall.py); alone, 3.7 ms
_SENT_ALONE = (ConsistencyDone, LeavesReleased, RunFinished)
ENV = "DPSTUDIO_ENGINE_PROCESS"
#: the engine process's niceness above the studio's (``os.nice``; see the module docstring)
ENGINE_NICE = 10
#: the receiving thread sleeps this long before reading each next message (see ``ChildRun.events``)
YIELD_S = 0.001


class EngineProcessError(RuntimeError):
    """The engine process ended without saying why (killed, out of memory) or its ledger disagrees."""


def use_process(rows: int) -> bool:
    """Whether a run over ``rows`` records goes to a separate process (see the module docstring)."""
    choice = os.environ.get(ENV, "auto").strip().lower()
    if choice == "never" or not sys.platform.startswith("linux"):
        return False
    return choice == "always" or rows >= PROCESS_ROWS


def keep_standby(project) -> bool:
    """Fork, keep or close the standby engine process of ``project``'s table (``engine_standby``): wanted for a
    table in memory whose runs go to their own process. True when this call forked (it held the interpreter
    lock for some milliseconds)."""
    frame = project.frame
    return engine_standby.keep_ready(project, frame is not None and use_process(len(frame)), serve_run)


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling, else a RuntimeError with its text."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 - any failure to pickle
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def _lower_priority() -> None:
    """This process at ``ENGINE_NICE`` above its parent's niceness (where the system allows it)."""
    try:
        os.nice(ENGINE_NICE)
    except (AttributeError, OSError):  # no os.nice on this system, or not permitted: the run is the same
        pass


def serve_run(project, conn) -> None:
    """The engine process's work: prepare, wait for the noise and ledger, run, stream the events on ``conn``."""
    from dpstudio.model.release.runs import prepare_run
    from dpstudio.model.release.service import RunSetup

    _lower_priority()
    try:
        prepared = prepare_run(project)
    except BaseException as exc:  # noqa: BLE001 - every input error goes back to the studio
        conn.send(("error", _portable(exc)))
        return
    conn.send(("ready", None))
    try:
        noise, ledger, teaching, epsilon = conn.recv()
    except EOFError:  # the studio did not start the run (its spend was refused): nothing to do
        return
    batch: list = []
    last = time.monotonic()
    try:
        for event in prepared.events(RunSetup(noise, ledger, teaching, epsilon)):
            if isinstance(event, _SENT_ALONE) and batch:
                conn.send(("events", batch))
                batch = []
            batch.append(event)
            now = time.monotonic()
            if now - last >= BATCH_SECONDS or len(batch) >= BATCH_EVENTS or isinstance(event, _SENT_ALONE):
                conn.send(("events", batch))
                batch, last = [], now
        conn.send(("events", batch))
        conn.send(("end", ledger.to_dict()))
    except BaseException as exc:  # noqa: BLE001
        conn.send(("events", batch))
        conn.send(("error", _portable(exc)))


class ChildRun:
    """A run prepared in a forked child (see the module docstring): the session's ``prepared`` run when the
    studio runs the engine in its own process. Made, it has checked and coded the inputs in the child (what
    the child raised, ``RunInputError`` first, is raised here: nothing spent); ``events(setup)`` hands the
    child the noise and the ledger the session's ``begin`` settled and yields its events; ``close()`` (or the
    end of the events) stops the child."""

    def __init__(self, project) -> None:
        self._stop: Callable[[], None] | None = None
        try:
            kind, payload = self._start(project, engine_standby.serving(project))
            if kind == "stale":  # the standby's table is not the studio's: fork from the studio
                self.close()
                kind, payload = self._start(project, None)
            if kind == "error":
                raise payload
        except BaseException:
            self.close()
            raise

    def _start(self, project, standby) -> tuple:
        """Start the engine process (forked from ``standby`` if it can, else from this process) and return its
        first message."""
        forked = standby.fork_run(project) if standby is not None else None
        if forked is not None:
            self._here, pid = forked
            self._stop = lambda: standby.stop(pid)
        else:
            self._here, self._stop = _fork_here(project)
        return _receive(self._here)

    def events(self, setup) -> Iterator:
        """The child's events on ``setup``; each ``BudgetSpent`` replayed into ``setup.ledger`` before it and
        every later event are yielded. Closing the generator (Cancel) kills the child.

        Before each message after the first the receiving thread sleeps ``YIELD_S``: unpickling a message holds
        the interpreter lock for 1-2 ms, and a thread waiting for the lock (the window's, woken by its timer)
        only forces a switch after the switch interval, so near a run's end, where messages follow each other
        at once, the window waited message after message. The sleep leaves the lock and the core free between
        them (benchmarks/RESULTS.md, session 22: the longest gap lower in 21 of 32 pairs, a weak effect); the engine is not held
        up, its messages wait in the pipe."""
        try:
            self._here.send((setup.noise, setup.ledger, setup.teaching, setup.epsilon))
            ledger = setup.ledger
            try:
                while True:
                    kind, payload = _receive(self._here)
                    if kind == "events":
                        for event in payload:
                            if isinstance(event, BudgetSpent):
                                ledger.replay(event.spend)
                            yield event
                        time.sleep(YIELD_S)  # every message but the first is read after a sleep
                    elif kind == "error":
                        raise payload
                    else:
                        ledger.end_replay()
                        if payload != ledger.to_dict():
                            raise EngineProcessError("the engine process's ledger differs from the spends it reported")
                        return
            finally:
                ledger.end_replay()
        finally:
            self.close()

    def close(self) -> None:
        """Stop the child (a child never begun finds its pipe closed and leaves: nothing was spent)."""
        if self._stop is not None:
            self._here.close()
            self._stop()
            self._stop = None


def _fork_here(project) -> tuple:
    """An engine process forked from this process: this end of its pipe, and how to stop it."""
    ctx = multiprocessing.get_context("fork")
    here, there = ctx.Pipe()
    child = ctx.Process(target=serve_run, args=(project, there), name="dpstudio engine", daemon=True)
    child.start()
    there.close()
    return here, lambda: _end(child)


def _end(child) -> None:
    """Kill a child forked from this process (if it still runs) and wait for it."""
    if child.is_alive():
        child.kill()
    child.join()


def _receive(conn) -> tuple:
    try:
        return conn.recv()
    except EOFError:
        raise EngineProcessError("the engine process stopped without a result (out of memory or killed)") from None


__all__ = [
    "BATCH_EVENTS",
    "BATCH_SECONDS",
    "ENV",
    "EngineProcessError",
    "PROCESS_ROWS",
    "ChildRun",
    "keep_standby",
    "serve_run",
    "use_process",
]
