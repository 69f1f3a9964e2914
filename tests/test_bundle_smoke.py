"""The application bundle's smoke test (packaging/smoke-test) on a bundle built by packaging/build-linux.

Not part of a plain ``scripts/test`` run: building the bundle takes minutes and 670 MB. Point
``DPSTUDIO_BUNDLE`` at a built bundle folder to run it (``DPSTUDIO_BUNDLE=dist/dpstudio scripts/test
tests/test_bundle_smoke.py``); docs/packaging.md has the figures measured when it last passed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = os.environ.get("DPSTUDIO_BUNDLE")


@pytest.mark.skipif(not BUNDLE, reason="no built bundle: set DPSTUDIO_BUNDLE=dist/dpstudio after packaging/build-linux")
def test_the_bundle_starts_headless_releases_and_runs_the_demo():
    done = subprocess.run(
        [str(ROOT / "packaging" / "smoke-test"), str(BUNDLE)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "smoke test passed" in done.stdout
