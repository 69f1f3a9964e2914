"""``core.events.run_result``: the one reading of a run's result from its events (the record, the session, the
streams and the anonymization panel all use it)."""

from __future__ import annotations

from dpstudio.core.events import Progress, RunFinished, run_result


def test_the_last_run_finished_gives_the_result_and_a_run_without_one_gives_none():
    started = Progress(0, 10, "coding the table")
    assert run_result([started, RunFinished("first"), RunFinished("last")]) == "last"
    assert run_result((started, RunFinished(3))) == 3
    assert run_result([started]) is None and run_result([]) is None
    assert run_result(iter([started, RunFinished("once")])) == "once"  # read once, as a list
