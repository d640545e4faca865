"""The DQN baseline (the earlier approach of two of the background studies): Q-eval and
Q-target networks, replay memory, epsilon-greedy self-play, RMSProp."""
