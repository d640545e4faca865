"""Black's score in a Connect6 run's replay window by where black's first stone lies (its
distance from the centre, in king moves) and whether white's first turn answers it (a stone
next to it) or lands apart (as a random opening's often does): the outcomes the value head
learns the first plies from (RESULTS.md, eighteenth session, the Connect6 opening).

    python reports/connect6-opening/first_turns_in_replay.py reports/runs/connect6-19x19-defence/snapshot/data/replay
"""

import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

OWN, OPPONENT = 0, 1  # observation planes (DESIGN.md): the mover's stones, the opponent's


def main(folder: Path) -> None:
    scores: dict[tuple[int, str], list[int]] = defaultdict(list)
    for shard in sorted(folder.glob("gen-*/shard-*.npz")):
        data = np.load(shard)
        size = data["obs"].shape[-1]
        centre = size // 2
        for i in np.flatnonzero(data["ply"] == 3):  # black to move, after black's stone and white's two
            ((row, col),) = np.argwhere(data["obs"][i, OWN])
            white = np.argwhere(data["obs"][i, OPPONENT])
            gap = np.maximum(abs(white[:, 0] - row), abs(white[:, 1] - col)).min()
            distance = min(max(abs(row - centre), abs(col - centre)), 5)
            scores[(int(distance), "answered" if gap <= 1 else "apart")].append(int(data["z"][i]))
    print("black's first stone: distance from the centre | white's first turn | games | black's mean score")
    for (distance, reply), z in sorted(scores.items()):
        label = f"{distance}+" if distance == 5 else str(distance)
        print(f"{label:>3} | {reply:8} | {len(z):4d} | {np.mean(z):+.2f}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
