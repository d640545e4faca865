import json

import numpy as np
import pytest
import torch

from pipeline.games.base import GameSpec
from pipeline.nets.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from pipeline.nets.resnet import NetSpec, PolicyValueNet
from pipeline.selfplay.replay import Positions, ReplayError, augment, load_window, read_shard, spec_header, write_shard
from pipeline.training.data import ReplayDataModule, value_scale, value_target

pytestmark = pytest.mark.unit

# A position per game where the player to move has exactly one winning cell.
FORCED = {
    "gomoku:7:k4": ["a7", "g1", "b6", "g2", "c5", "f1"],  # black wins at d4
    # Exact four: black's d1 would make five (no win); white threatens h4, so h4 is forced.
    "gomoku:6x8:k4:exact": ["a1", "h6", "b1", "h5", "c1", "h3", "e1", "g6"],
    "connect6:8": ["a1", "h8", "h7", "b1", "c1", "h5", "h4", "d1", "e1", "a8", "b8"],  # black: f1 wins
    "hex:5": ["c1", "b5", "c2", "a2", "c3", "a3", "c4", "e1"],  # black: c5 wins
    # After the swap white holds a2; white to move (a transposed frame) must stop b4/c4.
    "hex:4:swap": ["b1", "swap", "c1", "d4", "c2", "d3", "c3"],
}


def forced_state(text):
    spec = GameSpec.parse(text)
    state = spec.new_game()
    for move in FORCED[text]:
        state.apply(move)
    return spec, state


@pytest.mark.parametrize("text", list(FORCED))
def test_augmentation_keeps_the_forced_cell_under_every_symmetry(text):
    spec, state = forced_state(text)
    wins = state.candidate_mask()
    assert wins.sum() >= 1
    obs = state.observation()
    pi = np.zeros(spec.num_actions, dtype=np.float32)
    forced_presented = [state.presented_action(a) for a in np.flatnonzero(wins)]
    pi[forced_presented] = 1.0 / len(forced_presented)
    for perm in spec.symmetries:
        rng = _fixed(spec, perm)
        obs_t, pi_t = augment(spec, obs, pi, rng)
        # Replay the moves through the symmetry (in the presented frame of the mover).
        moved = spec.new_game()
        for a in state.history:
            if a == spec.cells:
                moved.apply(a)
                continue
            moved.apply(int(perm[a]) if not _transposed(state) else _through_frame(spec, perm, a))
        assert np.array_equal(moved.observation(), obs_t)
        expected = {moved.presented_action(a) for a in np.flatnonzero(moved.candidate_mask())}
        assert set(np.flatnonzero(pi_t)) == expected


def _transposed(state):
    return state.spec.game == "hex" and state.current_player == 1


def _through_frame(spec, perm, a):
    # Map a raw cell into the presented (transposed) frame, apply the symmetry there, map back.
    n = spec.width
    r, c = divmod(a, n)
    t = int(perm[c * n + r])
    r2, c2 = divmod(t, n)
    return c2 * n + r2


class _fixed:
    """A stand-in generator whose `integers` picks a given symmetry."""

    def __init__(self, spec, perm):
        self.index = next(i for i, p in enumerate(spec.symmetries) if p is perm)

    def integers(self, n):
        return self.index


def make_positions(spec, n=5):
    rng = np.random.default_rng(0)
    return Positions(
        obs=rng.integers(0, 2, (n, *spec.obs_shape), dtype=np.uint8),
        pi=np.full((n, spec.num_actions), 1.0 / spec.num_actions, dtype=np.float32),
        z=rng.choice([-1, 1], n).astype(np.int8),
        game_id=np.arange(n, dtype=np.int32),
        ply=np.zeros(n, dtype=np.int16),
        plies_left=rng.integers(1, 30, n).astype(np.int16),
        q=rng.uniform(-1, 1, n).astype(np.float32),
    )


def test_a_shard_without_plies_left_reads_them_as_unknown(tmp_path):
    spec = GameSpec.parse("gomoku:5x5:k4")
    pos = make_positions(spec)
    path = tmp_path / "old.npz"
    header = {"format": "zero-replay/1", **spec_header(spec), "positions": 5}
    old = {k: getattr(pos, k) for k in ("obs", "pi", "z", "game_id", "ply")}
    np.savez_compressed(path, **old, header=np.array(json.dumps(header)))  # as written before the field
    back = read_shard(path, spec)
    assert np.array_equal(back.z, pos.z) and back.plies_left.tolist() == [0] * 5
    assert np.isnan(back.q).all()  # the searched value unknown: the result alone is the target


def test_the_value_target_is_discounted_by_the_moves_left():
    spec = GameSpec.parse("gomoku:5x5:k4")
    pos = make_positions(spec, n=4)
    pos.z[:] = [1, -1, 1, 0]
    pos.plies_left[:] = [1, 3, 0, 5]
    assert value_scale(pos.plies_left, 0.9).tolist() == pytest.approx([1.0, 0.81, 1.0, 0.6561])
    for discount, want in ((1.0, [1.0, -1.0, 1.0, 0.0]), (0.9, [1.0, -0.81, 1.0, 0.0])):
        dm = ReplayDataModule(spec, positions=pos, batch_size=4, augment=False, value_discount=discount)
        dm.setup()
        _, _, z = dm.collate([0, 1, 2, 3])
        assert z.tolist() == pytest.approx(want)


def test_the_value_target_mixes_in_the_searched_value_where_it_is_known():
    spec = GameSpec.parse("gomoku:5x5:k4")
    pos = make_positions(spec, n=4)
    pos.z[:] = [1, -1, 1, 0]
    pos.q[:] = [0.2, np.nan, -1.0, 0.5]
    pos.plies_left[:] = [1, 3, 1, 5]
    assert value_target(pos.z.astype(np.float32), pos.q, 0.5).tolist() == pytest.approx([0.6, -1.0, 0.0, 0.25])
    cases = (
        (0.0, 1.0, [1.0, -1.0, 1.0, 0.0]),  # the default: the result alone, q never read
        (0.5, 1.0, [0.6, -1.0, 0.0, 0.25]),
        (1.0, 1.0, [0.2, -1.0, -1.0, 0.5]),
        (0.5, 0.9, [0.6, -0.81, 0.0, 0.25]),  # the discount scales the result, not q
    )
    for weight, discount, want in cases:
        dm = ReplayDataModule(
            spec, positions=pos, batch_size=4, augment=False, value_discount=discount, searched_value_weight=weight
        )
        dm.setup()
        _, _, z = dm.collate([0, 1, 2, 3])
        assert z.tolist() == pytest.approx(want)


def test_shard_round_trip_and_no_temp_files(tmp_path):
    spec = GameSpec.parse("hex:5:swap")
    pos = make_positions(spec)
    path = write_shard(tmp_path / "gen-0001" / "shard-0000.npz", pos, {**spec_header(spec), "generation": 1})
    back = read_shard(path, spec)
    assert np.array_equal(back.obs, pos.obs) and np.array_equal(back.z, pos.z)
    assert np.array_equal(back.plies_left, pos.plies_left) and np.array_equal(back.q, pos.q)
    assert back.header["generation"] == 1 and back.header["positions"] == 5
    assert [p.name for p in path.parent.iterdir()] == ["shard-0000.npz"]


def test_corrupt_truncated_and_foreign_shards_name_the_file(tmp_path):
    spec = GameSpec.parse("gomoku:5x5:k4")
    good = write_shard(tmp_path / "gen-0001" / "shard-0000.npz", make_positions(spec), spec_header(spec))
    truncated = tmp_path / "gen-0001" / "shard-0001.npz"
    truncated.write_bytes(good.read_bytes()[:200])
    with pytest.raises(ReplayError, match="shard-0001.npz: corrupt or truncated"):
        read_shard(truncated, spec)
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a zip at all")
    with pytest.raises(ReplayError, match="garbage.npz"):
        read_shard(garbage)
    other = GameSpec.parse("gomoku:6x6:k4")
    foreign = write_shard(tmp_path / "foreign.npz", make_positions(other), spec_header(other))
    with pytest.raises(ReplayError, match="foreign.npz: shard is for .*height=6"):
        read_shard(foreign, spec)
    np.savez(tmp_path / "plain.npz", x=np.zeros(3))
    with pytest.raises(ReplayError, match="plain.npz: not a replay shard"):
        read_shard(tmp_path / "plain.npz")
    # In a window: an error naming the file, or a skip that names it.
    with pytest.raises(ReplayError, match="shard-0001.npz"):
        load_window(tmp_path, spec, window=2)
    positions, skipped = load_window(tmp_path, spec, window=2, skip_corrupt=True)
    assert len(positions) == 5 and len(skipped) == 1 and "shard-0001.npz" in skipped[0]


def test_window_takes_the_last_generations(tmp_path):
    spec = GameSpec.parse("gomoku:5x5:k4")
    for gen in (1, 2, 3):
        write_shard(tmp_path / f"gen-{gen:04d}" / "shard-0000.npz", make_positions(spec, n=gen), spec_header(spec))
    positions, _ = load_window(tmp_path, spec, window=2)
    assert len(positions) == 2 + 3
    with pytest.raises(ReplayError, match="no replay shards"):
        load_window(tmp_path / "empty", spec, window=2)


def test_datamodule_batches_are_augmented_and_seeded(tmp_path):
    spec = GameSpec.parse("gomoku:5x5:k4")
    pos = make_positions(spec, n=64)
    batches = []
    for _ in range(2):
        dm = ReplayDataModule(spec, positions=pos, batch_size=16, seed=4)
        dm.setup()
        batches.append(next(iter(dm.train_dataloader())))
    assert all(torch.equal(a, b) for a, b in zip(batches[0], batches[1], strict=True))
    obs, pi, z = batches[0]
    assert obs.shape == (16, *spec.obs_shape) and pi.shape == (16, spec.num_actions) and z.shape == (16,)


def test_foreign_and_damaged_checkpoints(tmp_path):
    spec = GameSpec.parse("gomoku:7:k4")
    path = save_checkpoint(tmp_path / "c.pt", PolicyValueNet(spec, NetSpec(blocks=1, channels=8)), {"note": 1})
    net, meta = load_checkpoint(path, spec)
    assert meta == {"note": 1} and net.net.channels == 8
    with pytest.raises(CheckpointError, match="c.pt: checkpoint is for gomoku:7x7:k4:freestyle, not gomoku:9x9"):
        load_checkpoint(path, GameSpec.parse("gomoku:9"))
    bad = tmp_path / "bad.pt"
    bad.write_bytes(path.read_bytes()[:100])
    with pytest.raises(CheckpointError, match="bad.pt: not a readable checkpoint"):
        load_checkpoint(bad)
    with pytest.raises(CheckpointError, match="missing.pt: no such checkpoint"):
        load_checkpoint(tmp_path / "missing.pt")
