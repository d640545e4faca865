"""Where the Connect6 champion's value head puts black's first stone: for each first stone in
the central 9x9, white's best reply among the pairs of its policy's top 8 first and top 8
second stones (by the net's own value, black's after the reply), and black's value there,
averaged by the stone's distance from the centre (king moves), and how often that reply
puts a white stone next to black's (RESULTS.md, eighteenth
session, the Connect6 opening).

    python reports/connect6-opening/value_after_reply.py models/pretrained/connect6-19x19.pt
"""

import sys

import numpy as np

import pipeline  # noqa: F401  (numba's cache settings before any kernel)
from pipeline.games.base import GameSpec
from pipeline.players.factory import make_player

TOP = 8


def top_moves(prior: np.ndarray, state, k: int) -> list[int]:
    legal = state.legal_mask()
    p = np.where(legal[: len(prior)], prior[: len(legal)], -1.0)
    return [int(a) for a in np.argsort(-p)[:k]]


def main(model: str) -> None:
    spec = GameSpec.parse("connect6:19")
    player = make_player(model, spec)
    centre = spec.width // 2
    by_distance: dict[int, list[float]] = {}
    adjacent: dict[int, list[bool]] = {}
    rows = []
    for r in range(centre - 4, centre + 5):
        for c in range(centre - 4, centre + 5):
            first = spec.new_game().apply(r * spec.width + c)
            prior, _ = player.policy_value(first)  # type: ignore[attr-defined]
            replies = []
            for a in top_moves(np.asarray(prior), first, TOP):
                second = first.copy().apply(a)
                prior2, _ = player.policy_value(second)  # type: ignore[attr-defined]
                replies += [second.copy().apply(b) for b in top_moves(np.asarray(prior2), second, TOP)]
            _, values = player.evaluator(np.stack([s.observation() for s in replies]))  # type: ignore[attr-defined]
            best = int(np.argmin(values))  # black to move: the value is black's; white picks the lowest
            black = float(values[best])
            white = [divmod(int(a), spec.width) for a in np.flatnonzero(replies[best].board().ravel() == 2)]
            answered = min(max(abs(wr - r), abs(wc - c)) for wr, wc in white) <= 1
            distance = max(abs(r - centre), abs(c - centre))
            by_distance.setdefault(distance, []).append(black)
            adjacent.setdefault(distance, []).append(answered)
            rows.append((black, r, c))
    print(f"black's value after white's best reply (top {TOP} x {TOP} of its policy), by the first stone's distance:")
    for d, v in sorted(by_distance.items()):
        print(
            f"  distance {d}: {len(v):2d} cells, mean {np.mean(v):+.3f}, best {np.max(v):+.3f};"
            f" white's best reply next to black's stone in {sum(adjacent[d])} of {len(v)}"
        )
    print("the ten best first stones for black (value, row, col):")
    for black, r, c in sorted(rows, reverse=True)[:10]:
        print(f"  {black:+.3f} ({r}, {c})")


if __name__ == "__main__":
    main(sys.argv[1])
