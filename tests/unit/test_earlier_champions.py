"""The gate against the run's own earlier champions (`evaluate.vs_earlier`, issues 78 and
80): promote keeps the champion it replaces and the new one under models/earlier/, the
newest `back + 1`; evaluate plays the oldest kept before the current champion ("clearly
stronger?") as part of the gate; a resumed run gets them back from its `champions/`."""

import shutil
from types import SimpleNamespace

import pytest

from pipeline.config import ParamsError, load_params
from pipeline.match.games_table import read_games
from pipeline.match.sprt import SPRT, VsChampionTest, VsEarlierTest
from pipeline.nets.checkpoint import file_hash
from pipeline.orchestration.runs import RunFolder, seed_earlier
from pipeline.runtime import earlier_champions
from pipeline.runtime.workspace import Paths, State, load_state, save_state
from pipeline.stages import evaluate
from pipeline.stages.interface import SPRTReport, StageContext, question
from pipeline.stages.promote import crown, decide
from pipeline.stages.report import strength_lines
from tests.unit.test_classical_ladder import evaluation_workspace, promoted_entry

pytestmark = pytest.mark.unit


def gens(directory) -> list[int]:
    return [g for g, _ in earlier_champions.kept(directory)]


def test_params_turn_it_on_with_how_many_promotions_back():
    assert load_params(None).evaluate.vs_earlier is None
    test = load_params(None, {"evaluate.vs_earlier": {"back": 3}}).evaluate.vs_earlier
    assert (test.back, test.p0, test.p1, test.max_games) == (3, 0.5, 0.65, 40)
    with pytest.raises(ParamsError, match="back"):
        load_params(None, {"evaluate.vs_earlier": {"back": 0}})
    with pytest.raises(ParamsError, match="p0 .* must be below p1"):
        load_params(None, {"evaluate.vs_earlier": {"p0": 0.7, "p1": 0.6}})


def test_keep_holds_the_newest_back_plus_one_and_the_opponent_is_the_oldest_before_the_champion(tmp_path):
    paths = Paths(tmp_path)
    source = tmp_path / "net.pt"
    for generation in (0, 3, 5, 9):
        source.write_bytes(f"net {generation}".encode())
        earlier_champions.keep(paths, generation, source, back=2)
    assert gens(paths.earlier) == [3, 5, 9]  # two promotions back from 9, and 9
    assert earlier_champions.opponent(paths, 9) == (3, paths.earlier / "gen-0003.pt")
    assert (paths.earlier / "gen-0003.pt").read_bytes() == b"net 3"
    # Kept once: a rerun's copy of another file under the same generation changes nothing.
    source.write_bytes(b"other")
    earlier_champions.keep(paths, 9, source, back=2)
    assert (paths.earlier / "gen-0009.pt").read_bytes() == b"net 9"
    # Only champions older than the current one are opponents; none kept, none played.
    assert earlier_champions.opponent(paths, 3) is None
    assert earlier_champions.opponent(Paths(tmp_path / "empty"), 9) is None


def make_run(tmp_path, champions: list[int], champion_generation: int) -> tuple[RunFolder, Paths]:
    run = RunFolder(tmp_path / "run")
    run.champions.mkdir(parents=True)
    for generation in champions:
        (run.champions / earlier_champions.file_name(generation)).write_bytes(f"champion {generation}".encode())
    (run.path / "init.pt").write_bytes(b"init")
    paths = run.workspace
    paths.models.mkdir(parents=True)
    save_state(paths, State(champion_generation=champion_generation))
    return run, paths


def test_a_resumed_run_gets_its_earlier_champions_from_the_run_folder(tmp_path):
    run, paths = make_run(tmp_path, [2, 5, 7], champion_generation=5)
    assert seed_earlier(run, paths, back=3) == 3  # init.pt is generation 0; 7 is not yet the champion
    assert gens(paths.earlier) == [0, 2, 5]
    assert (paths.earlier / "gen-0000.pt").read_bytes() == b"init"
    assert earlier_champions.opponent(paths, 5) == (0, paths.earlier / "gen-0000.pt")
    # A workspace that has some already is this machine's own: left as it is.
    assert seed_earlier(run, paths, back=1) == 0 and gens(paths.earlier) == [0, 2, 5]
    shutil.rmtree(paths.earlier)
    assert seed_earlier(run, paths, back=1) == 2 and gens(paths.earlier) == [2, 5]


def test_promote_keeps_the_champion_it_replaces_and_the_new_one(tmp_path):
    params = load_params(None, {"evaluate.vs_earlier": {"back": 1}, "promote.register_model": False})
    paths = Paths(tmp_path)
    paths.models.mkdir()
    paths.champion.write_bytes(b"generation 0")

    def promote(generation: int, champion_generation: int) -> None:
        paths.candidate.write_bytes(f"generation {generation}".encode())
        p = SimpleNamespace(
            passed=True,
            digest=file_hash(paths.candidate),
            generation=generation,
            state=SimpleNamespace(champion_generation=champion_generation),
        )
        crown(SimpleNamespace(paths=paths, params=params), p, lambda step: None)

    promote(2, 0)
    assert gens(paths.earlier) == [0, 2] and (paths.earlier / "gen-0000.pt").read_bytes() == b"generation 0"
    promote(2, 0)  # a promote killed after the champion was replaced, rerun: the same two
    assert gens(paths.earlier) == [0, 2] and (paths.earlier / "gen-0000.pt").read_bytes() == b"generation 0"
    promote(4, 2)
    assert gens(paths.earlier) == [2, 4] and paths.champion.read_bytes() == b"generation 4"


def test_without_the_option_promote_keeps_nothing(tmp_path):
    params = load_params(None, {"promote.register_model": False})
    paths = Paths(tmp_path)
    paths.models.mkdir()
    paths.champion.write_bytes(b"old")
    paths.candidate.write_bytes(b"new")
    p = SimpleNamespace(passed=True, digest=file_hash(paths.candidate), generation=1, state=SimpleNamespace())
    crown(SimpleNamespace(paths=paths, params=params), p, lambda step: None)
    assert paths.champion.read_bytes() == b"new" and not paths.earlier.exists()


@pytest.fixture
def workspace(tmp_path):
    return evaluation_workspace(tmp_path, vs_earlier={"back": 2, "max_games": 4})


def test_the_gate_plays_the_earlier_champion_once_one_is_kept(workspace):
    params, paths = workspace
    said = []
    report = evaluate.run(StageContext.create(params, paths, log=said.append))
    assert report.vs_earlier is None and [key for key, *_ in report.gate()] == ["vs_pure"]
    assert "no earlier champion kept yet (models/earlier/): the gate plays none" in said

    earlier_champions.keep(paths, 1, paths.champion, back=2)
    state = load_state(paths)
    state.champion_generation = 3
    save_state(paths, state)
    said.clear()
    report = evaluate.run(StageContext.create(params, paths, log=said.append))
    assert report.earlier_generation == 1 and report.vs_earlier is not None
    assert report.vs_earlier.sprt.games == 4  # the same net on both sides: no decision before the limit
    gate = report.gate()
    assert [key for key, *_ in gate] == ["vs_pure", "vs_earlier"]
    assert gate[1][1:3] == ("earlier champion (generation 1)", "clearly stronger")
    assert any(line.startswith("candidate vs earlier champion (generation 1): 4 games") for line in said)
    # Its verdict is part of promotion's.
    passed, reasons = decide(report)
    assert passed == (report.vs_pure.sprt.accepted and report.vs_earlier.sprt.accepted)
    assert reasons[1].startswith("vs earlier champion (generation 1): clearly stronger? ")
    # Its games are in the table under that generation's name.
    rows = [r for r in read_games(paths.games_table) if r["match"] == "vs_earlier"]
    assert len(rows) == 4 and {r["opponent"] for r in rows} == {"gen-0001"}
    # The history and the report's table carry its score.
    entry = promoted_entry(report)
    assert entry["vs_earlier_score"] == report.vs_earlier.score and entry["vs_earlier_generation"] == 1
    table = strength_lines(params, [entry], {})
    assert table[-3].endswith(" score vs earlier champion |")
    assert table[-1].endswith(f" {report.vs_earlier.score:.2f} (1) |")


def test_the_gate_says_what_each_test_asks_from_its_own_hypotheses():
    """The champion test set to "clearly stronger" (p0 0.5, as the Hex 11x11 run from its
    stretch 21) is reported as that, not as the default's "not weaker"."""

    def asks(config) -> str:
        return question(SPRTReport(**SPRT(config).summary()))

    assert asks(VsChampionTest()) == "not weaker"
    assert asks(VsChampionTest(p0=0.5, p1=0.65, max_games=40)) == "clearly stronger"
    assert asks(VsEarlierTest()) == "clearly stronger"
