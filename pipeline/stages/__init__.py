"""One module per DVC stage; each stage is a function of (params, paths)."""

STAGES = ("selfplay", "train", "evaluate", "promote", "report")  # the order of one iteration
