// CoDel cross-check: one packet trace through ns-3's own CoDelQueueDisc and,
// beside it in the same simulation events, through netcond's CoDel
// (netcond_codel_*, the linux law with the ns3 variant) over a FIFO kept here.
//
// The trace (arrival instant, size, ECN field) comes from a seeded generator,
// 100 cycles of 14.5 s (--cycles=N; over 10^6 packets a run) of the same
// phases, each drawn anew:
// phases of underload, overload (a standing queue far above target), a
// drain, a second overload soon after (re-entry with the previous count), an
// idle gap (dequeues from an empty queue), a burst, and a slow drain. The
// "link" asks for one packet every millisecond, whatever happened before, so
// both sides are asked at the same instants even if they disagree.
//
// netcond is configured from the ns-3 disc's own attributes (Target,
// Interval, MinBytes, UseEcn), in nanoseconds, with the clock in nanoseconds:
// the instants given to netcond are Simulator::Now().GetNanoSeconds() at
// enqueue and at dequeue, the conversions ns-3's CoDel makes (it keeps
// nanoseconds >> 10 as its time). A packet's length is its QueueDiscItem
// size, as ns-3 counts bytes in the queue; the backlog is the bytes left
// after the head is taken. ns-3's tail drop (MaxSize) is applied to the
// netcond FIFO too.
//
// For every packet the fate on each side (delivered, marked, dropped by
// CoDel, dropped at enqueue, still queued) is compared, and so is the
// sequence of packets leaving the queue with their instants; at the end, the
// CoDel variables ns-3 traces (count, lastcount, dropping, drop_next) against
// netcond's. Every difference is printed; the program exits 1 if there is
// any, or if the trace did not reach the dropping state (and, with ECN, did
// not mark), re-enter it with a carried count, or dequeue from an empty
// queue. Runs: two seeds, each with ns-3's defaults and with UseEcn=true.
// Ends with "netcond-codel-crosscheck: N packets in R runs, A agree, D differ;
// of those that agree, X CoDel drops and M marks".

#include "netcond.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <functional>
#include <deque>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

enum Fate
{
    QUEUED = 0, // still in the queue at the end
    DELIVERED = 1,
    MARKED = 2,
    DROPPED = 3, // by CoDel at dequeue
    TAIL = 4,    // refused at enqueue (MaxSize)
};

const char* const kFate[] = {"queued", "delivered", "marked", "dropped", "tail-dropped"};

struct Arrival
{
    uint64_t at; // ns
    uint32_t len; // bytes, IPv4 header included
    uint8_t ecn;  // the ECN field: 0 not-ECT, 2 ECT(0)
};

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

const uint64_t kMs = 1000000;

// The link asks for a packet every ms, except every 25 ms from 10 s to 14 s;
// a cycle of the trace ends at 14.5 s.
const uint64_t kSlowFrom = 10000 * kMs, kSlowTo = 14000 * kMs, kEnd = 14500 * kMs;

// Cycles of the trace per run (each a new draw of the same phases).
uint64_t g_cycles = 100;

// The trace: g_cycles cycles of phases (from ms, to ms, mean arrivals per ms).
std::vector<Arrival>
MakeTrace(uint64_t seed)
{
    struct Phase
    {
        uint64_t from, to;
        double rate;
    };
    const Phase phases[] = {
        {0, 1000, 0.8},     // underload
        {1000, 4000, 1.3},  // overload: a standing queue
        {4000, 5000, 0.5},  // drain: below target, the dropping state ends
        {5000, 6500, 1.2},  // overload again within 16 intervals of the last drop
        {6500, 7000, 0.0},  // idle: the queue empties
        {7000, 7050, 5.0},  // a burst
        {7050, 10000, 0.9}, // slow drain of the burst
        // Full-size packets at one per 20 ms on average while the link asks
        // only every 25 ms (see kLinkSlow): a short standing queue, often
        // exactly one packet (MinBytes) behind the head.
        {10000, 14000, 0.05},
    };
    Gen g{seed};
    std::vector<Arrival> out;
    for (uint64_t c = 0; c < g_cycles; c++)
    for (const Phase& ph : phases)
    {
        if (ph.rate <= 0)
        {
            continue;
        }
        // Gaps uniform in [0, 2 / rate) ms, in whole ns.
        uint64_t span = uint64_t(2.0 * kMs / ph.rate);
        uint64_t t = c * kEnd + ph.from * kMs + g.Next() % span;
        while (t < c * kEnd + ph.to * kMs)
        {
            uint64_t r = g.Next();
            Arrival a;
            a.at = t;
            a.len = ph.from >= 10000 ? 1500 : 64 + uint32_t(r % 1437); // 64..1500
            a.ecn = (r >> 32) % 3 == 0 ? 0 : 2;
            out.push_back(a);
            t += 1 + (r >> 16) % span;
        }
    }
    return out;
}

// An IPv4 UDP packet of `len` bytes in total with ECN field `ecn`.
Ptr<Ipv4QueueDiscItem>
Item(uint32_t len, uint8_t ecn)
{
    Ptr<Packet> p = Create<Packet>(len - 28);
    UdpHeader udp;
    udp.SetSourcePort(1000);
    udp.SetDestinationPort(9);
    p->AddHeader(udp);
    Ipv4Header h;
    h.SetSource(Ipv4Address("10.0.0.1"));
    h.SetDestination(Ipv4Address("10.0.1.1"));
    h.SetProtocol(17);
    h.SetPayloadSize(p->GetSize());
    h.SetEcn(Ipv4Header::EcnType(ecn));
    return Create<Ipv4QueueDiscItem>(p, Address(), 0x0800, h);
}

struct Side
{
    std::vector<int> fate;
    std::vector<std::pair<size_t, uint64_t>> sent; // (packet, instant ns), in order
};

struct Result
{
    size_t packets = 0, agree = 0;
    size_t drops = 0, marks = 0; // packets both sides dropped (by CoDel), marked
    bool ok = true;
};

// What the netcond side keeps besides its CoDel state.
struct NetcondQueue
{
    netcond_codel_profile prof;
    netcond_codel st;
    std::deque<size_t> fifo;
    uint64_t bytes = 0;
    uint64_t maxBytes = 0;
    uint32_t maxLastcount = 0;
    uint64_t emptyDequeues = 0;
    // Heads above target with exactly MinBytes left behind them.
    uint64_t boundary = 0;
};

// The netcond variant compared (ns3; "--netcond-variant=kernel" runs the
// kernel's state machine instead, to show that the comparison tells them
// apart: it is expected to fail).
netcond_codel_variant g_variant = NETCOND_CODEL_NS3;

Result
RunOne(uint64_t seed, bool ecn)
{
    std::string label = "seed " + std::to_string(seed) + (ecn ? ", UseEcn=true" : ", defaults");
    std::vector<Arrival> trace = MakeTrace(seed);
    size_t n = trace.size();

    Ptr<CoDelQueueDisc> q = CreateObject<CoDelQueueDisc>();
    if (ecn)
    {
        q->SetAttribute("UseEcn", BooleanValue(true));
    }
    q->Initialize();

    // netcond, configured from the disc's attributes.
    TimeValue target, interval;
    UintegerValue minBytes;
    BooleanValue useEcn;
    q->GetAttribute("Target", target);
    q->GetAttribute("Interval", interval);
    q->GetAttribute("MinBytes", minBytes);
    q->GetAttribute("UseEcn", useEcn);
    QueueSize max = q->GetMaxSize();

    NetcondQueue nc;
    netcond_codel_params p;
    std::memset(&p, 0, sizeof p);
    p.target_ns = uint64_t(target.Get().GetNanoSeconds());
    p.interval_ns = uint64_t(interval.Get().GetNanoSeconds());
    p.tick_hz = 1000000000u;
    p.mtu = uint32_t(minBytes.Get());
    p.ecn = useEcn.Get() ? 1 : 0;
    p.control_law = NETCOND_CODEL_LINUX;
    p.linux_variant = g_variant;
    int rc = netcond_codel_profile_config(&nc.prof, &p);
    if (rc != NETCOND_OK || netcond_codel_config(&nc.st, &nc.prof, 0) != NETCOND_OK)
    {
        std::printf("%s: netcond refused the configuration: %s\n", label.c_str(),
                    netcond_strerror(rc));
        Result r;
        r.ok = false;
        return r;
    }
    nc.maxBytes = max.GetUnit() == QueueSizeUnit::BYTES ? max.GetValue() : 0;
    uint64_t maxPackets = max.GetUnit() == QueueSizeUnit::PACKETS ? max.GetValue() : 0;

    Side ns3, net;
    ns3.fate.assign(n, QUEUED);
    net.fate.assign(n, QUEUED);
    std::map<uint64_t, size_t> byUid;

    // ns-3's verdicts, from its trace sources.
    uint32_t nsCount = 0, nsLastCount = 0, nsDropNext = 0;
    bool nsDropping = false;
    auto index = [&byUid](Ptr<const QueueDiscItem> item) -> size_t {
        auto it = byUid.find(item->GetPacket()->GetUid());
        NS_ABORT_MSG_IF(it == byUid.end(), "a packet not from the trace");
        return it->second;
    };
    // ns-3 callbacks take functors: these capture this run's locals by reference.
    std::function<void(Ptr<const QueueDiscItem>, const char*)> onTail =
        [&](Ptr<const QueueDiscItem> i, const char*) { ns3.fate[index(i)] = TAIL; };
    std::function<void(Ptr<const QueueDiscItem>, const char*)> onDrop =
        [&](Ptr<const QueueDiscItem> i, const char*) { ns3.fate[index(i)] = DROPPED; };
    std::function<void(Ptr<const QueueDiscItem>, const char*)> onMark =
        [&](Ptr<const QueueDiscItem> i, const char*) { ns3.fate[index(i)] = MARKED; };
    std::function<void(uint32_t, uint32_t)> onCount = [&](uint32_t, uint32_t v) { nsCount = v; };
    std::function<void(uint32_t, uint32_t)> onLast = [&](uint32_t, uint32_t v) {
        nsLastCount = v;
    };
    std::function<void(uint32_t, uint32_t)> onNext = [&](uint32_t, uint32_t v) {
        nsDropNext = v;
    };
    std::function<void(bool, bool)> onState = [&](bool, bool v) { nsDropping = v; };
    q->TraceConnectWithoutContext("DropBeforeEnqueue", Callback<void, Ptr<const QueueDiscItem>, const char*>(onTail));
    q->TraceConnectWithoutContext("DropAfterDequeue", Callback<void, Ptr<const QueueDiscItem>, const char*>(onDrop));
    q->TraceConnectWithoutContext("Mark", Callback<void, Ptr<const QueueDiscItem>, const char*>(onMark));
    q->TraceConnectWithoutContext("Count", Callback<void, uint32_t, uint32_t>(onCount));
    q->TraceConnectWithoutContext("LastCount", Callback<void, uint32_t, uint32_t>(onLast));
    q->TraceConnectWithoutContext("DropNext", Callback<void, uint32_t, uint32_t>(onNext));
    q->TraceConnectWithoutContext("DropState", Callback<void, bool, bool>(onState));

    auto arrive = [&](size_t k) {
        uint64_t now = uint64_t(Simulator::Now().GetNanoSeconds());
        Ptr<Ipv4QueueDiscItem> item = Item(trace[k].len, trace[k].ecn);
        byUid[item->GetPacket()->GetUid()] = k;
        uint32_t size = item->GetSize();
        q->Enqueue(item);
        // netcond's FIFO, with the disc's tail-drop rule.
        bool full = nc.maxBytes ? nc.bytes + size > nc.maxBytes
                                : nc.fifo.size() + 1 > maxPackets;
        if (full)
        {
            net.fate[k] = TAIL;
        }
        else
        {
            nc.fifo.push_back(k);
            nc.bytes += size;
        }
        (void)now;
    };
    auto depart = [&]() {
        uint64_t now = uint64_t(Simulator::Now().GetNanoSeconds());
        Ptr<QueueDiscItem> out = q->Dequeue();
        if (out)
        {
            size_t k = index(out);
            if (ns3.fate[k] != MARKED)
            {
                ns3.fate[k] = DELIVERED;
            }
            ns3.sent.emplace_back(k, now);
        }
        for (;;)
        {
            if (nc.fifo.empty())
            {
                netcond_codel_queue_empty(&nc.st, &nc.prof, now);
                nc.emptyDequeues++;
                break;
            }
            size_t k = nc.fifo.front();
            nc.fifo.pop_front();
            // The same size ns-3 counts: the item's (payload + IPv4 header).
            uint32_t len = trace[k].len;
            nc.bytes -= len;
            if (nc.bytes == p.mtu && now - trace[k].at > p.target_ns)
            {
                nc.boundary++;
            }
            netcond_codel_verdict v =
                netcond_codel_on_dequeue(&nc.st, &nc.prof, now, trace[k].at, len,
                                         trace[k].ecn != 0 ? 1 : 0, nc.bytes);
            netcond_codel_info info;
            netcond_codel_info_get(&nc.st, &info);
            if (info.lastcount > nc.maxLastcount)
            {
                nc.maxLastcount = info.lastcount;
            }
            if (v == NETCOND_CODEL_DROP)
            {
                net.fate[k] = DROPPED;
                continue;
            }
            net.fate[k] = v == NETCOND_CODEL_MARK ? MARKED : DELIVERED;
            net.sent.emplace_back(k, now);
            break;
        }
    };

    // Arrivals and the link's requests, in time order (arrivals first at a
    // tie, as they are scheduled first).
    for (size_t k = 0; k < n; k++)
    {
        Simulator::Schedule(NanoSeconds(trace[k].at), [&arrive, k]() { arrive(k); });
    }
    for (uint64_t c = 0; c < g_cycles; c++)
    {
        for (uint64_t t = kMs / 2; t < kEnd; t += (t >= kSlowFrom && t < kSlowTo) ? 25 * kMs : kMs)
        {
            Simulator::Schedule(NanoSeconds(c * kEnd + t), [&depart]() { depart(); });
        }
    }
    Simulator::Run();

    // Compare.
    Result r;
    r.packets = n;
    size_t shown = 0;
    uint64_t count[5] = {0, 0, 0, 0, 0};
    for (size_t k = 0; k < n; k++)
    {
        count[ns3.fate[k]]++;
        if (ns3.fate[k] == net.fate[k])
        {
            r.agree++;
            r.drops += ns3.fate[k] == DROPPED;
            r.marks += ns3.fate[k] == MARKED;
            continue;
        }
        r.ok = false;
        if (shown++ < 20)
        {
            std::printf("%s: packet %zu (arrived %.6f ms, %u bytes, ECN %u): ns-3 %s, netcond %s\n",
                        label.c_str(), k, double(trace[k].at) / 1e6, trace[k].len,
                        unsigned(trace[k].ecn), kFate[ns3.fate[k]], kFate[net.fate[k]]);
        }
    }
    size_t orderDiffs = 0;
    size_t common = std::min(ns3.sent.size(), net.sent.size());
    for (size_t i = 0; i < common; i++)
    {
        if (ns3.sent[i] != net.sent[i])
        {
            if (orderDiffs++ < 5)
            {
                std::printf("%s: departure %zu: ns-3 packet %zu at %" PRIu64
                            " ns, netcond packet %zu at %" PRIu64 " ns\n",
                            label.c_str(), i, ns3.sent[i].first, ns3.sent[i].second,
                            net.sent[i].first, net.sent[i].second);
            }
        }
    }
    if (orderDiffs || ns3.sent.size() != net.sent.size())
    {
        std::printf("%s: dequeue order: %zu of %zu departures differ; ns-3 sent %zu, netcond %zu\n",
                    label.c_str(), orderDiffs, common, ns3.sent.size(), net.sent.size());
        r.ok = false;
    }
    netcond_codel_info info;
    netcond_codel_info_get(&nc.st, &info);
    bool stateSame = info.count == nsCount && info.lastcount == nsLastCount &&
                     info.dropping == (nsDropping ? 1u : 0u) && info.drop_next == nsDropNext;
    if (!stateSame)
    {
        std::printf("%s: final CoDel variables differ: ns-3 count %u lastcount %u dropping %d "
                    "drop_next %u; netcond %u %u %u %" PRIu64 "\n",
                    label.c_str(), nsCount, nsLastCount, int(nsDropping), nsDropNext, info.count,
                    info.lastcount, info.dropping, info.drop_next);
        r.ok = false;
    }
    // The trace must have reached what it is meant to test.
    bool covered = count[DROPPED] > 100 && (!ecn || count[MARKED] > 100) &&
                   nc.maxLastcount > 1 && nc.emptyDequeues > 100 && nc.boundary > 5;
    if (!covered)
    {
        std::printf("%s: the trace did not exercise CoDel: %" PRIu64 " drops, %" PRIu64
                    " marks, largest lastcount %u, %" PRIu64 " dequeues from an empty queue, %" PRIu64
                    " heads above target with MinBytes behind\n",
                    label.c_str(), count[DROPPED], count[MARKED], nc.maxLastcount,
                    nc.emptyDequeues, nc.boundary);
        r.ok = false;
    }
    std::printf("%s: %s: %zu packets, %zu same fate (ns-3: %" PRIu64 " delivered, %" PRIu64
                " marked, %" PRIu64 " dropped, %" PRIu64 " tail-dropped, %" PRIu64
                " queued), %zu departures in the same order at the same instants, final "
                "variables %s (count %u, lastcount %u; largest lastcount %u, %" PRIu64
                " dequeues from an empty queue, %" PRIu64 " heads above target with MinBytes "
                "behind)\n",
                r.ok ? "PASS" : "FAIL", label.c_str(), n, r.agree, count[DELIVERED],
                count[MARKED], count[DROPPED], count[TAIL], count[QUEUED],
                common - orderDiffs, stateSame ? "equal" : "DIFFER", nsCount, nsLastCount,
                nc.maxLastcount, nc.emptyDequeues, nc.boundary);
    Simulator::Destroy();
    return r;
}

} // namespace

int
main(int argc, char* argv[])
{
    for (int i = 1; i < argc; i++)
    {
        std::string a = argv[i];
        if (a == "--netcond-variant=kernel")
        {
            g_variant = NETCOND_CODEL_KERNEL;
        }
        else if (a.rfind("--cycles=", 0) == 0 && std::stoull(a.substr(9)) > 0)
        {
            g_cycles = std::stoull(a.substr(9));
        }
        else if (a != "--netcond-variant=ns3")
        {
            std::fprintf(stderr, "usage: %s [--netcond-variant=ns3|kernel] [--cycles=N]\n",
                         argv[0]);
            return 2;
        }
    }
    size_t packets = 0, agree = 0, drops = 0, marks = 0, runs = 0;
    bool ok = true;
    for (uint64_t seed : {1ull, 2ull})
    {
        for (bool ecn : {false, true})
        {
            Result r = RunOne(seed, ecn);
            packets += r.packets;
            agree += r.agree;
        drops += r.drops;
        marks += r.marks;
            ok = ok && r.ok;
            runs++;
        }
    }
    std::printf("netcond-codel-crosscheck: %zu packets in %zu runs, %zu agree, %zu differ; "
                "of those that agree, %zu CoDel drops and %zu marks\n",
                packets, runs, agree, packets - agree, drops, marks);
    return ok ? 0 : 1;
}
