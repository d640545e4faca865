"""`zero evaluate`: a checkpoint against a named opponent, scored with its interval.

The model's game is read from its checkpoint (a size-free net may play another board of
the same game and rules); the opponent is any player text `make_player` knows (pure:N,
classical:N, random, another checkpoint, gomocup:COMMAND, htp:COMMAND). An external engine
that drops out after too many faults ends the match early: its finished games still count.
A game where a player's solver proved its win (tactics in the search) is told, with the
proof's kind, length and move ("gomoku-15x15 (black) found VCF in 7 at move 23").

A match by time (`seconds`) gives every move that long instead of a simulation count:
the nets search until it is spent, pure MCTS and the classical player stop within it
(their number the most they play), an engine is told it; each side's simulations a move
(playouts, nodes) are reported."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pipeline.games.base import GameSpec
from pipeline.match.arena import GameRecord, MatchResult, PlayerDropped, match_records, result_of, warm_up
from pipeline.match.game_records import game_dict, write_records
from pipeline.match.openings import AUTO, RANDOM, OpeningSource, resolve_suite
from pipeline.players.base import Player
from pipeline.players.classical import ClassicalPlayer
from pipeline.players.factory import make_player, play_search
from pipeline.players.models import checkpoint_game
from pipeline.players.search import NetPlayer, PurePlayer, play_inference
from pipeline.search.hex_forced import hex_tactics_flags

SHOWN_PROOFS = 3  # proofs `describe` lists; the JSON has every one


def model_spec(model: Path, board: str | None = None) -> GameSpec:
    """The checkpoint's game, on `board` (20 or 20x15, HxW) instead of its own if given:
    only the board is taken, the rules stay the model's."""
    spec = checkpoint_game(model)
    if board is None:
        return spec
    size = GameSpec.parse(f"{spec.game}:{board}")
    return GameSpec.model_validate({**spec.model_dump(), "height": size.height, "width": size.width})


SIDES = ("player", "opponent")


def count_word(player: Player) -> str:
    """What a player's `think` counts (its simulations in a match by time): "" where it
    counts nothing (an engine, which keeps its own count; random; a DQN)."""
    if isinstance(player, ClassicalPlayer):
        return "nodes"
    if isinstance(player, PurePlayer):
        return "playouts"
    return "simulations" if isinstance(player, NetPlayer) else ""


def forward_pass(player: Player) -> str | None:
    """How a net player runs its net (`NetEvaluator.describe`: backend/device/precision);
    None for a player without one."""
    describe = getattr(getattr(player, "evaluator", None), "describe", None)
    return describe() if describe is not None else None


def tactics_settings(text: str) -> dict[str, str]:
    """The search settings a `--tactics` value names: off, vcf, vct (in the tree and at the
    root guard), or vct-root (the tree's VCF, the root guard's VCT)."""
    if text == "vct-root":
        return {"tactics": "vcf", "tactics_root": "vct"}
    return {"tactics": text, "tactics_root": "same"}


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
    seconds: float | None = None  # a match by time: each move's time (`simulations` then only sizes the trees)

    @staticmethod
    def setup(
        model: Path,
        vs: str,
        simulations: int,
        board: str | None = None,
        tactics: str | None = None,
        seconds: float | None = None,
        vs_tactics: str | None = None,
        inference: str = "auto",
        vs_inference: str | None = None,
        hex_tactics: str | None = None,
        vs_hex_tactics: str | None = None,
    ) -> Evaluation:
        """Load both players; CheckpointError or ValueError for a model or opponent that
        cannot play. `tactics` overrides the searches' threat solvers (off, vcf, vct),
        `vs_tactics` the opponent's alone (a net against itself with other solvers).
        `seconds`: a match by time, `seconds` a move for each side. `inference` is the nets'
        forward pass (auto, torch, onnxruntime, openvino: `players.search.play_inference`),
        `vs_inference` the opponent's alone. `hex_tactics` overrides the Hex connection
        knowledge (`SearchConfig.hex_tactics`: off, all, or pieces joined by +),
        `vs_hex_tactics` the opponent's alone."""
        spec = model_spec(model, board)
        search = play_search(spec, simulations, seconds)
        if tactics is not None:
            search = search.model_copy(update=tactics_settings(tactics))
        for text in (hex_tactics, vs_hex_tactics):
            if text is not None:
                hex_tactics_flags(text)  # a ValueError that names the pieces
        if hex_tactics is not None:
            search = search.model_copy(update={"hex_tactics": hex_tactics})
        theirs = search if vs_tactics is None else search.model_copy(update=tactics_settings(vs_tactics))
        if vs_hex_tactics is not None:
            theirs = theirs.model_copy(update={"hex_tactics": vs_hex_tactics})
        ours = play_inference(inference)
        other = ours if vs_inference is None else play_inference(vs_inference)
        player = make_player(str(model), spec, search, seconds=seconds, inference=ours)
        player.name = model.stem if vs_tactics is None else f"{model.stem}+{tactics or search.tactics}"
        opponent = make_player(vs, spec, theirs, seconds=seconds, inference=other)
        if vs_tactics is not None:
            opponent.name = f"{opponent.name}+{vs_tactics}"
        if vs_hex_tactics is not None:  # the same net with two sets of knowledge
            player.name = f"{player.name}+{search.hex_tactics}"
            opponent.name = f"{opponent.name}+{vs_hex_tactics}"
        if vs_inference is not None:  # the same net on two forward passes: tell them apart
            player.name = f"{player.name}+{inference}"
            opponent.name = f"{opponent.name}+{vs_inference}"
        return Evaluation(spec, player, opponent, simulations, seconds=seconds)

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
        if self.seconds is not None:
            warm_up(self.spec, self.player, self.opponent)
        try:
            self.records = match_records(
                self.spec, self.player, self.opponent, games, seed, openings=source, seconds=self.seconds
            )
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

    def distinct_games(self) -> int:
        """Games that differ in some move. Two nets without noise play a suite opening the
        same way each time it comes round with the same colours, so a match of more games
        than twice the suite's openings repeats games: this says how many samples it holds."""
        return len({(r.player_first, tuple(r.moves)) for r in self.records})

    def as_dict(self) -> dict[str, object]:
        assert self.result is not None, "play first"
        summary = self.result.summary()
        games = [game_dict(self.spec, r, self.player.name, self.opponent.name) for r in self.records]
        by_time = {}
        if self.seconds is not None:
            by_time = {
                "simulations_a_move": {side: self.effort(i)["simulations"] for i, side in enumerate(SIDES)},
                "seconds_a_move": {side: self.effort(i)["seconds"] for i, side in enumerate(SIDES)},
            }
        return {
            "game": str(self.spec),
            "simulations": None if self.seconds is not None else self.simulations,
            "seconds": self.seconds,
            "openings": self.openings,
            **summary,
            "distinct_games": self.distinct_games(),
            "forward_pass": {
                side: forward_pass(who) for side, who in zip(SIDES, (self.player, self.opponent), strict=True)
            },
            **by_time,
            "forfeits": self.forfeits,
            "records": games,
        }

    def effort(self, side: int) -> dict[str, dict[str, object]]:
        """What side 0 (the model) or 1 (the opponent) spent a move in a match by time:
        simulations (playouts, nodes) and seconds, their mean and median (max for the
        seconds), over every move it chose after the openings."""
        who = (self.player, self.opponent)[side]
        sims = [n for r in self.records for n in r.simulations[side]]
        spent = [t for r in self.records for t in r.seconds[side]]
        return {
            "simulations": {
                "name": who.name,
                "counts": count_word(who),
                "mean": round(float(np.mean(sims)), 1) if sims else 0.0,
                "median": float(np.median(sims)) if sims else 0.0,
                "moves": len(sims),
            },
            "seconds": {
                "name": who.name,
                "mean": round(float(np.mean(spent)), 4) if spent else 0.0,
                "median": round(float(np.median(spent)), 4) if spent else 0.0,
                "max": round(float(np.max(spent)), 4) if spent else 0.0,
            },
        }

    def describe_effort(self) -> str:
        """One line for a match by time: each side's simulations a move and seconds."""
        parts = []
        for side in range(2):
            effort = self.effort(side)
            sims, spent = effort["simulations"], effort["seconds"]
            word = sims["counts"]
            # The median first: a move whose tree already proved the game runs thousands of
            # cheap simulations into the proven nodes, which the mean takes in.
            counted = f"median {sims['median']:,.0f} {word} a move (mean {sims['mean']:,.0f})" if word else "no count"
            parts.append(f"{sims['name']} {counted}, {spent['mean']:.3f} s a move (most {spent['max']:.3f} s)")
        return f"by time, {self.seconds:g} s a move: " + "; ".join(parts)

    def describe(self, opponent: str, shown_proofs: int = SHOWN_PROOFS) -> str:
        """One line: the counts, the score with its 95% interval, and the Elo difference;
        in a match by time a line of each side's simulations and seconds a move; then, when
        a solver proved a win in some games, how many and the first `shown_proofs` of them
        (`as_dict` lists all)."""
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
        distinct = self.distinct_games()
        if distinct < result.games:
            line += f"; {distinct} distinct games (the others repeat one move for move)"
        if self.spec.has_swap_rule and self.spec.swap:
            theirs = result.swaps - result.swaps_by_player
            line += f"; swaps: {result.swaps} ({self.player.name} {result.swaps_by_player}, {opponent} {theirs})"
        if self.seconds is not None:
            line += "\n" + self.describe_effort()
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
