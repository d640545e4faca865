"""Classical alpha-beta for the k-in-a-row games (Gomoku freestyle, exact or renju, Connect6):
negamax with iterative deepening, a transposition table and move ordering over a pattern
evaluation. Nothing is learned; it is the fixed yardstick that plays the game.

One concern a module:
- `patterns`: the position as stone counts per k-cell window, put and take a stone, the
  pattern evaluation;
- `moves`: the threats every node asks about (a win this turn, the opponent's win next
  turn and its blocks) and the move lists (blocks, fours, candidates) with their ordering;
- `search`: negamax over a frame stack, the transposition table, the quiescence;
- `driver`: `AlphaBeta`, iterative deepening at the root, as the classical player uses it.

Renju: black is scored and wins as under exact rules (a window next to a black stone is
dead for black: it would make an overline), white as under freestyle. Black never plays a
forbidden cell, at the root or in the tree: its move lists (candidates, blocks, fours) are
filtered with the rules' own kernel (`pipeline.games.renju.forbidden_on`, run on the
search's board, which has the same encoding), and a white winning cell black may not
block is a lost position for black, as the tactics say. A black four's completing cell
makes exactly five or an overline: the five is never forbidden, the overline is the dead
window, so the evaluation's black fours are real. What it does not do: a black three
whose every way to a four is forbidden still counts as a three in the evaluation (the
search sees it at the next black node, where the forbidden cells are not generated).
"""

from pipeline.search.alphabeta.driver import PLAYS, AlphaBeta, SearchResult, squash
from pipeline.search.alphabeta.patterns import MATE, WIN

__all__ = ["MATE", "PLAYS", "WIN", "AlphaBeta", "SearchResult", "squash"]
