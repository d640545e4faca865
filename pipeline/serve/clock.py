"""A protocol engine's clock: the time a move may take under GTP/HTP's `time_settings`
(main time, then Canadian byo-yomi: a period of so many seconds for so many stones) and
`time_left`, or a fixed time a move when there is no clock.

    time_settings MAIN BYO_YOMI_TIME BYO_YOMI_STONES
    time_left COLOUR SECONDS STONES     (STONES 0: in main time; else the stones of the period)

As GTP has it, `time_settings` with a byo-yomi time but no stones means no time limit (the
engine's own time a move), and no byo-yomi time (`time_settings 300 0 0`) means absolute
time. Between `time_left` reports the clock runs down by the time each move took. A move's
time is its share of what is left (the main time over the moves the engine may still play,
plus the byo-yomi's time a stone), less a margin for the protocol and the machine."""

from __future__ import annotations

from dataclasses import dataclass

# A move's share of the clock: this fraction of it, less LATENCY seconds (what the front end,
# the pipe and the start of the move take), never under MIN_SECONDS.
SAFETY = 0.8
LATENCY = 0.1
MIN_SECONDS = 0.05
# The main time is spread over the moves left, counted as half the empty cells (each side
# fills about half), but never fewer than this: a long game's end keeps time in hand.
MIN_MOVES_LEFT = 10


@dataclass
class Clock:
    """One player's clock. `main` and `period`, `stones` are the settings; `left` the main
    time left, or in byo-yomi (`in_byo_yomi`) the period's time left for `stones_left` stones."""

    main: float
    period: float = 0.0
    stones: int = 0
    left: float = 0.0
    in_byo_yomi: bool = False
    stones_left: int = 0

    @classmethod
    def settings(cls, main: float, period: float, stones: int) -> Clock | None:
        """The clock of `time_settings`, or None for no time limit."""
        if main < 0 or period < 0 or stones < 0:
            raise ValueError("time_settings takes times and stones of at least 0")
        if period > 0 and stones == 0:
            return None
        clock = cls(main, period, stones, left=main)
        if main == 0 and stones > 0:
            clock.in_byo_yomi, clock.left, clock.stones_left = True, period, stones
        return clock

    def report(self, seconds: float, stones: int) -> None:
        """`time_left`: `seconds` left, in the main time (`stones` 0) or for `stones` stones."""
        if seconds < 0 or stones < 0:
            raise ValueError("time_left takes a time and stones of at least 0")
        self.left = seconds
        self.in_byo_yomi = stones > 0
        self.stones_left = stones

    def move_seconds(self, empty_cells: int) -> float:
        """The time the next move may take."""
        if self.in_byo_yomi:
            available = self.left / max(1, self.stones_left)
        else:
            available = self.left / max(MIN_MOVES_LEFT, (empty_cells + 1) // 2)
            if self.stones > 0:  # a period follows the main time: a stone's share of it too
                available += self.period / self.stones
        return max(MIN_SECONDS, SAFETY * available - LATENCY)

    def spent(self, seconds: float) -> None:
        """A move took `seconds`: the clock runs down (into byo-yomi past the main time)."""
        if not self.in_byo_yomi:
            self.left -= seconds
            if self.left >= 0 or self.stones == 0:
                return
            overrun = -self.left  # the main time ran out during the move: the period began then
            self.in_byo_yomi, self.left, self.stones_left = True, self.period, self.stones
            seconds = overrun
        self.left -= seconds
        self.stones_left -= 1
        if self.stones_left <= 0:  # the period's stones are played: a new period
            self.left, self.stones_left = self.period, self.stones
