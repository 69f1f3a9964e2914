"""The stream view's Qt-free data: playing a recorded run, the literal ASM's teaching playback, the analytic
errors the Compare panel plots (checked against the errors the release writer computes)."""

import numpy as np
import pytest

from dpstudio.algorithms.stream_runs import StreamParams, release_stream, run_stream
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SecureNoise, SimulationNoise
from dpstudio.model.stream.view import NOT_DP, analytic_window_errors, literal_asm_playback, playback_of

X = np.random.default_rng(0).integers(0, 50, size=30)


def test_playback_fills_values_windows_and_ledger_step_by_step():
    params = StreamParams("asm", 1, 6)
    play = playback_of(run_stream(X, params, SimulationNoise(2), Ledger(1)), params)
    assert play.teaching and play.exportable and "user-level" in play.guarantee
    assert play.state(0).values == {} and play.state(0).ledger == []
    sizes = [len(play.state(k).ledger) for k in range(len(play.events) + 1)]
    assert sizes == sorted(sizes) and sizes[-1] > 0
    end = play.state(len(play.events))
    assert sorted(end.values) == list(range(1, 31)) and end.true_counts == {t + 1: int(X[t]) for t in range(30)}
    assert end.window.window == 30 and end.window.group_ends[-1] == 6 and end.spent <= 1
    secure = playback_of(run_stream(X, params, SecureNoise(), Ledger(1)), params)
    assert not secure.teaching and secure.state(len(secure.events)).true_counts == {}


def test_literal_asm_is_labelled_and_never_exportable():
    play = literal_asm_playback(X, 1, seed=0)
    assert not play.exportable and NOT_DP in play.label and NOT_DP in play.guarantee
    assert play.teaching


@pytest.mark.parametrize("mechanism", ["tpm", "swm", "uniform", "binary"])
def test_analytic_errors_match_the_release_writers(mechanism):
    got = analytic_window_errors([mechanism, "asm"], 30, 6, [0.5, 1])
    assert got["asm"] == [None, None]
    for eps, value in zip([0.5, 1], got[mechanism]):
        res = release_stream(X, StreamParams(mechanism, eps, 6, grouping="none"), SimulationNoise(0), Ledger(eps))
        expected = res.error["expected_window_laplace_error"]
        assert value == pytest.approx(expected, rel=1e-12 if mechanism != "binary" else 0.1)


def test_the_shipped_ilinet_sample_gives_the_national_series_of_the_full_file(monkeypatch, tmp_path):
    """Without ../shared the Stream panel falls back to dpstudio/resources/samples/ILINet.csv.gz: the same national
    series from 2002-W40 (T = 1163) as the full file, where that is present."""
    from pathlib import Path

    import numpy as np
    import pytest

    from dpstudio.io.stream_input import read_ilinet
    from dpstudio.model.stream import session as stream_session
    from dpstudio.resources import resource

    monkeypatch.setattr(Path, "is_file", lambda self: False if self.name == "ILINet.csv" else Path.exists(self))
    shipped = stream_session.bundled_ilinet()
    assert shipped == resource("samples", "ILINet.csv.gz")
    series = read_ilinet(shipped, "national", "ILITOTAL", "2002-W40")
    assert series.size == 1163 and series.min() == 318 and series.max() == 185673
    full = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "streams" / "ILINet.csv"
    monkeypatch.undo()
    if not full.exists():
        pytest.skip("../shared/data/streams/ILINet.csv is not beside the checkout")
    assert np.array_equal(series, read_ilinet(full, "national", "ILITOTAL", "2002-W40"))
