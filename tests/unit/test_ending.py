"""The end of a run: the timers Snakemake leaves pending are cancelled (their function
never runs, so no thread holds the exit back) and the collector is frozen."""

from __future__ import annotations

import gc
import threading

import pytest
from ciphersweep.campaign import ending


@pytest.fixture
def unfrozen():
    yield
    gc.unfreeze()


def test_pending_timers_are_cancelled_and_never_fire(unfrozen) -> None:
    fired: list[str] = []
    timers = [threading.Timer(600.0, fired.append, ("late",)) for _ in range(3)]
    for t in timers:
        t.start()
    assert set(timers) <= set(ending.pending_timers())

    assert ending.end_promptly() >= 3
    for t in timers:
        t.join()  # returns once the cancelled timer's thread has ended
        assert not t.is_alive()
    assert fired == []
    assert not set(timers) & set(ending.pending_timers())


def test_a_fired_timer_is_not_pending(unfrozen) -> None:
    done = threading.Event()
    t = threading.Timer(0.0, done.set)
    t.start()
    t.join()
    assert done.is_set()
    assert t not in ending.pending_timers()


def test_other_threads_are_left_alone(unfrozen) -> None:
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:
        ending.end_promptly()
        assert worker.is_alive()
    finally:
        stop.set()
        worker.join()


def test_the_collector_is_frozen(unfrozen) -> None:
    gc.unfreeze()
    kept = [object() for _ in range(10)]
    before = gc.get_freeze_count()
    ending.end_promptly()
    assert gc.get_freeze_count() > before
    assert kept
