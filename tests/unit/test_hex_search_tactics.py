"""Hex connection knowledge inside the tree search (pipeline/search/hex_forced.py).

Hand-checked positions first (a bridge chain proven in a few simulations, a lost node
whose children are the winner's carrier, a bridge intrusion answered), then the whole
tree of searches on 3x3 to 5x5 boards against exhaustive search: every proven node has
the value exhaustive search gives it, every node that is won keeps a winning child, and
no dead cell is ever a child."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.games.base import GameSpec
from pipeline.games.hex import swap_legal
from pipeline.games.kernels import apply_unchecked, legal_mask
from pipeline.games.layout import TO_MOVE, WINNER
from pipeline.search.evaluator import UniformEvaluator
from pipeline.search.hex_forced import HEX_ALL, HEX_BRIDGE, HEX_CONNECT, hex_tactics_flags
from pipeline.search.mcts import BatchedMCTS, SearchConfig
from pipeline.search.tree import ACTION, COUNT, FIRST, MOVER, PRIOR, TERM_VALUE, TERMINAL
from pipeline.tactics.hex import solver as hs
from pipeline.tactics.hex.patterns import captured_pairs, dead_mask
from tests.unit.test_hex_tactics import position as position_of_cells

pytestmark = pytest.mark.unit


def position(n: int, black: list[str], white: list[str], to_move: int) -> np.ndarray:
    """An n x n Hex state with these stones (cells named like `c4`), `to_move` next."""
    spec = GameSpec.parse(f"hex:{n}")
    black_cells, white_cells = ([spec.parse_action(x) for x in names] for names in (black, white))
    return position_of_cells(n, black_cells, white_cells, to_move)


def searched(spec: GameSpec, s: np.ndarray, hex_tactics: str, simulations: int) -> BatchedMCTS:
    search = BatchedMCTS(spec, 1, SearchConfig(simulations=simulations, hex_tactics=hex_tactics), seed=3)
    search.reset(0, s.copy())
    search.search(UniformEvaluator(spec.num_actions), noise=False)
    return search


def root_actions(search: BatchedMCTS, spec: GameSpec) -> set[str]:
    kids = search.tree.root_children(0)
    return {spec.action_name(int(a)) for a in search.tree.node_int[0, kids, ACTION]}


# Black's chain on 7x7: d2 bridges to the top over d1 e1, to c4 over c3 d3, c4 to b6 over
# b5 c5, b6 to the bottom over a7 b7; white's g1 g2 are far away.
CHAIN = ["d2", "c4", "b6"]
CARRIER = {"d1", "e1", "c3", "d3", "b5", "c5", "a7", "b7"}


def test_a_bridge_chain_is_a_proven_win_in_a_few_simulations():
    spec = GameSpec.parse("hex:7")
    s = position(7, CHAIN, ["g1", "g2", "g3"], to_move=0)
    search = searched(spec, s, "connect", simulations=8)
    action = search.tree.best_action(0)
    assert search.tree.proven_win(0, action)
    assert spec.action_name(action) in CARRIER  # a move that makes progress
    # Without the knowledge 8 simulations prove nothing: the test can fail.
    plain = searched(spec, s, "off", simulations=8)
    assert not plain.tree.proven_win(0, plain.tree.best_action(0))


def test_a_node_lost_to_a_connection_keeps_only_the_carrier():
    spec = GameSpec.parse("hex:7")
    s = position(7, CHAIN, ["g1", "g2"], to_move=1)
    search = searched(spec, s, "connect", simulations=40)
    assert root_actions(search, spec) == CARRIER
    kids = search.tree.root_children(0)
    # Every reply is proven lost for white (the mover of the root's children).
    assert (search.tree.node_int[0, kids, TERMINAL] != 0).all()
    assert (search.tree.node_float[0, kids, TERM_VALUE] < 0).all()
    # The captured edge-bridge pairs (d1 e1, a7 b7) are inferior: with every piece on,
    # the children are the inner bridges' cells.
    assert root_actions(searched(spec, s, "all", simulations=40), spec) == {"c3", "d3", "b5", "c5"}


def test_a_semi_connection_confines_the_defender_to_its_must_play_region():
    """Black (b2 c4 c5 b5) has no winning connection yet but several one stone away
    (b3 bridges b2 to c4, ...): white may only play where every such threat is stopped,
    three cells of eighteen, and exhaustive search says each move left out loses."""
    spec = GameSpec.parse("hex:5")
    game = spec.new_game()
    for name in ("b2", "a2", "c4", "e4", "c5", "e1", "b5"):
        game.apply(name)
    search = searched(spec, game.array, "mustplay", simulations=16)
    kept = root_actions(search, spec)
    assert kept == {"b1", "c1", "b3"}
    table = hs.new_table(18)
    for a in game.legal_actions():
        child = game.array.copy()
        apply_unchecked(child, int(a))
        if spec.action_name(int(a)) not in kept:
            assert exact(child, table) == hs.WIN, f"{spec.action_name(int(a))} was left out but does not lose"


def test_a_bridge_intrusion_is_answered_first():
    spec = GameSpec.parse("hex:5")
    game = spec.new_game()
    for name in ("b2", "e5", "c3", "c2"):  # white c2 intrudes the b2-c3 bridge
        game.apply(name)
    reply = spec.parse_action("b3")
    for text, low, high in (("bridge", 0.5, 1.0), ("off", 0.0, 0.1)):
        search = searched(spec, game.array, text, simulations=1)
        kids = search.tree.root_children(0)
        j = kids.start + int(np.flatnonzero(search.tree.node_int[0, kids, ACTION] == reply)[0])
        assert low <= search.tree.node_float[0, j, PRIOR] <= high
        assert abs(search.tree.node_float[0, kids, PRIOR].sum() - 1.0) < 1e-5


def test_nothing_is_known_while_the_swap_is_pending():
    """The 3x3 centre is a winning connection for black, but white may still swap."""
    spec = GameSpec.parse("hex:3:swap")
    game = spec.new_game().apply("b2")
    search = searched(spec, game.array, "all", simulations=16)
    assert len(root_actions(search, spec)) == 9  # eight cells and the swap
    kids = search.tree.root_children(0)
    swap = kids.start + int(np.flatnonzero(search.tree.node_int[0, kids, ACTION] == spec.cells)[0])
    assert search.tree.node_int[0, swap, TERMINAL] == 0 or search.tree.node_float[0, swap, TERM_VALUE] > 0


@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_every_first_move_stays_open_while_the_swap_is_to_come(size):
    """On the empty board of a swap game a weak first move is what the first player wants
    (the opponent takes a strong one): no cell may be pruned as inferior there."""
    spec = GameSpec.parse(f"hex:{size}:swap")
    search = searched(spec, spec.new_game().array, "all", simulations=16)
    assert len(root_actions(search, spec)) == spec.cells


def test_the_option_names_its_pieces():
    assert hex_tactics_flags("off") == 0 and hex_tactics_flags("all") == HEX_ALL
    assert hex_tactics_flags("connect+bridge") == HEX_CONNECT | HEX_BRIDGE
    with pytest.raises(ValueError):
        SearchConfig(hex_tactics="connect+vcf")
    assert SearchConfig().hex_tactics == "all"  # measured to help at equal time (RESULTS.md)
    # Other games ignore it.
    assert BatchedMCTS(GameSpec.parse("gomoku:7:k5"), 1, SearchConfig(hex_tactics="all")).hex_flags == 0


# ---- whole trees against exhaustive search -----------------------------------------------
def exact(s: np.ndarray, table) -> int:
    """WIN or LOSS for the player to move, by the solver with no knowledge (exhaustive)."""
    v, _, _ = hs.solve(s, np.int64(10**8), np.int64(0), *table)
    assert v != hs.UNKNOWN
    return int(v)


def random_start(spec: GameSpec, rng: np.random.Generator, least: int) -> np.ndarray:
    """A random position of `least` to cells - 3 stones that nobody has won yet."""
    while True:
        game = spec.new_game()
        for _ in range(int(rng.integers(least, spec.cells - 2))):
            cells = [a for a in game.legal_actions() if a < spec.cells]
            game.apply(int(rng.choice(cells)))
            if game.is_terminal:
                break
        if not game.is_terminal:
            return game.array.copy()


def check_tree(search: BatchedMCTS, root: np.ndarray, table) -> int:
    """Walk every expanded node; return how many proven nodes were checked."""
    node_int, node_float = search.tree.node_int[0], search.tree.node_float[0]
    legal = np.zeros(search.spec.num_actions, dtype=np.bool_)
    dead = np.zeros(search.spec.cells, dtype=np.bool_)
    inferior = np.zeros(search.spec.cells, dtype=np.bool_)
    proven = 0
    stack = [(0, root.copy())]
    while stack:
        node, s = stack.pop()
        if s[WINNER] >= 0:
            continue
        value = exact(s, table)
        if node != 0 and node_int[node, TERMINAL] != 0:
            # The proven value is its mover's, who is not the player to move here.
            assert node_int[node, MOVER] != s[TO_MOVE]
            assert (node_float[node, TERM_VALUE] > 0) == (value == hs.LOSS), "a wrong proof"
            proven += 1
        first, count = node_int[node, FIRST], node_int[node, COUNT]
        if first < 0:
            continue
        actions = node_int[first : first + count, ACTION]
        assert count > 0 and len(set(actions.tolist())) == count
        legal_mask(s, legal)
        assert legal[actions].all()
        children = []
        for j, a in zip(range(first, first + count), actions, strict=True):
            child = s.copy()
            apply_unchecked(child, int(a))
            children.append((j, child))
        if value == hs.WIN:
            # Pruning kept a winning move (after a swap the same side moves again).
            assert any(
                c[WINNER] == s[TO_MOVE] or exact(c, table) == (hs.WIN if c[TO_MOVE] == s[TO_MOVE] else hs.LOSS)
                for _, c in children
            ), "every winning move was pruned"
        if not swap_legal(s):
            # A dead cell stays only when every child is inferior (one move must stay).
            dead[:] = False
            inferior[:] = False
            dead_mask(s, dead)
            dead_mask(s, inferior)
            captured_pairs(s, 0, inferior)
            captured_pairs(s, 1, inferior)
            assert not dead[actions].any() or inferior[actions].all(), "a dead cell is a child"
        stack.extend(children)
    return proven


@pytest.mark.parametrize(("text", "least"), [("hex:3", 0), ("hex:4", 0), ("hex:4:swap", 0), ("hex:5", 7)])
def test_trees_never_contradict_exhaustive_search(text, least):
    """From the empty board, a first stone (swap pending) and random positions (at least
    `least` stones, which keeps exhaustive search of 5x5 nodes quick)."""
    spec = GameSpec.parse(text)
    rng = np.random.default_rng(7)
    table = hs.new_table(22)
    starts = [random_start(spec, rng, least) for _ in range(30)]
    if least == 0:
        starts += [spec.new_game().array, spec.new_game().apply(spec.cells // 2 - 1).array]
    proven = 0
    for s in starts:
        search = searched(spec, s, "all", simulations=200)
        proven += check_tree(search, s, table)
    # The knowledge did prove things, so the test checks them (fewer since the root's H-search
    # settles some roots before the tree proves much below them).
    assert proven > 25
