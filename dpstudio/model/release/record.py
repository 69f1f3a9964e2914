"""One record of a finished run, and the one writer of its files (Qt-free).

A ``RunRecord`` holds what a run produced and what it ran with: the result (the released table or histogram),
the ledger of every spend, the snapshot of its public inputs (``model.release.snapshot``), the budget store's
charge (``budget``) and where it was charged (``store``), the mode, and its events. The studio's panels, the
API's ``Release``, the command line and the report read a run's figures from here, never from the window's
later state. ``RunSession.finish`` (``model.release.session``) makes it.

``RunRecord.write(csv_path, files=...)`` writes the release: always ``NAME.csv`` and its sidecar
``NAME.json``; with ``files`` also the report (``report``) and the re-run scripts (``scripts``:
``NAME.command.sh`` and ``NAME.reproduce.py``). The sidecar's extra keys (``sidecar_extra``) are the same for
every front end: the public inputs with their provenance at Run, the budget store's charge (no fingerprint),
the missing-value rule (never how many rows it dropped) and, for the table algorithms, how h was chosen. All
files are written in one all-or-nothing step. Nothing here spends budget or draws noise, and no exact count is
written: the files hold the released (noisy) values and public inputs only.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from dpstudio.core.budget import Ledger

NOT_RECORDED = "The inputs of the last run were not recorded: run again to export."
CSV, SIDECAR, REPORT, SCRIPTS = "csv", "json", "report", "scripts"
#: what the studio's Export panel and the API write
ALL_FILES = (CSV, SIDECAR, REPORT, SCRIPTS)


def file_paths(csv_path) -> dict[str, Path]:
    """NAME.csv -> the paths of its files: csv, json, report, and the two scripts (command, reproduce)."""
    from dpstudio.io.release import sidecar_path

    csv = Path(csv_path)
    stem = csv.with_suffix("") if csv.suffix.lower() == ".csv" else csv
    return {
        CSV: csv,
        SIDECAR: sidecar_path(csv),
        REPORT: stem.with_name(stem.name + ".report.html"),
        "command": stem.with_name(stem.name + ".command.sh"),
        "reproduce": stem.with_name(stem.name + ".reproduce.py"),
    }


@dataclass(frozen=True)
class RunRecord:
    """See the module docstring. ``snapshot`` is None only for a run whose inputs were not frozen. ``events``
    is the sequence the run's session was handed (``RunSession.finish``), kept as it is: copying a large run's
    77,000 events touched every one of them on the GUI thread at the run's end (9 ms for the first copy).
    Nothing appends to it after the run; read it, never change it."""

    result: Any
    ledger: Ledger
    snapshot: Any  # model.release.snapshot.RunSnapshot
    teaching: bool
    budget: dict | None = None
    store: str | None = None
    events: Sequence[Any] = ()

    @property
    def is_histogram(self) -> bool:
        from dpstudio.io.report import is_histogram

        return bool(is_histogram(self.result))

    @property
    def is_release(self) -> bool:
        """Secure noise in release mode: a run whose files may be published."""
        noise = getattr(self.result, "noise", None)
        secure = noise is None or bool(getattr(noise, "is_secure", False))
        return not self.teaching and getattr(self.result, "is_release", True) is not False and secure

    def export_refusal(self) -> str:
        """Why this run's files cannot be published, in words ("" when they can)."""
        if self.result is None:
            return "No release yet: run the algorithm in release mode first (Algorithm panel)."
        if self.teaching:
            return "The last run was not a release-mode run: run again in release mode."
        if not self.is_release:
            return "The last run used simulation noise: it is not a release."
        if self.snapshot is None:
            return NOT_RECORDED
        refusal = self.snapshot.export_refusal()
        return f"Not exported: {refusal}." if refusal else ""

    def missing_rule(self) -> dict:
        from dpstudio.io.release import missing_rule

        s = self.snapshot
        return missing_rule(s.missing, s.missing_token)

    def steps_choice(self) -> dict | None:
        """How a table algorithm's h was chosen (given, or automatic from epsilon with the reason); None for a
        histogram."""
        from dpstudio.algorithms.registry import AUTO_STEPS

        if self.is_histogram or self.snapshot is None:
            return None
        from dpstudio.model.release.budget_plan import automatic

        steps = int(self.result.params.steps)
        given = self.snapshot.params
        if int(given.get("steps", AUTO_STEPS)) != AUTO_STEPS or not automatic(given):
            return {"steps": steps, "automatic": False}
        from dpstudio.algorithms.diffgen_auto import automatic_steps

        return {
            "steps": steps,
            "automatic": True,
            "reason": automatic_steps(self.result.params.algorithm, self.snapshot.epsilon)[1],
        }

    def sidecar_extra(self) -> dict:
        """The sidecar's keys beyond the writer's own (see the module docstring)."""
        extra: dict[str, Any] = {
            "public_inputs": [dict(x) for x in self.snapshot.public_inputs],
            "dataset_budget": self.budget,  # the charge, no fingerprint
        }
        if self.snapshot.missing:  # "" when a missing value is refused rather than handled
            extra["missing"] = self.missing_rule()  # the rule, never how many rows
        choice = self.steps_choice()
        if choice is not None:
            extra["steps_choice"] = choice
        return extra

    def write(
        self,
        csv_path,
        files=ALL_FILES,
        *,
        report_path=None,
        expand_records: bool = False,
        omit_zero_cells: bool = False,
        overwrite: bool = False,
        simulation: bool = False,
        extra: dict | None = None,
        writer_options: dict | None = None,
    ) -> list[Path]:
        """Write the run's files (see the module docstring) and return their paths, the CSV first.

        ``report_path``: the report's own name (default NAME.report.html). ``simulation``: a seeded run of the command line, written marked "not a release" (otherwise a run that
        is not a release raises ValueError with ``export_refusal``'s words). ``extra``: keys a front end adds
        to the sidecar (the command line's data-loading notes); ``writer_options``: the histogram writer's
        domain, reasons and labels. OutputPathError when a file is in the way (nothing written)."""
        reason = self.export_refusal()
        if reason and not (simulation and self.result is not None and self.snapshot is not None):
            raise ValueError(reason)
        from dpstudio.io.atomic import check_output_path

        where = file_paths(csv_path)
        if report_path is not None:  # the command line's --report names its own file
            where[REPORT] = Path(report_path)
        wanted = [where[CSV], where[SIDECAR]]
        if REPORT in files:
            wanted.append(where[REPORT])
        if SCRIPTS in files:
            wanted += [where["command"], where["reproduce"]]
        for p in wanted:
            check_output_path(p, overwrite)
        side = {**self.sidecar_extra(), **(extra or {})}
        also = {}
        if REPORT in files:
            also[where[REPORT]] = self._report(where, [p.name for p in wanted], side, omit_zero_cells, expand_records)
        if SCRIPTS in files:
            also.update(self._scripts(where, expand_records, omit_zero_cells))
        r = self.result
        if self.is_histogram:
            from dpstudio.io.histogram_release import write_histogram_release

            opts = dict(writer_options or {})
            edges = opts.pop("edges", r.params.edges)
            written = write_histogram_release(
                where[CSV], r, self.ledger, edges=edges, extra=side, also=also, overwrite=overwrite, **opts
            )
        else:
            from dpstudio.io.release import write_release

            written = write_release(
                r,
                where[CSV],
                overwrite=overwrite,
                expand_records=expand_records,
                simulation=simulation,
                extra=side,
                also=also,
                omit_zero_cells=omit_zero_cells,
            )
        return [Path(written[0]), Path(written[1]), *wanted[2:]]

    def _report(self, where, names, side, omit_zero_cells, expand_records) -> str:
        from dpstudio.io.report import report_html
        from dpstudio.model.release.report_facts import report_facts

        facts = replace(report_facts(self.result, self.budget), missing=side.get("missing"))
        if omit_zero_cells and not self.is_histogram and not expand_records:
            facts = replace(
                facts, csv_note=f"{where[CSV].name} leaves out the cells whose count is 0 (the sidecar says so)."
            )
        return report_html(
            self.result,
            self.ledger,
            params=dict(self.snapshot.params),
            files=names,
            public_inputs=side["public_inputs"],
            facts=facts,
        )

    def _scripts(self, where, expand_records, omit_zero_cells) -> dict:
        from dpstudio.io.reproduce import shell_script
        from dpstudio.model.release.rerun_script import python_script
        from dpstudio.model.release.settings import release_settings

        rerun = f"{where[CSV].stem}.rerun.csv"
        settings = release_settings(self.snapshot, self.result, self.budget, self.store, sys.executable)
        return {
            where["command"]: shell_script(
                replace(settings, expand_records=expand_records, omit_zero_cells=omit_zero_cells), rerun
            ),
            where["reproduce"]: python_script(
                self.snapshot,
                rerun,
                self.budget,
                expand_records=expand_records,
                omit_zero_cells=omit_zero_cells,
                store=self.store,
                python=sys.executable,
            ),
        }


__all__ = ["ALL_FILES", "CSV", "REPORT", "RunRecord", "SCRIPTS", "SIDECAR", "file_paths"]
