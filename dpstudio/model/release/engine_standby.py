"""A standby engine process for the loaded table: a large run's engine process is forked from it, not from the studio.

Forking the studio for a run (``run_process.ChildRun``) holds its interpreter lock while the kernel copies the
page tables of the whole process: 10-15 ms on a million-row table after a few runs, a freeze of the window at
every run's start (issue 35). The standby is forked once, when the studio has loaded a table (``keep_ready``; the
process is smaller then and nothing moves on screen). A run asks it to fork the run's engine process
(``StandbyEngine.fork_run``): the studio sends the project's settings as they are now, without the table
(kilobytes), and hands the standby one end of the run's pipe.

What it holds and does: the project as it was when it was forked, so the table's rows. It never reads the budget
store, spends or draws noise; the run's process does exactly what ``run_process`` describes (prepare, wait for the
noise and the ledger the studio's session settled, run, send the events), on a copy of the held project with the
studio's current settings put on it (``_settings``, ``_project_now``).

Which table it serves: only the load it was forked on (the same ``load_token``, frame object and dataset history:
``Dataset.set_type`` converts a column in place and adds to the history). The run's process compares the frame's
shape, columns and dtypes with the studio's once more and answers "stale" if they differ; the run then forks from
the studio as before. Any failure of the standby (a setting that does not pickle, a standby that died) falls back
the same way: the standby only ever saves time.

It leaves when its pipe closes (``close``, a load of other data, or the studio's end), and its run processes are
killed with it (Linux's parent-death signal). It reaps them itself and kills one only when the studio asks
(``stop``), so a process id the studio kills is never reused.
"""

from __future__ import annotations

import copy
import gc
import multiprocessing
import os
import pickle
import signal
import sys
import threading
from multiprocessing.connection import Connection
from multiprocessing.reduction import recv_handle, send_handle

from dpstudio.model.project.project import PART_FIELDS

#: fields of the project's parts the run's process takes from its held copy, not from the studio: the table (the
#: standby's copy of the same rows) and the last run's record (its events are large; preparing a run never reads it)
HELD = {"source": ("dataset", "_loaded"), "run_state": ("record",)}


def _settings(project) -> dict:
    """The project's parts' fields as they are now, without the held ones (``HELD``). Only the fields a new part
    sets: the caches a part adds as it answers (value counts, missing-value masks of a million rows) stay
    behind; the run's process has the held copy's, made on the same table."""
    out = {}
    for name, fields in PART_FIELDS.items():
        state = vars(getattr(project, name))
        out[name] = {k: state[k] for k in fields if k in state and k not in HELD.get(name, ())}
    return out


def _project_now(held, settings: dict):
    """A copy of the held project with the studio's current settings on its parts."""
    project = copy.copy(held)
    for name, fields in settings.items():
        vars(getattr(project, name)).update(fields)
    return project


def frame_key(frame) -> tuple:
    """What the run's process checks against the studio's table: shape, column names and dtypes."""
    return (tuple(frame.shape), tuple(map(str, frame.columns)), tuple(map(str, frame.dtypes)))


def _load_key(project) -> tuple:
    """The load a standby serves: the load token, the frame object, and the dataset's history of changes."""
    dataset = project.dataset
    return (project.load_token, id(project.frame), id(dataset), getattr(dataset, "history", None))


class StandbyEngine:
    """A standby process holding ``project``'s table (see the module docstring). Made, it has forked. ``serve``
    is what a run's process does with the project and its pipe (``run_process.serve_run``)."""

    def __init__(self, project, serve) -> None:
        ctx = multiprocessing.get_context("fork")
        self.key = _load_key(project)
        self._frame = project.frame  # kept, so its id in ``key`` is never another frame's: an equal id is this frame
        self._lock = threading.Lock()  # one request at a time on the standby's pipe
        self._conn, there = ctx.Pipe()
        self._process = ctx.Process(
            target=_standby, args=(project, there, serve), name="dpstudio engine standby", daemon=True
        )
        self._process.start()
        there.close()

    def serves(self, project) -> bool:
        """Whether a run of ``project`` as it is now may fork from this standby."""
        return self._process.is_alive() and self.key == _load_key(project)

    def fork_run(self, project) -> tuple[Connection, int] | None:
        """A new run process for ``project``: this end of its pipe and its process id, or None when the
        standby cannot serve (the caller then forks from the studio). Nothing is spent either way."""
        try:
            message = pickle.dumps(("run", _settings(project), frame_key(project.frame), gc.isenabled()))
        except Exception:  # noqa: BLE001 - a setting that does not pickle: fork from the studio
            return None
        here, there = multiprocessing.Pipe()
        try:
            with self._lock:
                self._conn.send_bytes(message)
                send_handle(self._conn, there.fileno(), self._process.pid)
                pid = self._conn.recv()
        except (OSError, EOFError):  # the standby died
            here.close()
            return None
        finally:
            there.close()
        return here, pid

    def stop(self, pid: int) -> None:
        """Kill run process ``pid`` (a no-op once it has ended and been reaped) and wait for it."""
        try:
            with self._lock:
                self._conn.send(("stop", pid))
                self._conn.recv()
        except (OSError, EOFError):  # the standby died: its children went with their pipes
            pass

    def close(self) -> None:
        """End the standby; a run process it forked that still runs is killed with it (parent-death signal)."""
        self._conn.close()
        if self._process.is_alive():
            self._process.kill()
        self._process.join()


def _standby(project, conn: Connection, serve) -> None:
    """The standby's loop: fork a run process for each request, stop one when asked, reap the ended ones."""
    gc.freeze()  # the held objects are never walked by the collector: their pages stay shared with the studio
    children: set[int] = set()
    while True:
        try:
            request = conn.recv()
        except EOFError:  # the studio closed the standby (or ended)
            return
        for pid in list(children):
            if os.waitpid(pid, os.WNOHANG)[0]:
                children.discard(pid)
        if request[0] == "stop":
            pid = request[1]
            if pid in children:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                children.discard(pid)
            conn.send(None)
            continue
        _, settings, key, collect = request
        fd = recv_handle(conn)
        pid = os.fork()
        if pid == 0:  # the run's process
            code = 1
            try:
                conn.close()
                _die_with_parent()
                if not collect:  # as a process forked from the studio: a run pauses its collector (gui.worker)
                    gc.disable()
                run_conn = Connection(fd)
                if frame_key(project.frame) != key:
                    run_conn.send(("stale", None))
                else:
                    serve(_project_now(project, settings), run_conn)
                code = 0
            finally:
                sys.stdout.flush()
                os._exit(code)
        os.close(fd)
        children.add(pid)
        conn.send(pid)


def _die_with_parent() -> None:
    """Linux's parent-death signal: this run process is killed when the standby ends (it may be computing for
    seconds without sending, and would not notice the studio's end before its next batch)."""
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


_standbys: dict[int, StandbyEngine] = {}  # id(project) -> its standby (one project in a studio)


def serving(project) -> StandbyEngine | None:
    """The standby a run of ``project`` may fork from now, or None."""
    standby = _standbys.get(id(project))
    return standby if standby is not None and standby.serves(project) else None


def keep_ready(project, wanted: bool, serve) -> bool:
    """Keep a standby for ``project``'s table when ``wanted`` (the caller decides: a table large enough to run
    in its own process; ``serve`` as for ``StandbyEngine``); close one that no longer serves (other data
    loaded, a column converted). True when a new standby was forked by this call: that fork held this
    process's interpreter lock."""
    standby = _standbys.get(id(project))
    if standby is not None and (not wanted or not standby.serves(project)):
        _standbys.pop(id(project)).close()
        standby = None
    if standby is None and wanted:
        _standbys[id(project)] = StandbyEngine(project, serve)
        return True
    return False


def close_all() -> None:
    """End every standby (the studio's end; tests)."""
    while _standbys:
        _standbys.popitem()[1].close()


__all__ = ["HELD", "StandbyEngine", "close_all", "frame_key", "keep_ready", "serving"]
