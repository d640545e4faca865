"""Ship a champion: a run's checkpoint written to `models/pretrained/` as players need it.

A learner's or candidate's checkpoint carries its optimiser's state (Adam's two moments:
twice the weights' bytes) so that training continues where it stopped. A player never reads
it, and every shipped file is carried by every clone, so the shipped copy keeps the game, the
net, the weights and the meta only (`tests/unit/test_pretrained.py` checks that each does):

    python -m pipeline.tools.ship_model reports/runs/RUN/champions/gen-0016.pt \\
        models/pretrained/gomoku-15x15.pt

It prints what it wrote and the bytes saved; the source is left as it is. A run resumed
later still finds its own copy with the moments (the run's `champions/`, through DVC)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pipeline.nets.checkpoint import CheckpointError, write_player_copy
from pipeline.runtime.pipe import run_main

MIB = 1024 * 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline.tools.ship_model", description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="the run's checkpoint (a champion, learner or candidate)")
    parser.add_argument("dest", type=Path, help="where players load it from, e.g. models/pretrained/NAME.pt")
    args = parser.parse_args(argv)
    if not args.source.is_file():
        print(f"{args.source}: no such checkpoint", file=sys.stderr)
        return 2
    try:
        before, after = write_player_copy(args.source, args.dest)
    except CheckpointError as error:
        print(error, file=sys.stderr)
        return 2
    print(f"{args.dest}: {after / MIB:.2f} MiB ({args.source}: {before / MIB:.2f} MiB, the optimiser's state left out)")
    return 0


if __name__ == "__main__":
    run_main(main)
