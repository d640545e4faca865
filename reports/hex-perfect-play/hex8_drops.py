"""The four 8x8 games of the 200-opening sample (both colours, against pure:1000) where the
champion gave a proven win back: the position before each drop solved by DFPN with H-search
from a fresh table at several budgets, to size a root solver that runs from the first move.

    python reports/hex-perfect-play/hex8_drops.py
"""

import time
from pathlib import Path

import numpy as np

import pipeline  # noqa: F401  (numba's cache settings before any kernel)
from pipeline.games.base import GameSpec, GameState
from pipeline.match.perfect_play import CheckedGame
from pipeline.players.factory import make_player, play_search
from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex.solve import keeps_win, new_dfpn_table, winning_move
from pipeline.tools.hex_perfect_play import read_progress

NAMES = {1: "win", -1: "loss", 0: "unsettled"}
MODEL = "models/pretrained/hex-8x8.pt"
spec = GameSpec.parse("hex:8")
here = Path(__file__).parent


def drops(name: str) -> list[tuple[CheckedGame, int, GameState]]:
    """Each game of a progress file with a drop (`CheckedGame.dropped_ply`): the game, the
    ply of the won position before it, and that position."""
    out = []
    for game in (g for chunk in read_progress(here / name).values() for g in chunk):
        if game.dropped_ply is None:
            continue
        ply = max(p for p in game.values if p < game.dropped_ply)
        state = spec.new_game()
        for a in game.moves[:ply]:
            state = state.apply(a)
        out.append((game, ply, state))
    return out


def report_budgets(state: GameState, played: int, budgets: tuple[int, ...]) -> None:
    """DFPN with H-search from a fresh table at each budget: the value, the nodes, a winning move."""
    for budget in budgets:
        table = new_dfpn_table(20)
        start = time.perf_counter()
        value, _, nodes = hd.dfpn(
            state.array, np.int64(budget), np.int64(hd.DFPN_ALL), hd.default_limits(), hd.centre_order(8), table
        )
        seconds = time.perf_counter() - start
        found = winning_move(state, budget, tt=table, preferred=played) if value == 1 else None
        print(
            f"  budget {budget:>6}: {NAMES[int(value)]} in {int(nodes)} nodes, {seconds:.1f} s;"
            f" winning move {found} ({time.perf_counter() - start:.1f} s in all)",
            flush=True,
        )


def play_today(state: GameState) -> tuple[int, float]:
    """The move the 8x8 champion plays at `state` under `play_search` (the front ends' search:
    the root solver from the first move, from a fresh table), and its CPU seconds."""
    player = make_player(MODEL, spec, play_search(spec, 200))
    player.start(spec, 1, 0)
    start = time.process_time()
    move = int(player.choose([0], [state])[0])
    return move, time.process_time() - start


def report_keeps_win(game: CheckedGame, ply: int, state: GameState) -> None:
    """Does the move played at `ply` keep the win, solved at 500,000 nodes from a fresh table?"""
    start = time.perf_counter()
    kept = keeps_win(state, game.moves[ply], 500_000, new_dfpn_table(22))
    print(
        f"opening {game.moves[:2]}, ply {ply}: the move played, {game.moves[ply]}, keeps the win within 500,000"
        f" nodes: {kept} ({time.perf_counter() - start:.1f} s)",
        flush=True,
    )


if __name__ == "__main__":
    for name in ("hex8-sample.jsonl", "hex8-sample-second.jsonl"):
        for game, ply, state in drops(name):
            played = game.moves[ply]
            print(f"{name} opening {game.moves[:2]}: won at ply {ply} ({spec.cells - ply} empty), played {played}")
            report_budgets(state, played, (5_000, 20_000, 50_000))

    # Two of the drops are drops only as far as the checker saw: the position after the
    # champion's reply (the next of its own) was not settled at 50,000 nodes. Does the move
    # played keep the win when the position after it is solved at a larger budget?
    for game, ply, state in drops("hex8-sample.jsonl"):
        if game.moves[:2] in ([9, 59], [10, 14]):
            report_keeps_win(game, ply, state)
