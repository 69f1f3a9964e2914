"""One stream run, from the release question to the exported files (Qt-free): the Stream panel drives it.

``StreamRun(source, counts, params, teaching, seed, store)``, which the Stream panel and ``dpstudio stream``
drive alike:

1. ``question()``: the parameters checked against the stream (``StreamInputError``, one line, before any
   question), then the release service's ``ReleaseQuestion`` for a release (its refusal inside), or None
   for a run that is not a release (teaching mode: seeded simulation noise, nothing charged).
2. ``begin(question)``: the spend settled through the release service (the store charged for the whole
   epsilon before any noise; ``ReleaseRefused`` having spent nothing otherwise). Only the question this run
   asked starts it: a question about other data or other settings is refused.
3. ``events()``: the run's events (``algorithms.stream_runs.run_stream``), drawn from the setup's noise
   and ledger; the literal ASM (not private, teaching only) replays instead.
4. ``finish(events)``: the ``StreamRecord`` of what ran: the playback, the result, the ledger, the budget
   store's record and where it was charged. Everything the panel shows after the run, its export question
   and its files are read from the record.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dpstudio.algorithms.stream_runs import StreamParams, StreamResult, run_stream
from dpstudio.core.budget import Ledger
from dpstudio.core.events import run_result
from dpstudio.model.release import ReleaseQuestion, ReleaseRefused, ReleaseService, RunSetup
from dpstudio.model.stream.session import StreamSource, stream_request
from dpstudio.model.stream.view import NOT_DP, literal_asm_playback, playback_of


@dataclass(frozen=True)
class StreamRecord:
    """What a stream run produced: the only source of its figures, its question at export and its files.
    ``ledger``, ``budget`` and ``result`` are None for the literal ASM (no ledger: not private)."""

    playback: object  # model.stream.view.Playback
    result: StreamResult | None
    ledger: Ledger | None
    budget: dict | None
    params: StreamParams
    source: StreamSource
    store: str | None  # the store the release was charged to: its re-run script charges the same one
    teaching: bool

    @property
    def exportable(self) -> bool:
        """A release of a private mechanism: the only run that may be written as release files."""
        return (
            self.result is not None
            and self.result.is_release
            and bool(getattr(self.playback, "exportable", False))
            and not self.teaching
        )

    def default_export_path(self) -> Path:
        """Beside the data, named after it and the mechanism: ``visits_tpm.csv``."""
        from dpstudio.model.project.folders import beside

        return beside(self.source.path) / f"{self.source.path.name.split('.')[0]}_{self.params.mechanism}.csv"

    @staticmethod
    def export_paths(path) -> list[Path]:
        """The files an export writes: the CSV, its sidecar, the report and the re-run scripts (shell and
        Python)."""
        csv = Path(path)
        return [
            csv,
            csv.with_suffix(".json"),
            csv.with_suffix(".report.html"),
            csv.with_suffix(".command.sh"),
            csv.with_suffix(".reproduce.py"),
        ]

    def confirm_text(self) -> str:
        """The question before the files are written: what was spent, on which neighbours."""
        from dpstudio.io.stream_release import neighbouring
        from dpstudio.model.release.spent_figures import spend_sentence

        return (
            f"{spend_sentence(self.budget, self.ledger)} (neighbouring streams: "
            f"{neighbouring(self.params)}).\n\nOnce published it cannot be taken back, and this data's "
            "budget stays spent. Write the release files now?"
        )

    def export(
        self, path, overwrite: bool = False, report=True, script: bool = True, simulation: bool = False
    ) -> tuple[Path, ...]:
        """Write OUT.csv, OUT.json, the report (``report``: True for OUT.report.html, a path, or False) and
        the re-run scripts OUT.command.sh and OUT.reproduce.py (``script``) in one all-or-nothing step (``io.atomic.OutputPathError``
        when a file is in the way). ``simulation``: the command line's seeded run, written marked "not a
        release". Post-processing of the release only: nothing is spent."""
        from dpstudio.io.stream_release import write_stream_release
        from dpstudio.io.stream_reproduce import stream_python_script, stream_shell_script
        from dpstudio.model.stream.recommend import advice

        if self.result is None or self.ledger is None or not (self.exportable or simulation):
            raise ValueError("nothing to export: only a release-mode run of a private mechanism can be exported")
        paths = self.export_paths(path)
        _rec, advice_entry = advice(self.params, self.result.horizon)
        source = self.source.record(self.params.mechanism)
        also = {}
        if script:
            rerun = paths[0].with_name(paths[0].stem + ".rerun.csv").name
            also[paths[3]] = stream_shell_script(source, self.params, rerun, self.store, sys.executable)
            also[paths[4]] = stream_python_script(source, self.params, rerun, self.store, sys.executable)
        return write_stream_release(
            path,
            self.result,
            self.ledger,
            source,
            None,
            overwrite,
            extra={"dataset_budget": self.budget, "recommendation": advice_entry},
            report=paths[2] if report is True else (report or None),
            also=also,
        )


class StreamRun:
    """See the module docstring. ``literal``: the literal ASM (teaching only, never a release)."""

    def __init__(
        self,
        source: StreamSource,
        counts: np.ndarray,
        params: StreamParams,
        teaching: bool,
        seed: int,
        store: str | None = None,
        literal: bool = False,
        request=None,
    ):
        self.source, self.counts, self.params = source, counts, params
        self.teaching, self.seed, self.store, self.literal = teaching, seed, store, literal
        self.request = request  # the command line's own request (its dataset name and lifetime total)
        self._question: ReleaseQuestion | None = None
        self.setup: RunSetup | None = None

    def question(self) -> ReleaseQuestion | None:
        """None for a run that is not a release; else the release question (read only: nothing charged).
        Bad parameters raise ``StreamInputError`` (or ``ValueError``) before anything is asked."""
        if self.literal and not self.teaching:
            raise ReleaseRefused(f"the literal ASM is {NOT_DP}: it runs in teaching mode only and is never released")
        eps = self.params.checked_epsilon()
        self.params.validate(self.counts.size)
        if self.teaching:
            return None
        what = f"studio stream {self.params.mechanism}"
        request = self.request or stream_request(self.source, self.counts, eps, self.store, what=what)
        self._question = ReleaseService().question(request)
        return self._question

    def begin(self, question: ReleaseQuestion | None = None, answer: bool = True) -> RunSetup:
        """Settle the spend: a release is charged (after ``question()``, with its own question only); a
        teaching run gets seeded simulation noise. Raises ``ReleaseRefused`` having spent nothing."""
        eps = self.params.checked_epsilon()
        if self.teaching:
            self.setup = ReleaseService.simulate(eps, self.seed)
            return self.setup
        if question is None or question is not self._question:
            raise ReleaseRefused("this question was not asked about this stream run: nothing was spent")
        self.setup = ReleaseService().begin(question, answer)
        return self.setup

    def events(self) -> Iterator:
        """The run's events (after ``begin``)."""
        if self.setup is None:
            raise ReleaseRefused("the run has not begun: nothing was spent")
        return run_stream(self.counts, self.params, self.setup.noise, self.setup.ledger)

    def literal_playback(self):
        """The literal ASM's replay (teaching only: it reads the true counts)."""
        eps = self.params.checked_epsilon()
        return literal_asm_playback(self.counts, eps, self.seed)

    def finish(self, out) -> StreamRecord:
        """The record of the finished run (``out``: the events, or the literal ASM's playback)."""
        if self.literal:
            return StreamRecord(out, None, None, None, self.params, self.source, None, True)
        assert self.setup is not None
        result = run_result(out)
        return StreamRecord(
            playback_of(out, self.params),
            result,
            self.setup.ledger,
            self.setup.budget,
            self.params,
            self.source,
            self.setup.store or None,
            self.teaching,
        )
