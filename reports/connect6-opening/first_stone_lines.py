"""Black's value after one stone, along the middle row and the main diagonal of the 19x19
Connect6 board, and the cell where it is highest: how a net's value of a first stone falls
(or not) towards the edges (RESULTS.md, twenty-first session: the edge plane). The central
9x9 at four decimals is `first_stone_values.py`.

    python reports/connect6-opening/first_stone_lines.py CHECKPOINT [CHECKPOINT ...]
"""

import sys

import numpy as np

import pipeline  # noqa: F401
from pipeline.games.base import GameSpec
from pipeline.tools.opening_prior import opening_maps

np.set_printoptions(linewidth=250, precision=3, suppress=True)
for path in sys.argv[1:]:
    _, black, _ = opening_maps(path, GameSpec.parse("connect6:19"))
    row, col = (int(i) for i in np.unravel_index(np.argmax(black), black.shape))
    print(path)
    print(" row 9:", black[9])
    print(" diag :", np.diagonal(black))
    best_central = black[7:12, 7:12].max()
    print(f" best cell ({row}, {col}) {black.max():+.4f}; centre {black[9, 9]:+.4f}; 5x5 best {best_central:+.4f}")
