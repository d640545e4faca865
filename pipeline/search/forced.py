"""Tactics in the tree: what the threat solvers know about a node before the net is asked.

At each expansion of a k-in-a-row position (`search.tactics` on):
1. the player to move has a VCF (with `vct`, a VCT) within the node budget: the node is a
   proven win through the proof's first move;
2. the opponent can win on its next turn (a four in Gomoku; in Connect6, threat windows
   that the stones left this turn must hit): the children are the defences only, and a
   node where they cannot all be stopped is a proven loss;
3. the opponent has a VCF if the player to move passed (Gomoku): the children are the
   moves that refute it. Candidates are the proof's cells and the mover's own fours, each
   checked by solving again; every other move is checked by replaying the opponent's
   proof with that stone on the board, which is exact (a stone off the proof's cells can
   only matter by giving the mover a winning cell, and such a cell lies on a line through
   that stone). A move whose check fails stays a child, so a node is a proven loss only
   when every legal move is refuted by a proof.

Under renju a stone off the proof can also matter by changing which cells are forbidden
to black: the replay then also requires every black move of the proof to be legal, and
each "any move" black makes where its block was forbidden to find that block still
forbidden (else the move stays a child).

Every claim rests on a proof found by the solvers (`pipeline.tactics`), which never claim
a win that is not one; a budget that runs out only leaves moves in, never claims."""

import numpy as np
from numba import njit

from pipeline.games.connect6 import mark_windows, stones_left_in_turn
from pipeline.games.kernels import apply_unchecked, winning_moves
from pipeline.games.layout import BOARD, CONNECT6, GOMOKU, HEIGHT, KIND, PLY, TO_MOVE, WIDTH, WIN_LENGTH, WINNER
from pipeline.tactics.threats import LOST, four_moves, illegal_for, line_wins, null_move, restricted, threat_defences
from pipeline.tactics.vcf import vcf
from pipeline.tactics.vct import vct

TACTICS_OFF = 0
TACTICS_VCF = 1
TACTICS_VCT = 2
TACTICS_MODES = {"off": TACTICS_OFF, "vcf": TACTICS_VCF, "vct": TACTICS_VCT}

OPEN = 0  # nothing proven (the mask may still have been narrowed to defences)
WIN = 1  # the player to move wins: through the returned action
LOSS = -1  # the player to move loses whatever it plays


@njit(cache=True, nogil=True)
def wins_at_once(s):
    """Can the player to move complete a line with the stones it has left this turn?"""
    cells = s[HEIGHT] * s[WIDTH]
    marks = np.zeros(cells, dtype=np.bool_)
    if s[KIND] == CONNECT6:
        return mark_windows(s, s[TO_MOVE], 6 - stones_left_in_turn(s[PLY]), marks) > 0
    return winning_moves(s, s[TO_MOVE], marks) > 0


@njit(cache=True, nogil=True)
def proof_survives(s, stone, pv, pv_len, work, scratch):
    """Does the opponent's proof pv[:pv_len] (found with the mover passing) still win once
    the mover has put a stone on `stone`, a cell off the proof? `work` is scratch state."""
    me = s[TO_MOVE]
    own = me + 1
    cells = s[HEIGHT] * s[WIDTH]
    work[:] = s
    apply_unchecked(work, stone)
    if work[WINNER] >= 0 or line_wins(work, stone, own, scratch, 0) > 0:
        return False  # the stone won, or made a four: the proof must be searched again
    wins = np.zeros(cells, dtype=np.bool_)
    for i in range(pv_len):
        a = pv[i]
        if work[BOARD + a] != 0:
            return False
        mover = work[TO_MOVE]
        if restricted(work, mover):
            if illegal_for(work, mover, a):
                return False  # renju: the stone made a move of the proof forbidden to black
            if mover == me:
                # Black defends: a move off white's winning cells was played because
                # every block was forbidden; with the stone one may be legal now.
                wins[:] = False
                winning_moves(work, 1 - me, wins)
                if not wins[a]:
                    for e in range(cells):
                        if wins[e] and not illegal_for(work, me, e):
                            return False
        apply_unchecked(work, a)
        if work[WINNER] >= 0:
            return work[WINNER] == 1 - me
        # A new winning cell of ours would have to run through the extra stone.
        if mover == me and line_wins(work, stone, own, scratch, 0) > 0:
            return False
    return False


@njit(cache=True, nogil=True)
def refute_threat(s, mask, budget, max_depth, table, pv, pv_len, work, scratch, proof):
    """Narrow `mask` to the moves not refuted by a proof of the opponent's win; return how
    many remain. `pv[:pv_len]` is the opponent's proof with the mover passing."""
    cells = s[HEIGHT] * s[WIDTH]
    me = s[TO_MOVE]
    candidate = np.zeros(cells, dtype=np.bool_)
    four_moves(s, me, candidate)
    for i in range(pv_len):
        candidate[pv[i]] = True
    kept = 0
    for a in range(cells):
        if not mask[a]:
            continue
        if candidate[a]:
            work[:] = s
            apply_unchecked(work, a)
            refuted = work[WINNER] < 0 and vcf(work, budget, max_depth, table, proof)[0] == 1
        else:
            refuted = proof_survives(s, a, pv, pv_len, work, scratch)
        if refuted:
            mask[a] = False
        else:
            kept += 1
    return kept


@njit(cache=True, nogil=True)
def tactical_verdict(s, mask, mode, budget, max_depth, table, null_table, pv):
    """The solvers' verdict on the position `s` for the player to move (OPEN, WIN or
    LOSS) and, for WIN, the move that starts the proof. `mask` (the legal moves) is
    narrowed to the defences when the opponent threatens. `table` and `null_table` are
    transposition tables (`pipeline.tactics.table.new_table`) kept between calls: the
    second holds the searches with the mover passing, whose boards have the other player
    to move. `pv` is scratch room for a proof."""
    kind = s[KIND]
    if mode == TACTICS_OFF or (kind != GOMOKU and kind != CONNECT6) or s[WINNER] >= 0:
        return OPEN, -1
    budget = np.int64(budget)
    max_depth = np.int64(max_depth)
    if mode == TACTICS_VCT:
        found, _, _ = vct(s, budget, max_depth, table, pv)
    else:
        found, _, _ = vcf(s, budget, max_depth, table, pv)
    if found == 1:
        return WIN, pv[0]
    cells = s[HEIGHT] * s[WIDTH]
    marks = np.zeros(cells, dtype=np.bool_)
    need = threat_defences(s, marks)
    if need == LOST:
        if wins_at_once(s):
            return OPEN, -1  # the solver's budget ran out before the obvious: keep every move
        return LOSS, -1
    if need > 0:
        for a in range(cells):
            mask[a] = mask[a] and marks[a]
        return OPEN, -1
    if kind != GOMOKU:
        return OPEN, -1
    passed = np.empty_like(s)
    null_move(s, passed)
    found, pv_len, _ = vcf(passed, budget, max_depth, null_table, pv)
    if found != 1:
        return OPEN, -1
    work = np.empty_like(s)
    scratch = np.empty(8 * s[WIN_LENGTH] + 8, dtype=np.int64)
    proof = np.empty_like(pv)
    if refute_threat(s, mask, budget, max_depth, table, pv, pv_len, work, scratch, proof) == 0:
        return LOSS, -1
    return OPEN, -1
