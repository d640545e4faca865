"""Ratings on one scale for every player that was ever evaluated: a Bradley-Terry (Elo)
fit over all recorded games, with the pure-MCTS levels as fixed anchors.

The anchors fix the scale: pure MCTS with `anchor_playouts` playouts is 0 Elo and each
doubling of playouts adds `elo_per_doubling` (a convention, not a measurement). Every
other player's rating is the maximum a posteriori estimate with one virtual draw
against each opponent it met, so a clean sweep gives a finite rating."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

ELO = 400.0 / math.log(10.0)  # Elo points per natural-log unit of odds


def pure_playouts(name: str) -> int | None:
    if name.startswith("pure:"):
        try:
            return int(name.split(":", 1)[1])
        except ValueError:
            return None
    return None


def anchor_elo(name: str, anchor_playouts: int, elo_per_doubling: float) -> float | None:
    playouts = pure_playouts(name)
    if playouts is None:
        return None
    return elo_per_doubling * math.log2(playouts / anchor_playouts)


def expected_score(a: float, b: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((b - a) / 400.0))


def fit_ratings(
    games: Iterable[tuple[str, str, float]],
    anchors: dict[str, float],
    prior_draws: float = 1.0,
    iterations: int = 100,
) -> dict[str, float]:
    """Ratings of every player in `games` ((player, opponent, player's score) triples).
    Anchored players keep their given rating; a player connected to no anchor is placed
    relative to the others it met, starting from 0."""
    rows = list(games)
    names = sorted({n for a, b, _ in rows for n in (a, b)} | set(anchors))
    index = {n: i for i, n in enumerate(names)}
    n = len(names)
    if n == 0:
        return {}
    # Pairwise points and games, then the virtual draws of each free player.
    won = np.zeros((n, n))
    played = np.zeros((n, n))
    for a, b, s in rows:
        i, j = index[a], index[b]
        won[i, j] += s
        won[j, i] += 1.0 - s
        played[i, j] += 1
        played[j, i] += 1
    met = played > 0
    prior = prior_draws * met
    won_p = won + 0.5 * prior
    played_p = played + prior
    free = np.array([name not in anchors for name in names])
    r = np.array([anchors.get(name, 0.0) / ELO for name in names])
    if free.any() and anchors:
        # Start free players at the mean anchor so the first steps are small.
        r[free] = np.mean([v / ELO for v in anchors.values()])
    idx = np.flatnonzero(free)
    for _ in range(iterations):
        if idx.size == 0:
            break
        diff = r[:, None] - r[None, :]
        e = 1.0 / (1.0 + np.exp(-diff))
        grad = (won_p - played_p * e).sum(axis=1)[idx]
        w = played_p * e * (1.0 - e)
        # The log-likelihood is concave: a full Newton step over the free players (the
        # pseudo-inverse handles a group tied to no anchor, whose level is arbitrary).
        hess = np.diag(w.sum(axis=1)) - w
        step = np.linalg.pinv(hess[np.ix_(idx, idx)]) @ grad
        step = np.clip(step, -2.0, 2.0)
        r[idx] += step
        if np.max(np.abs(step)) < 1e-10:
            break
    if not anchors and idx.size:
        r -= r.mean()  # without anchors only differences mean anything
    out = {name: float(r[index[name]] * ELO) for name in names}
    out.update({name: float(v) for name, v in anchors.items() if name in out})
    return out
