"""Every shipped champion loads for its own game and plays through the Player interface."""

from pathlib import Path

import pytest
import torch

from pipeline.players.factory import make_player
from pipeline.players.models import checkpoint_game
from pipeline.players.search import NetPlayer
from pipeline.search.mcts import SearchConfig

pytestmark = pytest.mark.unit

PRETRAINED = sorted((Path(__file__).resolve().parents[2] / "models/pretrained").glob("*.pt"))


def test_there_are_shipped_champions():
    assert {p.stem for p in PRETRAINED} >= {"gomoku-8x8", "hex-7x7"}


@pytest.mark.parametrize("path", PRETRAINED, ids=lambda p: p.stem)
def test_a_shipped_champion_carries_no_optimiser_state(path):
    """Players never read it and every clone carries every shipped file: ship with
    `python -m pipeline.tools.ship_model`."""
    assert "optimizer" not in torch.load(path, map_location="cpu", weights_only=True)


@pytest.mark.parametrize("path", PRETRAINED, ids=lambda p: p.stem)
def test_pretrained_champion_plays_legal_moves_for_its_game(path):
    spec = checkpoint_game(path)
    # The file name says the game and board it was trained for (then perhaps the rules).
    game, board = path.stem.split("-")[:2]
    assert spec.game == game and f"{spec.height}x{spec.width}" == board
    player = make_player(str(path), spec, SearchConfig(simulations=16))
    assert isinstance(player, NetPlayer)
    player.start(spec, 1, seed=0)
    state = spec.new_game()
    for _ in range(4):
        action = player.choose([0], [state])[0]
        assert state.legal_mask()[action]
        state.apply(action)
        player.observe(0, state, action)
