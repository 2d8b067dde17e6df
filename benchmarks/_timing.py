"""Wall-time helpers shared by the benchmark scripts."""

import time

__all__ = ['best_of', 'timed']


def best_of(function, repeat):
    """Best wall time of ``repeat`` calls of ``function`` and the value of
    the last call."""
    best, value = float('inf'), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - start)
    return best, value


def timed(function):
    """Wall time of one call of ``function`` and its value."""
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value
