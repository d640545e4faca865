"""Self-play keeps every game that ended (issue 42): a task writes the games that end at
each move of its lockstep as a part shard; stopped, it has lost only the games in flight;
the rerun plays only the missing games, and they are the games an uninterrupted run plays
(each game's random streams come from (seed, game) alone); at its end a task's parts are
merged into its one shard, which old readers and old single-shard generations share."""

import io

import numpy as np
import pytest

from pipeline.games.base import GameSpec
from pipeline.runtime.progress import Progress, set_current
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.mcts import SearchConfig
from pipeline.selfplay.play import SelfPlayConfig, play_games
from pipeline.selfplay.replay import (
    Positions,
    load_window,
    part_shard_path,
    part_shard_paths,
    read_shard,
    shard_paths,
    spec_header,
    task_shard_path,
    write_shard,
)
from pipeline.stages.selfplay import play_task, task_on_disk, wall_seconds, write_result
from tests.unit.test_pinned_outputs import HashEvaluator

pytestmark = pytest.mark.unit

SPEC = GameSpec.parse("gomoku:6:k4")
GAMES = 10
CONFIGS = {
    "plain": {"parallel_games": 3, "search": {"tactics": "off", "simulations": 16}},
    "cap_resign_openings": {
        "parallel_games": 4,
        "temperature_moves": 4,
        "search": {"tactics": "off", "simulations": 16},
        "fast_simulations": 4,
        "full_search_prob": 0.4,
        "resign_threshold": -0.15,
        "resign_calibration": 0.3,
        "random_first_moves": 0.5,
    },
    "gumbel": {"parallel_games": 3, "search": {"tactics": "off", "simulations": 16, "root": "gumbel"}},
}
ARRAYS = ("obs", "pi", "z", "game_id", "ply", "plies_left")
FIGURES = ("games", "positions", "first_player_wins", "second_player_wins", "draws", "plies", "resigned")


def make_job(out_dir, config: dict, only=None) -> dict:
    return {
        "task": 1,
        "out_dir": str(out_dir),
        "write_here": True,
        "header": {**spec_header(SPEC), "generation": 1, "model_hash": "test", "player": "learner"},
        "game": SPEC.model_dump(),
        "selfplay": SelfPlayConfig.model_validate(config).model_dump(),
        "games": GAMES,
        "only": list(range(GAMES)) if only is None else only,
        "seed": 1234,
    }


def counted(total: int) -> Progress:
    """A progress that counts the games as they end (at the source: `on_game_end`)."""
    progress = Progress("test", total, lambda p: "", interval=3600, stream=io.StringIO())
    set_current(progress)
    return progress


def games_in_parts(out_dir) -> list[int]:
    return sorted(i for p in part_shard_paths(out_dir, 1) for i in read_shard(p, SPEC).header["game_ids"])


@pytest.mark.parametrize("name", list(CONFIGS))
def test_a_stopped_task_keeps_every_ended_game_and_the_rerun_plays_the_same_rest(tmp_path, name):
    evaluator = HashEvaluator(SPEC)  # integer arithmetic: a row's output never depends on its batch
    whole, stopped = tmp_path / "whole", tmp_path / "stopped"
    try:
        job = make_job(whole, CONFIGS[name])
        reference = write_result(job, play_task(SPEC, evaluator, job, should_stop=lambda: False))
        assert reference is not None and reference["games"] == GAMES

        job = make_job(stopped, CONFIGS[name])
        progress = counted(GAMES)
        result = play_task(SPEC, evaluator, job, should_stop=lambda: progress.done >= 4)
        assert result["interrupted"] and write_result(job, result) is None
        ended = progress.done
        assert 4 <= ended < GAMES
        # Every game that ended is on disk, once, and nothing else is.
        assert result["games"] == ended and len(games_in_parts(stopped)) == ended
        assert len(set(games_in_parts(stopped))) == ended
        assert not task_shard_path(stopped, 1).exists()

        found, done = task_on_disk(stopped, SPEC, 1, GAMES, job["seed"])
        assert found is None and sorted(done) == games_in_parts(stopped)
        rest = [i for i in range(GAMES) if i not in done]
        progress = counted(len(rest))
        job = make_job(stopped, CONFIGS[name], only=rest)
        merged = write_result(job, play_task(SPEC, evaluator, job, should_stop=lambda: False))
        assert progress.done == len(rest)  # the rerun played only the rest
    finally:
        set_current(None)
    assert merged is not None
    assert part_shard_paths(stopped, 1) == [] and shard_paths(stopped) == [task_shard_path(stopped, 1)]
    a, b = read_shard(task_shard_path(whole, 1), SPEC), read_shard(task_shard_path(stopped, 1), SPEC)
    for key in ARRAYS:
        assert np.array_equal(getattr(a, key), getattr(b, key)), key
    assert sorted(set(b.game_id.tolist())) == sorted(set(a.game_id.tolist()))
    for key in (*FIGURES, "calibration_games", "would_resign", "false_resignations"):
        assert a.header[key] == b.header[key] == merged[key], key
    assert sorted(a.header["winner_min_values"]) == sorted(b.header["winner_min_values"])
    assert len(b.header["spans"]) == 2  # two runs, the pause between them left out
    # The figures are those of play_games over the same games.
    _, stats = play_games(SPEC, evaluator, GAMES, SelfPlayConfig.model_validate(CONFIGS[name]), seed=1234)
    assert (stats.games, stats.positions, stats.first_player_wins, stats.plies, stats.resigned) == tuple(
        a.header[k] for k in ("games", "positions", "first_player_wins", "plies", "resigned")
    )


def test_game_i_is_the_same_game_whichever_games_are_played_beside_it():
    config = SelfPlayConfig.model_validate(CONFIGS["cap_resign_openings"])
    evaluator = HashEvaluator(SPEC)
    everything, _ = play_games(SPEC, evaluator, GAMES, config, seed=5)
    some, stats = play_games(SPEC, evaluator, GAMES, config, seed=5, only=[7, 2, 9])
    assert stats.games == 3 and set(some.game_id.tolist()) <= {2, 7, 9}
    for g in (2, 7, 9):
        for key in ARRAYS:
            assert np.array_equal(
                getattr(everything, key)[everything.game_id == g], getattr(some, key)[some.game_id == g]
            )
    with pytest.raises(ValueError, match="outside"):
        play_games(SPEC, evaluator, GAMES, config, seed=5, only=[GAMES])


def positions(n: int, game: int) -> Positions:
    return Positions(
        obs=np.zeros((n, *SPEC.obs_shape), dtype=np.uint8),
        pi=np.full((n, SPEC.num_actions), 1 / SPEC.num_actions, dtype=np.float32),
        z=np.ones(n, dtype=np.int8),
        game_id=np.full(n, game, dtype=np.int32),
        ply=np.arange(n, dtype=np.int16),
    )


def test_old_single_shard_generations_and_parts_read_together_and_a_cut_merge_counts_once(tmp_path):
    header = {**spec_header(SPEC), "generation": 1, "seed": 7, "task": 0, "games": 2}
    write_shard(tmp_path / "gen-0001" / "shard-0000.npz", positions(5, 0), header)  # an old generation
    gen = tmp_path / "gen-0002"
    part = {**spec_header(SPEC), "generation": 2, "seed": 7, "task": 0, "task_games": 3}
    write_shard(part_shard_path(gen, 0, 0), positions(3, 0), {**part, "games": 1, "game_ids": [0]})
    write_shard(part_shard_path(gen, 0, 1), positions(4, 1), {**part, "games": 2, "game_ids": [1, 2]})
    loaded, _ = load_window(tmp_path, SPEC, window=2)
    assert len(loaded) == 5 + 3 + 4
    found, done = task_on_disk(gen, SPEC, 0, 3, seed=7)
    assert found is None and done == {0, 1, 2}
    # A merge cut short between writing the task's shard and deleting its parts: readers
    # take the shard alone, and the next run deletes the parts.
    write_shard(task_shard_path(gen, 0), positions(7, 0), {**header, "games": 3})
    assert shard_paths(gen) == [task_shard_path(gen, 0)]
    assert len(load_window(tmp_path, SPEC, window=1)[0]) == 7
    found, done = task_on_disk(gen, SPEC, 0, 3, seed=7)
    assert found is not None and done == {0, 1, 2} and part_shard_paths(gen, 0) == []
    # Parts from other params (another seed) are not this plan's games: played again.
    write_shard(part_shard_path(gen, 1, 0), positions(2, 0), {**part, "task": 1, "games": 1, "game_ids": [0]})
    assert task_on_disk(gen, SPEC, 1, 3, seed=8) == (None, set())
    assert part_shard_paths(gen, 1) == []


def test_a_merged_shard_counts_the_spans_of_its_parts():
    merged = {"spans": [[0.0, 10.0], [1010.0, 1020.0]], "seconds": 18.0}
    other = {"started_at": 2.0, "finished_at": 12.0, "seconds": 9.5}
    assert wall_seconds([merged, other], workers=2) == pytest.approx(22.0)


def test_uniform_evaluator_self_play_is_unchanged_by_handing_games_over():
    # The hand-over after each move draws nothing: the same games with or without it.
    config = SelfPlayConfig(parallel_games=3, search=SearchConfig(simulations=8, tactics="off"))
    evaluator = UniformEvaluator(SPEC.num_actions)
    seen: list[int] = []
    a, _ = play_games(
        SPEC, evaluator, 6, config, seed=3, on_finished=lambda games, n: seen.extend(g.game_id for g in games)
    )
    b, _ = play_games(SPEC, evaluator, 6, config, seed=3)
    assert sorted(seen) == list(range(6))
    assert np.array_equal(a.obs, b.obs) and np.array_equal(a.pi, b.pi)
