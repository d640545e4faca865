"""A stop keeps every finished game (issue 42): self-play stopped partway by Ctrl-C or by
`kill -9` keeps on disk every game that ended (part shards, written as games end); the
rerun plays only the rest, and the generation is then the one an uninterrupted run
writes, game for game (each game's random streams come from (seed, generation, task,
game); the network runs on ONNX Runtime, whose rows do not depend on the batch's size,
and the threat solvers are off, whose tables the games in lockstep share)."""

import copy
import json
import signal

import numpy as np
import pytest

from pipeline.selfplay.replay import ReplayError, read_header, read_shard, shard_paths
from tests.conftest import BIN, TINY_PARAMS, make_workspace, sh
from tests.integration.test_signals import Run, assert_clean_stop

pytestmark = pytest.mark.integration

ZERO = str(BIN / "zero")
GAMES = 16
PARAMS = copy.deepcopy(TINY_PARAMS)
PARAMS["selfplay"].update(
    {
        "games": GAMES,
        "tasks": 2,
        "workers": 2,
        "parallel_games": 2,
        "torch_threads": 1,
        "search": {"simulations": 800, "tactics": "off"},
    }
)
# Games long enough that a stop lands partway: at 24 simulations on 5x5 a quiet machine
# played all 16 in 0.6 s, before the signal; on 7x7 k5 at 800 they take about 4 s.
PARAMS["game"] = {"game": "gomoku", "height": 7, "width": 7, "k": 5}
PARAMS["inference"] = {"backend": "onnxruntime", "precision": "f32", "device": "cpu"}


def workspace(path, runner: str):
    params = copy.deepcopy(PARAMS)
    params["selfplay"]["runner"] = runner
    ws = make_workspace(path, params=params)
    sh([ZERO, "init"], ws)
    return ws


def games_on_disk(ws) -> list[tuple[int, int]]:
    """(task, game id) of every game in the generation's shards, parts included."""
    found = []
    folder = ws / "data/replay/gen-0001"
    for path in shard_paths(folder) if folder.is_dir() else []:
        header = read_header(path)
        ids = header.get("game_ids", range(header["games"]))
        found += [(header["task"], int(i)) for i in ids]
    return found


def ended(ws) -> int:
    """Games on disk so far, asked while the stage writes (a part may go as it is read)."""
    try:
        return len(games_on_disk(ws))
    except ReplayError:
        return 0


def games_of(ws) -> dict[tuple[int, int], tuple[bytes, ...]]:
    """Each game's positions, by (task, game id), from the tasks' shards."""
    games = {}
    for task in range(2):
        shard = read_shard(ws / f"data/replay/gen-0001/shard-{task:04d}.npz")
        for g in np.unique(shard.game_id):
            rows = shard.game_id == g
            games[(task, int(g))] = tuple(
                np.ascontiguousarray(getattr(shard, k)[rows]).tobytes() for k in ("obs", "pi", "z", "ply", "plies_left")
            )
    return games


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    ws = workspace(tmp_path_factory.mktemp("resume") / "ws", "threads")
    sh([ZERO, "stage", "selfplay"], ws)
    return games_of(ws)


@pytest.mark.parametrize(("sig", "runner"), [(signal.SIGINT, "threads"), (signal.SIGKILL, "processes")])
def test_a_stop_keeps_every_ended_game_and_the_rerun_plays_only_the_rest(uninterrupted, tmp_path, sig, runner):
    ws = workspace(tmp_path / "ws", runner)
    run = Run([ZERO, "stage", "selfplay"], ws, tmp_path)
    run.wait_for(lambda: ended(ws) >= 3)
    seconds = run.signal_group(sig)
    kept = games_on_disk(ws)
    assert 3 <= len(kept) < GAMES, run.text[-2000:]
    assert len(set(kept)) == len(kept)
    if sig == signal.SIGINT:
        assert_clean_stop(run, sig, seconds)
        # Every game that ended (counted as it ended) is one on disk.
        assert f"self-play: {len(kept)} of {GAMES} games kept" in run.text
        assert f"({len(kept)} ended in this run)" in run.text
        assert not list((ws / "data").rglob(".tmp-*"))

    out = sh([ZERO, "stage", "selfplay"], ws)
    text = out.stdout + out.stderr
    rest = GAMES - len(kept)
    assert f"{len(kept)} of {GAMES} games already played, {rest} to play" in text
    assert f"self-play gen 1: {rest}/{rest} games" in text  # the rerun played only the rest
    shards = sorted(p.name for p in (ws / "data/replay/gen-0001").iterdir())
    assert shards == ["shard-0000.npz", "shard-0001.npz"]  # the parts merged, nothing partial left
    every = games_on_disk(ws)
    assert len(every) == len(set(every)) == GAMES
    report = json.loads((ws / "reports/details/selfplay.json").read_text())
    assert report["games"] == GAMES and report["shards"] == 2
    # The same games as an uninterrupted run, position for position.
    assert games_of(ws) == uninterrupted
