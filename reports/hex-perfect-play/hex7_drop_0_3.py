"""The 7x7 drop of the sweep against the 11x11 champion (opening [0, 3], black): each position
of the game up to it solved afresh by the sweep's checker (`WinChecker`) at the budget given
(RESULTS.md, twenty-eighth session).

    PYTHONPATH=. python reports/hex-perfect-play/hex7_drop_0_3.py 200000
"""

import sys
import time

import pipeline  # noqa: F401  (numba's cache settings before any kernel)
from pipeline.games.base import GameSpec
from pipeline.match.perfect_play import WinChecker
from pipeline.tactics.hex.book import book_for

spec = GameSpec.parse("hex:7")
book = book_for(spec)
moves = [0, 3, 12, 18, 16, 8, 19]
s = spec.replay(moves[:2])
print("book move at [0,3]:", book.winning_move(s.array), "verdict", book.verdict(s.array))
budget = int(sys.argv[1])
for n in range(2, 6):
    ch = WinChecker(spec, budget)
    st = spec.replay(moves[:n])
    t = time.time()
    v = ch.value(st)
    print(moves[:n], "to move:", "black" if n % 2 == 0 else "white", "value", v, f"{time.time() - t:.1f}s", flush=True)
