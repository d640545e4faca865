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
a win that is not one; a budget that runs out only leaves moves in, never claims.

Cost: most leaves hold no threat at all, so the verdict is made cheap where it finds
nothing. In Gomoku one scan of the board's windows (`gomoku_scan`) serves both solver
calls (the mover's, and the opponent's with the mover passing: the same board) and the
threat check; a side with no window of k - 2 stones has nothing to search. The moves off
the opponent's proof are checked in one replay of it for all of them
(`proofs_surviving`). The arrays live in a scratch made once (`pipeline.tactics.lines.scratch`;
`tactical_verdict_into`), and the verdicts, masks and tables are those of the plain path,
call for call (tests/unit/test_verdict_reference.py)."""

import numpy as np
from numba import njit

from pipeline.games.connect6 import mark_windows, stones_left_in_turn
from pipeline.games.gomoku import DIR_C, DIR_R, exact_for, makes_line, run_length
from pipeline.games.kernels import apply_unchecked, winning_moves
from pipeline.games.layout import (
    BOARD,
    CONNECT6,
    GOMOKU,
    HEIGHT,
    KIND,
    PLY,
    STONES,
    TO_MOVE,
    WIDTH,
    WIN_LENGTH,
    WINNER,
)
from pipeline.tactics.lines.c6_search import c6_solve, opponent_vcf_into
from pipeline.tactics.lines.c6_vct import c6_vct
from pipeline.tactics.lines.gomoku_vcf import gomoku_solve_scanned
from pipeline.tactics.lines.scratch import (
    CANDIDATE,
    HOT,
    LOCAL_CELLS,
    MARKS,
    PASSED,
    PROBE,
    PROBE_LINE,
    PROOF,
    SCAN,
    SCAN_FOUR_WINDOWS,
    SCAN_WINS,
    SURVIVE,
    WIN_DIRS,
    WINDOW_EMPTY0,
    WINDOW_EMPTY1,
    WINDOW_KEYS,
    WINS,
    scratch_for,
)
from pipeline.tactics.lines.table import SALT_VCF, SALT_VCT
from pipeline.tactics.lines.threats import (
    LOST,
    four_moves_into,
    gomoku_scan,
    illegal_for,
    line_wins,
    mark_window_cells,
    null_move,
    ray,
    restricted,
    threat_defences_into,
)
from pipeline.tactics.lines.vcf import vcf_into

TACTICS_OFF = 0
TACTICS_VCF = 1
TACTICS_VCT = 2
TACTICS_MODES = {"off": TACTICS_OFF, "vcf": TACTICS_VCF, "vct": TACTICS_VCT}
# A bit added to the mode (Gomoku): the moves that could refute the opponent's VCF (the
# cells of its proof, our own fours) are kept as children without solving each again
# here; each is judged by its child's own verdict when the tree expands it (the same
# solver call on the same position), so only the children the tree visits pay for it.
TACTICS_DEFER = 4
TACTICS_BASE = 3

OPEN = 0  # nothing proven (the mask may still have been narrowed to defences)
WIN = 1  # the player to move wins: through the returned action
LOSS = -1  # the player to move loses whatever it plays


@njit(cache=True, nogil=True)
def wins_at_once(s, sc):
    """Can the player to move complete a line with the stones it has left this turn?
    (Gomoku: read from the scan in `sc`, which must be of this board.)"""
    if s[KIND] == CONNECT6:
        return mark_windows(s, s[TO_MOVE], 6 - stones_left_in_turn(s[PLY]), sc.flags[LOCAL_CELLS]) > 0
    return sc.ints[SCAN, 2 * s[TO_MOVE] + SCAN_WINS] > 0


@njit(cache=True, nogil=True)
def proof_survives(s, stone, pv, pv_len, work, scratch, wins):
    """Does the opponent's proof pv[:pv_len] (found with the mover passing) still win once
    the mover has put a stone on `stone`, a cell off the proof? `work` is scratch state,
    `scratch` int64 [8k + 8], `wins` bool [cells] (renju)."""
    me = s[TO_MOVE]
    own = me + 1
    cells = s[HEIGHT] * s[WIDTH]
    work[:] = s
    apply_unchecked(work, stone)
    if work[WINNER] >= 0 or line_wins(work, stone, own, scratch, 0) > 0:
        return False  # the stone won, or made a four: the proof must be searched again
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
def _win_dirs(x, own, dirs, hot):
    """dirs[e] = the lines (bit d for DIR_R/DIR_C[d]) along which a stone of `own` on the
    empty cell e of the board `x` would complete a line by the rules (0: no win there),
    and `hot` the cells where a stone of `own` could have a winning cell through it
    (`_wins_through` is false elsewhere): the empty cells of windows of k holding k - 2
    or k - 1 of its stones and none of the other's (a new winning cell joins the stone
    in such a window; a winning cell lies in one), and the cells on a line within k of
    a winning cell."""
    h = x[HEIGHT]
    w = x[WIDTH]
    cells = h * w
    k = x[WIN_LENGTH]
    exact = exact_for(x, own)
    hot[:cells] = False
    mark_window_cells(x, own, max(k - 2, 0), k - 1, k, hot)
    for e in range(cells):
        bits = 0
        if hot[e]:
            for d in range(4):
                run = run_length(x, e, own, DIR_R[d], DIR_C[d])
                if run == k or (run > k and not exact):
                    bits |= 1 << d
        dirs[e] = bits
    for e in range(cells):
        if dirs[e] == 0:
            continue
        row, col = divmod(e, x[WIDTH])
        for r in range(8):
            step, steps = ray(x, row, col, r)
            for i in range(1, steps + 1):
                hot[e + i * step] = True


@njit(cache=True, nogil=True)
def _wins_through(x, stone, own, dirs):
    """`line_wins(x + stone, stone, own, ...) > 0` for an empty `stone` of `x`, read from
    `dirs` (`_win_dirs` of x): a cell e on a line through the stone wins along the other
    lines as it did without the stone (they do not meet it), and along this line as
    before unless nothing but own stones lie between them, when the run is counted."""
    k = x[WIN_LENGTH]
    exact = exact_for(x, own)
    row, col = divmod(stone, x[WIDTH])
    for r in range(8):
        d = r >> 1
        step, steps = ray(x, row, col, r)
        joined = True  # only own stones so far between the stone and this cell
        for i in range(1, steps + 1):
            e = stone + i * step
            v = x[BOARD + e]
            if v == own:
                continue
            if v != 0:
                joined = False
                continue
            if dirs[e] & ~(1 << d):
                return True
            if joined:
                x[BOARD + stone] = own
                run = run_length(x, e, own, DIR_R[d], DIR_C[d])
                x[BOARD + stone] = 0
                if run == k or (run > k and not exact):
                    return True
            elif dirs[e] & (1 << d):
                return True
            joined = False
    return False


@njit(cache=True, nogil=True)
def proofs_surviving(s, pv, pv_len, moves, survive, x, dirs, hot, scratch):
    """survive[a] = proof_survives(s, a, pv, pv_len, ...) for every cell with moves[a],
    found in one replay of the proof instead of one per move: at each of the mover's
    replies in it, one sweep of the board (`_win_dirs`) answers "a winning cell of ours
    through the extra stone" for every stone at once (`_wins_through`), and the reply
    itself wins only with a stone on its lines. Where the proof does not replay as the
    solver returns proofs (its attacker winning with its last move, no one before), each
    move is replayed on its own. `x` is a scratch state, `dirs` int64 [cells], `hot`
    bool [cells]."""
    cells = s[HEIGHT] * s[WIDTH]
    me = s[TO_MOVE]
    own = me + 1
    # The proof without a stone, as the solver found it (renju: each move alone, as a
    # stone can also change which cells are forbidden to black).
    null_move(s, x)
    plain = pv_len > 0 and not restricted(s, 0)
    for i in range(pv_len):
        if x[BOARD + pv[i]] != 0:
            plain = False
            break
        apply_unchecked(x, pv[i])
        if x[WINNER] >= 0 and (i < pv_len - 1 or x[WINNER] != 1 - me):
            plain = False
            break
    if plain and x[WINNER] != 1 - me:
        plain = False
    # With the extra stone the board fills one move sooner: a draw before the proof ends.
    if plain and cells - s[STONES] - 2 <= pv_len - 2:
        for a in range(cells):
            survive[a] = False
        return
    if not plain:
        for a in range(cells):
            survive[a] = moves[a] and proof_survives(s, a, pv, pv_len, x, scratch, hot)
        return
    # The stone itself: a win or a winning cell through it.
    x[:] = s
    _win_dirs(x, own, dirs, hot)
    for a in range(cells):
        survive[a] = moves[a] and not (hot[a] and (makes_line(x, a, own) or _wins_through(x, a, own, dirs)))
    for i in range(pv_len):
        survive[pv[i]] = False  # a stone on the proof's own cells stops its replay
    null_move(s, x)
    for i in range(pv_len):
        m = pv[i]
        ours = x[TO_MOVE] == me
        if ours:
            # Our reply wins only with the stone on one of its lines.
            row, col = divmod(m, x[WIDTH])
            for r in range(8):
                step, steps = ray(x, row, col, r)
                for j in range(1, steps + 1):
                    a = m + j * step
                    if survive[a]:
                        x[BOARD + a] = own
                        if makes_line(x, m, own):
                            survive[a] = False
                        x[BOARD + a] = 0
        apply_unchecked(x, m)
        if ours:
            _win_dirs(x, own, dirs, hot)
            for a in range(cells):
                if survive[a] and hot[a] and _wins_through(x, a, own, dirs):
                    survive[a] = False


@njit(cache=True, nogil=True)
def refute_threat(s, mask, budget, max_depth, table, pv, pv_len, sc, resolve=True):
    """Narrow `mask` to the moves not refuted by a proof of the opponent's win; return how
    many remain. `pv[:pv_len]` is the opponent's proof with the mover passing (not in
    the scratch's arrays, which this uses). Without `resolve` the moves that could refute
    it (the proof's cells, our fours) are all kept unsolved."""
    cells = s[HEIGHT] * s[WIDTH]
    me = s[TO_MOVE]
    candidate = sc.flags[CANDIDATE]
    work = sc.states[PROBE]
    four_moves_into(s, me, candidate, work, sc.flags[MARKS], sc.ints[PROBE_LINE])
    for i in range(pv_len):
        candidate[pv[i]] = True
    # The moves off the proof: replayed all at once (no table involved, so first).
    replayed = sc.flags[MARKS]
    for a in range(cells):
        replayed[a] = mask[a] and not candidate[a]
    survive = sc.flags[SURVIVE]
    proofs_surviving(s, pv, pv_len, replayed, survive, work, sc.ints[WIN_DIRS], sc.flags[HOT], sc.ints[PROBE_LINE])
    kept = 0
    for a in range(cells):
        if not mask[a]:
            continue
        if candidate[a] and not resolve:
            refuted = False
        elif candidate[a]:
            work[:] = s
            apply_unchecked(work, a)
            refuted = work[WINNER] < 0 and vcf_into(work, budget, max_depth, table, sc.ints[PROOF], sc)[0] == 1
        else:
            refuted = survive[a]
        if refuted:
            mask[a] = False
        else:
            kept += 1
    return kept


@njit(cache=True, nogil=True)
def c6_own_threat_cells(s, zone):
    """Connect6: add to `zone` the empty cells where the mover makes a threat of its own
    with the stones it has left in its turn (six-windows with at least 4 - left of its
    stones and none of the opponent's), which the attacker must answer before its proof
    goes on."""
    mark_windows(s, s[TO_MOVE], 4 - stones_left_in_turn(s[PLY]), zone)


@njit(cache=True, nogil=True)
def tactical_verdict_into(s, mask, mode, budget, max_depth, table, null_table, pv, sc):
    """The solvers' verdict on the position `s` for the player to move (OPEN, WIN or
    LOSS) and, for WIN, the move that starts the proof. `mask` (the legal moves) is
    narrowed to the defences when the opponent threatens. `table` and `null_table` are
    transposition tables (`pipeline.tactics.lines.table.new_table`) kept between calls: the
    second holds the searches with the mover passing, whose boards have the other player
    to move. `pv` is room for a proof, `sc` the scratch (`pipeline.tactics.lines.scratch`) made
    for this game and at least `max_depth`."""
    kind = s[KIND]
    resolve = (mode & TACTICS_DEFER) == 0
    mode = mode & TACTICS_BASE
    if mode == TACTICS_OFF or (kind != GOMOKU and kind != CONNECT6) or s[WINNER] >= 0:
        return OPEN, -1
    budget = np.int64(budget)
    max_depth = np.int64(max_depth)
    cells = s[HEIGHT] * s[WIDTH]
    marks = sc.flags[MARKS]
    if kind == GOMOKU:
        # One scan of the board for both solver calls and the threat check.
        gomoku_scan(s, sc.ints[SCAN], sc.flags[WINS : WINS + 2], sc.ints[SCAN_FOUR_WINDOWS : SCAN_FOUR_WINDOWS + 2])
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
        if need == 1 and restricted(s, 1 - them):
            for a in range(cells):
                if marks[a] and illegal_for(s, 1 - them, a):
                    need = LOST  # renju: the only block is forbidden to black
    else:
        if mode == TACTICS_VCT:
            found, _, _ = c6_vct(s, budget, max_depth, table, pv, sc)
        else:
            found, _, _ = c6_solve(s, budget, max_depth, table, pv, sc)
        if found == 1:
            return WIN, pv[0]
        need = threat_defences_into(
            s, marks, sc.level[0, WINDOW_KEYS], sc.level[0, WINDOW_EMPTY0], sc.level[0, WINDOW_EMPTY1]
        )
    if need == LOST:
        if wins_at_once(s, sc):
            return OPEN, -1  # the solver's budget ran out before the obvious: keep every move
        return LOSS, -1
    if need > 0:
        for a in range(cells):
            mask[a] = mask[a] and marks[a]
        return OPEN, -1
    passed = sc.states[PASSED]
    if kind != GOMOKU:
        # The opponent's VCF with the rest of our turn passed: the children are the cells
        # of its whole proof tree (a turn with no stone there leaves every line of it
        # standing) and those of our own threats; the tree judges each after our turn.
        # With `vct` too: the opponent's VCT is seen in each child's own verdict (its win
        # there), never used to narrow here. Its zone left out the mover's slower counters
        # (threes of its own, which a VCT's single threats leave time for), and narrowed to
        # it the shipped net scored 31-46-3 against itself without (issue 79).
        zone = sc.flags[MARKS]
        found, _, _ = opponent_vcf_into(s, budget, max_depth, null_table, pv, zone, sc)
        if found == 1:
            c6_own_threat_cells(s, zone)
            kept = 0
            for a in range(cells):
                if mask[a] and zone[a]:
                    kept += 1
            if kept > 0:
                for a in range(cells):
                    mask[a] = mask[a] and zone[a]
        return OPEN, -1
    null_move(s, passed)
    # The same board with the other player to move: the scan still holds.
    found, pv_len, _ = gomoku_solve_scanned(passed, budget, max_depth, np.int64(0), SALT_VCF, null_table, pv, sc)
    if found != 1:
        return OPEN, -1
    if refute_threat(s, mask, budget, max_depth, table, pv, pv_len, sc, resolve) == 0:
        return LOSS, -1
    return OPEN, -1


@njit(cache=True, nogil=True)
def tactical_verdict(s, mask, mode, budget, max_depth, table, null_table, pv):
    """`tactical_verdict_into` with a scratch of its own (made per call: for one-off
    questions; the tree keeps one)."""
    return tactical_verdict_into(
        s, mask, mode, budget, max_depth, table, null_table, pv, scratch_for(s, max(np.int64(max_depth), 1))
    )
