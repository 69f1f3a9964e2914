"""The classification check of a table release (Qt-free): a tree trained on the released counts, tested on a
held-out file of other records, against the test file's majority class; and, in teaching mode only, against a
tree trained on the raw data.

Privacy: in release mode nothing here reads the private rows (the release and the test file only). The raw
baseline trains on the private rows: it is offered only when ``reads_true_counts`` holds (a teaching run of a
teaching project) and the data is in memory; the words say why it is missing otherwise."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dpstudio.model.compare import comparison as cmp
from dpstudio.model.compare.monte_carlo import TABLE, reads_true_counts, result_kind

RAW_RELEASE_MODE = "teaching mode only"
RAW_NOT_IN_MEMORY = "it trains on the records, and this table is read through DuckDB, not into memory"


@dataclass(frozen=True)
class ReleaseAccuracy:
    """The scores (``comparison.ClassificationScores``), the note on the test file's rows, and why the raw
    baseline is missing (None when ``scores.raw`` is there)."""

    scores: Any
    note: str
    raw_withheld: str | None

    def text(self) -> str:
        s = self.scores
        if self.raw_withheld is not None:
            text = (
                f"{s.n_test:,} test rows: release {s.release:.2%}, majority class of the test file "
                f"{s.majority:.2%} (raw-data baseline: {self.raw_withheld})"
            )
        else:
            text = (
                f"{s.n_test:,} test rows: release {s.release:.2%}, majority {s.majority:.2%}, raw data "
                f"{s.raw:.2%} (teaching mode: the raw baseline is not private). In words: {s.gain_words()}"
            )
        return text + (f"\n{self.note}" if self.note else "")


def release_accuracy(project: Any, result: Any, test: Any) -> ReleaseAccuracy:
    """Score ``result`` on ``test`` (a DataFrame or a path, read with the project's encoding, types and
    missing-value choice). ValueError when the run is not a table release or the test file does not fit."""
    if result_kind(result) != TABLE:
        raise ValueError("classification needs a DiffGen-family release")
    from dpstudio.model.compare.held_out_table import read_test_table
    from dpstudio.model.project.vocabulary import NUMERIC, QUASI_IDENTIFIER

    cls = project.class_attribute
    cols = project.attributes(QUASI_IDENTIFIER) + [cls]
    test = read_test_table(project, test, cols)
    test, note = cmp.prepare_test_table(test, cols, cls, result.classes)
    numeric = [a for a in cols if project.types.get(a) == NUMERIC]
    if not reads_true_counts(project):
        withheld: str | None = RAW_RELEASE_MODE
    elif project.frame is None:
        withheld = RAW_NOT_IN_MEMORY
    else:
        withheld = None
    if withheld is not None:
        return ReleaseAccuracy(cmp.classification_scores(result, test, cls, numeric), note, withheld)
    from dpstudio.model.release.runs import used_frame

    train = used_frame(project, cols)  # the private rows: teaching mode only
    return ReleaseAccuracy(cmp.classification_scores(result, test, cls, numeric, train=train), note, None)
