"""Victory by continuous threats (Gomoku): fours and threes.

Entry point `vct(s, budget, max_depth, table, pv)` -> (result, pv_len, nodes), like
`vcf`. The attacker may also play three-making moves (see `threats`): after one, every
defender reply that neither stops all the double fours it threatens nor makes a four of
his own loses at once, so the search tries exactly those replies (an AND node) and the
proof line follows one of them. Counter-threes of the defender need no reply set of
their own: while the attacker keeps threatening a double four, a defender move that
is not a four or a stop lets the attacker win at once.

Connect6: `c6_vct.c6_vct`, single threats and quiet stones ahead of the double-threat
search of `vcf` (`c6_search`), the defender's free stone restricted to the relevance zone
of the attacker's proof. Gomoku's search is `gomoku_vcf.gomoku_attack` with threes.
"""

import numpy as np
from numba import njit

from pipeline.games.layout import CONNECT6, KIND
from pipeline.tactics.lines.c6_vct import c6_vct
from pipeline.tactics.lines.gomoku_vcf import gomoku_solve
from pipeline.tactics.lines.scratch import scratch_for
from pipeline.tactics.lines.table import SALT_VCT


@njit(cache=True, nogil=True)
def vct_into(s, budget, max_depth, table, pv, sc):
    """`vct` in the caller's scratch (`pipeline.tactics.lines.scratch`)."""
    if s[KIND] == CONNECT6:
        return c6_vct(s, budget, max_depth, table, pv, sc)
    return gomoku_solve(s, budget, max_depth, np.int64(1), SALT_VCT, table, pv, sc)


@njit(cache=True, nogil=True)
def vct(s, budget, max_depth, table, pv):
    """Prove a win by continuous threats for the player to move; (result, pv_len,
    nodes). `max_depth` counts attacker moves (Connect6: turns)."""
    return vct_into(s, budget, max_depth, table, pv, scratch_for(s, max_depth))
