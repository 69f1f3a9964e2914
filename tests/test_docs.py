"""The README and docs/ as tested documentation: every ```bash, ```sh and ```python block runs, in the order
written, each file in a working folder and with a budget store of its own; the files a block says it writes
exist afterwards.

Markers in the Markdown (HTML comments, invisible when rendered):

- ``<!-- doc-test: skip (REASON) -->`` on the line before a block: not run, and the reason is required (the
  set-up scripts, a window, a 670 MB bundle, changes to the user's desktop).
- ``<!-- doc-test: writes FILE ... -->`` after a block: these files must exist once it has run (``--out`` and
  ``--report`` files of a shell block are checked without a marker).

The working folder holds a link ``dpstudio`` to the package, so the examples' paths
(``dpstudio/resources/samples/...``) read as they do from the project root."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN = {"bash", "sh", "python"}
SKIP = re.compile(r"<!--\s*doc-test:\s*skip\s*\((?P<why>[^)]+)\)\s*-->")
WRITES = re.compile(r"<!--\s*doc-test:\s*writes\s+(?P<files>[^>]+?)\s*-->")
TIMEOUT = 900


@dataclass
class Block:
    path: Path
    line: int
    language: str
    text: str
    skip: str = ""
    writes: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks_of(path: Path) -> list[Block]:
    """The fenced blocks of ``path`` (top level only: fences inside block quotes are not examples)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    pending_skip = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        skip = SKIP.search(line)
        writes = WRITES.search(line)
        if skip:
            pending_skip = skip.group("why").strip()
        elif writes:
            assert out, f"{path.name}:{i + 1}: a writes marker before any block"
            out[-1].writes += writes.group("files").split()
        elif line.startswith("```"):
            language = line[3:].strip().lower()
            start = i + 1
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                i += 1
            out.append(Block(path, start, language, "\n".join(lines[start:i]) + "\n", pending_skip))
            pending_skip = ""
        elif line.strip():
            pending_skip = ""  # a skip marker belongs to the block right after it
        i += 1
    return out


def _promised(block: Block) -> list[str]:
    files = list(block.writes)
    if block.language in ("bash", "sh"):
        words = shlex.split(block.text.replace("\\\n", " "), comments=True)
        files += [words[k + 1] for k, w in enumerate(words[:-1]) if w in ("--out", "--report")]
    return files


#: runs each Python block of one file in one namespace (a later block uses what an earlier one defined), as a
#: reader typing them into one session would; one JSON line in (the code), one JSON line out (the outcome)
SESSION = r"""
import contextlib, io, json, sys, traceback
namespace = {"__name__": "__main__"}
for line in sys.stdin:
    code = json.loads(line)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compile(code, "<doc block>", "exec"), namespace)
        reply = {"ok": True, "output": out.getvalue()}
    except BaseException:
        reply = {"ok": False, "output": out.getvalue() + traceback.format_exc()}
    print(json.dumps(reply), flush=True)
"""


class PythonSession:
    def __init__(self, work: Path, env: dict):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SESSION], cwd=work, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def run(self, code: str) -> tuple[bool, str]:
        import json

        self.proc.stdin.write(json.dumps(code) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline() or '{"ok": false, "output": "the session ended"}')
        return reply["ok"], reply["output"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def _environment(work: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DPSTUDIO_RESOURCES")}
    env.update(
        {
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
            "DPSTUDIO_BUDGET_STORE": str(work / "budget.sqlite"),
            "HOME": str(work),
            "QT_QPA_PLATFORM": "offscreen",
        }
    )
    return env


def _runnable(path: Path) -> bool:
    return any(b.language in RUN and not b.skip for b in blocks_of(path))


@pytest.mark.parametrize("path", [p for p in DOCS if _runnable(p)], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_command_block_runs_in_order(path, tmp_path):
    blocks = [b for b in blocks_of(path) if b.language in RUN]
    work = tmp_path / "work"
    work.mkdir()
    (work / "dpstudio").symlink_to(ROOT / "dpstudio", target_is_directory=True)
    env = _environment(work)
    session = PythonSession(work, env)
    try:
        for block in blocks:
            if block.skip:
                continue
            if block.language == "python":
                ok, output = session.run(block.text)
                assert ok, f"{block.where} failed:\n{output[-4000:]}"
            else:
                cmd = ["bash", "-euo", "pipefail", "-c", block.text]
                done = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=TIMEOUT)
                assert done.returncode == 0, (
                    f"{block.where} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
                )
            missing = [f for f in _promised(block) if not (work / f).exists()]
            assert not missing, f"{block.where} did not write {', '.join(missing)}"
    finally:
        session.close()


def test_skipped_blocks_say_why_and_most_blocks_run():
    blocks = [b for p in DOCS for b in blocks_of(p) if b.language in RUN]
    skipped = [b for b in blocks if b.skip]
    assert all(len(b.skip) > 10 for b in skipped)
    assert len(blocks) - len(skipped) >= 15, [b.where for b in blocks if not b.skip]


def test_the_markers_are_read_as_meant(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text(
        "<!-- doc-test: skip (opens a window here) -->\n```bash\ndpstudio\n```\n\ntext\n\n```sh\n"
        "dpstudio release --out a.csv --report 'r.html'\n```\n<!-- doc-test: writes a.json b -->\n"
        "> ```bash\n> not a block\n> ```\n<!-- doc-test: skip (orphan marker) -->\n\nprose\n```python\nx = 1\n```\n"
    )
    got = blocks_of(doc)
    assert [(b.language, bool(b.skip)) for b in got] == [("bash", True), ("sh", False), ("python", False)]
    assert _promised(got[1]) == ["a.json", "b", "a.csv", "r.html"]
