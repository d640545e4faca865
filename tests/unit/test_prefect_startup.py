"""The temporary Prefect server's start-up wait: long enough for a fresh machine's first
start (database created and migrated, modules cold), and the user's setting when given."""

import pytest

from pipeline.runtime.prefect_server import FIRST_START_TIMEOUT_S, startup_timeout

pytestmark = pytest.mark.unit


def test_the_first_start_waits_longer_than_prefects_default(monkeypatch):
    monkeypatch.delenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", raising=False)
    assert startup_timeout() == FIRST_START_TIMEOUT_S > 20


def test_the_users_setting_wins(monkeypatch):
    monkeypatch.setenv("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "7")
    assert startup_timeout() == 7
