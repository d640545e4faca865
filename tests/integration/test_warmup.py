"""The numba warm-up that `make install` runs (pipeline/bench/warmup.py): after it, a new
process's self-play and search load every kernel from the disk cache and compile none."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, env

pytestmark = pytest.mark.integration

# A first self-play and a first search of each kind, in a new process, as a first
# `make run` and the front ends start them; prints the kernels it had to compile.
PROBE = """
import json
import numpy as np
from pipeline.bench.warmup import compiled_here, loaded_here, tiny_evaluator
from pipeline.games.base import GameSpec
from pipeline.players.factory import make_player, play_search
from pipeline.players.search import NetPlayer
from pipeline.selfplay.play import SelfPlayConfig, play_games
from pipeline.search.mcts import SearchConfig

spec = GameSpec.parse("gomoku:5x5:k4")
config = SelfPlayConfig(parallel_games=4, search=SearchConfig(simulations=16))
play_games(spec, tiny_evaluator(spec), 4, config, seed=0)
for text in ("hex:7:swap", "gomoku:9x9:k5:renju", "connect6:8x8"):
    game = GameSpec.parse(text)
    state = game.new_game()
    state.apply(game.cells // 2)
    NetPlayer(tiny_evaluator(game), play_search(game, 16)).think(state)
    make_player("pure:64", game).think(state)
print(json.dumps({"compiled": compiled_here(), "loaded": loaded_here()}))
"""


def run(args: list[str], cache, timeout: int) -> subprocess.CompletedProcess[str]:
    environment = {**env(), "NUMBA_CACHE_DIR": str(cache), "NUMBA_DEBUG_CACHE": "1"}
    out = subprocess.run(args, cwd=REPO, env=environment, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, f"{args[:3]} failed ({out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


def saved(out: subprocess.CompletedProcess[str]) -> list[str]:
    """numba's '[cache] data saved to ...' lines: a kernel compiled and written to the cache."""
    return [line for line in (out.stdout + out.stderr).splitlines() if "data saved to" in line]


def warmed_cache(tmp_path) -> Path:
    """A cache as the warm-up leaves it. `make install` has just warmed this process's
    cache folder and kept a snapshot of it (`warmup.write_snapshot`): when the snapshot is
    intact, a copy of it (the kernels the tests compiled into the cache since are not in
    it); else the warm-up runs again into an empty folder, as a fresh clone's first
    `make install` does (four to eight minutes on 2 cores). A snapshot taken before the
    package's sources changed is not intact: numba recompiles what changed."""
    from pipeline.bench.warmup import MANIFEST, snapshot_intact, snapshot_path

    snapshot = snapshot_path(Path(os.environ["NUMBA_CACHE_DIR"]))
    cache = tmp_path / "numba-cache"
    if snapshot_intact(snapshot):
        shutil.copytree(snapshot, cache)
        return cache
    warm = run([sys.executable, "-m", "pipeline.bench.warmup", "--quiet"], cache, timeout=1500)
    assert saved(warm), "the warm-up compiled nothing into an empty cache"
    assert (snapshot_path(cache) / MANIFEST).is_file()
    return cache


# The warm-up into an empty folder (when the snapshot is stale) and the probe have their own
# limits (1,500 s and 600 s): pytest's default 600 s would cut the first short on a loaded machine.
@pytest.mark.timeout(2400)
def test_after_the_warm_up_selfplay_and_search_compile_nothing(tmp_path):
    cache = warmed_cache(tmp_path)
    probe = run([sys.executable, "-c", PROBE], cache, timeout=600)
    report = json.loads(probe.stdout.strip().splitlines()[-1])
    assert report["loaded"] > 0, "the probe loaded nothing from the cache: is NUMBA_CACHE_DIR honoured?"
    assert report["compiled"] == {}, f"compiled after the warm-up: {report['compiled']}"
    assert not saved(probe), "\n".join(saved(probe)[:10])
