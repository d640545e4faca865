"""Entry point for Prefect deployments (prefect.yaml): the iteration flow of the package."""

from pipeline.orchestration.flows import iteration_flow

__all__ = ["iteration_flow"]
