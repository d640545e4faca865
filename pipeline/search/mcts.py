"""Network-guided search for many games in lockstep: PUCT, or Gumbel at the root
(`SearchConfig.root`, pipeline.search.gumbel).

Each step selects several leaves per game (virtual loss spreads them over the tree),
writes all their observations into one batch, calls the evaluator once, then expands
and backs up every leaf. Selection, expansion and backup are compiled
(`pipeline.search.step`); Python only drives the steps, the root noise and the Gumbel
root's schedule (`gumbel.RootSchedule`). With `overlap`, two halves of the games take
turns so that one half's batch is in the network while the other half's tree work runs
(`BatchedMCTS._pipelined`). The knobs are `SearchConfig` (`pipeline.search.config`)."""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from pipeline.games.base import GameSpec
from pipeline.games.layout import HEX, state_length
from pipeline.search.config import SearchConfig
from pipeline.search.evaluator import Evaluator
from pipeline.search.forced import OPEN, TACTICS_MODES, TACTICS_OFF, WIN
from pipeline.search.gumbel import TINY, RootSchedule, chosen_child, considered_visits
from pipeline.search.hex_forced import (
    HEX_HSEARCH,
    HSEARCH_LIMITS,
    hex_tactics_flags,
    hsearch_root,
    prove_outside_lost,
)
from pipeline.search.hex_root_solver import REFUTE_SHARE, SOLVER_SHARE, HexRootSolver, table_bits
from pipeline.search.rng import make_rng
from pipeline.search.root_guard import guard_root, guarded_visits
from pipeline.search.step import expand_and_backup, select_batch
from pipeline.search.tree import (
    ACTION,
    FIRST,
    PRIOR,
    SOLVED_WIN,
    TERMINAL,
    VISITS,
    Tree,
    prove_move,
    search_capacity,
)
from pipeline.tactics.hex.hsearch import MAX_SIDE
from pipeline.tactics.hex.solve import check_dfpn_size
from pipeline.tactics.lines.scratch import scratch_for
from pipeline.tactics.lines.table import new_table

# Imported from here by the callers (and the kernels looked up here by BatchedMCTS, so a
# profiler may wrap `mcts.select_batch` and `mcts.expand_and_backup`).
__all__ = ["BatchedMCTS", "SearchConfig", "expand_and_backup", "pick_action", "select_batch", "tree_capacity"]


GUARD_TRIES = 8  # root moves the guard checks at most: past that the position is lost anyway
HEX_REFUTE_TRIES = 8  # the same for the Hex root solver's refutations
UNLIMITED = 1 << 40  # the simulation target of a search bounded by time alone


def tree_capacity(spec: GameSpec, simulations: int) -> int:
    """Room for one search of `simulations` simulations: each expands at most one node."""
    return search_capacity(spec.num_actions, simulations)


class BatchedMCTS:
    """PUCT (or Gumbel-root) search for `games` games at once, sharing one evaluator call
    per step."""

    def __init__(
        self,
        spec: GameSpec,
        games: int,
        config: SearchConfig,
        seed: int = 0,
        capacity: int | None = None,
        overlap: bool = False,
    ):
        """`capacity` (nodes per game) overrides the room sized from the config's budget;
        the tree grows past it when a search needs more. With `overlap`, a search bounded
        by simulations evaluates half the games while the other half's tree work runs
        (`_pipelined`): the same trees for the same evaluations, in less time when the
        network and the search each have a core."""
        self.spec = spec
        self.games = games
        self.config = config
        self.fixed_capacity = capacity is not None
        self.tree = Tree(games, capacity or tree_capacity(spec, config.simulations), spec.num_actions)
        batch = games * config.leaves_per_step
        self.roots = np.zeros((games, state_length(spec.kind, spec.height, spec.width)), dtype=np.int32)
        self.leaf_states = np.zeros((batch, self.roots.shape[1]), dtype=np.int32)
        self.obs = np.zeros((batch, *spec.obs_shape), dtype=np.float32)
        self.leaf_game = np.zeros(batch, dtype=np.int64)
        self.leaf_node = np.zeros(batch, dtype=np.int64)
        self.rng = make_rng(seed)
        self.noise_rng = np.random.default_rng(seed)
        self.noised = np.zeros(games, dtype=np.bool_)
        self.evaluations = 0
        self.steps = 0
        self.grown = 0  # times a search found a row full and grew the tree
        self.forward_wait = 0.0  # seconds an overlapped search waited for the forward thread
        # The threat solvers' transposition tables, kept between moves (they hold only
        # fully searched failures: see pipeline.tactics.lines.table). Tiny when tactics are off.
        self.tactics = TACTICS_MODES[config.tactics] if spec.kind != HEX else TACTICS_OFF
        self.hex_flags = hex_tactics_flags(config.hex_tactics) if spec.kind == HEX else 0
        self.marks = np.zeros(spec.cells, dtype=np.bool_)
        # H-search at the root, once a search (`hex_forced.hsearch_root`): pending until
        # the root has children.
        self.hex_root = (self.hex_flags & HEX_HSEARCH) != 0 and spec.width <= MAX_SIDE
        self.hex_pending = np.zeros(games, dtype=np.bool_)
        self.hex_region = np.zeros(spec.cells, dtype=np.bool_)
        bits = 16 if self.tactics != TACTICS_OFF else 1
        self.tactics_table = new_table(bits)
        self.null_table = new_table(bits)
        self.pv = np.zeros(512, dtype=np.int64)
        # The solvers' working arrays, made once (a token one when tactics are off).
        empty = spec.new_game().array
        self.tactics_scratch = scratch_for(empty, config.tactics_depth if self.tactics != TACTICS_OFF else 0)
        # The root guard's own table, so that the tree's tables (and so its verdicts) are
        # what the tree alone would leave: the pinned and recorded verdicts stay valid.
        self.guard_table = new_table(bits if config.tactics_root_nodes > 0 else 1)
        self.guard_work = empty.copy()
        # Hex's root solver, one per game, made when the game first needs it: with one table
        # shared by a lockstep batch, the other games' entries pushed a proof of 42,604 nodes
        # past the 50,000 budget and the 8x8 sample gave back a win (RESULTS.md,
        # thirty-fourth and thirty-fifth sessions). A game's moves now do not depend on the
        # games beside it.
        self.root_solvers: list[HexRootSolver | None] | None = None
        if spec.kind == HEX and config.hex_root_solver_nodes > 0:
            check_dfpn_size(spec.width)
            self.root_solvers = [None] * games
        self.gumbel = config.root == "gumbel"
        self.schedule = RootSchedule.empty(games, spec.num_actions if self.gumbel else 0, config.gumbel)
        self.overlap = overlap
        self._pool: ThreadPoolExecutor | None = None

    def reset(self, g: int, state: np.ndarray) -> None:
        self.roots[g] = state
        self.tree.reset(g, state)
        self.noised[g] = False
        self.schedule.ready[g] = False

    def advance(self, g: int, action: int, state_after: np.ndarray) -> None:
        """Move game g's root past `action`, keeping its subtree if tree reuse is on."""
        self.roots[g] = state_after
        if self.config.reuse_tree:
            self.tree.reroot(g, action, state_after)
        else:
            self.tree.reset(g, state_after)
        self.noised[g] = False
        self.schedule.ready[g] = False

    def _add_noise(self, g: int) -> None:
        kids = self.tree.root_children(g)
        count = kids.stop - kids.start
        if count == 0:
            return
        noise = self.noise_rng.dirichlet(np.full(count, self.config.dirichlet_alpha / count))
        eps = self.config.dirichlet_eps
        priors = self.tree.node_float[g, kids, PRIOR]
        self.tree.node_float[g, kids, PRIOR] = (1 - eps) * priors + eps * noise
        self.noised[g] = True

    def _start_halving(self, g: int, noisy: bool, simulations: int) -> None:
        """Set up game g's Gumbel root once it has children: the noise (none without
        `noisy`: the top-m by prior), and the halving schedule for `simulations`."""
        kids = self.tree.root_children(g)
        count = kids.stop - kids.start
        gumbel = self.noise_rng.gumbel(size=count) if noisy else np.zeros(count)
        logits = np.log(np.maximum(self.tree.node_float[g, kids, PRIOR].astype(np.float64), TINY))
        sched = self.schedule
        sched.base[g, :count] = gumbel + logits
        sched.count[g] = 0
        sched.sim[g] = 0
        sched.considered[g] = min(self.config.gumbel.considered_actions, count)
        sched.planned[g] = simulations
        self._write_schedule(g, simulations)
        self.schedule.ready[g] = True

    def _write_schedule(self, g: int, length: int) -> None:
        sched = self.schedule
        sequence = considered_visits(int(sched.considered[g]), int(sched.planned[g]), length)
        if length > sched.schedule.shape[1]:
            self.schedule = sched = sched.widened(max(length, 2 * sched.schedule.shape[1]))
        sched.schedule[g, :length] = sequence
        sched.length[g] = length

    def best_action(self, g: int) -> int:
        """The search's move: with a Gumbel root, the halving's best remaining action (a
        proven win taken, a proven loss avoided); else the tree's (the most visited)."""
        sched = self.schedule
        if not (self.gumbel and sched.ready[g]):
            return self.tree.best_action(g)
        tree = self.tree
        child = chosen_child(
            tree.node_int, tree.node_float, g, sched.base[g], sched.count[g], sched.c_visit, sched.c_scale, sched.buf
        )
        return int(tree.node_int[g, child, ACTION])

    def search(
        self,
        evaluator: Evaluator,
        active: np.ndarray | None = None,
        noise: bool | np.ndarray = False,
        simulations: int | np.ndarray | None = None,
        seconds: float | None = None,
    ) -> np.ndarray:
        """Run more simulations for every active game (`simulations` per game, default the
        config's; None with `seconds` means as many as time allows); return the root visit
        counts [games, A]. With `seconds`, stop once that much time is spent (after at
        least one step). `noise` may be per game: Dirichlet noise at a PUCT root, Gumbel
        noise at a Gumbel root (without it, the halving considers the top-m by prior).
        Every simulation expands its leaf: a full tree grows.

        With Hex's root solver, a game whose winning move the solver knows before the
        search (`HexRootSolver.known_move`) runs one simulation, to expand its root, and
        plays that move; with `seconds`, the tree search gets `1 - SOLVER_SHARE` of the
        time and the solver what is left (`pipeline.search.hex_root_solver`)."""
        cfg = self.config
        tree = self.tree
        end = None if seconds is None else time.perf_counter() + seconds
        deadline = end
        active = np.ones(self.games, dtype=np.bool_) if active is None else active.astype(np.bool_)
        timed = simulations is None and seconds is not None
        if simulations is None:
            simulations = UNLIMITED if timed else cfg.simulations
        budget = np.broadcast_to(np.asarray(simulations, dtype=np.int64), (self.games,))
        # Room for the whole budget up front; a search bounded by time alone reserves for
        # the config's budget and grows as it goes.
        planned = cfg.simulations if timed else int(budget[active].max(initial=0))
        if not self.fixed_capacity:
            tree.reserve(tree_capacity(self.spec, planned))
        target = tree.node_int[:, 0, VISITS].astype(np.int64) + budget
        known: dict[int, int] = {}
        if self.root_solvers is not None:
            known = self._known_roots(active, end)
            for g in known:
                target[g] = tree.node_int[g, 0, VISITS] + 1
            if end is not None:
                now = time.perf_counter()
                deadline = now + max(0.0, end - now) * (1 - SOLVER_SHARE)
        noisy = np.broadcast_to(np.asarray(noise, dtype=np.bool_), (self.games,))
        if self.hex_root:
            self.hex_pending[:] = active
        if self.gumbel:
            # As in mctx, the root's own evaluation is not one of the halving's simulations.
            target += (tree.node_int[:, 0, FIRST] < 0) & (tree.node_int[:, 0, TERMINAL] == 0)
            self.schedule.ready[active] = False  # every search is one sequential halving
        halves = self._halves(active) if self.overlap and deadline is None else None
        if halves is None:
            self._lockstep(evaluator, active, target, noisy, timed, deadline)
        else:
            self._pipelined(evaluator, active, target, noisy, halves)
        visits = np.stack([tree.root_visits(g) for g in range(self.games)])
        if self.root_solvers is not None:
            self._solve_roots(active, visits, known, end)
        if self.tactics != TACTICS_OFF and cfg.tactics_root_nodes > 0:
            self._guard_roots(active)
        # Visits a root child gathered before it was proven lost (in an earlier search of a
        # reused tree, or before the proof reached it) would still be sampled, taken as the
        # most visited move and trained on; whatever proved it (the root guard, H-search's
        # must-play region, the in-tree solver), they go.
        for g in np.flatnonzero(active):
            visits[g] = guarded_visits(visits[g], tree, int(g))
        return visits

    def _halves(self, active: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The active games split in two by index, the first half (the lower indices) first:
        the order in which the lockstep step expands them. None with fewer than two."""
        games = np.flatnonzero(active)
        if len(games) < 2:
            return None
        first = np.zeros(self.games, dtype=np.bool_)
        first[games[: (len(games) + 1) // 2]] = True
        return first, active & ~first

    def _lockstep(
        self,
        evaluator: Evaluator,
        active: np.ndarray,
        target: np.ndarray,
        noisy: np.ndarray,
        timed: bool,
        deadline: float | None,
    ) -> None:
        """All active games in one batch a step: select, evaluate, expand, back up."""
        while True:
            self._prepare(active, target, noisy, timed)
            n = self._select(active, target, 0)
            if n > 0:
                self._expand(0, n, *self._evaluate(evaluator, 0, n))
            if self._finished(active, target) or (deadline is not None and time.perf_counter() >= deadline):
                break

    def _pipelined(
        self,
        evaluator: Evaluator,
        active: np.ndarray,
        target: np.ndarray,
        noisy: np.ndarray,
        halves: tuple[np.ndarray, np.ndarray],
    ) -> None:
        """The lockstep search with the network kept busy: each half of the games has its
        own batch, evaluated on the forward thread while this thread expands, backs up and
        selects the other half (the compiled kernels release the GIL, and so do the
        backends). The halves take turns in a fixed order, and every tree operation stays
        on this thread in the lockstep's order (half A's step k, then B's, as the lockstep
        step expands A's games before B's): the random draws, the solvers' tables and so
        the trees are the lockstep's for the same leaf evaluations, whatever the threads'
        timing. Only the forward pass runs elsewhere, on its own slice of the buffers."""
        pool = self._forward_pool()
        # Half B's leaves go after the most half A can select.
        offsets = (0, int(halves[0].sum()) * self.config.leaves_per_step)
        inflight: list[tuple[Future, int] | None] = [None, None]
        running = True  # the lockstep always takes a first step
        try:
            while True:
                for i, half in enumerate(halves):
                    pending = inflight[i]
                    if pending is not None:
                        waited = time.perf_counter()
                        # Still in flight while waited on: a stop raised in the wait must
                        # leave it to the `finally` below, which lets it end.
                        result = pending[0].result()
                        inflight[i] = None
                        self.forward_wait += time.perf_counter() - waited
                        self._expand(offsets[i], pending[1], *result)
                    if running:
                        self._prepare(half, target, noisy, timed=False)
                        n = self._select(half, target, offsets[i])
                        if n > 0:
                            inflight[i] = (pool.submit(self._evaluate, evaluator, offsets[i], n), n)
                if not running:
                    break
                # A root's visits count at selection, so this is the lockstep's test after
                # the same step: a next step for both halves, or only the last expansions.
                running = not self._finished(active, target)
        finally:
            # An error left a batch in flight: let it end before its buffers are reused.
            for pending in inflight:
                if pending is not None:
                    pending[0].exception()

    def _finished(self, active: np.ndarray, target: np.ndarray) -> bool:
        """Every active root has its visits or is decided."""
        tree = self.tree
        done = (tree.node_int[:, 0, VISITS] >= target) | (tree.node_int[:, 0, TERMINAL] != 0) | ~active
        return bool(done.all())

    def _forward_pool(self) -> ThreadPoolExecutor:
        """The forward thread, one per search object (a backend may keep per-thread state,
        e.g. OpenVINO's compiled model); it ends when this object is collected."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="forward")
        return self._pool

    def _prepare(self, games: np.ndarray, target: np.ndarray, noisy: np.ndarray, timed: bool) -> None:
        """Root noise (PUCT) or the halving's set-up (Gumbel) for the games in `games` whose
        roots have children now, in game order (the order of the draws)."""
        cfg, tree = self.config, self.tree
        if self.hex_root:
            for g in np.flatnonzero(games & self.hex_pending & (tree.node_int[:, 0, FIRST] >= 0)):
                self._hsearch_root(int(g))
        if self.gumbel:
            sched = self.schedule
            for g in np.flatnonzero(games & ~sched.ready & (tree.node_int[:, 0, FIRST] >= 0)):
                left = int(target[g] - tree.node_int[g, 0, VISITS])
                self._start_halving(int(g), bool(noisy[g]), cfg.simulations if timed else left)
            if timed:  # past the planned budget, the last phase goes on
                for g in np.flatnonzero(games & sched.ready & (sched.sim + cfg.leaves_per_step > sched.length)):
                    self._write_schedule(int(g), 2 * int(sched.length[g]) + cfg.leaves_per_step)
        elif noisy.any():
            for g in np.flatnonzero(games & noisy & ~self.noised & (tree.node_int[:, 0, FIRST] >= 0)):
                self._add_noise(int(g))

    def _select(self, games: np.ndarray, target: np.ndarray, offset: int) -> int:
        """Select the leaves of the games in `games` into the buffers from `offset` on."""
        cfg, tree = self.config, self.tree
        return select_batch(
            tree.node_int,
            tree.node_float,
            self.roots,
            games,
            target,
            self.leaf_states[offset:],
            self.obs[offset:],
            self.leaf_game[offset:],
            self.leaf_node[offset:],
            per_game=cfg.leaves_per_step,
            c_puct=cfg.c_puct,
            fpu_reduction=cfg.fpu_reduction,
            root_fpu_reduction=cfg.root_fpu_reduction,
            virtual_loss=cfg.virtual_loss,
            prove=cfg.prove_wins,
            gumbel=self.schedule,
        )

    def _evaluate(self, evaluator: Evaluator, offset: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        priors, values = evaluator(self.obs[offset : offset + n])
        priors = np.ascontiguousarray(priors, dtype=np.float32)
        return priors, np.ascontiguousarray(values, dtype=np.float32).reshape(-1)

    def _expand(self, offset: int, n: int, priors: np.ndarray, values: np.ndarray) -> None:
        """Expand and back up the `n` leaves from `offset` on, growing the tree when a row
        is full."""
        cfg, tree = self.config, self.tree
        done = 0
        while True:
            done = expand_and_backup(
                tree.node_int,
                tree.node_float,
                tree.size,
                self.leaf_states[offset:],
                self.leaf_game[offset:],
                self.leaf_node[offset:],
                done,
                n,
                priors,
                values,
                self.rng,
                tree.mask,
                vl=cfg.virtual_loss,
                guided=cfg.threat_guidance,
                prove=cfg.prove_wins,
                tactics=self.tactics,
                tactics_nodes=cfg.tactics_nodes,
                tactics_depth=cfg.tactics_depth,
                table=self.tactics_table,
                null_table=self.null_table,
                pv=self.pv,
                hex_flags=self.hex_flags,
                marks=self.marks,
                scratch=self.tactics_scratch,
                root_nodes=cfg.tactics_root_nodes,
                defer=cfg.tactics_defer,
            )
            if done == n:
                break
            tree.grow()
            self.grown += 1
        self.evaluations += n
        self.steps += 1

    def _hsearch_root(self, g: int) -> None:
        """Hex: H-search at game g's root (`hex_forced.hsearch_root`): a semi-connection's
        key proven a win, or the moves outside the opponent's must-play region proven lost."""
        self.hex_pending[g] = False
        tree = self.tree
        if tree.node_int[g, 0, TERMINAL] != 0:
            return
        verdict, key = hsearch_root(self.roots[g], self.hex_region, HSEARCH_LIMITS)
        if verdict == WIN and key >= 0:
            prove_move(tree.node_int, tree.node_float, g, 0, key, SOLVED_WIN, False)
        elif verdict == OPEN:
            prove_outside_lost(tree.node_int, tree.node_float, g, self.hex_region)

    def root_solver(self, g: int) -> HexRootSolver:
        """Game g's root solver (its own table and proven wins), made on first use."""
        assert self.root_solvers is not None, "the root solver is off"
        solver = self.root_solvers[g]
        if solver is None:
            cfg = self.config
            solver = HexRootSolver(
                self.spec,
                cfg.hex_root_solver_nodes,
                cfg.hex_root_solver_empty_cells,
                log2_table=table_bits(self.games),
                won_budget=cfg.hex_root_solver_won_nodes,
                refute_budget=cfg.hex_root_solver_refute_nodes,
            )
            self.root_solvers[g] = solver
        return solver

    def _known_roots(self, active: np.ndarray, end: float | None) -> dict[int, int]:
        """Hex: the winning moves the root solver knows before the search, by game
        (`HexRootSolver.known_move`); each game's solve within its share of the time to
        `end` (the solver's share of it: the search needs the rest)."""
        known: dict[int, int] = {}
        games = [int(g) for g in np.flatnonzero(active) if self.tree.node_int[g, 0, TERMINAL] == 0]
        for i, g in enumerate(games):
            deadline = None
            if end is not None:
                now = time.perf_counter()
                deadline = now + max(0.0, end - now) / (len(games) - i) * SOLVER_SHARE
            move = self.root_solver(g).known_move(self.roots[g], deadline)
            if move is not None:
                known[g] = move
        return known

    def _solve_roots(
        self, active: np.ndarray, visits: np.ndarray, known: dict[int, int] | None = None, end: float | None = None
    ) -> None:
        """Hex: the root solver (`pipeline.search.hex_root_solver`) for every active game;
        a proven winning move is marked in the tree (so `best_action` takes it) and gets
        all the visits (so sampling and training targets do too). A move `known` before the
        search is played without a solve; by `end` (a `time.perf_counter()` reading) each
        game's solve and refutations share what time is left."""
        tree = self.tree
        known = known or {}
        games = [
            int(g)
            for g in np.flatnonzero(active)
            if tree.node_int[g, 0, TERMINAL] == 0 and tree.node_int[g, 0, FIRST] >= 0
        ]
        for i, g in enumerate(games):
            solver = self.root_solver(g)
            move = known.get(g)
            if move is None or move not in tree.node_int[g, tree.root_children(g), ACTION]:
                window = None
                if end is not None:
                    # By time, the refutations come first, within REFUTE_SHARE of the game's
                    # window, and the root's solve gets the rest, what they leave included: a
                    # won position is kept only by its proof, and the refutations' proofs (the
                    # children they settle) sit in the same table for it. Solving first and
                    # refuting until the end gave two wins of 400 back in the timed 8x8 sweep,
                    # one with its proof a few hundred nodes short and 0.9 s spent on a refutation
                    # that proved nothing, one with 1.1 s of its time unused (RESULTS.md, Hex 8x8).
                    now = time.perf_counter()
                    window = now + max(0.0, end - now) / (len(games) - i)
                    solver.lost = False  # the last position's verdict: this one is not yet solved
                    self._refute_root(g, solver, now + (window - now) * REFUTE_SHARE)
                move = None if solver.spent else solver.winning_move(self.roots[g], self.best_action(g), window)
                if move is None:
                    if end is None:
                        self._refute_root(g, solver)
                    continue
            if move not in tree.node_int[g, tree.root_children(int(g)), ACTION]:
                continue
            prove_move(tree.node_int, tree.node_float, int(g), 0, move, SOLVED_WIN, False)
            total = max(1, int(visits[g].sum()))
            visits[g][:] = 0
            visits[g][move] = total

    def _refute_root(self, g: int, solver: HexRootSolver, deadline: float | None = None) -> None:
        """While the search's move is proven to lose (the opponent wins after it within the
        solver's refutation budget), mark it lost and check the next (untimed: once the solve
        proved no win; by time: before the solve). The
        8x8 sample against the 11x11 champion gave a win back at [7, 19, 18, 26, 37, 29]
        with a move refuted in 0.3 s, where the win itself needs 83,000 nodes (RESULTS.md,
        thirty-sixth session)."""
        tree = self.tree
        for _ in range(HEX_REFUTE_TRIES):
            move = self.best_action(g)
            if deadline is not None and time.perf_counter() >= deadline:
                return
            if tree.proven_loss(g, move) or not solver.refuted(self.roots[g], move, deadline):
                return
            prove_move(tree.node_int, tree.node_float, g, 0, move, -SOLVED_WIN, False)

    def _guard_roots(self, active: np.ndarray) -> None:
        """The root guard (`pipeline.search.root_guard`) for every active game (the visits
        of the moves it proves lost are dropped with every other proven loss's)."""
        cfg, tree = self.config, self.tree
        for g in np.flatnonzero(active):
            guard_root(
                tree.node_int,
                tree.node_float,
                int(g),
                self.roots[g],
                self.guard_work,
                tree.mask,
                self.tactics if cfg.tactics_root == "same" else TACTICS_MODES[cfg.tactics_root],
                cfg.tactics_root_nodes,
                cfg.tactics_depth,
                self.guard_table,
                self.null_table,
                self.pv,
                self.tactics_scratch,
                GUARD_TRIES,
            )


def pick_action(visits: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    """Sample from visits^(1/T); T=0 takes the most visited move (ties at random)."""
    if visits.max() <= 0:
        raise ValueError("no visits to choose from: was the search run on a finished game?")
    if temperature <= 1e-6:
        best = np.flatnonzero(visits == visits.max())
        return int(rng.choice(best))
    weights = visits.astype(np.float64) ** (1.0 / temperature)
    return int(rng.choice(len(visits), p=weights / weights.sum()))
