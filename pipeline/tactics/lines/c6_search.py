"""Connect6 threat-space search (after Wu & Huang): victory by continuous double threats.

Threats are counted per window of six: a window holding four or more of the attacker's
stones and none of the defender's is a threat, and the threats a position holds are the
fewest defender stones that hit every such window (two: a double threat; three or more:
the defender cannot stop them). The attacker's turn must hit all the defender's threat
windows and leave at least two threats of its own; three or more win; with exactly two,
every pair of defender stones that hits all of them (the minimal hitting sets of the
windows' empty cells, at most four pairs) is searched (an AND node). Single threats are
not played: they leave the defender a free stone, which this search does not model. A
defender stone that makes a threat of its own is answered soundly: the attacker's next
turn must hit it, and a defender who holds more threats than the attacker has stones
wins first (the line fails).

The turns come from the line tables (`c6_tables`, `c6_turns.c6_generate`), best first.
The defender's replies are searched the likeliest refutation first (the pair that takes
the most from the attacker's live windows), so a failing turn usually fails at its first
reply. The transposition table holds fully searched failures (as `table`) and proven wins
with their turn (under the key ^ SALT_WON): a win found again is not searched again,
except on the proof line, where its turn is tried first to write the line; a turn one of
whose replies leads to a known failure is refuted before it is played. A node is an
attacker turn played (the turns the table refutes are not); iterative deepening over the
turns allowed, a depth of d proving wins of up to d + 1 turns (the last the six).
tests/tactics/reference_pairs.py keeps the search this replaced (every pair of candidate
cells a node) as the reference the tests compare with.

The opponent's side (`opponent_vcf_into`): for a position where the player to move
defends, the VCF the other side would have if it could move now, and the cells of its
whole proof tree, where every refutation of it that is not a counter-threat must land.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from pipeline.games.connect6 import stones_left_in_turn
from pipeline.games.layout import BOARD, CONNECT6, HEIGHT, KIND, ONGOING, PLY, TO_MOVE, WIDTH, WINNER
from pipeline.tactics.lines.c6_tables import (
    WINDOW,
    c6_defender_threats,
    c6_empties,
    c6_put,
    c6_setup,
    c6_tables,
    c6_threats,
)
from pipeline.tactics.lines.c6_turns import TURN_MASK, c6_generate, turn_code
from pipeline.tactics.lines.scratch import (
    BUDGET,
    C6_DEFENDER_EMPTY0,
    C6_DEFENDER_EMPTY1,
    C6_HEADER,
    C6_N_EMPTY,
    C6_N_WINDOWS,
    C6_ROOT_FOURS,
    C6_STONES,
    C6_THREAT_EMPTY0,
    C6_THREAT_EMPTY1,
    C6_WIN_DEPTHS,
    C6_WINDOWS_THROUGH,
    CTX,
    CTX_SLOTS,
    CUT,
    DEFENDER_WINS,
    NODES,
    OVERFLOW,
    PASSED,
    PV_LEN,
    REPLY_PAIR_A,
    REPLY_PAIR_B,
    ROOT_TURNS,
    SEEN,
    SORT_KEYS,
    TURN_CAP,
    WORK,
    check_room,
    scratch_for,
)
from pipeline.tactics.lines.table import EXACT, SALT_C6, ZOBRIST, board_key, known_failure, store_failed
from pipeline.tactics.lines.threats import hitting_number, hitting_pairs, last_stones, null_move, shown_reply

C6_SALTS = np.array(  # the attacker (row) and the stones it has left at the root (column)
    [[0x0B5A3C9D2E7F4061, 0x1C6B4DAE3F807152], [0x2D7C5EBF40918263, 0x3E8D6FC051A29374]], dtype=np.int64
)
SALT_WON = np.int64(0x4F9E70D162B3A485)  # table entries of proven wins


class C6Node(NamedTuple):
    """An attacker node of `c6_node`. Every field is an int64 (numba's cache mis-links a
    recursive function called with other types, numba issue #6713)."""

    depth: int  # threat turns still allowed
    pos: int  # where this node's stones go in the proof line
    key: int  # the position's table key
    root: int  # 1 at the root: the whole board is read for windows to fill
    left: int  # the attacker's stones this turn (2 except at a mid-turn root)
    d1: int  # the defender's stones that led here (-1 at the root: the board is read whole)
    d2: int
    need_pv: int  # 1: write the proof line (a win the table knows is searched again)
    last0: int  # the attacker's last turn (-1: none known)
    last1: int
    zone: int  # 1: a triple threat here must use a window through the last turn


@njit(cache=True, nogil=True)
def _show_win(w, sc, atk, c1, c2, nr, pos, pv, ctx):
    """The proof line of a turn leaving three threats or more: the turn, a defender pair
    (a cell of the first threat and one of a threat it misses) and the completion of a
    threat that pair misses. Returns 1, or 0 when the line does not fit in `pv`."""
    n, _ = c6_threats(w, sc, atk, c1, c2, nr)
    e0 = sc.c6[C6_THREAT_EMPTY0]
    e1 = sc.c6[C6_THREAT_EMPTY1]
    off = 2 if c2 >= 0 else 1
    if pos + off + 4 > pv.shape[0]:
        return 0
    d1, d2 = shown_reply(e0, e1, n)
    for i in range(n):
        if e0[i] != d1 and e0[i] != d2 and e1[i] != d1 and e1[i] != d2:
            pv[pos] = c1
            if c2 >= 0:
                pv[pos + 1] = c2
            pv[pos + off] = d1
            pv[pos + off + 1] = d2
            pv[pos + off + 2] = e0[i]
            ctx[PV_LEN] = pos + off + 3
            if e1[i] >= 0:
                pv[pos + off + 3] = e1[i]
                ctx[PV_LEN] = pos + off + 4
            return 1
    return 0


@njit(cache=True, nogil=True)
def _store_won(table, key, depth, c1, c2):
    k = key ^ SALT_WON
    slot = k & (table.shape[0] - 1)
    table[slot, 0] = k
    table[slot, 1] = depth | ((c1 + 1) << 8) | ((c2 + 1) << 18)


@njit(cache=True, nogil=True)
def _probe_won(table, key, depth):
    """A win proven here within `depth` turns: (True, its turn), else (False, -1, -1)."""
    k = key ^ SALT_WON
    slot = k & (table.shape[0] - 1)
    if table[slot, 0] != k:
        return False, -1, -1
    v = table[slot, 1]
    if (v & 255) > depth:
        return False, -1, -1
    return True, ((v >> 8) & 1023) - 1, ((v >> 18) & 1023) - 1


@njit(cache=True, nogil=True)
def _order_replies(sc, atk, npairs, pa, pb):
    """The defender's replies (pa/pb[:npairs], on the board after the attacker's turn),
    the likeliest refutation first: by what the pair takes from the attacker's live windows
    (a window of three counting three, of two one) and adds to the defender's own (its
    stones there). A failing turn then fails at its first reply more often, before wins
    are proven for the others (-16% nodes on tests/tactics/connect6_vcf.txt)."""
    c6 = sc.c6
    own = c6[C6_STONES + atk]
    other = c6[C6_STONES + 1 - atk]
    keys = sc.ints[SORT_KEYS]
    for q in range(npairs):
        a = pa[q]
        b = pb[q]
        score = 0
        for x in (a, b):
            for k in range(c6[C6_WINDOWS_THROUGH, x]):
                wi = sc.cwins[x, k]
                if other[wi] == 0 and own[wi] >= 2:
                    score += 3 if own[wi] >= 3 else 1
                if own[wi] == 0 and other[wi] >= 2:
                    score += other[wi]
        keys[q] = score
    for q in range(1, npairs):
        u = q
        while u > 0 and keys[u - 1] < keys[u]:
            keys[u - 1], keys[u] = keys[u], keys[u - 1]
            pa[u - 1], pa[u] = pa[u], pa[u - 1]
            pb[u - 1], pb[u] = pb[u], pb[u - 1]
            u -= 1


@njit(cache=True, nogil=True)
def _root_windows(w, sc, atk, left, pos, pv, ctx):
    """At the root: a window to fill with the stones left (only the root can have one),
    and the attacker's windows of four standing mid-turn (into C6_ROOT_FOURS). Returns
    (1, 0) when the line to fill one is written at pv[pos], (0, 0) when it does not fit,
    else (-1, windows of four)."""
    c6 = sc.c6
    own = c6[C6_STONES + atk]
    other = c6[C6_STONES + 1 - atk]
    nr = 0
    for wi in range(c6[C6_HEADER, C6_N_WINDOWS]):
        if other[wi] != 0 or own[wi] < 4:
            continue
        if own[wi] >= 6 - left:
            e0, e1 = c6_empties(w, sc, wi, -1, -1)
            if pos + 2 > pv.shape[0]:
                return 0, 0
            pv[pos] = e0
            ctx[PV_LEN] = pos + 1
            if e1 >= 0:
                pv[pos + 1] = e1
                ctx[PV_LEN] = pos + 2
            return 1, 0
        if nr < 64:
            c6[C6_ROOT_FOURS, nr] = wi
            nr += 1
    return -1, nr


@njit(cache=True, nogil=True, inline="always")
def _move_to_front(turns, n, won, h1, h2):
    """First the table's winning turn h1, h2 (`won`: its proof line is wanted), else the
    turn that won last at this depth (kept in the row's last entry: after another
    defender reply it often wins again)."""
    for t in range(n):
        v = turns[t] & TURN_MASK
        if (won and v == turn_code(h1, h2)) or (not won and v == turns[TURN_CAP - 1]):
            v = turns[t]
            for u in range(t, 0, -1):
                turns[u] = turns[u - 1]
            turns[0] = v
            return


@njit(cache=True, nogil=True, inline="always")
def _refuted_by_table(table, ckey, dval, pa, pb, npairs, depth, ctx):
    """Does a defender reply lead to a failure the table knows (the turn is then refuted
    before it is played, and not counted as a node: nothing is searched)?"""
    for q in range(npairs):
        if known_failure(table, ckey ^ ZOBRIST[dval, pa[q]] ^ ZOBRIST[dval, pb[q]], depth, ctx):
            return True
    return False


@njit(cache=True, nogil=True)
def c6_node(sc, table, pv, atk, node):
    """Attacker node of the Connect6 search (`C6Node`): `atk` to move on the scratch's
    WORK state with `node.left` stones this turn, `node.depth` more threat turns allowed.
    With `node.need_pv` the proof line is written from pv[node.pos]. Returns 1 win, 0
    none, -1 budget spent. Table: failures as `table.store_failed` (fully searched to
    `depth`), wins under the key ^ SALT_WON with their turn."""
    w = sc.states[WORK]
    ctx = sc.ints[CTX]
    c6 = sc.c6
    depth = node.depth
    pos = node.pos
    key = node.key
    left = node.left
    nr = 0
    if node.root != 0:
        r, nr = _root_windows(w, sc, atk, left, pos, pv, ctx)
        if r >= 0:
            return r
    if depth <= 0 or pos + 10 > pv.shape[0]:
        ctx[CUT] += 1
        return 0
    if known_failure(table, key, depth, ctx):
        return 0
    cut_before = ctx[CUT]
    won, h1, h2 = _probe_won(table, key, depth)
    if won and node.need_pv == 0:
        return 1
    nd = c6_defender_threats(w, sc, atk, node.d1, node.d2)
    hd = hitting_number(c6[C6_DEFENDER_EMPTY0], c6[C6_DEFENDER_EMPTY1], nd, sc.flags[SEEN]) if nd > 0 else 0
    if hd > left:
        store_failed(table, key, EXACT)  # the defender wins first, at any depth
        return 0
    need = 3 if depth <= 1 else 2
    ctx[OVERFLOW] = 0
    n, w1, w2 = c6_generate(sc, atk, node, nr, hd, nd, need)
    complete = ctx[OVERFLOW] == 0
    if node.root != 0:
        ctx[ROOT_TURNS] = n if w1 < 0 else 1
    if w1 >= 0:
        if ctx[NODES] >= ctx[BUDGET]:
            return -1
        ctx[NODES] += 1
        if _show_win(w, sc, atk, w1, w2, nr, pos, pv, ctx) == 1:
            _store_won(table, key, 1, w1, w2)
            return 1
        ctx[CUT] += 1  # no failure is stored here: not one to call exact either
        return 0
    if need == 3 or not complete:
        ctx[CUT] += 1  # the last turn the depth allows looks for a win alone; a full row drops turns
    if need == 3 or n == 0:
        if complete:
            store_failed(table, key, EXACT if ctx[CUT] == cut_before else depth)
        return 0
    turns = sc.turns[depth]
    _move_to_front(turns, n, won, h1, h2)
    pa = sc.level[depth, REPLY_PAIR_A]
    pb = sc.level[depth, REPLY_PAIR_B]
    aval = atk + 1
    dval = 2 - atk
    off = 2 if left == 2 else 1
    zone_next = np.int64(1 if hd == 0 and left == 2 else 0)
    for t in range(n):
        v = turns[t] & TURN_MASK
        c1 = v >> 10
        c2 = (v & 1023) - 1
        nthr, _ = c6_threats(w, sc, atk, c1, c2, nr)
        npairs = hitting_pairs(c6[C6_THREAT_EMPTY0], c6[C6_THREAT_EMPTY1], nthr, pa, pb)
        if npairs == 0 or c6[C6_HEADER, C6_N_EMPTY] - off < 2:
            continue
        ckey = key ^ ZOBRIST[aval, c1]
        if c2 >= 0:
            ckey ^= ZOBRIST[aval, c2]
        if node.root != 0:
            ckey ^= C6_SALTS[atk, left - 1] ^ C6_SALTS[atk, 1]  # below: two stones a turn
        if _refuted_by_table(table, ckey, dval, pa, pb, npairs, depth - 1, ctx):
            continue
        if ctx[NODES] >= ctx[BUDGET]:
            return -1
        ctx[NODES] += 1
        c6_put(w, sc, atk, c1, aval, 1)
        if c2 >= 0:
            c6_put(w, sc, atk, c2, aval, 1)
        if npairs > 1:
            _order_replies(sc, atk, npairs, pa, pb)
        r = 1
        for q in range(npairs):
            a = pa[q]
            b = pb[q]
            c6_put(w, sc, atk, a, dval, 1)
            c6_put(w, sc, atk, b, dval, 1)
            need_pv = node.need_pv if q == npairs - 1 else np.int64(0)
            child = C6Node(
                depth - 1,
                pos + off + 2,
                ckey ^ ZOBRIST[dval, a] ^ ZOBRIST[dval, b],
                np.int64(0),
                np.int64(2),
                a,
                b,
                need_pv,
                c1,
                c2,
                zone_next,
            )
            r = c6_node(sc, table, pv, atk, child)
            c6_put(w, sc, atk, b, dval, -1)
            c6_put(w, sc, atk, a, dval, -1)
            if r != 1:
                break
            pv[pos + off] = a  # the proof line follows the last reply
            pv[pos + off + 1] = b
        if c2 >= 0:
            c6_put(w, sc, atk, c2, aval, -1)
        c6_put(w, sc, atk, c1, aval, -1)
        if r == 1:
            pv[pos] = c1
            if c2 >= 0:
                pv[pos + 1] = c2
            _store_won(table, key, depth, c1, c2)
            turns[TURN_CAP - 1] = v
            c6[C6_WIN_DEPTHS, c1] += depth
            if c2 >= 0:
                c6[C6_WIN_DEPTHS, c2] += depth
            return 1
        if r < 0:
            return -1
    if complete:
        store_failed(table, key, EXACT if ctx[CUT] == cut_before else depth)
    return 0


@njit(cache=True, nogil=True)
def c6_start(s, budget, max_depth, sc):
    """Set up a Connect6 search of `s` (the player to move attacking) in the scratch:
    returns (attacker, the root's C6Node to search to `max_depth`)."""
    check_room(s, max_depth, sc)
    ctx = sc.ints[CTX]
    ctx[:CTX_SLOTS] = 0
    ctx[BUDGET] = budget
    w = sc.states[WORK]
    w[:] = s
    atk = np.int64(w[TO_MOVE])  # int64 throughout: see C6Node
    left = np.int64(stones_left_in_turn(w[PLY]))
    c6_tables(sc, w[HEIGHT], w[WIDTH])
    c6_setup(w, atk, sc)
    sc.c6[C6_WIN_DEPTHS, : w[HEIGHT] * w[WIDTH]] = 0
    sc.turns[: max_depth + 1, TURN_CAP - 1] = -1  # no winning turn yet at any depth
    last0, last1 = last_stones(w, atk)  # the attacker's latest stones: its next threats are near
    key = np.int64(board_key(w) ^ SALT_C6 ^ C6_SALTS[atk, left - 1])
    minus = np.int64(-1)
    one = np.int64(1)
    root = C6Node(np.int64(max_depth), np.int64(0), key, one, left, minus, minus, one, last0, last1, np.int64(0))
    return atk, root


@njit(cache=True, nogil=True)
def c6_solve(s, budget, max_depth, table, pv, sc):
    """Connect6 threat-space search for the player to move (see the module notes), by
    iterative deepening over `c6_node`: (result, pv_len, nodes) as `vcf.vcf`, a node being
    an attacker turn played."""
    if s[WINNER] != ONGOING:
        sc.ints[CTX, :CTX_SLOTS] = 0
        return 0, 0, 0
    atk, root = c6_start(s, budget, max_depth, sc)
    ctx = sc.ints[CTX]
    for depth in range(1, max_depth + 1):
        ctx[ROOT_TURNS] = -1
        cut_before = ctx[CUT]
        node = C6Node(
            np.int64(depth),
            root.pos,
            root.key,
            root.root,
            root.left,
            root.d1,
            root.d2,
            root.need_pv,
            root.last0,
            root.last1,
            root.zone,
        )
        r = c6_node(sc, table, pv, atk, node)
        if r == 1:
            return 1, ctx[PV_LEN], ctx[NODES]
        if r < 0 or ctx[CUT] == cut_before:
            break  # the budget spent, or a failure that held at every depth (stored EXACT)
        if depth >= 2 and ctx[ROOT_TURNS] == 0:
            # The root has no double threat: each further round would find none again and
            # store its failure one depth deeper, which comes to this one store.
            store_failed(table, root.key, max_depth)
            break
    return 0, 0, ctx[NODES]


@njit(cache=True, nogil=True)
def _mark_proof(sc, table, pv, atk, node, cells):
    """Mark in `cells` the proof tree of the win the table holds for this attacker node
    (searching it again where the table lost it): each attacker turn's stones and the
    empty cells of its threat windows, under every defender reply. `node` is searched as
    an inner node, writing no proof line. Returns 1, or 0 when a win could not be found
    again (budget or table)."""
    w = sc.states[WORK]
    c6 = sc.c6
    depth = node.depth
    if node.left == 2 and node.d1 < 0:
        # The root: a window to fill now is the whole proof.
        own = c6[C6_STONES + atk]
        other = c6[C6_STONES + 1 - atk]
        for wi in range(c6[C6_HEADER, C6_N_WINDOWS]):
            if other[wi] == 0 and own[wi] >= 4:
                for j in range(WINDOW):
                    cells[sc.wcells[wi, j]] = True
                return 1
    won, c1, c2 = _probe_won(table, node.key, depth)
    if not won:
        if c6_node(sc, table, pv, atk, node) != 1:
            return 0
        won, c1, c2 = _probe_won(table, node.key, depth)
        if not won:
            return 0
    cells[c1] = True
    if c2 >= 0:
        cells[c2] = True
    n, _ = c6_threats(w, sc, atk, c1, c2, np.int64(0))
    e0 = c6[C6_THREAT_EMPTY0]
    e1 = c6[C6_THREAT_EMPTY1]
    for i in range(n):
        cells[e0[i]] = True
        if e1[i] >= 0:
            cells[e1[i]] = True
    hn = hitting_number(e0, e1, n, sc.flags[SEEN])
    if hn >= 3:
        return 1
    pa = sc.level[depth, REPLY_PAIR_A]
    pb = sc.level[depth, REPLY_PAIR_B]
    npairs = hitting_pairs(e0, e1, n, pa, pb)
    aval = atk + 1
    dval = 2 - atk
    c6_put(w, sc, atk, c1, aval, 1)
    ckey = node.key ^ ZOBRIST[aval, c1]
    if c2 >= 0:
        c6_put(w, sc, atk, c2, aval, 1)
        ckey ^= ZOBRIST[aval, c2]
    ok = 1
    zero = np.int64(0)
    for q in range(npairs):
        a = pa[q]
        b = pb[q]
        c6_put(w, sc, atk, a, dval, 1)
        c6_put(w, sc, atk, b, dval, 1)
        child = C6Node(
            depth - 1,
            zero,
            ckey ^ ZOBRIST[dval, a] ^ ZOBRIST[dval, b],
            zero,
            np.int64(2),
            a,
            b,
            zero,
            c1,
            c2,
            np.int64(1),
        )
        ok = _mark_proof(sc, table, pv, atk, child, cells)
        c6_put(w, sc, atk, b, dval, -1)
        c6_put(w, sc, atk, a, dval, -1)
        if ok != 1:
            break
    if c2 >= 0:
        c6_put(w, sc, atk, c2, aval, -1)
    c6_put(w, sc, atk, c1, aval, -1)
    return ok


@njit(cache=True, nogil=True)
def c6_solve_zone(s, budget, max_depth, table, pv, cells, sc):
    """`c6_solve` for the player to move in `s`, and on a win the cells of its whole proof
    tree in `cells` (bool [cells], cleared first): the stones of each attacker turn and
    the empty cells of the threat windows each leaves, under every defender reply (where
    the replies, and the final six, go). A stone of the defender's off those cells leaves
    every turn of the tree playable and every threat of it standing, so it can refute the
    proof only by a threat of its own. Returns (found, pv_len, nodes) as `c6_solve`; on a
    failure nothing is marked. Allocates nothing."""
    cells_n = s[HEIGHT] * s[WIDTH]
    cells[:cells_n] = False
    found, pv_len, nodes = c6_solve(s, budget, max_depth, table, pv, sc)
    if found != 1:
        return 0, 0, nodes
    # The proof tree, read back from the table (the winning turn of every attacker node
    # the search proved), each node searched again only where the table lost it.
    line = sc.ints[DEFENDER_WINS]  # the line, kept while searches again write in pv
    line[:pv_len] = pv[:pv_len]
    atk, root = c6_start(s, budget, max_depth, sc)
    sc.ints[CTX, BUDGET] = max(budget, 1) * 4
    zero = np.int64(0)
    node = C6Node(root.depth, zero, root.key, zero, root.left, root.d1, root.d2, zero, root.last0, root.last1, zero)
    ok = _mark_proof(sc, table, pv, atk, node, cells)
    pv[:pv_len] = line[:pv_len]
    if ok != 1:
        # The tree could not be read back: every empty cell stays a candidate.
        for c in range(cells_n):
            cells[c] = s[BOARD + c] == 0
    return 1, pv_len, nodes


@njit(cache=True, nogil=True)
def opponent_vcf_into(s, budget, max_depth, table, pv, cells, sc):
    """The opponent's Connect6 VCF, for a position where the player to move defends:
    would the side *not* to move win by continuous double threats if it could move now
    (the mover passing the rest of its turn)? Returns (found, pv_len, nodes).

    found 1: pv[:pv_len] is the opponent's proof line from the passed position (as
    `vcf`), and `cells` (bool [cells], cleared first) marks its whole proof tree
    (`c6_solve_zone`). A turn of the mover with no stone on a marked cell leaves every
    turn of that tree playable and every threat of it standing, so it refutes the proof
    only by a threat of the mover's own (a window of four or more of its stones and none
    of the opponent's that the tree's turns then must, and do not, block): the
    refutations are among the turns with a stone on a marked cell and the turns that
    make such a threat. found 0: no VCF within `budget` nodes and `max_depth` turns
    (nothing marked). Allocates nothing (the scratch's rows, the passed position in its
    PASSED state); `table` is a transposition table for positions with the opponent to
    move (kept apart from the mover's, as the tree keeps its null-move table). Called
    from compiled code."""
    cells[: s[HEIGHT] * s[WIDTH]] = False
    if s[WINNER] != ONGOING or s[KIND] != CONNECT6:
        sc.ints[CTX, :CTX_SLOTS] = 0
        return 0, 0, 0
    passed = sc.states[PASSED]
    null_move(s, passed)
    return c6_solve_zone(passed, budget, max_depth, table, pv, cells, sc)


@njit(cache=True, nogil=True)
def opponent_vcf(s, budget, max_depth, table, pv, cells):
    """`opponent_vcf_into` with a scratch of its own (made per call)."""
    return opponent_vcf_into(s, budget, max_depth, table, pv, cells, scratch_for(s, max_depth))
