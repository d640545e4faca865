"""Tree search over the compiled game kernels. Knows nothing of torch: a network reaches
search only through the evaluator protocol."""
