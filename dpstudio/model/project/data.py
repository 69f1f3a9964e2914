"""Loading the project's data (Qt-free): a CSV chosen by the user or the bundled Adult sample.

The studio calls these inside a worker with a ``progress(done, total, message)`` callback. They delegate
to ``dpstudio.io.datasets.load_table`` (the parser, type detection, missing-value report) and only add
what the studio needs around it: the bundled sample's location and one loader for both cases.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

Progress = Callable[..., object] | None  # progress(done, total[, what]); False cancels

BUNDLED_SAMPLE = ("samples", "adult.csv.gz")


def bundled_sample_path() -> Path:
    """Path of the bundled Adult sample (raises FileNotFoundError with the path it looked for)."""
    from dpstudio.resources import resource

    return resource(*BUNDLED_SAMPLE)


def load_dataset(path: str | os.PathLike, progress: Progress = None, encoding: str = "utf-8"):
    """Load a data file into a ``dpstudio.io.datasets.Dataset`` (CSV/TSV text read with ``encoding``);
    errors are specific ValueErrors/OSErrors. A UTF-8 CSV/TSV or Parquet file larger than the engines'
    ``AUTO_BYTES`` (256 MB; ``$DPSTUDIO_STUDIO_ENGINE=duckdb|numpy`` decides instead) opens as an
    ``io.engine_table.EngineTable``: read through DuckDB, its records never loaded into memory."""
    from dpstudio.io.datasets import load_table

    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(21, "is a folder", str(path))
    if not path.exists():
        raise FileNotFoundError(2, "no such file", str(path))
    from dpstudio.io.engine_table import open_engine_table, opens_with_engine

    if opens_with_engine(path, encoding):  # large: read through DuckDB, the rows stay in the file
        return open_engine_table(path, progress)
    if progress is None:
        return with_records_print(load_table(path, encoding=encoding))
    return with_records_print(load_table(path, encoding=encoding, progress=progress))


def load_bundled_sample(progress: Progress = None):
    """The bundled Adult training sample (30,162 complete rows) as a Dataset, as the app opens it."""
    try:
        from dpstudio.io.adult import bundled_dataset
    except ImportError:
        return load_dataset(bundled_sample_path(), progress)
    return with_records_print(bundled_dataset(progress=progress))


def with_records_print(dataset):
    """Attach the budget store's fingerprint of the records as loaded (``records_print``), computed here in
    the loading worker (about 0.7 s a million rows) rather than on the GUI thread when the data is adopted.
    The print is private (a hash of the records): it goes to the local budget store only."""
    from dpstudio.io.dataset_fingerprint import table_print

    dataset.records_print = table_print(dataset.frame)
    return dataset


def declare_bundled_sample(project) -> list[str]:
    """Declare the bundled Adult sample's documented public inputs in ``project`` (just opened): each
    column's type (adult.names lists the continuous attributes and the values of the others), the income
    class values ("<=50K", ">50K", published in adult.names), integer kinds for its numeric attributes
    (the published files hold whole numbers) and the shipped taxonomies of its categorical attributes
    (dpstudio/resources/taxonomies/adult, built from adult.names's value lists, never from the records). Returns the
    inputs declared, e.g. ["type:age", "classes:Y", "kind:age", "taxonomy:sex"]. The public bounds are
    declared by the Data panel (dpstudio/resources/taxonomies/adult/bounds.json)."""
    from dpstudio.io.adult import CATEGORICAL_COLUMNS, CLASS_COLUMN, CLASS_LABELS, NUMERIC_COLUMNS
    from dpstudio.model.project import provenance as pv

    done = []
    documented = {
        **{c: "numeric" for c in NUMERIC_COLUMNS},
        **{c: "categorical" for c in (*CATEGORICAL_COLUMNS, CLASS_COLUMN)},
    }
    for c, kind in documented.items():
        if project.types.get(c) == kind:  # as loaded; a column the loader typed otherwise stays as it is
            project.set_type(c, kind, pv.ADULT_TYPES)
            done.append(pv.key(pv.TYPE, c))
    if project.class_attribute == CLASS_COLUMN:
        project.set_classes(list(CLASS_LABELS), pv.ADULT_CLASSES)
        done.append(pv.key(pv.CLASSES, CLASS_COLUMN))
    for c in NUMERIC_COLUMNS:
        if project.types.get(c) == "numeric":
            project.set_numeric_type(c, "integer", pv.ADULT_KINDS)
            done.append(pv.key(pv.KIND, c))
    for c, tax in bundled_taxonomies().items():
        if project.types.get(c) == "categorical" and c != project.class_attribute:
            project.set_taxonomy(c, tax, pv.ADULT_TAXONOMIES)
            done.append(pv.key(pv.TAXONOMY, c))
    return done


def adult_public_bounds() -> dict[str, tuple[float, float]]:
    """The bundled Adult sample's public numeric bounds (dpstudio/resources/taxonomies/adult/bounds.json), or {}."""
    import json

    from dpstudio.resources import resource

    try:
        raw = json.loads(resource("taxonomies", "adult", "bounds.json").read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError, OSError):
        return {}
    out = {}
    for attr, b in raw.items():
        if isinstance(b, dict):
            b = (b.get("lo", b.get("lower")), b.get("hi", b.get("upper")))
        try:
            out[attr] = (float(b[0]), float(b[1]))
        except (TypeError, ValueError, IndexError, KeyError):
            continue
    return out


def adopt_bundled_sample(project, dataset, path) -> None:
    """Adopt the loaded bundled sample (``load_bundled_sample``) in ``project`` as the studio opens it: the
    data, its public bounds (bounds.json) and its documented public inputs (``declare_bundled_sample``)."""
    from dpstudio.model.project.project import NUMERIC

    project.set_data(dataset, path, encoding="utf-8")
    for attr, (lo, hi) in adult_public_bounds().items():
        if attr in project.columns and project.types.get(attr) == NUMERIC:
            project.set_bounds(attr, lo, hi, "the bundled Adult sample's public bounds")
    declare_bundled_sample(project)


def bundled_taxonomies() -> dict:
    """attribute -> Taxonomy: the categorical hierarchies shipped for the Adult sample (public inputs)."""
    from dpstudio.io.adult import CATEGORICAL_COLUMNS
    from dpstudio.io.taxonomy_formats import read_taxonomy
    from dpstudio.resources import resource

    folder = resource("taxonomies", "adult")
    return {
        c: read_taxonomy(folder / f"{c}.csv", attribute=c)
        for c in CATEGORICAL_COLUMNS
        if (folder / f"{c}.csv").is_file()
    }
