"""The TD target for two-player games, written once so it can be checked by hand.

Q(s, a) is the value for the player to move in s. The next state s' belongs to the
opponent in alternating play, so its value for us is -max Q(s', .); when the same player
moves again (Connect6's second stone) it is +max Q(s', .):

    target = r + gamma * (1 - done) * sign * Q_target(s', a*)
    a* = argmax over legal a' of Q_target(s', a')   (DQN)
    a* = argmax over legal a' of Q_online(s', a')   (Double DQN)
    sign = +1 if the same player moves in s', else -1
"""

from __future__ import annotations

import torch

from pipeline.dqn.qnet import masked


def td_target(
    reward: torch.Tensor,
    done: torch.Tensor,
    same_player: torch.Tensor,
    next_legal: torch.Tensor,
    next_q_target: torch.Tensor,
    gamma: float,
    next_q_online: torch.Tensor | None = None,
) -> torch.Tensor:
    chooser = next_q_online if next_q_online is not None else next_q_target
    best = masked(chooser, next_legal).argmax(dim=1, keepdim=True)
    next_value = next_q_target.gather(1, best).squeeze(1)
    # A finished game has no legal next move; done zeroes its bootstrap anyway.
    sign = torch.where(same_player, torch.ones_like(reward), -torch.ones_like(reward))
    return reward + gamma * (~done).float() * sign * next_value
