"""Atomic output: several files are written as one step (all or none), nothing is overwritten silently."""

import os

import pytest

from dpstudio.io import atomic
from dpstudio.io.atomic import OutputPathError, atomic_write, atomic_write_many


def test_a_failure_while_writing_the_last_file_leaves_none_of_them(tmp_path, monkeypatch):
    calls = []
    real = os.fsync

    def fsync(fd):
        calls.append(fd)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real(fd)

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    files = {tmp_path / "r.csv": "a,count\n", tmp_path / "r.json": "{}\n", tmp_path / "r.report.html": "<p>"}
    with pytest.raises(OSError, match="No space"):
        atomic_write_many(files)
    assert sorted(os.listdir(tmp_path)) == []  # no final file and no temporary one


def test_all_files_land_together_and_an_existing_one_is_refused_before_any_is_written(tmp_path):
    files = {tmp_path / "r.csv": "a,count\n", tmp_path / "r.json": b"{}\n"}
    assert atomic_write_many(files) == list(files)
    assert (tmp_path / "r.csv").read_text() == "a,count\n" and (tmp_path / "r.json").read_bytes() == b"{}\n"
    again = {tmp_path / "s.csv": "x\n", tmp_path / "r.json": "{}\n"}
    with pytest.raises(OutputPathError, match="already exists"):
        atomic_write_many(again)
    assert not (tmp_path / "s.csv").exists()
    atomic_write(tmp_path / "r.json", "[]\n", overwrite=True)
    assert (tmp_path / "r.json").read_text() == "[]\n"
    assert sorted(os.listdir(tmp_path)) == ["r.csv", "r.json"]
