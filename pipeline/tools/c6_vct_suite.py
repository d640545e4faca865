"""Connect6 threat sequences (VCT, issue 79): the position suite, the tool that labels it and
the verifier of a claimed VCT.

    python -m pipeline.tools.c6_vct_suite --count 100 --workers 2 --write tests/tactics/connect6_vct.txt
    python -m pipeline.tools.c6_vct_suite --suite tests/tactics/connect6_vct.txt --budget 20000 [--verify]

Building (`--write`): the candidates are start-of-turn positions of connect6:19 (the mover has
two stones to place), deduplicated by board and ply: from the `zero evaluate --json` games
that white lost (`--matches`, by default the Connect6 defence run's), black's turns in the
`--before` (4) turns before its first VCF (from its first proven win in the record, back
over the starts of its turns while `solve_vcf` proves one at 20,000 nodes, as
`c6_loss_audit` walks), black to move; and from random games of stones placed near the
stones on the board (`c6_no_blunder.random_game`, `--random-games`, a few positions of each,
either side to move). They are taken in turn from each source (shuffled by `--seed`) and
labelled: a plain VCF within 20,000 nodes (`--vcf-budget`) drops the position; else `solve_vct` at `--large`
(1,000,000) nodes: a VCT of 2 to 5 attacker turns whose line replays (`verify_vct` on its
line) is a positive (`vct N`), none found a negative (`none`), anything else is dropped. The
build stops at `--count` of each; lines are written as they come (Ctrl-C keeps them).

Scoring (`--suite`): `solve_vct` at `--budget` on every position: the positives found (share,
mean nodes), the claims on the negatives, and every claim checked by `verify_vct`: its line
replayed (by default) or, with `--verify`, every defender reply at the line's first level
(hundreds of solver calls a position: use `--workers`). A false win is a claim that fails
the check; one the check cannot settle (a quiet attacker turn) is counted apart."""

from __future__ import annotations

import argparse
import glob
import json
import multiprocessing
import re
import shlex
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from pipeline.bench.tactics import stopping_pairs, threat_windows
from pipeline.games.base import GameSpec, GameState
from pipeline.games.connect6 import mover_at_ply, stones_left_in_turn
from pipeline.runtime.pipe import run_main
from pipeline.tactics.lines.solve import Proof, solve_vcf, solve_vct
from pipeline.tools.c6_no_blunder import random_game

SPEC = "connect6:19"
ROOT = Path(__file__).resolve().parents[2]
MATCHES = "reports/runs/connect6-19x19-defence/matches/*.json"
VCF_BUDGET = 20_000  # a position with a plain VCF within this many nodes is no VCT position
LARGE = 1_000_000  # the labelling run's budget
VERIFY_BUDGET = 200_000  # the solver's budget for each defender reply the verifier plays out
FOUND_AT = re.compile(r"at move (\d+)")  # in a record's first_proven_win
TURNS = (2, 5)  # a positive's attacker turns, both ends included
UNVERIFIED = "unverified"  # how a verdict the verifier cannot settle begins
HEADER = """# Connect6 19x19 VCT positions (issue 79): spec | moves in play order | vct <attacker turns> or none
# Start-of-turn positions (the mover places two stones; the mover attacks) with no plain VCF within {vcf:,} nodes
# (`solve_vcf`): `vct N` where `solve_vct` at {large:,} nodes proves a win of N attacker turns ({lo} to {hi}) whose
# line replays under the rules (`c6_vct_suite.verify_vct`), `none` where it finds none. Candidates: black's turns in
# the {before} turns before its first VCF in the games white lost of {matches}, and a few
# positions of each of {random_games} random games of stones near the stones on the board (seed {seed}). Built with
#   {command}
"""


def starts_turn(ply: int) -> bool:
    """Whether a turn starts at `ply` (Connect6: 0, 1, 3, 5, ...)."""
    return ply == 0 or stones_left_in_turn(ply) == 2


def position_key(state: GameState) -> tuple[bytes, int]:
    """Positions with the same stones and the same stones left to place are one."""
    return state.board().tobytes(), state.ply


# ---- the verifier ---------------------------------------------------------------------


def _stops(pair: Iterable[int], windows: list[frozenset[int]]) -> bool:
    cells = set(pair)
    return all(cells & w for w in windows)


def _replies(state: GameState, windows: list[frozenset[int]], need: int, pairs: list[tuple[int, int]]):
    """Every defender turn (as a set of two cells) that stops the attacker's threats:
    `need` 2, the stopping pairs; `need` 1, a cell in every window with any other legal
    cell, and the pairs of cells of the windows that hit them all without one."""
    if need == 2:
        return [frozenset(p) for p in pairs]
    legal = [int(a) for a in state.legal_actions()]
    common = [c for c in sorted(set().union(*windows)) if all(c in w for w in windows)]
    out = {frozenset((b, x)) for b in common for x in legal if x != b}
    cells = sorted(set().union(*windows) - set(common))
    out |= {frozenset((a, b)) for i, a in enumerate(cells) for b in cells[i + 1 :] if _stops((a, b), windows)}
    return sorted(out, key=sorted)


def verify_vct(
    state: GameState,
    proof: Proof,
    budget: int = VERIFY_BUDGET,
    levels: int = 1,
    solve: Callable[[GameState, int], Proof | None] | None = None,
) -> str | None:
    """Check the Connect6 proof `proof` (of the player to move in `state`) against the rules:
    None when it holds, else why not (a reason beginning with UNVERIFIED when the check
    cannot settle it). The line is replayed stone by stone. At each defender turn on it: the
    defender cannot win this turn; the attacker has threats (a window of four of its stones
    and no other), and the line's defender turn stops them all. With `levels` > 0, every
    other defender turn that stops them is played out too and the attacker's win after it
    found by `solve` (default `solve_vct`) at `budget` nodes, its proof checked in turn with
    `levels` - 1: when the threats need two stones, every stopping pair (as
    `bench.tactics.replay_c6`); when one stone, each stopping cell with every other legal
    cell (the defender's free stone) and the pairs that stop them without it. A defender
    turn facing no threat (the attacker's turn before it quiet) would leave every pair of
    stones to try: it is reported UNVERIFIED rather than passed. `levels` 0 replays the
    line alone."""
    solve = solve or (lambda s, b: solve_vct(s, budget=b))
    spec = state.spec
    if spec.game != "connect6":
        return f"{spec} is not Connect6"
    s = state.copy()
    attacker = s.current_player
    if proof.winner != attacker:
        return "the proof is not the player to move's"
    moves = proof.moves
    if not moves:
        return "the proof is empty"
    av, dv = attacker + 1, 2 - attacker
    h, w = spec.height, spec.width
    quiet = None
    for i, move in enumerate(moves):
        if s.current_player != attacker and stones_left_in_turn(s.ply) == 2:
            board = s.board().reshape(-1)
            if threat_windows(board, h, w, dv):
                return f"move {i}: the defender can win this turn"
            windows = threat_windows(board, h, w, av)
            need, pairs = stopping_pairs(windows)
            if i + 1 >= len(moves):
                return "the proof ends at a defender turn"
            line = frozenset((move, moves[i + 1]))
            if need == 0:
                quiet = quiet or f"{UNVERIFIED} quiet turn: the attacker threatens nothing before move {i}"
            elif need <= 2:
                if len(line) < 2 or not _stops(line, windows):
                    return f"move {i}: the proof's defender turn does not stop every threat"
                if levels > 0:
                    for reply in _replies(s, windows, need, pairs):
                        if reply == line:
                            continue
                        a, b = sorted(reply)
                        why = _after_reply(s, a, b, budget, levels, solve)
                        if why is not None:
                            return f"move {i}, reply {spec.action_name(a)} {spec.action_name(b)}: {why}"
            # need 3: no defender turn stops the threats; the line goes on to the six.
        if not 0 <= move < spec.cells or s.board().reshape(-1)[move] != 0:
            return f"move {i} is not on an empty cell"
        s.apply(move)
        if i < len(moves) - 1 and s.is_terminal:
            return f"the game ended at move {i}, inside the proof"
    if s.winner != attacker:
        return "the proof does not end in the attacker's six"
    return quiet


def _after_reply(state: GameState, a: int, b: int, budget: int, levels: int, solve) -> str | None:
    other = state.copy().apply(a).apply(b)
    if other.is_terminal:
        return "the reply ends the game"
    sub = solve(other, budget)
    if sub is None:
        return f"no win found after it within {budget:,} nodes"
    return verify_vct(other, sub, budget, levels - 1, solve)


# ---- collecting ------------------------------------------------------------------------


def game_candidates(spec: GameSpec, record: dict, before: int, budget: int = VCF_BUDGET) -> list[list[int]]:
    """The moves up to each start of black's turns in the `before` turns before black's
    first VCF: from black's first proven win (the record's `first_proven_win`, else the
    game's end) back over the starts of black's turns while `solve_vcf` proves one at
    `budget` nodes, as `c6_loss_audit` walks (one failed search a game), the earliest of
    them. None when black never had a VCF there, or had one from the opening's end."""
    moves = [spec.parse_action(m) for m in record["moves"]]
    found = FOUND_AT.search(record.get("first_proven_win", {}).get(record["black"], "") or "")
    last = int(found.group(1)) - 1 if found else len(moves) - 1
    opening = len(record["opening"])
    starts = [p for p in range(opening, last + 1) if mover_at_ply(p) == 0 and starts_turn(p)]
    earliest = None
    while starts and solve_vcf(spec.replay(moves[: starts[-1]]), budget=budget) is not None:
        earliest = starts.pop()
    if earliest is None:
        return []
    return [moves[:p] for p in starts[-before:]]


def _game_candidates(job: tuple[dict, int]) -> list[list[int]]:
    record, before = job
    return game_candidates(GameSpec.parse(SPEC), record, before)


def white_lost(record: dict, player: str) -> bool:
    """Whether black won the game (a record's score is the match player's: 1, 0 or 0.5)."""
    if record["score"] not in (0.0, 1.0):
        return False
    return (record["score"] == 1.0) == (record["black"] == player)


def match_records(paths: list[Path]) -> list[dict]:
    """The Connect6 games white lost in the match files, each move list once."""
    out, seen = [], set()
    for path in paths:
        data = json.loads(path.read_text())
        if GameSpec.parse(data["game"]).game != "connect6":
            continue
        for record in data["records"]:
            if not white_lost(record, data["player"]) or tuple(record["moves"]) in seen:
                continue
            seen.add(tuple(record["moves"]))
            out.append(record)
    return out


def match_candidates(paths: list[Path], before: int, workers: int = 1, log=print) -> list[list[int]]:
    """`game_candidates` of every game white lost in the match files, deduplicated."""
    records = match_records(paths)
    out = []
    for i, found in enumerate(_imap(_game_candidates, [(r, before) for r in records], workers)):
        out += found
        if (i + 1) % 100 == 0:
            log(f"  {i + 1}/{len(records)} games: {len(out)} positions")
    log(f"{len(records)} games white lost in {len(paths)} match files: {len(out)} positions")
    return out


def random_candidates(spec: GameSpec, games: int, seed: int, per_game: int = 3) -> list[list[int]]:
    """Up to `per_game` start-of-turn positions (from ply 9, the game not over) of each of
    `games` random near-stone games."""
    out = []
    for g in range(games):
        rng = np.random.default_rng(seed + 7919 * g)
        moves = random_game(spec, rng, max_turns=int(rng.integers(8, 30)))
        state = spec.new_game()
        plies = []
        for ply, a in enumerate(moves):
            if ply >= 9 and starts_turn(ply):
                plies.append(ply)
            state.apply(a)
        if state.is_terminal and plies:
            plies = plies[:-1]  # not the turn that wins
        for ply in sorted(rng.choice(plies, size=min(per_game, len(plies)), replace=False)) if plies else []:
            out.append(moves[: int(ply)])
    return out


def candidates(spec: GameSpec, sources: list[list[list[int]]], seed: int) -> list[list[int]]:
    """The sources' positions shuffled (each source by `seed`), taken from each in turn,
    each position once."""
    rng = np.random.default_rng(seed)
    shuffled = [[src[i] for i in rng.permutation(len(src))] for src in sources]
    out, seen = [], set()
    for row in range(max((len(s) for s in shuffled), default=0)):
        for src in shuffled:
            if row < len(src):
                key = position_key(spec.replay(src[row]))
                if key not in seen:
                    seen.add(key)
                    out.append(src[row])
    return out


# ---- labelling ---------------------------------------------------------------------------


def label(moves: list[int], large: int = LARGE, vcf_budget: int = VCF_BUDGET) -> dict:
    """One position's label: vcf (a plain VCF within `vcf_budget` nodes), vct (with its
    turns), none, or broken (a proof whose line does not replay)."""
    state = GameSpec.parse(SPEC).replay(moves)
    t0 = time.perf_counter()
    row: dict = {"moves": moves}
    if state.is_terminal or not starts_turn(state.ply):
        return dict(row, label="skip")
    if solve_vcf(state, budget=vcf_budget) is not None:
        return dict(row, label="vcf", seconds=time.perf_counter() - t0)
    proof = solve_vct(state, budget=large)
    row["seconds"] = time.perf_counter() - t0
    if proof is None:
        return dict(row, label="none")
    why = verify_vct(state, proof, levels=0)
    if why is not None and not why.startswith(UNVERIFIED):
        return dict(row, label="broken", why=why)
    return dict(row, label="vct", turns=proof.attacker_moves(state.spec, state.ply), nodes=proof.nodes)


def _label(job: tuple[list[int], int, int]) -> dict:
    return label(*job)


def suite_line(spec: GameSpec, row: dict) -> str:
    moves = " ".join(spec.action_name(a) for a in row["moves"])
    return f"{SPEC} | {moves} | " + (f"vct {row['turns']}" if row["label"] == "vct" else "none") + "\n"


def load_suite(path: Path) -> list[tuple[GameState, int | None]]:
    """(position, the attacker turns of its VCT or None) for each line of a suite file."""
    out = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        spec_text, moves, verdict, *_ = (part.strip() for part in line.split("|"))
        state = GameSpec.parse(spec_text).replay(moves.split())
        kind, *turns = verdict.split()
        if kind not in ("vct", "none") or (kind == "vct") != bool(turns):
            raise ValueError(f"{path}: bad verdict {verdict!r}")
        out.append((state, int(turns[0]) if turns else None))
    return out


def build(args, log=print) -> dict[str, int]:
    spec = GameSpec.parse(SPEC)
    paths = []
    for pattern in args.matches:  # from here, else from the repository's root
        found = sorted(glob.glob(pattern)) or sorted(glob.glob(str(ROOT / pattern)))
        if not found:
            log(f"no match file at {pattern}")
        paths += [Path(p) for p in found]
    sources = [
        match_candidates(paths, args.before, args.workers, log) if paths else [],
        random_candidates(spec, args.random_games, args.seed),
    ]
    log(f"{len(sources[1])} positions from {args.random_games} random games")
    pool = candidates(spec, sources, args.seed)
    log(f"{len(pool)} candidate positions, each once")
    counts = {"vct": 0, "none": 0, "vcf": 0, "surplus": 0, "dropped": 0}
    command = "python -m pipeline.tools.c6_vct_suite " + shlex.join(args.argv)
    header = HEADER.format(
        vcf=args.vcf_budget,
        large=args.large,
        lo=TURNS[0],
        hi=TURNS[1],
        before=args.before,
        matches=" ".join(args.matches) or "no match file",
        random_games=args.random_games,
        seed=args.seed,
        command=command,
    )
    out = args.write.open("w") if args.write else None
    if out:
        out.write(header)
        out.flush()
    t0 = last = time.perf_counter()
    done = 0
    rows = _imap(_label, [(m, args.large, args.vcf_budget) for m in pool], args.workers)
    try:
        for row in rows:
            done += 1
            kind = row["label"]
            keep = (kind == "vct" and TURNS[0] <= row["turns"] <= TURNS[1]) or kind == "none"
            if keep and counts[kind] < args.count:
                counts[kind] += 1
                if out:
                    out.write(suite_line(spec, row))
                    out.flush()
            else:
                kind = "vcf" if kind == "vcf" else "surplus" if keep else "dropped"
                counts[kind] += 1
            if row["label"] == "broken":
                log(f"  a proof that does not replay: {row['why']}")
            if kind in ("vct", "none") or time.perf_counter() - last > 5 or done == len(pool):
                last = time.perf_counter()
                log(
                    f"  {done}/{len(pool)} labelled ({last - t0:.0f} s): {counts['vct']} vct, {counts['none']} none; "
                    f"{counts['vcf']} with a VCF, {counts['surplus']} past --count, {counts['dropped']} dropped"
                )
            if counts["vct"] >= args.count and counts["none"] >= args.count:
                break
    except KeyboardInterrupt:
        log("interrupted: what was labelled is kept")
    finally:
        rows.close()  # the workers stop
        if out:
            out.close()
    print(
        f"{counts['vct']} positions with a VCT of {TURNS[0]}-{TURNS[1]} turns, {counts['none']} without, "
        f"of {done} labelled" + (f" -> {args.write}" if args.write else "")
    )
    return counts


# ---- scoring ------------------------------------------------------------------------------


def score_one(job: tuple[GameState, int | None, int, bool, int]) -> dict:
    state, turns, budget, full, verify_budget = job
    t0 = time.perf_counter()
    proof = solve_vct(state, budget=budget)
    row = {"positive": turns is not None, "found": proof is not None, "seconds": time.perf_counter() - t0}
    if proof is not None:
        why = verify_vct(state, proof, verify_budget, levels=1 if full else 0)
        row.update(nodes=proof.nodes, turns=proof.attacker_moves(state.spec, state.ply), why=why)
    return row


def score(args, log=print) -> dict:
    suite = load_suite(args.suite)
    jobs = [(s, t, args.budget, args.verify, args.verify_budget) for s, t in suite]
    rows = []
    scored = _imap(score_one, jobs, args.workers)
    try:
        for row in scored:
            rows.append(row)
            log(f"  {len(rows)}/{len(jobs)} positions")
    except KeyboardInterrupt:
        log("interrupted: the figures of the positions scored")
    finally:
        scored.close()
    figures = {}
    for name, positive in (("vct", True), ("none", False)):
        mine = [r for r in rows if r["positive"] == positive]
        found = [r for r in mine if r["found"]]
        unverified = [r for r in found if r["why"] and r["why"].startswith(UNVERIFIED)]
        false = [r for r in found if r["why"] and not r["why"].startswith(UNVERIFIED)]
        figures[name] = {
            "positions": len(mine),
            "found": len(found),
            "share": len(found) / len(mine) if mine else 0.0,
            "mean_nodes": float(np.mean([r["nodes"] for r in found])) if found else 0.0,
            "mean_seconds": float(np.mean([r["seconds"] for r in mine])) if mine else 0.0,
            "false": len(false),
            "unverified": len(unverified),
            "reasons": sorted({r["why"] for r in false}),
        }
    check = "every defender reply at the first level" if args.verify else "the line replayed"
    print(f"{args.suite}: solve_vct at {args.budget:,} nodes; each claim checked: {check}")
    print(f"  {'label':6} {'positions':>9} {'found':>6} {'share':>7} {'mean nodes':>11} {'false':>6} {'unverif.':>8}")
    for name, f in figures.items():
        print(
            f"  {name:6} {f['positions']:9d} {f['found']:6d} {100 * f['share']:6.1f}% {f['mean_nodes']:11.0f} "
            f"{f['false']:6d} {f['unverified']:8d}"
        )
        for why in f["reasons"][:5]:
            print(f"    false: {why}")
    result = {"suite": str(args.suite), "budget": args.budget, "verify": args.verify, **figures}
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return result


# ---- main ---------------------------------------------------------------------------------


def _quiet_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle


def _imap(fn, jobs: list, workers: int) -> Iterator:
    """`fn` over `jobs` in order, on `workers` processes."""
    if workers <= 1:
        yield from map(fn, jobs)
        return
    with multiprocessing.get_context("fork").Pool(workers, initializer=_quiet_worker) as pool:
        yield from pool.imap(fn, jobs)


def _log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", type=Path, help="score the solver on this suite instead of building one")
    parser.add_argument("--write", type=Path, help="write the built suite here (lines as they are labelled)")
    parser.add_argument("--count", type=int, default=100, help="positions with a VCT to build, and as many without")
    parser.add_argument("--seed", type=int, default=79)
    parser.add_argument("--budget", type=int, default=VCF_BUDGET, help="scoring: solve_vct's node budget")
    parser.add_argument("--large", type=int, default=LARGE, help="building: the labelling solve_vct's node budget")
    parser.add_argument(
        "--vcf-budget", type=int, default=VCF_BUDGET, help="building: a VCF within this many nodes drops a position"
    )
    parser.add_argument("--matches", nargs="*", default=[MATCHES], help="match files (globs) of the games to mine")
    parser.add_argument("--before", type=int, default=4, help="black's turns before its first VCF to take")
    parser.add_argument("--random-games", type=int, default=300, help="random near-stone games to take positions of")
    parser.add_argument("--verify", action="store_true", help="scoring: play out every defender reply of each claim")
    parser.add_argument("--verify-budget", type=int, default=VERIFY_BUDGET, help="nodes for each reply's win")
    parser.add_argument("--workers", type=int, default=1, help="processes (positions in parallel)")
    parser.add_argument("--json", type=Path, help="scoring: write the figures here")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    if min(args.count, args.budget, args.large, args.workers, args.before, args.verify_budget, args.vcf_budget) < 1:
        parser.error("--count, --budget, --large, --vcf-budget, --workers, --before, --verify-budget take at least 1")
    if args.random_games < 0:
        parser.error("--random-games takes at least 0")
    if args.suite:
        if not args.suite.is_file():
            parser.error(f"no suite at {args.suite}")
        return score(args, _log)
    return build(args, _log)


if __name__ == "__main__":
    run_main(main)
