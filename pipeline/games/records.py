"""Game records: SGF for all three games (Hex as HexGui writes it) and Piskvork's PSQ for
Gomoku. Import replays the moves through the rules, so a bad record is a clear error (a
forbidden black move of a renju record included).

The rules of a Gomoku game travel in SGF as RU[freestyle|exact|renju] beside our GN[spec];
a record without GN takes them from RU. Piskvork's PSQ has no field for them (its header is
the board size, the two players' levels and who began; then the moves, the programs' names
and an error code), so a PSQ import is told the rules."""

from __future__ import annotations

import re

from pipeline.games.base import GameSpec, GameState, IllegalMoveError
from pipeline.games.presentation import SGF_GAME, sgf_header, sgf_move, sgf_read

# RU[] values read as each of our Gomoku rule sets (case-insensitive); we write the first.
SGF_RULES: dict[str, tuple[str, ...]] = {
    "freestyle": ("freestyle", "free", "gomoku"),
    "exact": ("exact", "standard", "exact5"),
    "renju": ("renju", "rif"),
}


class RecordError(ValueError):
    pass


def sgf_text(value: str) -> str:
    """An SGF property value: `]` and `\\` escaped."""
    return value.replace("\\", "\\\\").replace("]", "\\]")


def to_sgf(state: GameState, black: str = "", white: str = "", comment: str = "") -> str:
    """The game as SGF; `black` and `white` name the players (PB, PW), `comment` goes in GC."""
    spec = state.spec
    head = f"(;FF[4]{sgf_header(spec)}AP[zero-pipeline]GN[{spec}]"
    head += "".join(f"{key}[{sgf_text(v)}]" for key, v in (("PB", black), ("PW", white), ("GC", comment)) if v)
    replay = spec.new_game()
    nodes = []
    for a in state.history:
        colour, point = sgf_move(spec, replay.history, replay.current_player, a)
        nodes.append(f";{'BW'[colour]}[{point}]")
        replay.apply(a)
    result = ""
    if state.is_terminal:
        result = "RE[0]" if state.winner is None else f"RE[{'B' if state.winner == 0 else 'W'}+]"
    return head + result + "".join(nodes) + ")"


def from_sgf(text: str, spec: GameSpec | None = None) -> GameState:
    """Read an SGF record. Without `spec`, the game comes from GN (as we write it) or
    from GM, SZ and RU (Gomoku k=5 under the RU rules, freestyle without RU; or Hex)."""
    body = text.strip()
    if not body.startswith("(;"):
        raise RecordError("not an SGF record (it should start with '(;')")
    if spec is None:
        gn = re.search(r"GN\[([^\]]*)\]", body)
        try:
            if gn and gn.group(1).split(":")[0] in SGF_GAME:
                spec = GameSpec.parse(gn.group(1))
            else:
                gm = re.search(r"GM\[(\d+)\]", body)
                sz = re.search(r"SZ\[(\d+)(?::(\d+))?\]", body)
                if not gm or not sz:
                    raise RecordError("the record names no game (GM) or size (SZ)")
                w = int(sz.group(1))
                h = int(sz.group(2) or w)
                if gm.group(1) == "11":
                    spec = GameSpec(game="hex", size=w)
                elif gm.group(1) == "4":
                    spec = GameSpec(game="gomoku", width=w, height=h, k=5, rules=sgf_rules(body))
                else:
                    raise RecordError(f"unsupported SGF game GM[{gm.group(1)}]")
        except ValueError as exc:
            raise RecordError(str(exc)) from None
    if spec.has_swap_rule and "swap-pieces" in body and not spec.swap:
        spec = spec.model_copy(update={"swap": True})
    state = spec.new_game()
    for colour, point in re.findall(r";\s*([BW])\[([^\]]*)\]", body):
        try:
            player, action = sgf_read(spec, state.history, "BW".index(colour), point)
            if player != state.current_player:
                expected = "BW"[sgf_move(spec, state.history, state.current_player, action)[0]]
                raise RecordError(f"move {point!r}: {colour} played when it was {expected}'s turn")
            state.apply(action)
        except IllegalMoveError as exc:
            raise RecordError(str(exc)) from None
    return state


def sgf_rules(body: str) -> str:
    """The Gomoku rules an SGF record's RU property names (freestyle when it has none)."""
    ru = re.search(r"RU\[([^\]]*)\]", body)
    if not ru:
        return "freestyle"
    value = ru.group(1).strip().lower()
    for rules, names in SGF_RULES.items():
        if value in names:
            return rules
    raise RecordError(f"unsupported rules RU[{ru.group(1)}]: Gomoku here is {', '.join(SGF_RULES)}")


def to_psq(state: GameState, black: str = "", white: str = "", milliseconds: list[int] | None = None) -> str:
    """The game as Piskvork writes it: the header, a line a move (x, y from 1, and the
    milliseconds it took), then the two programs' names (first the one that began) and -1."""
    spec = state.spec
    if "psq" not in spec.record_formats:
        raise RecordError("PSQ records are for Gomoku")
    lines = [f"Piskvorky {spec.width}x{spec.height}, 11:11, 0"]
    for i, a in enumerate(state.history):
        r, c = divmod(a, spec.width)
        ms = milliseconds[i] if milliseconds and i < len(milliseconds) else 0
        lines.append(f"{c + 1},{r + 1},{ms}")
    if black or white:
        lines += [black or "black", white or "white", "-1"]
    return "\n".join(lines) + "\n"


def from_psq(text: str, k: int = 5, rules: str = "freestyle") -> GameState:
    """Read a PSQ record as Gomoku with `k` and `rules` (the format does not say them)."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    m = re.match(r"Piskvorky\s+(\d+)\s*x\s*(\d+)", lines[0] if lines else "", re.IGNORECASE)
    if not m:
        raise RecordError("not a PSQ record (the first line should read 'Piskvorky WxH, ...')")
    w, h = int(m.group(1)), int(m.group(2))
    try:
        spec = GameSpec(game="gomoku", width=w, height=h, k=k, rules=rules)
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    state = spec.new_game()
    for line in lines[1:]:
        parts = line.split(",")
        if len(parts) < 2 or not all(p.strip().lstrip("-").isdigit() for p in parts[:2]):
            break  # the moves end where the brain names begin
        x, y = int(parts[0]), int(parts[1])
        if not (1 <= x <= w and 1 <= y <= h):
            raise RecordError(f"PSQ move {x},{y} is off the {w}x{h} board")
        try:
            state.apply((y - 1) * w + (x - 1))
        except IllegalMoveError as exc:
            raise RecordError(str(exc)) from None
    return state
