"""Perfect play on a solved Hex board, checked by the solver (pipeline.match.perfect_play):
a champion with the root solver (`search.hex_root_solver_nodes`) plays each opponent as
the first player and as the second, and every position of its own is judged by DFPN
(RESULTS.md: Hex 7x7 perfect play, the Hex 8x8 champion as first and second player).

    python -m pipeline.tools.hex_perfect_play --model models/pretrained/hex-7x7.pt --games 100 \\
        --sides first --vs pure:100 pure:1000 pure:10000 random

Printed per opponent: the report (games won as first and as second player, games with a
position of its own proven won, wins dropped, positions not settled), then the positions
judged; `--json` writes every game with the checker's value of each position.

A checkpoint opponent plays on the champion's board (a size-free net) without the root
solver; `--random-plies` gives the opponent that many uniformly random first moves in half
of the games (different openings against a deterministic opponent, and openings it would
not choose). `--all-openings N` plays every opening of N stones instead (one of each pair
the half-turn maps onto each other), each once with each colour, or `--sample-openings K`
of them drawn at random:

    python -m pipeline.tools.hex_perfect_play --model models/pretrained/hex-7x7.pt \\
        --all-openings 2 --vs pure:1000 random
    python -m pipeline.tools.hex_perfect_play --model models/pretrained/hex-8x8.pt \\
        --all-openings 2 --sample-openings 200 --check-nodes 50000 --vs pure:1000

`--seconds S` plays the champion as the front ends do (the web app, `zero htp`, `zero play`):
each move on its own, its search stopped at `--simulations` or its share of S, the root
solver within the rest; each move's time is recorded, and the median and the longest are
printed (the checker's time is not a move's):

    python -m pipeline.tools.hex_perfect_play --model models/pretrained/hex-8x8.pt --all-openings 2 \\
        --sample-openings 200 --simulations 800 --seconds 5 --vs pure:1000 --workers 2 \\
        --progress reports/hex-perfect-play/hex8-timed.jsonl

`--openings-file FILE` sweeps the openings listed there instead (a JSON list of move
lists), e.g. those where a new book of solved openings changes the champion's play
(`python -m pipeline.tools.hex_solved_book --changed`).

The checker's proofs of the two- and three-stone positions are most of a sweep's time (a
lost or unsettled one costs up to the whole `--check-nodes` budget, 12-40 s at 50,000 on
7x7). For the two-stone ones the board's book of solved openings holds
(`pipeline.tactics.hex.book`) it takes the book's verdict, won or lost, each proven by DFPN,
instead of solving the position again (`--checker-without-book`: it solves them too).
`--verdicts-from` takes the verdicts of earlier sweeps on the same board too (their progress
files): a sweep of the same openings again, say under a time limit, reaches many of the same
positions, and the unsettled early ones cost the whole budget each. A proven verdict is taken
whatever its budget, an unsettled one only from a line checked at this `--check-nodes`; one
that would count as a win dropped is still solved at the larger budget, so a taken verdict
never hides a drop:

    python -m pipeline.tools.hex_perfect_play --model models/pretrained/hex-8x8.pt --all-openings 2 \\
        --sample-openings 200 --simulations 800 --seconds 5 --vs pure:1000 --check-nodes 50000 \\
        --verdicts-from reports/hex-perfect-play/hex8-sample-refute-pure.jsonl --progress F
The chunks are independent: `--workers N` plays N chunks at once, each in a process of its own
with its own players and checker (its own table: a verdict the budget barely settles may
then differ from a serial run's; the moves do not). Ctrl-C or `kill` (of the sweep alone or its
process group) stops the sweep and its workers within seconds; the same command resumes it."""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np

from pipeline.match.evaluation import model_spec
from pipeline.match.perfect_play import CheckedGame, PerfectPlayReport, WinChecker, all_openings, play_checked
from pipeline.players.base import Player
from pipeline.players.factory import (
    PLAY_SOLVER_NODES,
    make_player,
    play_solver_nodes,
)
from pipeline.runtime import interrupt
from pipeline.runtime.locks import locked
from pipeline.runtime.pipe import run_main
from pipeline.search.mcts import SearchConfig
from pipeline.tactics.hex.book import book_for
from pipeline.tactics.hex.solver import UNKNOWN


def game_record(game: CheckedGame) -> dict:
    record = {"first": game.player_first, "won": game.won, "moves": game.moves, "values": game.values}
    if game.seconds:
        record["seconds"] = game.seconds
    return record


def move_times(games: list[CheckedGame]) -> str:
    """The champion's moves by time in words: how many, the median and the longest."""
    times = [t for g in games for t in g.seconds]
    if not times:
        return ""
    return f"{len(times)} moves by time: median {np.median(times):.2f} s, longest {max(times):.2f} s"


def read_progress(path: Path) -> dict[str, list[CheckedGame]]:
    """The chunks a sweep finished before, by key (a torn last line is dropped)."""
    out: dict[str, list[CheckedGame]] = {}
    if not path.is_file():
        return out
    kept = []
    for line in path.read_text().splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        kept.append(line)
        out[entry["chunk"]] = [_from_record(i, g) for i, g in enumerate(entry["games"])]
    path.write_text("".join(line + "\n" for line in kept))  # the next chunk starts on a line of its own
    return out


def earlier_verdicts(paths: list[Path], spec, check_nodes: int) -> dict[bytes, int]:
    """The checker's verdicts in earlier sweeps' progress files (`--verdicts-from`), by
    position: every proven one, and the unsettled ones of lines that were checked at
    `check_nodes` (a line that does not say, from before the budget was written, counts as
    checked at it: name only files of the same budget). A position proven won in one file
    and lost in another is an error to look into, not a verdict to pick."""
    out: dict[bytes, int] = {}
    where: dict[bytes, Path] = {}
    for path in paths:
        try:
            lines = path.read_text().splitlines()
        except OSError as error:
            raise SystemExit(f"error: --verdicts-from {path}: {error.strerror or error}") from None
        for n, line in enumerate(lines, 1):
            try:
                entry = json.loads(line)
                same_budget = entry.get("check_nodes", check_nodes) == check_nodes
                for game in entry["games"]:
                    moves, values = game["moves"], {int(p): int(v) for p, v in game["values"].items()}
                    state = spec.new_game()
                    for ply, move in enumerate([*moves, None]):
                        verdict = values.get(ply)
                        if verdict is not None and (verdict != UNKNOWN or same_budget):
                            key = state.array.tobytes()
                            known = out.get(key, UNKNOWN)
                            if known != UNKNOWN and verdict != UNKNOWN and known != verdict:
                                raise SystemExit(
                                    f"error: a position at ply {ply} of {moves} is proven won in one of "
                                    f"{where[key]} and {path} and lost in the other: a solver fault to look into"
                                )
                            if known == UNKNOWN:
                                out[key], where[key] = verdict, path
                        if move is None or state.is_terminal:
                            break
                        state.apply(int(move))
            except json.JSONDecodeError:
                continue  # a line torn by a stop, as the progress file itself drops it
            except (KeyError, TypeError, ValueError, AttributeError) as error:
                raise SystemExit(
                    f"error: --verdicts-from {path}, line {n}: not a sweep's progress line of {spec} ({error})"
                ) from None
    return out


class ChunkPlayer:
    """Plays a sweep's chunks: the champion (one per colour) and each opponent, made once,
    and one checker for every chunk; in the main process, or one per worker process."""

    def __init__(self, args: argparse.Namespace, spec, opponents: dict[str, Player] | None = None):
        self.args = args
        self.spec = spec
        self.checker = WinChecker(spec, args.check_nodes, book=None if args.checker_without_book else book_for(spec))
        if args.verdicts_from:
            self.checker.take_verdicts(earlier_verdicts(args.verdicts_from, spec, args.check_nodes))
        self.search = SearchConfig(
            simulations=args.simulations,
            hex_root_solver_nodes=play_solver_nodes(spec) if args.solver_nodes is None else args.solver_nodes,
            hex_root_solver_empty_cells=args.solver_empty_cells,
        )
        self.opponents = opponents if opponents is not None else {}
        self.players: dict[tuple[str, bool], Player] = {}

    def champion(self, vs: str, first: bool) -> Player:
        if (vs, first) not in self.players:  # a player of its own per opponent and colour
            player = make_player(str(self.args.model), self.spec, self.search, name=self.args.model.stem)
            if self.args.seconds is not None:  # loading the compiled search is no move's time
                player.think(self.spec.new_game(), budget=1, seconds=0.05)
            self.players[vs, first] = player
        return self.players[vs, first]

    def opponent(self, vs: str) -> Player:
        if vs not in self.opponents:
            self.opponents[vs] = make_player(vs, self.spec, SearchConfig(simulations=self.args.simulations))
        return self.opponents[vs]

    def play(self, vs: str, first: bool, at: int, chunk: list[list[int]]) -> tuple[list[dict], int, int]:
        """The chunk's games as records, how many positions the checker solved for them and
        how many verdicts it took from earlier sweeps."""
        solves, taken = self.checker.solves, self.checker.from_earlier
        seed = self.args.seed + at + (0 if first else 500_000)
        games = play_checked(
            self.spec,
            self.champion(vs, first),
            self.opponent(vs),
            0,
            first,
            self.checker,
            seed,
            openings=chunk,
            seconds=self.args.seconds,
        )
        return [game_record(g) for g in games], self.checker.solves - solves, self.checker.from_earlier - taken


_in_worker: list[ChunkPlayer] = []  # this worker process's ChunkPlayer, made for its first chunk


def _play_in_worker(args: argparse.Namespace, vs: str, first: bool, at: int, chunk: list[list[int]]):
    if not _in_worker:
        _in_worker.append(ChunkPlayer(args, model_spec(args.model, args.board)))
    return _in_worker[0].play(vs, first, at, chunk)


def _from_record(i: int, g: dict) -> CheckedGame:
    values = {int(p): v for p, v in g["values"].items()}
    return CheckedGame(i, g["first"], g["won"], g["moves"], values, g.get("seconds", []))


def chunk_prefix(vs: str, first: bool) -> str:
    """The start of a chunk's key in the progress file: opponent and colour (then the range)."""
    return f"{vs} {'first' if first else 'second'} "


def _chunk_range(key: str) -> tuple[int, int]:
    start, end = key.rsplit(" ", 1)[1].split(":")
    return int(start), int(end)


def plan_chunks(
    args: argparse.Namespace, openings: list[list[int]], sides: tuple[bool, ...], stored: dict[str, list[CheckedGame]]
) -> list[tuple[str, str, bool, int, list[list[int]]]]:
    """The sweep's chunks (key, opponent, colour, first opening's index, openings), in the
    openings' order: those of the progress file (of any size: a sweep resumed with another
    --chunk keeps them) and the openings they miss, cut into chunks of --chunk. A stored
    chunk must hold games from this sweep's openings at its indices, else the file is
    another sweep's: said, not silently played again."""
    tasks = []
    for vs in args.vs:
        for first in sides:
            prefix = chunk_prefix(vs, first)
            covered = np.zeros(len(openings), dtype=bool)
            for key, games in stored.items():
                if not key.startswith(prefix):
                    continue
                start, end = _chunk_range(key)
                fits = 0 <= start < end <= len(openings) and len(games) == end - start
                fits = fits and not covered[start:end].any()
                fits = fits and all(g.moves[: len(o)] == o for g, o in zip(games, openings[start:end], strict=True))
                if not fits:
                    raise SystemExit(
                        f"error: {args.progress} holds games of other openings at chunk {key!r}: another set of "
                        "openings (--all-openings, --sample-openings, --seed, --openings-file)? Name another "
                        "--progress file"
                    )
                covered[start:end] = True
                tasks.append((key, vs, first, start, openings[start:end]))
            at = 0
            while at < len(openings):
                if covered[at]:
                    at += 1
                    continue
                end = at
                while end < len(openings) and not covered[end] and end - at < args.chunk:
                    end += 1
                tasks.append((f"{prefix}{at}:{end}", vs, first, at, openings[at:end]))
                at = end
    return sorted(tasks, key=lambda t: (args.vs.index(t[1]), sides.index(t[2]), t[3]))


def sweep(
    args: argparse.Namespace,
    openings: list[list[int]],
    sides: tuple[bool, ...],
    stored: dict[str, list[CheckedGame]],
    local: ChunkPlayer,
) -> tuple[dict[tuple[str, bool], list[CheckedGame]], int, int]:
    """Every chunk not in `stored`: in this process with `local`, or `args.workers` at a time
    in processes of their own; each appended to the progress file as it finishes. Returns the
    games of each (opponent, colour) in the order of the openings, the positions solved and
    the verdicts taken from earlier sweeps."""
    tasks = plan_chunks(args, openings, sides, stored)
    done = dict(stored)
    todo = [t for t in tasks if t[0] not in done]
    solved = taken = 0
    start = time.perf_counter()

    def finished(key: str, vs: str, first: bool, games: list[dict]) -> None:
        done[key] = [_from_record(i, g) for i, g in enumerate(games)]
        if args.progress:
            with interrupt.writing(), args.progress.open("a") as f:  # a stop waits for the whole line
                f.write(json.dumps({"chunk": key, "check_nodes": args.check_nodes, "games": games}) + "\n")
        side = "first" if first else "second"
        so_far = [g for k, v, f, _, _ in tasks if v == vs and f == first and k in done for g in done[k]]
        summary = PerfectPlayReport(args.model.stem, vs, so_far).summary(first)
        elapsed, left = time.perf_counter() - start, sum(t[0] not in done for t in tasks)
        played = len(todo) - left  # by this call: the pace of a resumed sweep is its own
        pace = f"; {left} chunks left, about {elapsed / played * left / 3600:.1f} h at this pace"
        print(
            f"  {vs}, {side} player: {len(so_far)}/{len(openings)} openings, {summary['won']} won, "
            f"{summary['dropped']} wins dropped ({elapsed:.0f} s{pace if left else ''})"
            + (f"; {move_times(so_far)}" if move_times(so_far) else ""),
            flush=True,
        )

    try:
        if args.workers == 1:
            for key, vs, first, at, chunk in todo:
                games, n, k = local.play(vs, first, at, chunk)
                solved, taken = solved + n, taken + k
                finished(key, vs, first, games)
        else:
            solved, taken = _sweep_in_workers(args, todo, finished)
    except (interrupt.Interrupted, KeyboardInterrupt):
        ours = sum(t[0] in done for t in tasks)  # the file may hold other opponents' chunks too
        kept = f"{ours} of {len(tasks)} chunks kept in {args.progress}" if args.progress else "no --progress"
        raise interrupt.Interrupted(f"sweep stopped, {kept}") from None
    out: dict[tuple[str, bool], list[CheckedGame]] = {}
    for key, vs, first, _, _ in tasks:
        out.setdefault((vs, first), []).extend(done[key])
    return out, solved, taken


def _sweep_in_workers(args: argparse.Namespace, todo: list, finished) -> tuple[int, int]:
    """The chunks `todo`, `args.workers` at a time; on a stop the pool is left to
    `interrupt.exit_now`, which ends every worker (the pool's own shutdown would wait for
    the chunks being played)."""
    solved = taken = 0
    context = multiprocessing.get_context("spawn")  # no fork of a process holding numba and torch threads
    pool = ProcessPoolExecutor(args.workers, mp_context=context, initializer=interrupt.install_in_worker)
    stopped = True
    try:
        futures = {
            pool.submit(_play_in_worker, args, vs, first, at, chunk): (key, vs, first)
            for key, vs, first, at, chunk in todo
        }
        for future in as_completed(futures):
            games, n, k = future.result()
            solved, taken = solved + n, taken + k
            finished(*futures[future], games)
        stopped = False
    finally:
        pool.shutdown(wait=not stopped, cancel_futures=stopped)
    return solved, taken


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, default=Path("models/pretrained/hex-7x7.pt"))
    parser.add_argument("--board", default=None, help="another board for a size-free net, e.g. 8")
    parser.add_argument("--vs", nargs="+", default=["pure:1000", "random"])
    parser.add_argument("--games", type=int, default=100, help="games a side against each opponent")
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument(
        "--solver-nodes",
        type=int,
        default=None,
        help="the champion's root solver budget (default: what zero evaluate, htp and the web app use, "
        f"{PLAY_SOLVER_NODES} nodes up to 8x8)",
    )
    parser.add_argument(
        "--solver-empty-cells",
        type=int,
        default=None,
        help="the root solver waits until at most this many cells are empty (default: from the first move, as "
        "in zero evaluate)",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="the champion's time a move, as the front ends play (each move on its own, the search at most "
        "--simulations; default: no time, the games in lockstep)",
    )
    parser.add_argument("--check-nodes", type=int, default=200_000, help="the checker's budget a position")
    parser.add_argument(
        "--verdicts-from",
        type=Path,
        nargs="+",
        default=None,
        metavar="PROGRESS",
        help="earlier sweeps' progress files on this board: the checker takes their verdicts instead of solving "
        "those positions again (proven ones whatever their budget, unsettled ones from a sweep at this "
        "--check-nodes; one after a proven win is still solved at the larger budget)",
    )
    parser.add_argument(
        "--checker-without-book",
        action="store_true",
        help="the checker solves the board's book positions too, instead of taking the book's proven verdicts "
        "(the sweeps before the twenty-seventh session)",
    )
    parser.add_argument("--random-plies", type=int, default=1)
    parser.add_argument(
        "--all-openings", type=int, default=None, metavar="PLIES", help="every opening of PLIES stones, both colours"
    )
    parser.add_argument("--sample-openings", type=int, default=None, metavar="K", help="K of those, drawn at random")
    parser.add_argument(
        "--openings-file",
        type=Path,
        default=None,
        help="the openings to sweep instead, a JSON list of move lists (e.g. those a new book changes: "
        "python -m pipeline.tools.hex_solved_book --changed)",
    )
    parser.add_argument(
        "--chunk",
        type=int,
        default=100,
        help="games played in lockstep (progress is printed and kept per chunk; a resumed sweep may change it)",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="with --all-openings: chunks played at once, a process each"
    )
    parser.add_argument("--sides", choices=["both", "first", "second"], default="both")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="write every game here")
    parser.add_argument(
        "--progress",
        type=Path,
        default=None,
        help="with --all-openings: every finished chunk is appended here (JSON lines), and a rerun with the same "
        "arguments plays only the chunks not in it (a sweep of hours survives a stop)",
    )
    args = parser.parse_args(argv)
    try:
        spec = model_spec(args.model, args.board)
        # every opponent is built before the first game: a wrong name or a checkpoint of other
        # rules fails at once, not after an hour of games against the ones before it
        opponents = {vs: make_player(vs, spec, SearchConfig(simulations=args.simulations)) for vs in args.vs}
    except (ValueError, FileNotFoundError) as error:
        raise SystemExit(f"error: {error}") from None
    local = ChunkPlayer(args, spec, opponents)
    openings = None
    if args.openings_file is not None:
        try:
            openings = [[int(a) for a in o] for o in json.loads(args.openings_file.read_text())]
            for opening in openings:
                state = spec.replay(opening)
                if state.is_terminal:
                    raise ValueError(f"opening {opening} ends the game")
        except (OSError, ValueError, TypeError) as error:
            raise SystemExit(f"error: {args.openings_file}: not a JSON list of move lists ({error})") from None
        print(f"{spec}: {len(openings)} openings from {args.openings_file}, each with both colours", flush=True)
    elif args.all_openings is not None:
        openings = all_openings(spec, args.all_openings)
        if args.sample_openings is not None and args.sample_openings < len(openings):
            picked = np.random.default_rng(args.seed).choice(len(openings), args.sample_openings, replace=False)
            openings = [openings[i] for i in sorted(picked)]
        print(f"{spec}: {len(openings)} openings of {args.all_openings} stones, each with both colours", flush=True)
    sides = {"both": (True, False), "first": (True,), "second": (False,)}[args.sides]
    if args.workers < 1 or args.chunk < 1:
        raise SystemExit("error: --workers and --chunk must be at least 1")
    swept, solved, taken = None, 0, 0
    if openings is not None:
        if args.progress:
            # One call plays every remaining chunk: a second on the same file would play the same
            # games beside it (RESULTS.md, twenty-second session: two copies for 41 minutes).
            with contextlib.ExitStack() as hold:
                try:
                    hold.enter_context(locked(args.progress, wait=False))
                except BlockingIOError:
                    raise SystemExit(
                        f"error: another sweep is playing into {args.progress} (one call plays every remaining "
                        "chunk): wait for it, or stop it and run this again to resume"
                    ) from None
                swept, solved, taken = sweep(args, openings, sides, read_progress(args.progress), local)
        else:
            swept, solved, taken = sweep(args, openings, sides, {}, local)
    out = []
    for vs in opponents:
        records = []
        for first in sides:
            if swept is not None:
                records += swept[(vs, first)]
                continue
            start = time.perf_counter()
            half = args.games // 2
            for part, plies in ((0, args.random_plies), (1, 0)):
                n = half if part == 0 else args.games - half
                seed = args.seed + 1000 * part + (0 if first else 500)
                records += play_checked(
                    spec,
                    local.champion(vs, first),
                    local.opponent(vs),
                    n,
                    first,
                    local.checker,
                    seed,
                    plies,
                    seconds=args.seconds,
                )
            print(f"  ({'first' if first else 'second'} player: {time.perf_counter() - start:.0f} s)", flush=True)
        report = PerfectPlayReport(args.model.stem, vs, records)
        print(report.describe(), flush=True)
        for first in sides:
            timing = move_times([g for g in records if g.player_first == first])
            if timing:
                print(f"  {'first' if first else 'second'} player: {timing}", flush=True)
        out.append(
            {
                "opponent": vs,
                "first": report.summary(True),
                "second": report.summary(False),
                "games": [game_record(g) for g in records],
            }
        )
    judged = sum(len(g["values"]) for o in out for g in o["games"])
    if swept is None:
        solved, taken = local.checker.solves, local.checker.from_earlier
    earlier = f", {taken} taken from earlier sweeps" if args.verdicts_from else ""
    print(f"{spec}: {judged} positions judged, {solved} distinct ones solved at {args.check_nodes} nodes{earlier}")
    if args.json:
        args.json.write_text(json.dumps(out))
    return out


def run_from_shell() -> None:
    """`python -m`: Ctrl-C or SIGTERM (to this process alone or to its group) stops the sweep
    and its workers within seconds, says in one line what was kept, and exits 130 or 143;
    every finished chunk is in the progress file, and the same command resumes."""
    interrupt.install()
    try:
        main()
    except (interrupt.Interrupted, KeyboardInterrupt) as stop:
        print(interrupt.stop_line(stop, "stopped"), file=sys.stderr)
        interrupt.exit_now(timeout=1.0)


if __name__ == "__main__":
    run_main(run_from_shell)
