"""Random call sequences against a simple model, on the real server.

Windows are long, so nothing leaves them during a test: the model is just "units accepted
so far", and each call must be accepted exactly when its cost still fits under the limit.
"""

import random

import pytest

from kit.commands import call


W = 600000
SEEDS = range(8)


def model_run(r, algorithm, seed):
    rng = random.Random(seed)
    limit = rng.randint(0, 30)
    used = 0
    for _ in range(60):
        cost = rng.randint(1, 5)
        if rng.random() < 0.25:
            rep = call(r, algorithm + "_ro", "k", W, limit, "COST", cost)
            fits = used + cost <= limit
            assert (rep.allowed, rep.remaining) == (int(fits), max(limit - used, 0))
            continue
        rep = call(r, algorithm, "k", W, limit, "COST", cost)
        fits = used + cost <= limit
        used += cost if fits else 0
        assert rep.allowed == int(fits)
        assert rep.remaining == limit - used
        if fits:
            assert rep.retry_after == 0
        elif cost > limit:
            assert rep.retry_after == -1
        else:
            assert 0 < rep.retry_after <= W
    return used


@pytest.mark.parametrize("seed", SEEDS)
def test_slide_accepts_exactly_what_fits_and_stores_one_unique_member_per_unit(r, seed):
    used = model_run(r, "slide", seed)
    members = r.zrange("k", 0, -1)
    assert len(members) == len(set(members)) == used
    assert all(m.isdigit() for m in members)


@pytest.mark.parametrize("seed", SEEDS)
def test_fixed_accepts_exactly_what_fits_and_counts_every_unit(r, seed):
    used = model_run(r, "fixed", seed)
    assert int(r.get("k") or 0) == used
