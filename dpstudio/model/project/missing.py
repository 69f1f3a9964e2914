"""Missing values of the loaded data, as the data owner sees them (Qt-free).

Every figure here is private: it describes the owner's rows and is shown to the owner only (the Data panel,
the release question, the command line's stderr), never written into a release, a report or a log. What a
release states is the rule (``io.release.missing_rule``): rows dropped, or missing kept as a value.

``missing_summary(project, used)`` counts the missing cells per column and the rows a release would drop: rows
with a missing value in a used column (the class or a quasi-identifier). A table read through an engine
knows the rows with a missing value in any column from its first pass; per used set it would need another
pass, so ``rows_in_used`` is then an upper bound (``exact`` False).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MissingSummary:
    per_column: dict[str, int]  # missing cells per column, columns with none left out
    rows_total: int
    rows_in_used: int  # rows with a missing value in a used column (an upper bound when not ``exact``)
    used_with_missing: tuple[str, ...]  # the used columns that have missing cells
    exact: bool = True

    @property
    def dropped_share(self) -> float:
        """The share of the rows a release that drops missing values leaves out (an upper bound if not exact)."""
        return self.rows_in_used / self.rows_total if self.rows_total else 0.0


def missing_summary(project, used) -> MissingSummary:
    """Missing cells of ``project``'s data and the rows with a missing value in one of the ``used`` columns
    (see the module docstring); empty without data."""
    if not project.has_data:
        return MissingSummary({}, 0, 0, ())
    used = [c for c in used if c in project.columns]
    table = project.engine_table
    if table is not None:
        report = table.missing_report()
        per_column = {c: int(n) for c, n in report.per_column.items() if n}
        with_missing = tuple(c for c in used if per_column.get(c))
        rows = int(report.rows_with_missing) if with_missing else 0
        return MissingSummary(per_column, int(project.n_rows), rows, with_missing, exact=not with_missing)
    frame = project.frame
    cache = project.__dict__.setdefault("_na_cache", {})
    if cache.get("frame") is not frame:
        cache.clear()
        mask = frame.isna()
        # the counts are kept with the mask: summing a million-row mask took 20-40 ms of the window's
        # thread every time the release question or the readiness list was asked (issue 35)
        counts = mask.sum()
        cache.update(frame=frame, mask=mask, per_column={str(c): int(n) for c, n in counts.items() if n}, rows={})
    mask, per_column = cache["mask"], cache["per_column"]
    with_missing = tuple(c for c in used if per_column.get(c))
    rows = cache["rows"].get(with_missing)
    if rows is None:
        rows = cache["rows"][with_missing] = int(mask[list(with_missing)].any(axis=1).sum()) if with_missing else 0
    return MissingSummary(dict(per_column), int(project.n_rows), rows, with_missing)


def share_words(share: float) -> str:
    """A rounded share for people: '12 %', 'under 1 %' (never the exact count)."""
    return "under 1 %" if 0 < share < 0.005 else f"{share:.0%}".replace("%", " %")


def drop_note(summary: MissingSummary) -> str:
    """The release question's note when rows will be dropped ('' when none will)."""
    if not summary.rows_in_used:
        return ""
    share = share_words(summary.dropped_share)
    amount = share if summary.exact else f"up to {share}"
    return (
        f"{amount.capitalize() if amount[0].isalpha() else amount} of the rows have a missing value in "
        f"{', '.join(summary.used_with_missing)} and are left out of this release. To keep them as a value of "
        "their own, answer No and change the missing-value choice first."
    )
