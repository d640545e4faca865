"""Victory by continuous fours (Gomoku) and by double threats (Connect6): the front door.

Entry point `vcf(s, budget, max_depth, table, pv)`, compiled and callable from compiled
code, for the player to move in `s` (left unchanged); `vcf_into(..., scratch)` is the
same search in the caller's room (`pipeline.tactics.lines.scratch`), which the tree uses:
  returns (result, pv_len, nodes): result 1 when a win is proven, 0 when none was found
  (no win of this kind, or the budget or depth ran out); pv[:pv_len] is the proof line,
  the actions in play order (attacker, defender, ...; Connect6 one stone per action,
  so a turn is two entries), ending with the attacker's winning stone(s).

The searches, one module each:
  gomoku_vcf   Gomoku (freestyle, exact, renju): fours, and threes when asked (VCT);
  c6_tables    Connect6 line tables: the six-windows and their stone counts;
  c6_turns     Connect6 turn generation: the double threats of a node, best first;
  c6_search    Connect6 threat-space search, and the opponent's VCF with its proof tree.
The names imported here from them are their public entry points.

Soundness: every line ends in a position the rules score as the attacker's win, and at
every defender turn either the defence is unique or all defences are searched. The
transposition table holds fully searched failures (see `table`) and, for Connect6, wins
proven there; a key collision could at worst take one position for another.
"""

import numpy as np
from numba import njit

from pipeline.games.layout import CONNECT6, KIND
from pipeline.tactics.lines.c6_search import c6_solve, opponent_vcf, opponent_vcf_into
from pipeline.tactics.lines.gomoku_vcf import gomoku_solve, gomoku_solve_scanned
from pipeline.tactics.lines.scratch import scratch_for
from pipeline.tactics.lines.table import SALT_VCF

__all__ = [
    "c6_solve",
    "gomoku_solve",
    "gomoku_solve_scanned",
    "opponent_vcf",
    "opponent_vcf_into",
    "vcf",
    "vcf_into",
]


@njit(cache=True, nogil=True)
def vcf_into(s, budget, max_depth, table, pv, sc):
    """`vcf` in the caller's scratch (`pipeline.tactics.lines.scratch`), made for this game
    and at least `max_depth`."""
    if s[KIND] == CONNECT6:
        return c6_solve(s, budget, max_depth, table, pv, sc)
    return gomoku_solve(s, budget, max_depth, np.int64(0), SALT_VCF, table, pv, sc)


@njit(cache=True, nogil=True)
def vcf(s, budget, max_depth, table, pv):
    """Prove a forcing win for the player to move: Gomoku VCF, Connect6 double-threat
    search. Returns (result, pv_len, nodes); see the module notes."""
    return vcf_into(s, budget, max_depth, table, pv, scratch_for(s, max_depth))
