"""The wheel is complete: built from this checkout, installed into a fresh virtual environment outside the
source tree, it runs ``dpstudio --help``, a release from the bundled sample (the resources travel inside the
package), the Python API, and the headless demo.

The new environment gets the wheel itself (``--no-deps``); its dependencies are read from the test
environment's site-packages through a ``.pth`` line (not a site directory: the editable install's own
``.pth`` hook there is not run, so ``import dpstudio`` can only find the wheel's copy, which the test
checks). That keeps the test offline and quick; what it proves is what the wheel carries."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 600


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(bin folder of the fresh environment, its environment variables, a working folder outside the tree)."""
    base = tmp_path_factory.mktemp("wheel")
    dist = base / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-q", "-w", str(dist)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        cwd=base,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = dist.glob("dpstudio-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for needed in (
        "dpstudio/py.typed",
        "dpstudio/resources/samples/adult.csv.gz",
        "dpstudio/resources/samples/ILINet.csv.gz",
        "dpstudio/resources/taxonomies/adult/bounds.json",
        "dpstudio/resources/icons/dpstudio.svg",
    ):
        assert needed in names, f"{needed} is not in the wheel"
    env_dir = base / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    (site / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    work = base / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DPSTUDIO_RESOURCES", "VIRTUAL_ENV")}
    env.update(
        {
            "PATH": f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}",
            "DPSTUDIO_BUDGET_STORE": str(base / "store.sqlite"),
            "HOME": str(base),
            "QT_QPA_PLATFORM": "offscreen",
        }
    )
    return env_dir / "bin", env, work


def _run(cmd, env, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=TIMEOUT)


def test_the_installed_package_is_the_wheel_not_the_checkout(installed):
    bin_dir, env, work = installed
    done = _run(
        [
            str(bin_dir / "python"),
            "-c",
            "import dpstudio, dpstudio.resources as r; print(dpstudio.__file__); "
            "print(r.resources_dir()); print(dpstudio.__version__)",
        ],
        env,
        work,
    )
    assert done.returncode == 0, done.stderr
    module, resources, version = done.stdout.split()
    env_dir = bin_dir.parent
    assert Path(module).is_relative_to(env_dir) and Path(resources).is_relative_to(env_dir)
    assert not Path(module).is_relative_to(ROOT)
    assert version == "0.2.0"


def test_help_and_a_release_from_the_bundled_sample(installed):
    bin_dir, env, work = installed
    dp = str(bin_dir / "dpstudio")
    helped = _run([dp, "--help"], env, work)
    assert helped.returncode == 0 and "release" in helped.stdout
    where = _run(
        [str(bin_dir / "python"), "-c", "from dpstudio.resources import resource; print(resource())"], env, work
    )
    res = Path(where.stdout.strip())
    tax = res / "taxonomies" / "adult"
    done = _run(
        [
            dp, "release", "--data", str(res / "samples" / "adult.csv.gz"), "--class", "Y",
            "--classes", "<=50K,>50K", "--taxonomy", f"sex={tax / 'sex.csv'}",
            "--taxonomy", f"race={tax / 'race.csv'}", "--bounds", "age=17:91", "--type", "age=integer",
            "--algorithm", "diffgen", "--epsilon", "1", "--steps", "4", "--out", "adult_release.csv",
        ],
        env,
        work,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    sidecar = json.loads((work / "adult_release.json").read_text())
    assert sidecar["not_a_release"] is False and sidecar["ledger"]["total"] == "1"


def test_the_python_api_releases_the_bundled_sample(installed):
    bin_dir, env, work = installed
    script = (
        "from dpstudio import api\n"
        "study = api.open_sample()\n"
        "study.raise_lifetime_budget(2)  # the CLI test released these people already\n"
        "study.choose('diffgen', steps=3)\n"
        "release = study.release(study.question('0.5'))\n"
        "print(*[p.name for p in release.export('.', 'api')])\n"
    )
    done = _run([str(bin_dir / "python"), "-c", script], env, work)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["api.csv", "api.json", "api.report.html", "api.command.sh", "api.reproduce.py"]


def test_the_headless_demo_runs_from_the_wheel(installed):
    bin_dir, env, work = installed
    done = _run([str(bin_dir / "dpstudio"), "gui", "--demo", "--screenshots", "shots"], env, work)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(list((work / "shots").glob("*.png"))) >= 6
