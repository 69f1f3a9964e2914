"""The one place that locates bundled resources (sample data, taxonomies, icons, style sheet)."""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def resources_dir() -> Path:
    """The ``resources/`` folder: $DPSTUDIO_RESOURCES, else beside the package (source checkout or bundle)."""
    env = os.environ.get("DPSTUDIO_RESOURCES")
    if env:
        return Path(env)
    for candidate in (_PACKAGE_DIR.parent / "resources", _PACKAGE_DIR / "resources"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("dpstudio's resources folder was not found (set DPSTUDIO_RESOURCES)")


def resource(*parts: str) -> Path:
    path = resources_dir().joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"bundled resource not found: {path}")
    return path
