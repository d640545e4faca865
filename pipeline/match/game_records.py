"""Every game of a match as data and as files the GUIs read: a dict a game for `--json`
(opening, colours, moves, result, reason, each side's first proven win, seconds a move,
and in a match by time simulations a move), and `--records DIR` files, SGF for Hex and
Connect6 (HexGui and Connect6 viewers read it) and Piskvork's PSQ for Gomoku, one file a
game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.games.base import GameSpec
from pipeline.games.records import to_psq, to_sgf
from pipeline.match.arena import GameRecord
from pipeline.runtime.atomic import atomic_file

COLOUR_NAMES = ("black", "white")


def result_text(record: GameRecord) -> str:
    """The result from `player`'s side: 1-0, 0-1 or 1/2."""
    return {1.0: "1-0", 0.0: "0-1"}.get(record.score, "1/2")


def game_dict(spec: GameSpec, record: GameRecord, player: str, opponent: str) -> dict[str, Any]:
    mine, theirs = record.mean_seconds()
    black, white = (player, opponent) if record.player_first else (opponent, player)
    timed = any(record.simulations)  # a match by time: each side's mean simulations a move
    by_time = {"simulations_a_move": dict(zip((player, opponent), record.mean_simulations(), strict=True))}
    return {
        "game": record.index + 1,
        "pair": record.pair + 1,
        "black": black,
        "white": white,
        "player_colour": COLOUR_NAMES[0 if record.player_first else 1],
        "opening": [spec.action_name(a) for a in record.opening],
        "moves": [spec.action_name(a) for a in record.moves],
        "plies": record.plies,
        "result": result_text(record),
        "score": record.score,
        "reason": record.reason,
        "swapped": record.swapped,
        "first_proven_win": {player: record.player_proof, opponent: record.opponent_proof},
        "seconds_a_move": {player: mine, opponent: theirs},
        **(by_time if timed else {}),
    }


def write_records(spec: GameSpec, records: list[GameRecord], directory: Path, player: str, opponent: str) -> list[Path]:
    """One file a game in `directory` (game-0001.sgf or .psq); returns the paths."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    psq = "psq" in spec.record_formats
    for record in records:
        black, white = (player, opponent) if record.player_first else (opponent, player)
        state = spec.replay(record.moves)
        if psq:
            ms = [0] * len(record.opening) + interleaved_milliseconds(record)
            text = to_psq(state, black, white, ms)
        else:
            note = f"opening {' '.join(spec.action_name(a) for a in record.opening)}; {player} {result_text(record)}"
            if record.reason:
                note += f"; {record.reason}"
            text = to_sgf(state, black, white, note)
        path = directory / f"game-{record.index + 1:04d}.{'psq' if psq else 'sgf'}"
        with atomic_file(path, "w") as f:
            f.write(text)
        written.append(path)
    return written


def interleaved_milliseconds(record: GameRecord) -> list[int]:
    """Each move's milliseconds after the opening, in play order (the sides alternate by
    move; a Connect6 turn's two stones are two moves of one side, each half its call)."""
    player_first_after_opening = (len(record.opening) % 2 == 0) == record.player_first
    mine, theirs = (list(record.seconds[0]), list(record.seconds[1]))
    first, second = (mine, theirs) if player_first_after_opening else (theirs, mine)
    out: list[int] = []
    while first or second:
        for side in (first, second):
            if side:
                out.append(round(1000 * side.pop(0)))
    return out
