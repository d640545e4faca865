"""Screen an opening suite for openings one side has already lost (Connect6; see
`pipeline.match.opening_screen`): the champion plays the turn after each opening, and the
solver asks whether the side to move then has a turn that meets the other's VCF.

    python -m pipeline.tools.opening_screen openings/connect6_19x19.txt \\
        --model models/pretrained/connect6-19x19.pt
    python -m pipeline.tools.opening_screen openings/connect6_19x19.txt \\
        --model models/pretrained/connect6-19x19.pt --write openings/connect6_19x19.txt

Prints each opening's verdict and the counts; `--write` writes the openings kept (their
notes and the suite's header kept, a line added saying what was dropped and how).
`zero openings` screens the openings it builds the same way."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

from pipeline.match.evaluation import model_spec
from pipeline.match.opening_screen import screen_openings, screens
from pipeline.match.openings import OpeningError, Suite, read_suite, write_suite
from pipeline.nets.checkpoint import CheckpointError
from pipeline.players.factory import make_player, play_search
from pipeline.runtime.pipe import run_main


def header_lines(path: Path) -> list[str]:
    """The suite's comment lines before its first opening (without `# game:`, which
    `write_suite` writes)."""
    out = []
    for raw in path.read_text().splitlines():
        line, _, comment = raw.partition("#")
        if line.strip():
            break
        if comment.strip() and not comment.strip().lower().startswith("game:"):
            out.append(comment.strip())
    return out


def main(argv: list[str] | None = None) -> dict[str, int]:
    parser = argparse.ArgumentParser(
        prog="python -m pipeline.tools.opening_screen",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("suite", type=Path, help="an opening suite (one opening a line)")
    parser.add_argument("--model", required=True, help="the champion that plays the turn after each opening")
    parser.add_argument("--simulations", type=int, default=800, help="its search a stone (default 800)")
    parser.add_argument("--write", type=Path, default=None, help="write the openings kept here")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    try:  # a user's mistake (no such file, another game): one line, no traceback
        spec = model_spec(Path(args.model), None)
        suite = read_suite(args.suite, spec)
        player = make_player(args.model, spec, play_search(spec, args.simulations))
    except (CheckpointError, OpeningError, ValueError) as exc:
        raise SystemExit(f"error: {exc}") from None
    if not screens(spec):
        raise SystemExit(f"error: only Connect6 suites are screened, not {spec}")
    start = time.time()
    print(
        f"screening {len(suite)} openings: the solver at each, the champion's turn from each "
        f"({args.simulations} simulations a stone, all in lockstep), the solver again",
        file=sys.stderr,
    )
    verdicts = screen_openings(
        spec,
        player,
        suite.openings,
        args.seed,
        on_opening=lambda n: print(f"  {n}/{len(suite)} judged ({time.time() - start:.0f} s)", file=sys.stderr),
    )
    counts = {"openings": len(verdicts), "lost for black": 0, "lost for white": 0}
    for i, v in enumerate(verdicts):
        if v.lost:
            counts[f"lost for {v.lost}"] += 1
        mark = "DROP" if v.lost else "keep"
        print(f"{mark} {suite.names(i):<14} {v.reason}")
    kept = [i for i, v in enumerate(verdicts) if not v.lost]
    counts["kept"] = len(kept)
    print(
        f"{len(kept)} of {len(verdicts)} kept; lost for black {counts['lost for black']}, "
        f"lost for white {counts['lost for white']} ({time.time() - start:.0f} s)"
    )
    if args.write is not None:
        dropped = [suite.names(i) for i, v in enumerate(verdicts) if v.lost]
        note = (
            f"screened by: python -m pipeline.tools.opening_screen --model {Path(args.model).name} "
            f"--simulations {args.simulations}: {len(kept)} of {len(verdicts)} kept"
            + (f"; dropped as lost by the solver after the champion's turn: {', '.join(dropped)}" if dropped else "")
        )
        out = Suite(spec, [suite.openings[i] for i in kept], None, [suite.notes[i] for i in kept])
        write_suite(args.write, out, [*header_lines(args.suite), note])
        print(f"wrote {args.write}")
    return counts


if __name__ == "__main__":
    run_main(main)
