"""The tree's tactical verdict and the solvers give exactly what they gave before they were
made cheap (issue 25): on a fixed set of positions, the same verdict (OPEN/WIN/LOSS), the
same winning move and the same narrowed mask; the same proofs and node counts from the
solvers; and, over a sequence of calls sharing small transposition tables (so entries
are evicted), the same verdicts and the same tables at the end.

The expected values in tests/tactics/verdicts.npz were recorded with the reference code,
main at 608d3a1 (the per-call allocating solvers, renju included), in a worktree of its
own with this file copied in; the positions are stored with them:
search leaves of real self-play (the shipped nets, tactics on), random middle games near
the centre, the threatened positions of `pipeline.tactics.lines.threatened` and the suite in
tests/tactics/positions.txt, for Gomoku freestyle, exact five and renju, and Connect6.

The self-play digests (`|selfplay`) alone were recorded again with the code of issue 42,
which gave each self-play game its own random streams from (seed, game id): the same
games for the tree's verdicts, drawn differently (the verdicts and solvers above, which
they run through, still match the reference here).

Record again (only on purpose, with the reference code checked out, e.g. `git worktree add
--detach ../ref main`, this file and the leaves of `LEAVES` copied in) with

    python -m tests.unit.test_verdict_reference --record

(the reference code has no scratch: `judge` then asks its `tactical_verdict`).

The Connect6 entries (connect6:10, connect6:19: verdicts, masks, tables, proofs, node
counts and the self-play digest) were recorded again when the Connect6 search moved to
line tables (issue 39: `c6_search.c6_solve`, turns generated from the windows, nodes counted per
double-threat turn played), with `--record-connect6`, which keeps the Gomoku entries. Node
counts and proofs changed by design; verdicts moved only from OPEN to WIN (a win the old
search did not reach within the budget: 25 of 450 positions on 10x10 and 20 of 86 on 19x19
at 200 nodes; none from WIN or LOSS), and the Gomoku entries are those of the reference.
They were recorded again once more when Connect6 nodes began to check the opponent's VCF
with the mover's turn passed (`forced.c6_defence_zone`): masks narrowed to the defence zone
by design, verdicts unchanged but one OPEN to WIN; and once more when the zone became the
opponent's whole proof tree and the mover's own threats (`c6_search.opponent_vcf_into`,
`forced.c6_own_threat_cells`): masks changed, every verdict the same.

The Gomoku tables, solver node counts and the exact-five and renju self-play digests were
recorded again when a Gomoku failure that held at every depth began to be stored as such
and to end the iterative deepening (issue 41, `gomoku_vcf.gomoku_attack`), with
`--record-exact-failures gomoku`, which first checks every verdict, action, mask, solver
result and proof against the record: all the same; VCF nodes 2-4x fewer (gomoku:8 3,402 ->
939). The same for Connect6 (`--record-exact-failures connect6`) when its search did the
same (`c6_search.c6_node`).

The Connect6 entries were recorded again (`--record-connect6`) when `vct` began to search
Connect6 VCTs (issue 79, `c6_vct`): every verdict the same in every configuration; the VCT
solver's proofs and node counts changed by design.

The self-play digests alone were recorded again (`--record-selfplay`, every other entry
kept) when a root move proven lost began to lose its visits whatever proved it (issue 39,
eighteenth session): the verdicts are the same, the games sample from other visit counts.
"""

from __future__ import annotations

import hashlib
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from pipeline.games.base import GameSpec, GameState
from pipeline.search.forced import TACTICS_MODES
from pipeline.tactics.lines.table import new_table
from pipeline.tactics.lines.threatened import threatened_positions
from pipeline.tactics.lines.vcf import vcf
from pipeline.tactics.lines.vct import vct

try:
    from pipeline.search.forced import tactical_verdict_into
    from pipeline.tactics.lines.scratch import scratch_for
except ImportError:  # the reference code, recording: the verdict allocates its own room
    from pipeline.search.forced import tactical_verdict

    def scratch_for(state, depth):
        return None

    def tactical_verdict_into(state, mask, mode, budget, depth, table, null_table, pv, scratch):
        return tactical_verdict(state, mask, mode, budget, depth, table, null_table, pv)


pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "tests" / "tactics" / "verdicts.npz"
LEAVES = {  # search leaves collected with `scripts.tactics_replay collect` (not in the repository)
    "gomoku:8": ROOT / ".tmp" / "leaves-8x8.npz",
    "gomoku:15": ROOT / ".tmp" / "leaves-15.npz",
    "connect6:10": ROOT / ".tmp" / "leaves-c6-10.npz",
}
# spec -> (random middle games, threatened positions, search leaves)
SOURCES = {
    "gomoku:8": (150, 0, 400),
    "gomoku:7:k4": (100, 0, 0),
    "gomoku:9": (120, 25, 0),
    "gomoku:15": (120, 0, 300),
    "gomoku:9x9:k5:exact": (100, 0, 0),
    "gomoku:15x15:k5:exact": (120, 20, 0),
    "gomoku:9x9:renju": (150, 20, 0),
    "gomoku:renju": (100, 10, 0),
    "connect6:10": (150, 0, 300),
    "connect6:19": (80, 0, 0),
}
# (mode, node budget, depth): the self-play default, VCT, a large budget, a shallow search
CONFIGS = [("vcf", 200, 12), ("vct", 200, 12), ("vcf", 2000, 12), ("vcf", 50, 3)]
SEQUENCE_BITS = 8  # small tables for the sequence: entries collide and are evicted
# Self-play with tactics on (the deterministic evaluator of the pinned outputs): games, slots, simulations
SELFPLAY = {
    "gomoku:8": (6, 3, 48),
    "gomoku:9x9:k5:exact": (4, 2, 48),
    "gomoku:9x9:renju": (4, 2, 48),
    "connect6:10": (3, 3, 32),
}


def _digest(*arrays: np.ndarray) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def _suite(spec_text: str) -> list[np.ndarray]:
    """The positions of the suite tests/tactics/positions.txt on this game and board."""
    from tests.unit.test_tactics import load_positions

    want = str(GameSpec.parse(spec_text))
    return [state.array.copy() for state, _, _ in load_positions() if str(state.spec) == want]


def _random_middle_game(spec: GameSpec, rng: np.random.Generator) -> GameState | None:
    state = spec.new_game()
    r0, c0 = spec.height // 2, spec.width // 2
    radius = 2 if spec.cells <= 64 else 3
    for _ in range(int(rng.integers(3, min(36, spec.cells - 4)))):
        legal = state.legal_actions()
        r, c = np.divmod(legal, spec.width)
        near = legal[(abs(r - r0) <= radius) & (abs(c - c0) <= radius)]
        state.apply(int(rng.choice(near if len(near) else legal)))
        if state.is_terminal:
            return None
    return state


def positions(spec_text: str, seed: int = 2025) -> np.ndarray:
    """The recorded positions of one spec (for recording: built from the sources)."""
    spec = GameSpec.parse(spec_text)
    n_random, n_threatened, n_leaves = SOURCES[spec_text]
    rng = np.random.default_rng([seed, len(spec_text)])
    out = _suite(spec_text)
    while len(out) < n_random + len(_suite(spec_text)):
        state = _random_middle_game(spec, rng)
        if state is not None:
            out.append(state.array.copy())
    if n_threatened:
        out += [s.array.copy() for s in threatened_positions(spec, n_threatened, seed=7, budget=2000)]
    if n_leaves:
        leaves = np.load(LEAVES[spec_text])["states"]
        pick = np.linspace(0, len(leaves) - 1, n_leaves).astype(np.int64)
        out += [leaves[i].copy() for i in pick]
    return np.stack(out).astype(np.int32)


def judge(states: np.ndarray, mode: str, budget: int, depth: int, table_bits: int, fresh: bool):
    """Verdict, winning action and narrowed mask of every position, one call each, in order,
    the way the tree asks (`tactical_verdict_into`, one scratch for all the calls); with
    `fresh`, empty tables for every call, else one pair of tables kept throughout
    (returned with the results)."""
    cells = int(states[0, 1] * states[0, 2])
    m = TACTICS_MODES[mode]
    pv = np.zeros(512, dtype=np.int64)
    scratch = scratch_for(states[0], depth)
    table, null_table = new_table(table_bits), new_table(table_bits)
    verdicts = np.zeros(len(states), dtype=np.int64)
    actions = np.zeros(len(states), dtype=np.int64)
    masks = np.zeros((len(states), cells), dtype=np.bool_)
    for i, s in enumerate(states):
        state = s.copy()
        if fresh:
            table[:] = 0
            null_table[:] = 0
        mask = _legal(state, cells)
        v, a = tactical_verdict_into(state, mask, m, budget, depth, table, null_table, pv, scratch)
        assert np.array_equal(state, s), "the verdict must leave the position unchanged"
        verdicts[i], actions[i], masks[i] = v, a, mask
    return verdicts, actions, np.packbits(masks, axis=1), table, null_table


def _legal(state: np.ndarray, cells: int) -> np.ndarray:
    from pipeline.games.kernels import legal_mask

    mask = np.zeros(cells, dtype=np.bool_)
    legal_mask(state, mask)
    return mask


def solver_outputs(states: np.ndarray, budget: int, depth: int) -> np.ndarray:
    """(result, pv_len, nodes, proof digest) of vcf and of vct, fresh tables, per position."""
    out = np.zeros((len(states), 8), dtype=np.int64)
    for i, s in enumerate(states):
        for j, solver in enumerate((vcf, vct)):
            pv = np.zeros(512, dtype=np.int64)
            state = s.copy()
            r, n, nodes = solver(state, np.int64(budget), np.int64(depth), new_table(12), pv)
            assert np.array_equal(state, s)
            h = int(hashlib.sha256(pv[:n].tobytes()).hexdigest()[:12], 16)
            out[i, 4 * j : 4 * j + 4] = (r, n, nodes, h)
    return out


def selfplay_digest(spec_text: str) -> str:
    from pipeline.search.mcts import SearchConfig
    from pipeline.selfplay.play import SelfPlayConfig, play_games
    from tests.unit.test_pinned_outputs import HashEvaluator

    games, slots, simulations = SELFPLAY[spec_text]
    spec = GameSpec.parse(spec_text)
    # The games pin the tree's verdict, recorded before the root guard existed (which, at
    # its default, changes a move where the tree missed a threat): off here, when there is one.
    guard = {"tactics_root_nodes": 0} if "tactics_root_nodes" in SearchConfig.model_fields else {}
    config = SelfPlayConfig(parallel_games=slots, search=SearchConfig(simulations=simulations, tactics="vcf", **guard))
    positions, stats = play_games(spec, HashEvaluator(spec), games, config, seed=3)
    counts = np.array([stats.positions, stats.first_player_wins, stats.second_player_wins, stats.simulations])
    return _digest(positions.obs, positions.pi, positions.z, positions.ply, counts)


def record() -> None:
    data: dict[str, np.ndarray] = {}
    for spec_text in SOURCES:
        states = positions(spec_text)
        data[f"{spec_text}|states"] = states
        for mode, budget, depth in CONFIGS:
            v, a, masks, _, _ = judge(states, mode, budget, depth, 10, fresh=True)
            key = f"{spec_text}|{mode}-{budget}-{depth}"
            data[f"{key}|verdict"], data[f"{key}|action"], data[f"{key}|mask"] = v, a, masks
        v, a, masks, table, null_table = judge(states, "vcf", 200, 12, SEQUENCE_BITS, fresh=False)
        data[f"{spec_text}|sequence|verdict"], data[f"{spec_text}|sequence|action"] = v, a
        data[f"{spec_text}|sequence|mask"] = masks
        data[f"{spec_text}|sequence|tables"] = np.array([_digest(table), _digest(null_table)])
        data[f"{spec_text}|solvers"] = solver_outputs(states, 300, 12)
        counts = np.bincount(v + 1, minlength=3)
        print(f"{spec_text}: {len(states)} positions; sequence LOSS/OPEN/WIN {counts.tolist()}")
    for spec_text in SELFPLAY:
        data[f"{spec_text}|selfplay"] = np.array(selfplay_digest(spec_text))
    np.savez_compressed(RECORD, **data)
    print(f"-> {RECORD}")


def _recorded() -> dict[str, np.ndarray]:
    with np.load(RECORD) as f:
        return {k: f[k] for k in f.files}


@pytest.fixture(scope="module")
def recorded() -> dict[str, np.ndarray]:
    return _recorded()


def _mismatch(expected: np.ndarray, got: np.ndarray) -> list[int]:
    if expected.ndim == 1:
        return np.flatnonzero(expected != got).tolist()[:5]
    return np.flatnonzero((expected != got).any(axis=1)).tolist()[:5]


@pytest.mark.parametrize("spec_text", list(SOURCES))
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
def test_the_verdict_is_the_recorded_one_on_every_position(recorded, spec_text, config):
    mode, budget, depth = config
    states = recorded[f"{spec_text}|states"]
    key = f"{spec_text}|{mode}-{budget}-{depth}"
    v, a, masks, _, _ = judge(states, mode, budget, depth, 10, fresh=True)
    assert not _mismatch(recorded[f"{key}|verdict"], v), "verdict"
    assert not _mismatch(recorded[f"{key}|action"], a), "action"
    assert not _mismatch(recorded[f"{key}|mask"], masks), "mask"


@pytest.mark.parametrize("spec_text", list(SOURCES))
def test_a_sequence_sharing_small_tables_gives_the_recorded_verdicts_and_tables(recorded, spec_text):
    states = recorded[f"{spec_text}|states"]
    v, a, masks, table, null_table = judge(states, "vcf", 200, 12, SEQUENCE_BITS, fresh=False)
    assert not _mismatch(recorded[f"{spec_text}|sequence|verdict"], v)
    assert not _mismatch(recorded[f"{spec_text}|sequence|action"], a)
    assert not _mismatch(recorded[f"{spec_text}|sequence|mask"], masks)
    assert [_digest(table), _digest(null_table)] == recorded[f"{spec_text}|sequence|tables"].tolist()


@pytest.mark.parametrize("spec_text", list(SOURCES))
def test_the_solvers_give_the_recorded_proofs_and_node_counts(recorded, spec_text):
    states = recorded[f"{spec_text}|states"]
    got = solver_outputs(states, 300, 12)
    assert not _mismatch(recorded[f"{spec_text}|solvers"], got)


@pytest.mark.parametrize("spec_text", list(SELFPLAY))
def test_selfplay_with_tactics_plays_the_recorded_games(recorded, spec_text):
    assert selfplay_digest(spec_text) == str(recorded[f"{spec_text}|selfplay"])


def test_the_record_covers_every_verdict(recorded):
    """The comparison can fail: the positions hold wins, losses, narrowed and open nodes."""
    for spec_text in SOURCES:
        v = recorded[f"{spec_text}|vcf-200-12|verdict"]
        assert (v == 0).any() and (v == 1).any(), spec_text
    assert any((recorded[f"{s}|vcf-200-12|verdict"] == -1).any() for s in SOURCES)


def _record_fresh_verdicts(data: dict, spec_text: str, states: np.ndarray, only_open_to_win: bool) -> None:
    """Judge `states` on fresh tables in every configuration into `data`, printing how the
    verdicts moved (and, with `only_open_to_win`, failing unless a move is OPEN -> WIN)."""
    for mode, budget, depth in CONFIGS:
        v, a, masks, _, _ = judge(states, mode, budget, depth, 10, fresh=True)
        key = f"{spec_text}|{mode}-{budget}-{depth}"
        moved = Counter(zip(data[f"{key}|verdict"].tolist(), v.tolist(), strict=True))
        print(f"{key}: (recorded, now) verdicts {sorted(moved.items())}")
        if only_open_to_win:
            assert all(old == new or (old == 0 and new == 1) for old, new in moved), "only OPEN -> WIN may move"
        data[f"{key}|verdict"], data[f"{key}|action"], data[f"{key}|mask"] = v, a, masks


def record_connect6() -> None:
    """Record again the Connect6 entries only, with the code checked out (the Gomoku entries
    stay those of the reference code), printing how the verdicts moved."""
    data = _recorded()
    for spec_text in (s for s in SOURCES if s.startswith("connect6")):
        states = data[f"{spec_text}|states"]
        _record_fresh_verdicts(data, spec_text, states, only_open_to_win=False)
        v, a, masks, table, null_table = judge(states, "vcf", 200, 12, SEQUENCE_BITS, fresh=False)
        data[f"{spec_text}|sequence|verdict"], data[f"{spec_text}|sequence|action"] = v, a
        data[f"{spec_text}|sequence|mask"] = masks
        data[f"{spec_text}|sequence|tables"] = np.array([_digest(table), _digest(null_table)])
        data[f"{spec_text}|solvers"] = solver_outputs(states, 300, 12)
    for spec_text in (s for s in SELFPLAY if s.startswith("connect6")):
        data[f"{spec_text}|selfplay"] = np.array(selfplay_digest(spec_text))
    np.savez_compressed(RECORD, **data)
    print(f"-> {RECORD}")


def _c6_proof_holds(spec_text: str, array: np.ndarray) -> bool:
    """The solver's proof of this Connect6 position, replayed against the rules with every
    defender reply (pipeline.bench.tactics.replay_c6)."""
    from pipeline.bench.tactics import C6Solver, replay_c6

    spec = GameSpec.parse(spec_text)
    state = GameState(spec, array.copy())
    pv = np.zeros(512, dtype=np.int64)
    r, n, _ = vcf(array.copy(), np.int64(300), np.int64(12), new_table(12), pv)
    return r == 1 and replay_c6(state, [int(a) for a in pv[:n]], C6Solver(spec).prover()) is None


def record_exact_failures(which: str) -> None:
    """Record again, for the specs starting with `which` ("gomoku" or "connect6"), what a
    failure stored as exact changes by design (issue 41: the table's entries, the solvers'
    node counts, and the self-play games where a verdict now comes within the budget),
    after checking that every verdict in the sequence is the recorded one, that verdicts
    on fresh tables move only from OPEN to WIN, and that every solver result and proof is
    the recorded one or a win found where the budget ran out before."""
    data = _recorded()
    for spec_text in (s for s in SOURCES if s.startswith(which)):
        states = data[f"{spec_text}|states"]
        _record_fresh_verdicts(data, spec_text, states, only_open_to_win=True)
        v, a, masks, table, null_table = judge(states, "vcf", 200, 12, SEQUENCE_BITS, fresh=False)
        moved = Counter(zip(data[f"{spec_text}|sequence|verdict"].tolist(), v.tolist(), strict=True))
        changed = len(_mismatch(data[f"{spec_text}|sequence|mask"], masks))
        print(f"{spec_text}|sequence: (recorded, now) verdicts {sorted(moved.items())}, masks changed: {changed > 0}")
        assert all(old == new or (old == 0 and new == 1) for old, new in moved), "only OPEN -> WIN may move"
        data[f"{spec_text}|sequence|verdict"], data[f"{spec_text}|sequence|action"] = v, a
        data[f"{spec_text}|sequence|mask"] = masks
        data[f"{spec_text}|sequence|tables"] = np.array([_digest(table), _digest(null_table)])
        old, new = data[f"{spec_text}|solvers"], solver_outputs(states, 300, 12)
        for j, solver in ((0, "vcf"), (4, "vct")):
            # result, proof length and proof the same, or a win found where the budget ran out before
            same = (old[:, [j, j + 1, j + 3]] == new[:, [j, j + 1, j + 3]]).all(axis=1)
            gained = (old[:, j] != 1) & (new[:, j] == 1)
            other = np.flatnonzero(~same & ~gained & (old[:, j] == new[:, j]) & (old[:, j + 1] == new[:, j + 1]))
            for i in other:  # another proof of the same length: it must hold under the rules
                assert spec_text.startswith("connect6"), (spec_text, solver, i)
                assert _c6_proof_holds(spec_text, states[i]), (spec_text, solver, i)
            same[other] = True
            assert (same | gained).all(), (spec_text, solver, np.flatnonzero(~(same | gained))[:5])
            print(
                f"{spec_text} {solver}: {len(states)} positions, {int(gained.sum())} wins found within the budget "
                f"that were not, {len(other)} other proofs of the same length (replayed), "
                f"nodes {int(old[:, j + 2].sum())} -> {int(new[:, j + 2].sum())}"
            )
        data[f"{spec_text}|solvers"] = new
    _record_selfplay_digests(data, [s for s in SELFPLAY if s.startswith(which)])
    np.savez_compressed(RECORD, **data)
    print(f"-> {RECORD}")


def _record_selfplay_digests(data: dict, specs: list[str]) -> None:
    for spec_text in specs:
        digest = selfplay_digest(spec_text)
        print(f"{spec_text} self-play: {'same games' if digest == str(data[f'{spec_text}|selfplay']) else 'moved'}")
        data[f"{spec_text}|selfplay"] = np.array(digest)


def record_selfplay() -> None:
    """The self-play digests alone, every other entry kept (a change in the search around
    the verdicts, not in them)."""
    data = dict(np.load(RECORD))
    _record_selfplay_digests(data, list(SELFPLAY))
    np.savez_compressed(RECORD, **data)
    print(f"-> {RECORD}")


if __name__ == "__main__":
    if "--record-selfplay" in sys.argv:
        record_selfplay()
    elif "--record" in sys.argv:
        record()
    elif "--record-connect6" in sys.argv:
        record_connect6()
    elif "--record-exact-failures" in sys.argv:
        record_exact_failures(sys.argv[-1])


def _windows_reference(board: np.ndarray, value: int, min_own: int, max_own: int, length: int) -> tuple[set, int]:
    """Every window read cell by cell (plain Python)."""
    h, w = board.shape
    marked, found = set(), 0
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r0 in range(h):
            for c0 in range(w):
                cells = [(r0 + dr * i, c0 + dc * i) for i in range(length)]
                if not all(0 <= r < h and 0 <= c < w for r, c in cells):
                    continue
                vals = [board[r, c] for r, c in cells]
                own = sum(v == value for v in vals)
                if any(v not in (0, value) for v in vals) or not min_own <= own <= max_own:
                    continue
                found += 1
                marked |= {r * w + c for r, c in cells if board[r, c] == 0}
    return marked, found


@pytest.mark.parametrize("shape", [(5, 5), (6, 9), (9, 6), (8, 8), (15, 15)])
def test_the_sliding_window_sweep_marks_what_every_window_read_alone_marks(shape):
    from pipeline.games.layout import BOARD
    from pipeline.tactics.lines.threats import mark_window_cells

    rng = np.random.default_rng(shape[0] * 100 + shape[1])
    spec = GameSpec.parse(f"gomoku:{shape[0]}x{shape[1]}")
    for _ in range(40):
        state = spec.new_game().array.copy()
        board = rng.choice(3, size=shape, p=rng.dirichlet([2, 1, 1]))
        state[BOARD : BOARD + board.size] = board.reshape(-1)
        for value, low, high, length in ((1, 3, 3, 5), (2, 2, 3, 5), (1, 2, 5, 6), (2, 0, 1, 4), (1, 1, 2, 3)):
            mark = np.zeros(board.size, dtype=np.bool_)
            found = mark_window_cells(state, value, low, high, length, mark)
            marked, expected = _windows_reference(board, value, low, high, length)
            assert found == expected and set(np.flatnonzero(mark).tolist()) == marked


def _verdicts_compiled():
    from numba import njit

    from pipeline.games.kernels import legal_mask

    @njit
    def run(states, mask, mode, table, null_table, pv, scratch):
        total = 0
        for i in range(states.shape[0]):
            legal_mask(states[i], mask)
            verdict, _ = tactical_verdict_into(states[i], mask, mode, 200, 12, table, null_table, pv, scratch)
            total += verdict
        return total

    return run


def test_a_verdict_allocates_nothing(recorded):
    """The tree's verdict runs in its scratch: numba's allocation counters show the same
    allocations (the arguments' wrappers) for one call as for hundreds, Gomoku and
    Connect6, VCF and VCT. (The plain path made 200-400 allocations a call.)"""
    nrt = pytest.importorskip("numba.core.runtime._nrt_python")
    from numba.core.runtime import rtsys

    run = _verdicts_compiled()
    enabled = nrt.memsys_stats_enabled()
    nrt.memsys_enable_stats()
    try:
        for spec_text in ("gomoku:8", "gomoku:15x15:k5:exact", "connect6:10"):
            states = recorded[f"{spec_text}|states"]
            mask = np.zeros(int(states[0, 1] * states[0, 2]), dtype=np.bool_)
            scratch = scratch_for(states[0], 12)
            for mode in (TACTICS_MODES["vcf"], TACTICS_MODES["vct"]):
                counts = []
                for part in (states[:1], states):
                    args = (part, mask, mode, new_table(10), new_table(10), np.zeros(512, dtype=np.int64), scratch)
                    run(*args)  # compiled, and the tables warm
                    before = rtsys.get_allocation_stats().alloc
                    run(*args)
                    counts.append(rtsys.get_allocation_stats().alloc - before)
                assert counts[0] == counts[1], (spec_text, mode, counts)
    finally:
        if not enabled:
            nrt.memsys_disable_stats()
