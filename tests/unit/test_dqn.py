import numpy as np
import pytest
import torch

from pipeline.dqn.agent import SelfPlayExperience, greedy, presented_legal, q_values
from pipeline.dqn.config import DQNConfig
from pipeline.dqn.memory import ReplayMemory
from pipeline.dqn.qnet import QNetSpec, QNetwork
from pipeline.dqn.td import td_target
from pipeline.games.base import GameSpec
from pipeline.players.dqn import DQNPlayer

pytestmark = pytest.mark.unit


def test_td_target_by_hand():
    reward = torch.tensor([0.1, 1.0, 0.0, 0.2])
    done = torch.tensor([False, True, False, False])
    same = torch.tensor([False, False, True, False])
    legal = torch.tensor([[True, False, True], [False, False, False], [True, True, True], [True, True, True]])
    target_q = torch.tensor([[0.5, 0.9, -0.2], [0.3, 0.3, 0.3], [0.3, 0.1, 0.7], [0.2, 0.8, 0.0]])
    online_q = torch.tensor([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.9], [0.9, 0.1, 0.0]])
    gamma = 0.9
    # Row 0: the opponent moves next; its best legal Q is 0.5 (0.9 is illegal): 0.1 - 0.9*0.5.
    # Row 1: the game ended with this move: the reward alone.
    # Row 2: the same player moves again (Connect6): 0 + 0.9*0.7.
    # Row 3: plain DQN takes the target's max 0.8; Double DQN lets the online net pick a=0
    #        and the target values it at 0.2.
    plain = td_target(reward, done, same, legal, target_q, gamma)
    double = td_target(reward, done, same, legal, target_q, gamma, online_q)
    assert plain.tolist() == pytest.approx([-0.35, 1.0, 0.63, 0.2 - 0.72])
    assert double.tolist() == pytest.approx([-0.35, 1.0, 0.63, 0.2 - 0.18])


def test_illegal_moves_are_never_chosen():
    q = np.array([5.0, 1.0, -2.0, 0.5])
    legal = np.array([False, True, True, True])
    assert greedy(q, legal) == 1
    spec = GameSpec.parse("gomoku:3:k3")
    net = QNetwork(spec, QNetSpec(blocks=0, channels=8))
    with torch.no_grad():
        net.head[-1].weight.zero_()
        net.head[-1].bias.copy_(torch.arange(9, dtype=torch.float32))  # prefers high cell numbers
    state = spec.new_game()
    for move in ("c1", "b1"):  # cells 8 and 7
        state.apply(move)
    player = DQNPlayer(net)
    player.start(spec, 1, 0)
    assert player.choose([0], [state]) == [6]


def test_hex_q_values_come_back_to_the_real_frame():
    spec = GameSpec.parse("hex:3")
    net = QNetwork(spec, QNetSpec(blocks=0, channels=8))
    with torch.no_grad():
        net.head[-1].weight.zero_()
        bias = torch.zeros(9)
        bias[1] = 1.0  # presented cell (0, 1)
        net.head[-1].bias.copy_(bias)
    state = spec.new_game().apply("c3")  # player 1 to move: presented transposed
    q = q_values(net, [state])[0]
    assert int(np.argmax(q)) == 3  # real cell (1, 0) is presented (0, 1)
    legal = presented_legal(state)
    assert legal.sum() == 8 and not legal[8]


def test_target_network_syncs_every_c_steps(tmp_path):
    import lightning as L

    from pipeline.dqn.module import DQNModule

    spec = GameSpec.parse("gomoku:3:k3")
    cfg = DQNConfig(
        net=QNetSpec(blocks=0, channels=8),
        warmup=32,
        batch_size=16,
        target_sync=3,
        parallel_games=4,
        epsilon_decay=10,
        lr=0.01,
    )

    def fit(steps):
        module = DQNModule(spec, cfg)
        trainer = L.Trainer(
            max_steps=steps,
            logger=False,
            enable_checkpointing=False,
            enable_progress_bar=False,
            enable_model_summary=False,
            accelerator="cpu",
            default_root_dir=tmp_path,
        )
        trainer.fit(module)
        same = all(
            torch.equal(a, b)
            for a, b in zip(module.q_net.state_dict().values(), module.target_net.state_dict().values(), strict=True)
        )
        return module, same

    module, same = fit(3)
    assert module.syncs == 1 and same
    module, same = fit(4)
    assert module.syncs == 1 and not same
    assert module.epsilon == pytest.approx(1.0 + 0.4 * (cfg.epsilon_end - 1.0))


def experience(spec: GameSpec, capacity: int, games: int, shaping: float, seed: int, steps: int) -> ReplayMemory:
    """The replay memory after `steps` moves of a tiny Q-network's self-play (`games` at
    once, every move random: epsilon 1; `shaping`: the line games' threat reward)."""
    memory = ReplayMemory(capacity, spec.obs_shape, spec.num_actions)
    exp = SelfPlayExperience(spec, QNetwork(spec, QNetSpec(blocks=0, channels=8)), memory, games, shaping, seed=seed)
    for _ in range(steps):
        exp.step(1.0)
    return memory


def test_connect6_transitions_know_when_the_same_player_moves_again():
    spec = GameSpec.parse("connect6:6")
    memory = experience(spec, 100, 1, 0.1, seed=0, steps=5)
    # plies 0..4: black one stone, white two (first then second), black two.
    assert memory.same_player[:5].tolist() == [False, True, False, True, False]
    assert (memory.reward[:5] >= 0).all() and (memory.reward[:5] <= 0.1).all()
    assert memory.next_legal[0].sum() == spec.cells - 1
    # Within a game, each transition's next state is the following transition's state.
    assert (memory.next_obs[:4] == memory.obs[1:5]).all()
    assert (memory.obs[0] == spec.new_game().observation()).all()


def test_hex_rewards_are_terminal_only():
    spec = GameSpec.parse("hex:3")
    memory = experience(spec, 200, 2, 0.5, seed=1, steps=30)
    n = len(memory)
    assert set(np.unique(memory.reward[:n])) <= {0.0, 1.0}
    assert (memory.reward[:n][memory.done[:n]] == 1.0).all()  # Hex has no draws: the last mover won
