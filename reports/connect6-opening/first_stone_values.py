"""One black stone on each cell of the 19x19 Connect6 board: black's value after it (from
`pipeline.tools.opening_prior.opening_maps`, printed there at two decimals) at four decimals,
and its spread over the central 3x3, 5x5 and 7x7: how far the net tells the central cells
apart (RESULTS.md, twentieth session).

    python reports/connect6-opening/first_stone_values.py CHECKPOINT
"""

import sys

import numpy as np

import pipeline  # noqa: F401
from pipeline.games.base import GameSpec
from pipeline.tools.opening_prior import opening_maps

_, black, _ = opening_maps(sys.argv[1], GameSpec.parse("connect6:19"))
np.set_printoptions(linewidth=200, precision=4, suppress=True)
print("black's value after a first stone, rows 5-13, cols 5-13 (4 decimals):")
print(black[5:14, 5:14])
for lo, hi in ((8, 11), (7, 12), (6, 13)):
    block = black[lo:hi, lo:hi]
    print(f"rows/cols {lo}-{hi - 1}: spread (max - min) {block.max() - block.min():.2e}")
