"""The re-run script of a stream release: the ``dpstudio stream`` command that runs the same public settings
(the source's columns, buckets and range, the mechanism and its parameters, epsilon) on fresh noise, charged
to the same budget store. It holds public settings only: no count, no data.

``stream_command(source, params, store)``: the arguments (``$DATA`` and ``$OUT`` stand for the data file
and the output CSV); ``stream_shell_script(...)``: the POSIX script around them (``io.reproduce.script_text``).
"""

from __future__ import annotations

import shlex

from dpstudio.algorithms.stream_runs import StreamParams
from dpstudio.io.reproduce import script_text


def _source_args(source: dict) -> list[str]:
    kind = source.get("source")
    if kind == "event log":
        args = ["--events", "$DATA", "--user", source["user_column"], "--time", source["time_column"]]
        args += ["--time-format", source.get("time_format", "iso")]
        if source.get("time_origin"):
            args += ["--time-origin", str(source["time_origin"])]
        args += ["--bucket", source["bucket"], "--start", str(source["start"]), "--end", str(source["end"])]
        return args + ["--per-bucket-cap", str(int(source.get("per_bucket_cap", 1)))]
    if kind == "counts file":
        return ["--counts", "$DATA"]
    args = ["--data", "$DATA", "--column", str(source.get("column", "ILITOTAL"))]
    if source.get("layout") == "ILINet":
        args += ["--region", str(source.get("region", "national"))]
        if source.get("from"):
            args += ["--from", str(source["from"])]
    elif source.get("time_column"):
        args += ["--time-column", str(source["time_column"])]
    return args


def stream_command(source: dict, p: StreamParams, store: str | None) -> list[str]:
    """``dpstudio stream`` arguments that re-run the release described by ``source`` (its sidecar's
    ``source``) and ``p``, charged to ``store`` (a path, or "none")."""
    args = ["stream", *_source_args(source), "--window", str(int(p.window)), "--mechanism", p.mechanism]
    args += ["--grouping", p.grouping]
    if p.groups is not None:
        args += ["--groups", str(int(p.groups))]
    if p.horizon is not None:
        args += ["--horizon", str(int(p.horizon))]
    if p.mechanism == "asm":
        args += ["--ratio", str(p.ratio), "--asm-budget", p.asm_budget]
    args += ["--epsilon", str(p.epsilon), "--published", p.published, "--out", "$OUT"]
    if store:
        args += ["--budget-store", str(store)]
    return args


def stream_shell_script(source: dict, p: StreamParams, out_name: str, store: str | None, python: str | None) -> str:
    """The POSIX re-run script (arguments: [DATA [OUT.csv]]; a new OUT name on every run without OUT)."""
    header = [
        "# Re-runs this stream release's settings with `dpstudio stream`: the same public settings, fresh noise.",
        f"# It spends epsilon = {p.epsilon} again, charged to the budget store like any release.",
        "# It holds public settings only (no data, no count). Arguments: [DATA [OUT.csv]] (without OUT, each run",
        "# writes a new file: NAME.rerun.csv, then NAME.rerun-2.csv, ...).",
    ]
    program = f"{shlex.quote(python)} -m dpstudio" if python else "dpstudio"
    return script_text(header, source["file"], out_name, {}, stream_command(source, p, store), program)


def stream_python_script(source: dict, p: StreamParams, out_name: str, store: str | None, python: str | None) -> str:
    """``NAME.reproduce.py``: the same re-run as the shell script, in Python (through ``dpstudio.cli.main``,
    so it needs no shell and no dpstudio on PATH: its first line names the interpreter that wrote it).
    Arguments: [DATA [OUT.csv]]; without OUT, each run writes a new file (NAME.rerun.csv, NAME.rerun-2.csv...)."""
    run_with = python or "python3"
    stem = out_name[:-4] if out_name.lower().endswith(".csv") else out_name
    header = [
        f"Re-runs a dpstudio stream release's settings ({p.mechanism}, epsilon {p.epsilon}) with `dpstudio stream`:",
        "the same public settings, fresh noise. It spends epsilon again, charged to the budget store like any",
        "release. It holds public settings only (no data, no count).",
        "",
        f"    {run_with} NAME.reproduce.py [DATA [OUT.csv]]",
        "",
        f"It is charged to the budget store the release was charged to ({store or 'the default store'}).",
        f"Without OUT, each run writes a new file: {stem}.csv, then {stem}-2.csv, ...",
    ]
    lines = [
        f"#!{run_with}",
        '"""' + "\n".join(header) + '\n"""',
        "import sys",
        "from pathlib import Path",
        "",
        "from dpstudio.cli import main",
        "",
        f"DATA = sys.argv[1] if len(sys.argv) > 1 else {str(source['file'])!r}",
        "if len(sys.argv) > 2:",
        "    OUT = Path(sys.argv[2])",
        "else:  # a new name on every run",
        f"    OUT, n = Path({stem + '.csv'!r}), 1",
        "    while OUT.exists() or OUT.with_suffix('.json').exists():",
        "        n += 1",
        f"        OUT = Path(f{stem + '-{n}.csv'!r})",
        f"ARGS = {stream_command(source, p, store)!r}",
        "ARGS = [{'$DATA': str(DATA), '$OUT': str(OUT)}.get(a, a) for a in ARGS]",
        "sys.exit(main(ARGS))",
        "",
    ]
    return "\n".join(lines)


__all__ = ["stream_command", "stream_python_script", "stream_shell_script"]
