"""A tiny xorshift64* generator whose state is a uint64[1] array, so compiled code in any
thread draws reproducible numbers from an explicit seed."""

import numpy as np
from numba import njit

_MULT = np.uint64(0x2545F4914F6CDD1D)
_GOLDEN = 0x9E3779B97F4A7C15


def make_rng(seed: int) -> np.ndarray:
    """Seed through splitmix64 so nearby seeds give unrelated streams (and never zero)."""
    z = (int(seed) + _GOLDEN) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    z ^= z >> 31
    return np.array([z or 1], dtype=np.uint64)


@njit(cache=True, nogil=True)
def next_u64(rng):
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * _MULT


@njit(cache=True, nogil=True)
def rand_below(rng, n):
    return np.int64((next_u64(rng) >> np.uint64(33)) % np.uint64(n))
