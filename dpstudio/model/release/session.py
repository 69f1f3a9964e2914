"""The run session (Qt-free): one table or histogram run from its question to its record. The Algorithm panel,
``api.Study`` and the command line's ``release`` and ``histogram`` all drive it (the Stream panel and
``dpstudio stream`` drive its stream twin, ``model.stream.run.StreamRun``).

``RunSession(prepared, snapshot, request)``, or ``RunSession.of_project(project)``:

1. the inputs are checked and coded first (``runs.prepare_run`` or a front end's own ``PreparedRun``): a bad
   input is refused before any question, with nothing spent; ``snapshot`` freezes the public inputs the run
   uses (what its files will describe);
2. ``question()``: the release service's ``ReleaseQuestion`` (dataset, epsilon, lifetime total, spent,
   remaining; its refusal inside), or None for a run that is not a release (teaching, or a seeded
   simulation of the command line);
3. ``begin(question)``: the spend settled by the release service before any noise (the budget store charged
   for the whole epsilon), for this session's own question only: a question asked about other data or other
   inputs is refused with nothing spent. A project's session checks the binding of the question to the
   project's load of data and frozen inputs (``Project.start_run``);
4. ``events()``: the run's event generator on the setup's noise and ledger;
5. ``finish(events)``: the ``RunRecord`` (``model.release.record``) that every figure, the export question and
   the files are read from.
"""

from __future__ import annotations

from collections.abc import Iterator

from dpstudio.model.release.question import ReleaseQuestion
from dpstudio.model.release.record import RunRecord
from dpstudio.model.release.runs import prepare_run
from dpstudio.model.release.service import ReleaseRefused, ReleaseRequest, ReleaseService, RunSetup


class RunSession:
    """See the module docstring. ``seed``: a run that is not a release (seeded simulation noise, nothing
    charged); otherwise ``request`` is what the release service asks about and charges."""

    def __init__(
        self,
        prepared,
        snapshot,
        request: ReleaseRequest | None = None,
        *,
        seed: int | None = None,
        project=None,
    ) -> None:
        if request is None and seed is None and project is None:
            raise ValueError("a run session needs a release request, a seed, or a project")
        self.prepared, self.snapshot, self.request, self.seed = prepared, snapshot, request, seed
        self.project = project
        self._question: ReleaseQuestion | None = None
        self.setup: RunSetup | None = None

    @classmethod
    def of_project(cls, project, progress=None, snapshot=None) -> RunSession:
        """The session of a project's run: its inputs coded and checked now (``RunInputError``, nothing spent),
        ``snapshot`` (default: the project's inputs now) frozen for the export."""
        from dpstudio.model.release.snapshot import snapshot_of

        snapshot = snapshot_of(project) if snapshot is None else snapshot
        return cls(prepare_run(project, progress), snapshot, project=project)

    @classmethod
    def in_child(cls, project, snapshot=None) -> RunSession:
        """A project's session whose engine runs in a forked process (``model.release.run_process``): the
        inputs are coded and checked there now (what it raised is raised here, nothing spent); the spend and
        the ledger stay here. Linux only (``run_process.use_process`` says when)."""
        from dpstudio.model.release.run_process import ChildRun
        from dpstudio.model.release.snapshot import snapshot_of

        snapshot = snapshot_of(project) if snapshot is None else snapshot
        return cls(ChildRun(project), snapshot, project=project)

    @property
    def teaching(self) -> bool:
        return bool(self.project.teaching) if self.project is not None else self.request is None

    def question(self) -> ReleaseQuestion | None:
        """None for a run that is not a release; else the question (read only: nothing charged)."""
        if self.teaching:
            return None
        if self.project is not None:
            self._question = self.project.release_question()
        else:
            assert self.request is not None
            self._question = ReleaseService().question(self.request)
        return self._question

    def begin(self, question: ReleaseQuestion | None = None) -> RunSetup:
        """Settle the spend (see the module docstring); raises ``ReleaseRefused`` (a project's session:
        ``ProjectError``) having spent nothing."""
        if self.project is not None:
            try:
                self.setup = self.project.start_run(question)
            except BaseException:
                self.close()  # a run prepared elsewhere (an engine process) ends with nothing spent
                raise
            return self.setup
        if self.request is None:
            self.setup = ReleaseService.simulate(self.snapshot.epsilon, int(self.seed or 0))
            return self.setup
        if question is None or question is not self._question:
            raise ReleaseRefused("this question was not asked about this run: nothing was spent")
        self.setup = ReleaseService().begin(question, True)
        return self.setup

    def close(self) -> None:
        """Let go of a run that will not be run (an engine process is stopped); idempotent."""
        close = getattr(self.prepared, "close", None)
        if close is not None:
            close()

    def events(self) -> Iterator:
        """The run's events (after ``begin``)."""
        if self.setup is None:
            raise ReleaseRefused("the run has not begun: nothing was spent")
        return self.prepared.events(self.setup)

    def finish(self, events, result=None) -> RunRecord:
        """The record of the finished (or cancelled) run; a project keeps it as its last run. ``events`` (a list
        or tuple) is handed over, not copied: the caller appends nothing to it afterwards."""
        assert self.setup is not None
        s = self.setup
        store = s.store or None
        if not isinstance(events, (list, tuple)):
            events = list(events)
        if self.project is not None:
            self.project.record_run(events, s.ledger, s.teaching, result, self.snapshot, s.budget, store)
            return self.project.record
        if result is None:
            from dpstudio.core.events import run_result

            result = run_result(events)
        return RunRecord(result, s.ledger, self.snapshot, s.teaching, s.budget, store, events)


def make_job(project, progress=None, answer=None):
    """(job, setup) for the project's algorithm through its run session: ``prepare_run`` (every check, no
    spend), then the spend (release mode charges the budget store for the question the user answered,
    ``answer``); ``job()`` returns the run's events."""
    session = RunSession.of_project(project, progress)
    setup = session.begin(answer)
    return session.events, setup


__all__ = ["RunSession", "make_job"]
