"""Which model plays a board (`pipeline.players.discovery.choose_model`), and the brain and the HTP
engine picking it again whenever the board or the rule changes in a session."""

import io
import re

import pytest

from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import CheckpointError, save_checkpoint
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.players.discovery import choose_model
from pipeline.serve import brain as brain_module
from pipeline.serve.brain import run_brain
from pipeline.serve.htp import run_htp

pytestmark = pytest.mark.unit

FIXED = NetSpec(blocks=0, channels=8, value_hidden=8)
FREE = NetSpec(blocks=0, channels=8, value_hidden=8, size_free=True, head_channels=2)


def gomoku(size: int, rules: str = "freestyle", height: int | None = None) -> GameSpec:
    return GameSpec(game="gomoku", height=height or size, width=size, rules=rules)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("pretrained")
    for name, spec, net in [
        ("gomoku-7x7", gomoku(7), FIXED),
        ("gomoku-9x9-free", gomoku(9), FREE),
        ("gomoku-13x13-free", gomoku(13), FREE),
        ("gomoku-9x9-exact", gomoku(9, "exact"), FREE),
        ("hex-5x5", GameSpec(game="hex", size=5), FIXED),
        ("hex-5x5-swap", GameSpec(game="hex", size=5, swap=True), FREE),
    ]:
        save_checkpoint(d / f"{name}.pt", PolicyValueNet(spec, net))
    (d / "broken.pt").write_bytes(b"not a checkpoint")
    return d


def chosen(spec, models, explicit=None):
    choice = choose_model(spec, explicit and models / f"{explicit}.pt", [models])
    return (choice.path.stem if choice.path else None), choice.note


def test_a_model_trained_on_the_board_comes_first(models):
    assert chosen(gomoku(7), models) == ("gomoku-7x7", "gomoku-7x7.pt plays gomoku:7x7:k5:freestyle")
    assert chosen(gomoku(9), models)[0] == "gomoku-9x9-free"
    assert chosen(GameSpec(game="hex", size=5), models)[0] == "hex-5x5"


@pytest.mark.parametrize(
    ("size", "expected"),
    [(8, "gomoku-9x9-free"), (10, "gomoku-9x9-free"), (12, "gomoku-13x13-free"), (20, "gomoku-13x13-free")],
)
def test_else_the_size_free_model_of_the_nearest_board(models, size, expected):
    name, note = chosen(gomoku(size), models)
    trained = {"gomoku-9x9-free": "9x9", "gomoku-13x13-free": "13x13"}[expected]
    assert (name, note) == (expected, f"{name}.pt plays {gomoku(size)} (size-free, trained on {trained})")


def test_a_tie_goes_to_the_larger_board_and_rectangles_count_both_sides(models):
    assert chosen(gomoku(11), models)[0] == "gomoku-13x13-free"  # 9 and 13 both 2 away
    assert chosen(gomoku(15, height=5), models)[0] == "gomoku-13x13-free"  # 4+6 and 8+2 away
    assert chosen(gomoku(10, height=6), models)[0] == "gomoku-9x9-free"


def test_the_rule_and_the_swap_choose_too(models):
    assert chosen(gomoku(20, "exact"), models)[0] == "gomoku-9x9-exact"
    assert chosen(GameSpec(game="hex", size=11, swap=True), models)[0] == "hex-5x5-swap"
    # A fixed-size net plays no other board: pure MCTS, and the note says so.
    assert chosen(GameSpec(game="gomoku", size=7, k=4), models) == (
        None,
        "no model plays gomoku:7x7:k4:freestyle: pure MCTS",
    )
    assert chosen(GameSpec(game="connect6", size=19), models)[0] is None


def test_a_hex_net_trained_with_the_swap_rule_plays_without_it_the_board_first(models):
    # hex:7 without swap: the fixed-size 5x5 net cannot, the size-free swap net can.
    assert chosen(GameSpec(game="hex", size=7), models) == (
        "hex-5x5-swap",
        "hex-5x5-swap.pt plays hex:7x7 (size-free, trained on 5x5; trained with the swap rule, playing without it)",
    )
    # On its own board without swap, the net of that board and rule still comes first.
    assert chosen(GameSpec(game="hex", size=5), models)[0] == "hex-5x5"


def test_the_nearest_board_wins_over_the_same_swap_rule(tmp_path):
    # The shipped case: hex:11 without swap gets the 11x11 swap champion, not the 8x8 net.
    for name, spec in [
        ("hex-11x11-swap", GameSpec(game="hex", size=11, swap=True)),
        ("hex-8x8", GameSpec(game="hex", size=8)),
    ]:
        save_checkpoint(tmp_path / f"{name}.pt", PolicyValueNet(spec, FREE))
    assert chosen(GameSpec(game="hex", size=11), tmp_path) == (
        "hex-11x11-swap",
        "hex-11x11-swap.pt plays hex:11x11 (trained with the swap rule, playing without it)",
    )
    assert chosen(GameSpec(game="hex", size=9), tmp_path)[0] == "hex-8x8"  # nearer, and the same rule
    assert chosen(GameSpec(game="hex", size=10), tmp_path)[0] == "hex-11x11-swap"  # nearer
    # A net trained without the swap never learned its swap reply: it plays no swap game.
    assert chosen(GameSpec(game="hex", size=8, swap=True), tmp_path)[0] == "hex-11x11-swap"
    (tmp_path / "hex-11x11-swap.pt").unlink()
    assert chosen(GameSpec(game="hex", size=8, swap=True), tmp_path)[0] is None


def test_an_explicit_model_plays_what_it_can_or_says_why_not(models):
    assert chosen(gomoku(20), models, "gomoku-9x9-free")[0] == "gomoku-9x9-free"
    assert chosen(gomoku(7), models, "gomoku-9x9-free")[0] == "gomoku-9x9-free"  # not the 7x7 one
    with pytest.raises(CheckpointError, match=r"hex-5x5.pt cannot play hex:7x7: a fixed-size net, it plays only"):
        chosen(GameSpec(game="hex", size=7), models, "hex-5x5")
    with pytest.raises(CheckpointError, match="another game or rules"):
        chosen(gomoku(9, "exact"), models, "gomoku-9x9-free")
    with pytest.raises(CheckpointError, match="another game or rules"):
        chosen(GameSpec(game="hex", size=5, swap=True), models, "hex-5x5")
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        chosen(gomoku(9), models, "missing")
    with pytest.raises(CheckpointError):
        chosen(gomoku(9), models, "broken")


def brain_session(models, commands, model=None, sources=None):
    out = io.StringIO()
    explicit = model and models / f"{model}.pt"
    run_brain(explicit, 4, 30, io.StringIO("\n".join([*commands, "END"]) + "\n"), out, sources or [models])
    return out.getvalue().splitlines()


def test_the_brain_picks_a_model_for_every_board_and_rule(models):
    lines = brain_session(
        models,
        [
            "START 20",  # Gomocup's freestyle board
            "INFO rule 1",  # before the first move, as Piskvork sends it
            "TURN 0,0",
            "INFO rule 0",  # mid-game: the moves replayed under freestyle
            "BEGIN",
            "START 7",
            "RESTART",
            "RECTSTART 20,15",
            "START 21",
            "START 4",
        ],
    )
    assert lines[:3] == [
        "OK",
        "MESSAGE gomoku-13x13-free.pt plays gomoku:20x20:k5:freestyle (size-free, trained on 13x13)",
        "MESSAGE gomoku-9x9-exact.pt plays gomoku:20x20:k5:exact (size-free, trained on 9x9)",
    ]
    assert lines[3].startswith("MESSAGE gomoku-9x9-exact: 4 simulations")
    x, y = (int(v) for v in lines[4].split(","))
    assert 0 <= x < 20 and 0 <= y < 20
    assert lines[5] == "MESSAGE gomoku-13x13-free.pt plays gomoku:20x20:k5:freestyle (size-free, trained on 13x13)"
    assert lines[6].startswith("MESSAGE gomoku-13x13-free: 4 simulations")
    assert lines[8:12] == ["OK", "MESSAGE gomoku-7x7.pt plays gomoku:7x7:k5:freestyle"] * 2
    rect = "gomoku-13x13-free.pt plays gomoku:15x20:k5:freestyle (size-free, trained on 13x13)"
    assert lines[12:14] == ["OK", f"MESSAGE {rect}"]
    assert lines[14:] == [
        "ERROR unsupported board 21x21 (5..20 on each side)",
        "ERROR unsupported board 4x4 (5..20 on each side)",
    ]


def test_the_brain_falls_back_to_pure_mcts_and_says_so(models):
    lines = brain_session(models, ["START 7", "INFO rule 1", "BEGIN"], sources=[models / "gomoku-7x7.pt"])
    assert lines[:3] == [
        "OK",
        "MESSAGE gomoku-7x7.pt plays gomoku:7x7:k5:freestyle",
        "MESSAGE no model plays gomoku:7x7:k5:exact: pure MCTS, 30 playouts a move",
    ]
    assert lines[3].startswith("MESSAGE pure:30: ")


def test_the_brain_with_a_model_that_cannot_play_the_board_answers_errors_and_keeps_running(models):
    fixed = brain_session(models, ["START 9", "BEGIN", "RESTART", "START 7", "BEGIN"], model="gomoku-7x7")
    why = "ERROR gomoku-7x7.pt cannot play gomoku:9x9:k5:freestyle: a fixed-size net, it plays only gomoku:7x7"
    assert fixed[:3] == [f"{why}:k5:freestyle"] * 3
    assert fixed[3:5] == ["OK", "MESSAGE gomoku-7x7.pt plays gomoku:7x7:k5:freestyle"]
    assert "," in fixed[-1]
    # The rule comes after START: a board the model plays under the other rule is accepted.
    exact = brain_session(models, ["START 15", "BEGIN", "INFO rule 1", "BEGIN"], model="gomoku-9x9-exact")
    cannot = "gomoku-9x9-exact.pt cannot play gomoku:15x15:k5:freestyle: it plays gomoku:9x9:k5:exact, another"
    cannot += " game or rules"
    assert exact[:4] == [
        "OK",
        f"MESSAGE {cannot}; it plays 15x15 with exact five (INFO rule 1) or renju (INFO rule 4)",
        f"ERROR {cannot}",
        "MESSAGE gomoku-9x9-exact.pt plays gomoku:15x15:k5:exact (size-free, trained on 9x9)",
    ]
    assert "," in exact[-1]
    other = brain_session(models, ["START 9", "BEGIN"], model="hex-5x5")
    assert other[0].startswith("ERROR hex-5x5.pt cannot play gomoku:9x9") and other[0] == other[1]


# ---- renju and the other rule bits ---------------------------------------------------------

PLAYS = "this brain plays INFO rule 0 freestyle, 1 exact five, 4 renju"


def test_renju_stands_in_the_nearest_rules_net_and_says_so(models):
    choice = choose_model(gomoku(15, "renju"), None, [models])
    assert choice.path.stem == "gomoku-9x9-exact" and choice.net_game == gomoku(15, "exact")
    assert choice.note == (
        "gomoku-9x9-exact.pt plays gomoku:15x15:k5:renju (size-free, trained on 9x9; an exact-five net standing"
        " in: no renju model; the search plays by the renju rules)"
    )
    # Without an exact-five net, a freestyle one of the board; without either, pure MCTS.
    assert chosen(gomoku(7, "renju"), models)[0] == "gomoku-9x9-exact"
    free = choose_model(gomoku(7, "renju"), None, [models / "gomoku-7x7.pt"])
    assert free.path.stem == "gomoku-7x7" and free.net_game == gomoku(7)
    assert chosen(gomoku(15, "renju"), models / "nothing") == (None, "no model plays gomoku:15x15:k5:renju: pure MCTS")
    # A model named explicitly may stand in too, and says so.
    assert "standing in" in chosen(gomoku(15, "renju"), models, "gomoku-13x13-free")[1]


def test_the_brain_plays_renju_on_info_rule_4(models):
    lines = brain_session(models, ["ABOUT", "START 15", "INFO rule 4", "BEGIN"])
    assert lines[0].endswith('rules="INFO rule 0 freestyle, 1 exact five, 4 renju"')
    assert lines[1:3] == [
        "OK",
        "MESSAGE gomoku-13x13-free.pt plays gomoku:15x15:k5:freestyle (size-free, trained on 13x13)",
    ]
    assert lines[3].startswith("MESSAGE gomoku-9x9-exact.pt plays gomoku:15x15:k5:renju (size-free, trained on 9x9;")
    assert "standing in" in lines[3]
    assert lines[4].startswith("MESSAGE gomoku-9x9-exact: 4 simulations")
    assert "," in lines[5]


@pytest.mark.parametrize(
    ("rule", "why"),
    [
        (2, "rule 2 (continuous game) is not supported"),
        (3, "rule 3 (continuous game) is not supported"),
        (5, "rule 5 is not supported"),
        (8, "rule 8 (caro) is not supported"),
        (9, "rule 9 (caro) is not supported"),
        (12, "rule 12 (caro) is not supported"),
    ],
)
def test_the_brain_refuses_rules_it_cannot_play_until_one_it_can(models, rule, why):
    error = f"ERROR {why}: {PLAYS}"
    lines = brain_session(models, ["START 15", f"INFO rule {rule}", "BEGIN", "TURN 7,7", "INFO rule 1", "BEGIN"])
    assert lines[:5] == [
        "OK",
        "MESSAGE gomoku-13x13-free.pt plays gomoku:15x15:k5:freestyle (size-free, trained on 13x13)",
        error,
        error,  # never a silent fallback: no move under the rule it had
        error,
    ]
    assert lines[5] == "MESSAGE gomoku-9x9-exact.pt plays gomoku:15x15:k5:exact (size-free, trained on 9x9)"
    assert "," in lines[-1]
    # Before START as well: the board waits for a rule it plays.
    early = brain_session(models, [f"INFO rule {rule}", "START 15", "BEGIN", "INFO rule 0", "BEGIN"])
    assert early[:4] == [
        error,
        error,
        error,
        "MESSAGE gomoku-13x13-free.pt plays gomoku:15x15:k5:freestyle (size-free, trained on 13x13)",
    ]
    assert "," in early[-1]


def test_the_brain_refuses_swap_openings(models):
    lines = brain_session(models, ["START 15", "SWAP2BOARD", "DONE"])
    assert lines[2] == f"ERROR swap openings (SWAP2BOARD) are not supported: {PLAYS}"


def test_the_renju_brain_never_plays_a_forbidden_move(models):
    """Black to move (the brain), white's four on the diagonal wins at 8,8 only, and 8,8 is
    black's double three: the block that every search would want is not a move."""
    black = ["3,3", "8,6", "8,7", "6,8", "7,8", "0,14"]  # x,y: 8,8 makes two open threes
    white = ["4,4", "5,5", "6,6", "7,7", "14,0", "14,14"]
    board = [f"{p},1" for p in black] + [f"{p},2" for p in white]
    for sources in ([models], []):  # a stand-in net, and pure MCTS
        out = io.StringIO()
        commands = ["START 15", "INFO rule 4", "BOARD", *board, "DONE", "END"]
        run_brain(None, 4, 30, io.StringIO("\n".join(commands) + "\n"), out, sources)
        reply = out.getvalue().splitlines()[-1]
        assert "," in reply and reply != "8,8"


def test_the_renju_brain_refuses_the_opponent_s_forbidden_move():
    """The brain plays white; black's 8,8 would be a double three: TURN 8,8 is an error that
    names the reason, and the game goes on from the position before it."""
    from pipeline.players.factory import protocol_player
    from pipeline.serve.brain import Brain

    out = io.StringIO()
    brain = Brain(lambda spec: (protocol_player(spec, None, playouts=30), ""), out)
    black = ["8,6", "8,7", "6,8", "7,8", "0,14"]
    white = ["0,0", "14,0", "14,14", "0,7"]
    lines = iter([*(f"{p},2" for p in black), *(f"{p},1" for p in white), "DONE"])
    for command in ["START 15", "INFO rule 4", "BOARD"]:
        brain.handle(command, lines)
    assert out.getvalue().splitlines()[-1] != "8,8"  # white's own reply went elsewhere
    brain.handle("TURN 8,8", iter([]))
    assert out.getvalue().splitlines()[-1] == "ERROR move i7 is illegal: forbidden to black: double three"
    assert brain.state is not None and brain.state.ply == 10


def htp_session(models, commands, model=None, size=5, swap=False):
    out, err = io.StringIO(), io.StringIO()
    explicit = model and models / f"{model}.pt"
    stdin = io.StringIO("\n".join([*commands, "quit"]) + "\n")
    run_htp(explicit, size, swap, 4, 30, stdin, out, err, [models])
    replies = [block for block in out.getvalue().split("\n\n") if block]
    return replies, err.getvalue().splitlines()


def test_htp_boardsize_picks_the_model_again(models):
    replies, notes = htp_session(models, ["genmove b", "boardsize 7", "genmove b", "boardsize 5", "boardsize 20"])
    assert replies[0].startswith("= ") and replies[1:2] == ["="] and replies[2].startswith("= ")
    assert replies[3] == "=" and replies[4].startswith("? unacceptable size: hex board must be square, 2..19")
    assert notes == [
        "hex-5x5.pt plays hex:5x5",
        "hex-5x5-swap.pt plays hex:7x7 (size-free, trained on 5x5; trained with the swap rule, playing without it)",
        "hex-5x5.pt plays hex:5x5",
    ]
    _, swap = htp_session(models, ["boardsize 11"], size=7, swap=True)
    assert swap == [
        "hex-5x5-swap.pt plays hex:7x7:swap (size-free, trained on 5x5)",
        "hex-5x5-swap.pt plays hex:11x11:swap (size-free, trained on 5x5)",
    ]


def test_htp_with_a_model_that_cannot_play_the_board(models):
    replies, notes = htp_session(
        models, ["genmove b", "boardsize 7", "showboard", "boardsize 5", "genmove b"], model="hex-5x5", size=11
    )
    why = "hex-5x5.pt cannot play hex:11x11: a fixed-size net, it plays only hex:5x5"
    assert notes == [f"no bot for hex:11x11: {why}", "hex-5x5.pt plays hex:5x5"]
    assert replies[0] == f"? {why}"
    assert replies[1].startswith("? unacceptable size: hex-5x5.pt cannot play hex:7x7")
    assert " k" in replies[2]  # the 11x11 board stays
    assert replies[3] == "=" and replies[4].startswith("= ")


def test_htp_with_a_model_of_the_other_swap_rule_says_which_rule_and_how_to_start(models):
    # A net trained with the swap rule plays without it (its swap reply is never asked for).
    replies, notes = htp_session(models, ["genmove b", "boardsize 7", "genmove b"], model="hex-5x5-swap", size=5)
    assert replies[0].startswith("= ") and replies[1] == "=" and replies[2].startswith("= ")
    assert notes[0] == "hex-5x5-swap.pt plays hex:5x5 (trained with the swap rule, playing without it)"
    # The size is one the model plays; the rule is not: the answer says so, not "unacceptable size".
    replies, _ = htp_session(models, ["boardsize 5", "genmove b"], model="hex-5x5", size=5, swap=True)
    assert replies[0] == "? hex-5x5.pt was trained without the swap rule: start `zero htp` without --swap to play it"
    # A size the model cannot play under either rule is still an unacceptable size.
    replies, _ = htp_session(models, ["boardsize 7"], model="hex-5x5", size=5, swap=True)
    assert replies[0].startswith("? unacceptable size: hex-5x5.pt cannot play hex:7x7:swap")
    # With the rule it was trained with, it plays.
    replies, _ = htp_session(models, ["boardsize 7", "genmove b"], model="hex-5x5-swap", size=5, swap=True)
    assert replies[0] == "=" and replies[1].startswith("= ")


def test_zero_brain_help_names_every_rule_it_plays():
    from typer.testing import CliRunner

    from pipeline.cli import app

    result = CliRunner().invoke(app, ["brain", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.replace("│", " ").split())
    assert brain_module.PLAYS == "0 freestyle, 1 exact five, 4 renju"
    assert f"INFO rule {brain_module.PLAYS}" in text, text


def test_without_a_simulation_cap_the_brain_thinks_for_its_share_of_the_clock(models):
    """`zero brain` with no --simulations: the net searches until its share of the turn's
    time is spent (0.7 x 1 s - 0.05), however many simulations that is, and says how many;
    with a cap it stops there, well before."""
    commands = ["START 15", "INFO timeout_turn 1000", "BEGIN", "END"]

    def message(simulations):
        out = io.StringIO()
        run_brain(None, simulations, 30, io.StringIO("\n".join(commands) + "\n"), out, [models])
        line = next(m for m in out.getvalue().splitlines() if "simulations in" in m)
        found = re.search(r"(\d+) simulations in ([\d.]+)s", line)
        return int(found[1]), float(found[2])

    sims, seconds = message(None)
    assert seconds >= 0.6 and sims > 4
    capped, capped_seconds = message(4)
    assert capped == 4 and capped_seconds < seconds
