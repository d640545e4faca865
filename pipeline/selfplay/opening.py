"""Opening exploration in self-play: the first plies are where a net's bias feeds itself.

On a big board the empty position is one training position in about fifty, and its visit
distribution follows the net's own prior: 200 simulations over 225 moves visit few of
them, so an early lean to the edges is confirmed rather than corrected (RESULTS.md,
2026-11-24). Two remedies, both from the learning side, none a rule about where to play:

- `random_first_moves`: a share of the games opens with a move drawn uniformly from the
  legal ones, so the value head sees games after every first move, not only after the
  moves its prior likes;
- `completed_q_plies`: for the first plies, the policy target is Gumbel AlphaZero's
  improved policy from completed Q-values (Danihelka et al., ICLR 2022):
  softmax(log prior + sigma(q)), where q is the searched value of a visited move and the
  net's value of the position after it for every other move (one batched forward pass),
  rescaled to [0, 1], and sigma(q) = (c_visit + max visits) * c_scale * q. Every move's
  target then follows its value, visited or not.
"""

from __future__ import annotations

import numpy as np

from pipeline.games.base import GameState
from pipeline.search.evaluator import Evaluator
from pipeline.search.tree import ACTION, VALUE, VISITS, Tree

C_VISIT = 50.0
C_SCALE = 0.1


def random_first_move(state: GameState, rng: np.random.Generator) -> int:
    """A move drawn uniformly from the legal ones."""
    return int(rng.choice(np.flatnonzero(state.legal_mask())))


def completed_q(state: GameState, evaluator: Evaluator, tree: Tree, g: int) -> tuple[np.ndarray, np.ndarray]:
    """(actions, q): the root's moves and each one's value for the player to move: the
    searched mean where the move was visited, the net's value of the position after it
    where it was not."""
    kids = tree.root_children(g)
    actions = tree.node_int[g, kids, ACTION].astype(np.int64)
    visits = tree.node_int[g, kids, VISITS].astype(np.float64)
    q = np.zeros(len(actions), dtype=np.float64)
    seen = visits > 0
    q[seen] = tree.node_float[g, kids, VALUE][seen] / visits[seen]
    unseen = np.flatnonzero(~seen)
    if len(unseen):
        children = [state.copy().apply(int(a)) for a in actions[unseen]]
        _, values = evaluator(np.stack([c.observation() for c in children]))
        values = np.asarray(values, dtype=np.float64).reshape(-1)
        for i, (j, child) in enumerate(zip(unseen, children, strict=True)):
            if child.is_terminal:  # the board's verdict, not the net's
                q[j] = 0.0 if child.winner is None else (1.0 if child.winner == state.current_player else -1.0)
            else:
                q[j] = values[i] if child.current_player == state.current_player else -values[i]
    return actions, q


def improved_policy(state: GameState, evaluator: Evaluator, tree: Tree, g: int) -> np.ndarray:
    """Gumbel AlphaZero's policy target from completed Q-values, over every action (zero
    off the root's moves)."""
    actions, q = completed_q(state, evaluator, tree, g)
    out = np.zeros(state.spec.num_actions, dtype=np.float64)
    if len(actions) == 0:
        return out
    priors, _ = evaluator(state.observation()[None])
    prior = np.asarray(priors, dtype=np.float64)[0][state.presented_order()]  # presented frame -> actions
    spread = q.max() - q.min()
    q01 = (q - q.min()) / spread if spread > 1e-9 else np.full_like(q, 0.5)
    max_visits = float(tree.node_int[g, tree.root_children(g), VISITS].max(initial=0))
    logits = np.log(np.maximum(prior[actions], 1e-12)) + (C_VISIT + max_visits) * C_SCALE * q01
    logits -= logits.max()
    p = np.exp(logits)
    out[actions] = p / p.sum()
    return out

