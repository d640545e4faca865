"""External engines as players: Gomocup brains and HTP (GTP) Hex engines, run as
subprocesses and driven through the one bot interface."""

from pipeline.players.engines.config import EngineConfig, is_engine_text, parse_engine
from pipeline.players.engines.player import EnginePlayer
from pipeline.players.engines.process import EngineSetupError

__all__ = ["EngineConfig", "EnginePlayer", "EngineSetupError", "is_engine_text", "parse_engine"]
