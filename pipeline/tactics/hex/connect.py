"""Hex virtual connections: bridges, edge templates, and a sound winning connection.

A virtual connection (VC) between two of a player's groups (an edge counts as a group)
is a carrier of empty cells in which the player joins the two against any defence,
moving second. The ones known here:

* bridge: two empty cells each adjacent to both groups. An intrusion in one is answered
  in the other. With an edge as one group this is the second-row bridge to the edge.
* ziggurat (edge template IIIa): a stone on the third row from its edge with 8 empty
  cells (1 beside it on its row, 3 on the second row, 4 on the first). The stone bridges
  to a second-row cell that bridges to the edge, and every intrusion leaves one such
  chain whole.

Links whose carriers are pairwise disjoint hold all at once: each intrusion touches one
carrier, and its owner answers in that same carrier. So a chain of such links from one
edge to the other is a win for its owner even with the opponent to move, and the union
of the chain's carriers is the opponent's must-play region.
"""

import numpy as np
from numba import njit

from pipeline.games.hex import edges_of, find, link_stone
from pipeline.games.kernels import keep_marked
from pipeline.games.layout import BOARD, HIST, HIST_PLAYER, WIDTH

NB_R = np.array([-1, -1, 0, 0, 1, 1], dtype=np.int64)
NB_C = np.array([0, 1, -1, 1, -1, 0], dtype=np.int64)

# Ziggurat cells relative to a stone on the third row below the TOP edge (dr < 0 is
# towards the edge), in two mirror images: (r, c) -> (r, -c - r) keeps Hex adjacency and
# the top edge. The other edges come from 180-degree rotation and the transpose.
ZIG_R = np.array(
    [[0, -1, -1, -1, -2, -2, -2, -2], [0, -1, -1, -1, -2, -2, -2, -2]],
    dtype=np.int64,
)
ZIG_C = np.array(
    [[1, 0, 1, 2, 0, 1, 2, 3], [-1, -1, 0, 1, -1, 0, 1, 2]],
    dtype=np.int64,
)
MAX_CARRIER = 8


@njit(cache=True, nogil=True)
def _cell_groups(s, n, cell, player, out):
    """The distinct groups (roots; edges included) next to `cell`; return count."""
    r = cell // n
    c = cell % n
    value = player + 1
    k = 0
    first, second = edges_of(s, player)
    for d in range(6):
        rr = r + NB_R[d]
        cc = c + NB_C[d]
        g = -1
        if 0 <= rr < n and 0 <= cc < n:
            if s[BOARD + rr * n + cc] == value:
                g = find(s, rr * n + cc)
        elif player == 0 and 0 <= cc < n:
            g = find(s, first if rr < 0 else second)
        elif player == 1 and 0 <= rr < n:
            g = find(s, first if cc < 0 else second)
        if g < 0:
            continue
        seen = False
        for i in range(k):
            if out[i] == g:
                seen = True
        if not seen:
            out[k] = g
            k += 1
    return k


@njit(cache=True, nogil=True)
def collect_links(s, player, link_a, link_b, link_size, link_cells):
    """Write the player's known VCs between groups (roots) into the preallocated arrays
    (link_cells: [max_links, MAX_CARRIER]); bridges come first, then ziggurats. Return
    how many were written (stops quietly when the arrays are full)."""
    n = s[WIDTH]
    cells = n * n
    max_links = link_a.shape[0]
    # Bridges: pairs of groups with two common empty neighbours. Index the groups seen
    # next to empty cells, then count common cells per pair in a small matrix.
    gid = np.full(cells + 4, -1, dtype=np.int64)
    roots = np.empty(cells + 4, dtype=np.int64)
    near = np.empty((cells, 6), dtype=np.int64)
    n_near = np.zeros(cells, dtype=np.int64)
    tmp = np.empty(6, dtype=np.int64)
    n_groups = 0
    for cell in range(cells):
        if s[BOARD + cell] != 0:
            continue
        k = _cell_groups(s, n, cell, player, tmp)
        for i in range(k):
            g = tmp[i]
            if gid[g] < 0:
                gid[g] = n_groups
                roots[n_groups] = g
                n_groups += 1
            near[cell, i] = gid[g]
        n_near[cell] = k
    count = np.zeros((n_groups, n_groups), dtype=np.int64)
    first_cell = np.empty((n_groups, n_groups), dtype=np.int64)
    second_cell = np.empty((n_groups, n_groups), dtype=np.int64)
    for cell in range(cells):
        k = n_near[cell]
        for i in range(k):
            for j in range(i + 1, k):
                a = min(near[cell, i], near[cell, j])
                b = max(near[cell, i], near[cell, j])
                if count[a, b] == 0:
                    first_cell[a, b] = cell
                elif count[a, b] == 1:
                    second_cell[a, b] = cell
                count[a, b] += 1
    m = 0
    for a in range(n_groups):
        for b in range(a + 1, n_groups):
            if count[a, b] >= 2 and m < max_links:
                link_a[m] = roots[a]
                link_b[m] = roots[b]
                link_size[m] = 2
                link_cells[m, 0] = first_cell[a, b]
                link_cells[m, 1] = second_cell[a, b]
                m += 1
    # Ziggurats: every own stone on the third row from one of its edges.
    first, second = edges_of(s, player)
    value = player + 1
    for cell in range(cells):
        if s[BOARD + cell] != value:
            continue
        r = cell // n
        c = cell % n
        for edge in range(2):
            # Distance from the edge along the player's axis; template rows count inwards.
            pos = r if player == 0 else c
            if (pos if edge == 0 else n - 1 - pos) != 2:
                continue
            for mirror in range(2):
                ok = True
                for i in range(MAX_CARRIER):
                    dr = ZIG_R[mirror, i]
                    dc = ZIG_C[mirror, i]
                    if edge == 1:  # rotate 180 degrees: the bottom (right) edge
                        dr = -dr
                        dc = -dc
                    if player == 1:  # transpose: top becomes left
                        dr, dc = dc, dr
                    rr = r + dr
                    cc = c + dc
                    if not (0 <= rr < n and 0 <= cc < n) or s[BOARD + rr * n + cc] != 0:
                        ok = False
                        break
                    tmp_cell = rr * n + cc
                    if m < max_links:
                        link_cells[m, i] = tmp_cell
                if ok and m < max_links:
                    link_a[m] = find(s, cell)
                    link_b[m] = find(s, first if edge == 0 else second)
                    link_size[m] = MAX_CARRIER
                    m += 1
    return m


@njit(cache=True, nogil=True)
def _root(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True, nogil=True)
def winning_connection(s, player, carrier_out):
    """1 when `player` joins its two edges through stones and links with pairwise
    disjoint carriers, so it wins even with the opponent to move; else 0. On 1 the union
    of the carriers along one such chain (the opponent's must-play region) is marked in
    `carrier_out` (bool, length cells, cleared here; empty when already connected)."""
    n = s[WIDTH]
    cells = n * n
    for cell in range(cells):
        carrier_out[cell] = False
    first, second = edges_of(s, player)
    e1 = find(s, first)
    e2 = find(s, second)
    if e1 == e2:
        return 1
    max_links = 4 * cells + 16
    link_a = np.empty(max_links, dtype=np.int64)
    link_b = np.empty(max_links, dtype=np.int64)
    link_size = np.empty(max_links, dtype=np.int64)
    link_cells = np.empty((max_links, MAX_CARRIER), dtype=np.int64)
    m = collect_links(s, player, link_a, link_b, link_size, link_cells)
    # Greedy: accept a link when it joins two different components and its carrier is
    # disjoint from every carrier accepted so far (so all accepted links hold together).
    parent = np.arange(cells + 4)
    used = np.zeros(cells, dtype=np.bool_)
    accepted = np.zeros(m, dtype=np.bool_)
    for i in range(m):
        ra = _root(parent, link_a[i])
        rb = _root(parent, link_b[i])
        if ra == rb:
            continue
        free = True
        for k in range(link_size[i]):
            if used[link_cells[i, k]]:
                free = False
        if not free:
            continue
        for k in range(link_size[i]):
            used[link_cells[i, k]] = True
        parent[ra] = rb
        accepted[i] = True
        if _root(parent, e1) == _root(parent, e2):
            break
    if _root(parent, e1) != _root(parent, e2):
        return 0
    # Keep only the links on one path between the edges: a smaller must-play region.
    # Breadth-first over groups (roots), links as edges.
    prev_link = np.full(cells + 4, -1, dtype=np.int64)
    seen = np.zeros(cells + 4, dtype=np.bool_)
    queue = np.empty(cells + 4, dtype=np.int64)
    head = 0
    tail = 1
    queue[0] = e1
    seen[e1] = True
    while head < tail:
        g = queue[head]
        head += 1
        if g == e2:
            break
        for i in range(m):
            if not accepted[i]:
                continue
            other = -1
            if link_a[i] == g:
                other = link_b[i]
            elif link_b[i] == g:
                other = link_a[i]
            if other >= 0 and not seen[other]:
                seen[other] = True
                prev_link[other] = i
                queue[tail] = other
                tail += 1
    g = e2
    while g != e1:
        i = prev_link[g]
        for k in range(link_size[i]):
            carrier_out[link_cells[i, k]] = True
        g = link_a[i] if link_b[i] == g else link_b[i]
    return 1


@njit(cache=True, nogil=True)
def must_play_region(s, player, region, carrier):
    """Narrow `region` (bool, length cells: the opponent's moves so far) by `player`'s
    semi-connections. A semi-connection is an empty key cell k after which `player` has a
    winning connection, with carrier C: an opponent's move outside {k} and C leaves
    `player` to play k and win, so the opponent (to move) must play inside every such set.
    Return (semi-connections found, cells left in `region`); stops early when `region` is
    empty (the opponent has lost). `carrier` is scratch (bool, length cells)."""
    n = s[WIDTH]
    cells = n * n
    work = s.copy()
    found = 0
    alive = 0
    for cell in range(cells):
        if region[cell]:
            alive += 1
    for k in range(cells):
        if s[BOARD + k] != 0:
            continue
        work[:] = s[:]
        work[BOARD + k] = player + 1
        link_stone(work, k, player)
        if winning_connection(work, player, carrier) == 1:
            found += 1
            carrier[k] = True
            alive = keep_marked(region, carrier, cells)
            if alive == 0:
                return found, 0
    return found, alive


@njit(cache=True, nogil=True)
def common_empty(s, player, ga, gb, out):
    """Mark the empty cells next to both groups (roots) ga and gb; return how many."""
    n = s[WIDTH]
    tmp = np.empty(6, dtype=np.int64)
    found = 0
    for cell in range(n * n):
        if s[BOARD + cell] != 0:
            continue
        k = _cell_groups(s, n, cell, player, tmp)
        has_a = False
        has_b = False
        for i in range(k):
            if tmp[i] == ga:
                has_a = True
            if tmp[i] == gb:
                has_b = True
        if has_a and has_b:
            out[cell] = True
            found += 1
    return found


@njit(cache=True, nogil=True)
def bridge_intrusions(s, player, out):
    """When the last move was the opponent's stone in a bridge of `player` (two groups,
    edges included, left with exactly one common empty neighbour), mark that remaining
    cell, the reply that restores the connection, in `out` (bool, length cells; marks
    are added). Return how many replies were marked."""
    n = s[WIDTH]
    cells = n * n
    last = s[HIST]
    if last < 0 or last >= cells or s[HIST_PLAYER] != 1 - player:
        return 0
    # The groups that touched the intruded cell (own stones and own edges around it).
    groups = np.empty(6, dtype=np.int64)
    k = _cell_groups(s, n, last, player, groups)
    marks = np.zeros(cells, dtype=np.bool_)
    found = 0
    for i in range(k):
        for j in range(i + 1, k):
            marks[:] = False
            if common_empty(s, player, groups[i], groups[j], marks) == 1:
                for cell in range(cells):
                    if marks[cell] and not out[cell]:
                        out[cell] = True
                        found += 1
    return found
