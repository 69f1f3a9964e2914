"""The project's vocabulary (Qt-free): roles, types, the missing-value choice, modes, the fields a view may
subscribe to, the project file's format, ``ProjectError``, and the saved form of a taxonomy and of a tree's
credit (``edited_provenance``...). Every part of ``model.project.project.Project`` speaks it."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from typing import Any

from dpstudio.core.taxonomy import Taxonomy, TaxonomyError
from dpstudio.model.project.provenance import Provenance

SCHEMA_VERSION = 1
FILE_FORMAT = "dpstudio-project"
FILE_SUFFIX = ".dpstudio"

# attribute roles
QUASI_IDENTIFIER = "quasi-identifier"
CLASS = "class"
IGNORE = "ignore"
ROLES = (QUASI_IDENTIFIER, CLASS, IGNORE)

# attribute types
CATEGORICAL = "categorical"
NUMERIC = "numeric"
TYPES = (CATEGORICAL, NUMERIC)

# missing-value choice
DROP_MISSING = "drop"
KEEP_MISSING = "keep"
MISSING_CHOICES = (DROP_MISSING, KEEP_MISSING)
#: how a missing answer is written when it is kept as a category: the file's own token ('?' in UCI and ARX
#: files and in the CLI), the value every taxonomy must then cover
DEFAULT_MISSING_TOKEN = "?"
#: a column read as numbers with at most this many distinct whole numbers (in 0..99), each seen on average at
#: least CODE_REPEATS times, is proposed as codes
CODE_LIMIT = 12
CODE_REPEATS = 20


def pd_unique_small(column, limit: int):
    """The distinct non-missing values of a numeric ``column`` if there are at most ``limit`` of them, else
    None (stops counting early on a long column)."""
    import numpy as np

    x = column.to_numpy(dtype=float, na_value=np.nan)
    x = x[~np.isnan(x)]
    head = np.unique(x[:100_000])
    if head.size > limit:
        return None
    u = np.unique(x)
    if u.size > limit or u.size == 0 or x.size < CODE_REPEATS * u.size:  # codes repeat; a short column says little
        return None
    return u.tolist()


# modes
TEACHING = "teaching"
RELEASE = "release"
MODES = (TEACHING, RELEASE)

#: every field a subscriber may ask for; "data" covers path, hash, dataset, columns
FIELDS = (
    "data",
    "roles",
    "types",
    "bounds",
    "classes",
    "missing",
    "taxonomies",
    "algorithm",
    "epsilon",
    "mode",
    "ledger",
    "run",
    "dirty",
    "path",
    "provenance",
)

Callback = Callable[[str], None]


class ProjectError(ValueError):
    """A project file or a project setting is invalid; the message says which and why."""


def file_sha256(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes (streams; fine on large files)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            block = fh.read(chunk)
            if not block:
                break
            h.update(block)
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------------
# taxonomy <-> plain dict (self-contained so project files do not depend on a text format's quirks)
DRAWN_HERE = "drawn here"
EDITED_HERE = "edited here"


def edited_provenance(old: Provenance | None) -> Provenance:
    """The provenance of a tree changed in the studio's editor: "drawn here" for a new tree, "edited here, from
    ideo.csv" for an imported one (said once however often it is edited); derived and confirmed stay."""
    if old is None:
        return Provenance(DRAWN_HERE)
    if old.source.startswith((DRAWN_HERE, EDITED_HERE)):
        return old
    return Provenance(f"{EDITED_HERE}, from {old.source}", old.derived, old.confirmed)


def merged_provenance(old: Provenance, name: str) -> Provenance:
    """A tree made here with an imported file merged in: "drawn here; merged with ideo.csv" (derived and
    confirmed stay: the values it held are still in it, the file's are public)."""
    base = old.source.split("; merged with ")[0]
    return Provenance(f"{base}; merged with {name}", old.derived, old.confirmed)


def authored_here(prov: Provenance | None) -> bool:
    """Whether a tree was drawn or edited in the studio (work an import must not replace without asking)."""
    return prov is not None and prov.source.startswith((DRAWN_HERE, EDITED_HERE))


def taxonomy_to_dict(tax: Taxonomy) -> dict:
    d: dict[str, Any] = {
        "attribute": tax.attribute,
        "kind": tax.kind,
        "labels": list(tax.labels),
        "parents": [int(p) for p in tax.parents],
    }
    if tax.is_numeric:
        d["lo"] = [float(x) for x in tax.lo]
        d["hi"] = [float(x) for x in tax.hi]
    return d


def taxonomy_from_dict(d: dict) -> Taxonomy:
    try:
        labels, parents = d["labels"], d["parents"]
    except (KeyError, TypeError):
        raise ProjectError("a saved taxonomy lacks 'labels' or 'parents'") from None
    if len(labels) != len(parents):
        raise ProjectError("a saved taxonomy has different numbers of labels and parents")
    try:
        return Taxonomy.from_parents(labels, parents, d.get("attribute", ""), d.get("lo"), d.get("hi"))
    except (TaxonomyError, IndexError, TypeError, ValueError) as exc:
        raise ProjectError(f"saved taxonomy of {d.get('attribute', '?')!r} is invalid: {exc}") from None


# ---------------------------------------------------------------------------------------------------
