"""Time from launching the studio to its window on the screen, measured from outside the process.

    .venv/bin/python benchmarks/bench_start.py [COMMAND ...] [--repeats N]

COMMAND defaults to ``.venv/bin/python -m dpstudio gui`` (a source checkout); give a built bundle with
``dist/dpstudio/dpstudio``. The studio runs on a private X server (Xvfb, 1280x800; ``apt-get install xvfb
xdotool``) and ``xdotool`` polls every 20 ms for a visible window of the launched process; the time is
from the launch to the first poll that finds it. The first run after a build or a reboot reads the files
from disk (a cold start); the later ones find them in the page cache (what issue 35 calls the second
start). Each run is killed once its window is found. Prints every run and the median of the warm runs.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def window_after(command: list[str], env: dict[str, str], limit: float = 60.0) -> float:
    """Seconds from launching ``command`` to its window being visible."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while time.perf_counter() - start < limit:
            found = subprocess.run(
                ["xdotool", "search", "--onlyvisible", "--pid", str(proc.pid), "--name", "."],
                env=env,
                capture_output=True,
                text=True,
            )
            if found.stdout.strip():
                return time.perf_counter() - start
            if proc.poll() is not None:
                raise SystemExit(f"the studio exited ({proc.returncode}) before showing its window")
            time.sleep(0.02)
        raise SystemExit(f"no window after {limit:.0f} s")
    finally:
        proc.kill()
        proc.wait()


def main(argv: list[str]) -> int:
    repeats = int(argv[argv.index("--repeats") + 1]) if "--repeats" in argv else 5
    rest = [a for i, a in enumerate(argv[1:], 1) if a != "--repeats" and argv[i - 1] != "--repeats"]
    command = rest or [str(ROOT / ".venv" / "bin" / "python"), "-m", "dpstudio", "gui"]
    for tool in ("Xvfb", "xdotool"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is missing: apt-get install xvfb xdotool")
    home = tempfile.mkdtemp(prefix="dpstudio-start-")
    read, write = os.pipe()  # Xvfb writes the number of a free display here once it is ready
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        display = ":" + os.read(read, 16).decode().strip()
        env = {
            **os.environ,
            "DISPLAY": display,
            "HOME": home,
            "QT_QPA_PLATFORM": "xcb",
            "DPSTUDIO_BUDGET_STORE": os.path.join(home, "store.sqlite"),
        }
        print(f"load average before: {os.getloadavg()}; command: {' '.join(command)}")
        runs = [window_after(command, env) for _ in range(repeats)]
        print("runs (s): " + ", ".join(f"{r:.2f}" for r in runs))
        warm = runs[1:] or runs
        print(f"first start {runs[0]:.2f} s; later starts median {statistics.median(warm):.2f} s ({len(warm)} runs)")
        print(f"load average after: {os.getloadavg()}")
    finally:
        xvfb.terminate()  # SIGTERM: Xvfb removes its lock file
        xvfb.wait()
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
