"""Measurement tools: the lasting checks and measurements that no `zero` command gives.

Each tool is a module run from the repository root as `python -m pipeline.tools.NAME`
(`--help` gives its usage, its options and what it prints); `python -m pipeline.tools`
prints this index, and docs/tools.md describes each. Each runs on tiny arguments in
`tests/unit/test_tools.py`, which checks the shape of what it prints. The figures a `zero`
command reproduces are not here: `zero bench` (search and solver rates, the tactics'
on/off ratio), `zero bench --tactics` (the threat solvers on their suites),
`zero bench --selfplay` (self-play, overlap and the forward pass per backend),
`zero evaluate` (a net against an opponent, each move's seconds with `--json`),
`zero tournament` (crosstables and ratings), `zero openings` (opening suites).

Each entry: the tool, what it measures, and the command of its figure.

- `c6_loss_audit`: where a Connect6 match was lost: the loser's turn after which the winner
  had a VCF, the budget that sees it, a saving turn if any
      python -m pipeline.tools.c6_loss_audit \\
          reports/runs/connect6-19x19-defence/matches/gen-0046-vs-init-80.json --colour white
- `gomoku_loss_audit`: where a Gomoku match was lost: the loser's move after which the winner
  had a VCF or VCT all the way to the end, and the moves there that leave none
      python -m pipeline.tools.gomoku_loss_audit reports/gomoku-15x15-defence/gen31-vs-classical9-20.json
- `c6_no_blunder`: Connect6 turns that leave the opponent a VCF, on 1,000 positions where
  passing loses and some turn does not, tactics on and off
      python -m pipeline.tools.c6_no_blunder --suite tests/tactics/connect6_defence.txt
- `c6_vct_suite`: Connect6 threat sequences (VCT): the positions of black's turns before
  its first VCF in the games white lost and of random games, labelled by `solve_vct` at
  1,000,000 nodes; the solver scored on them, each claimed win checked by the verifier
      python -m pipeline.tools.c6_vct_suite --suite tests/tactics/connect6_vct.txt --budget 20000 [--verify]
- `classical_ladder`: `classical:d+1` against `classical:d`, seconds a move (the classical
  yardstick's ladder)
      python -m pipeline.tools.classical_ladder --games 40 --depths 1 2 3 4 \\
          --spec gomoku:15 --spec connect6:19 --seed 1
- `hex_opening_table`: every Hex opening solved, drawn as the board (against published
  theory: every 7x7 opening solved, the centre wins)
      python -m pipeline.tools.hex_opening_table --size 7 --symmetric
- `hex_perfect_play`: a Hex champion with the root solver against opponents, each of its
  positions judged by DFPN (the Hex 7x7 and 8x8 champions' perfect-play figures)
      python -m pipeline.tools.hex_perfect_play --model models/pretrained/hex-7x7.pt \\
          --games 100 --sides first --vs pure:100 pure:1000 pure:10000 random
- `hex_solved_book`: the book of solved Hex openings the root solver consults (every
  two-stone 7x7 opening)
      python -m pipeline.tools.hex_solved_book --size 7 --stones 2 --nodes 50000 --workers 2
- `no_blunder`: moves into a VCF on 1,000 threatened Gomoku positions, tactics on and off
  (the root guard)
      python -m pipeline.tools.no_blunder --count 1000 [--no-off] [--model CHECKPOINT ...]
- `opening_screen`: Connect6 suite openings one side has already lost: after the champion's
  turn, the side to move has no turn that meets the other's VCF (dropped with `--write`)
      python -m pipeline.tools.opening_screen openings/connect6_19x19.txt \\
          --model models/pretrained/connect6-19x19.pt
- `opening_prior`: a net's prior over the first move and black's value after it, as
  boards, and the first move its search plays (the champions' openings)
      python -m pipeline.tools.opening_prior models/pretrained/gomoku-15x15.pt gomoku:15
- `renju_reference`: the compiled renju rules against the reference written from the
  definitions: disagreements, always 0
      python -m pipeline.tools.renju_reference --games 2000 --seed 0
- `ship_model`: a run's checkpoint written to `models/pretrained/` without the optimiser's
  state (a third of the bytes; players never read it)
      python -m pipeline.tools.ship_model reports/runs/RUN/champions/gen-NNNN.pt models/pretrained/NAME.pt
- `tree_budget`: what git tracks at HEAD against the repository's size budget (checked in
  `make test`)
      python -m pipeline.tools.tree_budget [--budget-mib 48] [--file-mib 5] [--top 10]

The tools sit above every other package (`bench` included) and below `cli`; nothing in
the pipeline imports them.
"""

TOOLS = (
    "c6_loss_audit",
    "c6_no_blunder",
    "c6_vct_suite",
    "classical_ladder",
    "gomoku_loss_audit",
    "hex_opening_table",
    "hex_perfect_play",
    "hex_solved_book",
    "no_blunder",
    "opening_prior",
    "opening_screen",
    "renju_reference",
    "ship_model",
    "tree_budget",
)
