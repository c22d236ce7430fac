// PIE cross-check: the same queue-delay inputs into ns-3's own PieQueueDisc
// and, in the same simulation, netcond's PIE (netcond_pie_*, Linux sch_pie's
// integers), and the drop probability compared after every update.
//
// The inputs: one packet leaves each queue 64 ns before each update, with a
// sojourn time the trace chooses (the packet's timestamp is set after its
// enqueue, on the ns-3 item and in netcond's call), and another packet stays
// queued behind it, so that both sides take that sojourn as the queue delay.
// At most two packets are ever queued, so neither side drops at enqueue and
// the inputs stay the same. Every instant and delay is a multiple of 64 ns,
// Linux's time unit, so netcond measures the delays exactly.
//
// The trace of delays (0 to 240 ms) climbs, holds, falls, hovers around
// QDELAY_REF and jumps, so that the probability passes through every range
// in which RFC 8033 scales the update (below 1e-6, 1e-5, ..., 0.1, above),
// is capped at 2 % per update above 10 % (section 5.5), reaches one and
// comes back to zero.
//
// Where the two definitions differ, and how the check keeps out of it:
//  - ns-3 holds the probability at 0 during its burst allowance and spends
//    the allowance per update; Linux computes the probability throughout and
//    spends the allowance per departure: both sides get MaxBurstAllowance 0.
//  - With no delay at two updates in a row ns-3 decays the probability by
//    2 %, Linux by 1/64: the trace never has two zero delays in a row.
//  - Above 250 ms Linux adds 2 % per update: the trace stays below 240 ms.
//  - Linux lets the probability grow past one: netcond runs with bound_prob.
//
// Tolerance: ns-3 computes in double (relative error about 1e-16 per step);
// netcond in integers, with alpha and beta scaled to units of 2^-56 per
// 64 ns and truncated, the worst truncation being alpha / 2048 (281474 for
// 281474.98, 3.5e-6 relative). Each update's increment thus differs by at
// most 3.6e-6 of itself, plus a few units of 2^-56, and the differences add
// up at most as the increments' magnitudes do: after update k the two
// probabilities may differ by 4e-6 x V_k + 1e-12, V_k the sum of |change of
// ns-3's probability| over updates 1..k. The program prints the largest
// difference and the largest ratio to that bound; it exits 1 if any update
// exceeds the bound, or if the trace did not reach every range.
// --alpha-bias runs netcond with alpha one sixteenth higher (3/16), which
// must fail (the check of the check).
// Ends with "netcond-pie-crosscheck: N updates in R runs, A within
// tolerance, D outside".

#include "netcond.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace ns3;

// ns-3's PieQueueDisc keeps its probability private and traces nothing: its
// address is taken through an explicit instantiation, where C++ does not
// check access ([temp.spec]).
namespace
{
struct DropProbTag
{
    typedef double PieQueueDisc::*type;
    friend type Get(DropProbTag);
};

template <typename Tag, typename Tag::type M>
struct Rob
{
    friend typename Tag::type Get(Tag)
    {
        return M;
    }
};
} // namespace

template struct Rob<DropProbTag, &PieQueueDisc::m_dropProb>;

namespace
{

const uint64_t kMs = 1000000;
const uint64_t kUnit = 64; // ns

// SplitMix64.
struct Gen
{
    uint64_t s;

    uint64_t Next()
    {
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
};

// The delays (ns, multiples of 64), one per update.
std::vector<uint64_t>
MakeDelays(uint64_t seed, size_t n, uint64_t ref)
{
    Gen g{seed};
    std::vector<uint64_t> d;
    auto units = [](double ms) { return uint64_t(std::llround(ms * 1e6 / 64.0)) * kUnit; };
    while (d.size() < n)
    {
        const uint64_t r = g.Next();
        const size_t len = 50 + r % 400;
        const double refMs = double(ref) / 1e6;
        switch ((r >> 16) % 6)
        {
        case 0: // hold high: the probability climbs to its cap and to one
            for (size_t i = 0; i < len; i++)
            {
                d.push_back(units(150 + double(g.Next() % 9000) / 100));
            }
            break;
        case 1: // low: the probability falls back to zero
            for (size_t i = 0; i < len; i++)
            {
                d.push_back(units(0.2 + double(g.Next() % 400) / 100));
            }
            break;
        case 2: // hover around QDELAY_REF: small probabilities
            for (size_t i = 0; i < len; i++)
            {
                d.push_back(units(refMs * (0.9 + double(g.Next() % 2100) / 10000)));
            }
            break;
        case 3: // a ramp up and down
            for (size_t i = 0; i < len; i++)
            {
                const double x = double(i) / double(len);
                d.push_back(units(240 * (x < 0.5 ? 2 * x : 2 - 2 * x)));
            }
            break;
        case 4: // steps, with single zero delays between them
            for (size_t i = 0; i < len; i++)
            {
                d.push_back(i % 7 == 3 ? 0 : units(double(g.Next() % 24000) / 100));
            }
            break;
        default: // just above QDELAY_REF for long: the probability creeps up
            for (size_t i = 0; i < len; i++)
            {
                d.push_back(units(refMs * 1.05 + double(g.Next() % 100) / 100));
            }
            break;
        }
    }
    d.resize(n);
    // Never two zero delays in a row (the decays differ).
    for (size_t i = 1; i < n; i++)
    {
        if (d[i] == 0 && d[i - 1] == 0)
        {
            d[i] = kUnit;
        }
    }
    return d;
}

Ptr<Ipv4QueueDiscItem>
Item()
{
    Ptr<Packet> p = Create<Packet>(1000 - 28);
    UdpHeader udp;
    udp.SetSourcePort(1000);
    udp.SetDestinationPort(9);
    p->AddHeader(udp);
    Ipv4Header h;
    h.SetSource(Ipv4Address("10.0.0.1"));
    h.SetDestination(Ipv4Address("10.0.1.1"));
    h.SetProtocol(17);
    h.SetPayloadSize(p->GetSize());
    return Create<Ipv4QueueDiscItem>(p, Address(), 0x0800, h);
}

struct PieRun
{
    const char* name;
    double a, b;     // Hz
    uint64_t tUpdate; // ns
    uint64_t ref;     // ns
};

struct Result
{
    size_t updates = 0, within = 0;
    bool ok = true;
};

bool g_alphaBias = false;

Result
RunOne(const PieRun& c, uint64_t seed, size_t n)
{
    const std::string label = std::string(c.name) + ", seed " + std::to_string(seed) +
                              (g_alphaBias ? ", netcond alpha + 1/16" : "");
    const std::vector<uint64_t> delays = MakeDelays(seed, n + 2, c.ref);

    Ptr<PieQueueDisc> q = CreateObject<PieQueueDisc>();
    q->SetAttribute("A", DoubleValue(c.a));
    q->SetAttribute("B", DoubleValue(c.b));
    q->SetAttribute("Tupdate", TimeValue(NanoSeconds(c.tUpdate)));
    q->SetAttribute("QueueDelayReference", TimeValue(NanoSeconds(c.ref)));
    q->SetAttribute("MaxBurstAllowance", TimeValue(Seconds(0)));
    q->Initialize();
    UintegerValue mean;
    q->GetAttribute("MeanPktSize", mean);

    netcond_pie_params p;
    std::memset(&p, 0, sizeof p);
    p.target_ns = c.ref;
    p.t_update_ns = c.tUpdate;
    p.max_burst_ns = 0;
    p.tick_hz = 1000000000u;
    p.alpha = uint32_t(std::lround(c.a * 16)) + (g_alphaBias ? 1 : 0);
    p.beta = uint32_t(std::lround(c.b * 16));
    p.limit = q->GetMaxSize().GetValue();
    p.mtu = uint32_t(mean.Get());
    p.bound_prob = 1;
    netcond_pie_profile prof;
    netcond_pie st;
    int rc = netcond_pie_profile_config(&prof, &p);
    if (rc != NETCOND_OK || netcond_pie_config(&st, &prof, 0) != NETCOND_OK)
    {
        std::printf("%s: netcond refused the configuration: %s\n", label.c_str(),
                    netcond_strerror(rc));
        Result r;
        r.ok = false;
        return r;
    }

    // The two packets each side holds: (ns-3 item, timestamp ns).
    struct Held
    {
        Ptr<QueueDiscItem> item;
        uint64_t ts;
    };
    std::vector<Held> fifo;
    uint64_t backlog = 0;
    Result r;
    double variation = 0, prev = 0, maxDiff = 0, maxRatio = 0;
    size_t shown = 0;
    // Ranges visited: p = 0 after a positive p, [0, 1e-6), [1e-6, 1e-5), ...,
    // [0.01, 0.1), [0.1, 1), 1.
    bool range[9] = {false, false, false, false, false, false, false, false, false};
    bool wasPositive = false;

    auto x = [&](size_t k) { return k * c.tUpdate - kUnit; }; // departure before update k
    auto enqueue = [&](size_t k) {
        // The packet that leaves at x(k): its timestamp gives delay d[k].
        Ptr<Ipv4QueueDiscItem> item = Item();
        q->Enqueue(item);
        const uint64_t ts = x(k) - std::min(delays[k], x(k));
        item->SetTimeStamp(NanoSeconds(int64_t(ts)));
        fifo.push_back({item, ts});
        backlog += item->GetSize();
    };
    auto depart = [&]() {
        const uint64_t now = uint64_t(Simulator::Now().GetNanoSeconds());
        Ptr<QueueDiscItem> out = q->Dequeue();
        NS_ABORT_MSG_IF(!out || fifo.empty() || out != fifo.front().item,
                        "the ns-3 queue did not hand out the expected packet");
        backlog -= out->GetSize();
        netcond_pie_on_dequeue(&st, &prof, now, fifo.front().ts, out->GetSize(), backlog);
        fifo.erase(fifo.begin());
    };
    auto update = [&]() {
        const uint64_t now = uint64_t(Simulator::Now().GetNanoSeconds());
        netcond_pie_poll(&st, &prof, now, backlog);
    };
    auto compare = [&](size_t k) {
        const double ns3p = (*q).*Get(DropProbTag());
        const double ncp = double(netcond_pie_prob(&st)) / double(NETCOND_PIE_MAX_PROB);
        variation += std::fabs(ns3p - prev);
        prev = ns3p;
        const double diff = std::fabs(ns3p - ncp);
        const double bound = 4e-6 * variation + 1e-12;
        maxDiff = std::max(maxDiff, diff);
        maxRatio = std::max(maxRatio, diff / bound);
        r.updates++;
        if (diff <= bound)
        {
            r.within++;
        }
        else
        {
            r.ok = false;
            if (shown++ < 10)
            {
                std::printf("%s: update %zu (delay %.6f ms): ns-3 %.12g, netcond %.12g, "
                            "difference %.3g > bound %.3g\n",
                            label.c_str(), k, double(delays[k]) / 1e6, ns3p, ncp, diff, bound);
            }
        }
        if (ns3p == 0 && wasPositive)
        {
            range[0] = true;
        }
        wasPositive = ns3p > 0;
        if (ns3p >= 1)
        {
            range[8] = true;
        }
        else if (ns3p > 0)
        {
            int e = 1;
            for (double t = 1e-6; e < 7 && ns3p >= t; t *= 10)
            {
                e++;
            }
            range[e] = true;
        }
    };

    // Packet 1 before the first departure; then for each update k: the next
    // packet 128 ns before it, the departure 64 ns before it, netcond's poll
    // at it (ns-3's own timer fires then too), the comparison 32 ns after.
    Simulator::Schedule(NanoSeconds(int64_t(x(1) - 2 * kUnit)), [&]() { enqueue(1); });
    for (size_t k = 1; k <= n; k++)
    {
        Simulator::Schedule(NanoSeconds(int64_t(x(k) - kUnit)), [&, k]() { enqueue(k + 1); });
        Simulator::Schedule(NanoSeconds(int64_t(x(k))), [&]() { depart(); });
        Simulator::Schedule(NanoSeconds(int64_t(k * c.tUpdate)), [&]() { update(); });
        Simulator::Schedule(NanoSeconds(int64_t(k * c.tUpdate + 32)), [&, k]() { compare(k); });
    }
    Simulator::Stop(NanoSeconds(int64_t(n * c.tUpdate + 48)));
    Simulator::Run();

    const bool covered = std::all_of(range, range + 9, [](bool b) { return b; });
    if (!covered)
    {
        std::printf("%s: the trace did not visit every range of the probability:", label.c_str());
        for (bool b : range)
        {
            std::printf(" %d", int(b));
        }
        std::printf("\n");
        r.ok = false;
    }
    const QueueDisc::Stats& stats = q->GetStats();
    if (stats.nTotalDroppedPackets != 0)
    {
        std::printf("%s: ns-3 dropped %u packets: the inputs were not the same\n", label.c_str(),
                    stats.nTotalDroppedPackets);
        r.ok = false;
    }
    std::printf("%s: %s: %zu updates, %zu within tolerance; largest difference %.3g, largest "
                "difference / bound %.3g (bound 4e-6 x total variation + 1e-12; total "
                "variation %.3g)\n",
                label.c_str(), r.ok ? "PASS" : "FAIL", r.updates, r.within, maxDiff, maxRatio,
                variation);
    Simulator::Destroy();
    return r;
}

} // namespace

int
main(int argc, char* argv[])
{
    size_t n = 20000;
    for (int i = 1; i < argc; i++)
    {
        std::string a = argv[i];
        if (a == "--alpha-bias")
        {
            g_alphaBias = true;
        }
        else if (a.rfind("--updates=", 0) == 0)
        {
            n = std::stoul(a.substr(10));
        }
        else
        {
            std::fprintf(stderr, "usage: %s [--alpha-bias] [--updates=N]\n", argv[0]);
            return 2;
        }
    }
    const PieRun configs[] = {
        {"PieQueueDisc's defaults (A 0.125, B 1.25, Tupdate 15 ms, QueueDelayReference 15 ms)",
         0.125, 1.25, 15 * kMs, 15 * kMs},
        {"A 0.25, B 2, Tupdate 30 ms, QueueDelayReference 20 ms", 0.25, 2, 30 * kMs, 20 * kMs},
    };
    size_t updates = 0, within = 0, runs = 0;
    bool ok = true;
    for (const PieRun& c : configs)
    {
        for (uint64_t seed : {1ull, 2ull})
        {
            Result r = RunOne(c, seed, n);
            updates += r.updates;
            within += r.within;
            ok = ok && r.ok;
            runs++;
        }
    }
    std::printf("netcond-pie-crosscheck: %zu updates in %zu runs, %zu within tolerance, %zu "
                "outside\n",
                updates, runs, within, updates - within);
    return ok ? 0 : 1;
}
