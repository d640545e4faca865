"""The pieces of a clean Ctrl-C and of progress reporting, without signals: the stop
check in the game loop, a resumed generation's time, and the plain progress lines."""

import io

import pytest

from pipeline.games.base import GameSpec
from pipeline.runtime.interrupt import Interrupted
from pipeline.runtime.progress import Progress, duration
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.mcts import SearchConfig
from pipeline.selfplay.play import SelfPlayConfig, play_games
from pipeline.stages.selfplay import wall_seconds

pytestmark = pytest.mark.unit

SPEC = GameSpec.parse("gomoku:5:k4")
CONFIG = SelfPlayConfig(parallel_games=2, search=SearchConfig(simulations=8))


def test_games_stop_between_moves_when_asked():
    asked = []
    finished = []

    def stop_after_ten_moves() -> bool:
        asked.append(1)
        return len(asked) > 10

    with pytest.raises(Interrupted, match="of 50 games finished"):
        play_games(
            SPEC,
            UniformEvaluator(SPEC.num_actions),
            50,
            CONFIG,
            seed=0,
            on_game_end=lambda game, kept: finished.append(kept),
            should_stop=stop_after_ten_moves,
        )
    assert len(asked) == 11  # asked once per move, and it stopped at the first yes
    assert len(finished) < 50


def test_game_end_reports_the_positions_kept():
    seen: list[tuple[int, int]] = []
    positions, stats = play_games(
        SPEC, UniformEvaluator(SPEC.num_actions), 4, CONFIG, seed=1, on_game_end=lambda g, k: seen.append((g, k))
    )
    assert sorted(g for g, _ in seen) == [0, 1, 2, 3]
    assert sum(k for _, k in seen) == len(positions) == stats.positions


def test_generation_time_is_the_union_of_shard_spans():
    # Two parallel shards, then after an interrupt (a 1000 s pause) a resumed third one.
    headers = [
        {"started_at": 0.0, "finished_at": 10.0, "seconds": 9.0},
        {"started_at": 2.0, "finished_at": 12.0, "seconds": 9.5},
        {"started_at": 1012.0, "finished_at": 1020.0, "seconds": 7.0},
    ]
    assert wall_seconds(headers, workers=2) == pytest.approx(20.0)
    # Shards written before the spans existed count their own seconds over the workers.
    assert wall_seconds([{"seconds": 8.0}, {"seconds": 6.0}], workers=2) == pytest.approx(7.0)


def test_plain_progress_lines_are_periodic_and_end_with_the_total():
    out = io.StringIO()  # not a terminal: plain lines
    progress = Progress("self-play", 4, lambda p: f"games, {int(p.figures['positions'])} positions", 3600, out)
    progress.update(1, positions=10)
    progress.update(1, positions=10)
    assert out.getvalue() == ""  # within the interval: quiet
    progress.update(2, positions=20)
    progress.close()
    assert out.getvalue() == "self-play: 4/4 games, 40 positions\n"
    eager = io.StringIO()
    every = Progress("training", 3, lambda p: "steps", 0, eager)
    for step in (1, 2, 3):
        every.update(completed=step)
    assert eager.getvalue().splitlines() == ["training: 1/3 steps", "training: 2/3 steps", "training: 3/3 steps"]


@pytest.mark.parametrize(("seconds", "text"), [(0.4, "0s"), (59, "59s"), (65, "1m05s"), (3725, "1h02m")])
def test_durations_read_short(seconds, text):
    assert duration(seconds) == text
