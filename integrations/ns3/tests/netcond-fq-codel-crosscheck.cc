// FQ-CoDel cross-check: one packet trace through ns-3's own FqCoDelQueueDisc
// and, in the same simulation events, through netcond's FQ-CoDel
// (netcond_fq_codel_*: Linux's arithmetic, ns-3's CoDel state machine,
// Linux's batch overflow drop) over per-flow FIFOs kept here.
//
// Flows are known, not hashed: a packet filter gives ns-3 the flow index the
// trace assigned (FqCoDelQueueDisc takes the filter's value modulo Flows,
// 1024, and the trace's indexes are below 1024), and netcond gets the same
// index. There are no hash collisions on either side.
//
// The trace (arrival instant, size, ECN field, flow) comes from a seeded
// generator: four burst flows (1..4, ECT(0)) sending 20 to 200 packets
// back to back at random times, and sparse flows, single small ECT(0)
// packets on random flow indexes 5..1023 (new flows that empty at once).
// Flow 0 is a greedy bulk flow of 1500-byte packets, two in three not-ECT
// (so CoDel drops them), the rest ECT(0): before each link request it tops
// its FIFO up with a burst of packets whenever it holds fewer than a
// threshold that cycles every 5 s through 10 packets (1 s: 1 ms of queue
// when alone, below TARGET), 150 (2 s: a standing queue of 15 ms when alone,
// so CoDel's count climbs) and 60 (2 s: 6 ms, just above TARGET).
// The "link" asks for one packet every 100 us whatever happened before, so
// both sides are asked at the same instants.
//
// Both sides run at ns-3's defaults (FqCoDelQueueDisc's, and
// CoDelQueueDisc's MinBytes 1500 for its flows). Where the two definitions
// differ, and how the check keeps out of it:
//  - MinBytes: ns-3's flows compare it with their own bytes, netcond (as
//    Linux) with the whole queue's. They can decide differently only on a
//    head above TARGET with fewer than MinBytes behind it in its flow but
//    not in the whole queue; such heads are counted ("MinBytes-boundary
//    heads") and reported. --minbytes=0 voids the rule on both sides (ns-3
//    through CoDelQueueDisc's default, which its flows take; safe here
//    because ECN is on and only the bulk flow, which never runs short,
//    carries not-ECT packets: ns-3's CoDel dereferences a null item if it
//    drops the last packet of a flow).
//  - An emptied new flow: ns-3 moves it to the old flows, netcond (as Linux)
//    only if there are old flows. The bulk flow is on the old list from its
//    first round and never empties, so there always are; checked at every
//    dequeue.
//  - Overflow: netcond (Linux) adds the packets dropped to the victim's
//    CoDel count, ns-3 does not. The trace stays below MaxSize; checked.
// --netcond-variant=kernel gives netcond's flows the Linux kernel's CoDel
// state machine instead of ns-3's: then packets must differ (the check of
// the check).
//
// For every packet the fate on each side (delivered, marked, dropped by
// CoDel, dropped by an overflow, still queued) is compared, and so is the
// sequence of departures with their instants. Every difference is counted
// and the first ones printed; the program exits 1 if there is any, if a
// precondition above failed, or if the trace did not drop, mark, use more
// than 500 flows and bring the bulk flow's CoDel into the dropping state.
// Ends with "netcond-fq-codel-crosscheck: N packets in R runs, A agree,
// D differ; of those that agree, X CoDel drops and M marks".

#include "netcond.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

enum Fate
{
    QUEUED = 0,
    DELIVERED = 1,
    MARKED = 2,
    DROPPED = 3,  // by CoDel at dequeue
    OVERFLOW = 4, // by the overflow drop
};

const char* const kFate[] = {"queued", "delivered", "marked", "dropped", "overflow-dropped"};

struct Arrival
{
    uint64_t at;   // ns
    uint32_t len;  // bytes, IPv4 header included
    uint8_t ecn;   // 0 not-ECT, 2 ECT(0)
    uint16_t flow; // 0 .. 1023
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

    uint64_t Below(uint64_t n)
    {
        return Next() % n;
    }
};

const uint64_t kUs = 1000, kMs = 1000000, kS = 1000000000;
const uint64_t kLinkGap = 100 * kUs; // the link asks for a packet every 100 us

std::vector<Arrival>
MakeTrace(uint64_t seed, uint64_t duration)
{
    Gen g{seed};
    std::vector<Arrival> out;
    // Burst flows 1..4: a burst of 20..200 packets, one every 20 us, about
    // every 600 ms per flow.
    for (uint16_t f = 1; f <= 4; f++)
    {
        for (uint64_t t = 50 * kMs + g.Below(600 * kMs); t < duration;
             t += 100 * kMs + g.Below(1000 * kMs))
        {
            const uint64_t n = 20 + g.Below(181);
            for (uint64_t i = 0; i < n && t + i * 20 * kUs < duration; i++)
            {
                out.push_back({t + i * 20 * kUs, uint32_t(64 + g.Below(1437)), 2, f});
            }
        }
    }
    // Sparse flows: one packet of 64..300 bytes every 5 ms on average, on a
    // random flow 5..1023.
    for (uint64_t t = g.Below(5 * kMs); t < duration; t += 1 + g.Below(10 * kMs))
    {
        out.push_back({t, uint32_t(64 + g.Below(237)), 2, uint16_t(5 + g.Below(1019))});
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
    return out;
}

// The flow a packet belongs to rides in its UDP source port (1000 + flow);
// this filter hands it to FqCoDelQueueDisc.
class TraceFlowFilter : public PacketFilter
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::NetcondCrosscheckTraceFlowFilter")
                                .SetParent<PacketFilter>()
                                .AddConstructor<TraceFlowFilter>();
        return tid;
    }

  private:
    bool CheckProtocol(Ptr<QueueDiscItem> item) const override
    {
        return DynamicCast<Ipv4QueueDiscItem>(item) != nullptr;
    }

    int32_t DoClassify(Ptr<QueueDiscItem> item) const override
    {
        UdpHeader udp;
        item->GetPacket()->PeekHeader(udp);
        return int32_t(udp.GetSourcePort()) - 1000;
    }
};

Ptr<Ipv4QueueDiscItem>
Item(const Arrival& a)
{
    Ptr<Packet> p = Create<Packet>(a.len - 28);
    UdpHeader udp;
    udp.SetSourcePort(uint16_t(1000 + a.flow));
    udp.SetDestinationPort(9);
    p->AddHeader(udp);
    Ipv4Header h;
    h.SetSource(Ipv4Address("10.0.0.1"));
    h.SetDestination(Ipv4Address("10.0.1.1"));
    h.SetProtocol(17);
    h.SetPayloadSize(p->GetSize());
    h.SetEcn(Ipv4Header::EcnType(a.ecn));
    return Create<Ipv4QueueDiscItem>(p, Address(), 0x0800, h);
}

struct Side
{
    std::vector<uint8_t> fate;
    std::vector<std::pair<uint32_t, uint64_t>> sent; // (packet, instant ns), in order
};

struct Result
{
    size_t packets = 0, agree = 0;
    size_t drops = 0, marks = 0; // packets both sides dropped (by CoDel), marked
    bool ok = true;
};

// netcond's side: the queue (64 KiB) and the FIFOs.
struct NetcondFq
{
    netcond_fq_codel_profile prof;
    netcond_fq_codel q;
};

struct DropCtx
{
    std::vector<std::deque<uint32_t>>* fifo;
    Side* side;
    const std::vector<Arrival>* trace;
    std::vector<uint64_t>* flowBytes;
};

int
DropHead(void* ctx, uint32_t flow, uint32_t* len)
{
    auto c = static_cast<DropCtx*>(ctx);
    auto& f = (*c->fifo)[flow];
    if (f.empty())
    {
        return 0;
    }
    uint32_t k = f.front();
    f.pop_front();
    (*c->flowBytes)[flow] -= (*c->trace)[k].len;
    c->side->fate[k] = OVERFLOW;
    *len = (*c->trace)[k].len;
    return 1;
}

uint32_t g_minBytes = 1500;
netcond_codel_variant g_variant = NETCOND_CODEL_NS3;
uint64_t g_duration = 100 * kS; // over 10^6 packets a run

Result
RunOne(uint64_t seed)
{
    std::string label = "seed " + std::to_string(seed) + ", MinBytes " +
                        std::to_string(g_minBytes) + ", FqCoDelQueueDisc's defaults" +
                        (g_variant == NETCOND_CODEL_KERNEL ? ", netcond kernel variant" : "");
    // The open-loop part; the bulk flow's packets are appended as they come.
    const std::vector<Arrival> open = MakeTrace(seed, g_duration);
    std::vector<Arrival> trace;
    trace.reserve(open.size() * 8);
    Gen bulkGen{seed * 7919};

    // ns-3's FqCoDelQueueDisc at its defaults (UseEcn true, Target 5ms,
    // Interval 100ms, MaxSize 10240p, DropBatchSize 64), quantum 1514, the
    // filter; its flows' CoDel MinBytes from CoDelQueueDisc's default.
    Config::SetDefault("ns3::CoDelQueueDisc::MinBytes", UintegerValue(g_minBytes));
    Ptr<FqCoDelQueueDisc> q = CreateObject<FqCoDelQueueDisc>();
    q->SetQuantum(1514);
    q->AddPacketFilter(CreateObject<TraceFlowFilter>());
    q->Initialize();

    StringValue target, interval;
    BooleanValue useEcn;
    UintegerValue batch;
    q->GetAttribute("Target", target);
    q->GetAttribute("Interval", interval);
    q->GetAttribute("UseEcn", useEcn);
    q->GetAttribute("DropBatchSize", batch);

    auto nc = std::make_unique<NetcondFq>();
    netcond_fq_codel_params p;
    std::memset(&p, 0, sizeof p);
    p.codel.target_ns = uint64_t(Time(target.Get()).GetNanoSeconds());
    p.codel.interval_ns = uint64_t(Time(interval.Get()).GetNanoSeconds());
    p.codel.tick_hz = 1000000000u;
    p.codel.mtu = g_minBytes;
    p.codel.ecn = useEcn.Get() ? 1 : 0;
    p.codel.control_law = NETCOND_CODEL_LINUX;
    p.codel.linux_variant = g_variant;
    p.quantum = q->GetQuantum();
    p.limit = q->GetMaxSize().GetValue();
    p.overflow = NETCOND_FQ_OVERFLOW_BATCH;
    p.drop_batch = uint32_t(batch.Get());
    int rc = netcond_fq_codel_profile_config(&nc->prof, &p);
    if (rc != NETCOND_OK || netcond_fq_codel_config(&nc->q, &nc->prof, 0) != NETCOND_OK)
    {
        std::printf("%s: netcond refused the configuration: %s\n", label.c_str(),
                    netcond_strerror(rc));
        Result r;
        r.ok = false;
        return r;
    }
    std::vector<std::deque<uint32_t>> fifo(NETCOND_FQ_CODEL_FLOWS);
    std::vector<uint64_t> flowBytes(NETCOND_FQ_CODEL_FLOWS, 0);
    uint64_t boundary = 0; // heads where the two MinBytes rules could part

    Side ns3, net;
    std::unordered_map<uint64_t, uint32_t> byUid;
    auto index = [&byUid](Ptr<const QueueDiscItem> item) -> uint32_t {
        auto it = byUid.find(item->GetPacket()->GetUid());
        NS_ABORT_MSG_IF(it == byUid.end(), "a packet not from the trace");
        return it->second;
    };
    std::function<void(Ptr<const QueueDiscItem>, const char*)> onDropBefore =
        [&](Ptr<const QueueDiscItem> i, const char*) { ns3.fate[index(i)] = OVERFLOW; };
    std::function<void(Ptr<const QueueDiscItem>, const char* why)> onDropAfter =
        [&](Ptr<const QueueDiscItem> i, const char* why) {
            ns3.fate[index(i)] =
                std::strcmp(why, FqCoDelQueueDisc::OVERLIMIT_DROP) == 0 ? OVERFLOW : DROPPED;
        };
    std::function<void(Ptr<const QueueDiscItem>, const char*)> onMark =
        [&](Ptr<const QueueDiscItem> i, const char*) { ns3.fate[index(i)] = MARKED; };
    q->TraceConnectWithoutContext("DropBeforeEnqueue",
                                  Callback<void, Ptr<const QueueDiscItem>, const char*>(onDropBefore));
    q->TraceConnectWithoutContext("DropAfterDequeue",
                                  Callback<void, Ptr<const QueueDiscItem>, const char*>(onDropAfter));
    q->TraceConnectWithoutContext("Mark", Callback<void, Ptr<const QueueDiscItem>, const char*>(onMark));

    DropCtx dctx{&fifo, &net, &trace, &flowBytes};
    uint64_t overflows = 0, bulkEmpty = 0, dequeues = 0, maxBulkCount = 0;
    bool bulkOld = false; // the bulk flow has reached the old list
    std::vector<bool> seen(NETCOND_FQ_CODEL_FLOWS, false);

    auto arrive = [&](const Arrival& a) {
        const uint64_t now = uint64_t(Simulator::Now().GetNanoSeconds());
        const size_t k = trace.size();
        trace.push_back(a);
        trace.back().at = now;
        ns3.fate.push_back(QUEUED);
        net.fate.push_back(QUEUED);
        Ptr<Ipv4QueueDiscItem> item = Item(trace[k]);
        byUid[item->GetPacket()->GetUid()] = uint32_t(k);
        q->Enqueue(item);
        const uint16_t f = trace[k].flow;
        seen[f] = true;
        fifo[f].push_back(uint32_t(k));
        flowBytes[f] += trace[k].len;
        netcond_fq_overflow_info info;
        if (netcond_fq_codel_enqueue(&nc->q, &nc->prof, now, f, trace[k].len, &DropHead, &dctx,
                                     &info) != 0)
        {
            overflows++;
        }
    };
    auto depart = [&]() {
        const uint64_t now = uint64_t(Simulator::Now().GetNanoSeconds());
        // The bulk flow tops up its FIFO.
        const uint64_t phase = now % (5 * kS);
        const size_t threshold = phase < 1 * kS ? 10 : phase < 3 * kS ? 150 : 60;
        if (fifo[0].size() < threshold)
        {
            const uint64_t r = bulkGen.Next();
            const size_t burst = threshold - fifo[0].size() + r % 16;
            for (size_t i = 0; i < burst; i++)
            {
                arrive(Arrival{now, 1500, uint8_t((r >> (8 + i % 48)) % 3 == 0 ? 2 : 0), 0});
            }
        }
        dequeues++;
        if (Ptr<QueueDiscItem> out = q->Dequeue())
        {
            const uint32_t k = index(out);
            if (ns3.fate[k] != MARKED)
            {
                ns3.fate[k] = DELIVERED;
            }
            ns3.sent.emplace_back(k, now);
        }
        for (;;)
        {
            uint32_t f = 0;
            if (netcond_fq_codel_schedule(&nc->q, &nc->prof, now, &f) != 1)
            {
                break;
            }
            if (fifo[f].empty())
            {
                std::printf("%s: netcond scheduled flow %u, whose FIFO is empty\n", label.c_str(), f);
                bulkEmpty++;
                break;
            }
            const uint32_t k = fifo[f].front();
            fifo[f].pop_front();
            flowBytes[f] -= trace[k].len;
            if (((now - trace[k].at) >> 10) >= (p.codel.target_ns >> 10) &&
                flowBytes[f] < g_minBytes &&
                netcond_fq_codel_bytes(&nc->q) - trace[k].len >= g_minBytes)
            {
                boundary++;
            }
            const netcond_codel_verdict v = netcond_fq_codel_on_dequeue(
                &nc->q, &nc->prof, now, f, trace[k].at, trace[k].len, trace[k].ecn != 0 ? 1 : 0);
            if (v == NETCOND_CODEL_DROP)
            {
                net.fate[k] = DROPPED;
                continue;
            }
            net.fate[k] = v == NETCOND_CODEL_MARK ? MARKED : DELIVERED;
            net.sent.emplace_back(k, now);
            break;
        }
        // The bulk flow keeps the old list non-empty (checked from when it
        // first reaches it).
        netcond_fq_codel_flow bulk;
        netcond_fq_codel_flow_get(&nc->q, 0, &bulk);
        bulkOld = bulkOld || bulk.list == 2;
        if (bulkOld && (bulk.packets == 0 || bulk.list != 2))
        {
            bulkEmpty++;
        }
        maxBulkCount = std::max<uint64_t>(maxBulkCount, bulk.codel.count);
    };

    // One event at a time: the next arrival or link request (arrivals first
    // at a tie).
    size_t next = 0;
    const size_t nOpen = open.size();
    uint64_t nextLink = kLinkGap / 2;
    const uint64_t end = g_duration + 2 * kS;
    std::function<void()> step = [&]() {
        const uint64_t now = uint64_t(Simulator::Now().GetNanoSeconds());
        if (next < nOpen && open[next].at == now)
        {
            arrive(open[next++]);
        }
        else
        {
            depart();
            nextLink += kLinkGap;
        }
        uint64_t t = nextLink;
        if (next < nOpen && open[next].at <= t)
        {
            t = open[next].at;
        }
        if (t < end)
        {
            Simulator::Schedule(NanoSeconds(int64_t(t - now)), step);
        }
    };
    Simulator::Schedule(NanoSeconds(int64_t(std::min(open[0].at, nextLink))), step);
    Simulator::Run();

    const size_t n = trace.size();
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
        if (shown++ < 10)
        {
            std::printf("%s: packet %zu (flow %u, arrived %.6f ms, %u bytes, ECN %u): ns-3 %s, "
                        "netcond %s\n",
                        label.c_str(), k, unsigned(trace[k].flow), double(trace[k].at) / 1e6,
                        trace[k].len, unsigned(trace[k].ecn), kFate[ns3.fate[k]],
                        kFate[net.fate[k]]);
        }
    }
    size_t orderDiffs = 0;
    const size_t common = std::min(ns3.sent.size(), net.sent.size());
    for (size_t i = 0; i < common; i++)
    {
        if (ns3.sent[i] != net.sent[i] && orderDiffs++ < 5)
        {
            std::printf("%s: departure %zu: ns-3 packet %u (flow %u) at %" PRIu64
                        " ns, netcond packet %u (flow %u) at %" PRIu64 " ns\n",
                        label.c_str(), i, ns3.sent[i].first, unsigned(trace[ns3.sent[i].first].flow),
                        ns3.sent[i].second, net.sent[i].first,
                        unsigned(trace[net.sent[i].first].flow), net.sent[i].second);
        }
    }
    if (orderDiffs || ns3.sent.size() != net.sent.size())
    {
        std::printf("%s: dequeue order: %zu of %zu departures differ; ns-3 sent %zu, netcond %zu\n",
                    label.c_str(), orderDiffs, common, ns3.sent.size(), net.sent.size());
        r.ok = false;
    }
    const size_t flows = size_t(std::count(seen.begin(), seen.end(), true));
    const bool pre = overflows == 0 && count[OVERFLOW] == 0 && bulkEmpty == 0;
    if (!pre)
    {
        std::printf("%s: outside the comparable domain: %" PRIu64 " overflows (netcond), %" PRIu64
                    " (ns-3), bulk flow empty or off the old list at %" PRIu64 " dequeues\n",
                    label.c_str(), overflows, count[OVERFLOW], bulkEmpty);
        r.ok = false;
    }
    const bool covered =
        count[DROPPED] > 1000 && count[MARKED] > 1000 && flows > 500 && maxBulkCount > 10;
    if (!covered)
    {
        std::printf("%s: the trace did not exercise FQ-CoDel: %" PRIu64 " drops, %" PRIu64
                    " marks, %zu flows, largest bulk count %" PRIu64 "\n",
                    label.c_str(), count[DROPPED], count[MARKED], flows, maxBulkCount);
        r.ok = false;
    }
    std::printf("%s: %s: %zu packets on %zu flows, %zu same fate (ns-3: %" PRIu64
                " delivered, %" PRIu64 " marked, %" PRIu64 " dropped, %" PRIu64
                " overflow-dropped, %" PRIu64 " queued), %zu of %zu departures in the same order "
                "at the same instants (%" PRIu64 " link requests; largest bulk CoDel count %" PRIu64
                ", %" PRIu64 " MinBytes-boundary heads)\n",
                label.c_str(), r.ok ? "PASS" : "FAIL", n, flows, r.agree, count[DELIVERED],
                count[MARKED], count[DROPPED], count[OVERFLOW], count[QUEUED], common - orderDiffs,
                ns3.sent.size(), dequeues, maxBulkCount, boundary);
    Simulator::Destroy();
    Config::SetDefault("ns3::CoDelQueueDisc::MinBytes", UintegerValue(1500));
    return r;
}

} // namespace

int
main(int argc, char* argv[])
{
    int seeds = 2;
    for (int i = 1; i < argc; i++)
    {
        std::string a = argv[i];
        if (a.rfind("--minbytes=", 0) == 0)
        {
            g_minBytes = uint32_t(std::stoul(a.substr(11)));
        }
        else if (a == "--netcond-variant=kernel")
        {
            g_variant = NETCOND_CODEL_KERNEL;
        }
        else if (a.rfind("--seconds=", 0) == 0)
        {
            g_duration = std::stoull(a.substr(10)) * kS;
        }
        else if (a.rfind("--seeds=", 0) == 0)
        {
            seeds = std::stoi(a.substr(8));
        }
        else
        {
            std::fprintf(stderr, "usage: %s [--minbytes=N] [--netcond-variant=kernel] [--seconds=S] [--seeds=N]\n", argv[0]);
            return 2;
        }
    }
    size_t packets = 0, agree = 0, drops = 0, marks = 0, runs = 0;
    bool ok = true;
    for (int seed = 1; seed <= seeds; seed++)
    {
        Result r = RunOne(uint64_t(seed));
        packets += r.packets;
        agree += r.agree;
        drops += r.drops;
        marks += r.marks;
        ok = ok && r.ok;
        runs++;
    }
    std::printf("netcond-fq-codel-crosscheck: %zu packets in %zu runs, %zu agree, %zu differ; "
                "of those that agree, %zu CoDel drops and %zu marks\n",
                packets, runs, agree, packets - agree, drops, marks);
    return ok ? 0 : 1;
}
