"""The tree's tactical verdict replayed over the leaves of real searches: where
`expand_and_backup` spends its time with `search.tactics` on (RESULTS.md, "the tree's
tactical verdict made cheap").

    python -m pipeline.tools.tactics_replay collect --spec gomoku:8 --model models/pretrained/gomoku-8x8.pt \\
        --games 8 --out .tmp/leaves-8x8.npz [--fresh]
    python -m pipeline.tools.tactics_replay replay .tmp/leaves-8x8.npz [--repeats 3] [--limit 25000]

`collect` plays self-play games (the default self-play config, tactics vcf) and keeps every
leaf the search expanded, in order. `replay` runs `forced.tactical_verdict` over them in
that order with one pair of tables and one scratch kept across calls, as `BatchedMCTS`
does, and reports calls/s, the verdicts, the solver's nodes, and the time of each part of
the verdict, with a digest of the verdicts and moves: two checkouts that print the same
digest on the same leaves agree on every one."""

# The compiled loops below are cached by numba on this file; importing them imports
# `pipeline` first, which points numba's cache at a directory keyed on the solvers' source,
# so a change in a solver never leaves a stale copy of it here.
from __future__ import annotations

import argparse
import hashlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from pipeline.games.base import GameSpec
from pipeline.games.kernels import legal_mask
from pipeline.games.layout import CONNECT6, GOMOKU, HEIGHT, KIND, WIDTH
from pipeline.search.forced import LOSS, TACTICS_MODES, WIN, tactical_verdict_into
from pipeline.tactics.lines.scratch import scratch_for
from pipeline.tactics.lines.table import new_table
from pipeline.tactics.lines.threats import LOST, null_move, threat_defences
from pipeline.tactics.lines.vcf import vcf_into


def collect(spec_text: str, model: str, games: int, out: str, seed: int, simulations: int, fresh: bool = False) -> None:
    import torch

    from pipeline.nets.evaluator import NetEvaluator
    from pipeline.players.models import load_model
    from pipeline.search import mcts
    from pipeline.selfplay.play import SelfPlayConfig, play_games

    torch.set_num_threads(1)
    spec = GameSpec.parse(spec_text)
    net = load_model(model, spec)
    if fresh:  # an untrained net's games are full of threats: the solvers' worst case
        from pipeline.nets.resnet import PolicyValueNet

        torch.manual_seed(seed)
        net = PolicyValueNet(net.game, net.net)
    evaluator = NetEvaluator(net, threads=1)
    record: list[np.ndarray] = []
    search = mcts.BatchedMCTS.search

    def recording(self: mcts.BatchedMCTS, evaluator: Callable, *args: Any, **kwargs: Any) -> Any:
        """The search, keeping each batch's leaves (overlap off: the batch starts at 0)."""

        def recorded(obs: np.ndarray) -> Any:
            record.append(self.leaf_states[: len(obs)].copy())
            return evaluator(obs)

        return search(self, recorded, *args, **kwargs)

    # On the class: self-play's own subclass of the search (its per-game noise) inherits it.
    mcts.BatchedMCTS.search = recording  # type: ignore[method-assign]
    try:
        config = SelfPlayConfig(parallel_games=games, search=mcts.SearchConfig(simulations=simulations))
        play_games(spec, evaluator, games, config, seed=seed)
    finally:  # the search as it was (a caller in the same process searches on)
        mcts.BatchedMCTS.search = search  # type: ignore[method-assign]
    if not record:
        raise SystemExit("error: the search evaluated no leaf: nothing recorded")
    states = np.concatenate(record)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, states=states, spec=spec_text)
    print(f"{len(states)} leaves of {games} games ({spec_text}) -> {out}")


@njit(cache=True, nogil=True)
def run_verdicts(states, mode, budget, depth, table, null_table, pv, verdicts, actions, kept):
    cells = states[0, HEIGHT] * states[0, WIDTH]
    mask = np.zeros(cells, dtype=np.bool_)
    sc = scratch_for(states[0], depth)
    for i in range(states.shape[0]):
        legal_mask(states[i], mask)
        v, a = tactical_verdict_into(states[i], mask, mode, budget, depth, table, null_table, pv, sc)
        verdicts[i] = v
        actions[i] = a
        kept[i] = mask.sum()


@njit(cache=True, nogil=True)
def run_vcf(states, budget, depth, table, pv, found, nodes):
    sc = scratch_for(states[0], depth)
    for i in range(states.shape[0]):
        r, _, n = vcf_into(states[i], budget, depth, table, pv, sc)
        found[i] = r
        nodes[i] = n


@njit(cache=True, nogil=True)
def run_threats(states, need):
    cells = states[0, HEIGHT] * states[0, WIDTH]
    marks = np.zeros(cells, dtype=np.bool_)
    for i in range(states.shape[0]):
        need[i] = threat_defences(states[i], marks)


@njit(cache=True, nogil=True)
def run_null(states, which, budget, depth, table, pv, found, nodes):
    passed = np.empty_like(states[0])
    sc = scratch_for(states[0], depth)
    for i in range(states.shape[0]):
        if not which[i]:
            continue
        null_move(states[i], passed)
        r, _, n = vcf_into(passed, budget, depth, table, pv, sc)
        found[i] = r
        nodes[i] = n


def replay(path: str, mode: str, budget: int, depth: int, repeats: int, limit: int = 0) -> str:
    """Print the replay's figures; return the digest of the verdicts and moves."""
    data = np.load(path)
    states = np.ascontiguousarray(data["states"][:limit] if limit else data["states"])
    m = TACTICS_MODES[mode]
    n = len(states)
    pv = np.zeros(512, dtype=np.int64)
    verdicts = np.zeros(n, dtype=np.int64)
    actions = np.zeros(n, dtype=np.int64)
    kept = np.zeros(n, dtype=np.int64)
    cells = int(states[0, HEIGHT] * states[0, WIDTH])
    kind = int(states[0, KIND])

    def timed(fn, *args) -> float:
        """Best of `repeats`, each from empty tables (the 2-column arrays)."""
        best = float("inf")
        for _ in range(repeats):
            fresh = [
                np.zeros_like(a) if isinstance(a, np.ndarray) and a.ndim == 2 and a.shape[1] == 2 else a for a in args
            ]
            t0 = time.perf_counter()
            fn(*fresh)
            best = min(best, time.perf_counter() - t0)
        return best

    fn_args = (states, m, budget, depth, new_table(16), new_table(16), pv, verdicts, actions, kept)
    run_verdicts(states[:2], *fn_args[1:7], verdicts, actions, kept)  # compile
    t_all = timed(run_verdicts, *fn_args)
    print(f"{path}: {n} leaves, {cells} cells, mode {mode}, budget {budget}, depth {depth}")
    print(f"tactical_verdict: {t_all:.3f} s, {n / t_all:,.0f} calls/s, {t_all / n * 1e6:.1f} us/call")
    win = int((verdicts == WIN).sum())
    loss = int((verdicts == LOSS).sum())
    narrowed = int(((verdicts == 0) & (kept < cells - states[:, 9])).sum())
    digest = hashlib.sha256(verdicts.tobytes() + actions.tobytes()).hexdigest()[:12]
    print(
        f"verdicts: WIN {win}, LOSS {loss}, OPEN narrowed {narrowed}, OPEN untouched {n - win - loss - narrowed}; "
        f"digest {digest}"
    )

    found = np.zeros(n, dtype=np.int64)
    nodes = np.zeros(n, dtype=np.int64)
    run_vcf(states[:2], budget, depth, new_table(16), pv, found[:2], nodes[:2])  # compile
    t_vcf = timed(run_vcf, states, budget, depth, new_table(16), pv, found, nodes)
    zero = int((nodes == 0).sum())
    print(
        f"  vcf (mover):      {t_vcf:.3f} s ({t_vcf / t_all:.0%}); found {int(found.sum())}; "
        f"0 nodes {zero} ({zero / n:.0%}); nodes mean {nodes.mean():.1f}, at budget {(nodes >= budget).sum()}"
    )
    need = np.zeros(n, dtype=np.int64)
    run_threats(states[:2], need[:2])  # compile
    t_thr = timed(run_threats, states, need)
    print(
        f"  threat_defences:  {t_thr:.3f} s ({t_thr / t_all:.0%}); need 0 {(need == 0).sum()}, "
        f"1 {(need == 1).sum()}, 2 {(need == 2).sum()}, lost {(need == LOST).sum()}"
    )
    if kind == GOMOKU:
        which = (found != 1) & (need == 0)
        nf = np.zeros(n, dtype=np.int64)
        nn = np.zeros(n, dtype=np.int64)
        run_null(states[:2], which[:2], budget, depth, new_table(16), pv, nf[:2], nn[:2])  # compile
        t_null = timed(run_null, states, which, budget, depth, new_table(16), pv, nf, nn)
        z = int((which & (nn == 0)).sum())
        print(
            f"  vcf (passed):     {t_null:.3f} s ({t_null / t_all:.0%}); called {int(which.sum())}, "
            f"found {int(nf.sum())}; 0 nodes {z}; nodes mean {nn[which].mean() if which.any() else 0.0:.1f}"
        )
        rest = t_all - t_vcf - t_thr - t_null
        print(f"  refute + rest:    {rest:.3f} s ({rest / t_all:.0%})")
    elif kind == CONNECT6:
        rest = t_all - t_vcf - t_thr
        print(f"  rest:             {rest:.3f} s ({rest / t_all:.0%})")
    return digest


def main(argv: list[str] | None = None) -> str | None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--spec", default="gomoku:8")
    c.add_argument("--model", default="models/pretrained/gomoku-8x8.pt")
    c.add_argument("--games", type=int, default=8)
    c.add_argument("--simulations", type=int, default=200)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--out", default=".tmp/leaves.npz")
    c.add_argument("--fresh", action="store_true", help="a fresh net of the model's shape (seeded, untrained)")
    r = sub.add_parser("replay")
    r.add_argument("path")
    r.add_argument("--mode", default="vcf", choices=list(TACTICS_MODES))
    r.add_argument("--budget", type=int, default=200)
    r.add_argument("--depth", type=int, default=12)
    r.add_argument("--repeats", type=int, default=3)
    r.add_argument("--limit", type=int, default=0, help="only the first N leaves (0: all)")
    args = parser.parse_args(argv)
    if args.command == "collect":
        if args.games < 1:
            parser.error("--games takes at least 1")
        collect(args.spec, args.model, args.games, args.out, args.seed, args.simulations, args.fresh)
        return None
    if args.repeats < 1:
        parser.error("--repeats takes at least 1")
    return replay(args.path, args.mode, args.budget, args.depth, args.repeats, args.limit)


if __name__ == "__main__":
    main()
