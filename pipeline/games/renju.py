"""Renju: Gomoku on which black (the first player) wins only with exactly five, and may not
play an overline, a double four or a double three; white wins with five or more and has no
forbidden moves. A five takes precedence: a move that makes exactly five is never forbidden.

The definitions (the RIF rules), for black, of a stone just placed on cell c:
  * five: an unbroken row of exactly five stones; overline: of six or more.
  * four: four stones in a row to which one more stone (on an empty cell of that line)
    adds a five. Fours are counted as distinct sets of four stones through c, so a
    straight four (_XXXX_: two ways to five with the same four stones) is one four, and
    X_XcX_X (two ways with different stones) is two fours in one line.
  * straight four: four stones unbroken, with two ways to five.
  * three: in one direction, a stone q such that c and q are in a straight four, q does
    not make a five anywhere, and q is not itself forbidden (with c on the board). This is
    the recursive definition: a three whose only straight four needs a forbidden move does
    not count. One three at most per direction, as every engine of the field counts them.
  * double four: two or more fours; double three: threes in two or more directions.
A forbidden move is the first of overline, double four, double three that applies.

Every question about a line of c is answered from the 11 cells within 5 of c along it
(a five is exact when the cells beyond its ends are not black, at most 5 away), so each
check reads 4 x 11 cells, plus those of the recursive checks. The kernels work on a copy
of the board (`board_of`), never on the caller's state. `tests/unit/test_renju.py` and
`scripts/renju_reference.py` compare them with `renju_reference`, the same rules written
plainly from the definitions."""

import numpy as np
from numba import njit

from pipeline.games.layout import BOARD, HEIGHT, RENJU_RULE, RULES, TO_MOVE, WIDTH

NOT_FORBIDDEN = 0
OVERLINE = 1
DOUBLE_FOUR = 2
DOUBLE_THREE = 3
FORBIDDEN_NAMES = ("", "overline", "double four", "double three")

EMPTY = 0
BLACK = 1
WALL = 3  # off the board, in a line read around a cell
SPAN = 5  # cells read on each side of the stone
LINE = 2 * SPAN + 1
LINE_R = np.array([0, 1, 1, 1], dtype=np.int64)
LINE_C = np.array([1, 0, 1, -1], dtype=np.int64)


@njit(cache=True, nogil=True)
def no_touch():
    """`touched` for a check whose reads nobody asks about."""
    return np.zeros(0, dtype=np.bool_)


@njit(cache=True, nogil=True)
def is_renju(s):
    return s[RULES] == RENJU_RULE


@njit(cache=True, nogil=True)
def board_of(s):
    """A private copy of the board (int32, C-contiguous) for the checks to try stones on."""
    cells = s[HEIGHT] * s[WIDTH]
    return s[BOARD : BOARD + cells].copy()


@njit(cache=True, nogil=True)
def read_line(board, h, w, cell, d, line, touched):
    """line[i] = the cell (i - SPAN) steps from `cell` along direction d (WALL off the
    board); marks the cells read in `touched` when it has room for them."""
    dr = LINE_R[d]
    dc = LINE_C[d]
    r = cell // w - SPAN * dr
    c = cell % w - SPAN * dc
    track = touched.shape[0] > 0
    for i in range(LINE):
        if 0 <= r < h and 0 <= c < w:
            e = r * w + c
            line[i] = board[e]
            if track:
                touched[e] = True
        else:
            line[i] = WALL
        r += dr
        c += dc


@njit(cache=True, nogil=True)
def run_span(line, i):
    """The unbroken run of black stones through line[i] (a black stone): (lo, hi)."""
    lo = i
    while lo > 0 and line[lo - 1] == BLACK:
        lo -= 1
    hi = i
    while hi < LINE - 1 and line[hi + 1] == BLACK:
        hi += 1
    return lo, hi


@njit(cache=True, nogil=True)
def five_ways(line, masks, spots):
    """The ways to a five through the centre of `line` (its stone placed, no five yet):
    each empty cell whose stone makes an unbroken run of exactly five through the centre,
    with the four stones that run keeps besides it as a bit mask. Returns how many."""
    n = 0
    for j in range(1, LINE - 1):
        if line[j] != EMPTY:
            continue
        line[j] = BLACK
        lo, hi = run_span(line, SPAN)
        line[j] = EMPTY
        if hi - lo + 1 == 5:
            m = 0
            for t in range(lo, hi + 1):
                if t != j:
                    m |= 1 << t
            masks[n] = m
            spots[n] = j
            n += 1
    return n


@njit(cache=True, nogil=True)
def count_fours(line, masks, spots):
    """Distinct fours through the centre of `line` (0, 1 or 2)."""
    n = five_ways(line, masks, spots)
    fours = 0
    for i in range(n):
        seen = False
        for j in range(i):
            if masks[j] == masks[i]:
                seen = True
                break
        if not seen:
            fours += 1
    return fours


@njit(cache=True, nogil=True)
def three_spots(line, out, masks, spots):
    """Mark in `out` the cells q of `line` whose stone makes, with the centre, a straight
    four holding both (q's own forbiddenness and fives elsewhere are checked by the
    caller). Returns how many."""
    n = 0
    for j in range(1, LINE - 1):
        out[j] = False
        if line[j] != EMPTY:
            continue
        line[j] = BLACK
        lo, hi = run_span(line, SPAN)
        if hi - lo + 1 < 5:
            ways = five_ways(line, masks, spots)
            for a in range(ways):
                for b in range(a):
                    if masks[a] == masks[b] and (masks[a] >> j) & 1 == 1:
                        out[j] = True
        line[j] = EMPTY
        if out[j]:
            n += 1
    return n


@njit(cache=True, nogil=True)
def may_be_forbidden(board, h, w, cell):
    """False when no forbidden shape can form at `cell`, from a count of black stones
    within 4 along each line: a four needs 3 of them in its direction (so does an
    overline), a three 2, and a double three two such directions. Exact, and cheap: most
    empty cells of a position stop here."""
    return shapes_possible(
        black_near(board, h, w, cell, 0),
        black_near(board, h, w, cell, 1),
        black_near(board, h, w, cell, 2),
        black_near(board, h, w, cell, 3),
    )


@njit(cache=True, nogil=True)
def black_near(board, h, w, cell, d):
    """Black stones within 4 of `cell` along direction d (`cell` itself not counted)."""
    r0 = cell // w
    c0 = cell % w
    n = 0
    for sign in (-1, 1):
        for i in range(1, SPAN):
            r = r0 + sign * i * LINE_R[d]
            c = c0 + sign * i * LINE_C[d]
            if 0 <= r < h and 0 <= c < w and board[r * w + c] == BLACK:
                n += 1
    return n


@njit(cache=True, nogil=True)
def shapes_possible(n0, n1, n2, n3):
    """Can a forbidden shape form, given the black stones within 4 along each line? A
    four (or an overline) needs 3 in one direction, a double three 2 in two directions."""
    if max(n0, n1, n2, n3) >= 3:
        return True
    return int(n0 >= 2) + int(n1 >= 2) + int(n2 >= 2) + int(n3 >= 2) >= 2


@njit(cache=True, nogil=True)
def line_counts(board, h, w):
    """counts[d, e]: black stones within 4 of cell e along direction d (e itself not
    counted), for every cell at once: each stone adds to the 32 cells that see it, which
    is cheaper than each empty cell looking around (`may_be_forbidden`)."""
    counts = np.zeros((4, h * w), dtype=np.int32)
    for cell in range(h * w):
        if board[cell] != BLACK:
            continue
        r0 = cell // w
        c0 = cell % w
        for d in range(4):
            for sign in (-1, 1):
                for i in range(1, SPAN):
                    r = r0 + sign * i * LINE_R[d]
                    c = c0 + sign * i * LINE_C[d]
                    if 0 <= r < h and 0 <= c < w:
                        counts[d, r * w + c] += 1
    return counts


@njit(cache=True, nogil=True)
def counted_may_be_forbidden(counts, cell):
    """`may_be_forbidden` read from `line_counts`."""
    return shapes_possible(counts[0, cell], counts[1, cell], counts[2, cell], counts[3, cell])


@njit(cache=True, nogil=True)
def scan_forbidden(board, h, w, out):
    """out[cell] = why black may not play each empty cell of `board` (a copy), 0 where
    it may (and on stones); returns how many are forbidden."""
    h = np.int64(h)
    w = np.int64(w)
    counts = line_counts(board, h, w)
    untracked = no_touch()
    n = 0
    for cell in range(h * w):
        out[cell] = NOT_FORBIDDEN
        if board[cell] != EMPTY or not counted_may_be_forbidden(counts, cell):
            continue
        kind = forbidden_kind(board, h, w, np.int64(cell), untracked)
        out[cell] = kind
        if kind != NOT_FORBIDDEN:
            n += 1
    return n


@njit(cache=True, nogil=True)
def makes_five(board, h, w, cell, touched):
    """Does a black stone on the empty `cell` make exactly five in some direction?"""
    line = np.empty(LINE, dtype=np.int64)
    board[cell] = BLACK
    five = False
    for d in range(4):
        read_line(board, h, w, cell, d, line, touched)
        lo, hi = run_span(line, SPAN)
        if hi - lo + 1 == 5:
            five = True
            break
    board[cell] = EMPTY
    return five


@njit(cache=True, nogil=True)
def forbidden_kind(board, h, w, cell, touched):
    """Why a black stone on the empty `cell` is forbidden (OVERLINE, DOUBLE_FOUR,
    DOUBLE_THREE) or NOT_FORBIDDEN. `board` (a copy: stones are tried on it and taken
    back) is int32 [cells]; every cell read is marked in `touched` unless `touched` is
    empty (no_touch()). All integer arguments are int64: the function calls itself, and numba's
    cache mis-links a recursive function called with other types (numba issue #6713)."""
    # One scratch block per call (the recursion needs its own): rows 0-3 the four lines,
    # 4-5 five_ways' masks and spots, 6-9 each line's three spots.
    buf = np.zeros((10, LINE), dtype=np.int64)
    board[cell] = BLACK
    five = False
    over = False
    near4 = np.zeros(4, dtype=np.int64)  # other black stones within 4 along each line
    near3 = np.zeros(4, dtype=np.int64)  # ... within 3
    for d in range(4):
        line = buf[d]
        read_line(board, h, w, cell, d, line, touched)
        lo, hi = run_span(line, SPAN)
        if hi - lo + 1 == 5:
            five = True
        elif hi - lo + 1 > 5:
            over = True
        for i in range(1, LINE - 1):
            if i != SPAN and line[i] == BLACK:
                near4[d] += 1
                if 2 <= i <= LINE - 3:
                    near3[d] += 1
    result = NOT_FORBIDDEN
    if five:
        result = NOT_FORBIDDEN
    elif over:
        result = OVERLINE
    else:
        masks = buf[4]
        spots = buf[5]
        fours = 0
        for d in range(4):
            if near4[d] >= 3:  # a four needs three more stones within 4
                fours += count_fours(buf[d], masks, spots)
        if fours >= 2:
            result = DOUBLE_FOUR
        else:
            remaining = 0
            for d in range(4):
                if near3[d] >= 2:  # a three needs two more stones within 3
                    remaining += 1
            if remaining >= 2:
                has3 = np.zeros(4, dtype=np.bool_)
                remaining = 0
                for d in range(4):
                    if near3[d] >= 2 and three_spots(buf[d], buf[6 + d], masks, spots) > 0:
                        has3[d] = True
                        remaining += 1
                # Only now the recursion, and only while two threes are still possible.
                threes = 0
                for d in range(4):
                    if threes >= 2 or threes + remaining < 2:
                        break
                    if not has3[d]:
                        continue
                    remaining -= 1
                    step = LINE_R[d] * w + LINE_C[d]
                    for j in range(1, LINE - 1):
                        if buf[6 + d, j] == 0:
                            continue
                        q = cell + (j - SPAN) * step
                        if not makes_five(board, h, w, q, touched) and (
                            forbidden_kind(board, h, w, q, touched) == NOT_FORBIDDEN
                        ):
                            threes += 1
                            break
                if threes >= 2:
                    result = DOUBLE_THREE
    board[cell] = EMPTY
    return result


@njit(cache=True, nogil=True)
def forbidden_on(board, h, w, cell, touched):
    """`forbidden_kind` behind the cheap pre-check, for an empty cell of a board copy."""
    h = np.int64(h)
    w = np.int64(w)
    cell = np.int64(cell)
    if not may_be_forbidden(board, h, w, cell):
        return NOT_FORBIDDEN
    return forbidden_kind(board, h, w, cell, touched)


@njit(cache=True, nogil=True)
def forbidden_at(s, cell):
    """Why a black stone on the empty `cell` of renju state `s` is forbidden, or
    NOT_FORBIDDEN (also for every other rule set)."""
    if not is_renju(s):
        return NOT_FORBIDDEN
    h = np.int64(s[HEIGHT])
    w = np.int64(s[WIDTH])
    # The pre-check reads the state in place; only a real check copies the board.
    if not may_be_forbidden(s[BOARD : BOARD + h * w], h, w, np.int64(cell)):
        return NOT_FORBIDDEN
    return forbidden_kind(board_of(s), h, w, np.int64(cell), no_touch())


@njit(cache=True, nogil=True)
def forbidden_cells(s, out):
    """out[cell] = why black may not play the empty `cell` (0: it may); returns how many
    are forbidden. Black's forbidden cells of the position, whoever is to move."""
    h = s[HEIGHT]
    w = s[WIDTH]
    cells = h * w
    out[:cells] = NOT_FORBIDDEN
    if not is_renju(s):
        return 0
    return scan_forbidden(board_of(s), h, w, out)


@njit(cache=True, nogil=True)
def black_to_move_under_renju(s):
    return s[RULES] == RENJU_RULE and s[TO_MOVE] == 0


@njit(cache=True, nogil=True)
def black_has_move(s):
    """Whether black has a legal move (an empty cell that is not forbidden). Usually the
    first empty cell away from black's stones answers, so this is cheap: it is asked after
    every white move (`gomoku.place_stone`)."""
    h = np.int64(s[HEIGHT])
    w = np.int64(s[WIDTH])
    view = s[BOARD : BOARD + h * w]
    for cell in range(h * w):
        if view[cell] != EMPTY:
            continue
        if not may_be_forbidden(view, h, w, np.int64(cell)):
            return True
        if forbidden_kind(board_of(s), h, w, np.int64(cell), no_touch()) == NOT_FORBIDDEN:
            return True
    return False
