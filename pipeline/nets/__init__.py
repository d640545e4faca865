"""Neural networks: the policy-value net, its evaluator adapter, training."""
