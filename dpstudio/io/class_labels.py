"""Class labels of a labelled test table, read against the declared (public) class values.

The standard UCI test file of Adult writes its labels with a trailing dot (``<=50K.``, ``>50K.``) while the
training file and the declared classes do not; compared as they are, every prediction is "wrong" and every
accuracy reads 0 %. :func:`normalise_class_labels` accepts a label that equals a declared class after
stripping surrounding spaces and ONE trailing "." and returns a note saying so; a label that still
matches no declared class is an input error. Test files are the data owner's own: the messages are
shown to them only and nothing is written.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd


class ClassLabelError(ValueError):
    """The test table's class labels do not match the declared classes (one-line message)."""


def _listed(values, limit: int = 5) -> str:
    values = list(values)
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def normalise_class_labels(
    labels: pd.Series, classes: Sequence, source: str = "the test file"
) -> tuple[pd.Series, str | None]:
    """(labels as declared classes, a one-line note or None when nothing was changed).

    A label is kept if it equals a declared class after stripping surrounding spaces, or becomes that
    class if it does after also stripping one trailing "." (the note lists those labels). Raises
    :class:`ClassLabelError` if any label is still not a declared class (the message says whether none or
    only some match)."""
    declared = [str(c) for c in classes]
    known = set(declared)

    def read(value: str) -> str:
        value = value.strip()
        if value not in known and value.endswith(".") and value[:-1].strip() in known:
            return value[:-1].strip()
        return value

    text = labels.astype(str)
    mapping = {v: read(v) for v in pd.unique(text)}
    unknown = sorted({m for m in mapping.values() if m not in known})
    if unknown:
        if len(unknown) == len(set(mapping.values())):
            raise ClassLabelError(
                f"no class label of {source} matches a declared class: labels "
                f"{_listed(unknown)}; declared classes {_listed(declared)}"
            )
        raise ClassLabelError(
            f"{source} has class labels that are not declared classes: {_listed(unknown)} "
            f"(declared: {_listed(declared)})"
        )
    dotted = sorted({v.strip() for v, m in mapping.items() if v.strip() != m})
    note = None
    if dotted:
        note = (
            f"{source}: class labels {_listed(dotted)} read as {_listed(sorted({read(v) for v in dotted}))} "
            "(one trailing '.' removed)"
        )
    return text.map(mapping), note
