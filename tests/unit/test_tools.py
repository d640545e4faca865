"""The measurement tools of `pipeline.tools`: each listed in the package's index with the
command of its figure, each answering `--help`, and each run on tiny arguments (small
boards, a game or two, a handful of simulations) with the shape of what it prints checked:
the lines and fields its RESULTS.md figure is read from, not only the exit status."""

from __future__ import annotations

import fcntl
import importlib
import json
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest

from pipeline import tools

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
PRETRAINED = REPO / "models" / "pretrained"
GOMOKU_8 = str(PRETRAINED / "gomoku-8x8.pt")
HEX_8 = str(PRETRAINED / "hex-8x8.pt")  # size-free, no swap: plays hex:4 and hex:5
NUMBER = r"[+-]?[\d,]+(?:\.\d+)?"


@pytest.fixture(autouse=True)
def torch_threads():
    """The tools set torch to one thread, as their figures were measured; the tests after
    these get the session's setting back."""
    import torch

    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def run(capsys, tool: str, *argv: str):
    """`python -m pipeline.tools.TOOL ARGV...` in this process: (its return value, stdout)."""
    module = importlib.import_module(f"pipeline.tools.{tool}")
    result = module.main(list(argv))
    return result, capsys.readouterr().out


def lines_matching(out: str, pattern: str) -> list[re.Match]:
    return [m for m in (re.fullmatch(pattern, line.strip()) for line in out.splitlines()) if m]


# -- the index ---------------------------------------------------------------------------


def test_the_index_lists_every_tool_with_its_command():
    modules = {m.name for m in pkgutil.iter_modules(tools.__path__) if not m.name.startswith("_")}
    assert modules == set(tools.TOOLS)
    for name in tools.TOOLS:
        assert f"`{name}`" in tools.__doc__, f"{name} is missing from the index"
        assert f"python -m pipeline.tools.{name}" in tools.__doc__, f"the index gives no command for {name}"
        module = importlib.import_module(f"pipeline.tools.{name}")
        assert f"python -m pipeline.tools.{name}" in module.__doc__, f"{name}'s docstring has no usage line"
        assert "RESULTS.md" in module.__doc__, f"{name}'s docstring does not name the figure it backs"
    here = Path(__file__).read_text()
    untested = [name for name in tools.TOOLS if f'"{name}"' not in here]
    assert not untested, f"tools without a test here: {untested}"


def test_python_m_pipeline_tools_prints_the_index(capsys):
    import runpy

    runpy.run_module("pipeline.tools", run_name="__main__")
    out = capsys.readouterr().out
    assert all(f"python -m pipeline.tools.{name}" in out for name in tools.TOOLS)


@pytest.mark.parametrize("name", tools.TOOLS)
def test_every_tool_answers_help(capsys, name):
    with pytest.raises(SystemExit) as exit_:
        run(capsys, name, "--help")
    assert exit_.value.code == 0
    assert "usage:" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("tactics_rate", ["selfplay", "--modes", "off,fast"]),
        ("tactics_rate", ["search", "--modes", "vcf:many"]),
        ("hex_tactics_strength", ["selfplay", "--modes", "off,bridges"]),
        ("bench_tactics", ["--random", "0"]),
        ("renju_reference", ["--near", "2"]),
        ("compare_runs", ["/nonexistent/run"]),
        ("hex_root_solver_cost", ["--model", "/nonexistent.pt", "--solver-nodes", "0"]),
    ],
)
def test_bad_arguments_are_refused_before_any_work(capsys, name, argv):
    with pytest.raises(SystemExit) as exit_:
        run(capsys, name, *argv)
    assert exit_.value.code == 2
    assert "error:" in capsys.readouterr().err


# -- the k-in-a-row games ----------------------------------------------------------------


def test_bench_tactics(capsys):
    _, out = run(capsys, "bench_tactics", "--repeats", "1", "--random", "2", "--budget", "2000")
    (vcf,) = lines_matching(out, r"VCF suite: (\d+)/(\d+) solved within 20 ms; per call median .*")
    (vct,) = lines_matching(out, r"VCT suite: (\d+)/(\d+) solved; median .*")
    assert int(vcf[2]) > 0 and int(vct[2]) > int(vcf[2])  # VCT's positions include the VCF ones
    assert "no-VCF positions claimed as VCF: 0" in out
    random_sets = lines_matching(
        out, r"(\S+) random \d+-stone positions \((\d+)\), (VCF|VCT) budget 2000: .* nodes/s.*"
    )
    assert [(m[1], m[3]) for m in random_sets] == [
        ("gomoku:15", "VCF"),
        ("gomoku:15", "VCT"),
        ("gomoku:15x15:k5:exact", "VCF"),
        ("gomoku:15x15:k5:exact", "VCT"),
        ("connect6:19", "VCF"),
    ]


def test_classical_ladder(capsys, tmp_path):
    out_file = tmp_path / "rows.json"
    rows, out = run(
        capsys, "classical_ladder", "--spec", "gomoku:7", "--depths", "1", "--games", "2", "--json", str(out_file)
    )
    assert json.loads(out_file.read_text()) == rows
    (row,) = rows
    assert (row["player"], row["opponent"]) == ("classical:2", "classical:1")
    assert row["wins"] + row["losses"] + row["draws"] == 2
    assert set(row["s_per_move"]) == {"classical:2", "classical:1"}
    assert lines_matching(out, r"gomoku:7x7\S*: classical:2 vs classical:1: \d+-\d+-\d+ .*s/move.*")


def test_no_blunder(capsys):
    total, out = run(
        capsys,
        "no_blunder",
        *("--count", "2", "--spec", "gomoku:9", "--simulations", "16", "--budget", "500", "--check-budget", "2000"),
    )
    assert set(total) == {"vcf", "off"}
    blunders, unavoidable = total["vcf"]
    assert blunders == unavoidable  # the figure: with tactics, no avoidable blunder
    assert len(lines_matching(out, r"tactics (vcf|off): \d+ blunders of 2 \(\d+ in positions lost .*")) == 2
    assert lines_matching(out, r"all 2 positions: tactics vcf: \d+ blunders \(\d+ unavoidable\); tactics off: .*")


def test_c6_loss_audit(capsys, tmp_path):
    # Two of generation 46's games lost as white, as the full audit (to 200,000 nodes) reports
    # them: game 2's turn at ply 9 leaves black a VCF in 5 that 200 nodes see; in game 38 black
    # wins from the second stone of a turn whose first is quiet.
    match = json.loads((REPO / "reports/runs/connect6-19x19-defence/matches/gen-0046-vs-init-80.json").read_text())
    match["records"] = [r for r in match["records"] if r["game"] in (1, 2, 38)]
    path = tmp_path / "match.json"
    path.write_text(json.dumps(match))
    counts, out = run(capsys, "c6_loss_audit", str(path), "--budgets", "200", "2000")
    assert counts["games"] == 2  # game 1 was won
    assert lines_matching(
        out,
        r"game   2 \(lost as white, 29 plies\): the turn at ply 9 left a VCF in 5 \(seen at 200 nodes\); "
        r"before it, a VCF had the loser passed: yes; a turn that leaves none: none found",
    )
    assert lines_matching(out, r"game  38 \(lost as white, 29 plies\): .* from the winner's second stone \(ply 8\) .*")
    _, out = run(capsys, "c6_loss_audit", str(path), "--colour", "black")
    assert out.strip() == "gen-0046 lost no game as black"


def test_c6_no_blunder(capsys, tmp_path):
    suite = tmp_path / "defence.txt"
    run(capsys, "c6_no_blunder", *("--count", "3", "--write", str(suite)))
    lines = [line for line in suite.read_text().splitlines() if not line.startswith("#")]
    assert len(lines) == 3 and all(line.startswith("connect6:19 | ") for line in lines)
    total, out = run(capsys, "c6_no_blunder", *("--suite", str(suite), "--simulations", "16"))
    assert set(total) == {"vcf", "off"}
    assert (
        len(
            lines_matching(
                out,
                r"tactics (vcf|off): \d+ of 3 turns leave the opponent a VCF "
                r"\(\d+ within the root's \d+ nodes\); .* s a position",
            )
        )
        == 2
    )


def test_opening_prior(capsys):
    (prior, value), out = run(capsys, "opening_prior", GOMOKU_8, "gomoku:8")
    assert prior.shape == value.shape == (8, 8)
    assert prior.sum() == pytest.approx(1.0, abs=1e-4)
    assert lines_matching(out, rf".*on gomoku:8x8\S*: empty-board value {NUMBER}, prior entropy .*, argmax \(\d, \d\)")
    assert "prior (per mille):" in out and "value for black after its first move there:" in out


# One of `opening_prior --visits K`'s most visited first moves: row, column, visits, Q, prior.
RANKED_FIRST_MOVE = rf"\((\d), (\d)\): (\d+) visits, Q ({NUMBER}|[+-]?nan), prior (\d+) per mille"


def test_opening_prior_says_what_is_wrong_with_its_arguments(capsys):
    for args, said in [
        (("nope.pt", "gomoku:8"), "nope.pt: no such checkpoint"),
        ((GOMOKU_8, "hex:8"), "checkpoint is for gomoku"),
        ((GOMOKU_8, "bogus"), "game spec 'bogus'"),
    ]:
        with pytest.raises(SystemExit, match=f"error: .*{re.escape(said)}"):
            run(capsys, "opening_prior", *args)


def test_opening_prior_searched_first_moves(capsys):
    _, out = run(capsys, "opening_prior", GOMOKU_8, "gomoku:8", "--search", "1", "16", "--visits", "3")
    pattern = r"searched first move at (\d+) simulations: \((\d), (\d)\), (in|outside) the central 5x5"
    ranked = lines_matching(out, RANKED_FIRST_MOVE)
    assert len(ranked) == 6
    # The most visited move is the one played (no proven win from the empty 8x8 board).
    assert ranked[3].group(1, 2) == lines_matching(out, pattern)[1].group(2, 3)
    assert int(ranked[3][3]) >= int(ranked[4][3]) >= int(ranked[5][3])
    assert ranked[0][4] == "+nan"  # one simulation visits no child
    found = lines_matching(out, pattern)
    assert [m[1] for m in found] == ["1", "16"]
    # one simulation expands only the root: the move is the prior's argmax, printed above
    argmax = lines_matching(out, r".*argmax \((\d), (\d)\)")[0]
    assert found[0].group(2, 3) == argmax.group(1, 2)
    for m in found:
        centre = 1 <= int(m[2]) <= 5 and 1 <= int(m[3]) <= 5
        assert (m[4] == "in") == centre


def test_opening_prior_root_fpu_narrows_the_first_moves_searched(capsys):
    visited = {}
    for extra in ([], ["--root-fpu", "1.0"]):
        _, out = run(capsys, "opening_prior", GOMOKU_8, "gomoku:8", "--search", "32", "--visits", "64", *extra)
        ranked = lines_matching(out, RANKED_FIRST_MOVE)
        visited[bool(extra)] = sum(int(m[3]) > 0 for m in ranked)
    # Without a reduction an unvisited first move looks as good as the root, so the search
    # tries a dozen; valued a whole point below it, it stays on the prior's favourites.
    assert visited[False] >= 8 and visited[True] <= visited[False] / 2


def test_opening_outcomes(capsys):
    scores, out = run(
        capsys, "opening_outcomes", GOMOKU_8, "gomoku:8", "--cells", "d4", "a1", "--openings", "1", "--simulations", "8"
    )
    assert list(scores) == ["d4", "a1"] and all(0.0 <= s <= 1.0 for s in scores.values())
    found = lines_matching(out, rf"(\w+): black scores {NUMBER} over 2 games \(value head, for black after \w+: .*\)")
    assert [m[1] for m in found] == ["d4", "a1"]


def test_renju_reference(capsys):
    result, out = run(capsys, "renju_reference", "--games", "2", "--size", "9")
    assert result.games == 2 and result.disagreements == 0
    assert lines_matching(out, r"games 2  plies \d+  disagreements 0")
    assert "black's forbidden cells met" in out and "results: " in out


# -- search, self-play and the verdict's cost ---------------------------------------------


@pytest.fixture
def tiny_params(tmp_path) -> str:
    path = tmp_path / "params.yaml"
    path.write_text(
        "game: {game: gomoku, height: 8, width: 8, k: 5}\n"
        "selfplay: {parallel_games: 2, torch_threads: 1, search: {simulations: 8}}\n"
    )
    return str(path)


def test_tactics_rate(capsys):
    from pipeline.search import mcts

    expansion = mcts.expand_and_backup
    rates, out = run(
        capsys, "tactics_rate", "search", "--case", GOMOKU_8, "gomoku:8", "--simulations", "16", "--stones", "6"
    )
    assert set(rates) == {("gomoku:8", "off"), ("gomoku:8", "vcf")} and all(len(r) == 2 for r in rates.values())
    assert len(lines_matching(out, r"gomoku:8\s+tactics=(off|vcf)\s+\d+ simulations/s")) == 4
    rates, out = run(
        capsys, "tactics_rate", "selfplay", "--games", "2", "--simulations", "8", "--rounds", "1", "--split"
    )
    assert set(rates) == {("off", 200), ("vcf", 200)}
    assert len(lines_matching(out, r"round 0: tactics=(off|vcf) nodes=200 .* positions/s; network \d+%.*")) == 2
    assert lines_matching(out, rf"all rounds: off:200 {NUMBER} \(1\.00x\), vcf:200 {NUMBER} \({NUMBER}x\)")
    assert mcts.expand_and_backup is expansion  # --split's timing taken off again


def test_tactics_replay(capsys, tmp_path):
    from pipeline.search import mcts

    search = mcts.BatchedMCTS.search
    leaves = tmp_path / "leaves.npz"
    _, out = run(capsys, "tactics_replay", "collect", "--games", "1", "--simulations", "8", "--out", str(leaves))
    assert mcts.BatchedMCTS.search is search
    (collected,) = lines_matching(out, r"(\d+) leaves of 1 games \(gomoku:8\) -> .*")
    assert len(np.load(leaves)["states"]) == int(collected[1]) > 0
    digest, out = run(capsys, "tactics_replay", "replay", str(leaves), "--repeats", "1")
    assert re.fullmatch(r"[0-9a-f]{12}", digest)
    assert lines_matching(out, r"tactical_verdict: .* calls/s, .* us/call")
    assert lines_matching(out, rf"verdicts: WIN \d+, LOSS \d+, OPEN narrowed \d+, OPEN untouched \d+; digest {digest}")
    for part in ("vcf (mover):", "threat_defences:", "vcf (passed):", "refute + rest:"):
        assert part in out
    _, out = run(capsys, "tactics_replay", "replay", str(leaves), "--repeats", "1", "--limit", "10")
    assert ": 10 leaves, 64 cells, mode vcf" in out


def test_profile_selfplay(capsys, tiny_params):
    from pipeline.search import mcts

    kernels = (mcts.select_batch, mcts.expand_and_backup)
    _, out = run(capsys, "profile_selfplay", "--params", tiny_params, "--model", GOMOKU_8, "--games", "2")
    assert (mcts.select_batch, mcts.expand_and_backup) == kernels  # the timing wrappers taken off again
    assert lines_matching(out, rf"torch:f32: {NUMBER} s, {NUMBER} plies/s, {NUMBER} positions/s")
    shares = lines_matching(out, rf"(.+?)\s+{NUMBER} s\s+({NUMBER})%")
    assert {m[1] for m in shares} == {
        "network (evaluator)",
        "select leaves (compiled)",
        "expand + back up + tactics (compiled)",
        "Python orchestration (rest)",
    }
    assert sum(float(m[2]) for m in shares) == pytest.approx(100, abs=0.5)
    assert lines_matching(out, r"network: \d+ calls, \d+ positions, mean batch .* evaluations a ply")
    _, fresh = run(capsys, "profile_selfplay", "--params", tiny_params, "--model", GOMOKU_8, "--games", "2", "--fresh")
    assert lines_matching(fresh, rf"torch:f32: {NUMBER} s, {NUMBER} plies/s, {NUMBER} positions/s")


def test_overlap_selfplay(capsys, tiny_params):
    records, out = run(
        capsys,
        "overlap_selfplay",
        *("--params", tiny_params, "--model", GOMOKU_8, "--rounds", "1", "--moves", "2", "--json"),
    )
    assert json.loads(out) == records
    figures = {(r["position"], r["figure"]) for r in records}
    for side in ("off", "on"):
        for figure in ("selfplay_moves_per_s", "forward_bound_moves_per_s", "selfplay_over_forward_bound"):
            assert (f"1w torch:f32 overlap {side}", figure) in figures
    assert ("1w torch:f32 on/off", "overlap_speedup") in figures
    assert any(f == "forward_positions_per_s" for _, f in figures)


# -- Hex -----------------------------------------------------------------------------------


def test_hex_solved_book(capsys, tmp_path):
    """Every one-stone 3x3 position solved (white to move), written as a book: lost for white
    exactly where the opening table says black's first stone wins; a second run has nothing
    left to do."""
    out_path = tmp_path / "hex-3x3.json"
    book, out = run(
        capsys, "hex_solved_book", "--size", "3", "--stones", "1", "--nodes", "10000", "--out", str(out_path)
    )
    assert "5 openings of 1 stones to solve" in out  # 9 cells, one of each half-turn pair
    assert len(book.moves) + len(book.lost) == 5 and not book.unsettled
    table, _ = run(capsys, "hex_opening_table", "--size", "3", "--budget", "10000", "--log2-table", "12")
    winning = {a for a in range(9) if table.flat[a] == 1}
    assert {black[0] for _, black, _ in book.lost} == {a for a in winning if a <= 8 - a}
    again, out = run(capsys, "hex_solved_book", "--size", "3", "--stones", "1", "--out", str(out_path))
    assert "0 openings" in out and again.moves == book.moves


def test_hex_opening_table(capsys):
    table, out = run(capsys, "hex_opening_table", "--size", "3", "--budget", "10000", "--log2-table", "12")
    assert table.shape == (3, 3) and (table != 0).all()
    assert (table == table[::-1, ::-1]).all() and table[1, 1] == 1  # theory: symmetric, the centre wins
    assert "3x3: 9/9 openings solved" in out and "centre wins: True" in out
    board = [line for line in out.splitlines() if re.fullmatch(r"\s*\d \s*([WL?] ?){3}", line)]
    assert len(board) == 3


def test_hex_middle_game(capsys):
    _, out = run(capsys, "hex_middle_game", "--size", "5", "--stones", "4", "--positions", "2", "--budget", "5000")
    assert len(lines_matching(out, r"position +\d+: (black|white) to move (wins|loses|unknown) +\d+ nodes .*s")) == 2
    assert lines_matching(out, r"5x5, 4 stones: \d/2 solved within 5000 nodes; seconds per solved position: .*")


def test_hex_perfect_play(capsys, tmp_path):
    games = tmp_path / "games.json"
    out_rows, out = run(
        capsys,
        "hex_perfect_play",
        *("--model", HEX_8, "--board", "4", "--games", "2", "--simulations", "8", "--vs", "random"),
        *("--check-nodes", "2000", "--json", str(games)),
    )
    (row,) = out_rows
    (written,) = json.loads(games.read_text())
    assert [g["moves"] for g in written["games"]] == [g["moves"] for g in row["games"]]
    assert row["opponent"] == "random" and len(row["games"]) == 4
    assert row["first"]["games"] == row["second"]["games"] == 2
    assert lines_matching(out, r"hex-8x8 as first player vs random: \d-\d in 2 games; .* positions the checker .*")
    assert lines_matching(out, r"hex:4x4: \d+ positions judged, \d+ distinct ones solved at 2000 nodes")


def test_hex_root_solver_cost(capsys):
    _, out = run(
        capsys,
        "hex_root_solver_cost",
        *("--model", HEX_8, "--board", "4", "--vs", "random", "--games", "2", "--simulations", "8"),
    )
    assert len(lines_matching(out, r"game \d: the net as (first|second) player, won: (True|False)")) == 2
    # 16 cells: every move of the net is within the root solver's reach
    assert lines_matching(
        out, rf"solver on, at most 50 empty cells: \d+ moves, CPU s a move median {NUMBER}, max {NUMBER}"
    )
    assert not lines_matching(out, r"solver off")


def test_hex_tactics_strength(capsys):
    _, out = run(
        capsys,
        "hex_tactics_strength",
        *("speed", "--sizes", "5", "--positions", "2", "--reps", "1", "--simulations", "4"),
        *("--model", HEX_8, "--game", "hex:4"),
    )
    calls = lines_matching(out, rf"hex:5\s+(.+?)\s+{NUMBER} us/call")
    assert {m[1] for m in calls} >= {"winning_connection", "inferior_mask", "must_play_region", "hex_verdict all"}
    assert len(lines_matching(out, r"hex:4 net, 4 simulations, hex_tactics=\S+\s+\d+ simulations per CPU second")) == 16
    _, out = run(
        capsys,
        "hex_tactics_strength",
        *("selfplay", "--games", "2", "--simulations", "4", "--modes", "off,all", "--model", HEX_8, "--game", "hex:4"),
    )
    assert len(lines_matching(out, rf"hex:4 self-play, 2 games, hex_tactics=(off|all)\s+{NUMBER} positions .*")) == 2
    _, out = run(
        capsys,
        "hex_tactics_strength",
        *("match", "--games", "2", "--seconds", "0.01", "--model", HEX_8, "--game", "hex:4"),
    )
    assert lines_matching(out, r"hex:4 all vs off at 0.01 s a move, 2 games: \d-\d .*simulations a move: .*")


# -- runs side by side -----------------------------------------------------------------------


def make_run(folder: Path, started: str, iterations: list[str], ended: str, strength: list[str]) -> Path:
    """A run folder as `zero iterate` leaves it beside the files `compare_runs` reads."""
    (folder / "reports" / "plots").mkdir(parents=True)
    (folder / "started").write_text(started + "\n")
    (folder / "ended").write_text(ended + "\n")
    log = [
        f"{t}.123 | WARNING | Flow run 'x' - iteration {i + 1}/100: generation {i + 1}"
        for i, t in enumerate(iterations)
    ]
    (folder / "run.log").write_text("\n".join(["noise before", *log, "noise after"]) + "\n")
    header = "generation,games_played,ladder,score_vs_ladder,promoted,rating"
    (folder / "reports" / "plots" / "strength.csv").write_text("\n".join([header, *strength]) + "\n")
    return folder


def test_compare_runs(capsys, tmp_path):
    # generation 1 runs 10:00-10:20, 2 to 10:50, 3 to the end (11:30); the other run starts
    # before midnight and its second generation ends after it
    a = make_run(
        tmp_path / "a",
        "2026-11-24T10:00:00+00:00",
        ["10:00:05", "10:20:00", "10:50:00"],
        "2026-11-24T11:30:00+00:00",
        ["1,400,500,1.0,1,400", "2,800,1000,0.4,0,380", "3,1200,1000,0.9,1,600"],
    )
    b = make_run(
        tmp_path / "b",
        "2026-11-24T23:50:00+00:00",
        ["23:50:10", "00:30:00"],
        "2026-11-25T01:00:00+00:00",
        ["1,200,500,0.8,1,300", "2,400,1000,0.7,1,450"],
    )
    _, out = run(capsys, "compare_runs", str(a), str(b), "--minutes", "45")
    assert "| 1 | 20.0 | 400 | 500 | 1.00 | yes | 500 | 400 |" in out
    assert "| 2 | 50.0 | 800 | 1000 | 0.40 | no | 500 | 380 |" in out
    assert "| 3 | 90.0 | 1200 | 1000 | 0.90 | yes | 1000 | 600 |" in out
    assert "| 1 | 40.0 | 200 | 500 | 0.80 | yes | 500 | 300 |" in out  # across midnight
    assert "| 2 | 70.0 | 400 | 1000 | 0.70 | yes | 1000 | 450 |" in out
    at = out[out.index("### at 45 minutes") :]
    assert "| a | 1 | 400 | 500 | 400 |" in at and "| b | 1 | 200 | 500 | 300 |" in at


def test_hex_perfect_play_sweeps_every_opening_and_resumes_from_its_progress(capsys, tmp_path):
    progress = tmp_path / "sweep.jsonl"
    args = ("--model", HEX_8, "--board", "3", "--all-openings", "1", "--chunk", "2", "--simulations", "8")
    args += ("--vs", "random", "--check-nodes", "2000", "--progress", str(progress))
    (row,), out = run(capsys, "hex_perfect_play", *args)
    # 3x3: 9 cells, one of each half-turn pair and the centre: 5 openings, each with both colours
    assert lines_matching(out, r"hex:3x3: 5 openings of 1 stones, each with both colours")
    assert row["first"]["games"] == row["second"]["games"] == 5
    assert sorted(g["moves"][0] for g in row["games"] if g["first"]) == [0, 1, 2, 3, 4]
    # Each opening is a win for one side, which the champion holds in one of its two games
    # from its first move on (a later move of the opponent cannot undo it); the root solver
    # reaches every 3x3 position, so no win is dropped
    assert row["first"]["winnable"] + row["second"]["winnable"] >= 5
    assert row["first"]["dropped"] == row["second"]["dropped"] == 0
    assert len(progress.read_text().splitlines()) == 6  # 3 chunks a colour
    assert lines_matching(out, r"random, first player: 2/5 openings, .*; 5 chunks left, about \d+\.\d h at this pace\)")
    assert lines_matching(out, r"random, second player: 5/5 openings, .* wins dropped \(\d+ s\)")  # none left
    with progress.open("a") as f:
        f.write('{"chunk": "torn')  # a line cut by a stop
    (again,), out = run(capsys, "hex_perfect_play", *args)
    assert [g["moves"] for g in again["games"]] == [g["moves"] for g in row["games"]]
    assert "openings, " not in out  # nothing played again: every chunk came from the file
    assert len(progress.read_text().splitlines()) == 6
    # Resumed with another --chunk: the stored chunks stay, the openings they miss are cut anew.
    lines = progress.read_text().splitlines()
    progress.write_text("".join(f"{line}\n" for line in lines if '"random first 2:4"' not in line))
    other = list(args)
    other[other.index("--chunk") + 1] = "3"
    (mixed,), out = run(capsys, "hex_perfect_play", *other)
    assert lines_matching(out, r"random, first player: 5/5 openings, .* wins dropped \(\d+ s\)")  # one chunk, 2:4
    assert out.count("openings, ") == 1
    assert [g["moves"][0] for g in mixed["games"] if g["first"]] == [0, 1, 2, 3, 4]
    assert mixed["first"]["dropped"] == 0
    assert len(progress.read_text().splitlines()) == 6
    fewer = [*args, "--sample-openings", "4"]
    with pytest.raises(SystemExit, match="holds games of other openings at chunk .*another set of openings"):
        run(capsys, "hex_perfect_play", *fewer)
    other[other.index("--chunk") + 1] = "0"
    with pytest.raises(SystemExit, match="--chunk must be at least 1"):
        run(capsys, "hex_perfect_play", *other)
    # A second call on a file another sweep is playing into stops before it plays anything.
    with progress.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(SystemExit, match="another sweep is playing into"):
            run(capsys, "hex_perfect_play", *args)
    assert len(progress.read_text().splitlines()) == 6  # untouched


def test_hex_perfect_play_plans_the_missing_openings_around_stored_chunks_of_any_size():
    import argparse

    from pipeline.match.perfect_play import CheckedGame
    from pipeline.tools.hex_perfect_play import plan_chunks

    openings = [[a, 10 + a] for a in range(7)]
    args = argparse.Namespace(vs=["random"], chunk=2, progress=Path("sweep.jsonl"))

    def games(start: int, end: int) -> list[CheckedGame]:
        return [CheckedGame(i, True, True, [*openings[a], 40]) for i, a in enumerate(range(start, end))]

    tasks = plan_chunks(args, openings, (True,), {"random first 3:5": games(3, 5), "random second 0:7": []})
    assert [t[0] for t in tasks] == [f"random first {r}" for r in ("0:2", "2:3", "3:5", "5:7")]
    assert [t[3] for t in tasks] == [0, 2, 3, 5] and tasks[1][4] == [openings[2]]
    for stored in ({"random first 6:8": games(5, 7)}, {"random first 2:4": games(3, 5)}):
        with pytest.raises(SystemExit, match="holds games of other openings"):
            plan_chunks(args, openings, (True,), stored)


def test_hex_perfect_play_sweep_in_worker_processes_plays_the_serial_games(capsys, tmp_path):
    args = ("--model", HEX_8, "--board", "3", "--all-openings", "1", "--chunk", "2", "--simulations", "8")
    args += ("--vs", "random", "--check-nodes", "2000", "--sides", "first")
    (serial,), _ = run(capsys, "hex_perfect_play", *args)
    progress = tmp_path / "sweep.jsonl"
    (parallel,), out = run(capsys, "hex_perfect_play", *args, "--workers", "2", "--progress", str(progress))
    # the chunks finish in any order; the games come back in the openings' order
    assert [g["moves"] for g in parallel["games"]] == [g["moves"] for g in serial["games"]]
    assert parallel["first"] == serial["first"]
    pattern = r"random, first player: \d/5 openings, \d won, 0 wins dropped \(\d+ s(; \d chunks left, .* pace)?\)"
    assert len(lines_matching(out, pattern)) == 3
    assert len(progress.read_text().splitlines()) == 3
