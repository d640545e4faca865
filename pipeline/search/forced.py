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

Every claim rests on a proof found by the solvers (`pipeline.tactics`), which never claim
a win that is not one; a budget that runs out only leaves moves in, never claims.

Cost: most leaves hold no threat at all, so the verdict is made cheap where it finds
nothing. In Gomoku one scan of the board's windows (`gomoku_scan`) serves both solver
calls (the mover's, and the opponent's with the mover passing: the same board) and the
threat check; a side with no window of k - 2 stones has nothing to search. The arrays
live in a scratch made once (`pipeline.tactics.scratch`; `tactical_verdict_into`), and
the verdicts, masks and tables are those of the plain path, call for call
(tests/unit/test_verdict_reference.py)."""

import numpy as np
from numba import njit

from pipeline.games.connect6 import mark_windows, stones_left_in_turn
from pipeline.games.kernels import apply_unchecked
from pipeline.games.layout import BOARD, CONNECT6, GOMOKU, HEIGHT, KIND, PLY, TO_MOVE, WIDTH, WINNER
from pipeline.tactics.scratch import (
    A_E0,
    A_E1,
    A_KEYS,
    CANDIDATE,
    FOURS,
    MARK2,
    MARKS,
    PASSED,
    PROBE,
    PROBE_LINE,
    PROOF,
    SCAN,
    SCAN_WINS,
    WINS,
    scratch_for,
)
from pipeline.tactics.table import SALT_VCF, SALT_VCT
from pipeline.tactics.threats import LOST, four_moves_into, gomoku_scan, line_wins, null_move, threat_defences_into
from pipeline.tactics.vcf import c6_solve, gomoku_solve_scanned, vcf_into

TACTICS_OFF = 0
TACTICS_VCF = 1
TACTICS_VCT = 2
TACTICS_MODES = {"off": TACTICS_OFF, "vcf": TACTICS_VCF, "vct": TACTICS_VCT}

OPEN = 0  # nothing proven (the mask may still have been narrowed to defences)
WIN = 1  # the player to move wins: through the returned action
LOSS = -1  # the player to move loses whatever it plays


@njit(cache=True, nogil=True)
def wins_at_once(s, sc):
    """Can the player to move complete a line with the stones it has left this turn?
    (Gomoku: read from the scan in `sc`, which must be of this board.)"""
    if s[KIND] == CONNECT6:
        return mark_windows(s, s[TO_MOVE], 6 - stones_left_in_turn(s[PLY]), sc.flags[MARK2]) > 0
    return sc.ints[SCAN, 2 * s[TO_MOVE] + SCAN_WINS] > 0


@njit(cache=True, nogil=True)
def proof_survives(s, stone, pv, pv_len, work, scratch):
    """Does the opponent's proof pv[:pv_len] (found with the mover passing) still win once
    the mover has put a stone on `stone`, a cell off the proof? `work` is scratch state."""
    me = s[TO_MOVE]
    own = me + 1
    work[:] = s
    apply_unchecked(work, stone)
    if work[WINNER] >= 0 or line_wins(work, stone, own, scratch, 0) > 0:
        return False  # the stone won, or made a four: the proof must be searched again
    for i in range(pv_len):
        a = pv[i]
        if work[BOARD + a] != 0:
            return False
        mover = work[TO_MOVE]
        apply_unchecked(work, a)
        if work[WINNER] >= 0:
            return work[WINNER] == 1 - me
        # A new winning cell of ours would have to run through the extra stone.
        if mover == me and line_wins(work, stone, own, scratch, 0) > 0:
            return False
    return False


@njit(cache=True, nogil=True)
def refute_threat(s, mask, budget, max_depth, table, pv, pv_len, sc):
    """Narrow `mask` to the moves not refuted by a proof of the opponent's win; return how
    many remain. `pv[:pv_len]` is the opponent's proof with the mover passing (not in
    the scratch's arrays, which this uses)."""
    cells = s[HEIGHT] * s[WIDTH]
    me = s[TO_MOVE]
    candidate = sc.flags[CANDIDATE]
    work = sc.states[PROBE]
    four_moves_into(s, me, candidate, work, sc.flags[MARKS], sc.ints[PROBE_LINE])
    for i in range(pv_len):
        candidate[pv[i]] = True
    kept = 0
    for a in range(cells):
        if not mask[a]:
            continue
        if candidate[a]:
            work[:] = s
            apply_unchecked(work, a)
            refuted = work[WINNER] < 0 and vcf_into(work, budget, max_depth, table, sc.ints[PROOF], sc)[0] == 1
        else:
            refuted = proof_survives(s, a, pv, pv_len, work, sc.ints[PROBE_LINE])
        if refuted:
            mask[a] = False
        else:
            kept += 1
    return kept


@njit(cache=True, nogil=True)
def tactical_verdict_into(s, mask, mode, budget, max_depth, table, null_table, pv, sc):
    """The solvers' verdict on the position `s` for the player to move (OPEN, WIN or
    LOSS) and, for WIN, the move that starts the proof. `mask` (the legal moves) is
    narrowed to the defences when the opponent threatens. `table` and `null_table` are
    transposition tables (`pipeline.tactics.table.new_table`) kept between calls: the
    second holds the searches with the mover passing, whose boards have the other player
    to move. `pv` is room for a proof, `sc` the scratch (`pipeline.tactics.scratch`) made
    for this game and at least `max_depth`."""
    kind = s[KIND]
    if mode == TACTICS_OFF or (kind != GOMOKU and kind != CONNECT6) or s[WINNER] >= 0:
        return OPEN, -1
    budget = np.int64(budget)
    max_depth = np.int64(max_depth)
    cells = s[HEIGHT] * s[WIDTH]
    marks = sc.flags[MARKS]
    if kind == GOMOKU:
        # One scan of the board for both solver calls and the threat check.
        gomoku_scan(s, sc.ints[SCAN], sc.flags[WINS : WINS + 2], sc.flags[FOURS : FOURS + 2])
        if mode == TACTICS_VCT:
            found, _, _ = gomoku_solve_scanned(s, budget, max_depth, np.int64(1), SALT_VCT, table, pv, sc)
        else:
            found, _, _ = gomoku_solve_scanned(s, budget, max_depth, np.int64(0), SALT_VCF, table, pv, sc)
        if found == 1:
            return WIN, pv[0]
        # The opponent's winning cells: the block, or a loss when there are two.
        them = 1 - s[TO_MOVE]
        threats = sc.ints[SCAN, 2 * them + SCAN_WINS]
        for a in range(cells):
            marks[a] = sc.flags[WINS + them, a]
        need = 0 if threats == 0 else (1 if threats == 1 else LOST)
    else:
        found, _, _ = c6_solve(s, budget, max_depth, table, pv, sc)
        if found == 1:
            return WIN, pv[0]
        need = threat_defences_into(s, marks, sc.level[0, A_KEYS], sc.level[0, A_E0], sc.level[0, A_E1])
    if need == LOST:
        if wins_at_once(s, sc):
            return OPEN, -1  # the solver's budget ran out before the obvious: keep every move
        return LOSS, -1
    if need > 0:
        for a in range(cells):
            mask[a] = mask[a] and marks[a]
        return OPEN, -1
    if kind != GOMOKU:
        return OPEN, -1
    passed = sc.states[PASSED]
    null_move(s, passed)
    # The same board with the other player to move: the scan still holds.
    found, pv_len, _ = gomoku_solve_scanned(passed, budget, max_depth, np.int64(0), SALT_VCF, null_table, pv, sc)
    if found != 1:
        return OPEN, -1
    if refute_threat(s, mask, budget, max_depth, table, pv, pv_len, sc) == 0:
        return LOSS, -1
    return OPEN, -1


@njit(cache=True, nogil=True)
def tactical_verdict(s, mask, mode, budget, max_depth, table, null_table, pv):
    """`tactical_verdict_into` with a scratch of its own (made per call: for one-off
    questions; the tree keeps one)."""
    return tactical_verdict_into(
        s, mask, mode, budget, max_depth, table, null_table, pv, scratch_for(s, max(np.int64(max_depth), 1))
    )
