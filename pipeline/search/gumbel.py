"""Gumbel root search (Danihelka et al., ICLR 2022, "Policy improvement by planning with
Gumbel"; the reference implementation is mctx's `gumbel_muzero_policy`).

At the root, Gumbel noise g(a) is added to the log priors and the top m = min(considered,
moves) actions by g(a) + logits(a) are searched by sequential halving: log2(m) phases,
each giving every remaining action floor(n / (log2(m) * remaining)) more visits, then
keeping the better half by g + logits + sigma(completed Q). The move played is the best
of the last ones left, which with the noise is already a sample from the improved policy.
Below the root the selection is deterministic: argmax_a pi'(a) - N(a) / (1 + sum_b N(b)),
with pi' = softmax(logits + sigma(completed Q)).

Completed Q-values (the one definition, also the training target's, see
`improved_policy`), from the point of view of the player to move at the node:
- a proven move (the board or the solvers) has its exact value;
- a visited move has its searched mean;
- an unvisited move has the value the caller measured for the position after it when it
  passes one (`given`: the opening plies of self-play buy them with a forward pass, see
  pipeline.selfplay.opening), else the paper's mixed value (appendix D): the node's raw
  net value mixed with the prior-weighted mean Q of the visited moves,
  (v + sum N * sum_visited p q / sum_visited p) / (1 + sum N), which costs nothing.
They are rescaled to [0, 1] over the node's moves and sigma(q) = (c_visit + max N) *
c_scale * q.

The kernels work on the array tree (pipeline.search.tree); `BatchedMCTS` holds the root's
per-game schedule (`RootSchedule`) and calls them when `SearchConfig.root` is "gumbel"."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit
from pydantic import BaseModel, ConfigDict, Field

from pipeline.games.kernels import apply_unchecked
from pipeline.games.layout import WINNER
from pipeline.search.tree import (
    ACTION,
    COUNT,
    FIRST,
    MOVER,
    PRIOR,
    RAW,
    TERM_VALUE,
    TERMINAL,
    VALUE,
    VISITS,
    Tree,
    terminal_value,
)

C_VISIT = 50.0
C_SCALE = 0.1
TINY = 1e-12  # the floor of a prior before its log
NOT_GIVEN = np.zeros(0, dtype=np.float64)  # `given` when the caller measured nothing


class GumbelConfig(BaseModel):
    """Knobs of the Gumbel root search (`SearchConfig.root: gumbel`)."""

    model_config = ConfigDict(extra="forbid")

    considered_actions: int = Field(16, ge=1, description="root moves sampled by Gumbel top-m for sequential halving")
    c_visit: float = Field(C_VISIT, gt=0, description="sigma(q) = (c_visit + max visits) * c_scale * q")
    c_scale: float = Field(C_SCALE, gt=0)


def considered_visits(considered: int, simulations: int, length: int | None = None) -> np.ndarray:
    """Sequential halving's schedule, mctx's `get_sequence_of_considered_visits`: entry k
    is the visit count an action must have to receive simulation k. Each phase gives every
    one of the `considered` remaining actions max(1, n // (ceil(log2 m) * considered))
    visits, then halves them (to no fewer than 2). `length` > n continues the last phase
    (a search bounded by time)."""
    length = simulations if length is None else length
    if considered <= 1:
        return np.arange(length, dtype=np.int64)
    log2max = math.ceil(math.log2(considered))
    sequence: list[int] = []
    visits = [0] * considered
    remaining = considered
    while len(sequence) < length:
        extra = max(1, simulations // (log2max * remaining))
        for _ in range(extra):
            sequence.extend(visits[:remaining])
            for i in range(remaining):
                visits[i] += 1
        remaining = max(2, remaining // 2)
    return np.asarray(sequence[:length], dtype=np.int64)


class RootSchedule(NamedTuple):
    """Per game, the Gumbel root's sequential halving in progress: `base[g, k]` = g + logits
    of the root's k-th child, `count[g, k]` its visits in this search, `sim[g]` the
    simulations handed out, `schedule[g, :length[g]]` the visit count each simulation's
    child must have (`considered_visits` of `considered[g]` moves and `planned[g]`
    simulations); `ready[g]` once set up for the current search. The compiled selection
    (`pipeline.search.step.select_batch`) reads it as it is."""

    ready: np.ndarray
    base: np.ndarray
    count: np.ndarray
    sim: np.ndarray
    schedule: np.ndarray
    length: np.ndarray
    considered: np.ndarray
    planned: np.ndarray
    c_visit: float
    c_scale: float
    buf: np.ndarray

    @classmethod
    def empty(cls, games: int, actions: int, config: GumbelConfig) -> RootSchedule:
        """Room for `actions` root children (0: a PUCT search, which never reads it)."""
        return cls(
            ready=np.zeros(games, dtype=np.bool_),
            base=np.zeros((games, actions), dtype=np.float64),
            count=np.zeros((games, actions), dtype=np.int64),
            sim=np.zeros(games, dtype=np.int64),
            schedule=np.zeros((games, 0), dtype=np.int64),
            length=np.zeros(games, dtype=np.int64),
            considered=np.zeros(games, dtype=np.int64),
            planned=np.zeros(games, dtype=np.int64),
            c_visit=config.c_visit,
            c_scale=config.c_scale,
            buf=np.zeros(actions, dtype=np.float64),
        )

    def widened(self, length: int) -> RootSchedule:
        schedule = np.zeros((self.schedule.shape[0], length), dtype=np.int64)
        schedule[:, : self.schedule.shape[1]] = self.schedule
        return self._replace(schedule=schedule)


@njit(cache=True, nogil=True)
def completed_q(node_int, node_float, g, node, given, out):
    """out[k]: the completed Q of the node's k-th child (module docstring), for the player
    to move at the node; `given[k]` (NaN: none) is the caller's value of an unvisited
    child. Returns the children's largest visit count."""
    first = node_int[g, node, FIRST]
    count = node_int[g, node, COUNT]
    total = 0
    most = 0
    visited_prior = 0.0
    weighted_q = 0.0
    for k in range(count):
        j = first + k
        n = node_int[g, j, VISITS]
        if n > 0:
            p = max(node_float[g, j, PRIOR], TINY)
            total += n
            most = max(most, n)
            visited_prior += p
            weighted_q += p * node_float[g, j, VALUE] / n
    mixed = node_float[g, node, RAW]
    if total > 0:
        mixed = (mixed + total * weighted_q / visited_prior) / (1.0 + total)
    for k in range(count):
        j = first + k
        n = node_int[g, j, VISITS]
        if node_int[g, j, TERMINAL] != 0:
            out[k] = node_float[g, j, TERM_VALUE]
        elif n > 0:
            out[k] = node_float[g, j, VALUE] / n
        elif k < given.shape[0] and not np.isnan(given[k]):
            out[k] = given[k]
        else:
            out[k] = mixed
    return most


@njit(cache=True, nogil=True)
def sigma_q(node_int, node_float, g, node, c_visit, c_scale, given, out):
    """out[k] = sigma(completed Q) of the node's k-th child: rescaled to [0, 1] over the
    node's children, times (c_visit + max N) * c_scale."""
    count = node_int[g, node, COUNT]
    most = completed_q(node_int, node_float, g, node, given, out)
    low = 1e30
    high = -1e30
    for k in range(count):
        low = min(low, out[k])
        high = max(high, out[k])
    scale = (c_visit + most) * c_scale / max(high - low, 1e-8)
    for k in range(count):
        out[k] = (out[k] - low) * scale


@njit(cache=True, nogil=True)
def improved_logits(node_int, node_float, g, node, c_visit, c_scale, given, out):
    """out[k] = log prior + sigma(completed Q) of the k-th child: the improved policy's
    logits (pi' = softmax of them)."""
    first = node_int[g, node, FIRST]
    sigma_q(node_int, node_float, g, node, c_visit, c_scale, given, out)
    for k in range(node_int[g, node, COUNT]):
        out[k] += np.log(max(node_float[g, first + k, PRIOR], TINY))


@njit(cache=True, nogil=True)
def proven_win_child(node_int, node_float, g, node):
    """The child that wins soonest for the player to move at `node` (an immediate win is
    worth 1.0, a solver's proof a little less), or -1."""
    first = node_int[g, node, FIRST]
    win = -1
    best = 0.0
    for j in range(first, first + node_int[g, node, COUNT]):
        if node_int[g, j, TERMINAL] != 0 and node_float[g, j, TERM_VALUE] > best:
            win = j
            best = node_float[g, j, TERM_VALUE]
    return win


@njit(cache=True, nogil=True)
def _lost(node_int, node_float, g, j):
    return node_int[g, j, TERMINAL] != 0 and node_float[g, j, TERM_VALUE] < 0.0


@njit(cache=True, nogil=True)
def _all_lost(node_int, node_float, g, node):
    first = node_int[g, node, FIRST]
    for j in range(first, first + node_int[g, node, COUNT]):  # noqa: SIM110 (numba: no all() over a generator)
        if not _lost(node_int, node_float, g, j):
            return False
    return True


@njit(cache=True, nogil=True)
def interior_child(node_int, node_float, g, node, c_visit, c_scale, buf):
    """The paper's deterministic selection below the root: argmax pi'(a) - N(a) / (1 +
    sum N), pi' = softmax(logits + sigma(completed Q)). A proven win takes every visit, as
    in PUCT (pipeline.search.tree.select_child)."""
    win = proven_win_child(node_int, node_float, g, node)
    if win >= 0:
        return win
    first = node_int[g, node, FIRST]
    count = node_int[g, node, COUNT]
    improved_logits(node_int, node_float, g, node, c_visit, c_scale, NOT_GIVEN, buf)
    top = -1e30
    total = 0
    for k in range(count):
        top = max(top, buf[k])
        total += node_int[g, first + k, VISITS]
    mass = 0.0
    for k in range(count):
        buf[k] = np.exp(buf[k] - top)
        mass += buf[k]
    best = first
    best_score = -1e30
    for k in range(count):
        score = buf[k] / mass - node_int[g, first + k, VISITS] / (1.0 + total)
        if score > best_score:
            best_score = score
            best = first + k
    return best


@njit(cache=True, nogil=True)
def _best_of_most_visited(node_int, node_float, g, base, count, c_visit, c_scale, buf):
    """Among the root's moves with the most visits of this search (proven losses left out
    while another move exists), the best by g + logits + sigma(completed Q)."""
    first = node_int[g, 0, FIRST]
    n = node_int[g, 0, COUNT]
    avoid = not _all_lost(node_int, node_float, g, 0)
    most = -1
    for k in range(n):
        if not (avoid and _lost(node_int, node_float, g, first + k)):
            most = max(most, count[k])
    sigma_q(node_int, node_float, g, 0, c_visit, c_scale, NOT_GIVEN, buf)
    best = _best_at_count(node_int, node_float, g, base, count, most, avoid, buf)
    return first if best < 0 else best


@njit(cache=True, nogil=True)
def _best_at_count(node_int, node_float, g, base, count, visits, avoid, buf):
    """Among the root's moves with `visits` visits in this search (proven losses left out
    with `avoid`), the best by g + logits + sigma(completed Q) (`buf`); -1 if none."""
    first = node_int[g, 0, FIRST]
    best = -1
    best_score = -1e30
    for k in range(node_int[g, 0, COUNT]):
        if count[k] != visits or (avoid and _lost(node_int, node_float, g, first + k)):
            continue
        score = base[k] + buf[k]
        if score > best_score:
            best_score = score
            best = first + k
    return best


@njit(cache=True, nogil=True)
def root_child(node_int, node_float, g, base, count, considered, c_visit, c_scale, buf):
    """The root child that the next simulation visits: among the moves that this search
    has visited exactly `considered` times (the schedule's entry), the best by g + logits
    + sigma(completed Q) (mctx's `score_considered`). `base[k]` is g + logits of the k-th
    child, `count[k]` its visits in this search. A proven win takes every visit; a proven
    loss none while another move exists. With no move at the scheduled count (a proven
    loss left the halving), the best of the most visited."""
    win = proven_win_child(node_int, node_float, g, 0)
    if win >= 0:
        return win
    avoid = not _all_lost(node_int, node_float, g, 0)
    sigma_q(node_int, node_float, g, 0, c_visit, c_scale, NOT_GIVEN, buf)
    best = _best_at_count(node_int, node_float, g, base, count, considered, avoid, buf)
    if best < 0:
        return _best_of_most_visited(node_int, node_float, g, base, count, c_visit, c_scale, buf)
    return best


@njit(cache=True, nogil=True)
def chosen_child(node_int, node_float, g, base, count, c_visit, c_scale, buf):
    """The search's move: a proven win (the soonest), else the best remaining action of
    sequential halving (the most visited in this search, best by g + logits + sigma(q))."""
    win = proven_win_child(node_int, node_float, g, 0)
    if win >= 0:
        return win
    return _best_of_most_visited(node_int, node_float, g, base, count, c_visit, c_scale, buf)


@njit(cache=True, nogil=True)
def _enter(node_int, node_float, g, child, scratch, virtual_loss):
    apply_unchecked(scratch, node_int[g, child, ACTION])
    node_int[g, child, VISITS] += 1
    node_float[g, child, VALUE] -= virtual_loss
    if node_int[g, child, VISITS] == 1 and scratch[WINNER] >= 0:
        node_int[g, child, TERMINAL] = 1
        node_float[g, child, TERM_VALUE] = terminal_value(scratch, node_int[g, child, MOVER])


@njit(cache=True, nogil=True)
def descend_from(node_int, node_float, g, root_state, scratch, child, c_visit, c_scale, virtual_loss, buf):
    """Walk from the root through its child `child` (the halving's pick) to a leaf, with
    the deterministic selection below; visits and virtual loss as in tree.descend."""
    scratch[:] = root_state
    node_int[g, 0, VISITS] += 1
    _enter(node_int, node_float, g, child, scratch, virtual_loss)
    node = child
    while node_int[g, node, TERMINAL] == 0 and node_int[g, node, FIRST] >= 0:
        node = interior_child(node_int, node_float, g, node, c_visit, c_scale, buf)
        _enter(node_int, node_float, g, node, scratch, virtual_loss)
    return node


def improved_policy(
    tree: Tree,
    g: int,
    c_visit: float = C_VISIT,
    c_scale: float = C_SCALE,
    given: np.ndarray | None = None,
    log_prior: np.ndarray | None = None,
) -> np.ndarray:
    """The improved policy softmax(logits + sigma(completed Q)) at game g's root, over
    every action (zero off the root's moves): Gumbel AlphaZero's training target. `given`
    (by child, NaN where not measured) and `log_prior` (by child; default the tree's
    priors) are for a caller that knows better than the tree (see the module docstring)."""
    out = np.zeros(tree.num_actions, dtype=np.float64)
    kids = tree.root_children(g)
    count = kids.stop - kids.start
    if count == 0:
        return out
    buf = np.zeros(count, dtype=np.float64)
    known = NOT_GIVEN if given is None else np.ascontiguousarray(given, dtype=np.float64)
    if log_prior is None:
        improved_logits(tree.node_int, tree.node_float, g, 0, c_visit, c_scale, known, buf)
    else:
        sigma_q(tree.node_int, tree.node_float, g, 0, c_visit, c_scale, known, buf)
        buf += log_prior
    buf -= buf.max()
    p = np.exp(buf)
    out[tree.node_int[g, kids, ACTION]] = p / p.sum()
    return out
