"""Every preset is a valid params file, and the standard-board ones build size-free nets."""

from pathlib import Path

import pytest

from pipeline.config import load_params

pytestmark = pytest.mark.unit

PRESETS = sorted((Path(__file__).resolve().parents[2] / "presets").glob("*.yaml"))
STANDARD = {
    "gomoku-15x15": "gomoku:15x15:k5:freestyle",
    "gomoku-15x15-exact": "gomoku:15x15:k5:exact",
    "hex-11x11-swap": "hex:11x11:swap",
    "connect6-19x19": "connect6:19x19",
}


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_every_preset_loads(path):
    params = load_params(path)
    assert params.evaluate.ladder == sorted(params.evaluate.ladder)


@pytest.mark.parametrize(("name", "game"), STANDARD.items())
def test_standard_boards_have_size_free_presets(name, game):
    params = load_params(Path(__file__).resolve().parents[2] / "presets" / f"{name}.yaml")
    assert str(params.game) == game and params.net.size_free
