"""`zero evaluate`'s match (pipeline.match.evaluation): a checkpoint against a named
opponent, its score with interval, and the board a size-free net may change."""

import re
from pathlib import Path

import pytest

from pipeline.games.base import GameSpec
from pipeline.match.arena import GameRecord, first_proof, play_lockstep, result_of
from pipeline.match.evaluation import Evaluation, model_spec
from pipeline.players.base import ProvenWin
from pipeline.players.factory import make_player
from pipeline.players.search import RandomPlayer
from pipeline.search.mcts import SearchConfig

pytestmark = pytest.mark.unit

MODEL = Path(__file__).resolve().parents[2] / "models" / "pretrained" / "gomoku-8x8.pt"


def test_an_evaluation_plays_scores_and_describes_its_match():
    evaluation = Evaluation.setup(MODEL, "random", simulations=8)
    result = evaluation.play(games=2, seed=0, opening_plies=1)
    assert result.games == 2 and result.wins + result.losses + result.draws == 2
    record = evaluation.as_dict()
    assert record["game"] == "gomoku:8x8:k5:freestyle" and record["simulations"] == 8
    assert record["player"] == "gomoku-8x8" and record["forfeits"] == [] and len(record["interval_95"]) == 2
    line = evaluation.describe("random")
    assert line.startswith("gomoku-8x8 vs random on gomoku:8x8:k5:freestyle: ") and "95%; Elo " in line
    assert record["distinct_games"] == 2 and "distinct games" not in line


def test_a_match_that_repeats_its_games_says_how_many_differ(tmp_path):
    """Two noise-free nets replay a suite opening move for move each time it comes round with
    the same colours: 8 games from 2 openings are 4 distinct games."""
    suite = tmp_path / "two-openings.txt"
    suite.write_text("d4 e5\nc3 f6\n")
    evaluation = Evaluation.setup(MODEL, str(MODEL), simulations=8)
    evaluation.play(games=8, seed=0, openings=str(suite))
    assert evaluation.as_dict()["distinct_games"] == 4
    assert "; 4 distinct games (the others repeat one move for move)" in evaluation.describe("itself")


def test_a_fixed_size_net_keeps_its_board():
    assert str(model_spec(MODEL)) == "gomoku:8x8:k5:freestyle"
    with pytest.raises(ValueError, match="fixed-size net"):
        Evaluation.setup(MODEL, "random", simulations=8, board="9")


def test_an_evaluation_tells_which_games_the_solver_decided():
    """Against random moves the model's tree proves each of its wins before it plays it;
    the first proof of every game is told, the description lists the first three."""
    evaluation = Evaluation.setup(MODEL, "random", simulations=16)
    result = evaluation.play(games=4, seed=0, opening_plies=1)
    assert result.wins == 4 and result.proven == 4 and result.proven_against == 0
    pattern = r"game (\d): gomoku-8x8 \((black|white)\) found VCF in \d+ at move (\d+)"
    for index, line in enumerate(result.proofs):
        match = re.fullmatch(pattern, line)
        assert match, line
        assert int(match[1]) == index + 1 and match[2] == ("black" if index % 2 == 0 else "white")
        assert int(match[3]) <= result.lengths[index]  # proved before the game ended
    lines = evaluation.describe("random").splitlines()
    assert lines[1] == "solver-proven wins in 4 of 4 games (gomoku-8x8 4, random 0):"
    assert lines[2:5] == [f"  {p}" for p in result.proofs[:3]]
    assert lines[5] == "  ... and 1 more (--json lists them all)"
    assert evaluation.as_dict()["proofs"] == result.proofs


def test_without_tactics_no_game_is_told_as_proven():
    spec = model_spec(MODEL)
    quiet = make_player(str(MODEL), spec, SearchConfig(simulations=16, tactics="off"))
    evaluation = Evaluation(spec, quiet, make_player("random", spec), 16)
    result = evaluation.play(games=2, seed=0, opening_plies=1)
    assert result.wins == 2 and result.proofs == [] and len(evaluation.describe("random").splitlines()) == 1


@pytest.mark.parametrize("tactics", ["off", "vct"])
def test_the_tactics_option_reaches_the_models_search(tactics):
    evaluation = Evaluation.setup(MODEL, "pure:50", simulations=16, tactics=tactics)
    assert evaluation.player.config.tactics == tactics
    result = evaluation.play(games=2, seed=0, opening_plies=1)
    assert result.games == 2
    if tactics == "off":
        assert result.proofs == []  # nothing proved without solvers


def test_a_net_meets_itself_with_other_solvers():
    """`--vs-tactics`: the opponent's threat solvers alone, the names telling the two apart."""
    evaluation = Evaluation.setup(MODEL, str(MODEL), simulations=8, tactics="vct", vs_tactics="vcf")
    assert evaluation.player.config.tactics == "vct" and evaluation.opponent.config.tactics == "vcf"
    assert (evaluation.player.name, evaluation.opponent.name) == ("gomoku-8x8+vct", "gomoku-8x8+vcf")
    assert evaluation.play(games=2, seed=0, opening_plies=1).games == 2


def test_a_net_meets_itself_on_two_forward_passes():
    """`--vs-inference`: the opponent's forward pass alone (here eager torch against ONNX
    Runtime), the names telling the two apart and the JSON saying what each side ran; a
    player that runs no net has none."""
    evaluation = Evaluation.setup(MODEL, str(MODEL), simulations=8, inference="torch", vs_inference="onnxruntime")
    assert (evaluation.player.name, evaluation.opponent.name) == ("gomoku-8x8+torch", "gomoku-8x8+onnxruntime")
    evaluation.play(games=2, seed=0, opening_plies=1)
    assert evaluation.as_dict()["forward_pass"] == {"player": "torch/cpu/f32", "opponent": "onnxruntime/cpu/f32"}
    against_random = Evaluation.setup(MODEL, "random", simulations=8, inference="onnxruntime")
    against_random.play(games=2, seed=0, opening_plies=1)
    assert against_random.as_dict()["forward_pass"] == {"player": "onnxruntime/cpu/f32", "opponent": None}


def test_a_game_record_carries_the_first_proof_of_either_side():
    """From black's open three (VCF in 2), the player as black proves it at move 7; as
    white (game 1) the random black side proves nothing."""
    spec = GameSpec.parse("gomoku:15")
    net = make_player(str(MODEL.parent / "gomoku-15x15.pt"), spec, SearchConfig(simulations=16), name="net")
    opening = [spec.parse_action(m) for m in ["h7", "a1", "h8", "a4", "h9", "a7"]]
    records = play_lockstep(spec, net, make_player("random", spec), [opening], seed=0)
    assert records[0].proof == "net (black) found VCF in 2 at move 7" and records[0].proof_by_player
    assert records[0].score == 1.0
    assert not records[1].proof or records[1].proof.startswith("net (white)")


class Proving:
    """A player that only says what its solver proved (the arena asks nothing else here)."""

    def __init__(self, name, proven):
        self.name, self.proven = name, proven


def test_the_earlier_proof_is_the_games_and_counts_for_its_side():
    mine = Proving("a", {0: ProvenWin(20, "black", "VCF", 3), 1: ProvenWin(9, "white", "VCT", 4)})
    theirs = Proving("b", {0: ProvenWin(15, "white", "VCF", 5)})
    assert first_proof(0, mine, theirs) == ("b (white) found VCF in 5 at move 16", False)
    assert first_proof(1, mine, theirs) == ("a (white) found VCT in 4 at move 10", True)
    assert first_proof(2, mine, theirs) == ("", None)
    assert first_proof(0, RandomPlayer(), RandomPlayer()) == ("", None)  # players without a solver
    records = [
        GameRecord(0, 0, True, 0.0, 30, [], proof="b (white) found VCF in 5 at move 16", proof_by_player=False),
        GameRecord(1, 0, False, 1.0, 12, [], proof="a (white) found VCT in 4 at move 10", proof_by_player=True),
        GameRecord(2, 1, True, 1.0, 40, []),
    ]
    result = result_of("a", "b", records)
    assert (result.proven, result.proven_against) == (1, 1)
    assert result.proofs == [
        "game 1: b (white) found VCF in 5 at move 16",
        "game 2: a (white) found VCT in 4 at move 10",
    ]


def test_a_stop_ends_a_lockstep_match_between_moves():
    """`should_stop` is asked before each side's moves; once it says so the match raises
    `Interrupted` there, and no player is asked for another move."""
    from pipeline.runtime.interrupt import Interrupted

    spec = GameSpec(game="gomoku", height=5, width=5, k=4)

    class Counting(RandomPlayer):
        calls = 0

        def choose(self, games, states):
            Counting.calls += 1
            return super().choose(games, states)

    asked = []

    def stop_after_four() -> bool:
        asked.append(Counting.calls)
        return len(asked) > 4

    with pytest.raises(Interrupted):
        play_lockstep(spec, Counting(), Counting(), [[], []], seed=0, should_stop=stop_after_four)
    assert Counting.calls == 4  # two moves each, then the stop: no fifth search begun
    assert asked == [0, 1, 2, 3, 4]


def test_zero_evaluate_takes_each_sides_forward_pass_and_refuses_an_unknown_one():
    import json

    from typer.testing import CliRunner

    from pipeline.cli import app

    base = ["evaluate", "--model", str(MODEL), "--vs", str(MODEL), "--games", "2", "--simulations", "4"]
    result = CliRunner().invoke(
        app, [*base, "--opening-plies", "1", "--inference", "torch", "--vs-inference", "onnxruntime", "--json"]
    )
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout.strip().splitlines()[-1])
    assert record["forward_pass"] == {"player": "torch/cpu/f32", "opponent": "onnxruntime/cpu/f32"}
    wrong = CliRunner().invoke(app, [*base, "--inference", "tensorrt"])
    assert wrong.exit_code == 2 and "tensorrt" in wrong.output and "Traceback" not in wrong.output
