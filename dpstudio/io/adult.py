"""The UCI Adult data set in the split the papers use (ALGORITHMS.md section 9), and the bundled sample.

Protocol: drop every record with a missing value; train = the 30,162 complete rows of adult.data, test =
the 15,060 complete rows of adult.test, whose class labels lose their trailing dot ('<=50K.' -> '<=50K').
Adult: Becker & Kohavi (1996), UCI Machine Learning Repository, CC BY 4.0, doi:10.24432/C5XW20.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pandas as pd

from dpstudio.io.class_labels import ClassLabelError, normalise_class_labels
from dpstudio.io.datasets import Dataset, DatasetError, Progress, load_table

CLASS_COLUMN = "Y"  # what the header rows of adult.data / adult.test call the income class
CLASS_LABELS = ("<=50K", ">50K")
NUMERIC_COLUMNS = ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week")
CATEGORICAL_COLUMNS = (
    "workclass",
    "education",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "native-country",
)
COLUMNS = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    CLASS_COLUMN,
)
TRAIN_ROWS, TEST_ROWS = 30162, 15060
SAMPLE_TRAIN = ("samples", "adult.csv.gz")
SAMPLE_TEST = ("samples", "adult_test.csv.gz")


def adult_files(data_dir) -> tuple[Path, Path]:
    """(train, test) files in ``data_dir`` or its ``adult/`` subfolder: UCI's adult.data and adult.test, or the
    bundled sample's adult.csv.gz and adult_test.csv.gz (``dpstudio/resources/samples``)."""
    d = Path(data_dir)
    layouts = (("adult.data", "adult.test"), (SAMPLE_TRAIN[1], SAMPLE_TEST[1]))
    for folder in (d, d / "adult"):
        for train, test in layouts:
            if (folder / train).is_file() and (folder / test).is_file():
                return folder / train, folder / test
    raise DatasetError(
        f"adult.data and adult.test (or the bundled sample's {SAMPLE_TRAIN[1]} and {SAMPLE_TEST[1]}) not found in {d}"
    )


def _complete(dataset: Dataset, notes: list[str] | None = None) -> pd.DataFrame:
    if dataset.columns != list(COLUMNS):
        if dataset.columns == [f"col{i}" for i in range(1, len(COLUMNS) + 1)]:
            dataset = dataset.renamed(dict(zip(dataset.columns, COLUMNS)))
        else:
            raise DatasetError(f"{dataset.path}: expected the Adult columns {', '.join(COLUMNS)}")
    complete, _ = dataset.drop_missing()
    frame = complete.frame
    try:
        frame[CLASS_COLUMN], note = normalise_class_labels(
            frame[CLASS_COLUMN], CLASS_LABELS, dataset.path.name if dataset.path else "the table"
        )
    except ClassLabelError as exc:
        raise DatasetError(str(exc)) from None
    if note and notes is not None:
        notes.append(note)
    return frame


def load_adult(data_dir, notes: list[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(train, test): the complete rows of adult.data and adult.test, test labels without the dot.

    ``notes``: a list that receives one line per file whose labels were read without their trailing dot.

    ``data_dir`` is the folder holding adult.data and adult.test (or its parent, e.g. ../shared/data).
    Numeric columns are int64, the others text; the class column is :data:`CLASS_COLUMN`.
    """
    train, test = adult_files(data_dir)
    return _complete(load_table(train), notes), _complete(load_table(test), notes)


def engine_train_counts(data_dir, engine, columns, notes: list[str] | None = None, progress=None):
    """(frame, weights): the complete rows of adult.data restricted to ``columns`` (Adult column names, the
    class among them), read by a SQL ``engine`` as distinct rows with their record counts (its only look at
    the data; docs/scale.md), with the protocol of :func:`load_adult` (rows with a missing value dropped,
    class labels without a dot)."""
    import numpy as np

    from dpstudio.io.engines.source import describe

    source = describe(adult_files(data_dir)[0])
    names = list(source.names)
    if names == [f"col{i}" for i in range(1, len(COLUMNS) + 1)]:  # the UCI file has no header row
        as_read = {c: names[COLUMNS.index(c)] for c in columns}
    elif names == list(COLUMNS):
        as_read = {c: c for c in columns}
    else:
        raise DatasetError(f"{source.path}: expected the Adult columns {', '.join(COLUMNS)}")
    frame, counts = engine.group_counts(source, [as_read[c] for c in columns], progress=progress)
    frame = frame.rename(columns={v: k for k, v in as_read.items()})
    keep = ~frame.isna().any(axis=1).to_numpy()
    frame = frame.loc[keep].reset_index(drop=True)
    try:
        frame[CLASS_COLUMN], note = normalise_class_labels(frame[CLASS_COLUMN], CLASS_LABELS, source.path.name)
    except ClassLabelError as exc:
        raise DatasetError(str(exc)) from None
    if note and notes is not None:
        notes.append(note)
    return frame, np.asarray(counts, dtype=np.int64)[keep]


def load_bundled_adult() -> tuple[pd.DataFrame, pd.DataFrame]:
    """(train, test) from the bundled sample (dpstudio/resources/samples): the same frames as :func:`load_adult`."""
    from dpstudio.resources import resource

    return (
        _complete(load_table(resource(*SAMPLE_TRAIN))),
        _complete(load_table(resource(*SAMPLE_TEST))),
    )


def bundled_dataset(progress: Progress | None = None) -> Dataset:
    """The bundled training sample (30,162 complete Adult rows) as a :class:`Dataset`, as the app opens it."""
    from dpstudio.resources import resource

    return load_table(resource(*SAMPLE_TRAIN), progress=progress)


def sample_bytes(frame: pd.DataFrame) -> bytes:
    """A frame as the bundled sample stores it: CSV with a header, ',' separated, gzip without a timestamp
    (so the same rows always give the same bytes and the same SHA-256)."""
    text = frame.to_csv(index=False, lineterminator="\n").encode("utf-8")
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9, mtime=0, filename="") as gz:
        gz.write(text)
    return out.getvalue()


def write_bundled_sample(data_dir, out_dir) -> list[Path]:
    """Regenerate dpstudio/resources/samples/adult.csv.gz and adult_test.csv.gz from the UCI files in ``data_dir``."""
    from dpstudio.io.atomic import atomic_write_many

    train, test = load_adult(data_dir)
    out = Path(out_dir)
    return atomic_write_many(
        {out / SAMPLE_TRAIN[1]: sample_bytes(train), out / SAMPLE_TEST[1]: sample_bytes(test)}, overwrite=True
    )
