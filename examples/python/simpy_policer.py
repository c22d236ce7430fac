"""A SimPy model with a netcond premium policer in the loop.

An EF aggregate (Poisson packets, mean rate slightly above the committed
rate) goes through the premium TCP test's policer (token bucket TBs in front
of a premium buffer PBs) onto a 2048 kbit/s link. SimPy keeps the clock (in
seconds, turned into integer nanoseconds for netcond), the buffer and the
link; netcond decides each packet's fate and is told of each departure.
"""

import random

import simpy

import netcond
from netcond import Verdict

LINK_BPS = 2_048_000
NS = 1_000_000_000


def source(env, link_queue, policer, stats, rate_bps, rng, until):
    while env.now < until:
        size = rng.choice([64, 576, 1500])
        yield env.timeout(rng.expovariate(rate_bps / (8 * 750)))
        v = policer.offer(int(env.now * NS), size)
        stats[v] += 1
        if v is Verdict.ADMITTED:
            link_queue.put(size)


def link(env, link_queue, policer, sent):
    while True:
        size = yield link_queue.get()
        yield env.timeout(size * 8 / LINK_BPS)
        policer.dequeued(size)  # the packet left the premium buffer
        sent.append(size)


def main():
    rng = random.Random(7)
    env = simpy.Environment()
    q = simpy.Store(env)
    # Committed rate 12 % of the link, TBs 11000 B, PBs 13000 B (> TBs + one packet).
    pol = netcond.PremiumPolicer(rate=int(0.12 * LINK_BPS), tbs=11000, pbs=13000)
    stats = {v: 0 for v in Verdict}
    sent = []
    until = 60.0
    env.process(source(env, q, pol, stats, 1.3 * 0.12 * LINK_BPS, rng, until))
    env.process(link(env, q, pol, sent))
    env.run(until=until + 1)
    total = sum(stats.values())
    print(f"{total} packets offered over {until:g} s; committed {pol.profile.rate} bit/s")
    for v, n in stats.items():
        print(f"  {v.name.lower():13s} {n:6d} ({100 * n / total:5.1f} %)")
    print(f"  carried {sum(sent) * 8 / until / 1e3:.1f} kbit/s")
    assert pol.profile.pbs_exceeds_tbs_plus_packet()
    # The link serves the buffer far faster than the committed rate, so with
    # PBs > TBs + one packet no conforming packet finds the buffer full.
    assert stats[Verdict.BUFFER_DROP] == 0
    assert stats[Verdict.POLICER_DROP] > 0
    assert sum(sent) * 8 / until <= pol.profile.rate + 11000 * 8 / until


if __name__ == "__main__":
    main()
