"""The chaos soak's questions asked in memory (`tests/sim/world.py`): thousands of random
interleavings of results, crashes, kills, cancels, lapsed leases, configuration faults, pool
scales and failed launch steps between conductor ticks, each checked after every step — one end
per attempt, never two live attempts for a ticket, a lapsed lease always fenced, a configuration
fault never counted, a pool never over its size, nothing done twice — and then drained: every
ticket ends done or blocked (nothing lost)."""

from __future__ import annotations

import random

import pytest

from tests.sim.world import RESULTS, World

RUNS = 2000
STEPS = 80


def _chaos(world: World) -> None:
    rng = world.rng
    roll = rng.random()
    live = world.live()
    if roll < 0.08:
        world.add_ticket()
    elif roll < 0.30:
        world.tick()
    elif roll < 0.45 and live:
        world.result(rng.choice(live), rng.choice(RESULTS))
    elif roll < 0.52 and live:
        world.crash(rng.choice(live))
    elif roll < 0.57 and live:
        world.kill(rng.choice(live))
    elif roll < 0.62 and live:
        world.cancel(rng.choice(live))
    elif roll < 0.68:
        world.advance(rng.choice((11, 20)) * 60_000)  # past a lease: it lapses
    elif roll < 0.72:
        world.faults = not world.faults
    elif roll < 0.75:
        world.scale(rng.randint(1, world.max_workers), force=rng.random() < 0.5)
    else:
        world.advance(rng.randrange(1, 120_000))
    world.supervise()


def _drain(world: World) -> None:
    """No more chaos: faults fixed, every live agent records a result, time passes, ticks run."""
    world.faults = False
    for _ in range(400):
        if world.settled():
            return
        for a in world.live():
            world.result(a, "completed")
        world.advance(301_000)  # past any backoff
        world.tick()
        world.check()
    raise AssertionError(f"lost: {world.pending()}")


def run(seed: int) -> World:
    world = World(random.Random(seed), max_workers=1 + seed % 4)
    for _ in range(2):
        world.add_ticket()
    for _ in range(STEPS):
        _chaos(world)
        world.check()
    _drain(world)
    return world


@pytest.mark.parametrize("block", range(4))
def test_thousands_of_interleavings_lose_nothing_and_do_nothing_twice(block: int) -> None:
    for seed in range(block * RUNS // 4, (block + 1) * RUNS // 4):
        try:
            run(seed)
        except AssertionError as exc:
            raise AssertionError(f"seed {seed}: {exc}") from exc


def test_the_simulator_reaches_every_end() -> None:
    """The runs above are only worth what they reach: each kind of end happens in them."""
    seen = " ".join(" ".join(run(seed).log) for seed in range(60))
    for what in (
        "result completed",
        "result failed",
        "result blocked",
        "crash",
        "kill",
        "cancel",
        "expire",
        "fenced",
        "Wait",
        "Retry",
        "GiveUp",
        "MovedOn",
        "launch dsp",
        "scale to",
        "drains",
    ):
        assert what in seen, what
