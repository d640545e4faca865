"""`zero tournament`: a gauntlet (the first player against each of the others) or a round
robin of any players `make_player` knows (checkpoints, pure:N, classical:D, random,
gomocup:COMMAND, htp:COMMAND), over an opening suite, each opening played with both colours.

Every pairing plays the same openings (the suite's in order, or random ones drawn from the
seed), `games` games a pairing: game i of a pairing is opening i // 2, its first player
(the pairing's first) moving first when i is even. A game is known by its two players and
that index; its key is written the same whichever order the players are listed in, so a
rerun in another order, or a gauntlet after a round robin, replays nothing.

Finished games are appended one JSON line each to `DIR/games.jsonl` (flushed) as they end;
a rerun with the same settings plays only the games not in the file. The settings (game,
simulations or seconds a move, openings, seed, the players' texts) are kept in
`DIR/tournament.json`, and a rerun with others is a clear error. The games run in lockstep
chunks of a pairing (by time, one move of one game at a time), the chunks in parallel in up
to `workers` spawned processes (torch at one thread each); a signal stops every chunk at
its next move and keeps each game finished."""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.games.base import GameSpec
from pipeline.match.crosstable import PRIOR_DRAWS, Standings
from pipeline.match.openings import AUTO, OpeningSource, resolve_suite
from pipeline.match.tournament_play import Row, play_chunk, play_in_pool
from pipeline.players.engines import is_engine_text, parse_engine
from pipeline.players.factory import make_player, play_search
from pipeline.players.models import checkpoint_game
from pipeline.runtime import interrupt
from pipeline.runtime.atomic import atomic_file

GAMES_FILE = "games.jsonl"
SETTINGS_FILE = "tournament.json"
CHUNK_GAMES = 10  # games of one pairing played in lockstep by one task, at most
SETTINGS = ("game", "seconds", "simulations", "openings", "seed")  # what a rerun must share


class TournamentError(ValueError):
    """A tournament that cannot be set up or resumed (said in one line)."""


# ---- players and their names -----------------------------------------------------------------


def is_checkpoint(text: str) -> bool:
    """Whether a player text names a checkpoint (anything `make_player` does not read as
    random, pure:N, classical:D or an external engine)."""
    return not (is_engine_text(text) or text == "random" or text.startswith(("pure:", "classical:")))


def checkpoint_path(text: str) -> Path:
    return Path(text.removeprefix("net:").removeprefix("dqn:"))


def engine_name(text: str) -> str:
    """An external engine's name in the tables: the name its text form gives, else its
    protocol and command with the folders of paths left out (`gomocup:python brain.py`)."""
    config = parse_engine(text)
    if config.name and config.name != text:  # `name=` among its options
        return config.name
    return f"{config.protocol}:" + " ".join(Path(word).name or word for word in config.argv)


@dataclass(frozen=True)
class Entrant:
    name: str  # as the tables show it: a checkpoint's stem (with its folder when stems clash), else the text
    text: str  # what `make_player` reads


def entrants(texts: list[str]) -> list[Entrant]:
    """The players, named: checkpoints by their stem (`folder/stem` where two stems are
    the same), engines by `engine_name`, the others by their text. A player listed twice
    is an error."""
    seen: set[str] = set()
    for text in texts:
        if text in seen:
            raise TournamentError(f"{text} is listed twice")
        seen.add(text)
    stems = [checkpoint_path(t).stem for t in texts if is_checkpoint(t)]
    out = []
    for text in texts:
        if is_engine_text(text):
            out.append(Entrant(engine_name(text), text))
            continue
        if not is_checkpoint(text):
            out.append(Entrant(text, text))
            continue
        path = checkpoint_path(text)
        name = path.stem if stems.count(path.stem) == 1 else f"{path.parent.name}/{path.stem}"
        out.append(Entrant(name, text))
    names = [e.name for e in out]
    clash = next((n for n in names if names.count(n) > 1), None)
    if clash is not None:
        raise TournamentError(f"two players would both be called {clash}: give them files of other names")
    return out


def tournament_spec(players: list[Entrant], game: str | None) -> GameSpec:
    """The game: `game` if given, else the first checkpoint's; every checkpoint must be of
    it (CheckpointError for a file that is none)."""
    checkpoints = [e for e in players if is_checkpoint(e.text)]
    if game is not None:
        return GameSpec.parse(game)
    if not checkpoints:
        raise TournamentError("no checkpoint names the game: give --game (like gomoku:9x9)")
    first = checkpoints[0]
    spec = checkpoint_game(checkpoint_path(first.text))
    for other in checkpoints[1:]:
        theirs = checkpoint_game(checkpoint_path(other.text))
        if theirs != spec:
            raise TournamentError(
                f"{other.text} is a checkpoint of {theirs}, but {first.text} plays {spec}: "
                "all checkpoints must be of one game"
            )
    return spec


def check_players(players: list[Entrant], spec: GameSpec, simulations: int, seconds: float | None = None) -> None:
    """Build each player once, so one that cannot play `spec` is an error before any game
    (CheckpointError or ValueError)."""
    search = play_search(spec, simulations, seconds)
    for e in players:
        player = make_player(e.text, spec, search, name=e.name, seconds=seconds)
        close = getattr(player, "close", None)
        if close is not None:
            close()


# ---- which games ------------------------------------------------------------------------------


def pairings(names: list[str], gauntlet: bool) -> list[tuple[str, str]]:
    """Who plays whom: the first against each other one, or every two (in listed order)."""
    if gauntlet:
        return [(names[0], other) for other in names[1:]]
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]


def game_key(player: str, opponent: str, index: int) -> tuple[str, str, int]:
    """A game's identity whichever of its players is named first: game i of (a, b) is game
    i ^ 1 of (b, a) (same opening, colours exchanged)."""
    if player <= opponent:
        return player, opponent, index
    return opponent, player, index ^ 1


def derive_seed(*parts: object) -> int:
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") % (2**31)


@dataclass(frozen=True)
class Chunk:
    """Games of one pairing that one task plays in lockstep."""

    player: Entrant
    opponent: Entrant
    indices: tuple[int, ...]  # game indices in the pairing, ascending

    def job(
        self, spec: GameSpec, simulations: int, openings: list[list[int]], seed: int, seconds: float | None = None
    ) -> dict[str, Any]:
        """Plain data for a worker process."""
        pairs = sorted({i // 2 for i in self.indices})
        return {
            "game": spec.model_dump(),
            "simulations": simulations,
            "seconds": seconds,
            "player": [self.player.name, self.player.text],
            "opponent": [self.opponent.name, self.opponent.text],
            "indices": list(self.indices),
            "pairs": pairs,
            "openings": [openings[p] for p in pairs],
            "seed": derive_seed(seed, self.player.name, self.opponent.name, self.indices[0]),
        }


def chunks(missing: dict[tuple[str, str], list[int]], players: dict[str, Entrant], size: int) -> list[Chunk]:
    """The missing games of each pairing in chunks of `size`, the pairings' chunks
    interleaved so a run stopped early has games of every pairing."""
    per_pairing = []
    for (a, b), indices in missing.items():
        parts = [tuple(indices[i : i + size]) for i in range(0, len(indices), size)]
        per_pairing.append([Chunk(players[a], players[b], part) for part in parts])
    out = []
    for round_ in range(max((len(p) for p in per_pairing), default=0)):
        out += [p[round_] for p in per_pairing if round_ < len(p)]
    return out


def chunk_size(games: int, workers: int) -> int:
    """Games a task: at most CHUNK_GAMES, fewer when there are too few games to keep
    every worker busy twice over; even, so a task holds whole openings."""
    size = min(CHUNK_GAMES, math.ceil(games / (2 * max(1, workers))))
    return max(2, size + size % 2)


# ---- the games file ---------------------------------------------------------------------------


def read_games(path: Path) -> dict[tuple[str, str, int], Row]:
    """The games kept in `path` by key (a line cut short by a hard stop is skipped)."""
    kept: dict[tuple[str, str, int], Row] = {}
    if not path.is_file():
        return kept
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
            key = game_key(row["player"], row["opponent"], int(row["index"]))
        except (ValueError, KeyError, TypeError):
            continue
        kept.setdefault(key, row)
    return kept


class GamesFile:
    """`games.jsonl`, appended one finished game a line, flushed; a game already there is
    never written again."""

    def __init__(self, path: Path):
        self.path = path
        self.kept = read_games(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = path.read_bytes() if path.is_file() else b""
        self.file = path.open("a")
        if text and not text.endswith(b"\n"):  # a line cut by a hard stop: end it
            self.file.write("\n")

    def add(self, row: Row) -> bool:
        key = game_key(row["player"], row["opponent"], int(row["index"]))
        if key in self.kept:
            return False
        with interrupt.writing():  # a hard exit waits for the whole line
            self.file.write(json.dumps(row) + "\n")
            self.file.flush()
            os.fsync(self.file.fileno())
        self.kept[key] = row
        return True

    def close(self) -> None:
        self.file.close()


# ---- the tournament ---------------------------------------------------------------------------


@dataclass
class RunOutcome:
    played: int = 0  # games this run finished
    stopped: bool = False  # a signal (or `should_stop`) ended it before its last game
    dropped: list[str] = field(default_factory=list)  # engines that left a pairing


@dataclass
class Tournament:
    spec: GameSpec
    players: list[Entrant]
    gauntlet: bool
    games: int  # a pairing
    simulations: int  # by time (`seconds`) it only sizes the nets' first trees
    openings_choice: str
    seed: int
    out: Path
    anchor: str = ""  # 0 Elo: the first player unless named
    openings: list[list[int]] = field(default_factory=list)
    openings_text: str = ""
    seconds: float | None = None  # a tournament by time: each move's seconds, for every player

    @staticmethod
    def setup(
        texts: list[str],
        out: Path,
        games: int,
        simulations: int,
        gauntlet: bool = False,
        openings: str = AUTO,
        game: str | None = None,
        seed: int = 0,
        anchor: str | None = None,
        check: bool = True,
        seconds: float | None = None,
    ) -> Tournament:
        """Name the players, find the game, draw the openings and check the settings
        against those of the games already in `out` (TournamentError, CheckpointError,
        OpeningError or ValueError in one line)."""
        if len(texts) < 2:
            raise TournamentError("a tournament needs at least two players")
        players = entrants(texts)
        names = [e.name for e in players]
        anchor = anchor or names[0]
        if anchor not in names:
            raise TournamentError(f"--anchor {anchor}: not one of the players ({', '.join(names)})")
        spec = tournament_spec(players, game)
        if check:
            check_players(players, spec, simulations, seconds)
        suite = resolve_suite(spec, openings)
        source = OpeningSource(spec, suite, None, np.random.default_rng(seed))
        t = Tournament(spec, players, gauntlet, games, simulations, openings, seed, Path(out), anchor, seconds=seconds)
        t.openings = source.take((games + 1) // 2)
        t.openings_text = source.describe()
        t.check_settings()
        return t

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.players]

    @property
    def games_path(self) -> Path:
        return self.out / GAMES_FILE

    def pairings(self) -> list[tuple[str, str]]:
        return pairings(self.names, self.gauntlet)

    def settings(self) -> dict[str, Any]:
        return {
            "game": str(self.spec),
            "simulations": None if self.seconds is not None else self.simulations,
            "seconds": self.seconds,
            "openings": self.openings_choice,
            "seed": self.seed,
            "players": {e.name: e.text for e in self.players},
        }

    def check_settings(self) -> dict[str, Any]:
        """Refuse an `out` that holds games of other settings (TournamentError); the
        settings to record: ours, with the players of every run so far."""
        path = self.out / SETTINGS_FILE
        mine = self.settings()
        if not path.is_file():
            return mine
        try:
            theirs = json.loads(path.read_text())
        except ValueError:
            raise TournamentError(f"{path}: not a tournament's settings (JSON)") from None
        for key in SETTINGS:
            if theirs.get(key) != mine[key]:
                raise TournamentError(
                    f"{self.out} holds games of {key} {theirs.get(key)}, not {mine[key]}: "
                    "use the same settings to continue, or another --out"
                )
        for name, text in theirs.get("players", {}).items():
            if mine["players"].get(name, text) != text:
                raise TournamentError(f"{self.out}: {name} was {text} there, not {mine['players'][name]}")
        return {**mine, "players": {**theirs.get("players", {}), **mine["players"]}}

    def record_settings(self) -> None:
        settings = self.check_settings()
        with atomic_file(self.out / SETTINGS_FILE, "w") as f:
            f.write(json.dumps(settings, indent=2) + "\n")

    def planned(self) -> list[tuple[str, str, int]]:
        return [(a, b, i) for a, b in self.pairings() for i in range(self.games)]

    def rows(self) -> list[Row]:
        """The kept games this tournament counts (its pairings, indices below `games`)."""
        kept = read_games(self.games_path)
        return [kept[game_key(*g)] for g in self.planned() if game_key(*g) in kept]

    def missing(self) -> dict[tuple[str, str], list[int]]:
        kept = read_games(self.games_path)
        out: dict[tuple[str, str], list[int]] = {}
        for a, b, i in self.planned():
            if game_key(a, b, i) not in kept:
                out.setdefault((a, b), []).append(i)
        return out

    def run(
        self,
        workers: int = 1,
        on_game: Callable[[Row], None] | None = None,
        should_stop: Callable[[], bool] = interrupt.requested,
    ) -> RunOutcome:
        """Play the missing games, each appended to the games file as it ends; on a signal
        (or `should_stop`) every chunk stops at its next move and the finished games stay."""
        self.record_settings()
        missing = self.missing()
        total = sum(len(v) for v in missing.values())
        by_name = {e.name: e for e in self.players}
        todo = chunks(missing, by_name, chunk_size(total, workers))
        jobs = [c.job(self.spec, self.simulations, self.openings, self.seed, self.seconds) for c in todo]
        outcome = RunOutcome()
        if not jobs:
            return outcome
        games = GamesFile(self.games_path)

        def keep(row: Row) -> None:
            if games.add(row):
                outcome.played += 1
                if on_game is not None:
                    on_game(row)

        try:
            with interrupt.cooperative():  # a first signal only sets the flag; the games stop between moves
                if workers <= 1 or len(jobs) == 1:
                    for job in jobs:
                        if should_stop():
                            break
                        done = play_chunk(job, keep, should_stop)
                        if done["dropped"]:
                            outcome.dropped.append(done["dropped"])
                else:
                    outcome.dropped += play_in_pool(jobs, workers, keep, should_stop)
        finally:
            games.close()
        outcome.stopped = outcome.played < total and should_stop()
        return outcome

    # ---- results --------------------------------------------------------------------------

    def standings(self) -> Standings:
        """The crosstable and ratings of the games kept so far."""
        games = [(r["player"], r["opponent"], float(r["score"])) for r in self.rows()]
        return Standings.of(games, self.names, self.anchor)

    def title(self) -> str:
        return f"{'Gauntlet' if self.gauntlet else 'Round robin'} on {self.spec}"

    def notes(self, standings: Standings) -> list[str]:
        pairings = len(self.pairings())
        planned = pairings * self.games
        kept = f"{standings.games} games" + (f" of {planned}" if standings.games < planned else "")
        limit = (
            f"nets search {self.simulations} simulations a move"
            if self.seconds is None
            else f"by time, {self.seconds:g} s a move for every player"
        )
        return [
            f"{kept}: {self.games} a pairing, {pairings} pairings; {limit}; openings: {self.openings_text}, "
            f"each with both colours; seed {self.seed}.",
            "",
            f"Ratings: Bradley-Terry (one virtual draw a pairing), {self.anchor} at 0 Elo; 95% intervals from "
            "the fit's curvature. A cell is the row player's points/games against the column player.",
        ]

    def write_report(self, standings: Standings) -> list[Path]:
        """DIR/crosstable.md, DIR/ratings.json and DIR/ratings.png."""
        extra = {
            "title": self.title(),
            **{k: v for k, v in self.settings().items() if k != "players"},
            "format": "gauntlet" if self.gauntlet else "round robin",
            "games_a_pairing": self.games,
            "openings_used": self.openings_text,
            "prior_draws": PRIOR_DRAWS,
            "texts": {e.name: e.text for e in self.players},
        }
        return standings.write(self.out, self.title(), self.notes(standings), extra)
