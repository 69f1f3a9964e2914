"""Safe output: atomic writes that never overwrite silently, and CSV cells neutralised against formulas."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


class OutputPathError(ValueError):
    """The output path exists (and overwriting was not asked for) or cannot be written. ``existing``: the
    file that exists, if that is the reason (the studio words its own message from it)."""

    def __init__(self, message: str, existing: Path | None = None):
        super().__init__(message)
        self.existing = existing


def check_output_path(path, overwrite: bool = False) -> Path:
    """Validate an output path before any work is done; raise OutputPathError with a specific message."""
    p = Path(path)
    if p.exists() and p.is_dir():
        raise OutputPathError(f"{p} is a folder, not a file")
    if p.exists() and not overwrite:
        raise OutputPathError(f"{p} already exists (refusing to overwrite; pass --overwrite to replace it)", p)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise OutputPathError(f"folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise OutputPathError(f"folder {parent} is not writable")
    return p


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _stage(p: Path, data: str | bytes, encoding: str) -> str:
    """Write ``data`` to a synced temporary file beside ``p``; returns its name. The file gets the mode an
    ordinary new file gets (0666 less the umask: 0644 usually; a ``.sh`` or ``.py`` script 0777 less the umask):
    release files are meant to be read, mkstemp's 0600 is not."""
    payload = data.encode(encoding) if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        os.chmod(tmp, (0o777 if p.suffix in (".sh", ".py") else 0o666) & ~_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def atomic_write(path, data: str | bytes, overwrite: bool = False, encoding: str = "utf-8") -> Path:
    """Write to a temporary file in the same folder, then rename it into place.

    Refuses (OutputPathError) if ``path`` exists and ``overwrite`` is false; a crash leaves no partial file.
    """
    return atomic_write_many({path: data}, overwrite, encoding)[0]


def atomic_write_many(files: dict, overwrite: bool = False, encoding: str = "utf-8") -> list[Path]:
    """Write several files (a CSV, its JSON sidecar, the report) as one step: every path is checked, every
    file is written to a temporary file beside it, and only then are all renamed into place; a failure
    before the renames (a full disk, an error while writing) leaves none of them."""
    paths = [check_output_path(path, overwrite) for path in files]
    staged: list[tuple[str, Path]] = []
    try:
        for p, data in zip(paths, files.values()):
            staged.append((_stage(p, data, encoding), p))
        if not overwrite:
            for _, p in staged:
                if p.exists():
                    raise OutputPathError(f"{p} appeared while writing (refusing to overwrite)", p)
        for tmp, p in staged:
            os.replace(tmp, p)
    except BaseException:
        for tmp, _ in staged:
            if os.path.exists(tmp):
                os.unlink(tmp)
        raise
    return paths


def neutralise_cell(value):
    """Prefix a text cell starting with = + - @ (or tab/CR) with a quote so spreadsheets show it as text.

    Numbers are left alone (a negative count is a number, not a formula).
    """
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value
