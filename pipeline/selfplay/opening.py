"""Opening exploration in self-play: the first plies are where a net's bias feeds itself.

On a big board the empty position is one training position in about fifty, and its visit
distribution follows the net's own prior: 200 simulations over 225 moves visit few of
them, so an early lean to the edges is confirmed rather than corrected (RESULTS.md,
2026-11-24). Two remedies, both from the learning side, none a rule about where to play:

- `random_first_moves`: a share of the games opens with `random_opening_plies` moves drawn
  uniformly from the legal ones (within `random_opening_radius` of the centre when set; a
  list of lengths: each game draws one, so a lone first stone answered by search trains the
  boards a first stone leaves, which a three-stone opening skips),
  so the value head sees games after every opening, not only after the moves its prior
  likes, and both colours play from the varied openings matches are judged from (the
  positions inside an opening of several plies, between random moves, are not kept: their
  outcomes follow random replies);
- `completed_q_plies`: for the first plies, the policy target is Gumbel AlphaZero's
  improved policy from completed Q-values (Danihelka et al., ICLR 2022; one definition,
  pipeline.search.gumbel): softmax(log prior + sigma(q)), where q is the searched value of
  a visited move and, bought here with one batched forward pass, the net's value of the
  position after it for every other move (where the Gumbel search's own target uses the
  free mixed value), rescaled to [0, 1], and sigma(q) = (c_visit + max visits) * c_scale *
  q. Every move's target then follows its own value, visited or not.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pipeline.games.base import GameState
from pipeline.search import gumbel
from pipeline.search.evaluator import Evaluator
from pipeline.search.gumbel import C_SCALE, C_VISIT
from pipeline.search.tree import ACTION, VISITS, Tree


def random_opening_move(state: GameState, rng: np.random.Generator, radius: int | None = None) -> int:
    """A move drawn uniformly from the legal board cells, within `radius` cells of the
    centre (Chebyshev distance) when given and one is free there."""
    spec = state.spec
    legal = np.flatnonzero(state.legal_mask())
    cells = legal[legal < spec.cells]  # a cell, never a pass or the swap
    if radius is not None:
        row, col = np.divmod(cells, spec.width)
        reach = radius + 0.5  # on an even board the centre is a point between four cells
        near = (np.abs(row - (spec.height - 1) / 2) <= reach) & (np.abs(col - (spec.width - 1) / 2) <= reach)
        if near.any():
            cells = cells[near]
    return int(rng.choice(cells))


def opening_length(plies: int | Sequence[int], rng: np.random.Generator) -> int:
    """How many plies of a game's random opening are random: `plies`, or one of them drawn
    uniformly (a fixed length draws nothing, so a run's games do not change with the type)."""
    if isinstance(plies, int):
        return plies
    return int(plies[int(rng.integers(len(plies)))])


def unvisited_values(state: GameState, evaluator: Evaluator, tree: Tree, g: int) -> np.ndarray:
    """By root child: the value, for the player to move, of the position after each move
    the search did not visit (the board's verdict where the move ends the game, else the
    net's, in one batched forward pass); NaN for the visited moves."""
    kids = tree.root_children(g)
    actions = tree.node_int[g, kids, ACTION].astype(np.int64)
    out = np.full(len(actions), np.nan, dtype=np.float64)
    unseen = np.flatnonzero(tree.node_int[g, kids, VISITS] == 0)
    if len(unseen):
        children = [state.copy().apply(int(a)) for a in actions[unseen]]
        _, values = evaluator(np.stack([c.observation() for c in children]))
        values = np.asarray(values, dtype=np.float64).reshape(-1)
        for i, (j, child) in enumerate(zip(unseen, children, strict=True)):
            if child.is_terminal:  # the board's verdict, not the net's
                out[j] = 0.0 if child.winner is None else (1.0 if child.winner == state.current_player else -1.0)
            else:
                out[j] = values[i] if child.current_player == state.current_player else -values[i]
    return out


def improved_policy(
    state: GameState, evaluator: Evaluator, tree: Tree, g: int, c_visit: float = C_VISIT, c_scale: float = C_SCALE
) -> np.ndarray:
    """Gumbel AlphaZero's policy target from completed Q-values (pipeline.search.gumbel's
    `improved_policy`), over every action (zero off the root's moves), with each unvisited
    move valued by the net (`unvisited_values`) and the net's own prior of the root (the
    tree's may carry Dirichlet noise)."""
    kids = tree.root_children(g)
    if kids.stop == kids.start:
        return np.zeros(state.spec.num_actions, dtype=np.float64)
    priors, _ = evaluator(state.observation()[None])
    prior = np.asarray(priors, dtype=np.float64)[0][state.presented_order()]  # presented frame -> actions
    actions = tree.node_int[g, kids, ACTION].astype(np.int64)
    log_prior = np.log(np.maximum(prior[actions], gumbel.TINY))
    given = unvisited_values(state, evaluator, tree, g)
    return gumbel.improved_policy(tree, g, c_visit, c_scale, given=given, log_prior=log_prior)
