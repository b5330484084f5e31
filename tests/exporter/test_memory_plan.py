"""memory_plan.py: the greedy planner never lets live tensors overlap, and reuses memory."""

import random

import pytest

from exporter.memory_plan import (ALIGNMENT, Buffer, align_up, check_plan, live_ranges,
                                  plan_memory)


def _overlapping_pairs(buffers, plan):
    bad = []
    for i, a in enumerate(buffers):
        for b in buffers[i + 1:]:
            if a.start <= b.end and b.start <= a.end:
                oa, ob = plan.offsets[a.key], plan.offsets[b.key]
                if not (oa + a.size <= ob or ob + b.size <= oa):
                    bad.append((a, b))
    return bad


def test_a_chain_reuses_the_memory_of_dead_tensors():
    # x -> a -> b -> c -> y: each instruction reads one tensor and writes the next.
    args = [[0, 1], [1, 2], [2, 3], [3, 4]]
    ranges = live_ranges(args, {0, 1, 2, 3, 4}, inputs=[0], outputs=[4])
    assert ranges == {0: (0, 0), 1: (0, 1), 2: (1, 2), 3: (2, 3), 4: (3, 3)}
    buffers = [Buffer(k, 100, *ranges[k]) for k in range(5)]
    plan = plan_memory(buffers)
    assert _overlapping_pairs(buffers, plan) == []
    # At most two tensors are live at once, so two 112-byte slots suffice.
    assert plan.arena_size == 2 * align_up(100) == 224
    assert plan.unshared_size == 5 * 112
    assert plan.arena_size < plan.unshared_size


def test_live_tensors_never_share_and_offsets_are_aligned():
    buffers = [Buffer(0, 64, 0, 3), Buffer(1, 10, 1, 2), Buffer(2, 33, 2, 5),
               Buffer(3, 64, 4, 5), Buffer(4, 1, 0, 5)]
    plan = plan_memory(buffers)
    check_plan(buffers, plan)
    assert _overlapping_pairs(buffers, plan) == []
    assert all(off % ALIGNMENT == 0 for off in plan.offsets.values())
    assert plan.offsets[0] == 0 and plan.offsets[3] == 0   # the two 64s do not meet


def test_inputs_live_from_the_start_and_outputs_to_the_end():
    args = [[5, 6], [6, 7], [7, 8]]
    ranges = live_ranges(args, {5, 6, 7, 8, 9}, inputs=[5, 9], outputs=[6])
    assert ranges[5] == (0, 0)
    assert ranges[6] == (0, 2)        # output: kept to the last instruction
    assert ranges[9] == (0, 0)        # an unused input still gets memory at the start


@pytest.mark.parametrize("seed", range(20))
def test_random_graphs(seed):
    rng = random.Random(seed)
    n_instr = rng.randint(1, 30)
    buffers = []
    for key in range(rng.randint(1, 40)):
        start = rng.randrange(n_instr)
        buffers.append(Buffer(key, rng.choice([0, 1, 4, 16, 100, 1000, 4096]),
                              start, rng.randint(start, n_instr - 1)))
    plan = plan_memory(buffers)
    assert _overlapping_pairs(buffers, plan) == []
    check_plan(buffers, plan)
    peak_live = max(sum(align_up(b.size) for b in buffers if b.start <= t <= b.end)
                    for t in range(n_instr))
    assert peak_live <= plan.arena_size <= plan.unshared_size


def test_the_plan_is_deterministic():
    buffers = [Buffer(k, 48, k % 3, k % 3 + 2) for k in range(9)]
    assert plan_memory(buffers) == plan_memory(list(reversed(buffers)))


def test_check_plan_catches_an_overlap():
    buffers = [Buffer(0, 32, 0, 1), Buffer(1, 32, 1, 2)]
    plan = plan_memory(buffers)
    bad = type(plan)(offsets={0: 0, 1: 16}, arena_size=64, unshared_size=64)
    check_plan(buffers, plan)
    with pytest.raises(AssertionError):
        check_plan(buffers, bad)
