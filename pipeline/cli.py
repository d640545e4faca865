"""The `zero` command line. Heavy imports (torch, the pipeline stages) happen inside the
commands, so `zero --help` and the compiled engine start fast."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console


class Tactics(StrEnum):
    """The searches' threat solvers (`search.tactics`)."""

    off = "off"
    vcf = "vcf"
    vct = "vct"
    vct_root = "vct-root"  # the tree's VCF, the root guard's VCT (Connect6)


class ForwardPass(StrEnum):
    """A net player's forward pass (`players.search.play_inference`)."""

    auto = "auto"
    torch = "torch"
    onnxruntime = "onnxruntime"
    openvino = "openvino"


app = typer.Typer(help="zero-pipeline: AlphaZero-style self-play for Gomoku, Connect6 and Hex.", no_args_is_help=True)
# A pipe gets a wide table rather than Rich's 80-column default with truncated cells.
console = Console(width=None if sys.stdout.isatty() else 160, emoji=False)
err = Console(stderr=True, emoji=False)


ROOT = Annotated[Path, typer.Option(help="pipeline workspace (holds params.yaml)")]
PARAMS = Annotated[Path | None, typer.Option(help="params file (default ROOT/params.yaml)")]
TRACKING = Annotated[str | None, typer.Option(help="MLflow URI (default sqlite:///ROOT/mlflow.db)")]


@app.callback()
def main() -> None:
    """Self-play, training, evaluation and play for connection games."""
    import faulthandler
    from contextlib import suppress

    # A crash in compiled code (numba kernels, the inference backends) prints every
    # thread's Python stack instead of ending silently with a bare SIGSEGV status. Not
    # where stderr is no file (a test's captured stream has no descriptor to write to).
    with suppress(ValueError, OSError, AttributeError):
        faulthandler.enable()


@app.command()
def bench(
    quick: Annotated[bool, typer.Option(help="small budgets: a smoke run in about a minute")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print records as JSON instead of a table")] = False,
    board: Annotated[
        list[str] | None, typer.Option(help="game spec to measure with the default net, e.g. gomoku:9 (repeatable)")
    ] = None,
    big_board: Annotated[
        list[str] | None,
        typer.Option(help="game spec to measure with the size-free --big-net, e.g. connect6:19 (repeatable)"),
    ] = None,
    big_net: Annotated[str, typer.Option(help="size-free net of the standard boards, BLOCKSxCHANNELS")] = "3x64",
    games: Annotated[int, typer.Option(min=1, help="games in lockstep (self-play batch = games x leaves)")] = 32,
    threads: Annotated[int | None, typer.Option(min=1, help="torch threads for the forward pass")] = None,
    orchestration: Annotated[bool, typer.Option(help="measure only Prefect's overhead per flow and task")] = False,
    tactics: Annotated[
        bool, typer.Option(help="the threat solvers on their position suites and random middle games")
    ] = False,
    selfplay: Annotated[
        bool, typer.Option(help="end-to-end self-play per inference backend, with ratios to eager torch")
    ] = False,
    backend: Annotated[
        list[str] | None,
        typer.Option(help="--selfplay: backend:precision to compare, e.g. onnxruntime:f32 (repeatable)"),
    ] = None,
    device: Annotated[str, typer.Option(help="--selfplay: auto, cpu or cuda")] = "auto",
    workers: Annotated[int, typer.Option(min=1, help="--selfplay: self-play workers (threads)")] = 2,
    rounds: Annotated[int, typer.Option(min=1, help="--selfplay: interleaved rounds per backend")] = 1,
    params: PARAMS = None,
    model: Annotated[Path | None, typer.Option(help="--selfplay: checkpoint to play (default: a fresh net)")] = None,
) -> None:
    """Measure pure-MCTS playouts/s, network search sims/s and the bare forward rate: the
    small boards with the default net, the standard boards (15x15, 19x19, 20x20) with a
    size-free net; --board or --big-board picks boards instead (--selfplay: self-play,
    forward pass and training per inference backend and device; --tactics: the threat
    solvers, python -m pipeline.bench.tactics --help for its options)."""
    from pipeline.bench.search import as_dicts, bench_orchestration, plan_bench, records_table, run_plan

    if tactics:
        from pipeline.bench.tactics import figures

        if quick:  # every tenth Connect6 position, one run each, 10 random middle games a set
            figures(repeats=1, random_positions=10, every=10)
        else:
            figures()
        return
    if selfplay:
        records = bench_selfplay(quick, backend, device, workers, rounds, params, model)
    else:
        try:
            plan = plan_bench(board, big_board, big_net)
        except ValueError as exc:  # a board or --big-net that does not parse
            raise fail(str(exc)) from None
        with err.status("benchmarking") as status:
            if orchestration:
                records = bench_orchestration()
            else:
                records = run_plan(plan, quick, games, threads, lambda m: status.update(f"benchmarking: {m}"))
    if as_json:
        print(json.dumps(as_dicts(records), indent=1))
        return
    console.print(records_table(records, "zero bench" + (" (quick)" if quick else "")))


def bench_selfplay(quick, backend, device, workers, rounds, params, model):
    """`zero bench --selfplay` on the params in use (--params, ./params.yaml, or defaults)."""
    from pipeline.bench.selfplay import run_selfplay_bench_on

    path = params or (Path("params.yaml") if Path("params.yaml").is_file() else None)
    try:
        with err.status("benchmarking") as status:
            return run_selfplay_bench_on(path, model, backend, device, workers, rounds, quick, status.update)
    except ValueError as exc:  # params, checkpoint, backend or device this machine cannot run
        raise fail(str(exc)) from None


DEFAULT_SIMULATIONS = 200  # a match's network search per move, unless by time
SECONDS_HELP = (
    "a match by time: this many seconds a move for every player instead of --simulations (nets search until "
    "it is spent; pure:N and classical:D stop within it, at most N playouts, D plies; an engine is told it); "
    "games then move one at a time, not batched"
)


def move_limit(simulations: int | None, seconds: float | None) -> int:
    """The simulations of a match's nets (by time they only size the first tree): one of
    --simulations and --seconds, a clear error (exit 2) when both are given."""
    if simulations is not None and seconds is not None:
        raise fail("--simulations and --seconds are two limits on a move: give one (a count or a time)")
    return DEFAULT_SIMULATIONS if simulations is None else simulations


def fail(message: str) -> typer.Exit:
    from rich.markup import escape

    # soft_wrap: a path or command in the message must stay whole for the user to copy
    err.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)  # a name may hold [...]
    return typer.Exit(2)


@contextmanager
def stops_cleanly(what: str, resumable: bool = True) -> Iterator[None]:
    """Ctrl-C and SIGTERM: one line saying what was kept and how to go on, and the exit
    status of the signal (130, 143), instead of a traceback. `pipeline.runtime.interrupt` stops
    the work; any error raised while it winds down is part of the stop, not news."""
    from pipeline.runtime import interrupt

    interrupt.install()
    try:
        yield
    except BaseException as exc:
        if isinstance(exc, typer.Exit | typer.Abort) and not interrupt.requested():
            raise
        if not interrupt.requested() and not isinstance(exc, KeyboardInterrupt):
            raise
        nothing_said = f"{what} stopped; nothing of it was written" if resumable else f"{what} stopped"
        err.print(interrupt.stop_line(exc, nothing_said, resumable), highlight=False, soft_wrap=True)
        # Every file is whole by now. Exit without the interpreter's finalisation, which
        # takes 5-15 s here (library thread pools, Prefect's server waiting on idle
        # connections); Prefect's temporary server and pool workers are stopped first.
        interrupt.exit_now(timeout=1.0)


@app.command()
def selfplay(
    root: ROOT = Path("."),
    params: PARAMS = None,
    games: Annotated[int | None, typer.Option(min=1, help="games (overrides selfplay.games)")] = None,
    simulations: Annotated[int | None, typer.Option(min=1, help="overrides selfplay.search.simulations")] = None,
    seed: Annotated[int | None, typer.Option(help="overrides seed")] = None,
    tracking_uri: TRACKING = None,
) -> None:
    """The self-play stage: the next generation's games as replay shards in data/replay/."""
    overrides = {"selfplay.games": games, "selfplay.search.simulations": simulations, "seed": seed}
    run_named_stage("selfplay", root, params, overrides, tracking_uri)


@app.command()
def train(
    root: ROOT = Path("."),
    params: PARAMS = None,
    steps: Annotated[int | None, typer.Option(min=1, help="overrides train.steps")] = None,
    lr: Annotated[float | None, typer.Option(min=0, help="overrides train.lr")] = None,
    batch_size: Annotated[int | None, typer.Option(min=1, help="overrides train.batch_size")] = None,
    window: Annotated[int | None, typer.Option(min=1, help="overrides train.window")] = None,
    skip_corrupt: Annotated[bool | None, typer.Option(help="leave corrupt shards out instead of failing")] = None,
    tracking_uri: TRACKING = None,
) -> None:
    """The train stage: the learner continues on the replay window; writes the candidate."""
    overrides = {
        "train.steps": steps,
        "train.lr": lr,
        "train.batch_size": batch_size,
        "train.window": window,
        "train.skip_corrupt": skip_corrupt,
    }
    run_named_stage("train", root, params, overrides, tracking_uri)


dqn_app = typer.Typer(help="The DQN baseline: train and judge it on the same ladder.", no_args_is_help=True)
app.add_typer(dqn_app, name="dqn")


@dqn_app.command("compare")
def dqn_compare(
    az: Annotated[list[Path], typer.Option(help="AlphaZero workspace (repeat, paired with --dqn)")],
    dqn: Annotated[list[Path], typer.Option(help="DQN workspace (repeat, paired with --az)")],
    out: Annotated[Path, typer.Option(help="the report")] = Path("reports/dqn_vs_alphazero.md"),
    ladder: Annotated[str, typer.Option(help="pure-MCTS playout levels")] = "100,500,1000",
    games: Annotated[int, typer.Option(min=2, help="games per match")] = 50,
    simulations: Annotated[int, typer.Option(min=1, help="AlphaZero search per move")] = 200,
    seed: Annotated[int, typer.Option()] = 0,
    times: Annotated[str | None, typer.Option(help="file of 'kind board seconds' lines from the runs")] = None,
) -> None:
    """Judge trained AlphaZero and DQN models on the same ladder; write the comparison."""
    from pipeline.match.dqn_compare import read_times, write_report

    if len(az) != len(dqn):
        raise fail("give one --dqn for each --az")
    try:
        levels = [int(x) for x in ladder.split(",")]
    except ValueError:
        raise fail(f"--ladder {ladder!r}: comma-separated playout counts") from None
    measured = read_times(Path(times)) if times else {}
    with err.status("judging"):
        path = write_report(list(zip(az, dqn, strict=True)), out, levels, games, simulations, seed, measured)
    console.print(f"wrote {path}")


@dqn_app.command("train")
def dqn_train(
    root: ROOT = Path("."),
    params: PARAMS = None,
    out: Annotated[Path | None, typer.Option(help="checkpoint (default ROOT/models/dqn.pt)")] = None,
    steps: Annotated[int | None, typer.Option(min=1, help="gradient steps (overrides dqn.steps)")] = None,
    minutes: Annotated[float | None, typer.Option(min=0, help="wall-clock budget (overrides dqn.minutes)")] = None,
    tracking_uri: TRACKING = None,
    progress: Annotated[bool, typer.Option(help="show a progress bar")] = True,
) -> None:
    """Train the DQN agent by self-play on params.yaml's game and `dqn` section."""
    from pipeline.dqn.training import run_dqn_train
    from pipeline.runtime.tracking import tracking_uri as default_uri

    p, paths = load_workspace(root, params, {"dqn.steps": steps, "dqn.minutes": minutes})
    target = out or paths.models / "dqn.pt"
    uri = tracking_uri or default_uri(paths.root)
    result = run_dqn_train(p.game, p.dqn, target, paths.report("dqn.json"), uri, progress=progress)
    console.print(f"DQN: {result.steps} steps, {result.games} self-play games in {result.seconds:.0f}s -> {target}")


def load_workspace(root: Path, params_file: Path | None, overrides: dict | None = None):
    """Params (validated before any work) and paths of a pipeline workspace."""
    from pipeline.config import ParamsError, load_params
    from pipeline.runtime.workspace import Paths

    paths = Paths(root.resolve())
    try:
        return load_params(params_file or paths.params, overrides), paths
    except ParamsError as exc:
        raise fail(str(exc)) from None


def run_named_stage(
    name: str, root: Path, params: Path | None, overrides: dict | None, tracking_uri: str | None
) -> None:
    """Run one stage function (the same `dvc repro` and the flows run) and print its report."""
    from pipeline.stages.interface import StageContext
    from pipeline.stages.runner import STAGES, StageError, run_stage

    if name not in STAGES:
        raise fail(f"unknown stage {name!r}: one of {', '.join(STAGES)}")
    p, paths = load_workspace(root, params, overrides)
    context = StageContext.create(p, paths, tracking_uri, log=lambda m: err.print(m, highlight=False))
    try:
        with stops_cleanly(name):
            result = run_stage(name, context)
    except StageError as exc:
        raise fail(str(exc)) from None
    console.print(f"{name}: " + result.model_dump_json(), highlight=False, soft_wrap=True)


@app.command()
def init(
    root: ROOT = Path("."),
    params: PARAMS = None,
) -> None:
    """Create the generation-0 champion and the pipeline state if they are missing."""
    from pipeline.nets.checkpoint import CheckpointError
    from pipeline.stages.init import run_init

    p, paths = load_workspace(root, params)
    try:
        result = run_init(p, paths)
    except CheckpointError as exc:
        raise fail(str(exc)) from None
    created = result["created"]
    console.print("created " + ", ".join(created) if created else "champion and state already present")
    if result["init_from"]:
        console.print(result["init_from"])


@app.command()
def stage(
    name: Annotated[str, typer.Argument(help="selfplay | train | evaluate | promote | report")],
    root: ROOT = Path("."),
    params: PARAMS = None,
    tracking_uri: TRACKING = None,
) -> None:
    """Run one pipeline stage (what each `dvc.yaml` stage calls)."""
    run_named_stage(name, root, params, None, tracking_uri)


@app.command()
def evaluate(
    model: Annotated[Path, typer.Option(help="checkpoint to judge (its game is read from it)")],
    vs: Annotated[
        str, typer.Option(help="opponent: pure:N, classical:N, random, a checkpoint, gomocup:COMMAND or htp:COMMAND")
    ] = "pure:1000",
    games: Annotated[int, typer.Option(min=1, help="games; colours alternate, openings paired")] = 20,
    simulations: Annotated[
        int | None, typer.Option(min=1, help=f"network search per move (default {DEFAULT_SIMULATIONS})")
    ] = None,
    seconds: Annotated[float | None, typer.Option(min=0.001, help=SECONDS_HELP, show_default=False)] = None,
    openings: Annotated[
        str | None,
        typer.Option(
            help="opening suite, each opening played with both colours: a file (one opening a line, moves in the "
            "game's notation), auto (the game's shipped suite under openings/, else random) or random"
        ),
    ] = None,
    opening_plies: Annotated[
        int | None,
        typer.Option(min=0, help="random openings of this many moves instead of a suite (default 2; Hex with swap 1)"),
    ] = None,
    seed: Annotated[
        int,
        typer.Option(
            help="seeds the random openings and each player's draws; a suite's openings come in order, so a "
            "suite match between two nets is the same for every seed (more --games make a larger sample)"
        ),
    ] = 0,
    board: Annotated[
        str | None,
        typer.Option(help="another board size for a size-free net, same game and rules: 20 or 20x15 (HxW)"),
    ] = None,
    tactics: Annotated[
        Tactics | None,
        typer.Option(
            help="threat solvers in both searches (Gomoku, Connect6): off, vcf, vct, vct-root (the tree's VCF, the "
            "root guard's VCT) (default: vcf)"
        ),
    ] = None,
    vs_tactics: Annotated[
        Tactics | None,
        typer.Option(help="the opponent's threat solvers, when not --tactics (e.g. a net against itself with vcf)"),
    ] = None,
    inference: Annotated[
        ForwardPass,
        typer.Option(
            help="the nets' forward pass: auto (the fastest measured on this machine, bf16 where the CPU does it "
            "natively), torch (eager, f32, as trained), onnxruntime, openvino"
        ),
    ] = ForwardPass.auto,
    vs_inference: Annotated[
        ForwardPass | None,
        typer.Option(help="the opponent net's forward pass, when not --inference (a net against itself)"),
    ] = None,
    hex_tactics: Annotated[
        str | None,
        typer.Option(
            help="Hex connection knowledge in both searches: off, all, or pieces joined by + of inferior, connect, "
            "mustplay, bridge, hsearch (default: all; by time past 8x8 connect+bridge+hsearch)"
        ),
    ] = None,
    vs_hex_tactics: Annotated[
        str | None, typer.Option(help="the opponent's Hex connection knowledge, when not --hex-tactics")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the result and every game as JSON")] = False,
    records: Annotated[
        Path | None, typer.Option(help="write each game to this folder (SGF; PSQ for Gomoku), as the GUIs read them")
    ] = None,
) -> None:
    """Play a checkpoint (AlphaZero net or DQN) against an opponent; score with interval."""
    from rich.markup import escape

    from pipeline.match.evaluation import Evaluation
    from pipeline.match.openings import AUTO, RANDOM
    from pipeline.nets.checkpoint import CheckpointError
    from pipeline.players.engines import EngineSetupError

    simulations = move_limit(simulations, seconds)
    try:
        evaluation = Evaluation.setup(
            model,
            vs,
            simulations,
            board,
            None if tactics is None else tactics.value,
            seconds=seconds,
            vs_tactics=None if vs_tactics is None else vs_tactics.value,
            inference=inference.value,
            vs_inference=None if vs_inference is None else vs_inference.value,
            hex_tactics=hex_tactics,
            vs_hex_tactics=vs_hex_tactics,
        )
    except (CheckpointError, ValueError) as exc:
        raise fail(str(exc)) from None
    if openings is None:
        openings = AUTO if opening_plies is None else RANDOM
    by_time = "" if seconds is None else f", {seconds:g} s a move"
    with err.status(escape(f"{model.stem} vs {vs}: {games} games of {evaluation.spec}{by_time}")):
        try:
            evaluation.play(games, seed, opening_plies, openings)
        except (ValueError, EngineSetupError) as exc:  # a suite that does not fit; an engine that refused its setup
            raise fail(str(exc)) from None
    if records is not None:
        written = evaluation.write_records(records)
        err.print(f"records: {len(written)} games in {records}", highlight=False)
    for log in getattr(evaluation.opponent, "logs", []):
        err.print(f"engine log: {log}", highlight=False)
    if evaluation.stopped:  # an external engine with too many faults: its finished games count
        err.print(f"[yellow]stopped:[/yellow] {escape(evaluation.stopped)}", highlight=False)
    for reason in evaluation.forfeits:
        err.print(f"forfeit: {escape(reason)}", highlight=False)
    if as_json:
        print(json.dumps(evaluation.as_dict()))
        return
    console.print(evaluation.describe(vs), highlight=False, markup=False)  # an engine's name may hold [...]


@app.command()
def openings(
    model: Annotated[Path, typer.Option(help="the champion whose deep search values the openings")],
    out: Annotated[Path | None, typer.Option(help="suite file to write (default: openings/<game>.txt)")] = None,
    board: Annotated[str | None, typer.Option(help="another board size for a size-free net: 13 or 13x13")] = None,
    count: Annotated[int, typer.Option(min=1, help="openings to keep at most")] = 50,
    candidates: Annotated[int, typer.Option(min=1, help="openings drawn and searched")] = 120,
    simulations: Annotated[int, typer.Option(min=1, help="search per candidate")] = 800,
    bound: Annotated[float, typer.Option(min=0, max=1, help="keep openings valued within this of even")] = 0.15,
    stones: Annotated[int | None, typer.Option(min=1, help="stones an opening (default 3; Hex: 1 with swap)")] = None,
    radius: Annotated[
        int | None, typer.Option(help="cells from the centre the stones may lie (default 3; Hex: the whole board)")
    ] = None,
    seed: Annotated[int, typer.Option()] = 0,
    played_simulations: Annotated[
        int,
        typer.Option(
            min=0,
            help="also play each opening within the bound out, champion against itself with each seat, at this "
            "search, and keep those the side ahead over those games did not win (0: the value alone)",
        ),
    ] = 0,
    screen: Annotated[
        bool,
        typer.Option(
            help="Connect6: the champion plays the turn after each opening within the bound, and those after "
            "which the solver finds one side with no turn that meets the other's VCF are dropped"
        ),
    ] = True,
) -> None:
    """Build a balanced opening suite with a champion's deep search."""
    import itertools
    import time

    from pipeline.match.evaluation import model_spec
    from pipeline.match.opening_screen import screens
    from pipeline.match.openings import suite_path, write_suite
    from pipeline.match.suite_build import build_suite
    from pipeline.nets.checkpoint import CheckpointError
    from pipeline.players.factory import make_player, play_search

    try:
        spec = model_spec(model, board)
        player = make_player(str(model), spec, play_search(spec, simulations))
        players = None
        if played_simulations:
            players = tuple(
                make_player(str(model), spec, play_search(spec, played_simulations), name=name)
                for name in ("champion", "twin")
            )
    except (CheckpointError, ValueError) as exc:
        raise fail(str(exc)) from None
    if radius is None and spec.game != "hex":
        radius = 3
    start = time.time()
    ended = itertools.count(1)
    with err.status(f"searching {candidates} candidate openings of {spec} at {simulations} simulations") as status:
        suite, pool = build_suite(
            spec,
            player,
            count,
            candidates,
            bound,
            stones,
            radius,
            seed,
            on_batch=lambda n: status.update(f"{n}/{candidates} openings searched"),
            players=players,
            on_game=lambda r: status.update(f"played out: {next(ended)} games ended"),
            screen=screen,
            on_screen=lambda n: status.update(f"screened by the solver: {n} openings judged"),
        )
    target = out or suite_path(spec)
    lost = [c for c in pool if c.lost]
    screened = screen and screens(spec)
    command = f"zero openings --model {model}" + (f" --board {board}" if board else "")
    command += f" --simulations {simulations} --candidates {candidates} --count {count} --bound {bound}"
    if played_simulations:
        command += f" --played-simulations {played_simulations}"
    if not screen:
        command += " --no-screen"
    header = [
        f"Balanced openings for {spec}: {len(suite)} of {len(pool)} candidates within {bound} of even "
        f"after {simulations} simulations of {model.name} (the root value for the side to move)",
        *(
            [
                f"then played out by {model.name} against itself with each seat at {played_simulations} simulations: "
                "the openings the side ahead over those games did not win are kept"
            ]
            if played_simulations
            else []
        ),
        *(
            [
                f"screened: {len(lost)} within the bound dropped, the solver finding one side lost after "
                f"{model.name}'s turn (pipeline.match.opening_screen)"
            ]
            if screened
            else []
        ),
        f"built by: {command}",
        "each opening is played once with each colour",
    ]
    if not len(suite):
        raise fail(f"no opening within {bound} of even among {len(pool)} candidates: raise --bound or --candidates")
    write_suite(target, suite, header)
    console.print(f"{len(suite)} openings of {len(pool)} within {bound} -> {target} ({time.time() - start:.0f} s)")


@app.command()
def brain(
    model: Annotated[
        Path | None, typer.Option(help="checkpoint (default: a pretrained model or the champion that fits)")
    ] = None,
    simulations: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="network search per move, at most (default: as many as the clock's share of the move allows, "
            "INFO timeout_turn and time_left)",
            show_default=False,
        ),
    ] = None,
    playouts: Annotated[int, typer.Option(min=1, help="pure-MCTS playouts per move when no model fits")] = 20000,
) -> None:
    """Gomocup/Piskvork brain protocol on stdin/stdout (Gomoku; INFO rule 0 freestyle, 1 exact five, 4 renju)."""
    from pipeline.serve.brain import run_brain

    with stops_cleanly("brain", resumable=False):
        run_brain(model, simulations, playouts)


@app.command()
def htp(
    model: Annotated[
        Path | None, typer.Option(help="checkpoint (default: a pretrained model or the champion that fits)")
    ] = None,
    size: Annotated[int, typer.Option(min=2, max=19, help="initial board size (boardsize changes it)")] = 11,
    swap: Annotated[bool, typer.Option(help="play with the swap rule")] = False,
    simulations: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="network search per move, at most (default: past 8x8 as many as the move's time allows, "
            "with the lighter connection knowledge; on 7x7 and 8x8 at most 800)",
            show_default=False,
        ),
    ] = None,
    playouts: Annotated[int, typer.Option(min=1, help="pure-MCTS playouts per move when no model fits")] = 20000,
    seconds: Annotated[
        float,
        typer.Option(
            min=0.05,
            help="a move's time when the controller sets no clock (time_settings, time_left); on 7x7 and 8x8 "
            "the search stops at its simulations or its share and the solver gets the rest",
        ),
    ] = 5.0,
) -> None:
    """Hex over GTP/HTP on stdin/stdout, for HexGui and MoHex-style tools."""
    from pipeline.serve.htp import run_htp

    with stops_cleanly("htp", resumable=False):
        run_htp(model, size, swap, simulations, playouts, seconds=seconds)


@app.command()
def play(
    game: Annotated[str, typer.Option(help="game spec, e.g. gomoku:9, connect6:10, hex:7:swap")] = "gomoku:9",
    side: Annotated[str, typer.Option(help="first (black) or second (white)")] = "first",
    model: Annotated[
        Path | None, typer.Option(help="checkpoint (default: a pretrained model or the champion that fits)")
    ] = None,
    budget: Annotated[int, typer.Option(min=1, help="simulations (model) or playouts (pure MCTS), at most")] = 2000,
    seconds: Annotated[
        float,
        typer.Option(
            min=0.05,
            help="the engine's time a move: its search stops at the budget or its share of this, the Hex 7x7 "
            "and 8x8 solver gets the rest",
        ),
    ] = 5.0,
) -> None:
    """Play in the terminal: type moves like e5; undo, hint, quit."""
    from pipeline.games.base import GameSpec
    from pipeline.nets.checkpoint import CheckpointError
    from pipeline.serve.terminal import run_terminal

    if side not in ("first", "second"):
        raise fail(f"--side must be first or second, not {side!r}")
    try:
        spec = GameSpec.parse(game)
        run_terminal(spec, model, budget, 0 if side == "first" else 1, console, seconds=seconds)
    except (ValueError, CheckpointError) as exc:
        raise fail(str(exc)) from None


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535)] = 8000,
    models: Annotated[list[Path] | None, typer.Option(help="checkpoint files or folders to offer (repeatable)")] = None,
    params: Annotated[
        Path | None, typer.Option(help="params whose evaluate.engines are offered (default ./params.yaml if any)")
    ] = None,
) -> None:
    """The browser UI: play the champion, a pretrained model, pure MCTS or an external
    engine declared in params (evaluate.engines)."""
    from pipeline.config import ParamsError, load_params
    from pipeline.nets.checkpoint import CheckpointError
    from pipeline.players.discovery import check_sources
    from pipeline.serve.app import serve as run

    path = params or (Path("params.yaml") if Path("params.yaml").is_file() else None)
    try:
        declared = load_params(path) if path else None
        check_sources(models or [])
    except (ParamsError, CheckpointError) as exc:
        raise fail(str(exc)) from None
    console.print(f"zero-pipeline on http://{host}:{port}")
    with stops_cleanly("server", resumable=False):
        run(host, port, models, declared.evaluate.engines if declared else None, declared.game if declared else None)


@app.command()
def iterate(
    iterations: Annotated[int, typer.Option(min=1, help="how many full iterations (at most)")] = 1,
    minutes: Annotated[float | None, typer.Option(min=0, help="start no new iteration after this long")] = None,
    root: ROOT = Path("."),
    params: PARAMS = None,
    record: Annotated[bool, typer.Option(help="commit each iteration with DVC and git")] = True,
    push: Annotated[bool, typer.Option(help="`dvc push` after each recorded iteration")] = True,
    tracking_uri: TRACKING = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            help="a run folder (its params.yaml, and the snapshot of its last generation): start it or go on "
            "from its snapshot, on any machine; each generation is snapshotted there (commit the folder)"
        ),
    ] = None,
) -> None:
    """Run N iterations as a Prefect flow (the same stage functions as `dvc repro`)."""
    import time

    from pipeline.nets.checkpoint import CheckpointError
    from pipeline.orchestration.flows import run_iterations
    from pipeline.orchestration.recording import RecordError
    from pipeline.orchestration.runs import (
        RunError,
        RunFolder,
        close_stretch,
        open_stretch,
        restore,
        seed_earlier,
        track_champions,
        workspace_generation,
    )
    from pipeline.stages.runner import StageError

    run = None
    if resume is not None:
        if root != Path(".") or params is not None:
            raise fail("--resume runs in the run folder's own workspace: give no --root or --params with it")
        run = RunFolder(resume)
        try:
            workspace, source = restore(run)
        except RunError as exc:
            raise fail(str(exc)) from None
        err.print(f"run {resume}: {source}", highlight=False)
        root, record = workspace.root, False
    p, paths = load_workspace(root, params)
    if run is not None and p.evaluate.vs_earlier is not None and paths.state.is_file():
        seeded = seed_earlier(run, paths, p.evaluate.vs_earlier.back)
        if seeded:
            err.print(f"run {resume}: {seeded} earlier champions from {run.champions} for the gate", highlight=False)
    params_file = str(params) if params else None
    started, first = time.time(), workspace_generation(paths) or 0
    if run is not None:
        cut = open_stretch(run, first, started)
        if cut is not None:
            err.print(
                f"run {resume}: the last stretch was stopped before it closed; recorded to its last snapshot "
                f"(generations {cut['from_generation']}-{cut['to_generation']})",
                highlight=False,
            )
    try:
        with stops_cleanly("the iteration"):
            decisions = run_iterations(
                p, paths, iterations, record, push, params_file, tracking_uri, minutes, str(run.path) if run else None
            )
    except (StageError, RecordError, CheckpointError) as exc:
        raise fail(str(exc)) from None
    finally:
        if run is not None and paths.state.is_file():
            stretch = close_stretch(run, paths, started, first)
            err.print(
                f"run {resume}: generations {stretch['from_generation']}-{stretch['to_generation']} in this stretch, "
                f"{stretch['training_hours_at_end']} h of training in all; commit {resume} to keep them",
                highlight=False,
            )
            err.print(f"run {resume}: {track_champions(run)}", highlight=False)
    for d in decisions:
        verdict = "promoted" if d.promoted else "kept the champion"
        console.print(f"generation {d.generation}: {verdict} ({'; '.join(d.reasons)})", highlight=False)


@app.command()
def tournament(
    players: Annotated[
        list[str],
        typer.Argument(
            help="players: checkpoints (paths), pure:N, classical:D, random, gomocup:COMMAND, htp:COMMAND",
            show_default=False,
        ),
    ],
    gauntlet: Annotated[bool, typer.Option("--gauntlet", help="the first player against each other one")] = False,
    games: Annotated[int, typer.Option(min=1, help="games a pairing; each opening with both colours")] = 20,
    simulations: Annotated[
        int | None, typer.Option(min=1, help=f"network search per move (default {DEFAULT_SIMULATIONS})")
    ] = None,
    seconds: Annotated[
        float | None,
        typer.Option(min=0.001, help=SECONDS_HELP + "; best with --workers 1 (workers share the cores)"),
    ] = None,
    openings: Annotated[
        str, typer.Option(help="auto (the game's shipped suite, else random), random, or a suite file")
    ] = "auto",
    game: Annotated[
        str | None, typer.Option(help="the game, like gomoku:9x9 (default: the first checkpoint's)")
    ] = None,
    out: Annotated[Path, typer.Option(help="folder of games.jsonl, crosstable.md, ratings.json, ratings.png")] = Path(
        "reports/tournament"
    ),
    workers: Annotated[int, typer.Option(min=1, help="processes playing at once")] = 2,
    seed: Annotated[int, typer.Option()] = 0,
    anchor: Annotated[str | None, typer.Option(help="the player at 0 Elo (default: the first)")] = None,
) -> None:
    """A gauntlet or round robin of any players: crosstable and Bradley-Terry ratings.

    Each game is appended to OUT/games.jsonl as it ends; the same command again plays only
    the games still missing (after Ctrl-C too)."""
    from rich.markup import escape

    from pipeline.match.tournament import Tournament
    from pipeline.players.engines import EngineSetupError
    from pipeline.runtime.interrupt import Interrupted
    from pipeline.runtime.progress import Progress, duration

    latest = {"line": ""}

    def on_game(row: dict) -> None:
        result = {1.0: "1-0", 0.0: "0-1"}.get(row["score"], "½-½")
        latest["line"] = escape(f"{row['player']} {result} {row['opponent']}")
        progress.update(1)

    simulations = move_limit(simulations, seconds)
    try:
        with stops_cleanly("the tournament"):
            t = Tournament.setup(
                players, out, games, simulations, gauntlet, openings, game, seed, anchor, seconds=seconds
            )
            missing = sum(len(v) for v in t.missing().values())
            if missing < len(t.planned()):
                kept = len(t.planned()) - missing
                err.print(f"{kept} games already in {t.games_path}; {missing} to play", highlight=False)
            tty = sys.stderr.isatty()
            progress = Progress(t.title(), missing, lambda p: latest["line"] + ("" if tty else f"  ETA {p.eta()}"))
            try:
                outcome = t.run(workers, on_game)
            finally:
                progress.close()
            if outcome.stopped:
                raise Interrupted(f"the tournament stopped: {outcome.played} games of this run kept in {t.games_path}")
    except (ValueError, EngineSetupError) as exc:  # settings, a checkpoint of another game, a suite, an engine
        raise fail(str(exc)) from None
    for reason in outcome.dropped:
        err.print(f"[yellow]stopped:[/yellow] {escape(reason)}", highlight=False)
    with stops_cleanly("writing the tournament's report"):  # its games are all kept
        standings = t.standings()
        written = t.write_report(standings)
    console.print(standings.rich_table(t.title()))
    for line in t.notes(standings):
        if line:
            console.print(line, highlight=False, markup=False)
    console.print(
        f"{outcome.played} games played in {duration(progress.elapsed)}; wrote " + ", ".join(map(str, written)),
        highlight=False,
        markup=False,
    )


@app.command()
def schedule(
    cron: Annotated[str, typer.Option(help='cron expression, e.g. "0 3 * * *" (03:00 UTC daily)')],
    root: ROOT = Path("."),
    iterations: Annotated[int, typer.Option(min=1, help="iterations per scheduled run")] = 1,
    record: Annotated[bool, typer.Option(help="commit each iteration with DVC and git")] = True,
    push: Annotated[bool, typer.Option(help="`dvc push` after each recorded iteration")] = True,
    name: Annotated[str, typer.Option(help="deployment name")] = "scheduled-iteration",
    port: Annotated[int, typer.Option(help="port of the local Prefect server started when none is configured")] = 4200,
) -> None:
    """Serve the iteration flow on a cron schedule from this machine (Prefect `serve`).

    Schedules need a real Prefect API: PREFECT_API_URL (a server or Prefect Cloud) if set,
    else a `prefect server` this command starts on 127.0.0.1 and stops when it ends."""
    from pipeline.orchestration.scheduling import check_cron, serve_schedule

    _, paths = load_workspace(root, None)
    try:
        check_cron(cron)
    except ValueError as exc:
        raise fail(f"--cron {cron!r}: {exc}") from None
    with stops_cleanly("the schedule", resumable=False):
        serve_schedule(
            paths.root, cron, iterations, record, push, name, port, lambda m: console.print(m, highlight=False)
        )


@app.command()
def dashboard(
    root: Annotated[Path, typer.Option(help="project whose mlflow.db to show")] = Path("."),
    host: Annotated[str, typer.Option()] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535)] = 5000,
) -> None:
    """The MLflow UI on the project's tracking store (loss, entropy, win rates, models)."""
    import subprocess

    from pipeline.orchestration.recording import tool
    from pipeline.runtime.tracking import tracking_uri

    uri = tracking_uri(root)
    console.print(f"MLflow UI for {uri} on http://{host}:{port}")
    cmd = [tool("mlflow"), "server", "--backend-store-uri", uri, "--host", host, "--port", str(port)]
    artifacts = Path(root).resolve() / "mlruns"
    cmd += ["--default-artifact-root", artifacts.as_uri()]
    raise typer.Exit(subprocess.call(cmd))


if __name__ == "__main__":
    app()
