"""The web app's games: in memory, keyed by an id the page keeps per tab, so tabs are
isolated; at most `max_games` of them, however they arrive (new or imported), the oldest
making room. Each game has its own lock: a move, an undo or a resignation waits for it,
and the engine's turn refuses to start while another request holds it.

The engine's move takes the game's time a move (`seconds`) and its bot is kept from move
to move for the last KEPT_BOTS games that moved, so that what its solver proved stays
proven (on Hex 7x7 and 8x8 the next moves of a proven win are answered at once); an older
game's next move starts a fresh bot, as every move once did."""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field

from pipeline.games.base import GameState, IllegalMoveError
from pipeline.players.base import Forfeit, Player
from pipeline.serve.errors import ServeError
from pipeline.serve.registry import Models

MAX_GAMES = 500
# Games whose bot (its search tree and solver table: about 15 MB on a Hex board the solver
# plays) is kept between moves.
KEPT_BOTS = 16


def engine_to_move(state: GameState, human: str, resigned: int | None = None) -> bool:
    """Whether the engine side is to move: a game with an engine, still going on."""
    if human == "both" or state.is_terminal or resigned is not None:
        return False
    return state.current_player != (0 if human == "first" else 1)


@dataclass
class Session:
    state: GameState
    human: str  # "first", "second" or "both"
    opponent: str  # a model id, "pure" or an offered "classical:N"
    budget: int  # simulations (model) or playouts (pure MCTS) per move, at most
    seconds: float | None = None  # the engine's time a move (None: its budget alone)
    lock: threading.Lock = field(default_factory=threading.Lock)
    bot: Player | None = None  # the engine's bot, kept between moves (GameStore.KEPT_BOTS)
    resigned: int | None = None
    visits: list[float] | None = None
    search_value: float | None = None
    proof: str | None = None  # what the solver proved of the engine's last position

    @property
    def ai_to_move(self) -> bool:
        return engine_to_move(self.state, self.human, self.resigned)

    @property
    def over(self) -> bool:
        return self.state.is_terminal or self.resigned is not None

    def forget_search(self) -> None:
        self.visits, self.search_value, self.proof = None, None, None


class GameStore:
    def __init__(self, models: Models, max_games: int = MAX_GAMES):
        self.models = models
        self.max_games = max_games
        self.sessions: dict[str, Session] = {}
        self.lock = threading.Lock()
        self.kept: OrderedDict[str, Session] = OrderedDict()  # the games holding a bot, the last to move last

    def open(
        self, state: GameState, human: str, opponent: str, budget: int, seconds: float | None = None
    ) -> tuple[str, Session]:
        """The one way a game enters the server, once its opponent is known to fit it."""
        self.models.check_opponent(state.spec, opponent, human)
        session = Session(state, human, opponent, budget, seconds)
        game_id = uuid.uuid4().hex
        with self.lock:
            while len(self.sessions) >= self.max_games:
                gone = next(iter(self.sessions))
                self.sessions.pop(gone)
                dropped = self.kept.pop(gone, None)
                if dropped is not None:
                    dropped.bot = None
            self.sessions[game_id] = session
        return game_id, session

    def get(self, game_id: str) -> Session:
        s = self.sessions.get(game_id)
        if s is None:
            raise ServeError(404, f"no game {game_id!r}")
        return s

    def move(self, game_id: str, move: str) -> Session:
        """The human's move."""
        s = self.get(game_id)
        with s.lock:
            if s.over:
                raise ServeError(409, "the game is over")
            if s.ai_to_move:
                raise ServeError(409, "it is not your turn")
            try:
                s.state.apply(move)
            except IllegalMoveError as exc:
                raise ServeError(400, str(exc)) from None
            s.forget_search()
            return s

    def ai_move(self, game_id: str) -> Session:
        """The engine's move: one search with the game's budget (it runs in FastAPI's
        worker threadpool, so it blocks no other request)."""
        s = self.get(game_id)
        if not s.lock.acquire(blocking=False):
            raise ServeError(409, "already thinking")
        try:
            if not s.ai_to_move:
                raise ServeError(409, "it is not the engine's turn")
            try:
                thought = self.bot(game_id, s).think(s.state, seconds=s.seconds)
            except Forfeit as exc:  # an external engine broke its protocol: its game is lost
                s.resigned = s.state.current_player
                raise ServeError(502, f"the engine forfeits: {exc}") from None
            s.state.apply(thought.action)
            s.visits = thought.visits.tolist()
            s.search_value = thought.value
            s.proof = thought.proof
            return s
        finally:
            s.lock.release()

    def bot(self, game_id: str, s: Session) -> Player:
        """The game's bot: the one kept from its last move, else a new one, kept now (the
        game that moved longest ago gives its bot up past KEPT_BOTS)."""
        with self.lock:
            if s.bot is None:
                s.bot = self.models.player(s.opponent, s.state.spec, s.budget)
            self.kept[game_id] = s
            self.kept.move_to_end(game_id)
            while len(self.kept) > KEPT_BOTS:
                _, old = self.kept.popitem(last=False)
                old.bot = None
            return s.bot

    def undo(self, game_id: str) -> Session:
        """Take back to the last position where the human was to move."""
        s = self.get(game_id)
        with s.lock:
            moves = list(s.state.history)
            if not moves:
                raise ServeError(409, "nothing to undo")
            s.resigned = None
            moves.pop()
            replay = s.state.spec.replay(moves)
            while moves and engine_to_move(replay, s.human):
                moves.pop()
                replay = s.state.spec.replay(moves)
            s.state = replay
            s.forget_search()
            return s

    def resign(self, game_id: str) -> Session:
        """The human resigns (with both sides human: the side to move)."""
        s = self.get(game_id)
        with s.lock:
            if s.over:
                raise ServeError(409, "the game is over")
            s.resigned = s.state.current_player if s.human == "both" else (0 if s.human == "first" else 1)
            return s
