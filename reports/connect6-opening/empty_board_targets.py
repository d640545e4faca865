"""Self-play's policy target for the empty Connect6 19x19 board: the mean over a
generation's games of the target kept at the empty board (per mille, the central 11x11),
its share on the central 5x5, on the ring of the central 7x7 and elsewhere, and the searched
value q where the shards kept it (RESULTS.md, twenty-second session: the target is a copy of
the prior).

    python reports/connect6-opening/empty_board_targets.py REPLAY_GENERATION_DIR [...]
"""

import sys
from pathlib import Path

import numpy as np

import pipeline  # noqa: F401
from pipeline.selfplay.replay import read_shard, shard_paths

np.set_printoptions(linewidth=200, suppress=True)
for directory in sys.argv[1:]:
    targets, values = [], []
    for path in shard_paths(Path(directory)):
        positions = read_shard(path)
        empty = positions.obs[:, :2].sum(axis=(1, 2, 3)) == 0
        targets.append(positions.pi[empty])
        values.append(positions.q[empty])
    pi, q = np.concatenate(targets), np.concatenate(values)
    mean = pi.mean(axis=0)[:361].reshape(19, 19)
    searched = f"{np.nanmean(q):+.3f}" if np.isfinite(q).any() else "unknown"
    print(f"{directory}: {len(pi)} empty boards, mean searched value {searched}")
    print((mean[4:15, 4:15] * 1000).round(0))
    five, seven = mean[7:12, 7:12].sum(), mean[6:13, 6:13].sum()
    print(f"central 5x5 {five:.3f}, ring of the 7x7 {seven - five:.3f}, elsewhere {1 - seven:.3f}")
