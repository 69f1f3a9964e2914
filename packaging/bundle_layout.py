"""What the PyInstaller bundle must carry beyond what import analysis finds, and where it goes.

Kept free of PyInstaller imports so the layout can be checked by the test suite without building.
Destinations are relative to the bundle root (``sys._MEIPASS``), where PyInstaller also places the
``dpstudio`` package: the resources are package data of ``dpstudio.resources`` and land in
``<root>/dpstudio/resources``, where ``importlib.resources`` finds them, as in a wheel or a source checkout.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "dpstudio"
RESOURCES = PACKAGE / "resources"

#: the console script declared in pyproject.toml ([project.scripts] dpstudio = ...)
ENTRY_POINT = "dpstudio.cli:main"
ENTRY_SCRIPT = Path(__file__).resolve().parent / "dpstudio_entry.py"
APP_NAME = "dpstudio"

#: modules the bundle must not pull in: other Qt bindings (PyInstaller refuses to mix them) and
#: development-only packages that optional imports would otherwise drag in.
EXCLUDES = [
    "PyQt5",
    "PyQt6",
    "PySide2",
    "tkinter",
    "matplotlib",
    "IPython",
    "pytest",
    "pytestqt",
    "hypothesis",
    "polars",
]


#: data files the bundle leaves out (destination prefixes): Qt's translations of its own dialogs
DROPPED_DATA = ("PySide6/Qt/translations",)


def is_dropped_data(destination: str) -> bool:
    return str(destination).replace("\\", "/").startswith(DROPPED_DATA)


def resource_datas() -> list[tuple[str, str]]:
    """The package data folder ``dpstudio/resources/``, copied whole to ``<root>/dpstudio/resources``."""
    return [(str(RESOURCES), "dpstudio/resources")]


def dpstudio_hidden_imports() -> list[str]:
    """Every dpstudio module: CLI subcommands and GUI panels are imported by name at run time."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        if "__pycache__" in parts:
            continue
        if parts[-1] == "__main__":
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


def opendp_library_binaries() -> list[tuple[str, str]]:
    """OpenDP's native library (shipped inside its wheel as ``opendp/lib/opendp*.so|pyd|dylib``).

    ``opendp._lib`` loads it with ctypes from ``<package>/lib``, so it must land in ``<root>/opendp/lib``.
    """
    spec = importlib.util.find_spec("opendp")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("opendp is not installed in the build environment")
    lib_dir = Path(next(iter(spec.submodule_search_locations))) / "lib"
    found = [p for p in sorted(lib_dir.iterdir()) if p.is_file() and "opendp" in p.name]
    if not found:
        raise RuntimeError(f"OpenDP's native library was not found in {lib_dir}")
    return [(str(p), "opendp/lib") for p in found]
