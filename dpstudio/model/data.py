"""Loading the project's data (Qt-free): a CSV chosen by the user or the bundled Adult sample.

The studio calls these inside a worker with a ``progress(done, total, message)`` callback. They delegate
to ``dpstudio.io.datasets.load_table`` (the parser, type detection, missing-value report) and only add
what the studio needs around it: the bundled sample's location and one loader for both cases.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Optional

Progress = Optional[Callable[[int, int, str], None]]

BUNDLED_SAMPLE = ("samples", "adult.csv.gz")


def bundled_sample_path() -> Path:
    """Path of the bundled Adult sample (raises FileNotFoundError with the path it looked for)."""
    from dpstudio.resources import resource

    return resource(*BUNDLED_SAMPLE)


def load_dataset(path: str | os.PathLike, progress: Progress = None):
    """Load a data file into a ``dpstudio.io.datasets.Dataset``; errors are specific ValueErrors/OSErrors."""
    from dpstudio.io.datasets import load_table

    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(21, "is a folder", str(path))
    if not path.exists():
        raise FileNotFoundError(2, "no such file", str(path))
    if progress is None:
        return load_table(path)
    return load_table(path, progress=progress)


def load_bundled_sample(progress: Progress = None):
    """The bundled Adult sample as a Dataset (through ``dpstudio.io.adult`` when it exists)."""
    try:
        from dpstudio.io.adult import load_bundled_adult
    except ImportError:
        return load_dataset(bundled_sample_path(), progress)
    if progress is not None:
        progress(0, 0, "loading the bundled Adult sample")
    try:
        return load_bundled_adult(progress=progress)
    except TypeError:  # no progress parameter
        return load_bundled_adult()
