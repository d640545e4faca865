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
is checked, up to `tries` moves (and, once the root's verdict has narrowed the moves to those
that can meet the threat, every one of them). A proven win is never second-guessed, and when every move
tried loses the counts stand (the position is lost whatever is played).

Connect6 decides a turn of two stones in two searches. After the turn's first stone the
mover places again, so the check there is whether some second stone (among the cells that
can meet the opponent's VCF, `second_stone_holds`) leaves the opponent without a win; a
first stone none of whose second stones holds is proven lost like a move above. At the
second stone the opponent moves next and the check is the one above.

Every claim rests on a proof, as in the tree (`pipeline.search.forced`), so a budget that
runs out only lets a move through."""

import numpy as np
from numba import njit

from pipeline.games.kernels import apply_unchecked, legal_mask
from pipeline.games.layout import BOARD, TO_MOVE, WINNER
from pipeline.search.forced import LOSS, OPEN, TACTICS_BASE, TACTICS_VCT, WIN, tactical_verdict_into
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
from pipeline.tactics.lines.scratch import PROBE
from pipeline.tactics.lines.vcf import vcf_into
from pipeline.tactics.lines.vct import vct_into

SECOND_TRIES = 64  # second stones the guard checks after a first one at most


@njit(cache=True, nogil=True)
def guard_root(node_int, node_float, g, root, work, mask, mode, budget, max_depth, table, null_table, pv, sc, tries):
    """Check game g's most visited root moves in turn (at most `tries`, or every child once
    the root's verdict has narrowed them) until one leaves the
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
    left = tries
    while left > 0:
        left -= 1
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
        if work[TO_MOVE] == root[TO_MOVE]:
            # Connect6, the turn's first stone: our move again. The stone is lost when no
            # second stone leaves the opponent without a win.
            if verdict == WIN or (
                verdict == OPEN and second_stone_holds(work, mask, mode, budget, max_depth, table, pv, sc)
            ):
                return refuted
        elif verdict != WIN:
            return refuted
        # Lost for the root's player, who moves into it (the root itself stays open).
        prove_move(node_int, node_float, g, 0, node_int[g, best, ACTION], -SOLVED_WIN, False)
        refuted += 1
        if not narrowed:
            narrowed = True
            # The moves left are those that can meet the threat: each is worth a look
            # (in Connect6 one second stone in forty may hold).
            left = max(left, count)
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


@njit(cache=True, nogil=True)
def second_stone_holds(first, mask, mode, budget, max_depth, table, pv, sc, tries=SECOND_TRIES):
    """Connect6: after the turn's first stone (`first`, the mover to place one more),
    whether some second stone among `mask` (the verdict's: the cells that can meet the
    opponent's VCF, every empty cell when it has none) leaves the opponent without a win
    found within `budget` nodes. More than `tries` candidates all refuted counts as a
    hold: a budget that runs out only lets a move through."""
    cells = mask.shape[0]
    narrowed = 0
    for b in range(cells):
        if first[b + BOARD] == 0 and not mask[b]:
            narrowed += 1
    if narrowed == 0:
        return True  # no threat to meet: any second stone holds
    after = sc.states[PROBE]  # the verdict's probe row: `vcf_into` below leaves it alone
    tried = 0
    for b in range(cells):
        if not mask[b]:
            continue
        tried += 1
        if tried > tries:
            return True
        after[:] = first
        apply_unchecked(after, b)
        if after[WINNER] >= 0:
            return True
        # The opponent to move: only its own VCF (with `vct`, its VCT) matters here (one
        # solver call, not a whole verdict with its defence zone).
        if (mode & TACTICS_BASE) == TACTICS_VCT:
            found, _, _ = vct_into(after, budget, max_depth, table, pv, sc)
        else:
            found, _, _ = vcf_into(after, budget, max_depth, table, pv, sc)
        if found != 1:
            return True
    return False


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
