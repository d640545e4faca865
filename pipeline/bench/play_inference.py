"""How fast a net that plays runs (matches, the gate, `zero brain`, `zero htp`, the web app):
its forward pass per backend at the search's batch, and what that buys a player by time.

Two figures per model, every backend measured in the same run with the calls alternating
(so machine load falls on all alike), eager torch in f32 the baseline:
- positions/s of the bare forward pass at batches 1, 8 (one game's step: 8 leaves) and 64,
  on one thread, for torch, ONNX Runtime (f32) and OpenVINO (f32, and bf16 where the CPU
  computes it natively), and what `auto` (`players.search.PLAY_INFERENCE`) picks here;
- simulations a move of a player by time (`--seconds`, default 0.5) from the first
  `--positions` openings of the board's suite, torch against the `auto` choice.

    python -m pipeline.bench.play_inference [--model M ...] [--seconds 0.5] [--positions 3]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from pipeline.games.base import GameState
from pipeline.match.openings import resolve_suite
from pipeline.nets.autoselect import interleaved_medians
from pipeline.nets.backends import OnnxRuntimeBackend, OpenVinoBackend, TorchBackend
from pipeline.nets.inference import cache_root, cpu_has_bf16
from pipeline.nets.resnet import PolicyValueNet
from pipeline.players.factory import play_search
from pipeline.players.models import load_model
from pipeline.players.search import PLAY_INFERENCE, NetPlayer, player_evaluator

MODELS = (
    Path("models/pretrained/gomoku-15x15.pt"),
    Path("models/pretrained/connect6-19x19.pt"),
    Path("models/pretrained/hex-11x11-swap.pt"),
)
BATCHES = (1, 8, 64)


def forward_rates(net: PolicyValueNet, batches: tuple[int, ...], repeats: int) -> dict[int, dict[str, float]]:
    """Positions/s of each backend at each batch, one thread, on the net's own starting
    observation repeated."""
    cache = cache_root(PLAY_INFERENCE)
    backends = {
        "torch f32": TorchBackend(net, threads=1),
        "onnxruntime f32": OnnxRuntimeBackend(net, cache, 1),
        "openvino f32": OpenVinoBackend(net, cache, "f32", 1),
    }
    if cpu_has_bf16():
        backends["openvino bf16"] = OpenVinoBackend(net, cache, "bf16", 1)
    first = net.game.new_game().observation()[None]
    out = {}
    for batch in batches:
        obs = np.repeat(first, batch, axis=0).astype(np.float32)
        seconds = interleaved_medians(backends, obs, repeats)
        out[batch] = {name: batch / s for name, s in seconds.items()}
    return out


def suite_positions(net: PolicyValueNet, count: int) -> list[GameState]:
    """The first `count` openings of the board's shipped suite (the empty board if none)."""
    suite = resolve_suite(net.game, None)
    if suite is None:
        return [net.game.new_game()]
    out = []
    for moves in suite.openings[:count]:
        state = net.game.new_game()
        for action in moves:
            state.apply(action)
        out.append(state)
    return out


def timed_simulations(net: PolicyValueNet, seconds: float, count: int) -> dict[str, float]:
    """Mean simulations a move of a fresh player by time at each position, torch against the
    `auto` choice, the two alternating position by position."""
    search = play_search(net.game, 1_000_000)
    players = {
        "torch f32": NetPlayer(player_evaluator(net, None), search, seconds=seconds),
        "auto": NetPlayer(player_evaluator(net), search, seconds=seconds),
    }
    for player in players.values():  # warm-up: compilation, the first call's allocations
        player.think(net.game.new_game(), seconds=0.05)
    counts: dict[str, list[int]] = {name: [] for name in players}
    for state in suite_positions(net, count):
        for name, player in players.items():
            player.start(net.game, 1, 0)  # a fresh tree: no reuse between the two
            counts[name].append(player.think(state).simulations)
    return {name: float(np.mean(c)) for name, c in counts.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, action="append", help="checkpoint (repeatable; default: three shipped)")
    parser.add_argument("--seconds", type=float, default=0.5, help="a move's time for the timed figure")
    parser.add_argument("--positions", type=int, default=3, help="suite openings searched by time")
    parser.add_argument("--repeats", type=int, default=20, help="forward calls per backend and batch")
    args = parser.parse_args(argv)
    console = Console()
    for path in args.model or MODELS:
        if not path.is_file():
            parser.error(f"{path}: no such checkpoint")
        net = load_model(path)
        if not isinstance(net, PolicyValueNet):
            parser.error(f"{path}: not a policy-value net")
        chosen = player_evaluator(net).describe()  # what a playing net runs here
        table = Table(title=f"{path.name} ({net.game}): positions/s, one thread; auto picks {chosen}")
        rates = forward_rates(net, BATCHES, args.repeats)
        names = list(rates[BATCHES[0]])
        table.add_column("batch", justify="right")
        for name in names:
            table.add_column(name, justify="right")
        for batch, row in rates.items():
            base = row["torch f32"]
            table.add_row(str(batch), *(f"{row[n]:,.0f} ({row[n] / base:.2f}x)" for n in names))
        console.print(table)
        sims = timed_simulations(net, args.seconds, args.positions)
        ratio = sims["auto"] / max(sims["torch f32"], 1.0)
        console.print(
            f"by time, {args.seconds:g} s a move over {args.positions} suite positions: torch f32 "
            f"{sims['torch f32']:,.0f} simulations a move, auto ({chosen}) {sims['auto']:,.0f}: {ratio:.2f}x",
            highlight=False,
        )


if __name__ == "__main__":
    main()
