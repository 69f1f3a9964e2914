"""A test file read with the project's schema (Qt-free), for Compare's classification and the Anonymize tab's
side-by-side: the same text encoding, the declared column types (codes stay the text they are in the data,
not floats), the same missing-value choice and token, and every mismatch with the public inputs listed at
once before anything is scored.

The test file is the data owner's own held-out table: what is read here is shown to the data owner only
(accuracies, never a release artefact).
"""

from __future__ import annotations

from pathlib import Path

from dpstudio.model.numbers import bound_text
from dpstudio.model.project.project import CATEGORICAL, KEEP_MISSING, NUMERIC, Project


class HeldOutTableError(ValueError):
    """The test file does not fit the project's schema; the message lists every mismatch."""


def read_test_table(project: Project, source, columns: list[str]):
    """``columns`` of the test table ``source`` (a path or a DataFrame) read as the project reads its data:
    encoding, declared types and the missing-value choice (kept missing cells take the project's token;
    dropped: incomplete rows dropped). HeldOutTableError listing every absent column, every value a
    categorical column's taxonomy does not cover and every numeric column with values outside its public
    bounds; the data file itself is refused (a test file holds other records). A file read and fitting them
    becomes ``project.test_path``, the next scoring's default (Compare and
    Anonymize's side by side)."""
    p = project
    if not hasattr(source, "columns") and p.data_path is not None and _same_file(source, p.data_path):
        raise HeldOutTableError(
            f"{Path(source).name} is the data the release was made from: a test file holds other records (a "
            "held-out part of the table), or the accuracy overstates what the release predicts on new records"
        )
    if hasattr(source, "columns"):
        frame = source
    else:
        from dpstudio.io.datasets import DatasetError, load_table

        types = {c: p.types[c] for c in columns if p.types.get(c) in (CATEGORICAL, NUMERIC)}
        try:
            frame = load_table(source, encoding=p.data_encoding or "utf-8", types=types).frame
        except (DatasetError, OSError) as exc:
            raise HeldOutTableError(f"the test file cannot be read with this project's settings: {exc}") from None
    absent = [c for c in columns if c not in frame.columns]
    if absent:
        raise HeldOutTableError(f"the test file has no column(s) {', '.join(absent)}")
    frame = frame[list(columns)].copy()
    from dpstudio.io.datasets import missing_as_token, numbers_as_text

    categorical = [c for c in columns if p.types.get(c) != NUMERIC]
    for c in categorical:  # the data's text form, as Dataset.set_type makes it: a code is '1', not '1.0'
        frame[c] = numbers_as_text(frame[c])
    if p.missing == KEEP_MISSING:
        frame = missing_as_token(frame, p.missing_token, categorical)
    frame = frame.dropna().reset_index(drop=True)
    problems = []
    for c in columns:
        tax = p.taxonomies.get(c)
        if c == p.class_attribute:
            continue
        if p.types.get(c) == NUMERIC:
            if c in p.bounds:
                lo, hi = p.bounds[c]
                x = frame[c].to_numpy(dtype=float)
                outside = int(((x < lo) | (x >= hi)).sum())
                if outside:
                    problems.append(
                        f"{c}: {outside} row(s) outside the public bounds [{bound_text(lo)}, {bound_text(hi)})"
                    )
            continue
        if tax is None:
            continue
        found = tax.map_values(frame[c].to_numpy(dtype=object)).uncovered
        if found:
            shown = ", ".join(repr(v) for v, _ in found[:5]) + (", ..." if len(found) > 5 else "")
            rows = sum(n for _, n in found)
            problems.append(f"{c}: {rows} row(s) have values its taxonomy does not cover: {shown}")
    if problems:
        raise HeldOutTableError("the test file does not fit this project's public inputs:\n" + "\n".join(problems))
    if not hasattr(source, "columns"):
        p.test_path = Path(source)
    return frame


def _same_file(a, b) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve() or Path(a).samefile(b)
    except OSError:
        return False


def folder_for_test_file(project: Project) -> str:
    """Where the test file dialog opens: beside the data (the home folder without a data file, or for a
    sample shipped inside dpstudio: ``folders.beside``)."""
    from dpstudio.model.project.folders import beside

    return str(beside(project.data_path))


__all__ = ["HeldOutTableError", "read_test_table", "folder_for_test_file"]
