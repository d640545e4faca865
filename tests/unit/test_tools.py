"""The measurement tools of `pipeline.tools`: each listed in the package's index and in
docs/tools.md with the command of its figure, each answering `--help`, and each run on tiny
arguments (small boards, a game or two, a handful of simulations) with the shape of what it
prints checked: the lines and fields its figure is read from, not only the exit status."""

from __future__ import annotations

import fcntl
import importlib
import json
import pkgutil
import re
from pathlib import Path

import pytest

from pipeline import tools

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
PRETRAINED = REPO / "models" / "pretrained"
GOMOKU_8 = str(PRETRAINED / "gomoku-8x8.pt")
HEX_8 = str(PRETRAINED / "hex-8x8.pt")  # size-free, no swap: plays hex:4 and hex:5
NUMBER = r"[+-]?[\d,]+(?:\.\d+)?"
DOCS_PAGE = (REPO / "docs" / "tools.md").read_text()


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
        assert f"python -m pipeline.tools.{name}" in DOCS_PAGE, f"docs/tools.md gives no command for {name}"
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
        ("renju_reference", ["--near", "2"]),
        ("renju_reference", ["--games", "0"]),
        ("hex_opening_table", ["--solver", "alphabeta"]),
        ("no_blunder", ["--spec", "connect6:19"]),
        ("classical_ladder", ["--depths", "two"]),
    ],
)
def test_bad_arguments_are_refused_before_any_work(capsys, name, argv):
    with pytest.raises(SystemExit) as exit_:
        run(capsys, name, *argv)
    assert exit_.value.code == 2
    assert "error:" in capsys.readouterr().err


# -- the k-in-a-row games ----------------------------------------------------------------


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


def test_c6_loss_audit_with_the_vct(capsys, tmp_path):
    # Generation 78's white losses against 58 (2026-12-06): in game 16 every turn within two
    # cells at ply 9 leaves black a VCT the cheap budget sees; in game 34 the turn at ply 5 left
    # one only 20,000 nodes see, and i10 h8 leaves none.
    match = json.loads(
        (REPO / "reports/runs/connect6-19x19-defence/matches/gen-0078-vs-gen-0058-80-screened.json").read_text()
    )
    match["records"] = [r for r in match["records"] if r["game"] in (15, 16, 34)]
    path = tmp_path / "match.json"
    path.write_text(json.dumps(match))
    counts, out = run(capsys, "c6_loss_audit", str(path), "--solver", "vct")
    assert counts["games"] == 2 and counts["saving turn found"] == 1 and counts["no saving turn found"] == 1
    assert lines_matching(
        out,
        r"game  16 \(lost as white, 33 plies\): the turn at ply 9 left a VCT in 6 \(seen at 200 nodes\); "
        r"turns tried 2,556 \(within two cells of the stones\); a turn that leaves none: none found",
    )
    assert lines_matching(
        out, r"game  34 .*: the turn at ply 5 left a VCT in 5 \(seen at 20,000 nodes\); .*: i10 h8 \(found at 2,000.*"
    )


def test_opening_screen(capsys, tmp_path):
    # After black's k6 j7 in l7 g13 i13, white has no turn that meets black's VCF (the lost
    # white games of 2026-12-06); the tiny search may play another turn, so the shape is checked,
    # and what is kept is what is written.
    suite = tmp_path / "suite.txt"
    suite.write_text("# a header line\n# game: connect6:19x19\nl7 g13 i13  # one\ni9 k10 k8  # two\n")
    model = str(REPO / "models/pretrained/connect6-19x19.pt")
    out = tmp_path / "kept.txt"
    counts, text = run(
        capsys, "opening_screen", str(suite), "--model", model, "--simulations", "8", "--write", str(out)
    )
    assert counts["openings"] == 2 and counts["kept"] + counts["lost for black"] + counts["lost for white"] == 2
    assert (
        len(lines_matching(text, r"(keep|DROP) (l7 g13 i13|i9 k10 k8) +(after black's \S+ \S+, .*|.* to move, .*)"))
        == 2
    )
    kept = out.read_text()
    assert "# a header line" in kept and "screened by: python -m pipeline.tools.opening_screen" in kept
    assert sum(1 for line in kept.splitlines() if line and not line.startswith("#")) == counts["kept"]
    gomoku = tmp_path / "gomoku.txt"
    gomoku.write_text("# game: gomoku:8x8\nd4 e5 d5\n")
    with pytest.raises(SystemExit, match="only Connect6"):
        run(capsys, "opening_screen", str(gomoku), "--model", str(REPO / "models/pretrained/gomoku-8x8.pt"))
    with pytest.raises(SystemExit, match="error: .*connect6"):  # a suite of another game: one line
        run(capsys, "opening_screen", str(suite), "--model", str(REPO / "models/pretrained/gomoku-8x8.pt"))


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


def test_c6_vct_suite(capsys, tmp_path):
    # Positions of three of generation 46's games white lost and two random games, labelled at
    # small budgets (--vcf-budget 1 lets the plain VCFs in as positives), then scored.
    match = json.loads((REPO / "reports/runs/connect6-19x19-defence/matches/gen-0046-vs-init-80.json").read_text())
    match["records"] = [r for r in match["records"] if r["game"] in (1, 2, 3)]
    path = tmp_path / "match.json"
    path.write_text(json.dumps(match))
    suite = tmp_path / "vct.txt"
    argv = ("--count", "2", "--large", "2000", "--vcf-budget", "1", "--random-games", "2", "--matches", str(path))
    counts, out = run(capsys, "c6_vct_suite", *argv, "--write", str(suite))
    text = suite.read_text()
    assert "#   python -m pipeline.tools.c6_vct_suite --count 2 --large 2000" in text
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert len(lines) == counts["vct"] + counts["none"] >= 2
    assert all(re.fullmatch(r"connect6:19 \| [a-s0-9 ]+ \| (vct [2-5]|none)", line) for line in lines)
    assert lines_matching(out, rf"{counts['vct']} positions with a VCT of 2-5 turns, {counts['none']} without, .*")
    figures, out = run(capsys, "c6_vct_suite", "--suite", str(suite), "--budget", "2000", "--json", str(tmp_path / "f"))
    assert json.loads((tmp_path / "f").read_text()) == figures
    assert figures["vct"]["positions"] == counts["vct"] and figures["none"]["positions"] == counts["none"]
    assert figures["vct"]["false"] == figures["none"]["false"] == 0
    assert len(lines_matching(out, rf"(vct|none) +\d+ +\d+ +{NUMBER}% +{NUMBER} +0 +\d+")) == 2


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


def test_renju_reference(capsys):
    result, out = run(capsys, "renju_reference", "--games", "2", "--size", "9")
    assert result.games == 2 and result.disagreements == 0
    assert lines_matching(out, r"games 2  plies \d+  disagreements 0")
    assert "black's forbidden cells met" in out and "results: " in out


# -- the repository -------------------------------------------------------------------------


def test_ship_model(capsys, tmp_path, learner_checkpoint):
    """A learner with its Adam moments shipped: the same weights and meta, no optimiser state,
    fewer bytes; a file that is not a checkpoint is a clear error."""
    import torch

    from pipeline.games.base import GameSpec
    from pipeline.nets.checkpoint import load_checkpoint

    spec = GameSpec.parse("gomoku:5x5:k4")
    source, net = learner_checkpoint(tmp_path / "learner.pt", 7)
    dest = tmp_path / "pretrained" / "gomoku-5x5.pt"
    code, out = run(capsys, "ship_model", str(source), str(dest))
    assert code == 0
    sizes = lines_matching(out, rf"\S+gomoku-5x5\.pt: ({NUMBER}) MiB \(\S+learner\.pt: ({NUMBER}) MiB, .*\)")
    assert len(sizes) == 1 and dest.stat().st_size < source.stat().st_size
    assert "optimizer" not in torch.load(dest, weights_only=True)
    shipped, meta = load_checkpoint(dest, spec)
    assert meta == {"generation": 7}
    for name, value in net.state_dict().items():
        assert torch.equal(shipped.state_dict()[name], value)
    (tmp_path / "notes.pt").write_text("not a checkpoint")
    code, _ = run(capsys, "ship_model", str(tmp_path / "notes.pt"), str(tmp_path / "out.pt"))
    assert code == 2 and not (tmp_path / "out.pt").exists()


def test_tree_budget(capsys):
    """The budget itself is checked in tests/unit/test_tree_budget.py; here the report's shape."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    code, out = run(capsys, "tree_budget", "--root", str(REPO), "--top", "2", "--budget-mib", "1e6")
    assert code == 0
    assert lines_matching(out, rf"tracked tree: {NUMBER} MiB in \d+ files \(budget 1e\+06 MiB\)")
    assert len(lines_matching(out, rf"{NUMBER} MiB  \S+")) == 2


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


def test_hex_perfect_play_takes_the_verdicts_of_an_earlier_sweep(capsys, tmp_path):
    from pipeline.games.base import GameSpec
    from pipeline.tactics.hex.solver import LOSS, UNKNOWN, WIN
    from pipeline.tools.hex_perfect_play import earlier_verdicts

    earlier, again = tmp_path / "earlier.jsonl", tmp_path / "again.jsonl"
    args = ("--model", HEX_8, "--board", "3", "--all-openings", "1", "--chunk", "5", "--simulations", "8")
    args += ("--vs", "random", "--check-nodes", "2000")
    (first,), out = run(capsys, "hex_perfect_play", *args, "--progress", str(earlier))
    solved = int(re.search(r"(\d+) distinct ones solved", out).group(1))
    assert solved > 0 and all(json.loads(line)["check_nodes"] == 2000 for line in earlier.read_text().splitlines())
    # The same sweep again: the same games, every position's verdict from the first one.
    (second,), out = run(capsys, "hex_perfect_play", *args, "--progress", str(again), "--verdicts-from", str(earlier))
    assert [g["values"] for g in second["games"]] == [g["values"] for g in first["games"]]
    pattern = rf"hex:3x3: \d+ positions judged, 0 distinct ones solved at 2000 nodes, {solved} taken from earlier .*"
    assert lines_matching(out, pattern)

    spec = GameSpec(game="hex", size=3)
    game = {"moves": [4, 0, 1], "values": {"0": UNKNOWN, "2": WIN}}
    line = {"chunk": "random first 0:1", "check_nodes": 500, "games": [game]}
    earlier.write_text(json.dumps(line) + "\n" + '{"chunk": "torn')
    verdicts = earlier_verdicts([earlier], spec, 2000)  # another budget: only the proven verdict
    assert verdicts == {spec.replay([4, 0]).array.tobytes(): WIN}
    assert earlier_verdicts([earlier], spec, 500) == {spec.new_game().array.tobytes(): UNKNOWN, **verdicts}
    line["games"].append({"moves": [4, 0], "values": {"2": LOSS}})  # the same position lost: a fault
    earlier.write_text(json.dumps(line) + "\n")
    with pytest.raises(SystemExit, match="proven won in one of .* and lost in the other"):
        earlier_verdicts([earlier], spec, 500)
    earlier.write_text('{"chunk": "x", "games": [{"moves": [4]}]}\n')
    with pytest.raises(SystemExit, match="line 1: not a sweep's progress line"):
        earlier_verdicts([earlier], spec, 500)
    with pytest.raises(SystemExit, match="--verdicts-from .*missing"):
        earlier_verdicts([tmp_path / "missing.jsonl"], spec, 500)


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


def test_gomoku_loss_audit(capsys, tmp_path):
    # Two of the shipped freestyle net's games lost to classical:9, as the full audit reports
    # them: in game 3 black's 23rd move left white a VCF and no move there leaves none; in game
    # 6 white's 16th move left black a VCT that l10 or m10 would not have.
    match = json.loads((REPO / "reports/gomoku-15x15-defence/gen31-vs-classical9-20.json").read_text())
    match["records"] = [r for r in match["records"] if r["game"] in (2, 3, 6)]
    path = tmp_path / "match.json"
    path.write_text(json.dumps(match))
    counts, out = run(capsys, "gomoku_loss_audit", str(path))
    assert counts == {"games": 2, "no saving move": 1, "a saving move found": 1}  # game 2 was won
    assert lines_matching(
        out,
        r"game   3 \(lost as black, 26 plies\): move 23 \(b8\) left a VCF at 20,000 nodes; "
        r"moves that leave none: none",
    )
    assert lines_matching(out, r"game   6 \(lost as white, 23 plies\): move 16 \(h10\) left a VCT .*: l10, m10")
    _, out = run(capsys, "gomoku_loss_audit", str(path), "--colour", "white", "--loser", "classical:9")
    assert out.strip() == "classical:9 lost no game as white"
    (tmp_path / "notes.json").write_text("{}")
    with pytest.raises(SystemExit):
        run(capsys, "gomoku_loss_audit", str(tmp_path / "notes.json"))
