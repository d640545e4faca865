import io

import pytest

from pipeline.runtime import progress as progress_module
from pipeline.runtime.progress import Progress

pytestmark = pytest.mark.unit


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_rate_and_eta_leave_out_the_start_up_before_the_first_units(monkeypatch):
    """A first run compiles kernels and loads a model before its first game ends: the rate
    and the ETA are measured from the first completed units on, not from the start."""
    clock = Clock()
    monkeypatch.setattr(progress_module.time, "monotonic", clock)
    p = Progress("self-play", 10, lambda p: "", interval=3600, stream=io.StringIO(), rich=False)
    assert p.eta() == "?"
    clock.now += 90  # start-up: imports, compilation
    p.update(2, positions=100)
    assert p.eta() == "?"  # one measurement point: no pace yet
    assert p.rate("positions") == pytest.approx(100 / 90)  # until then, since the start
    clock.now += 10
    p.update(2, positions=50)
    assert p.rate("positions") == pytest.approx(5.0)  # 50 positions in the 10 s since the first games
    assert p.eta() == "30s"  # 6 games left at 2 games in 10 s, not 6 at 4 in 100 s (2m30s)
    assert p.elapsed == pytest.approx(100)  # the run's own duration still counts everything
    p.update(6, positions=10)
    assert p.eta() == "0s"


def test_steps_set_by_completed_count_from_the_first_step(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(progress_module.time, "monotonic", clock)
    p = Progress("training", 100, lambda p: "", interval=3600, stream=io.StringIO(), rich=False)
    clock.now += 30
    p.update(completed=1, samples=32)
    clock.now += 9
    p.update(completed=10, samples=288)
    assert p.rate("samples") == pytest.approx(32.0)
    assert p.eta() == "1m30s"
