"""Wall-time helpers shared by the benchmark scripts."""

import time

__all__ = ['best_of', 'interleaved_best', 'timed']


def best_of(function, repeat):
    """Best wall time of ``repeat`` calls of ``function`` and the value of
    the last call."""
    best, value = float('inf'), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = function()
        best = min(best, time.perf_counter() - start)
    return best, value


def interleaved_best(functions, rounds):
    """``{name: (best time, last value)}`` of ``functions`` (``{name:
    (function, calls per round)}``), timed in ``rounds`` rounds that
    alternate between them, so that a machine whose speed drifts (other
    load, frequency changes) slows every contender alike; a ratio of two
    of these bests compares like with like."""
    results = {name: (float('inf'), None) for name in functions}
    for _ in range(rounds):
        for name, (function, calls) in functions.items():
            best, value = best_of(function, calls)
            results[name] = (min(best, results[name][0]), value)
    return results


def timed(function):
    """Wall time of one call of ``function`` and its value."""
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value
