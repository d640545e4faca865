"""From a player's text form to a player: the one way every front end builds one (the CLI,
the stages, the DQN comparison, the web app, the Gomocup brain, the HTP engine and the
terminal game).

Text forms: `random`; `pure:N` (pure MCTS at N playouts a move); `classical:N` (alpha-beta
to N plies over a pattern evaluation, Gomoku and Connect6); an external engine
(`gomocup:COMMAND`, `htp:COMMAND`, see `pipeline.players.engines.config`); a checkpoint path
(`net:PATH`, `dqn:PATH`, or just the path), played through its search (a policy-value net)
or greedily (a DQN)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from pipeline.dqn.qnet import QNetwork
from pipeline.games.base import GameSpec
from pipeline.nets.inference import InferenceConfig
from pipeline.nets.resnet import PolicyValueNet
from pipeline.players.base import Player
from pipeline.players.classical import MAX_DEPTH, ClassicalPlayer, check_game
from pipeline.players.dqn import DQNPlayer
from pipeline.players.engines import EnginePlayer, is_engine_text, parse_engine
from pipeline.players.models import load_model
from pipeline.players.search import PLAY_INFERENCE, NetPlayer, PurePlayer, RandomPlayer, player_evaluator
from pipeline.search.mcts import SearchConfig

ModelLoader = Callable[[Path, GameSpec], PolicyValueNet | QNetwork]

FORMS = (
    "random; pure:N (pure MCTS, N playouts a move); classical:N (alpha-beta to N plies); "
    "gomocup:COMMAND or htp:COMMAND (an external engine); a checkpoint: PATH, net:PATH or dqn:PATH"
)
PREFIX = re.compile(r"^([A-Za-z][\w.-]*):")  # a word before the first colon, no path separator
CHECKPOINT_PREFIXES = ("net:", "dqn:")


# Hex boards this small are solved, and the DFPN solver (pipeline.search.hex_root_solver)
# proves their middle games in well under a second with its table kept between moves:
# there a net that plays for people or judges plays perfectly wherever the solver reaches.
# It runs from the first move: an opening position it cannot prove costs the whole budget,
# but the 200-opening 8x8 sample found the champion giving back wins the solver proves in
# 20 to 9,000 nodes at plies 4-9 when it waited for 50 empty cells (RESULTS.md, nineteenth
# session). The budget is the same on 7x7 and 8x8: one won 7x7 position of the white sweep
# needed 50,000 nodes (seventeenth session), and the 8x8 sample as white gave back a win
# at ply 5 that needs 24,356 from a fresh table, past the 20,000 8x8 had until then; the
# dearest 8x8 opening move went from 38 to 72 CPU seconds, the median stayed 0.01
# (RESULTS.md, twenty-fourth session).
SOLVED_HEX_SIDE = 8
PLAY_SOLVER_NODES = 50_000


# The time a move of a player for people (the web app, `zero htp`, `zero play`) when none is
# given: its search stops at its simulations or its share of this, and on Hex up to
# SOLVED_HEX_SIDE the root solver gets the rest (pipeline.search.hex_root_solver).
PLAY_SECONDS = 5.0
# A protocol front end's simulations a move when none is given (`zero brain`, `zero htp`):
# the bound where it plays by count (Hex up to SOLVED_HEX_SIDE), and the search's own
# settings (the tree it reserves) where the clock alone bounds a move.
PROTOCOL_SIMULATIONS = 800


def play_solver_nodes(spec: GameSpec) -> int:
    """The root solver's budget in play on `spec`: 0 where it is off (not Hex, or past
    SOLVED_HEX_SIDE)."""
    if spec.game != "hex" or spec.width > SOLVED_HEX_SIDE:
        return 0
    return PLAY_SOLVER_NODES


# The Hex connection knowledge of a match by time past SOLVED_HEX_SIDE: the must-play
# region (every empty cell tried as the opponent's key) and the inferior cells cost 6 to 10
# times the simulations a move, and at equal time the search without them won (11x11, the
# shipped net against itself, suite games: 0.5 s a move 15-5, medians 2,588 against 424
# simulations; 0.2 s 29-11, 1,032 against 160; at 200 simulations a move the full set
# scores 22-18 over 40: what it adds a simulation, it costs more in simulations; RESULTS.md,
# 2026-12-07).
TIMED_HEX_TACTICS = "connect+bridge+hsearch"


def play_search(spec: GameSpec, simulations: int, seconds: float | None = None) -> SearchConfig:
    """The search of a net that plays a match, a protocol or the web app: `simulations` a
    move, on Hex up to SOLVED_HEX_SIDE the root solver (`play_solver_nodes`), and in the line
    games the centre from the empty board (`SearchConfig.empty_board_centre`). `seconds`: a
    match by time, where Hex past SOLVED_HEX_SIDE searches with TIMED_HEX_TACTICS."""
    solver = play_solver_nodes(spec)
    config = SearchConfig(simulations=simulations, hex_root_solver_nodes=solver, empty_board_centre=spec.wins_by_line)
    if seconds is not None and spec.game == "hex" and spec.width > SOLVED_HEX_SIDE:
        config = config.model_copy(update={"hex_tactics": TIMED_HEX_TACTICS})
    return config


def pure_text(playouts: int) -> str:
    return f"pure:{playouts}"


def classical_player(text: str, spec: GameSpec, name: str | None = None) -> ClassicalPlayer:
    """`classical:N`: alpha-beta to N plies (1..MAX_DEPTH), for the k-in-a-row games."""
    depth_text = text.split(":", 1)[1]
    if not depth_text.isdigit() or not 1 <= int(depth_text) <= MAX_DEPTH:
        raise ValueError(f"{text!r}: a classical player takes a depth 1..{MAX_DEPTH} in plies, like classical:3")
    check_game(spec)
    player = ClassicalPlayer(int(depth_text))
    if name:
        player.name = name
    return player


def make_player(
    text: str,
    spec: GameSpec,
    search: SearchConfig | None = None,
    models: Path | None = None,
    *,
    name: str | None = None,
    reuse: bool = False,
    load: ModelLoader = load_model,
    seconds: float | None = None,
    inference: InferenceConfig | None = PLAY_INFERENCE,
) -> Player:
    """The player `text` names, for games of `spec`.

    `search` is the net's search (default `SearchConfig()`); `models` is where a relative
    checkpoint path is looked up; `name` replaces the player's default name (the checkpoint's
    stem, `pure:N`); `reuse` keeps pure MCTS's tree between moves, as a player of one long
    game does (the ladder does not reuse); `load` reads a checkpoint (a front end that keeps
    models loaded passes its cache).

    `seconds` makes a player for a match by time: a net thinks that long a move, however
    many simulations that reaches (`NetPlayer`), and an engine is told it (`INFO
    timeout_turn`, `time_settings`) unless its text sets `turn=`; pure MCTS and the
    classical player get the time from the match at each move (`think`), their number the
    most they play (playouts, plies).

    `inference` is a net's forward pass (`players.search.PLAY_INFERENCE`: the fastest
    backend measured here; None: eager torch in f32)."""
    if is_engine_text(text):
        engine = parse_engine(text)
        engine.check_game(spec)
        if seconds is not None and "turn_seconds" not in engine.model_fields_set:
            engine = engine.model_copy(update={"turn_seconds": seconds})
        return EnginePlayer(engine)
    if text == "random":
        return RandomPlayer()
    if text.startswith("pure:"):
        try:
            playouts = int(text.split(":", 1)[1])
        except ValueError:
            raise ValueError(f"{text!r}: pure MCTS takes a playout count, like pure:1000") from None
        if playouts < 1:
            raise ValueError(f"{text!r}: playouts must be at least 1")
        player = PurePlayer(playouts, reuse=reuse)
        if name:
            player.name = name
        return player
    if text.startswith("classical:"):
        return classical_player(text, spec, name)
    path = Path(text.removeprefix("net:").removeprefix("dqn:"))
    if models is not None and not path.is_absolute():
        path = models / path
    if PREFIX.match(text) and not text.startswith(CHECKPOINT_PREFIXES) and not path.is_file():
        raise ValueError(f"{text!r}: no such player; a player is one of: {FORMS}")
    model = load(path, spec)
    if isinstance(model, PolicyValueNet):
        return NetPlayer(
            player_evaluator(model, inference), search or SearchConfig(), name or path.stem, seconds=seconds
        )
    return DQNPlayer(model, name=name or path.stem)


def protocol_player(
    spec: GameSpec,
    model: Path | None,
    simulations: int = PROTOCOL_SIMULATIONS,
    playouts: int = 20_000,
    net_game: GameSpec | None = None,
    timed: bool = False,
) -> Player:
    """What a protocol front end (brain, HTP engine, terminal) plays: the checkpoint through
    its search at `simulations` a move, or pure MCTS at `playouts` with its tree kept
    between moves when there is no model (`pipeline.players.discovery.choose_model` finds it).
    `net_game` is the game the net is loaded for when it is not `spec` (a stand-in trained
    under other rules of the same board: the search still plays `spec`'s rules). `timed`:
    the net searches for the seconds each `think` is given, its simulations unbounded, with
    the knowledge of a match by time (`play_search`: Hex past SOLVED_HEX_SIDE plays
    TIMED_HEX_TACTICS)."""
    text = pure_text(playouts) if model is None else str(model)
    target = net_game or spec
    seconds = PLAY_SECONDS if timed else None
    return make_player(
        text,
        spec,
        play_search(spec, simulations, seconds),
        reuse=True,
        load=lambda path, _: load_model(path, target),
        seconds=seconds,
    )
