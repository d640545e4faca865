"""Learning sanity check: a few iterations of the real stages on tic-tac-toe produce a
network whose raw policy (no search) finds wins and blocks far more often than the
untrained network."""

import numpy as np
import pytest
import torch

from pipeline.config import load_params
from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import load_checkpoint
from pipeline.runtime.workspace import Paths, load_state
from pipeline.stages.interface import StageContext
from pipeline.stages.runner import run_stage
from tests.conftest import make_workspace

pytestmark = pytest.mark.integration

PARAMS = {
    "seed": 1,
    "game": {"game": "gomoku", "height": 3, "width": 3, "k": 3},
    "net": {"blocks": 1, "channels": 32, "value_hidden": 32},
    "selfplay": {
        "games": 96,
        "tasks": 2,
        "workers": 2,
        "parallel_games": 48,
        "temperature_moves": 3,
        "search": {"simulations": 48},
    },
    "train": {"steps": 150, "batch_size": 64, "lr": 0.003, "window": 3},
    "evaluate": {"ladder": [50, 100], "opening_plies": 1, "vs_pure": {"max_games": 2}, "vs_champion": None},
}


def tactical_positions(spec: GameSpec, limit: int = 16):
    """The first `limit` positions, breadth first from the empty board, where exactly one
    cell wins at once or stops the opponent's win and at least four cells are empty (so
    a guess is right at most a quarter of the time). The answer comes from the rules."""
    found, frontier, seen = [], [spec.new_game()], set()
    while frontier and len(found) < limit:
        nxt = []
        for state in frontier:
            for a in state.legal_actions():
                child = state.copy().apply(int(a))
                key = child.array.tobytes()
                if child.is_terminal or key in seen:
                    continue
                seen.add(key)
                nxt.append(child)
                cand = child.candidate_mask()
                if cand.sum() == 1 and child.legal_mask().sum() >= 4 and len(found) < limit:
                    found.append((child, int(np.flatnonzero(cand)[0])))
        frontier = nxt
    return found


def raw_hits(net, spec: GameSpec) -> float:
    positions = tactical_positions(spec)
    hits = 0
    for state, answer in positions:
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(state.observation()[None]))
        logits = logits[0].numpy()
        logits[~state.legal_mask()] = -np.inf
        hits += int(np.argmax(logits)) == answer
    return hits / len(positions)


def test_a_few_iterations_learn_tic_tac_toe_tactics(tmp_path):
    ws = make_workspace(tmp_path / "ws", params=PARAMS)
    paths = Paths(ws)
    params = load_params(paths.params)
    spec = params.game
    from pipeline.stages.init import run_init

    run_init(params, paths)
    untrained, _ = load_checkpoint(paths.champion, spec)
    for _ in range(2):
        for name in ("selfplay", "train", "evaluate", "promote"):
            run_stage(name, StageContext.create(params, paths, log=lambda m: None))
    assert load_state(paths).generation == 2
    trained, _ = load_checkpoint(paths.learner, spec)  # the learner keeps every generation's training
    before, after = raw_hits(untrained, spec), raw_hits(trained, spec)
    assert after >= before + 0.4, (before, after)
    assert after >= 0.75, (before, after)
