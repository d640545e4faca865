"""Connect6 victory by continuous threats (VCT): single threats and quiet stones that lead
to the double-threat search (`c6_search`, after Wu & Huang), the defender's free stone
restricted to a relevance zone.

An attacker node first asks the double-threat search (`c6_search.c6_solve_zone`), which
also marks the cells of its whole proof tree. Failing that, and with threat turns still
allowed (`levels`), it tries turns that leave threats the defender can stop with one stone
(a single threat: a window of four, and a quiet stone that builds toward the next) or two
(a double threat whose replies the VCT, not only the VCF, may then beat):

- against a single threat the defender blocks with one stone `b` (every cell that hits all
  the threat windows) and has one stone left, or spends both on blocks that together hit
  them all (every such pair). After `b`, the defender's free stone is first passed: the
  attacker must win from there (a proof and its zone Z). Then the free stone is tried on
  every cell of Z and on every cell where it makes a window of the defender's own (none of
  the attacker's stones) a threat (four stones), or, with threat turns still to come
  after this one, a three (the next free stone could make it a threat): the attacker must
  win after each. A stone anywhere else leaves every turn of the pass's proof playable and
  every threat of it standing.
- against a double threat, every pair of stones that hits all its windows.

The zone a proven node hands up is the union over its proof: the turn's stones, the
threat windows' empty cells, the blocks, and the zones and candidates of every reply, so
the node above can restrict its own free stone in turn.

Partial search, said plainly: the defender's free stone off the zone is judged by the zone
argument, which misses a stone that only later, with more of the defender's stones (its
forced blocks in the proof that follows), becomes part of a threat of its own (the
candidates cover the windows a stone makes a threat, and a three where threat turns
follow), as the double-threat search's own zone does (`c6_search.c6_solve_zone`); a
position where the defender has a threat is searched by the VCF alone; quiet turns that
make no threat at all are not tried; the attacker's threat turns are limited to the best
`TURNS_TRIED` by a static score (fewer for small budgets), and the quiet stone to the best
`QUIET_CELLS` cells. A failure says only that none was found. Every win is a tree of
proofs each of which the double-threat search found; `pipeline.tools.c6_vct_suite --verify`
plays every defender reply at a proof's first threat turn, and `tests/unit/test_c6_vct.py`
every pair of stones near the board's stones there.

A node is an attacker turn played, by this search or by the double-threat search it asks,
so the budget is comparable with the VCF's. The transposition table keeps the fully
searched failures and the wins of this search under their own salt, beside the VCF's
entries (one table serves both)."""

import numpy as np
from numba import njit

from pipeline.games.connect6 import stones_left_in_turn
from pipeline.games.kernels import apply_unchecked
from pipeline.games.layout import BOARD, HEIGHT, ONGOING, PLY, TO_MOVE, WIDTH, WINNER
from pipeline.tactics.lines.c6_search import c6_solve, c6_solve_zone
from pipeline.tactics.lines.c6_tables import WINDOW, c6_tables
from pipeline.tactics.lines.scratch import (
    C6_HEADER,
    C6_N_WINDOWS,
    C6_WINDOWS_THROUGH,
    VCT_LEVELS,
    VCT_TURNS,
)
from pipeline.tactics.lines.table import board_key, failed_depth, store_failed
from pipeline.tactics.lines.threats import hitting_number, hitting_pairs, null_move

LEVELS = VCT_LEVELS  # threat turns (single or double threats) before the double-threat search's proof
SMALL_BUDGET = 10_000  # ... one below this budget: the tree's expansions (200 nodes) and the
# root guard (5,000), which keeps the search at 0.66x the VCF's simulations/s (0.49x with two)
TURNS_TRIED = 20  # the attacker's threat turns tried at a node, best first, at most ...
NODES_A_TURN = 64  # ... and one for every this many nodes of the budget (at least 2): the
# tree's expansions (200 nodes) try 3
QUIET_CELLS = 8  # the quiet stones tried with each threat-making stone
MAX_TURNS = VCT_TURNS
VCF_DEPTH = 8  # the double-threat search's turns at most below a threat turn: deeper, its
# failures cost the nodes the threat turns need (the suite at 20,000 nodes: 91 found at 8,
# 87 at 12, 85 at 40)
SALT_C6_VCT = np.int64(0x5A1F3E7C9B2D4861)
SALT_C6_VCT_WON = np.int64(0x6B2E4F8DAC3E5972)
SALT_LEFT = np.int64(0x7C3F5A9EBD4F6A83)  # a mid-turn root (one stone left)

# Rows of a node's scratch (per level).
ST_TURN = 0  # after the attacker's turn
ST_BLOCK = 1  # after the defender's block (its free stone to come)
ST_PASS = 2  # ... with the free stone passed (the attacker to move)
ST_REPLY = 3  # after the defender's whole reply (the attacker to move)
ST_ROOT = 4  # the root's copy (top level only)
Z_TURN = 0  # the zone of the turn being proven
Z_CHILD = 1  # the zone a child hands up
Z_CAND = 2  # the defender's free-stone candidates
Z_MARK = 3  # hitting-number marks (not read)
Z_DROPPED = 4  # the zone `c6_vct` does not hand back (top level only)


@njit(cache=True, nogil=True)
def _count(s, sc, wi, av):
    """(attacker stones, defender stones) in window wi, the attacker's stone value av."""
    a = 0
    d = 0
    for i in range(WINDOW):
        v = s[BOARD + sc.wcells[wi, i]]
        if v == av:
            a += 1
        elif v != 0:
            d += 1
    return a, d


@njit(cache=True, nogil=True)
def _has_threat(s, sc, pv_):
    """Does the player of stone value pv_ hold a window of four or more and none of the other's?"""
    for wi in range(sc.c6[C6_HEADER, C6_N_WINDOWS]):
        a, d = _count(s, sc, wi, pv_)
        if a >= 4 and d == 0:
            return True
    return False


@njit(cache=True, nogil=True)
def _threats_through(s, sc, av, c1, c2, e0, e1):
    """The attacker's threat windows through the cells c1, c2 (c2 -1: one) of the board `s`
    (stones already on it): their empty cells into e0/e1. Returns how many."""
    n = 0
    for which in range(2):
        x = c1 if which == 0 else c2
        if x < 0:
            continue
        for k in range(sc.c6[C6_WINDOWS_THROUGH, x]):
            wi = sc.cwins[x, k]
            if which == 1 and c1 >= 0:
                seen = False
                for j in range(sc.c6[C6_WINDOWS_THROUGH, c1]):
                    if sc.cwins[c1, j] == wi:
                        seen = True
                if seen:
                    continue
            a, d = _count(s, sc, wi, av)
            if a >= 4 and d == 0:
                f0 = -1
                f1 = -1
                for i in range(WINDOW):
                    e = sc.wcells[wi, i]
                    if s[BOARD + e] == 0:
                        if f0 < 0:
                            f0 = e
                        else:
                            f1 = e
                e0[n] = f0
                e1[n] = f1
                n += 1
    return n


@njit(cache=True, nogil=True)
def _cell_scores(s, sc, av, quiet, threat_cells):
    """quiet[c]: how much a stone of the attacker on the empty cell c builds (its open
    windows through c, weighted by the stones they hold); threat_cells[c]: a stone there
    makes a window of four (one of three stones and none of the defender's)."""
    cells = s[HEIGHT] * s[WIDTH]
    quiet[:cells] = 0
    threat_cells[:cells] = False
    for wi in range(sc.c6[C6_HEADER, C6_N_WINDOWS]):
        a, d = _count(s, sc, wi, av)
        if d != 0 or a == 0:
            continue
        weight = 1 if a == 1 else (4 if a == 2 else 12)
        for i in range(WINDOW):
            e = sc.wcells[wi, i]
            if s[BOARD + e] == 0:
                quiet[e] += weight
                if a == 3:
                    threat_cells[e] = True


@njit(cache=True, nogil=True)
def _add_turn(turns, n, c1, c2, score):
    if c2 >= 0 and c2 < c1:
        c1, c2 = c2, c1
    for i in range(n):
        if turns[i, 0] == c1 and turns[i, 1] == c2:
            return n
    if n >= turns.shape[0]:
        return n
    turns[n, 0] = c1
    turns[n, 1] = c2
    turns[n, 2] = score
    return n + 1


@njit(cache=True, nogil=True)
def _generate(s, sc, av, turns, quiet, threat_cells, top):
    """The attacker's threat turns at `s` (two stones to place), best first, at most
    TURNS_TRIED: a threat-making stone with one of the QUIET_CELLS best quiet stones, and
    the two empty cells of a window of two of its stones. Returns how many."""
    cells = s[HEIGHT] * s[WIDTH]
    _cell_scores(s, sc, av, quiet, threat_cells)
    # The best quiet cells (a partial selection sort into `top`).
    nt = 0
    for c in range(cells):
        if s[BOARD + c] != 0 or quiet[c] == 0:
            continue
        if nt < QUIET_CELLS * 2:
            top[nt] = c
            nt += 1
        else:
            worst = 0
            for i in range(1, nt):
                if quiet[top[i]] < quiet[top[worst]]:
                    worst = i
            if quiet[c] > quiet[top[worst]]:
                top[worst] = c
    for i in range(1, nt):
        u = i
        while u > 0 and quiet[top[u - 1]] < quiet[top[u]]:
            top[u - 1], top[u] = top[u], top[u - 1]
            u -= 1
    n = 0
    for t in range(cells):
        if not threat_cells[t]:
            continue
        used = 0
        for i in range(nt):
            q = top[i]
            if q == t:
                continue
            n = _add_turn(turns, n, t, q, quiet[t] + quiet[q])
            used += 1
            if used >= QUIET_CELLS:
                break
    for wi in range(sc.c6[C6_HEADER, C6_N_WINDOWS]):
        a, d = _count(s, sc, wi, av)
        if a != 2 or d != 0:
            continue
        f = top[2 * QUIET_CELLS : 2 * QUIET_CELLS + 4]  # (beyond the quiet cells' slots)
        m = 0
        for i in range(WINDOW):
            e = sc.wcells[wi, i]
            if s[BOARD + e] == 0 and m < 4:
                f[m] = e
                m += 1
        for i in range(m):
            for j in range(i + 1, m):
                n = _add_turn(turns, n, f[i], f[j], quiet[f[i]] + quiet[f[j]])
    # Best first by score (insertion sort: the lists are short).
    for i in range(1, n):
        u = i
        while u > 0 and turns[u - 1, 2] < turns[u, 2]:
            for k in range(3):
                turns[u - 1, k], turns[u, k] = turns[u, k], turns[u - 1, k]
            u -= 1
    return n


@njit(cache=True, nogil=True)
def _key(s, atk):
    k = board_key(s) ^ SALT_C6_VCT
    if atk == 1:
        k = ~k
    if stones_left_in_turn(s[PLY]) == 1:
        k ^= SALT_LEFT
    return k


@njit(cache=True, nogil=True)
def _probe_won(table, key, levels):
    k = key ^ SALT_C6_VCT_WON
    slot = k & (table.shape[0] - 1)
    return table[slot, 0] == k and table[slot, 1] <= levels


@njit(cache=True, nogil=True)
def _store_won(table, key, levels):
    k = key ^ SALT_C6_VCT_WON
    slot = k & (table.shape[0] - 1)
    table[slot, 0] = k
    table[slot, 1] = levels


@njit(cache=True, nogil=True)
def _free_stone_candidates(s, sc, dv, zone, cand, least):
    """cand = the empty cells of `zone` and those where a stone of the defender (value dv)
    makes a window of `least` + 1 or more of its stones and none of the attacker's."""
    cells = s[HEIGHT] * s[WIDTH]
    for c in range(cells):
        cand[c] = zone[c] and s[BOARD + c] == 0
    for wi in range(sc.c6[C6_HEADER, C6_N_WINDOWS]):
        a, d = _count(s, sc, wi, dv)  # (defender's, attacker's)
        if a >= least and d == 0:
            for i in range(WINDOW):
                e = sc.wcells[wi, i]
                if s[BOARD + e] == 0:
                    cand[e] = True


@njit(cache=True, nogil=True)
def vct_node(s, level, zout, pos, table, pv, sc, states, zones, turns, ints, counters):
    """Attacker node (the player to move in `s`, `level` threat turns still allowed):
    1 a win (its proof line from pv[pos], its zone in `zout`), 0 none found, -1 the budget
    spent. counters: [nodes, budget, pv_len, the double-threat search's depth, its nodes
    a call, calls that spent them, threat turns tried at a node]."""
    cells = s[HEIGHT] * s[WIDTH]
    atk = s[TO_MOVE]
    av = atk + 1
    dv = 2 - atk
    budget_left = counters[1] - counters[0]
    if budget_left <= 0:
        return -1
    if pos + 8 > pv.shape[0]:
        return 0
    vpv = ints[level, 0]
    cap = min(budget_left, counters[4])
    if pos == 0 and counters[7] == 0:
        # The root of a search whose caller drops the zone (the tree's verdict): the
        # proof tree is not read back, only its line is wanted.
        found, vlen, vnodes = c6_solve(s, cap, counters[3], table, vpv, sc)
    else:
        found, vlen, vnodes = c6_solve_zone(s, cap, counters[3], table, vpv, zout, sc)
    counters[0] += vnodes
    if found != 1 and vnodes >= cap:
        counters[5] += 1  # a failure cut by the call's budget: not one to store
    if found == 1:
        if pos + vlen > pv.shape[0]:
            return 0
        pv[pos : pos + vlen] = vpv[:vlen]
        counters[2] = pos + vlen
        return 1
    if level <= 0 or counters[0] >= counters[1]:
        return -1 if counters[0] >= counters[1] else 0
    if stones_left_in_turn(s[PLY]) != 2 or _has_threat(s, sc, dv):
        return 0  # (partial) mid-turn, or the defender threatening: the VCF alone
    key = _key(s, atk)
    if failed_depth(table, key) >= level:
        return 0
    row = turns[level]
    quiet = ints[level, 1]
    top = ints[level, 2]
    mark = zones[level, Z_MARK]  # the threat-making cells here, then each turn's hitting-set marks
    n = _generate(s, sc, av, row[: MAX_TURNS - 1], quiet, mark, top)
    # The turn that won last at this level first (kept in the row's last entry): after
    # another defender reply the same turn often wins again.
    k1 = row[MAX_TURNS - 1, 0]
    k2 = row[MAX_TURNS - 1, 1]
    if k1 >= 0 and s[BOARD + k1] == 0 and s[BOARD + k2] == 0:
        at = n
        for i in range(n):
            if row[i, 0] == k1 and row[i, 1] == k2:
                at = i
                break
        if at == n and n < MAX_TURNS - 1:
            n += 1
        for i in range(min(at, n - 1), 0, -1):
            for k in range(3):
                row[i, k] = row[i - 1, k]
        row[0, 0] = k1
        row[0, 1] = k2
    zt = zones[level, Z_TURN]
    zc = zones[level, Z_CHILD]
    cand = zones[level, Z_CAND]
    after = states[level, ST_TURN]
    block = states[level, ST_BLOCK]
    passed = states[level, ST_PASS]
    reply = states[level, ST_REPLY]
    e0 = ints[level, 3]
    e1 = ints[level, 4]
    pa = ints[level, 5]
    pb = ints[level, 6]
    bl = ints[level, 7]
    cut = False
    capped = counters[5]
    tried = 0
    for t in range(n):
        if tried >= counters[6]:
            cut = True
            break
        c1 = row[t, 0]
        c2 = row[t, 1]
        after[:] = s
        apply_unchecked(after, c1)
        apply_unchecked(after, c2)
        if after[WINNER] != ONGOING:
            continue
        nthr = _threats_through(after, sc, av, c1, c2, e0, e1)
        if nthr == 0:
            continue
        mark[:cells] = False
        hn = hitting_number(e0, e1, nthr, mark)
        if hn >= 3:
            continue  # a win the double-threat search would have found: its budget ran out
        tried += 1
        counters[0] += 1
        if counters[0] >= counters[1]:
            return -1
        zt[:cells] = False
        zt[c1] = True
        zt[c2] = True
        for i in range(nthr):
            zt[e0[i]] = True
            if e1[i] >= 0:
                zt[e1[i]] = True
        # The defender's whole-turn replies: pairs that hit every threat window.
        npairs = hitting_pairs(e0, e1, nthr, pa, pb)
        if hn == 1:
            # Pairs neither of whose stones hits all (the single blocks are searched below).
            m = 0
            for i in range(npairs):
                if not mark[pa[i]] and not mark[pb[i]]:
                    pa[m] = pa[i]
                    pb[m] = pb[i]
                    m += 1
            npairs = m
        ok = 1
        line_at = pos + 4
        for q in range(npairs):
            reply[:] = after
            apply_unchecked(reply, pa[q])
            apply_unchecked(reply, pb[q])
            r = vct_node(reply, level - 1, zc, line_at, table, pv, sc, states, zones, turns, ints, counters)
            if r != 1:
                ok = r
                break
            pv[pos + 2] = pa[q]
            pv[pos + 3] = pb[q]
            zt[pa[q]] = True
            zt[pb[q]] = True
            for c in range(cells):
                if zc[c]:
                    zt[c] = True
        if ok == 1 and hn == 1:
            nb = 0
            for c in range(cells):
                if mark[c]:
                    bl[nb] = c
                    nb += 1
            for i in range(nb):
                b = bl[i]
                block[:] = after
                apply_unchecked(block, b)
                zt[b] = True
                null_move(block, passed)
                r = vct_node(passed, level - 1, zc, line_at, table, pv, sc, states, zones, turns, ints, counters)
                if r != 1:
                    ok = r
                    break
                # A three of the defender's is a candidate even below the last threat turn:
                # the forced blocks of the double-threat proof that follows can make it a
                # threat (with fours only, 91 of the suite's 100 were found within 20,000
                # nodes, and 4 of the wins failed the check of every reply).
                _free_stone_candidates(block, sc, dv, zc, cand, np.int64(2))
                for c in range(cells):
                    if zc[c] or cand[c]:
                        zt[c] = True
                # The free stone on each candidate (the zone's `cand` row is read before
                # the children reuse `zc`).
                # The stones of the pass's winning turn first: where a refutation is likeliest.
                nx = 0
                xs = ints[level, 8]
                for k in range(2):
                    c = pv[line_at + k]
                    if 0 <= c < cells and cand[c]:
                        xs[nx] = c
                        nx += 1
                for c in range(cells):
                    if cand[c] and not (nx > 0 and xs[0] == c) and not (nx > 1 and xs[1] == c):
                        xs[nx] = c
                        nx += 1
                last_x = -1
                for j in range(nx):
                    x = xs[j]
                    reply[:] = block
                    apply_unchecked(reply, x)
                    if reply[WINNER] != ONGOING:
                        ok = 0
                        break
                    r = vct_node(reply, level - 1, zc, line_at, table, pv, sc, states, zones, turns, ints, counters)
                    if r != 1:
                        ok = r
                        break
                    last_x = x
                    for c in range(cells):
                        if zc[c]:
                            zt[c] = True
                if ok != 1:
                    break
                if last_x < 0:
                    # No candidate: any stone off the zone leaves the pass's proof standing;
                    # the line shows one.
                    for c in range(cells):
                        if block[BOARD + c] == 0 and not zt[c]:
                            last_x = c
                            break
                    reply[:] = block
                    apply_unchecked(reply, last_x)
                    r = vct_node(reply, level - 1, zc, line_at, table, pv, sc, states, zones, turns, ints, counters)
                    if r != 1:
                        ok = r
                        break
                pv[pos + 2] = b
                pv[pos + 3] = last_x
        if ok == 1:
            pv[pos] = c1
            pv[pos + 1] = c2
            for c in range(cells):
                zout[c] = zt[c]
            _store_won(table, key, level)
            row[MAX_TURNS - 1, 0] = c1
            row[MAX_TURNS - 1, 1] = c2
            return 1
        if ok < 0:
            return -1
    if not cut and counters[5] == capped:
        store_failed(table, key, level)
    return 0


@njit(cache=True, nogil=True)
def c6_vct_zone(s, budget, max_depth, table, pv, cells, sc, levels, call_budget):
    """See `_search` (the zone wanted)."""
    return _search(s, budget, max_depth, table, pv, cells, sc, levels, call_budget, np.int64(1))


@njit(cache=True, nogil=True)
def _search(s, budget, max_depth, table, pv, cells, sc, levels, call_budget, want_zone):
    """Connect6 VCT for the player to move in `s` (see the module notes): (result, pv_len,
    nodes) as `vcf.vcf`, and on a win the zone of its proof in `cells` (bool [cells],
    cleared first): where a stone of the defender could matter (a stone elsewhere can
    refute it only by a threat of the defender's own). `max_depth` is the double-threat
    search's depth (turns; at most VCF_DEPTH), `levels` the threat turns allowed before it, `call_budget`
    the most nodes one call of that search may take. `sc` is a Connect6 scratch
    (`pipeline.tactics.lines.scratch`) of at least `max_depth`. Without `want_zone` the
    root's own double-threat proof is not read back for its zone (`cells` then says
    nothing of it)."""
    n_cells = s[HEIGHT] * s[WIDTH]
    cells[:n_cells] = False
    if s[WINNER] != ONGOING:
        return 0, 0, 0
    c6_tables(sc, s[HEIGHT], s[WIDTH])
    levels = min(max(levels, 0), VCT_LEVELS)
    states = sc.vstates  # the scratch's rows: a call allocates nothing
    zones = sc.vzones
    turns = sc.vturns
    ints = sc.vints
    turns[:, MAX_TURNS - 1, :] = -1  # no winning turn yet at any level
    counters = sc.vcounters
    counters[:] = 0
    counters[1] = budget
    counters[3] = min(max_depth, VCF_DEPTH)
    counters[4] = max(call_budget, 1)
    counters[6] = min(TURNS_TRIED, max(2, budget // NODES_A_TURN))
    counters[7] = want_zone
    root = states[VCT_LEVELS, ST_ROOT]
    root[:] = s
    # Iterative deepening over the threat turns: a win with one threat turn is found
    # before the deeper searches of the turns tried ahead of it.
    # (No threat turn allowed: the one round is the double-threat search.)
    for level in range(min(levels, 1), levels + 1):
        r = vct_node(root, np.int64(level), cells, np.int64(0), table, pv, sc, states, zones, turns, ints, counters)
        if r == 1:
            return 1, counters[2], counters[0]
        if r < 0:
            break
    cells[:n_cells] = False
    return 0, 0, counters[0]


@njit(cache=True, nogil=True)
def levels_for(budget):
    """The threat turns a search of `budget` nodes allows ahead of the double-threat
    search: LEVELS, or one below SMALL_BUDGET (the tree's expansions)."""
    return np.int64(LEVELS if budget >= SMALL_BUDGET else 1)


@njit(cache=True, nogil=True)
def c6_vct(s, budget, max_depth, table, pv, sc):
    """`c6_vct_zone` with `levels_for(budget)` threat turns, each double-threat call
    allowed the whole budget, the zone dropped."""
    dropped = sc.vzones[VCT_LEVELS, Z_DROPPED]
    return _search(s, budget, max_depth, table, pv, dropped, sc, levels_for(budget), budget, np.int64(0))


@njit(cache=True, nogil=True)
def opponent_vct_into(s, budget, max_depth, table, pv, cells, sc):
    """`c6_search.opponent_vcf_into` for the VCT: would the side not to move win by
    continuous threats if the mover passed the rest of its turn? (found, pv_len, nodes),
    and the zone of the proof in `cells`, where every refutation that is not a threat of
    the mover's own must put a stone."""
    passed = sc.vstates[VCT_LEVELS, ST_PASS]  # free until the search copies it to its root
    null_move(s, passed)
    return c6_vct_zone(passed, budget, max_depth, table, pv, cells, sc, levels_for(budget), budget)
