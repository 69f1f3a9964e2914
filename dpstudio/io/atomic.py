"""Safe output: atomic writes that never overwrite silently, and CSV cells neutralised against formulas."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


class OutputPathError(ValueError):
    """The output path exists (and overwriting was not asked for) or cannot be written."""


def check_output_path(path, overwrite: bool = False) -> Path:
    """Validate an output path before any work is done; raise OutputPathError with a specific message."""
    p = Path(path)
    if p.exists() and p.is_dir():
        raise OutputPathError(f"{p} is a folder, not a file")
    if p.exists() and not overwrite:
        raise OutputPathError(f"{p} already exists (refusing to overwrite; pass --overwrite to replace it)")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise OutputPathError(f"folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise OutputPathError(f"folder {parent} is not writable")
    return p


def atomic_write(path, data: str | bytes, overwrite: bool = False, encoding: str = "utf-8") -> Path:
    """Write to a temporary file in the same folder, then rename it into place.

    Refuses (OutputPathError) if ``path`` exists and ``overwrite`` is false; a crash leaves no partial file.
    """
    p = check_output_path(path, overwrite)
    payload = data.encode(encoding) if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        if not overwrite and p.exists():
            raise OutputPathError(f"{p} appeared while writing (refusing to overwrite)")
        os.replace(tmp, p)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return p


def atomic_write_many(files: dict, overwrite: bool = False) -> list[Path]:
    """Write several files (e.g. a CSV and its JSON sidecar): all paths are checked before any is written."""
    for path in files:
        check_output_path(path, overwrite)
    return [atomic_write(path, data, overwrite) for path, data in files.items()]


def neutralise_cell(value):
    """Prefix a text cell starting with = + - @ (or tab/CR) with a quote so spreadsheets show it as text.

    Numbers are left alone (a negative count is a number, not a formula).
    """
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value
