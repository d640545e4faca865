"""Network-guided search for many games in lockstep: PUCT, or Gumbel at the root
(`SearchConfig.root`, pipeline.search.gumbel).

Each step selects several leaves per game (virtual loss spreads them over the tree),
writes all their observations into one batch, calls the evaluator once, then expands
and backs up every leaf. Selection, expansion and backup are compiled; Python only
drives the steps, the root noise and the Gumbel root's schedule. With `overlap`, two
halves of the games take turns so that one half's batch is in the network while the
other half's tree work runs (`BatchedMCTS._pipelined`)."""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Literal, NamedTuple

import numpy as np
from numba import njit
from pydantic import BaseModel, ConfigDict, Field, field_validator

from pipeline.games.base import GameSpec
from pipeline.games.gomoku import makes_line
from pipeline.games.kernels import candidate_mask, legal_mask, observe
from pipeline.games.layout import GOMOKU, HEX, KIND, TO_MOVE, state_length
from pipeline.search.evaluator import Evaluator
from pipeline.search.forced import LOSS, OPEN, TACTICS_DEFER, TACTICS_MODES, TACTICS_OFF, WIN, tactical_verdict_into
from pipeline.search.gumbel import TINY, GumbelConfig, chosen_child, considered_visits, descend_from, root_child
from pipeline.search.hex_forced import (
    BRIDGE_SHARE,
    HEX_BRIDGE,
    HEX_CONNECT,
    HEX_HSEARCH,
    HSEARCH_LIMITS,
    bridge_replies,
    hex_tactics_flags,
    hex_verdict,
    hsearch_root,
    prove_outside_lost,
)
from pipeline.search.hex_root_solver import HexRootSolver, table_bits
from pipeline.search.rng import make_rng
from pipeline.search.root_guard import guard_root, guarded_visits
from pipeline.search.tree import (
    ACTION,
    FIRST,
    FULL,
    PENDING,
    PRIOR,
    PUCT,
    RAW,
    SOLVED_WIN,
    TERMINAL,
    VISITS,
    Tree,
    backup,
    backup_terminal,
    boost_children,
    descend,
    expand,
    propagate_proof,
    prove_any,
    prove_lost,
    prove_move,
    revert,
    search_capacity,
)
from pipeline.tactics.hex.hsearch import MAX_SIDE
from pipeline.tactics.hex.solve import check_dfpn_size
from pipeline.tactics.lines.scratch import scratch_for
from pipeline.tactics.lines.table import new_table


class SearchConfig(BaseModel):
    """Knobs of the network-guided search."""

    model_config = ConfigDict(extra="forbid")

    simulations: int = Field(200, ge=1)
    leaves_per_step: int = Field(8, ge=1, description="leaves selected per game per evaluator call")
    c_puct: float = Field(1.5, gt=0)
    fpu_reduction: float = Field(0.2, ge=0, description="unvisited children: parent value minus this")
    root_fpu_reduction: float = Field(0.0, ge=0, description="the same at the root, where noise should explore")
    virtual_loss: float = Field(1.0, ge=0)
    dirichlet_alpha: float = Field(10.0, gt=0, description="alpha = this / number of legal moves")
    dirichlet_eps: float = Field(0.25, ge=0, le=1)
    prove_wins: bool = Field(True, description="MCTS-Solver: moves that win at once are known on expansion")
    threat_guidance: bool = Field(False, description="immediate wins and forced blocks only; never for evaluation")
    tactics: Literal["off", "vcf", "vct"] = Field(
        "vcf",
        description="threat solvers at every expansion (Gomoku, Connect6): a VCF (or VCT) is a proven win, "
        "an opponent's threat narrows the moves to its defences (pipeline.search.forced)",
    )
    tactics_nodes: int = Field(200, ge=1, description="node budget of each solver call in the tree")
    tactics_depth: int = Field(12, ge=1, description="attacker moves a solver call looks ahead")
    tactics_defer: bool = Field(
        False,
        description="Gomoku: below the root, the moves that could refute the opponent's VCF are kept as children "
        "and each judged when the tree expands it (the same solver call), instead of all at once (self-play's "
        "budget policy; the root always judges them all)",
    )
    tactics_root_nodes: int = Field(
        5000,
        ge=0,
        description="node budget of the root's last look: the chosen move is dropped if the opponent then has "
        "a VCF within it, and the next is checked (pipeline.search.root_guard; 0: off)",
    )
    hex_tactics: str = Field(
        "all",
        description="Hex connection knowledge at every expansion (pipeline.search.hex_forced): off, all, or "
        "pieces joined by '+' of inferior (dead and captured cells never children), connect (winning "
        "connections prove nodes), mustplay (the opponent's semi-connections narrow the children), "
        "bridge (the reply to a bridge intrusion takes half the prior), and at the root hsearch (H-search: a "
        "semi-connection's key is a proven win, moves outside the opponent's must-play region proven lost)",
    )
    hex_root_solver_nodes: int = Field(
        0,
        ge=0,
        description="Hex: after the search, DFPN with H-search at the root within this many nodes "
        "(pipeline.search.hex_root_solver): a proven win is played (its visits become the only ones), a "
        "proven loss keeps the search's move (0: off)",
    )
    hex_root_solver_empty_cells: int | None = Field(
        None,
        ge=0,
        description="Hex: the root solver runs only once at most this many cells are empty (None: at every "
        "move); before that a position seldom falls within the budget, and each try costs all of it",
    )
    hex_root_solver_won_nodes: int | None = Field(
        None,
        ge=0,
        description="Hex: the root solver's budget in a position that follows its own proven winning move "
        "(so is won, whatever the reply), where it also runs before `hex_root_solver_empty_cells` (None: "
        "8 times hex_root_solver_nodes)",
    )
    hex_root_solver_refute_nodes: int | None = Field(
        None,
        ge=0,
        description="Hex: where the root solver proves no win, the search's move is dropped when the opponent "
        "is proven to win after it within this many nodes, and the next is checked (None: a tenth of "
        "hex_root_solver_nodes; 0: off)",
    )
    reuse_tree: bool = True
    empty_board_centre: bool = Field(
        False,
        description="a net player (not self-play) of a line game plays the centre from the empty board, the "
        "convention of Connect6 and Gomoku play, after its search (whose analysis stays); its search cannot "
        "tell the central stones apart, so its own pick there is its prior's noise (RESULTS.md, twenty-third "
        "session)",
    )
    root: Literal["puct", "gumbel"] = Field(
        "puct",
        description="the root's choice: PUCT (Dirichlet noise, visit counts) or Gumbel top-m with sequential "
        "halving over the simulations (pipeline.search.gumbel; no Dirichlet noise, the move is the halving's)",
    )
    gumbel: GumbelConfig = GumbelConfig()

    @field_validator("hex_tactics")
    @classmethod
    def _known_hex_pieces(cls, value: str) -> str:
        hex_tactics_flags(value)  # raises on an unknown piece
        return value


@njit(cache=True, nogil=True)
def select_batch(
    node_int,
    node_float,
    roots,
    active,
    target,
    leaf_states,
    obs,
    leaf_game,
    leaf_node,
    per_game,
    c_puct,
    fpu_reduction,
    root_fpu_reduction,
    virtual_loss,
    prove,
    gumbel,
):
    """Select up to `per_game` leaves of every active game whose root has fewer than
    `target` visits; write their positions, observations, games and nodes from slot 0 on,
    and return how many. Terminal leaves are backed up at once (proven with `prove`).
    A game whose Gumbel root is set up (`gumbel.ready`) takes its root child from the
    halving schedule and descends below it by the paper's rule."""
    vl = virtual_loss
    n = 0
    for g in range(roots.shape[0]):
        if not active[g] or node_int[g, 0, TERMINAL] != 0:
            continue
        for _ in range(per_game):
            if node_int[g, 0, VISITS] >= target[g]:
                break
            slot = -1
            if gumbel.ready[g]:
                k = gumbel.sim[g]
                considered = gumbel.schedule[g, k] if k < gumbel.length[g] else -1
                child = root_child(
                    node_int,
                    node_float,
                    g,
                    gumbel.base[g],
                    gumbel.count[g],
                    considered,
                    gumbel.c_visit,
                    gumbel.c_scale,
                    gumbel.buf,
                )
                slot = child - node_int[g, 0, FIRST]
                gumbel.count[g, slot] += 1
                gumbel.sim[g] += 1
                leaf = descend_from(
                    node_int,
                    node_float,
                    g,
                    roots[g],
                    leaf_states[n],
                    child,
                    gumbel.c_visit,
                    gumbel.c_scale,
                    vl,
                    gumbel.buf,
                )
            else:
                leaf = descend(
                    node_int,
                    node_float,
                    g,
                    roots[g],
                    leaf_states[n],
                    PUCT,
                    c_puct,
                    fpu_reduction=fpu_reduction,
                    root_fpu_reduction=root_fpu_reduction,
                    virtual_loss=vl,
                )
            if node_int[g, leaf, TERMINAL] != 0:
                if prove:
                    propagate_proof(node_int, node_float, g, leaf, prove_root=False)
                backup_terminal(node_int, node_float, g, leaf, vl)
                continue
            if node_int[g, leaf, PENDING] != 0:
                # Virtual loss did not steer this descent away from a leaf already in the
                # batch: give the visit back and let this game wait for the next step.
                revert(node_int, node_float, g, leaf, vl)
                if slot >= 0:
                    gumbel.count[g, slot] -= 1
                    gumbel.sim[g] -= 1
                break
            node_int[g, leaf, PENDING] = 1
            observe(leaf_states[n], obs[n])
            leaf_game[n] = g
            leaf_node[n] = leaf
            n += 1
    return n


@njit(cache=True, nogil=True)
def expand_and_backup(
    node_int,
    node_float,
    size,
    leaf_states,
    leaf_game,
    leaf_node,
    start,
    n,
    priors,
    values,
    rng,
    mask,
    vl,
    guided,
    prove,
    tactics,
    tactics_nodes,
    tactics_depth,
    table,
    null_table,
    pv,
    hex_flags,
    marks,
    scratch,
    root_nodes=0,
    defer=False,
):
    """Expand and back up leaves start..n-1. Returns n, or the first leaf whose game's
    row is full: the caller grows the tree and calls again from there. With `tactics`,
    the threat solvers judge each leaf first (`forced.tactical_verdict_into`, in
    `scratch`, the solvers' room made once per search: `pipeline.tactics.lines.scratch`); with
    `hex_flags`, Hex's connection knowledge (`hex_forced.hex_verdict`; `marks` is scratch
    of length cells for the bridge replies). A proven leaf backs up its exact value
    instead of the net's. The root (one expansion a search) is judged with `root_nodes`
    when that is larger: a win the tree's budget misses there is still played, as the
    second stone of a Connect6 turn whose first stone a proof chose."""
    narrowed = tactics != TACTICS_OFF or hex_flags != 0
    for i in range(start, n):
        g = leaf_game[i]
        node = leaf_node[i]
        state = leaf_states[i]
        verdict = OPEN
        win = -1
        hex_value = 0.0
        if narrowed:
            if guided:
                candidate_mask(state, mask)
            else:
                legal_mask(state, mask)
        if tactics != TACTICS_OFF:
            budget = root_nodes if node == 0 and root_nodes > tactics_nodes else tactics_nodes
            mode = tactics | TACTICS_DEFER if defer and node != 0 else tactics
            verdict, win = tactical_verdict_into(
                state, mask, mode, budget, tactics_depth, table, null_table, pv, scratch
            )
            if verdict == LOSS:
                legal_mask(state, mask)  # the node is proven; a root still needs its moves
        elif hex_flags != 0:
            # Hex keeps its narrowed moves even when lost: they are the best tries.
            verdict, win, hex_value = hex_verdict(state, mask, hex_flags)
        added = expand(
            node_int,
            node_float,
            size,
            g,
            node,
            state,
            priors[i],
            rng,
            mask,
            use_policy=True,
            guided=guided,
            shuffle=False,
            # In Gomoku the verdict's win is the winning cell itself when there is one (the
            # solver looks there first); Connect6's may be a two-stone pair, so it still sweeps.
            # Hex's connection verdict checks the winning cells first, so does the same.
            prove=prove and (tactics == TACTICS_OFF or state[KIND] != GOMOKU) and (hex_flags & HEX_CONNECT) == 0,
            prove_root=False,
            given_mask=narrowed,
        )
        if added == FULL:
            return i
        node_int[g, node, PENDING] = 0
        node_float[g, node, RAW] = values[i]  # for the player to move: Gumbel's mixed value
        if verdict == WIN and win < 0:
            prove_any(node_int, node_float, g, node, SOLVED_WIN, prove_root=False)
        elif verdict == WIN:
            if state[KIND] == HEX:
                value = hex_value
            else:
                value = 1.0 if makes_line(state, win, state[TO_MOVE] + 1) else SOLVED_WIN
            prove_move(node_int, node_float, g, node, win, value, prove_root=False)
        elif verdict == LOSS:
            prove_lost(node_int, node_float, g, node, prove_root=False)
        elif (hex_flags & HEX_BRIDGE) != 0 and bridge_replies(state, marks) > 0:
            boost_children(node_int, node_float, g, node, marks, BRIDGE_SHARE)
        if narrowed and node_int[g, node, TERMINAL] != 0:
            backup_terminal(node_int, node_float, g, node, vl)
        else:
            backup(node_int, node_float, g, node, values[i], state[TO_MOVE], vl)
    return n


GUARD_TRIES = 8  # root moves the guard checks at most: past that the position is lost anyway
HEX_REFUTE_TRIES = 8  # the same for the Hex root solver's refutations
UNLIMITED = 1 << 40  # the simulation target of a search bounded by time alone


def tree_capacity(spec: GameSpec, simulations: int) -> int:
    """Room for one search of `simulations` simulations: each expands at most one node."""
    return search_capacity(spec.num_actions, simulations)


class HalvingState(NamedTuple):
    """What the compiled selection reads of the Gumbel roots (see RootSchedule)."""

    ready: np.ndarray
    base: np.ndarray
    count: np.ndarray
    sim: np.ndarray
    schedule: np.ndarray
    length: np.ndarray
    c_visit: float
    c_scale: float
    buf: np.ndarray


@dataclass
class RootSchedule:
    """Per game, the Gumbel root's sequential halving in progress: `base[g, k]` = g + logits
    of the root's k-th child, `count[g, k]` its visits in this search, `sim[g]` the
    simulations handed out, `schedule[g, :length[g]]` the visit count each simulation's
    child must have (`considered_visits` of `considered[g]` moves and `planned[g]`
    simulations); `ready[g]` once set up for the current search."""

    ready: np.ndarray
    base: np.ndarray
    count: np.ndarray
    sim: np.ndarray
    schedule: np.ndarray
    length: np.ndarray
    considered: np.ndarray
    planned: np.ndarray
    c_visit: float
    c_scale: float
    buf: np.ndarray

    @classmethod
    def empty(cls, games: int, actions: int, config: GumbelConfig) -> RootSchedule:
        """Room for `actions` root children (0: a PUCT search, which never reads it)."""
        return cls(
            ready=np.zeros(games, dtype=np.bool_),
            base=np.zeros((games, actions), dtype=np.float64),
            count=np.zeros((games, actions), dtype=np.int64),
            sim=np.zeros(games, dtype=np.int64),
            schedule=np.zeros((games, 0), dtype=np.int64),
            length=np.zeros(games, dtype=np.int64),
            considered=np.zeros(games, dtype=np.int64),
            planned=np.zeros(games, dtype=np.int64),
            c_visit=config.c_visit,
            c_scale=config.c_scale,
            buf=np.zeros(actions, dtype=np.float64),
        )

    def widened(self, length: int) -> RootSchedule:
        schedule = np.zeros((self.schedule.shape[0], length), dtype=np.int64)
        schedule[:, : self.schedule.shape[1]] = self.schedule
        return replace(self, schedule=schedule)

    def kernel(self) -> HalvingState:
        return HalvingState(
            self.ready,
            self.base,
            self.count,
            self.sim,
            self.schedule,
            self.length,
            self.c_visit,
            self.c_scale,
            self.buf,
        )


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
        Every simulation expands its leaf: a full tree grows."""
        cfg = self.config
        tree = self.tree
        deadline = None if seconds is None else time.perf_counter() + seconds
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
            self._solve_roots(active, visits)
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
                        inflight[i] = None
                        waited = time.perf_counter()
                        result = pending[0].result()
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
            gumbel=self.schedule.kernel(),
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

    def _solve_roots(self, active: np.ndarray, visits: np.ndarray) -> None:
        """Hex: the root solver (`pipeline.search.hex_root_solver`) for every active game;
        a proven winning move is marked in the tree (so `best_action` takes it) and gets
        all the visits (so sampling and training targets do too)."""
        tree = self.tree
        for g in np.flatnonzero(active):
            if tree.node_int[g, 0, TERMINAL] != 0 or tree.node_int[g, 0, FIRST] < 0:
                continue
            solver = self.root_solver(int(g))
            move = solver.winning_move(self.roots[g], self.best_action(int(g)))
            if move is None:
                self._refute_root(int(g), solver)
                continue
            if move not in tree.node_int[g, tree.root_children(int(g)), ACTION]:
                continue
            prove_move(tree.node_int, tree.node_float, int(g), 0, move, SOLVED_WIN, False)
            total = max(1, int(visits[g].sum()))
            visits[g][:] = 0
            visits[g][move] = total

    def _refute_root(self, g: int, solver: HexRootSolver) -> None:
        """No proven win: while the search's move is proven to lose (the opponent wins after
        it within the solver's refutation budget), mark it lost and check the next. The
        8x8 sample against the 11x11 champion gave a win back at [7, 19, 18, 26, 37, 29]
        with a move refuted in 0.3 s, where the win itself needs 83,000 nodes (RESULTS.md,
        thirty-sixth session)."""
        tree = self.tree
        for _ in range(HEX_REFUTE_TRIES):
            move = self.best_action(g)
            if tree.proven_loss(g, move) or not solver.refuted(self.roots[g], move):
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
                self.tactics,
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
