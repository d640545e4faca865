"""One module per DVC stage, each a `run(context) -> report` (pipeline/stages/interface.py);
pipeline/stages/runner.py holds the table of them."""
