"""Where the studio's file dialogs open: beside the user's data, never inside the installed package."""

from __future__ import annotations

from pathlib import Path

import dpstudio

PACKAGE = Path(dpstudio.__file__).resolve().parent


def beside(data_path: Path | None) -> Path:
    """The folder of ``data_path``, or the home folder when there is none, when it is gone, or when the
    data is one of the samples shipped inside dpstudio (release files written there would be lost with
    the next install and mixed with the package's own files)."""
    if data_path is None:
        return Path.home()
    folder = Path(data_path).resolve().parent
    if not folder.is_dir() or folder == PACKAGE or PACKAGE in folder.parents:
        return Path.home()
    return folder
