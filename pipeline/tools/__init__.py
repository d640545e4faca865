"""Measurement tools: the commands behind RESULTS.md's figures that no `zero` command gives.

Each tool is a module run from the repository root as `python -m pipeline.tools.NAME`
(`--help` gives its usage, its options and what it prints); `python -m pipeline.tools`
prints this index. Each runs on tiny arguments in `tests/unit/test_tools.py`, which checks
the shape of what it prints. The figures a `zero` command reproduces are not here:
`zero bench` (search and solver rates, the tactics' on/off ratio), `zero bench --selfplay`
(self-play per backend), `zero evaluate` (a net against an opponent, the brain's search
included), `zero tournament` (crosstables and ratings), `zero openings` (opening suites).

Each entry: the tool, what it measures (the RESULTS.md section its figure is in), and the
command that reproduces the figure.

- `bench_tactics`: the threat solvers on the suite and on random middle games: solved,
  ms a call, nodes/s ("tactics for the k-in-a-row games")
      python -m pipeline.tools.bench_tactics --random 60
- `c6_no_blunder`: Connect6 turns that leave the opponent a VCF, on 1,000 positions where
  passing loses and some turn does not, tactics on and off ("the Connect6 defence")
      python -m pipeline.tools.c6_no_blunder --suite tests/tactics/connect6_defence.txt
- `c6_loss_audit`: where a Connect6 match was lost: the loser's turn after which the winner
  had a VCF, the budget that sees it, a saving turn if any ("where the white games are lost")
      python -m pipeline.tools.c6_loss_audit \\
          reports/runs/connect6-19x19-defence/matches/gen-0046-vs-init-80.json --colour white
- `classical_ladder`: `classical:d+1` against `classical:d`, seconds a move (the same
  section: the classical yardstick)
      python -m pipeline.tools.classical_ladder --games 40 --depths 1 2 3 4 \\
          --spec gomoku:15 --spec connect6:19 --seed 1
- `compare_runs`: `zero iterate` runs at equal wall-clock: generations done, levels
  beaten, ratings (learner against champion; the 15x15 curriculum; Gumbel against PUCT)
      python -m pipeline.tools.compare_runs reports/runs/9x9-gumbel-vs-puct/g9g \\
          reports/runs/9x9-gumbel-vs-puct/g9p --minutes 45
- `hex_middle_game`: DFPN on random Hex middle games: solved, seconds ("Hex H-search and
  a DFPN solver")
      python -m pipeline.tools.hex_middle_game --size 8 --stones 10 --positions 10 --budget 50000
- `hex_opening_table`: every Hex opening solved, drawn as the board ("Hex connections and
  solver", "Hex H-search and a DFPN solver")
      python -m pipeline.tools.hex_opening_table --size 7 --symmetric
- `hex_perfect_play`: a Hex champion with the root solver against opponents, each of its
  positions judged by DFPN ("Hex 7x7 perfect play", "the Hex 8x8 champion")
      python -m pipeline.tools.hex_perfect_play --model models/pretrained/hex-7x7.pt \\
          --games 100 --sides first --vs pure:100 pure:1000 pure:10000 random
- `hex_root_solver_cost`: CPU seconds a move with the root solver off and on ("the Hex
  root solver on 8x8")
      python -m pipeline.tools.hex_root_solver_cost --model models/pretrained/hex-8x8.pt --vs pure:1000 --games 6
- `hex_solved_book`: the book of solved Hex openings the root solver consults (every
  two-stone 7x7 opening; "the book of solved 7x7 openings")
      python -m pipeline.tools.hex_solved_book --size 7 --stones 2 --nodes 50000 --workers 2
- `hex_tactics_strength`: the Hex connection knowledge: cost a call, simulations/s,
  self-play rate, equal-time matches ("Hex connection knowledge in the search")
      python -m pipeline.tools.hex_tactics_strength speed
      python -m pipeline.tools.hex_tactics_strength selfplay
      python -m pipeline.tools.hex_tactics_strength match --mode all --games 60 --seconds 0.1
- `no_blunder`: moves into a VCF on 1,000 threatened positions, tactics on and off
  ("tactics shown to the user", "the root guard")
      python -m pipeline.tools.no_blunder --count 1000 [--no-off] [--model CHECKPOINT ...]
- `opening_outcomes`: black's score after chosen first moves, a net against itself ("the
  opening: the cause, measured")
      python -m pipeline.tools.opening_outcomes models/pretrained/gomoku-15x15.pt gomoku:15 \\
          --cells h8 a1 --openings 10
- `opening_prior`: a net's prior over the first move and black's value after it, as
  boards ("why the 15x15 champions open at the edge", each retrained champion's opening)
      python -m pipeline.tools.opening_prior models/pretrained/gomoku-15x15.pt gomoku:15
- `overlap_selfplay`: self-play with `selfplay.overlap` off and on against the
  forward-bound rate, for any backends ("the network kept busy")
      python -m pipeline.tools.overlap_selfplay --backend torch:f32 --backend openvino:bf16
- `profile_selfplay`: a self-play step's time split into the network, the compiled
  kernels and Python, per backend ("where a self-play step's time goes")
      python -m pipeline.tools.profile_selfplay --games 12 --backend torch:f32 --backend openvino:bf16
- `renju_reference`: the compiled renju rules against the reference written from the
  definitions: disagreements, always 0 ("renju rules against the reference")
      python -m pipeline.tools.renju_reference --games 2000 --seed 0
- `tactics_rate`: search simulations/s and self-play positions/s with the threat solvers
  off and on, shipped nets ("tactics for the k-in-a-row games", "the tree's tactical
  verdict made cheap")
      python -m pipeline.tools.tactics_rate search
      python -m pipeline.tools.tactics_rate selfplay --games 12 --rounds 2 [--split]
- `tactics_replay`: the tree's tactical verdict over recorded search leaves: calls/s, its
  parts, a digest of the verdicts (the same section)
      python -m pipeline.tools.tactics_replay collect --games 8 --out .tmp/leaves-8x8.npz
      python -m pipeline.tools.tactics_replay replay .tmp/leaves-8x8.npz --repeats 2

The tools sit above every other package (`bench` included) and below `cli`; nothing in
the pipeline imports them.
"""

TOOLS = (
    "bench_tactics",
    "c6_loss_audit",
    "c6_no_blunder",
    "classical_ladder",
    "compare_runs",
    "hex_middle_game",
    "hex_opening_table",
    "hex_perfect_play",
    "hex_root_solver_cost",
    "hex_solved_book",
    "hex_tactics_strength",
    "no_blunder",
    "opening_outcomes",
    "opening_prior",
    "overlap_selfplay",
    "profile_selfplay",
    "renju_reference",
    "tactics_rate",
    "tactics_replay",
)
