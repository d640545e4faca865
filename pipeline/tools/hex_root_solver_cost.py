"""CPU seconds a move of a Hex net under `play_search` (the front ends' search: the root
solver, from the first move), by empty cells, against an opponent, each game from a random
first stone (RESULTS.md, "the Hex root solver on 8x8"; `--solver-empty-cells N` makes the
solver wait for N empty cells, as it did before the nineteenth session with 50;
`--solver-nodes N` sets its budget, to weigh a larger one: "the 8x8 play budget").

    python -m pipeline.tools.hex_root_solver_cost --model models/pretrained/hex-8x8.pt --vs pure:1000 --games 6

Printed: whether the net won each game, then for its moves with the root solver off (more
empty cells than `--solver-empty-cells`) and on, above and at most OPENING_EMPTY_CELLS empty
cells: how many, and the median and largest CPU seconds a move.

A size-free swap net plays without swap once its checkpoint says so:
`p = torch.load(path, weights_only=False); p["game"]["swap"] = False; torch.save(p, out)`.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from pipeline.match.evaluation import model_spec
from pipeline.players.factory import make_player, play_search

OPENING_EMPTY_CELLS = 50  # where the solver used to start on 8x8: its opening positions cost the most


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--board", default=None, help="another board for a size-free net, e.g. 8")
    parser.add_argument("--vs", default="pure:1000")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--solver-empty-cells", type=int, default=None, help="default: from the first move")
    parser.add_argument(
        "--solver-nodes", type=int, default=None, help="the root solver's budget (default: play_search's)"
    )
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games takes at least 1")
    if args.solver_nodes is not None and args.solver_nodes < 1:
        parser.error("--solver-nodes takes at least 1")
    spec = model_spec(args.model, args.board)
    search = play_search(spec, args.simulations)
    nodes = search.hex_root_solver_nodes if args.solver_nodes is None else args.solver_nodes
    search = search.model_copy(
        update={"hex_root_solver_empty_cells": args.solver_empty_cells, "hex_root_solver_nodes": nodes}
    )
    rows = []
    for g in range(args.games):
        me = make_player(str(args.model), spec, search, name=args.model.stem)
        opponent = make_player(args.vs, spec, search)
        net_first = g % 2 == 0
        me.start(spec, 1, g)
        opponent.start(spec, 1, g + 100)
        state = spec.new_game()
        first = int(np.random.default_rng(g).integers(spec.cells))
        state.apply(first)
        me.observe(0, state, first)
        opponent.observe(0, state, first)
        while not state.is_terminal:
            mine = (state.current_player == 0) == net_first
            start = time.process_time()
            move = int((me if mine else opponent).choose([0], [state])[0])
            if mine:
                rows.append((int(np.count_nonzero(state.board() == 0)), time.process_time() - start))
            state.apply(move)
            me.observe(0, state, move)
            opponent.observe(0, state, move)
        won = state.winner == (0 if net_first else 1)
        print(f"game {g}: the net as {'first' if net_first else 'second'} player, won: {won}")
    empty, seconds = np.array(rows).T
    # no solver at all (a board above SOLVED_HEX_SIDE) reads as every move with the solver off
    waits_for = search.hex_root_solver_empty_cells
    gate = (spec.cells if waits_for is None else waits_for) if search.hex_root_solver_nodes else -1
    for name, on in (("solver off", empty > gate), ("solver on", empty <= gate)):
        for band, part in (
            (f"more than {OPENING_EMPTY_CELLS}", empty > OPENING_EMPTY_CELLS),
            (f"at most {OPENING_EMPTY_CELLS}", empty <= OPENING_EMPTY_CELLS),
        ):
            sel = on & part
            if sel.any():
                median, most = np.median(seconds[sel]), seconds[sel].max()
                print(
                    f"{name}, {band} empty cells: {sel.sum()} moves, CPU s a move median {median:.2f}, max {most:.2f}"
                )


if __name__ == "__main__":
    main()
