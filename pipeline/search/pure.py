"""Pure MCTS: UCT over the shared array tree, uniform priors, random-rollout values, the
whole playout loop compiled. This is the ladder every model is judged against."""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from pipeline.games.base import GameState
from pipeline.games.kernels import apply_unchecked
from pipeline.games.layout import BOARD, HEIGHT, TO_MOVE, WIDTH, WINNER
from pipeline.games.renju import NOT_FORBIDDEN, forbidden_at, is_renju
from pipeline.search.rng import make_rng, rand_below
from pipeline.search.tree import (
    ACTION,
    FIRST,
    FULL,
    MOVER,
    TERM_VALUE,
    TERMINAL,
    UCT,
    VISITS,
    Tree,
    backup,
    backup_terminal,
    descend,
    expand,
    propagate_proof,
    revert,
    search_capacity,
    select_child,
    terminal_value,
)


@njit(cache=True, nogil=True)
def rollout(s, rng, empties):
    """Play uniformly random moves until the game ends; return the winner code. Swap is
    never chosen: rollouts only place stones."""
    cells = s[HEIGHT] * s[WIDTH]
    n = 0
    for cell in range(cells):
        if s[BOARD + cell] == 0:
            empties[n] = cell
            n += 1
    if is_renju(s):
        return renju_rollout(s, rng, empties, n)
    while s[WINNER] < 0 and n > 0:
        j = rand_below(rng, n)
        cell = empties[j]
        n -= 1
        empties[j] = empties[n]
        apply_unchecked(s, cell)
    return s[WINNER]


@njit(cache=True, nogil=True)
def renju_rollout(s, rng, empties, n):
    """`rollout` under renju: black's random move is drawn again while it falls on a
    forbidden cell (those are moved out of the draw for this move only: the next stones
    may free them). The rules end the game when black has no legal move left."""
    while s[WINNER] < 0 and n > 0:
        m = n
        cell = -1
        while m > 0:
            j = rand_below(rng, m)
            e = empties[j]
            if s[TO_MOVE] == 0 and forbidden_at(s, e) != NOT_FORBIDDEN:
                m -= 1
                empties[j] = empties[m]
                empties[m] = e
                continue
            cell = e
            n -= 1
            empties[j] = empties[n]
            empties[n] = e
            break
        if cell < 0:
            break
        apply_unchecked(s, cell)
    return s[WINNER]


@njit(cache=True, nogil=True)
def rollout_value(s, player, rng, empties):
    rollout(s, rng, empties)
    return terminal_value(s, player)


@njit(cache=True, nogil=True)
def expand_uniform(node_int, node_float, size, g, node, state, dummy, rng, mask):
    """UCT's expansion: every legal move, uniform priors in a random order, immediate wins
    proven up to the root (pure MCTS's answer is the solver's when it has one)."""
    return expand(
        node_int,
        node_float,
        size,
        g,
        node,
        state,
        dummy,
        rng,
        mask,
        use_policy=False,
        guided=False,
        shuffle=True,
        prove=True,
        prove_root=True,
    )


@njit(cache=True, nogil=True)
def uct_search(node_int, node_float, size, g, root_state, playouts, c, rng, scratch, empties, mask):
    """Run up to `playouts` UCT playouts from the root (slot 0); return how many ran. A
    leaf is expanded on its second visit, which keeps the tree small without changing
    what UCT converges to. Fewer run when the root is solved, or when the row is full:
    then the unfinished playout is undone and the caller grows the tree and goes on."""
    dummy = np.zeros(1, dtype=np.float32)
    root_leaf = node_int[g, 0, TERMINAL] == 0 and node_int[g, 0, FIRST] < 0
    if root_leaf and expand_uniform(node_int, node_float, size, g, 0, root_state, dummy, rng, mask) == FULL:
        return 0
    done = 0
    while done < playouts:
        if node_int[g, 0, TERMINAL] != 0:
            break  # the root is solved: more playouts cannot change the answer
        leaf = descend(
            node_int,
            node_float,
            g,
            root_state,
            scratch,
            UCT,
            c,
            fpu_reduction=0.0,
            root_fpu_reduction=0.0,
            virtual_loss=0.0,
        )
        done += 1
        if node_int[g, leaf, TERMINAL] != 0:
            propagate_proof(node_int, node_float, g, leaf, prove_root=True)
            backup_terminal(node_int, node_float, g, leaf, virtual_loss=0.0)
            continue
        if node_int[g, leaf, VISITS] > 1:
            added = expand_uniform(node_int, node_float, size, g, leaf, scratch, dummy, rng, mask)
            if added == FULL:
                revert(node_int, node_float, g, leaf, virtual_loss=0.0)
                return done - 1
            if added > 0:
                child = select_child(node_int, node_float, g, leaf, UCT, c, fpu_reduction=0.0)
                apply_unchecked(scratch, node_int[g, child, ACTION])
                node_int[g, child, VISITS] += 1
                leaf = child
                if scratch[WINNER] >= 0:
                    node_int[g, leaf, TERMINAL] = 1
                    node_float[g, leaf, TERM_VALUE] = terminal_value(scratch, node_int[g, leaf, MOVER])
                    propagate_proof(node_int, node_float, g, leaf, prove_root=True)
                    backup_terminal(node_int, node_float, g, leaf, virtual_loss=0.0)
                    continue
        mover = scratch[TO_MOVE]
        value = rollout_value(scratch, mover, rng, empties)
        backup(node_int, node_float, g, leaf, value, mover, virtual_loss=0.0)
    return done


TIMED_CHUNK = 1000  # playouts between clock checks in a time-limited search


class PureMCTS:
    """UCT with random rollouts, `playouts` per move, seeded and reproducible. The tree is
    kept between moves of the same game when `reuse` is on."""

    def __init__(self, playouts: int, c: float = 2.0, seed: int = 0, reuse: bool = False, capacity: int | None = None):
        self.playouts = playouts
        self.c = c
        self.rng = make_rng(seed)
        self.reuse = reuse
        self._capacity = capacity
        self._tree: Tree | None = None
        self.last_playouts = 0  # playouts the last search ran (fewer once the root is solved)
        self.grown = 0  # times a search found the tree full and grew it
        self._root_key: tuple[int, ...] | None = None

    def _ensure_tree(self, state: GameState) -> Tree:
        spec = state.spec
        tree = self._tree
        if tree is None or tree.num_actions != spec.num_actions:
            capacity = self._capacity or search_capacity(spec.num_actions, self.playouts)
            tree = Tree(1, max(capacity, spec.num_actions + 1), spec.num_actions)
            self._tree = tree
            self._root_key = None
        return tree

    def search(self, state: GameState, playouts: int | None = None, seconds: float | None = None) -> np.ndarray:
        """Visit counts of the root's moves, indexed by action, after `playouts` playouts
        (default the player's own), or as many as `seconds` allow when only a time is
        given, or whichever ends first when both are. One tree grows the whole time."""
        if playouts is None and seconds is None:
            playouts = self.playouts
        tree = self._ensure_tree(state)
        key = tuple(state.history)
        if not (self.reuse and self._root_key is not None and key == self._root_key):
            tree.reset(0, state.array)
        if self._capacity is None:
            # A leaf is expanded on its second visit: each playout adds at most one block.
            tree.reserve(search_capacity(state.spec.num_actions, playouts or TIMED_CHUNK))
        deadline = None if seconds is None else time.perf_counter() + seconds
        before = int(tree.node_int[0, 0, VISITS])
        scratch = np.empty_like(state.array)
        empties = np.empty(state.spec.cells, dtype=np.int64)
        done = 0
        while True:
            want = TIMED_CHUNK if playouts is None else playouts - done
            if deadline is not None:
                want = min(want, TIMED_CHUNK)
            ran = uct_search(
                tree.node_int,
                tree.node_float,
                tree.size,
                0,
                state.array,
                want,
                self.c,
                self.rng,
                scratch,
                empties,
                tree.mask,
            )
            done += ran
            if tree.node_int[0, 0, TERMINAL] != 0:
                break
            if ran < want:
                tree.grow()  # the row was full: the unfinished playout was undone
                self.grown += 1
                continue
            if (playouts is not None and done >= playouts) or (
                deadline is not None and time.perf_counter() >= deadline
            ):
                break
        self._root_key = key
        self.last_playouts = int(tree.node_int[0, 0, VISITS]) - before
        return tree.root_visits(0)

    @property
    def tree(self) -> Tree | None:
        return self._tree

    @property
    def solved(self) -> bool:
        """The last search proved the root's result."""
        return self._tree is not None and self._tree.node_int[0, 0, TERMINAL] != 0

    def best_action(self) -> int:
        assert self._tree is not None, "search first"
        return self._tree.best_action(0)

    def root_value(self) -> float:
        assert self._tree is not None, "search first"
        return self._tree.root_value(0)

    def choose(self, state: GameState) -> int:
        self.search(state)
        assert self._tree is not None
        action = self._tree.best_action(0)
        if self.reuse and self._tree is not None:
            after = state.copy().apply(action)
            self._tree.reroot(0, action, after.array)
            self._root_key = tuple(after.history)
        return action

    def observe(self, state_after: GameState, action: int) -> None:
        """Follow a move made by the other side, keeping the subtree when reusing."""
        if self.reuse and self._tree is not None and self._root_key == tuple(state_after.history[:-1]):
            self._tree.reroot(0, action, state_after.array)
            self._root_key = tuple(state_after.history)
