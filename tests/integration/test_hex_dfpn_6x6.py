"""All 36 first moves of 6x6 Hex by DFPN (about half a minute on a quiet machine, a few
on a shared one: too slow for the unit suite). No exhaustive reference is within reach,
so two solver settings with different connection knowledge must agree, the table must be
symmetric under the 180-degree rotation, and the centre must win."""

from __future__ import annotations

import pytest

from pipeline.tactics.hex import dfpn as hd
from pipeline.tactics.hex.solve import dfpn_opening_table, new_dfpn_table
from tests.unit.test_hex_tactics import centre_cells

pytestmark = pytest.mark.integration


def test_six_by_six_openings():
    full = dfpn_opening_table(6, 5_000_000, tt=new_dfpn_table(21))
    assert (full.values != 0).all()
    assert (full.values == full.values[::-1, ::-1]).all()
    assert all(full.values[r, c] == 1 for r, c in centre_cells(6))
    # H-search without derived cell-to-cell connections and with smaller lists: other
    # proofs, the same values (the symmetric half).
    narrow = dfpn_opening_table(
        6,
        5_000_000,
        hd.USE_HSEARCH | hd.USE_INFERIOR,
        tt=new_dfpn_table(21),
        symmetric=True,
        limits=hd.default_limits(8, 16, 4, False),
    )
    assert (narrow.values == full.values).all()
