"""The root's last look before a move: does the move the search likes let the opponent win?

Inside the tree every expansion asks the threat solvers with a small budget
(`search.tactics_nodes`), because there are thousands of expansions a move. A few threats
need more: of 1,000 threatened positions, the misses at 200 nodes all needed 244-493
(RESULTS.md, 2026-11-24, no-blunder). The root is one position a move, so it can afford a
larger budget (`search.tactics_root_nodes`): after the simulations, the most visited move
is played on a copy of the root and the opponent's solver runs there. A move after which
the opponent has a VCF is proven lost (the tree's MCTS-Solver marks it, so `best_action`
avoids it and the visits handed to training drop it); the root's verdict at that budget
then proves lost every move the opponent's proofs refute, and the next most visited move
is checked, up to `tries` moves. A proven win is never second-guessed, and when every move
tried loses the counts stand (the position is lost whatever is played).

Every claim rests on a proof, as in the tree (`pipeline.search.forced`), so a budget that
runs out only lets a move through."""

import numpy as np
from numba import njit

from pipeline.games.kernels import apply_unchecked, legal_mask
from pipeline.games.layout import WINNER
from pipeline.search.forced import LOSS, OPEN, WIN, tactical_verdict_into
from pipeline.search.tree import (
    ACTION,
    COUNT,
    FIRST,
    PRIOR,
    SOLVED_WIN,
    TERM_VALUE,
    TERMINAL,
    VISITS,
    Tree,
    prove_move,
)


@njit(cache=True, nogil=True)
def guard_root(node_int, node_float, g, root, work, mask, mode, budget, max_depth, table, null_table, pv, sc, tries):
    """Check game g's most visited root moves in turn (at most `tries`) until one leaves the
    opponent without a win found within `budget` nodes; mark each refuted one a proven loss.
    The first refuted move means the opponent threatens: the root's own verdict at the
    same budget then narrows the moves to those its proofs leave standing, as an expansion
    does (`forced.tactical_verdict_into`), and every other child is proven lost at once.
    Returns how many children were proven lost. `root` is the root's state, `work` a
    state-sized buffer, `mask` a cell mask, the rest as `forced.tactical_verdict_into`."""
    first = node_int[g, 0, FIRST]
    count = node_int[g, 0, COUNT]
    if first < 0 or node_int[g, 0, TERMINAL] != 0:
        return 0
    refuted = 0
    narrowed = False
    for _ in range(tries):
        best = -1
        for j in range(first, first + count):
            if node_int[g, j, TERMINAL] != 0:
                if node_float[g, j, TERM_VALUE] > 0:
                    return refuted  # a proven win is taken whatever the counts say
                continue
            # `Tree.best_action`'s order: visits, then prior (an unvisited move can be the
            # choice when every visited one is proven lost).
            if (
                best < 0
                or node_int[g, j, VISITS] > node_int[g, best, VISITS]
                or (
                    node_int[g, j, VISITS] == node_int[g, best, VISITS]
                    and node_float[g, j, PRIOR] > node_float[g, best, PRIOR]
                )
            ):
                best = j
        if best < 0:
            return refuted
        work[:] = root
        apply_unchecked(work, node_int[g, best, ACTION])
        if work[WINNER] >= 0:
            return refuted
        legal_mask(work, mask)
        verdict, _ = tactical_verdict_into(work, mask, mode, budget, max_depth, table, null_table, pv, sc)
        if verdict != WIN:
            return refuted
        # Lost for the root's player, who moves into it (the root itself stays open).
        prove_move(node_int, node_float, g, 0, node_int[g, best, ACTION], -SOLVED_WIN, False)
        refuted += 1
        if not narrowed:
            narrowed = True
            work[:] = root
            legal_mask(work, mask)
            verdict, win = tactical_verdict_into(work, mask, mode, budget, max_depth, table, null_table, pv, sc)
            if verdict == WIN:  # our own proof, too long for the tree's budget: play it
                prove_move(node_int, node_float, g, 0, win, SOLVED_WIN, False)
                return refuted
            if verdict == LOSS:
                return refuted  # every move loses: the counts stand
            if verdict == OPEN:
                for j in range(first, first + count):
                    if node_int[g, j, TERMINAL] == 0 and not mask[node_int[g, j, ACTION]]:
                        prove_move(node_int, node_float, g, 0, node_int[g, j, ACTION], -SOLVED_WIN, False)
                        refuted += 1
    return refuted


def guarded_visits(visits: np.ndarray, tree: Tree, g: int) -> np.ndarray:
    """Game g's root visit counts [A] without the moves proven lost. When every visited
    move is lost, the move `Tree.best_action` then takes (an open one the search never
    visited, which the guard let through) gets one visit; when every move is lost, the
    counts stand (a training target needs some move)."""
    kids = tree.root_children(g)
    lost = (tree.node_int[g, kids, TERMINAL] != 0) & (tree.node_float[g, kids, TERM_VALUE] < 0)
    if not lost.any():
        return visits
    out = visits.copy()
    out[tree.node_int[g, kids, ACTION][lost]] = 0
    if out.sum() == 0:
        if lost.all():
            return visits
        out[tree.best_action(g)] = 1
    return out
