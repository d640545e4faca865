"""The curriculum on tiny params, in-process: a size-free net trained on a small board
starts generation 0 on a bigger one (`train.init_from`), and a whole iteration (self-play,
train, evaluate, promote) runs there."""

import copy
import json
import subprocess

import pytest
import torch

from pipeline.config import load_params
from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import checkpoint_plays, load_checkpoint, save_checkpoint
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.runtime.workspace import Paths
from pipeline.stages.init import run_init
from pipeline.stages.interface import StageContext
from pipeline.stages.runner import run_stage
from tests.conftest import BIN, TINY_PARAMS, make_workspace

pytestmark = pytest.mark.integration


def test_a_size_free_champion_from_a_small_board_plays_and_trains_on_a_bigger_one(tmp_path):
    net_spec = {"blocks": 1, "channels": 16, "value_hidden": 16, "size_free": True, "head_channels": 8}
    torch.manual_seed(5)
    small = save_checkpoint(
        tmp_path / "small.pt", PolicyValueNet(GameSpec(game="gomoku", size=5, k=4), NetSpec(**net_spec))
    )
    params = copy.deepcopy(TINY_PARAMS)
    params["game"] = {"game": "gomoku", "height": 7, "width": 7, "k": 4}
    params["net"] = net_spec
    params["train"]["init_from"] = str(small)
    ws = make_workspace(tmp_path / "ws", params)
    paths = Paths(ws)
    loaded = load_params(paths.params)
    assert "every weight" in run_init(loaded, paths)["init_from"]
    for name in ("selfplay", "train", "evaluate", "promote"):
        run_stage(name, StageContext.create(loaded, paths, log=lambda m: None))
    learner, _ = load_checkpoint(paths.learner, loaded.game)
    assert learner.game == loaded.game
    assert checkpoint_plays(paths.learner) == (loaded.game, True)
    # The 7x7 learner still plays the 5x5 board it came from (and any other size).
    assert load_checkpoint(paths.learner, GameSpec(game="gomoku", size=5, k=4))[0].game.height == 5
    assert json.loads(paths.report("details/promotion.json").read_text())["generation"] == 1


def test_zero_evaluate_plays_a_size_free_model_on_another_board(tmp_path):
    spec = GameSpec(game="gomoku", size=5, k=4)
    free = save_checkpoint(tmp_path / "free.pt", PolicyValueNet(spec, NetSpec(blocks=1, channels=8, size_free=True)))
    fixed = save_checkpoint(tmp_path / "fixed.pt", PolicyValueNet(spec, NetSpec(blocks=1, channels=8)))
    evaluate = [str(BIN / "zero"), "evaluate", "--vs", "pure:10", "--games", "2", "--simulations", "4"]
    out = subprocess.run([*evaluate, "--model", str(free), "--board", "7", "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["game"] == "gomoku:7x7:k4:freestyle"
    out = subprocess.run([*evaluate, "--model", str(fixed), "--board", "7"], capture_output=True, text=True)
    assert out.returncode == 2 and "a fixed-size net plays only the board it was trained on" in " ".join(
        out.stderr.split()
    )
    assert "Traceback" not in out.stderr
