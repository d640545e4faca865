"""Array-based search trees: one row per game, preallocated, no Python objects per node.

Every node is a slot in `I` (int fields) and `F` (float fields). The children of an
expanded node occupy one contiguous block. A node's value sum is from the point of view
of its *mover*, the player whose action led to it, so backup flips the sign only where
the player changes and Connect6's two-stone turns need no special case. The root is
always slot 0: tree reuse compacts the kept subtree to the front of the row.

A row is never silently full: expansion reports a full row (`FULL`) without touching the
tree, and the search that called it grows the tree (`Tree.grow`) and carries on, so every
simulation of a budget expands its leaf."""

from __future__ import annotations

import numpy as np
from numba import njit

from pipeline.games.kernels import apply_unchecked, candidate_mask, legal_mask, presented_action, winning_moves
from pipeline.games.layout import HEIGHT, TO_MOVE, WIDTH, WINNER
from pipeline.search.rng import rand_below

PARENT = 0
ACTION = 1
VISITS = 2
FIRST = 3
COUNT = 4
MOVER = 5
TERMINAL = 6
PENDING = 7
N_INT = 8

PRIOR = 0
VALUE = 1
TERM_VALUE = 2
N_FLOAT = 3

UCT = 0
PUCT = 1

FULL = -1  # what `expand` returns when the row has no room for the node's children
# The room reserved ahead of one search, per game, is capped here; a larger search grows
# its tree as it goes (memory follows what the search really builds).
RESERVE_CAP = 1 << 20


def search_capacity(num_actions: int, expansions: int) -> int:
    """Room reserved for one search of `expansions` expansions: each adds at most one
    block of `num_actions` children to the root's slot (capped at RESERVE_CAP)."""
    return min(1 + (expansions + 1) * num_actions, RESERVE_CAP)


class Tree:
    """Search trees for `games` games, each with room for `capacity` nodes."""

    def __init__(self, games: int, capacity: int, num_actions: int):
        self.games = games
        self.capacity = capacity
        self.I = np.zeros((games, capacity, N_INT), dtype=np.int32)
        self.F = np.zeros((games, capacity, N_FLOAT), dtype=np.float32)
        self.size = np.zeros(games, dtype=np.int64)
        self.scratch_I = np.zeros((capacity, N_INT), dtype=np.int32)
        self.scratch_F = np.zeros((capacity, N_FLOAT), dtype=np.float32)
        self.mask = np.zeros(num_actions, dtype=np.bool_)
        self.num_actions = num_actions

    def reset(self, g: int, state: np.ndarray) -> None:
        reset_root(self.I, self.F, self.size, g, state)

    def grow(self, needed: int | None = None) -> None:
        """Make room: at least `needed` nodes per row (default: twice the capacity). The
        nodes keep their slots, so a search in progress carries on where it was."""
        capacity = max(2 * self.capacity, needed or 0)
        if capacity <= self.capacity:
            return
        I = np.zeros((self.games, capacity, N_INT), dtype=np.int32)
        F = np.zeros((self.games, capacity, N_FLOAT), dtype=np.float32)
        I[:, : self.capacity] = self.I
        F[:, : self.capacity] = self.F
        self.I, self.F, self.capacity = I, F, capacity
        self.scratch_I = np.zeros((capacity, N_INT), dtype=np.int32)
        self.scratch_F = np.zeros((capacity, N_FLOAT), dtype=np.float32)

    def reserve(self, room: int) -> None:
        """Room in every row for a search of `room` nodes (`search_capacity`) on top of the
        subtree each row keeps, whose root is the search's root."""
        needed = int(self.size.max()) - 1 + room
        if needed > self.capacity:
            self.grow(needed)

    def expanded(self, g: int) -> int:
        """How many nodes of game g's tree have children."""
        return int((self.I[g, : self.size[g], FIRST] >= 0).sum())

    def root_visits(self, g: int) -> np.ndarray:
        """Visit counts of the root's children, indexed by action."""
        out = np.zeros(self.num_actions, dtype=np.float32)
        first, count = self.I[g, 0, FIRST], self.I[g, 0, COUNT]
        if first >= 0:
            kids = slice(first, first + count)
            out[self.I[g, kids, ACTION]] = self.I[g, kids, VISITS]
        return out

    def best_action(self, g: int) -> int:
        """The most visited move, except that a proven win is taken and a proven loss
        avoided whenever the solver knows better than the counts."""
        kids = self.root_children(g)
        visits = self.I[g, kids, VISITS].astype(np.float64)
        proven = self.I[g, kids, TERMINAL] != 0
        value = self.F[g, kids, TERM_VALUE]
        score = visits.copy()
        score[proven & (value > 0)] = np.inf
        if not (proven & (value < 0)).all():
            score[proven & (value < 0)] = -1.0
        return int(self.I[g, kids, ACTION][int(np.argmax(score))])

    def root_value(self, g: int) -> float:
        """Mean value of the root for the player to move there."""
        visits = self.I[g, 0, VISITS]
        if visits == 0:
            return 0.0
        return float(self.F[g, 0, VALUE] / visits)

    def root_children(self, g: int) -> slice:
        first, count = self.I[g, 0, FIRST], self.I[g, 0, COUNT]
        return slice(first, first + count) if first >= 0 else slice(0, 0)

    def reroot(self, g: int, action: int, state_after: np.ndarray) -> bool:
        """Keep the subtree under `action` (tree reuse); start afresh if it was never
        expanded. `state_after` is the position after the move."""
        return reroot(self.I, self.F, self.size, g, action, state_after, self.scratch_I, self.scratch_F)


@njit(cache=True, nogil=True)
def reset_root(I, F, size, g, state):
    I[g, 0, :] = 0
    F[g, 0, :] = 0.0
    I[g, 0, PARENT] = -1
    I[g, 0, ACTION] = -1
    I[g, 0, FIRST] = -1
    # The root's value is kept for the player to move there, so FPU and reporting read it
    # directly; its "mover" is that player.
    I[g, 0, MOVER] = state[TO_MOVE]
    if state[WINNER] >= 0:
        I[g, 0, TERMINAL] = 1
        F[g, 0, TERM_VALUE] = terminal_value(state, state[TO_MOVE])
    size[g] = 1


@njit(cache=True, nogil=True)
def terminal_value(state, player):
    w = state[WINNER]
    if w == player:
        return 1.0
    if w == 0 or w == 1:
        return -1.0
    return 0.0


@njit(cache=True, nogil=True)
def expand(I, F, size, g, node, state, policy, use_policy, guided, shuffle, rng, mask, prove, prove_root):
    """Give `node` one child per legal (or, with guidance, candidate) move. Priors come
    from `policy` in the presented frame, or are uniform. With `prove`, children that win
    at once are marked terminal, so the solver needs no visit to find them. Returns the
    number of children, or FULL (the tree untouched) when the row has no room for them:
    the caller must grow the tree and expand again."""
    if guided:
        n = candidate_mask(state, mask)
    else:
        n = legal_mask(state, mask)
    if n == 0:
        return 0
    first = size[g]
    if first + n > I.shape[1]:
        return FULL
    mover = state[TO_MOVE]
    j = first
    total = 0.0
    for a in range(mask.shape[0]):
        if not mask[a]:
            continue
        I[g, j, :] = 0
        F[g, j, :] = 0.0
        I[g, j, PARENT] = node
        I[g, j, ACTION] = a
        I[g, j, FIRST] = -1
        I[g, j, MOVER] = mover
        p = policy[presented_action(state, a)] if use_policy else 1.0
        if p < 0.0:
            p = 0.0
        F[g, j, PRIOR] = p
        total += p
        j += 1
    for j in range(first, first + n):
        F[g, j, PRIOR] = F[g, j, PRIOR] / total if total > 0.0 else 1.0 / n
    if shuffle:
        # UCT tries unvisited children in slot order: a random order removes the bias
        # towards low-numbered cells.
        for i in range(n - 1, 0, -1):
            k = rand_below(rng, i + 1)
            a_i = I[g, first + i, ACTION]
            p_i = F[g, first + i, PRIOR]
            I[g, first + i, ACTION] = I[g, first + k, ACTION]
            F[g, first + i, PRIOR] = F[g, first + k, PRIOR]
            I[g, first + k, ACTION] = a_i
            F[g, first + k, PRIOR] = p_i
    I[g, node, FIRST] = first
    I[g, node, COUNT] = n
    size[g] = first + n
    if prove:
        wins = np.zeros(state[HEIGHT] * state[WIDTH], dtype=np.bool_)
        if winning_moves(state, mover, wins) > 0:
            for j in range(first, first + n):
                a = I[g, j, ACTION]
                if a < wins.shape[0] and wins[a]:
                    I[g, j, TERMINAL] = 1
                    F[g, j, TERM_VALUE] = 1.0
                    propagate_proof(I, F, g, j, prove_root)
                    break
    return n


@njit(cache=True, nogil=True)
def select_child(I, F, g, node, mode, c, fpu_reduction):
    first = I[g, node, FIRST]
    count = I[g, node, COUNT]
    parent_visits = I[g, node, VISITS]
    best = first
    best_score = -1e30
    if mode == UCT:
        log_n = np.log(max(parent_visits, 1))
        for j in range(first, first + count):
            n = I[g, j, VISITS]
            if n == 0:
                return j
            if I[g, j, TERMINAL] != 0 and F[g, j, TERM_VALUE] < 0.0:
                continue  # a proven loss is never worth another visit
            score = F[g, j, VALUE] / n + c * np.sqrt(log_n / n)
            if score > best_score:
                best_score = score
                best = j
        return best
    sqrt_n = np.sqrt(max(parent_visits, 1))
    # First-play urgency: an unvisited child is valued at its parent's mean value (for
    # the child's mover) minus a reduction.
    fpu = 0.0
    if parent_visits > 0:
        fpu = F[g, node, VALUE] / parent_visits
        if count > 0 and I[g, first, MOVER] != I[g, node, MOVER]:
            fpu = -fpu
    fpu -= fpu_reduction
    for j in range(first, first + count):
        n = I[g, j, VISITS]
        q = F[g, j, VALUE] / n if n > 0 else fpu
        score = q + c * F[g, j, PRIOR] * sqrt_n / (1.0 + n)
        if score > best_score:
            best_score = score
            best = j
    return best


@njit(cache=True, nogil=True)
def descend(I, F, g, root_state, scratch, mode, c, fpu_reduction, root_fpu_reduction, virtual_loss):
    """Walk from the root to a leaf, replaying the moves into `scratch`. Each node on the
    path gets a visit now, and all but the root a virtual loss, which backup returns."""
    scratch[:] = root_state
    node = 0
    I[g, 0, VISITS] += 1
    while I[g, node, TERMINAL] == 0 and I[g, node, FIRST] >= 0:
        child = select_child(I, F, g, node, mode, c, root_fpu_reduction if node == 0 else fpu_reduction)
        apply_unchecked(scratch, I[g, child, ACTION])
        I[g, child, VISITS] += 1
        F[g, child, VALUE] -= virtual_loss
        node = child
        if I[g, node, VISITS] == 1 and scratch[WINNER] >= 0:
            I[g, node, TERMINAL] = 1
            F[g, node, TERM_VALUE] = terminal_value(scratch, I[g, node, MOVER])
    return node


@njit(cache=True, nogil=True)
def backup(I, F, g, leaf, value, player, virtual_loss):
    """Add `value` (for `player`) along the path from `leaf` to the root."""
    node = leaf
    while node >= 0:
        v = value if I[g, node, MOVER] == player else -value
        if node != 0:
            v += virtual_loss
        F[g, node, VALUE] += v
        node = I[g, node, PARENT]


@njit(cache=True, nogil=True)
def propagate_proof(I, F, g, node, prove_root):
    """MCTS-Solver: a terminal (or proven) node can prove its parent. A child that wins
    for the parent's player to move proves the parent at once; a parent all of whose
    children are proven takes the best of them. Proven nodes are then treated as
    terminal by descent, so their exact value is backed up from then on. Without
    `prove_root` the root stays open, so its visits keep flowing to the proven child
    (PUCT's visit counts are its answer)."""
    while node != 0 and I[g, node, TERMINAL] != 0:
        parent = I[g, node, PARENT]
        if I[g, parent, TERMINAL] != 0 or (parent == 0 and not prove_root):
            return
        chooser = I[g, node, MOVER]
        best = F[g, node, TERM_VALUE]
        if best <= 0.0:
            first = I[g, parent, FIRST]
            for j in range(first, first + I[g, parent, COUNT]):
                if I[g, j, TERMINAL] == 0:
                    return
                if F[g, j, TERM_VALUE] > best:
                    best = F[g, j, TERM_VALUE]
        I[g, parent, TERMINAL] = 1
        F[g, parent, TERM_VALUE] = best if I[g, parent, MOVER] == chooser else -best
        node = parent


@njit(cache=True, nogil=True)
def revert(I, F, g, leaf, virtual_loss):
    """Undo a descent that found its leaf already waiting for evaluation."""
    node = leaf
    while node >= 0:
        I[g, node, VISITS] -= 1
        if node != 0:
            F[g, node, VALUE] += virtual_loss
        node = I[g, node, PARENT]


@njit(cache=True, nogil=True)
def reroot(I, F, size, g, action, state_after, scratch_I, scratch_F):
    first = I[g, 0, FIRST]
    child = -1
    if first >= 0:
        for j in range(first, first + I[g, 0, COUNT]):
            if I[g, j, ACTION] == action:
                child = j
                break
    if child < 0 or (I[g, child, FIRST] < 0 and I[g, child, TERMINAL] == 0):
        reset_root(I, F, size, g, state_after)
        return False
    # Breadth-first copy of the kept subtree into scratch keeps child blocks contiguous.
    scratch_I[0, :] = I[g, child, :]
    scratch_F[0, :] = F[g, child, :]
    scratch_I[0, PARENT] = -1
    head = 0
    new_size = 1
    while head < new_size:
        old_first = scratch_I[head, FIRST]
        count = scratch_I[head, COUNT]
        if old_first >= 0:
            scratch_I[head, FIRST] = new_size
            for k in range(count):
                scratch_I[new_size + k, :] = I[g, old_first + k, :]
                scratch_F[new_size + k, :] = F[g, old_first + k, :]
                scratch_I[new_size + k, PARENT] = head
            new_size += count
        head += 1
    I[g, :new_size, :] = scratch_I[:new_size, :]
    F[g, :new_size, :] = scratch_F[:new_size, :]
    # A subtree root that the solver had proven is searched again as a live position, so
    # its visits flow to the proven move; only a finished game keeps a terminal root.
    if state_after[WINNER] < 0:
        I[g, 0, TERMINAL] = 0
    # The root keeps its value for the player to move (see reset_root).
    if I[g, 0, MOVER] != state_after[TO_MOVE]:
        F[g, 0, VALUE] = -F[g, 0, VALUE]
        I[g, 0, MOVER] = state_after[TO_MOVE]
    size[g] = new_size
    return True
