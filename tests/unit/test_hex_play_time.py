"""Hex play within a move's time (pipeline.search.hex_root_solver, pipeline.serve.clock):
a timed search gives the root solver a share of its time and answers within it, a proven
position is answered from the kept proof the next move without a search, and HTP's
`time_settings` / `time_left` set the time a move gets."""

from __future__ import annotations

import time

import numpy as np
import pytest

from pipeline.games.base import GameSpec, GameState
from pipeline.games.hex import apply_hex
from pipeline.games.layout import BOARD
from pipeline.players.base import Thought
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.hex_root_solver import REFUTE_SHARE, SOLVER_SHARE, HexRootSolver
from pipeline.search.mcts import BatchedMCTS, SearchConfig
from pipeline.search.tree import VISITS
from pipeline.serve.clock import LATENCY, MIN_MOVES_LEFT, SAFETY, Clock
from pipeline.serve.htp import HtpEngine
from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex import solve
from pipeline.tactics.hex import solver as hs
from pipeline.tactics.hex.solve import _dfpn, keeps_win, new_dfpn_table
from tests.unit.test_hex_root_solver import PER_EXPANSION, hand_made

pytestmark = pytest.mark.unit

# Generous: a timed move may pass its time by a solver step and a tree step, and the
# machine may be shared.
MARGIN = 5.0


def test_a_timed_8x8_search_with_the_solver_answers_within_its_time():
    """A two-stone 8x8 opening the solver does not prove quickly: the play settings' 50,000
    nodes took about a minute there; with two seconds the move comes within them."""
    spec = GameSpec.parse("hex:8")
    config = SearchConfig(simulations=1_000_000, hex_root_solver_nodes=50_000, hex_tactics=PER_EXPANSION)
    search = BatchedMCTS(spec, 1, config, seed=1)
    evaluator = UniformEvaluator(spec.num_actions)
    search.reset(0, spec.replay([18]).array)  # compile everything first, off the clock
    search.search(evaluator, simulations=8, seconds=0.5)
    search = BatchedMCTS(spec, 1, config, seed=1)
    search.reset(0, spec.replay([18, 45]).array)
    started = time.perf_counter()
    visits = search.search(evaluator, seconds=2.0)[0]
    took = time.perf_counter() - started
    assert took < 2.0 + MARGIN
    assert visits.sum() > 0 and search.tree.node_int[0, 0, VISITS] > 1  # the tree searched too


def test_by_time_the_refutations_come_first_and_the_root_solve_gets_the_rest(monkeypatch):
    """A won position is kept only by its proof: by time, the refutations of the search's
    move get at most REFUTE_SHARE of what the tree search leaves, and the root's solve runs
    until the move's end with whatever they did not use (solving first gave back two wins of
    400 in the timed 8x8 sweep)."""
    calls: list[tuple[str, float | None]] = []
    refuted, winning_move = HexRootSolver.refuted, HexRootSolver.winning_move

    def recording_refuted(self, state, move, deadline=None):
        calls.append(("refuted", deadline))
        return refuted(self, state, move, deadline)

    def recording_winning_move(self, state, preferred, deadline=None):
        calls.append(("winning_move", deadline))
        return winning_move(self, state, preferred, deadline)

    monkeypatch.setattr(HexRootSolver, "refuted", recording_refuted)
    monkeypatch.setattr(HexRootSolver, "winning_move", recording_winning_move)
    spec = GameSpec.parse("hex:8")
    config = SearchConfig(simulations=1_000_000, hex_root_solver_nodes=50_000, hex_tactics=PER_EXPANSION)
    search = BatchedMCTS(spec, 1, config, seed=1)
    search.reset(0, spec.replay([18, 45]).array)  # not proven within a second
    seconds = 1.0
    started = time.perf_counter()
    search.search(UniformEvaluator(spec.num_actions), seconds=seconds)
    names = [name for name, _ in calls]
    assert names[0] == "refuted" and names[-1] == "winning_move", names
    assert names.count("winning_move") == 1
    refute_by = max(d for name, d in calls if name == "refuted")
    solve_by = calls[-1][1]
    assert refute_by is not None and solve_by is not None
    assert refute_by < solve_by
    assert abs(solve_by - (started + seconds)) < 0.5  # the solve's deadline is the move's end
    # ... and the refutations' is at most a quarter of what the tree search left.
    assert refute_by - started <= seconds * (1 - SOLVER_SHARE * (1 - REFUTE_SHARE)) + 0.5


def test_a_solve_with_a_deadline_runs_in_steps_and_keeps_its_work(monkeypatch):
    """Past its deadline a solve takes one step; steps resumed over the same table reach
    what one call does (steps of 20 nodes here, so that this 6x6 opening takes several)."""
    monkeypatch.setattr(solve, "DEADLINE_STEP", 20)
    spec = GameSpec.parse("hex:6")
    state = GameState(spec, spec.replay([7, 20]).array)
    limits = hd.default_limits()
    table = new_dfpn_table(18)
    value, _, nodes = _dfpn(state, 10**6, hd.DFPN_ALL, table, limits, deadline=time.perf_counter() - 1)
    assert nodes <= solve.DEADLINE_STEP
    steps = 1
    while value == hs.UNKNOWN:
        value, _, used = _dfpn(state, 10**6, hd.DFPN_ALL, table, limits, deadline=time.perf_counter() - 1)
        nodes += used
        steps += 1
    whole, _, _ = _dfpn(state, 10**6, hd.DFPN_ALL, new_dfpn_table(18), limits)
    assert value == whole != hs.UNKNOWN
    assert steps > 1  # it needed more than one step: the resumption was exercised


def test_a_proven_position_is_answered_from_the_kept_proof_without_a_search():
    """After the solver proves a win and the opponent replies, the next move comes from the
    kept proof: one simulation (the root's expansion), no solve within the search's time."""
    spec = GameSpec.parse("hex:5")
    config = SearchConfig(simulations=64, hex_root_solver_nodes=100_000, hex_tactics=PER_EXPANSION)
    search = BatchedMCTS(spec, 1, config, seed=5)
    evaluator = UniformEvaluator(spec.num_actions)
    s = hand_made(spec, [], 0)  # black wins with c3 only
    search.reset(0, s.copy())
    search.search(evaluator)
    move = search.best_action(0)
    assert move == spec.parse_action("c3") and search.tree.proven_win(0, move)
    solver = search.root_solver(0)
    assert solver.answered == 0
    for reply_at in range(3):  # white replies anywhere, black answers from the proof
        after = s.copy()
        apply_hex(after, move)
        reply = int(np.flatnonzero(after[BOARD : BOARD + spec.cells] == 0)[reply_at])
        s = after.copy()
        apply_hex(s, reply)
        search.reset(0, s.copy())
        answered = solver.answered
        visits = search.search(evaluator)[0]
        assert solver.answered == answered + 1
        assert search.tree.node_int[0, 0, VISITS] == 1  # the root's expansion alone
        move = search.best_action(0)
        assert visits[move] == visits.sum() and search.tree.proven_win(0, move)
        assert keeps_win(GameState(spec, s.copy()), move, 100_000)
        if GameState(spec, s.copy()).apply(move).is_terminal:
            break


class Spy:
    """A bot that records the time each `think` is given."""

    name = "spy"

    def __init__(self) -> None:
        self.given: list[float | None] = []

    def start(self, spec, games, seed) -> None:
        pass

    def observe(self, game, state, action) -> None:
        pass

    def think(self, state: GameState, budget=None, seconds=None, game=0) -> Thought:
        self.given.append(seconds)
        action = int(state.legal_actions()[0])
        return Thought(action, np.zeros(state.spec.num_actions, dtype=np.float32), 0.0, 0, 0.0)


def test_htp_time_settings_set_the_time_a_move_gets():
    spy = Spy()
    htp = HtpEngine(lambda spec: (spy, ""), size=5, seconds=3.0)
    assert "time_settings" in htp.execute("list_commands", []).split()
    assert htp.execute("known_command", ["time_left"]) == "true"
    htp.execute("genmove", ["b"])
    assert spy.given[-1] == 3.0  # no clock: the engine's own time a move
    htp.execute("time_settings", ["0", "10", "5"])  # byo-yomi alone: 10 s for 5 stones
    htp.execute("genmove", ["w"])
    assert spy.given[-1] == pytest.approx(SAFETY * 2.0 - LATENCY)
    htp.execute("time_left", ["b", "3", "1"])  # the controller's reading: 3 s for the last stone
    htp.execute("genmove", ["b"])
    assert spy.given[-1] == pytest.approx(SAFETY * 3.0 - LATENCY)
    htp.execute("time_settings", ["100", "0", "0"])  # absolute: 100 s for the game
    htp.execute("genmove", ["w"])  # 22 empty cells: its share is one of 11 moves
    assert spy.given[-1] == pytest.approx(SAFETY * 100 / 11 - LATENCY)
    htp.execute("boardsize", ["3"])  # 9 empty cells: never fewer than MIN_MOVES_LEFT moves
    htp.execute("genmove", ["b"])
    assert spy.given[-1] == pytest.approx(SAFETY * 100 / MIN_MOVES_LEFT - LATENCY)
    htp.execute("time_settings", ["0", "1", "0"])  # GTP: byo-yomi time without stones, no limit
    htp.execute("genmove", ["w"])
    assert spy.given[-1] == 3.0
    with pytest.raises(ValueError, match="time_settings needs"):
        htp.execute("time_settings", ["10"])
    with pytest.raises(ValueError, match="time_left needs"):
        htp.execute("time_left", ["b", "x", "0"])


def test_htp_genmove_with_a_net_and_the_solver_answers_within_the_clock():
    """`time_settings 0 2 1` (2 s a stone) on 8x8: the bot's move within the time a move gets."""
    from pipeline.players.search import NetPlayer

    spec = GameSpec.parse("hex:8")
    config = SearchConfig(simulations=1_000_000, hex_root_solver_nodes=50_000, hex_tactics=PER_EXPANSION)
    bot = NetPlayer(UniformEvaluator(spec.num_actions), config)
    bot.think(spec.replay([18]), budget=8, seconds=0.5)  # compile off the clock
    htp = HtpEngine(lambda s: (bot, ""), size=8)
    htp.execute("time_settings", ["0", "2", "1"])
    htp.execute("play", ["b", "c3"])
    htp.execute("play", ["w", "f6"])
    started = time.perf_counter()
    assert htp.execute("genmove", ["b"]) not in ("", "resign")
    assert time.perf_counter() - started < 2.0 + MARGIN


def test_the_clock_runs_down_into_byo_yomi():
    clock = Clock.settings(10, 6, 3)
    assert clock is not None and not clock.in_byo_yomi
    clock.spent(4)
    assert clock.left == 6 and not clock.in_byo_yomi
    clock.spent(7)  # the main time ran out a second into the move: the period began then
    assert clock.in_byo_yomi and clock.left == 5 and clock.stones_left == 2
    clock.spent(1)
    clock.spent(1)  # the period's stones played: a new period
    assert clock.left == 6 and clock.stones_left == 3
    assert clock.move_seconds(40) == pytest.approx(SAFETY * 2 - LATENCY)
    assert Clock.settings(0, 5, 0) is None  # no time limit
    absolute = Clock.settings(60, 0, 0)
    assert absolute is not None and absolute.move_seconds(60) == pytest.approx(SAFETY * 60 / 30 - LATENCY)
    absolute.spent(70)
    assert absolute.move_seconds(10) > 0  # never below the floor, even overdrawn
    with pytest.raises(ValueError):
        Clock.settings(-1, 0, 0)


def test_a_timed_perfect_play_game_records_each_moves_time_and_stays_perfect():
    """`play_checked(seconds=...)`, what `hex_perfect_play --seconds` plays: the player's
    moves one at a time within the time, each one's seconds recorded; on 5x5 the root solver
    still wins every winnable game."""
    from pipeline.match.perfect_play import PerfectPlayReport, WinChecker, play_checked
    from pipeline.players.search import NetPlayer, RandomPlayer

    spec = GameSpec.parse("hex:5")
    config = SearchConfig(simulations=8, hex_root_solver_nodes=50_000)
    player = NetPlayer(UniformEvaluator(spec.num_actions), config)
    player.think(spec.replay([0, 1]), seconds=1.0)  # compile off the clock
    games = play_checked(spec, player, RandomPlayer(), 4, True, WinChecker(spec, 100_000), seed=3, seconds=1.0)
    for game in games:
        own = (len(game.moves) + 1) // 2  # the first player's moves
        assert len(game.seconds) == own and all(0 <= t < 1.0 + MARGIN for t in game.seconds)
    summary = PerfectPlayReport("uniform", "random", games).summary(True)
    assert summary["dropped"] == 0 and summary["winnable_won"] == summary["winnable"]


class Bots:
    """The web app's registry, making a Spy for each bot asked for."""

    def __init__(self) -> None:
        self.made: list[Spy] = []

    def check_opponent(self, spec, opponent, human) -> None:
        pass

    def player(self, model_id, spec, budget) -> Spy:
        self.made.append(Spy())
        return self.made[-1]


def test_the_web_app_moves_within_the_games_time_and_keeps_its_bot(monkeypatch):
    from pipeline.serve import store as store_module
    from pipeline.serve.store import GameStore

    bots = Bots()
    store = GameStore(bots)  # type: ignore[arg-type]
    spec = GameSpec.parse("hex:5")
    game_id, session = store.open(spec.new_game(), "second", "net", 100, seconds=1.5)
    store.ai_move(game_id)
    store.move(game_id, "c3")
    store.ai_move(game_id)
    assert len(bots.made) == 1 and bots.made[0].given == [1.5, 1.5]  # one bot, kept, each move timed
    monkeypatch.setattr(store_module, "KEPT_BOTS", 1)
    other, _ = store.open(spec.new_game(), "second", "net", 100, seconds=1.5)
    store.ai_move(other)
    assert session.bot is None and len(bots.made) == 2  # the game that moved longest ago gave its bot up
    store.move(game_id, "c4")
    store.ai_move(game_id)
    assert len(bots.made) == 3
