"""The classical ladder of the evaluate stage: params name the depths (Gomoku and Connect6
only), the candidate climbs them until it scores below 0.5, its games go to the games
table under `classical:N`, the report shows the deepest depth beaten, and the gate stays
with pure MCTS."""

import copy
import shutil
from types import SimpleNamespace

import pytest
import yaml

from pipeline.config import ParamsError, load_params
from pipeline.games.base import GameSpec
from pipeline.match.games_table import read_games
from pipeline.players.classical import ClassicalPlayer
from pipeline.players.search import RandomPlayer
from pipeline.runtime.workspace import Paths, read_json
from pipeline.stages import evaluate
from pipeline.stages.engine_ladder import play_classical
from pipeline.stages.init import run_init
from pipeline.stages.interface import StageContext
from pipeline.stages.promote import decide, history_entry
from pipeline.stages.report import strength_lines
from tests.conftest import TINY_PARAMS

pytestmark = pytest.mark.unit

GOMOKU = GameSpec.parse("gomoku:9")


def test_params_name_rising_depths_for_the_k_in_a_row_games():
    assert load_params(None).evaluate.classical_ladder is None
    assert load_params(None, {"evaluate.classical_ladder": []}).evaluate.classical_ladder is None
    assert load_params(None, {"evaluate.classical_ladder": [1, 3]}).evaluate.classical_ladder == [1, 3]
    for bad in ([2, 1], [0, 1], [1, 13]):
        with pytest.raises(ParamsError, match="classical_ladder must be rising depths in 1..12"):
            load_params(None, {"evaluate.classical_ladder": bad})
    hex_game = {"game": {"game": "hex", "height": 7, "width": 7}}
    with pytest.raises(ParamsError, match="evaluate.classical_ladder: classical players play .* not hex"):
        load_params(None, {**hex_game, "evaluate.classical_ladder": [1]})


def test_the_climb_goes_on_while_the_candidate_scores_half_or_more():
    candidate = ClassicalPlayer(3)
    candidate.name = "candidate"
    said = []
    # Stand-ins that move at random for depths 1 and 2: the candidate beats both.
    played, summary = play_classical(GOMOKU, candidate, [1, 2], 4, 0, 2, said.append, lambda d: RandomPlayer())
    assert sorted(played) == [1, 2] and all(len(records) == 4 for records in played.values())
    assert list(summary["matches"]) == ["classical:1", "classical:2"]
    assert summary["matches"]["classical:2"]["opponent"] == "classical:2"
    assert summary["deepest_beaten"] == 2
    assert said == ["candidate vs classical:1: 4 games, score 1.00", "candidate vs classical:2: 4 games, score 1.00"]


def test_the_climb_stops_at_the_first_depth_it_loses_to():
    played, summary = play_classical(GOMOKU, RandomPlayer(), [1, 2, 3], 4, 0, 2, lambda _: None)
    assert list(played) == [1] and summary["matches"]["classical:1"]["score"] < 0.5
    assert summary["deepest_beaten"] is None


def evaluation_workspace(root, **evaluate) -> tuple:
    """A 7x7 workspace ready for the evaluate stage (its candidate the start net), the gate
    cut to a two-game pure-MCTS test and `evaluate` set on top: (params, paths)."""
    params = copy.deepcopy(TINY_PARAMS)
    params["game"] = {"game": "gomoku", "height": 7, "width": 7, "k": 4}
    params["evaluate"].update(vs_champion=None, vs_pure={"max_games": 2}, ladder=[20, 40], **evaluate)
    (root / "params.yaml").write_text(yaml.safe_dump(params))
    paths = Paths(root)
    loaded = load_params(paths.params)
    run_init(loaded, paths)
    shutil.copyfile(paths.champion, paths.candidate)
    return loaded, paths


@pytest.fixture
def workspace(tmp_path):
    return evaluation_workspace(tmp_path, classical_ladder=[1, 2], classical_games=2)


def test_the_evaluate_stage_climbs_the_ladder_beside_the_gate(workspace):
    params, paths = workspace
    said = []
    report = evaluate.run(StageContext.create(params, paths, log=said.append))
    ladder = report.classical
    assert ladder is not None and next(iter(ladder.matches)) == "classical:1"
    # It climbed while it scored half or more; the deepest depth beaten says where it stopped.
    scores = [m.score for m in ladder.matches.values()]
    assert all(s >= 0.5 for s in scores[:-1]) and (len(scores) == 2 or scores[-1] < 0.5)
    climbed = [1, 2][: len(scores)]
    expected = climbed[-1] if scores[-1] >= 0.5 else (climbed[-2] if len(climbed) > 1 else None)
    assert ladder.deepest_beaten == expected
    assert any(line.startswith("candidate vs classical:1: 2 games, score ") for line in said)
    # Its games are in the table under the classical player's name, rated with the rest.
    rows = [r for r in read_games(paths.games_table) if r["match"] == "vs_classical"]
    assert sorted({r["opponent"] for r in rows}) == sorted(ladder.matches)
    assert len(rows) == 2 * len(ladder.matches) and {r["player"] for r in rows} == {"gen-0001"}
    # The headline figure fits `dvc metrics show`'s columns; the details have the matches.
    assert read_json(paths.report("classical.json")) == {"beaten": ladder.deepest_beaten or 0}
    assert list(read_json(paths.report("details/evaluation.json"))["classical"]["matches"]) == list(ladder.matches)
    # The gate is pure MCTS alone.
    assert [key for key, *_ in report.gate()] == ["vs_pure"]
    assert decide(report) == decide(report.model_copy(update={"classical": None}))
    # Promote keeps the depth in the history; the report's strength table shows it.
    entry = promoted_entry(report)
    assert entry["classical_beaten"] == (ladder.deepest_beaten or 0)
    table = strength_lines(params, [entry], {})
    assert table[-3].endswith(" classical depth beaten |") and table[-1].endswith(f" {entry['classical_beaten']} |")


def promoted_entry(report) -> dict:
    """The history entry promote writes for a generation evaluated as `report` (the rest of
    its stages' figures made up)."""
    p = SimpleNamespace(
        evaluation=report,
        train=SimpleNamespace(run_id="r", final_loss=1.0, final_policy_entropy=1.0, seconds=1.0),
        selfplay=SimpleNamespace(positions=10, seconds=1.0),
        state=SimpleNamespace(games_played=8),
        generation=1,
        ladder_before=20,
        passed=False,
        digest="x",
    )
    return history_entry(p, None)


def test_without_the_ladder_nothing_changes_but_a_skipped_headline(workspace):
    params, paths = workspace
    params = params.model_copy(update={"evaluate": params.evaluate.model_copy(update={"classical_ladder": None})})
    report = evaluate.run(StageContext.create(params, paths, log=lambda _: None))
    assert report.classical is None and "classical" not in read_json(paths.report("details/evaluation.json"))
    assert read_json(paths.report("classical.json")) == {"decision": "skipped"}
    assert not [r for r in read_games(paths.games_table) if r["match"] == "vs_classical"]
    entry = promoted_entry(report)
    assert "classical_beaten" not in entry
    assert "classical" not in "\n".join(strength_lines(params, [entry], {}))
