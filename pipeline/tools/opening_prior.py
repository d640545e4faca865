"""What a shipped net thinks of the empty board: its prior over the first move and its
value after a first move on each cell (for black), printed as boards (RESULTS.md: why the
15x15 champions open at the edge, and each retrained champion's opening); with `--search`,
the first move its search plays at each simulation count, and whether it lies in the
board's central 5x5; with `--visits K`, the K most visited first moves (RESULTS.md,
seventeenth session: why the Connect6 champion's first stone leaves the centre at 400 to
1,600 simulations); with `--root-fpu R`, the same searches with a first-play reduction at
the root (RESULTS.md, twenty-second session: the 1,600-simulation search's rare first stones).
The searched moves are the search's own: a net that plays (`play_search`) opens a line game
at the centre whatever they are (`SearchConfig.empty_board_centre`).

    python -m pipeline.tools.opening_prior models/pretrained/gomoku-15x15.pt gomoku:15
    python -m pipeline.tools.opening_prior models/pretrained/connect6-19x19.pt connect6:19 \
        --search 200 400 800 1600 --visits 8

Printed: the empty board's value, the prior's entropy (1.0: uniform) and argmax as
(row, column) from the top-left, then the prior in per mille and black's value after a
first stone on each cell, one row of the board a line."""

from __future__ import annotations

import argparse

import numpy as np
import torch

from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import CheckpointError
from pipeline.players.factory import make_player, play_search
from pipeline.runtime.pipe import run_main
from pipeline.search.tree import ACTION, PRIOR, VALUE, VISITS

CENTRE = 5  # the side of the central square a first move should land in


def opening_maps(model: str, spec: GameSpec) -> tuple[np.ndarray, np.ndarray, float]:
    """(prior over the first move, black's value after a first stone on each cell, the
    empty board's value), the first two as HxW boards."""
    player = make_player(model, spec)
    prior, value = player.policy_value(spec.new_game())  # type: ignore[attr-defined]
    obs = np.stack([spec.new_game().apply(a).observation() for a in range(spec.cells)])
    _, values = player.evaluator(obs)  # type: ignore[attr-defined]
    board = (spec.height, spec.width)
    return np.asarray(prior)[: spec.cells].reshape(board), -np.asarray(values).reshape(board), float(value)


def first_moves(
    model: str, spec: GameSpec, budgets: list[int], top: int = 0, root_fpu: float | None = None
) -> dict[int, tuple[tuple[int, int], list[tuple[tuple[int, int], int, float]]]]:
    """The first move (row, column) the net's search plays from the empty board at each
    simulation count (the match settings: no noise, the most visited move), with the `top`
    most visited moves, their visits and their Q; `root_fpu`: the root's first-play
    reduction instead of the match settings' (none at the root)."""
    moves = {}
    for budget in budgets:
        # The search's own choice: a player of the shipped settings plays the centre from the
        # empty board of a line game whatever its search says (`SearchConfig.empty_board_centre`).
        search = play_search(spec, budget).model_copy(update={"empty_board_centre": False})
        if root_fpu is not None:
            search = search.model_copy(update={"root_fpu_reduction": root_fpu})
        player = make_player(model, spec, search)
        player.start(spec, 1, 0)
        action = player.choose([0], [spec.new_game()])[0]
        visits = player.last_visits[0]  # type: ignore[attr-defined]
        values, priors = root_stats(player, spec)
        # Equal counts in the order the search breaks them (`Tree.best_action`): the higher prior first.
        order = np.lexsort((-priors, -visits))
        ranked = [(divmod(int(a), spec.width), int(visits[a]), float(values[a])) for a in order[:top]]
        moves[budget] = (divmod(int(action), spec.width), ranked)
    return moves


def root_stats(player, spec: GameSpec) -> tuple[np.ndarray, np.ndarray]:
    """Black's mean searched value (Q) of each first move at the player's root after its
    search (NaN where unvisited), and the root's prior of each (0 where no child)."""
    tree = player.search.tree
    kids = tree.root_children(0)
    values = np.full(spec.num_actions, np.nan)
    priors = np.zeros(spec.num_actions)
    for j in range(kids.start, kids.stop):
        action = int(tree.node_int[0, j, ACTION])
        priors[action] = float(tree.node_float[0, j, PRIOR])
        visits = int(tree.node_int[0, j, VISITS])
        if visits > 0:
            values[action] = float(tree.node_float[0, j, VALUE]) / visits
    return values, priors


def in_centre(cell: tuple[int, int], spec: GameSpec) -> bool:
    top, left = (spec.height - CENTRE) // 2, (spec.width - CENTRE) // 2
    return top <= cell[0] < top + CENTRE and left <= cell[1] < left + CENTRE


def main(argv: list[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a checkpoint")
    parser.add_argument("spec", help="the game to read it on, e.g. gomoku:15 (another size for a size-free net)")
    parser.add_argument(
        "--search", type=int, nargs="*", default=[], metavar="N", help="also the searched first move at N simulations"
    )
    parser.add_argument(
        "--visits", type=int, default=0, metavar="K", help="with --search, also the K most visited first moves"
    )
    parser.add_argument(
        "--root-fpu",
        type=float,
        default=None,
        metavar="R",
        help="with --search, an unvisited first move valued R below the root (the tree's reduction, 0.2, "
        "where the matches' search has none at the root)",
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    try:  # a user's mistake (no such checkpoint, another game, a bad spec): one line, no traceback
        spec = GameSpec.parse(args.spec)
        prior, black_value, value = opening_maps(args.model, spec)
    except (CheckpointError, ValueError) as exc:
        raise SystemExit(f"error: {exc}") from None
    flat = prior.reshape(-1)
    entropy = float(-(flat * np.log(flat + 1e-12)).sum() / np.log(len(flat)))
    top = divmod(int(flat.argmax()), spec.width)
    print(
        f"{args.model} on {spec}: empty-board value {value:+.3f}, prior entropy {entropy:.2f} of uniform, argmax {top}"
    )
    np.set_printoptions(linewidth=220, precision=2, suppress=True)
    print("prior (per mille):\n", (prior * 1000).round(0))
    print("value for black after its first move there:\n", black_value)
    for budget, (cell, ranked) in first_moves(args.model, spec, args.search, args.visits, args.root_fpu).items():
        centre = "in" if in_centre(cell, spec) else "outside"
        print(f"searched first move at {budget} simulations: {cell}, {centre} the central {CENTRE}x{CENTRE}")
        for (row, column), visits, q in ranked:
            print(f"  ({row}, {column}): {visits} visits, Q {q:+.3f}, prior {prior[row, column] * 1000:.0f} per mille")
    return prior, black_value


if __name__ == "__main__":
    run_main(main)
