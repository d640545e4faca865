"""Hex connection knowledge in the tree: what bridges, edge templates and inferior cells
say about a node before the net is asked (`SearchConfig.hex_tactics`).

At each expansion of a Hex position, P to move, O the player who just moved, each piece
switched on by its flag:

* CONNECT: P has a cell that joins its edges: a proven win through it. P has a winning
  connection (its edges joined through bridges and edge templates with disjoint
  carriers, `hex_connect.winning_connection`): a proven win, and every move keeps it (an
  extra own stone never hurts), so the children are the connection's carrier (moves that
  make progress) and the proof goes through the one the net likes best. O's last stone
  intruded into a bridge of P's and the reply that restores it gives P a winning
  connection: a proven win through that reply (how a chain's proof survives the
  opponent's intrusions without a search below the node). O has a winning
  connection, or two cells that join its edges: P has lost (the node is a proven win for
  its mover, O); the children are O's carrier or those cells, the best tries at a root
  that must still move. O has one such cell: it is P's only move.
* MUSTPLAY: O's semi-connections (a key cell after which O has a winning connection)
  each confine P to their key and carrier; the children are the intersection, the
  must-play region (`hex_connect.must_play_region`), and a proven loss when it is empty.
* INFERIOR: dead cells and cells of captured pairs (`hex_patterns.inferior_mask`) are
  never children: each is at best a pass, never better than any other move. At least
  one move always stays.
* BRIDGE: when O's last stone intruded into one of P's bridges (edge bridges included),
  the cell that restores it takes a share of the children's prior (`bridge_replies`).
* HSEARCH, at the root only (once a search, `hsearch_root`): H-search
  (`pipeline.tactics.hex.hsearch`, Anshelevich's calculus: chains of bridges and templates
  joined by the AND and OR rules, which the pieces above never combine). P's semi-connection
  between its edges proves a win through its key; O's semi-connections confine P to the
  intersection of their carriers, so every move outside is proven lost (O answers at the
  key of one it missed). What MoHex does at every node visited often enough; here once a
  move, since a call costs 7 ms on 11x11 and 33 ms on 13x13.

While the swap is still possible nothing applies: the pie rule changes whose stone is on
the board. Every claim rests on connections whose carriers are disjoint, which hold
against any defence, so a proven value is the game value."""

from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.games.hex import link_stone, swap_ahead, winning_cells
from pipeline.games.layout import BOARD, TO_MOVE, WIDTH, WINNER
from pipeline.search.forced import LOSS, OPEN, WIN
from pipeline.search.tree import ACTION, COUNT, FIRST, SOLVED_WIN, TERMINAL, prove_move
from pipeline.tactics.hex.connect import bridge_intrusions, must_play_region, winning_connection
from pipeline.tactics.hex.hsearch import FULL, MAX_SIDE, SEMI, WORDS, has_cell, hsearch, must_play
from pipeline.tactics.hex.patterns import inferior_mask

HEX_INFERIOR = 1
HEX_CONNECT = 2
HEX_MUSTPLAY = 4
HEX_BRIDGE = 8
HEX_HSEARCH = 16
HEX_PIECES = {
    "inferior": HEX_INFERIOR,
    "connect": HEX_CONNECT,
    "mustplay": HEX_MUSTPLAY,
    "bridge": HEX_BRIDGE,
    "hsearch": HEX_HSEARCH,
}
HEX_ALL = HEX_INFERIOR | HEX_CONNECT | HEX_MUSTPLAY | HEX_BRIDGE | HEX_HSEARCH
# H-search's limits at the root: the DFPN solver's (`pipeline.tactics.hex.dfpn.default_limits`,
# benzene's): VCs and SCs kept a pair, SCs one OR combines, connections between empty cells.
HSEARCH_LIMITS = np.array([16, 32, 4, 1], dtype=np.int64)

# The share of a node's prior that goes to the replies restoring an intruded bridge: the
# net still ranks the other moves, but the reply is searched first.
BRIDGE_SHARE = 0.5


def hex_tactics_flags(text: str) -> int:
    """`off`, `all`, or pieces joined by `+` (`inferior+connect`) -> the flags above."""
    if text == "off":
        return 0
    if text == "all":
        return HEX_ALL
    flags = 0
    for piece in text.split("+"):
        if piece not in HEX_PIECES:
            raise ValueError(f"hex tactics {text!r}: expected off, all, or pieces of {'+'.join(HEX_PIECES)}")
        flags |= HEX_PIECES[piece]
    return flags


@njit(cache=True, nogil=True)
def _narrow(mask, keep, cells):
    """mask &= keep over the cells, unless that leaves nothing: return how many remain."""
    left = 0
    for a in range(cells):
        if mask[a] and keep[a]:
            left += 1
    if left == 0:
        return 0
    for a in range(mask.shape[0]):
        mask[a] = mask[a] and a < cells and keep[a]
    return left


@njit(cache=True, nogil=True)
def hex_verdict(s, mask, flags):
    """The connection knowledge's verdict on Hex position `s` for the player to move:
    (OPEN, -1, 0), (WIN, cell, value) for a move that wins (value 1.0 when it joins the
    edges at once, SOLVED_WIN when it restores a winning connection), (WIN, -1,
    SOLVED_WIN) for a standing winning connection (every move in `mask` keeps it), or
    (LOSS, -1, 0). `mask` (the legal moves, length cells + 1 with the swap slot) is
    narrowed in place and never left empty."""
    if flags == 0 or s[WINNER] >= 0 or swap_ahead(s):
        return OPEN, -1, 0.0
    n = s[WIDTH]
    cells = n * n
    me = s[TO_MOVE]
    opp = 1 - me
    keep = np.zeros(cells, dtype=np.bool_)
    verdict = OPEN
    move = -1
    value = 0.0
    decided = False
    if flags & HEX_CONNECT:
        if winning_cells(s, me, keep) > 0:
            for a in range(cells):
                if keep[a] and mask[a]:
                    move = a
                    break
            keep[:] = False
        if move >= 0:
            verdict, value, decided = WIN, 1.0, True
        elif winning_connection(s, me, keep) == 1:
            _narrow(mask, keep, cells)
            verdict, value, decided = WIN, SOLVED_WIN, True
        else:
            move = _restoring_win(s, mask, keep)
            if move >= 0:
                verdict, value, decided = WIN, SOLVED_WIN, True
    if not decided and flags & HEX_CONNECT:
        if winning_connection(s, opp, keep) == 1:
            _narrow(mask, keep, cells)
            verdict, decided = LOSS, True
        else:
            keep[:] = False
            threats = winning_cells(s, opp, keep)
            if threats > 0:
                _narrow(mask, keep, cells)
                if threats >= 2:
                    verdict = LOSS
                decided = True  # one forced cell, or the loss's best tries
    if not decided and flags & HEX_MUSTPLAY:
        region = np.empty(cells, dtype=np.bool_)
        for a in range(cells):
            region[a] = mask[a]
        found, alive = must_play_region(s, opp, region, keep)
        if found > 0:
            if alive == 0:
                verdict = LOSS  # every move lets some semi-connection through: keep them all
            else:
                _narrow(mask, region, cells)
    if flags & HEX_INFERIOR:
        inferior_mask(s, keep)
        for a in range(cells):
            keep[a] = not keep[a]
        _narrow(mask, keep, cells)
    if move >= 0:
        mask[move] = True  # a winning cell may lie in a captured pair: it stays a child
    return verdict, move, value


@njit(cache=True, nogil=True)
def _restoring_win(s, mask, scratch):
    """A reply (in `mask`) to the opponent's intrusion into one of the mover's bridges
    after which the mover has a winning connection, or -1. `scratch`: bool, length cells."""
    n = s[WIDTH]
    cells = n * n
    me = s[TO_MOVE]
    replies = np.zeros(cells, dtype=np.bool_)
    if bridge_intrusions(s, me, replies) == 0:
        return -1
    work = np.empty_like(s)
    for a in range(cells):
        if replies[a] and mask[a]:
            work[:] = s[:]
            work[BOARD + a] = me + 1
            link_stone(work, a, me)
            if winning_connection(work, me, scratch) == 1:
                return a
    return -1


@njit(cache=True, nogil=True)
def bridge_replies(s, out):
    """Mark in `out` (bool, length cells, cleared here) the cells where the player to move
    restores a bridge that the opponent's last stone intruded into; return how many."""
    out[:] = False
    if s[WINNER] >= 0:
        return 0
    return bridge_intrusions(s, s[TO_MOVE], out)


@njit(cache=True, nogil=True)
def hsearch_root(s, region, limits):
    """H-search at a root, P to move: (WIN, key) when P has a semi-connection between its
    edges (its key makes it full), (WIN, -1) when they are fully connected already (every
    move keeps that), (LOSS, -1) when O's edges are fully connected or O's semi-connections
    leave no cell, else (OPEN, -1) with `region` (bool, length cells) set to the must-play
    region: the cells in every carrier of O's semi-connections between its edges, keys
    included (every empty cell when O has none). Open while the swap is possible or still to
    come (the first stone of a swap game is the opponent's to take), once the game is over,
    and past H-search's bitsets."""
    n = s[WIDTH]
    cells = n * n
    region[:cells] = True
    if s[WINNER] >= 0 or swap_ahead(s) or n > MAX_SIDE:
        return OPEN, -1
    me = s[TO_MOVE]
    max_vc, max_sc, max_or, pairs = limits[0], limits[1], limits[2], limits[3] != 0
    sc_bits = np.empty((max_sc, WORDS), dtype=np.uint64)
    sc_key = np.empty(max_sc, dtype=np.int64)
    status, _, _, _, _ = hsearch(s, me, max_vc, max_sc, max_or, pairs, True, sc_bits, sc_key)
    if status == FULL:
        return WIN, -1
    if status == SEMI:
        return WIN, sc_key[0]
    status, r0, r1, r2 = must_play(s, 1 - me, max_vc, max_sc, max_or, pairs)
    if status == FULL:
        return LOSS, -1
    left = 0
    for a in range(cells):
        region[a] = s[BOARD + a] == 0 and has_cell(r0, r1, r2, a)
        left += region[a]
    if left == 0:
        region[:cells] = True
        return LOSS, -1
    return OPEN, -1


@njit(cache=True, nogil=True)
def prove_outside_lost(node_int, node_float, g, region):
    """Mark every open child of game g's root whose move lies outside `region` (a cell
    mask; the swap slot past it stays) a proven loss, unless none inside is open. Returns
    how many were marked."""
    first = node_int[g, 0, FIRST]
    count = node_int[g, 0, COUNT]
    cells = region.shape[0]
    inside = 0
    for j in range(first, first + count):
        a = node_int[g, j, ACTION]
        if node_int[g, j, TERMINAL] == 0 and (a >= cells or region[a]):
            inside += 1
    if inside == 0:
        return 0
    marked = 0
    for j in range(first, first + count):
        a = node_int[g, j, ACTION]
        if node_int[g, j, TERMINAL] == 0 and a < cells and not region[a]:
            prove_move(node_int, node_float, g, 0, a, -SOLVED_WIN, False)
            marked += 1
    return marked
