"""Array-based search trees: one row per game, preallocated, no Python objects per node.

Every node is a slot of two arrays indexed [game, node, field]: `node_int` holds the int
fields (PARENT, ACTION, VISITS, FIRST, COUNT, MOVER, TERMINAL, PENDING) and `node_float`
the float ones (PRIOR, VALUE, TERM_VALUE, RAW: the net's value of an expanded node for its
player to move, which Gumbel's completed Q-values need). The children of an expanded node occupy one
contiguous block. A node's value sum is from the point of view of its *mover*, the
player whose action led to it, so backup flips the sign only where the player changes
and Connect6's two-stone turns need no special case. The root is always slot 0: tree
reuse compacts the kept subtree to the front of the row.

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
RAW = 3  # the evaluator's value of the node when it was expanded, for the player to move there
N_FLOAT = 4

UCT = 0
PUCT = 1

# A win proven by the threat solvers rather than on the board: worth a little less than an
# immediate win, so that the search takes the quickest.
SOLVED_WIN = 0.99

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
        self.node_int = np.zeros((games, capacity, N_INT), dtype=np.int32)
        self.node_float = np.zeros((games, capacity, N_FLOAT), dtype=np.float32)
        self.size = np.zeros(games, dtype=np.int64)
        self.scratch_int = np.zeros((capacity, N_INT), dtype=np.int32)
        self.scratch_float = np.zeros((capacity, N_FLOAT), dtype=np.float32)
        self.mask = np.zeros(num_actions, dtype=np.bool_)
        self.num_actions = num_actions

    def reset(self, g: int, state: np.ndarray) -> None:
        reset_root(self.node_int, self.node_float, self.size, g, state)

    def grow(self, needed: int | None = None) -> None:
        """Make room: at least `needed` nodes per row (default: twice the capacity). The
        nodes keep their slots, so a search in progress carries on where it was."""
        capacity = max(2 * self.capacity, needed or 0)
        if capacity <= self.capacity:
            return
        node_int = np.zeros((self.games, capacity, N_INT), dtype=np.int32)
        node_float = np.zeros((self.games, capacity, N_FLOAT), dtype=np.float32)
        node_int[:, : self.capacity] = self.node_int
        node_float[:, : self.capacity] = self.node_float
        self.node_int, self.node_float, self.capacity = node_int, node_float, capacity
        self.scratch_int = np.zeros((capacity, N_INT), dtype=np.int32)
        self.scratch_float = np.zeros((capacity, N_FLOAT), dtype=np.float32)

    def reserve(self, room: int) -> None:
        """Room in every row for a search of `room` nodes (`search_capacity`) on top of the
        subtree each row keeps, whose root is the search's root."""
        needed = int(self.size.max()) - 1 + room
        if needed > self.capacity:
            self.grow(needed)

    def expanded(self, g: int) -> int:
        """How many nodes of game g's tree have children."""
        return int((self.node_int[g, : self.size[g], FIRST] >= 0).sum())

    def root_visits(self, g: int) -> np.ndarray:
        """Visit counts of the root's children, indexed by action."""
        out = np.zeros(self.num_actions, dtype=np.float32)
        first, count = self.node_int[g, 0, FIRST], self.node_int[g, 0, COUNT]
        if first >= 0:
            kids = slice(first, first + count)
            out[self.node_int[g, kids, ACTION]] = self.node_int[g, kids, VISITS]
        return out

    def best_action(self, g: int) -> int:
        """The most visited move, except that a proven win is taken and a proven loss
        avoided whenever the solver knows better than the counts."""
        kids = self.root_children(g)
        visits = self.node_int[g, kids, VISITS].astype(np.float64)
        proven = self.node_int[g, kids, TERMINAL] != 0
        value = self.node_float[g, kids, TERM_VALUE]
        # Equal counts go to the higher prior: when every visited move is proven lost, the
        # choice is an unvisited one, the one the root guard checks first.
        score = visits + 1e-6 * self.node_float[g, kids, PRIOR]
        wins = proven & (value > 0)
        score[wins] = 1e12 * value[wins] + visits[wins]  # the fastest proven win (see select_child)
        if not (proven & (value < 0)).all():
            score[proven & (value < 0)] = -1.0
        return int(self.node_int[g, kids, ACTION][int(np.argmax(score))])

    def proven_win(self, g: int, action: int) -> bool:
        """Whether the solver (or the board) proved that `action` wins at game g's root."""
        kids = self.root_children(g)
        hit = np.flatnonzero(self.node_int[g, kids, ACTION] == action)
        if len(hit) == 0:
            return False
        j = kids.start + int(hit[0])
        return bool(self.node_int[g, j, TERMINAL] != 0 and self.node_float[g, j, TERM_VALUE] > 0)

    def proven_loss(self, g: int, action: int) -> bool:
        """Whether the solver (or the board) proved that `action` loses at game g's root."""
        kids = self.root_children(g)
        hit = np.flatnonzero(self.node_int[g, kids, ACTION] == action)
        if len(hit) == 0:
            return False
        j = kids.start + int(hit[0])
        return bool(self.node_int[g, j, TERMINAL] != 0 and self.node_float[g, j, TERM_VALUE] < 0)

    def root_value(self, g: int) -> float:
        """Mean value of the root for the player to move there."""
        visits = self.node_int[g, 0, VISITS]
        if visits == 0:
            return 0.0
        return float(self.node_float[g, 0, VALUE] / visits)

    def searched_value(self, g: int) -> float:
        """The root's value for the player to move as its search settled it: the proof where
        its children give one (a proven win: that win's value; every move proven: the best
        of them), else the mean (`root_value`). The mean of a proven root stays below its
        proof, as the root's own visits and those before the proof count in it."""
        kids = self.root_children(g)
        if kids.stop > kids.start:
            proven = self.node_int[g, kids, TERMINAL] != 0
            value = self.node_float[g, kids, TERM_VALUE]
            if (proven & (value > 0)).any() or proven.all():
                return float(value[proven].max())
        return self.root_value(g)

    def root_children(self, g: int) -> slice:
        first, count = self.node_int[g, 0, FIRST], self.node_int[g, 0, COUNT]
        return slice(first, first + count) if first >= 0 else slice(0, 0)

    def reroot(self, g: int, action: int, state_after: np.ndarray) -> bool:
        """Keep the subtree under `action` (tree reuse); start afresh if it was never
        expanded. `state_after` is the position after the move."""
        return reroot(
            self.node_int, self.node_float, self.size, g, action, state_after, self.scratch_int, self.scratch_float
        )


@njit(cache=True, nogil=True)
def reset_root(node_int, node_float, size, g, state):
    node_int[g, 0, :] = 0
    node_float[g, 0, :] = 0.0
    node_int[g, 0, PARENT] = -1
    node_int[g, 0, ACTION] = -1
    node_int[g, 0, FIRST] = -1
    # The root's value is kept for the player to move there, so FPU and reporting read it
    # directly; its "mover" is that player.
    node_int[g, 0, MOVER] = state[TO_MOVE]
    if state[WINNER] >= 0:
        node_int[g, 0, TERMINAL] = 1
        node_float[g, 0, TERM_VALUE] = terminal_value(state, state[TO_MOVE])
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
def expand(
    node_int,
    node_float,
    size,
    g,
    node,
    state,
    policy,
    rng,
    mask,
    use_policy,
    guided,
    shuffle,
    prove,
    prove_root,
    given_mask=False,
):
    """Give `node` one child per legal (or, with `guided`, candidate) move. Priors come
    from `policy` in the presented frame with `use_policy`, or are uniform; `shuffle`
    puts the children in a random order (drawn from `rng`). With `prove`, children that
    win at once are marked terminal, so the solver needs no visit to find them, and a
    proof reaches the root only with `prove_root` (see propagate_proof). `mask` is
    scratch room for the move mask. Returns the number of children, or FULL (the tree
    untouched) when the row has no room for them: the caller must grow the tree and
    expand again. The five flags are passed by name (numba takes keywords). With
    `given_mask`, `mask` already holds the moves to expand (the tactics narrowed them)."""
    if given_mask:
        n = 0
        for a in range(mask.shape[0]):
            if mask[a]:
                n += 1
    elif guided:
        n = candidate_mask(state, mask)
    else:
        n = legal_mask(state, mask)
    if n == 0:
        return 0
    first = size[g]
    if first + n > node_int.shape[1]:
        return FULL
    mover = state[TO_MOVE]
    j = first
    total = 0.0
    for a in range(mask.shape[0]):
        if not mask[a]:
            continue
        node_int[g, j, :] = 0
        node_float[g, j, :] = 0.0
        node_int[g, j, PARENT] = node
        node_int[g, j, ACTION] = a
        node_int[g, j, FIRST] = -1
        node_int[g, j, MOVER] = mover
        p = policy[presented_action(state, a)] if use_policy else 1.0
        if p < 0.0:
            p = 0.0
        node_float[g, j, PRIOR] = p
        total += p
        j += 1
    for j in range(first, first + n):
        node_float[g, j, PRIOR] = node_float[g, j, PRIOR] / total if total > 0.0 else 1.0 / n
    if shuffle:
        # UCT tries unvisited children in slot order: a random order removes the bias
        # towards low-numbered cells.
        for i in range(n - 1, 0, -1):
            k = rand_below(rng, i + 1)
            a_i = node_int[g, first + i, ACTION]
            p_i = node_float[g, first + i, PRIOR]
            node_int[g, first + i, ACTION] = node_int[g, first + k, ACTION]
            node_float[g, first + i, PRIOR] = node_float[g, first + k, PRIOR]
            node_int[g, first + k, ACTION] = a_i
            node_float[g, first + k, PRIOR] = p_i
    node_int[g, node, FIRST] = first
    node_int[g, node, COUNT] = n
    size[g] = first + n
    if prove:
        wins = np.zeros(state[HEIGHT] * state[WIDTH], dtype=np.bool_)
        if winning_moves(state, mover, wins) > 0:
            for j in range(first, first + n):
                a = node_int[g, j, ACTION]
                if a < wins.shape[0] and wins[a]:
                    node_int[g, j, TERMINAL] = 1
                    node_float[g, j, TERM_VALUE] = 1.0
                    propagate_proof(node_int, node_float, g, j, prove_root=prove_root)
                    break
    return n


@njit(cache=True, nogil=True)
def select_child(node_int, node_float, g, node, mode, c, fpu_reduction):
    first = node_int[g, node, FIRST]
    count = node_int[g, node, COUNT]
    parent_visits = node_int[g, node, VISITS]
    best = first
    best_score = -1e30
    if mode == UCT:
        log_n = np.log(max(parent_visits, 1))
        for j in range(first, first + count):
            n = node_int[g, j, VISITS]
            if n == 0:
                return j
            if node_int[g, j, TERMINAL] != 0 and node_float[g, j, TERM_VALUE] < 0.0:
                continue  # a proven loss is never worth another visit
            score = node_float[g, j, VALUE] / n + c * np.sqrt(log_n / n)
            if score > best_score:
                best_score = score
                best = j
        return best
    sqrt_n = np.sqrt(max(parent_visits, 1))
    # First-play urgency: an unvisited child is valued at its parent's mean value (for
    # the child's mover) minus a reduction.
    fpu = 0.0
    if parent_visits > 0:
        fpu = node_float[g, node, VALUE] / parent_visits
        if count > 0 and node_int[g, first, MOVER] != node_int[g, node, MOVER]:
            fpu = -fpu
    fpu -= fpu_reduction
    # A proven win for the player to move takes every visit (the fastest one: an immediate
    # win is worth 1.0, a win the solver proved a little less), so the visit counts, which
    # are the search's answer and the training target, point at it.
    win = -1
    win_value = 0.0
    for j in range(first, first + count):
        if node_int[g, j, TERMINAL] != 0 and node_float[g, j, TERM_VALUE] > win_value:
            win = j
            win_value = node_float[g, j, TERM_VALUE]
            continue
        n = node_int[g, j, VISITS]
        q = node_float[g, j, VALUE] / n if n > 0 else fpu
        score = q + c * node_float[g, j, PRIOR] * sqrt_n / (1.0 + n)
        if score > best_score:
            best_score = score
            best = j
    return win if win >= 0 else best


@njit(cache=True, nogil=True)
def descend(node_int, node_float, g, root_state, scratch, mode, c, fpu_reduction, root_fpu_reduction, virtual_loss):
    """Walk from the root to a leaf, replaying the moves into `scratch`. Each node on the
    path gets a visit now, and all but the root a virtual loss, which backup returns."""
    scratch[:] = root_state
    node = 0
    node_int[g, 0, VISITS] += 1
    while node_int[g, node, TERMINAL] == 0 and node_int[g, node, FIRST] >= 0:
        reduction = root_fpu_reduction if node == 0 else fpu_reduction
        child = select_child(node_int, node_float, g, node, mode, c, reduction)
        apply_unchecked(scratch, node_int[g, child, ACTION])
        node_int[g, child, VISITS] += 1
        node_float[g, child, VALUE] -= virtual_loss
        node = child
        if node_int[g, node, VISITS] == 1 and scratch[WINNER] >= 0:
            node_int[g, node, TERMINAL] = 1
            node_float[g, node, TERM_VALUE] = terminal_value(scratch, node_int[g, node, MOVER])
    return node


@njit(cache=True, nogil=True)
def backup(node_int, node_float, g, leaf, value, player, virtual_loss):
    """Add `value` (for `player`) along the path from `leaf` to the root."""
    node = leaf
    while node >= 0:
        v = value if node_int[g, node, MOVER] == player else -value
        if node != 0:
            v += virtual_loss
        node_float[g, node, VALUE] += v
        node = node_int[g, node, PARENT]


@njit(cache=True, nogil=True)
def backup_terminal(node_int, node_float, g, leaf, virtual_loss):
    """Back up the exact value of a terminal (or proven) leaf."""
    backup(node_int, node_float, g, leaf, node_float[g, leaf, TERM_VALUE], node_int[g, leaf, MOVER], virtual_loss)


@njit(cache=True, nogil=True)
def propagate_proof(node_int, node_float, g, node, prove_root):
    """MCTS-Solver: a terminal (or proven) node can prove its parent. A child that wins
    for the parent's player to move proves the parent at once; a parent all of whose
    children are proven takes the best of them. Proven nodes are then treated as
    terminal by descent, so their exact value is backed up from then on. Without
    `prove_root` the root stays open, so its visits keep flowing to the proven child
    (PUCT's visit counts are its answer)."""
    while node != 0 and node_int[g, node, TERMINAL] != 0:
        parent = node_int[g, node, PARENT]
        if node_int[g, parent, TERMINAL] != 0 or (parent == 0 and not prove_root):
            return
        chooser = node_int[g, node, MOVER]
        best = node_float[g, node, TERM_VALUE]
        if best <= 0.0:
            first = node_int[g, parent, FIRST]
            for j in range(first, first + node_int[g, parent, COUNT]):
                if node_int[g, j, TERMINAL] == 0:
                    return
                if node_float[g, j, TERM_VALUE] > best:
                    best = node_float[g, j, TERM_VALUE]
        node_int[g, parent, TERMINAL] = 1
        node_float[g, parent, TERM_VALUE] = best if node_int[g, parent, MOVER] == chooser else -best
        node = parent


@njit(cache=True, nogil=True)
def revert(node_int, node_float, g, leaf, virtual_loss):
    """Undo a descent that found its leaf already waiting for evaluation."""
    node = leaf
    while node >= 0:
        node_int[g, node, VISITS] -= 1
        if node != 0:
            node_float[g, node, VALUE] += virtual_loss
        node = node_int[g, node, PARENT]


@njit(cache=True, nogil=True)
def reroot(node_int, node_float, size, g, action, state_after, scratch_int, scratch_float):
    first = node_int[g, 0, FIRST]
    child = -1
    if first >= 0:
        for j in range(first, first + node_int[g, 0, COUNT]):
            if node_int[g, j, ACTION] == action:
                child = j
                break
    if child < 0 or (node_int[g, child, FIRST] < 0 and node_int[g, child, TERMINAL] == 0):
        reset_root(node_int, node_float, size, g, state_after)
        return False
    # Breadth-first copy of the kept subtree into scratch keeps child blocks contiguous.
    scratch_int[0, :] = node_int[g, child, :]
    scratch_float[0, :] = node_float[g, child, :]
    scratch_int[0, PARENT] = -1
    head = 0
    new_size = 1
    while head < new_size:
        old_first = scratch_int[head, FIRST]
        count = scratch_int[head, COUNT]
        if old_first >= 0:
            scratch_int[head, FIRST] = new_size
            for k in range(count):
                scratch_int[new_size + k, :] = node_int[g, old_first + k, :]
                scratch_float[new_size + k, :] = node_float[g, old_first + k, :]
                scratch_int[new_size + k, PARENT] = head
            new_size += count
        head += 1
    node_int[g, :new_size, :] = scratch_int[:new_size, :]
    node_float[g, :new_size, :] = scratch_float[:new_size, :]
    # A subtree root that the solver had proven is searched again as a live position, so
    # its visits flow to the proven move; only a finished game keeps a terminal root.
    if state_after[WINNER] < 0:
        node_int[g, 0, TERMINAL] = 0
    # The root keeps its value for the player to move (see reset_root).
    if node_int[g, 0, MOVER] != state_after[TO_MOVE]:
        node_float[g, 0, VALUE] = -node_float[g, 0, VALUE]
        node_int[g, 0, MOVER] = state_after[TO_MOVE]
    size[g] = new_size
    return True


@njit(cache=True, nogil=True)
def prove_move(node_int, node_float, g, node, action, value, prove_root):
    """The solver proved that `action` wins for the player to move at `node`: `value` is
    1.0 for a move that completes the line, SOLVED_WIN for a longer proof."""
    first = node_int[g, node, FIRST]
    for j in range(first, first + node_int[g, node, COUNT]):
        if node_int[g, j, ACTION] == action:
            if node_int[g, j, TERMINAL] == 0:
                node_int[g, j, TERMINAL] = 1
                node_float[g, j, TERM_VALUE] = value
                propagate_proof(node_int, node_float, g, j, prove_root=prove_root)
            return


@njit(cache=True, nogil=True)
def prove_lost(node_int, node_float, g, node, prove_root):
    """The solver proved that the player to move at `node` loses: a win for its mover.
    The root stays open unless `prove_root` (it must still choose a move)."""
    if node == 0 and not prove_root:
        return
    node_int[g, node, TERMINAL] = 1
    node_float[g, node, TERM_VALUE] = SOLVED_WIN
    propagate_proof(node_int, node_float, g, node, prove_root=prove_root)


@njit(cache=True, nogil=True)
def prove_any(node_int, node_float, g, node, value, prove_root):
    """Every child of `node` is known to win for the player to move there (Hex: a winning
    connection survives any own move): prove the one with the highest prior."""
    first = node_int[g, node, FIRST]
    best = -1
    for j in range(first, first + node_int[g, node, COUNT]):
        if best < 0 or node_float[g, j, PRIOR] > node_float[g, best, PRIOR]:
            best = j
    if best >= 0:
        prove_move(node_int, node_float, g, node, node_int[g, best, ACTION], value, prove_root=prove_root)


@njit(cache=True, nogil=True)
def boost_children(node_int, node_float, g, node, marks, share):
    """Give the children whose action is marked in `marks` a `share` of the prior mass,
    split evenly, on top of (1 - share) of their own: the priors still sum to one."""
    first = node_int[g, node, FIRST]
    count = node_int[g, node, COUNT]
    hits = 0
    for j in range(first, first + count):
        a = node_int[g, j, ACTION]
        if a < marks.shape[0] and marks[a]:
            hits += 1
    if hits == 0 or hits == count:
        return
    for j in range(first, first + count):
        a = node_int[g, j, ACTION]
        p = node_float[g, j, PRIOR] * (1.0 - share)
        if a < marks.shape[0] and marks[a]:
            p += share / hits
        node_float[g, j, PRIOR] = p
