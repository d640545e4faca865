"""`zero evaluate`: a checkpoint against a named opponent, scored with its interval.

The model's game is read from its checkpoint (a size-free net may play another board of
the same game and rules); the opponent is any player text `make_player` knows (pure:N,
classical:N, random, another checkpoint, gomocup:COMMAND, htp:COMMAND). An external engine
that drops out after too many faults ends the match early: its finished games still count.
A game where a player's solver proved its win (tactics in the search) is told, with the
proof's kind, length and move ("gomoku-15x15 (black) found VCF in 7 at move 23")."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pipeline.games.base import GameSpec
from pipeline.match.arena import GameRecord, MatchResult, PlayerDropped, match_records, result_of
from pipeline.match.game_records import game_dict, write_records
from pipeline.match.openings import AUTO, RANDOM, OpeningSource, resolve_suite
from pipeline.players.base import Player
from pipeline.players.factory import make_player, play_search
from pipeline.players.models import checkpoint_game

SHOWN_PROOFS = 3  # proofs `describe` lists; the JSON has every one


def model_spec(model: Path, board: str | None = None) -> GameSpec:
    """The checkpoint's game, on `board` (20 or 20x15, HxW) instead of its own if given:
    only the board is taken, the rules stay the model's."""
    spec = checkpoint_game(model)
    if board is None:
        return spec
    size = GameSpec.parse(f"{spec.game}:{board}")
    return GameSpec.model_validate({**spec.model_dump(), "height": size.height, "width": size.width})


@dataclass
class Evaluation:
    """A checkpoint and its opponent, ready to play; `play` fills in the rest."""

    spec: GameSpec
    player: Player
    opponent: Player
    simulations: int
    result: MatchResult | None = None
    records: list[GameRecord] = field(default_factory=list)
    openings: str = ""  # where the openings came from, in words
    stopped: str = ""  # why the match ended early (an external engine dropped out)
    forfeits: list[str] = field(default_factory=list)  # an external engine's forfeits, each a lost game

    @staticmethod
    def setup(
        model: Path, vs: str, simulations: int, board: str | None = None, tactics: str | None = None
    ) -> Evaluation:
        """Load both players; CheckpointError or ValueError for a model or opponent that
        cannot play. `tactics` overrides the searches' threat solvers (off, vcf, vct)."""
        spec = model_spec(model, board)
        search = play_search(spec, simulations)
        if tactics is not None:
            search = search.model_copy(update={"tactics": tactics})
        player = make_player(str(model), spec, search)
        player.name = model.stem
        return Evaluation(spec, player, make_player(vs, spec, search), simulations)

    def play(
        self, games: int, seed: int = 0, opening_plies: int | None = None, openings: str | None = None
    ) -> MatchResult:
        """Colours alternate and each pair of games shares an opening: the suite `openings`
        names (`auto`: the game's shipped suite if any; `random`; a file; None: `auto`
        unless `opening_plies` is given), else `opening_plies` random moves (default: one
        stone on Hex with swap, else two).
        OpeningError for a suite that does not fit the game."""
        if openings is None:
            openings = RANDOM if opening_plies is not None else AUTO  # plies asked for: random openings
        suite = resolve_suite(self.spec, openings)
        source = OpeningSource(self.spec, suite, opening_plies, np.random.default_rng(seed))
        self.openings = source.describe()
        try:
            self.records = match_records(self.spec, self.player, self.opponent, games, seed, openings=source)
        except PlayerDropped as exc:
            self.stopped = str(exc)
            self.records = exc.records
        finally:
            close = getattr(self.opponent, "close", None)
            if close is not None:
                close()  # an external engine is told END/quit now and may save, not at exit
        self.result = result_of(self.player.name, self.opponent.name, self.records)
        self.forfeits = list(getattr(self.opponent, "reasons", []))
        return self.result

    def write_records(self, directory: Path) -> list[Path]:
        """Each game as a file the GUIs read (SGF; PSQ for Gomoku) in `directory`."""
        return write_records(self.spec, self.records, directory, self.player.name, self.opponent.name)

    def as_dict(self) -> dict[str, object]:
        assert self.result is not None, "play first"
        summary = self.result.summary()
        games = [game_dict(self.spec, r, self.player.name, self.opponent.name) for r in self.records]
        return {
            "game": str(self.spec),
            "simulations": self.simulations,
            "openings": self.openings,
            **summary,
            "forfeits": self.forfeits,
            "records": games,
        }

    def describe(self, opponent: str, shown_proofs: int = SHOWN_PROOFS) -> str:
        """One line: the counts, the score with its 95% interval, and the Elo difference;
        then, when a solver proved a win in some games, how many and the first
        `shown_proofs` of them (`as_dict` lists all)."""
        result = self.result
        assert result is not None, "play first"
        summary = result.summary()
        low, high = summary["interval_95"]  # type: ignore[misc]
        line = (
            f"{self.player.name} vs {opponent} on {self.spec}: {result.wins} wins, {result.losses} losses, "
            f"{result.draws} draws (as first {result.wins_as_first}, as second {result.wins_as_second}); "
            f"score {summary['score']:.2f} [{low:.2f}, {high:.2f}] 95%; Elo {summary['elo']:+.0f}"
        )
        if self.openings:
            line += f"; openings: {self.openings}"
        if self.spec.has_swap_rule and self.spec.swap:
            theirs = result.swaps - result.swaps_by_player
            line += f"; swaps: {result.swaps} ({self.player.name} {result.swaps_by_player}, {opponent} {theirs})"
        if not result.proofs:
            return line
        lines = [
            line,
            f"solver-proven wins in {len(result.proofs)} of {result.games} games "
            f"({self.player.name} {result.proven}, {opponent} {result.proven_against}):",
        ]
        lines += [f"  {p}" for p in result.proofs[:shown_proofs]]
        if len(result.proofs) > shown_proofs:
            lines.append(f"  ... and {len(result.proofs) - shown_proofs} more (--json lists them all)")
        return "\n".join(lines)
