"""Where an 8x8 DFPN node's time goes (RESULTS.md, thirtieth session): the node rate of a
5,000-node solve from an opening, then the parts of a node's evaluation (`dfpn.evaluate`)
on 200 random positions (`hex_tactics_strength`'s: 4 to 31 stones), CPU time a call.

    python reports/hex-perfect-play/hex8_dfpn_cost.py
"""

import time
from pathlib import Path

import numpy as np

from pipeline.games.layout import TO_MOVE
from pipeline.match.evaluation import model_spec
from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex.hsearch import WORDS, hsearch, must_play
from pipeline.tactics.hex.patterns import fill_inferior
from pipeline.tactics.hex.solve import new_dfpn_table
from pipeline.tools.hex_tactics_strength import per_call, random_positions

spec = model_spec(Path("models/pretrained/hex-8x8.pt"), None)
limits = hd.default_limits()
order = hd.centre_order(spec.width)
flags = np.int64(hd.DFPN_ALL)
opening = spec.replay([28, 17, 27])
hd.dfpn(opening.array, np.int64(200), flags, limits, order, new_dfpn_table(18))  # compiled or loaded
start = time.process_time()
value, _, nodes = hd.dfpn(opening.array, np.int64(5000), flags, limits, order, new_dfpn_table(18))
seconds = time.process_time() - start
print(f"DFPN from [28, 17, 27], {nodes} nodes: {seconds:.2f} CPU s, {nodes / seconds:.0f} nodes a CPU second")

positions = [s.array.copy() for s in random_positions(spec, 200, np.random.default_rng(0))]
sc_bits, sc_key = np.empty((1, WORDS), dtype=np.uint64), np.empty(1, np.int64)


def filled(s):
    fill_inferior(s, np.empty_like(s))


parts = {
    "evaluate (a node)": lambda s: hd.evaluate(s, flags, limits),
    "fill_inferior": filled,
    "hsearch, the mover": lambda s: hsearch(
        s, s[TO_MOVE], limits[0], limits[1], limits[2], bool(limits[3]), True, sc_bits, sc_key
    ),
    "must_play, the opponent": lambda s: must_play(s, 1 - s[TO_MOVE], limits[0], limits[1], limits[2], bool(limits[3])),
}
for name, call in parts.items():
    print(f"{name:24s} {per_call(call, positions, reps=3):6.0f} us a call")
