"""Make the book of solved Hex openings the root solver consults
(`pipeline.tactics.hex.book`): every opening of N stones (one of each half-turn pair, no
swap) solved by DFPN with H-search within `--nodes`, and for each won one the winning
move the proof starts with (RESULTS.md, "A book of solved 7x7 openings").

    python -m pipeline.tools.hex_solved_book --size 7 --stones 2 --nodes 50000 --workers 2
    python -m pipeline.tools.hex_solved_book --size 7 --stones 2 --nodes 400000 --retry

The book is written after every position (atomically), so a stopped run resumes where it
was; `--retry` solves again, with this run's budget, the positions an earlier run left
unsettled. Each worker keeps its own transposition table across its positions.

`--positions-from PROGRESS... --slower-than S` solves, instead of every opening, the positions
the champion met in `hex_perfect_play` sweeps (their progress files) on which its move took
at least S seconds, leaving out those the sweep's checker proved lost for it: on 8x8, where
the two-stone openings mostly need more than 50,000 nodes (17 took 731 CPU s, 16 unsettled),
the book then holds the positions where a move's time does not reach the proof:

    python -m pipeline.tools.hex_solved_book --size 8 --nodes 50000 --slower-than 4 --positions-from \
        reports/hex-perfect-play/hex8-timed-refute-first.jsonl reports/hex-perfect-play/hex8-timed.jsonl

`--changed PROGRESS --write FILE` lists the openings of a `hex_perfect_play` sweep (its
progress file) where the book now changes the champion's play: a position of the
champion's in the book with another move than the one it played, which the root solver
does not prove to win within a move's budget (it keeps the search's move when it does).
Only those games differ with the book (the champion plays as before everywhere else), so
only they need playing again (`hex_perfect_play --openings-file FILE`):

    python -m pipeline.tools.hex_solved_book --size 7 --changed reports/hex-perfect-play/hex7-2ply.jsonl \
        --write reports/hex-perfect-play/hex7-book-changed.json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from pipeline.games.base import GameSpec
from pipeline.match.perfect_play import all_openings
from pipeline.players.factory import play_solver_nodes
from pipeline.runtime.pipe import run_main
from pipeline.search.hex_root_solver import HexRootSolver
from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex.book import SolvedBook, book_path, position_key
from pipeline.tactics.hex.solve import check_dfpn_size, new_dfpn_table, winning_move

_TABLE = None


def solve_opening(spec_text: str, opening: list[int], nodes: int) -> tuple[list[int], int, int, float]:
    """(the opening, value for the player to move, winning move or -1, seconds)."""
    global _TABLE
    spec = GameSpec.parse(spec_text)
    if _TABLE is None:  # one table per process, kept across its positions
        _TABLE = new_dfpn_table(21)
    state = spec.replay(opening)
    t = time.perf_counter()
    v, move, _ = hd.dfpn(
        state.array, np.int64(nodes), np.int64(hd.DFPN_ALL), hd.default_limits(), hd.centre_order(spec.width), _TABLE
    )
    if v == hd.WIN and move < 0:  # a standing connection: any cell of it keeps the win
        found = winning_move(state, nodes)
        move = -1 if found is None else found  # cell 0 is a move
    return opening, int(v), int(move), time.perf_counter() - t


def sweep_games(progress: Path) -> list[dict]:
    """The games of a `hex_perfect_play` progress file, in order (a line torn by a stop is
    left out, as the sweep itself drops it)."""
    games: list[dict] = []
    for line in progress.read_text().splitlines():
        try:
            games += json.loads(line)["games"]
        except json.JSONDecodeError:
            continue
    return games


def changed_openings(
    book: SolvedBook, progress: Path, write: Path | None, solver_nodes: int | None = None
) -> list[list[int]]:
    """The openings (the first two moves) of the sweep's games in which the champion's root
    solver, with the book, plays another move than the one the champion played: a position of
    the champion's in the book whose book move differs, and where the solver does not prove
    the played move wins too (within `solver_nodes`, by default as in play)."""
    spec = book.spec
    solver = HexRootSolver(spec, play_solver_nodes(spec) if solver_nodes is None else solver_nodes)
    solver.book = book
    changed: dict[tuple[int, ...], None] = {}
    records = sweep_games(progress)
    games = len(records)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns) as bar:
        for game in bar.track(records, description="games checked"):
            mine = 0 if game["first"] else 1
            state = spec.new_game()
            for ply, move in enumerate(game["moves"]):
                if ply >= 2 and state.current_player == mine:
                    known = book.winning_move(state.array)
                    if known is not None and known != move and solver.winning_move(state.array, move) != move:
                        changed[tuple(game["moves"][:2])] = None
                        break
                state.apply(int(move))
    openings = [list(o) for o in changed]
    print(f"{len(openings)} of {games} games reach a book position where the root solver now plays another move")
    if write is not None:
        write.write_text(json.dumps(openings) + "\n")
    return openings


def slow_positions(progress: list[Path], slower_than: float) -> list[list[int]]:
    """The move sequences to the champion's positions in these sweeps where its move took at
    least `slower_than` seconds, in the order met, each once; the positions the sweep's checker
    proved lost for the champion are left out (the book keeps winning moves), and those it
    proved won come first (their proofs are within its budget; the others may not be)."""
    found: dict[tuple[int, ...], int] = {}
    for path in progress:
        for game in sweep_games(path):
            plies = sorted((int(p), v) for p, v in game["values"].items())
            for (ply, value), seconds in zip(plies, game.get("seconds", []), strict=False):
                if seconds >= slower_than and value != hd.LOSS:
                    found[tuple(game["moves"][:ply])] = value
    return [list(moves) for moves, _ in sorted(found.items(), key=lambda item: item[1] != hd.WIN)]


def main(argv: list[str] | None = None) -> SolvedBook:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=7)
    parser.add_argument("--stones", type=int, default=2, help="the openings' stones")
    parser.add_argument("--nodes", type=int, default=50_000, help="DFPN node budget per position")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--retry", action="store_true", help="solve again the positions left unsettled")
    parser.add_argument("--out", type=Path, default=None, help="default: the book the root solver reads")
    parser.add_argument(
        "--changed", type=Path, default=None, help="a sweep's progress file: list what the book changes"
    )
    parser.add_argument("--write", type=Path, default=None, help="with --changed: write those openings here (JSON)")
    parser.add_argument(
        "--positions-from",
        type=Path,
        nargs="+",
        default=None,
        help="sweeps' progress files: solve the champion's slow positions in them instead of every opening",
    )
    parser.add_argument(
        "--slower-than", type=float, default=4.0, help="with --positions-from: a move at least this long (s)"
    )
    args = parser.parse_args(argv)
    if args.stones < 1 or args.nodes < 1 or args.workers < 1:
        parser.error("--stones, --nodes and --workers take at least 1")
    try:
        spec = GameSpec.parse(f"hex:{args.size}")
        check_dfpn_size(spec.width)
    except ValueError as e:
        parser.error(str(e))
    out = args.out or book_path(spec)
    missing = [p for p in args.positions_from or [] if not p.is_file()]
    if missing:
        parser.error(f"no such progress file: {missing[0]}")
    if args.changed is not None:
        if not out.is_file():
            parser.error(f"no book at {out}")
        changed_openings(SolvedBook.load(out), args.changed, args.write)
        return SolvedBook.load(out)
    book = SolvedBook.load(out) if out.is_file() else SolvedBook(spec, args.nodes)
    book.nodes = max(book.nodes, args.nodes)
    done = set(book.moves) | book.lost | (set() if args.retry else book.unsettled)
    todo = []
    if args.positions_from:
        try:
            candidates = slow_positions(args.positions_from, args.slower_than)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            parser.error(f"--positions-from: not a sweep's progress file ({error!r})")
        what = f"positions the champion took at least {args.slower_than:g} s on"
    else:
        candidates = all_openings(spec, args.stones)
        what = f"openings of {args.stones} stones"
    for opening in candidates:
        try:
            state = spec.replay(opening)
        except ValueError as e:
            parser.error(f"{opening}: not a position of {spec}: {e}")
        keys = (position_key(state.array, spec.cells), position_key(state.array, spec.cells, turned=True))
        if not any(k in done for k in keys):
            done.add(keys[0])  # the same position met twice (or half-turned) is solved once
            todo.append((opening, state.array.copy()))
    print(f"{spec}: {len(todo)} {what} to solve at {args.nodes} nodes, -> {out}")

    def record(opening: list[int], value: int, move: int) -> None:
        key = position_key(states[tuple(opening)], spec.cells)
        book.unsettled.discard(key)
        if value == hd.WIN and move >= 0:
            book.moves[key] = move
        elif value == hd.LOSS:
            book.lost.add(key)
        else:
            book.unsettled.add(key)
        book.save(out)

    states = {tuple(o): s for o, s in todo}
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns) as progress:
        task = progress.add_task("solving", total=len(todo))
        if args.workers == 1:
            for opening, _ in todo:
                opening, v, move, _ = solve_opening(str(spec), opening, args.nodes)
                record(opening, v, move)
                progress.advance(task)
        else:
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(args.workers, mp_context=context) as pool:
                futures = [pool.submit(solve_opening, str(spec), o, args.nodes) for o, _ in todo]
                for future in as_completed(futures):
                    opening, v, move, _ = future.result()
                    record(opening, v, move)
                    progress.advance(task)
    print(f"{len(book.moves)} won (a winning move each), {len(book.lost)} lost, {len(book.unsettled)} unsettled")
    return book


if __name__ == "__main__":
    run_main(main)
