"""Hex connection knowledge in the search (`SearchConfig.hex_tactics`): what each piece
costs and what it is worth (RESULTS.md, "Hex connection knowledge in the search").

    python -m pipeline.tools.hex_tactics_strength speed           # per-call cost, simulations/s
    python -m pipeline.tools.hex_tactics_strength selfplay        # self-play positions/s
    python -m pipeline.tools.hex_tactics_strength match --mode all --games 20 --seconds 0.1
    python -m pipeline.tools.hex_tactics_strength match --model models/pretrained/hex-11x11-swap.pt \\
        --game hex:11:swap --seconds 0.2

`speed` times the knowledge's calls on random 7x7 and 11x11 positions and the shipped
7x7 net's simulations/s with each piece. `match` plays a shipped net (default the 7x7
one) with the pieces named by --mode against the same net without them, at equal seconds
a move (each random opening twice, colours swapped; all games in lockstep, one move at a
time). A proven node is backed up without the net, so "simulations a move" counts those
cheap ones too."""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from pipeline.games.base import GameSpec, GameState
from pipeline.games.kernels import legal_mask
from pipeline.games.layout import TO_MOVE
from pipeline.match.arena import paired_openings, play_lockstep, result_of
from pipeline.nets.evaluator import NetEvaluator
from pipeline.players.factory import make_player
from pipeline.players.models import load_model
from pipeline.players.search import NetPlayer
from pipeline.search.hex_forced import HSEARCH_LIMITS, bridge_replies, hex_tactics_flags, hex_verdict, hsearch_root
from pipeline.search.mcts import SearchConfig
from pipeline.selfplay.play import SelfPlayConfig, play_games
from pipeline.tactics.hex.connect import must_play_region, winning_connection
from pipeline.tactics.hex.patterns import inferior_mask

MODEL = "models/pretrained/hex-7x7.pt"
MODES = (
    "off",
    "inferior",
    "connect",
    "mustplay",
    "bridge",
    "connect+bridge",
    "inferior+connect+mustplay+bridge",
    "all",
)


def random_positions(spec: GameSpec, count: int, rng: np.random.Generator) -> list[GameState]:
    """Positions of 4 to cells/2 random stones that nobody has won."""
    out = []
    while len(out) < count:
        state = spec.new_game()
        for _ in range(int(rng.integers(4, spec.cells // 2))):
            state.apply(int(rng.choice([a for a in state.legal_actions() if a < spec.cells])))
            if state.is_terminal:
                break
        if not state.is_terminal:
            out.append(state)
    return out


def per_call(fn, arrays: list[np.ndarray], reps: int = 20) -> float:
    """CPU microseconds of this process per call of fn(array), after a warm-up pass (numba
    compiles). CPU time, not wall time: on a shared machine the wall clock mostly measures
    the other jobs."""
    for s in arrays:
        fn(s)
    start = time.process_time()
    for _ in range(reps):
        for s in arrays:
            fn(s)
    return (time.process_time() - start) / (reps * len(arrays)) * 1e6


def knowledge_calls(spec: GameSpec) -> dict:
    """The calls to time on positions of `spec`, each taking a state array."""
    cells = spec.cells
    carrier = np.zeros(cells, dtype=np.bool_)
    marks = np.zeros(cells, dtype=np.bool_)
    mask = np.zeros(spec.num_actions, dtype=np.bool_)

    def verdict(flags: int):
        def run(s: np.ndarray) -> None:
            legal_mask(s, mask)
            hex_verdict(s, mask, flags)

        return run

    def region(s: np.ndarray) -> None:
        legal_mask(s, mask)
        must_play_region(s, 1 - s[TO_MOVE], mask[:cells].copy(), carrier)

    calls = {
        "winning_connection": lambda s: winning_connection(s, 0, carrier),
        "inferior_mask": lambda s: inferior_mask(s, marks),
        "must_play_region": region,
        "bridge_replies": lambda s: bridge_replies(s, marks),
        "hsearch_root": lambda s: hsearch_root(s, marks, HSEARCH_LIMITS),  # once a search, at the root
    }
    calls.update({f"hex_verdict {m}": verdict(hex_tactics_flags(m)) for m in MODES[1:]})
    return calls


def speed(
    sizes: list[int], count: int, reps: int, model: str = MODEL, game: str = "hex:7", simulations: int = 400
) -> None:
    """Per-call CPU cost of each piece on `count` random positions of each board in `sizes`,
    then the net's simulations per CPU second on the empty board and 7 random positions
    of `game`, each mode twice (the first pass includes numba's compile)."""
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    for size in sizes:
        spec = GameSpec.parse(f"hex:{size}")
        arrays = [s.array.copy() for s in random_positions(spec, count, rng)]
        for name, fn in knowledge_calls(spec).items():
            print(f"hex:{size:<3d} {name:28s} {per_call(fn, arrays, reps):8.1f} us/call")
    spec = GameSpec.parse(game)
    positions = [spec.new_game(), *random_positions(spec, 7, rng)]
    for mode in MODES + MODES:  # twice: the first pass includes numba's compile
        player = make_player(model, spec, SearchConfig(simulations=simulations, hex_tactics=mode))
        sims = 0
        start = time.process_time()  # CPU time (one torch thread): see per_call
        for state in positions:
            sims += player.think(state.copy(), budget=simulations).simulations
            player.search = None  # a fresh tree for every position
        rate = sims / max(time.process_time() - start, 1e-9)
        print(f"{game} net, {simulations} simulations, hex_tactics={mode:15s} {rate:7.0f} simulations per CPU second")


SELFPLAY_MODES = ("off", "all", "off", "all", "connect+bridge", "inferior", "mustplay")


def selfplay(
    games: int,
    model: str = MODEL,
    game: str = "hex:7",
    simulations: int = 200,
    modes: tuple[str, ...] = SELFPLAY_MODES,
) -> None:
    """Self-play positions/s on `game` with a shipped net (torch, one thread), `games`
    games in lockstep at `simulations`, seed 1, with each setting in turn."""
    torch.set_num_threads(1)
    spec = GameSpec.parse(game)
    evaluator = NetEvaluator(load_model(model, spec), threads=1)
    for mode in modes:
        search = SearchConfig(simulations=simulations, hex_tactics=mode)
        start = time.process_time()  # CPU time: see per_call
        _, stats = play_games(spec, evaluator, games, SelfPlayConfig(parallel_games=games, search=search), seed=1)
        rate = stats.positions / max(time.process_time() - start, 1e-9)
        print(f"{game} self-play, {games} games, hex_tactics={mode:15s} {rate:6.1f} positions per CPU second")


class TimedPlayer:
    """A NetPlayer that thinks `seconds` per move (its simulation budget is only a cap)."""

    def __init__(self, inner: NetPlayer, seconds: float):
        self.inner = inner
        self.seconds = seconds
        self.name = inner.name
        self.simulations = 0
        self.moves = 0

    def start(self, spec: GameSpec, games: int, seed: int) -> None:
        self.inner.start(spec, games, seed)

    def choose(self, games: list[int], states: list[GameState]) -> list[int]:
        out = []
        for g, s in zip(games, states, strict=True):
            thought = self.inner.think(s, seconds=self.seconds, game=g)
            self.simulations += thought.simulations
            self.moves += 1
            out.append(thought.action)
        return out

    def observe(self, game: int, state: GameState, action: int) -> None:
        self.inner.observe(game, state, action)


def match(mode: str, games: int, seconds: float, seed: int, opening_plies: int, model: str, game: str) -> None:
    torch.set_num_threads(1)
    spec = GameSpec.parse(game)
    cap = SearchConfig(simulations=20_000)  # the clock decides; this only sizes the tree
    with_k = TimedPlayer(make_player(model, spec, cap.model_copy(update={"hex_tactics": mode}), name=mode), seconds)
    without = TimedPlayer(make_player(model, spec, cap, name="off"), seconds)
    warm = spec.new_game()
    for p in (with_k, without):  # compile before the clock matters
        p.inner.think(warm, budget=16)
    openings = paired_openings(spec, (games + 1) // 2, opening_plies, np.random.default_rng(seed))
    start = time.perf_counter()
    records = play_lockstep(spec, with_k, without, openings, seed)
    result = result_of(mode, "off", records)
    summary = result.summary()
    print(
        f"{game} {mode} vs off at {seconds} s a move, {games} games: {result.wins}-{result.losses} "
        f"(as first {result.wins_as_first}, as second {result.wins_as_second}), score {summary['score']}, "
        f"95% {summary['interval_95']}, mean length {summary['mean_length']}; simulations a move: "
        f"{mode} {with_k.simulations / max(with_k.moves, 1):.0f}, "
        f"off {without.simulations / max(without.moves, 1):.0f}; "
        f"{time.perf_counter() - start:.0f} s"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sd = sub.add_parser("speed")
    sd.add_argument("--sizes", type=int, nargs="+", default=[7, 11], help="boards of the per-call timings")
    sd.add_argument("--positions", type=int, default=60, help="random positions a board")
    sd.add_argument("--reps", type=int, default=20, help="timed passes over the positions")
    sd.add_argument("--simulations", type=int, default=400, help="the net's search a position")
    sd.add_argument("--model", default=MODEL)
    sd.add_argument("--game", default="hex:7", help="the net's board, e.g. hex:5 for a size-free net")
    sp = sub.add_parser("selfplay")
    sp.add_argument("--games", type=int, default=25)
    sp.add_argument("--simulations", type=int, default=200)
    sp.add_argument("--modes", default=",".join(SELFPLAY_MODES), help="comma-separated, run in this order")
    sp.add_argument("--model", default=MODEL)
    sp.add_argument("--game", default="hex:7")
    m = sub.add_parser("match")
    m.add_argument("--mode", default="all")
    m.add_argument("--games", type=int, default=20)
    m.add_argument("--seconds", type=float, default=0.1)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--opening-plies", type=int, default=2)
    m.add_argument("--model", default=MODEL)
    m.add_argument("--game", default="hex:7", help="the model's game, e.g. hex:11:swap")
    args = parser.parse_args(argv)
    modes = args.modes.split(",") if args.command == "selfplay" else [getattr(args, "mode", "all")]
    for mode in modes:
        try:
            hex_tactics_flags(mode)
        except ValueError as error:
            parser.error(str(error))
    if args.command == "speed":
        speed(args.sizes, args.positions, args.reps, args.model, args.game, args.simulations)
    elif args.command == "selfplay":
        selfplay(args.games, args.model, args.game, args.simulations, tuple(modes))
    else:
        match(args.mode, args.games, args.seconds, args.seed, args.opening_plies, args.model, args.game)


if __name__ == "__main__":
    main()
