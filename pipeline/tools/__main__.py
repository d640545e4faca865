"""`python -m pipeline.tools`: the index of the measurement tools."""

from pipeline import tools

print(tools.__doc__)
