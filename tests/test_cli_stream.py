"""``dpstudio stream``: the CSV and sidecar, the budget store, simulation marking, bad inputs (exit 2, one
line, nothing written, nothing charged), neighbouring streams (D and D plus one record at one timestamp give
identical non-noisy metadata), no exact count in any artefact, and ILINet's loader."""

import contextlib
import io
import json

import numpy as np
import pytest

from dpstudio.cli import main
from dpstudio.io.budget_store import BudgetStore
from tests.cli_outputs import assert_no_exact_counts, run_writer, without

COUNTS = [7919, 7927, 7933, 7937, 7949, 7951, 7963, 7993, 8009, 8011, 8017, 8039]  # primes: findable


def run_cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def write_counts(folder, counts, name="s.csv"):
    folder.mkdir(exist_ok=True)
    (folder / name).write_text("count\n" + "".join(f"{c}\n" for c in counts))
    return folder / name


def test_release_writes_windows_and_sidecar_and_charges_the_store(tmp_path):
    src = write_counts(tmp_path, COUNTS)
    store = tmp_path / "b.sqlite"
    out = tmp_path / "o.csv"
    code, stdout, err = run_cli(
        [
            "stream",
            "--counts",
            src,
            "--window",
            4,
            "--epsilon",
            "1/2",
            "--mechanism",
            "tpm",
            "--grouping",
            "seed",
            "--groups",
            2,
            "--out",
            out,
            "--budget-store",
            store,
        ]
    )
    assert code == 0, err
    lines = out.read_text().splitlines()
    assert lines[0] == "window,t,value" and len(lines) == 1 + 9 * 4
    keys = [tuple(map(int, ln.split(",")[:2])) for ln in lines[1:]]
    assert keys == [(e, t) for e in range(4, 13) for t in range(e - 3, e + 1)]
    side = json.loads(out.with_suffix(".json").read_text())
    assert side["release"] is True and side["noise"] == "secure (OpenDP)"
    assert side["parameters"]["horizon"] == 12 and side["parameters"]["grouping"] == {
        "mode": "seed",
        "groups": 2,
        "groups_declared": True,
    }
    assert side["ledger"]["spent"] == "1/2" and len(side["ledger"]["entries"]) == 12
    assert "user-level epsilon-DP over the horizon T = 12" in side["guarantee"]
    q = np.exp(-1 / 24)  # scale T / eps = 24
    assert side["expected_window_laplace_error"] == pytest.approx(2 * 2 * q / (1 - q) ** 2)
    assert side["dataset_budget"]["tracked"] is True and side["dataset_budget"]["charged"] == "1/2"
    assert [str(s.epsilon) for s in BudgetStore(store).dataset("s").spends] == ["1/2"]
    # the first release's epsilon is the lifetime total: a second one is refused, nothing written
    code, _, err = run_cli(
        ["stream", "--counts", src, "--window", 4, "--epsilon", 1, "--out", tmp_path / "p.csv", "--budget-store", store]
    )
    assert code == 2 and "does not fit its lifetime budget" in err and not (tmp_path / "p.csv").exists()


def test_binary_mechanism_says_event_level(tmp_path):
    src = write_counts(tmp_path, COUNTS)
    code, stdout, err = run_cli(
        [
            "stream",
            "--counts",
            src,
            "--window",
            3,
            "--epsilon",
            1,
            "--mechanism",
            "binary",
            "--out",
            tmp_path / "o.csv",
            "--budget-store",
            "none",
        ]
    )
    assert code == 0 and "event-level" in json.loads((tmp_path / "o.json").read_text())["guarantee"]


def test_seeded_run_is_marked_not_a_release_and_charges_nothing(tmp_path):
    src = write_counts(tmp_path, COUNTS)
    store = tmp_path / "b.sqlite"
    code, _, err = run_cli(
        [
            "stream",
            "--counts",
            src,
            "--window",
            5,
            "--epsilon",
            1,
            "--mechanism",
            "asm",
            "--seed",
            3,
            "--out",
            tmp_path / "o.csv",
            "--budget-store",
            store,
        ]
    )
    assert code == 0, err
    rows = (tmp_path / "o.csv").read_text().splitlines()
    assert rows[0] == "not_a_release,window,t,value"
    assert all(r.startswith("simulation noise (simulation (seed 3)),") for r in rows[1:])
    side = json.loads((tmp_path / "o.json").read_text())
    assert side["release"] is False and side["dataset_budget"]["charged"] is None
    assert side["expected_window_laplace_error"] is None
    assert BudgetStore(store).datasets() == []


@pytest.mark.parametrize(
    "counts,options,message",
    [
        (COUNTS, ["--window", 13], "window 13 is larger than the stream (12 timestamps)"),
        ([3, -1, 4], ["--window", 2], "line 3: count -1 is negative"),
        ([3, 1.5, 4], ["--window", 2], "line 3: count 1.5 is not a whole number"),
        (COUNTS, ["--window", 3, "--horizon", 11], "the horizon 11 is shorter than the stream (12 timestamps)"),
        ([3, "x", 4], ["--window", 2], "'x' is not a number"),
        ([], ["--window", 2], "the stream is empty"),
        (COUNTS, ["--window", 3, "--groups", 2], "--groups goes with --grouping seed or approx"),
    ],
)
def test_bad_inputs_exit_2_with_one_line_and_write_nothing(tmp_path, counts, options, message):
    src = write_counts(tmp_path, counts)
    store = tmp_path / "b.sqlite"
    code, stdout, err = run_cli(
        ["stream", "--counts", src, "--epsilon", 1, *options, "--out", tmp_path / "o.csv", "--budget-store", store]
    )
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.csv"]


@pytest.mark.parametrize("eps", ["0", "-1", "abc", "nan"])
def test_bad_epsilon_exits_2(tmp_path, eps):
    src = write_counts(tmp_path, COUNTS)
    code, _, err = run_cli(["stream", "--counts", src, "--window", 3, "--epsilon", eps, "--out", tmp_path / "o.csv"])
    assert code == 2 and "epsilon" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.csv").exists() and not (tmp_path / "o.json").exists()


#: sidecar fields that are outputs of a mechanism or post-processing of them (docs/stream.md); everything
#: else must be the same for neighbouring streams
STREAM_MECHANISM_OUTPUTS = (
    "created_utc",
    "ledger.entries",
    "ledger.spent",
    "ledger.spent_float",
    "unspent",
    "groups_per_window_mean",
    "expected_window_laplace_error",
    "estimated_window_error",  # from the release's noisy values
)


@pytest.mark.parametrize(
    "mechanism,grouping",
    [
        ("tpm", "noisefirst"),
        ("swm", "seed"),
        ("asm", "noisefirst"),
        ("binary", "none"),
        ("ba", "noisefirst"),
        ("fast", "approx"),
    ],
)
def test_neighbouring_streams_give_the_same_metadata(tmp_path, mechanism, grouping):
    plus_one = list(COUNTS)
    plus_one[5] += 1
    outs = []
    for tag, counts in (("d", COUNTS), ("d2", plus_one)):
        folder = tmp_path / tag
        write_counts(folder, counts)
        outs.append(
            run_writer(
                folder,
                [
                    "stream",
                    "--counts",
                    "s.csv",
                    "--window",
                    4,
                    "--epsilon",
                    1,
                    "--mechanism",
                    mechanism,
                    "--grouping",
                    grouping,
                    "--out",
                    "out.csv",
                ],
            )
        )
    a, b = outs
    assert [r[:2] for r in a.rows] == [r[:2] for r in b.rows]
    assert without(a.sidecar, STREAM_MECHANISM_OUTPUTS) == without(b.sidecar, STREAM_MECHANISM_OUTPUTS)
    if mechanism in ("tpm", "swm", "binary"):  # a data-independent ledger
        assert a.sidecar["ledger"] == b.sidecar["ledger"]
    assert a.stdout == b.stdout and a.stderr == b.stderr
    assert_no_exact_counts(a, {f"count {i}": c for i, c in enumerate(COUNTS)}, noisy_column="value")


def test_npy_counts_are_checked_per_timestamp(tmp_path):
    np.save(tmp_path / "s.npy", np.array([3.0, -2.0, 4.0]))
    code, _, err = run_cli(
        ["stream", "--counts", tmp_path / "s.npy", "--window", 2, "--epsilon", 1, "--out", tmp_path / "o.csv"]
    )
    assert code == 2 and "the count at timestamp 2 is negative (-2.0)" in err and not (tmp_path / "o.csv").exists()


def test_data_column_ordered_by_time(tmp_path):
    (tmp_path / "d.csv").write_text("week,n\n3,30\n1,10\n2,20\n")
    from dpstudio.io.stream_input import read_column

    assert read_column(tmp_path / "d.csv", "n", "week").tolist() == [10, 20, 30]
    assert read_column(tmp_path / "d.csv", "n").tolist() == [30, 10, 20]
    (tmp_path / "e.csv").write_text("week,n\n1,10\n1,20\n")
    code, _, err = run_cli(
        [
            "stream",
            "--data",
            tmp_path / "e.csv",
            "--column",
            "n",
            "--time-column",
            "week",
            "--window",
            1,
            "--epsilon",
            1,
            "--out",
            tmp_path / "o.csv",
        ]
    )
    assert code == 2 and "appears twice" in err and not (tmp_path / "o.csv").exists()


def test_ilinet_national_and_regional_streams(shared_data):
    from dpstudio.io.stream_input import read_ilinet

    path = shared_data / "streams" / "ILINet.csv"
    if not path.exists():
        pytest.skip("ILINet.csv is absent")
    national = read_ilinet(path, "national", "ILITOTAL", "2002-W40")
    assert national.size == 1163 and national.min() == 318 and national.max() == 185_673
    assert round(national.mean()) == 21_116
    whole = read_ilinet(path, "national")
    assert whole.size == 1424 and np.count_nonzero(whole[: 1424 - 1163] == 0) == 128
    region4 = read_ilinet(path, "Region 4", "ILITOTAL", "2002-W40")
    assert region4.size == 1163 and round(region4.mean()) == 5604


def test_ilinet_layout_options(tmp_path):
    rows = ["REGION,YEAR,WEEK,ILITOTAL"] + [f"Region {r},2002,{w},{10 * r + w}" for w in (39, 40, 41) for r in (1, 2)]
    (tmp_path / "ili.csv").write_text("\n".join(rows) + "\n")
    from dpstudio.io.stream_input import read_ilinet

    assert read_ilinet(tmp_path / "ili.csv", "national", "ILITOTAL", "2002-W40").tolist() == [110, 112]
    assert read_ilinet(tmp_path / "ili.csv", "Region 2").tolist() == [59, 60, 61]
    for options, message in (
        (["--region", "Region 9"], "no region 'Region 9'"),
        (["--region", "national", "--from", "2002-40"], "--from must look like 2002-W40"),
        (["--from", "2002-W40"], "--from goes with --region"),
    ):
        code, _, err = run_cli(
            [
                "stream",
                "--data",
                tmp_path / "ili.csv",
                "--column",
                "ILITOTAL",
                *options,
                "--window",
                2,
                "--epsilon",
                1,
                "--out",
                tmp_path / "o.csv",
            ]
        )
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1
        assert not (tmp_path / "o.csv").exists() and not (tmp_path / "o.json").exists()
