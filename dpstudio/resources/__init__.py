"""The one place that locates bundled resources: sample data, taxonomies, icons (package data of
``dpstudio.resources``, read through ``importlib.resources``, so an installed wheel and an application bundle
carry them like a source checkout does)."""

from __future__ import annotations

import os
from importlib import resources as _importlib_resources
from pathlib import Path


def resources_dir() -> Path:
    """The resources folder: ``$DPSTUDIO_RESOURCES`` when set, else this package's own folder."""
    env = os.environ.get("DPSTUDIO_RESOURCES")
    if env:
        return Path(env)
    root = _importlib_resources.files(__name__)
    if not isinstance(root, Path):  # a zipped install: not supported (every file is read by path)
        raise FileNotFoundError(f"dpstudio's resources are inside an archive ({root}); install it unzipped")
    return root


def resource(*parts: str) -> Path:
    """The bundled file or folder ``resources/<parts...>``; FileNotFoundError naming it when it is absent."""
    path = resources_dir().joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"bundled resource not found: {path}")
    return path
