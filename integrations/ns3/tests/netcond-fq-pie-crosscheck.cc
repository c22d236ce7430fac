// FQ-PIE cross-check: one packet trace through ns-3's own FqPieQueueDisc and,
// in the same simulation events, through NetcondFqPieQueueDisc (netcond's
// FQ-PIE, Linux sch_fq_pie's integers). Flows are known, not hashed: a packet
// filter gives both discs the flow index the trace assigned (both take it
// modulo Flows, 1024; the trace's indexes are below 1024). Both discs have
// quantum 1514 and FqPieQueueDisc's defaults, but UseDerandomization true on
// ns-3's side (netcond always derandomizes, as Linux). The link asks both for
// one packet every 120 us (100 Mbit/s for 1500-byte packets).
//
// Two runs per seed:
//
// "scheduler": no PIE acts. Flow 0 is a bulk flow of 1500-byte packets (two
// in three not-ECT) topped up before each link request to 40 packets, so it
// never empties and its delay stays near 5 ms (below QDELAY_REF / 2, where
// neither PIE drops); flows 1..4 send bursts of 10..60 packets of 64..1500
// bytes, one every 20 us, about every 500 ms; sparse flows 5..1023 send
// single packets of 64..300 bytes, about every 5 ms. Then the two discs'
// deficit round robin must agree exactly: every packet's fate, the order of
// departures and their instants. Any drop or mark is a difference (neither
// side should act).
//
// "aqm": flow 0 is open loop at 1.25 times the link (Poisson, 1500 bytes, two
// in three not-ECT, the rest ECT(0)), with the same burst and sparse flows
// for 20 s. Each side's flow-0 PIE must hold the queue delay near 15 ms,
// dropping (and, while its probability is at most 10 %, marking) about a
// fifth of flow 0's packets. The two sides differ here by construction (ns-3
// PIE's doubles and per-flow update timers started at each flow's creation;
// netcond's integers and one timer for all flows), so packets cannot be
// compared one by one; compared instead are flow 0's mean sojourn time over
// the last 15 s (within 10 % of each other) and its share of packets
// dropped or marked (within 0.01), and the burst and sparse flows must lose
// nothing on either side (a flow holding fewer than two MeanPktSize is
// never dropped early).
//
// --netcond-target-ms=N gives netcond's side QueueDelayReference N ms (the
// check of the check: 20 must fail the aqm comparison). Exits 1 on any
// failure. Ends with "netcond-fq-pie-crosscheck: N packets in R scheduler
// runs, A agree, D differ; aqm runs S".

#include "netcond-fq-pie-queue-disc.h"
#include "netcond-expect-fatal.h"
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
#include <functional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

enum Fate
{
    QUEUED = 0,
    SENT,
    MARKED,
    DROPPED,
};

const char* const kFateName[] = {"queued", "sent", "marked", "dropped"};

struct Arrival
{
    uint64_t at;   // ns
    uint32_t len;  // bytes, IPv4 header included
    uint8_t ecn;   // 0 not-ECT, 2 ECT(0)
    uint16_t flow; // 0 .. 1023
};

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
    uint64_t Below(uint64_t n) { return Next() % n; }
    double Unit() { return double(Next() >> 11) * 0x1.0p-53; }
};

const uint64_t kUs = 1000, kMs = 1000000, kS = 1000000000;
const uint64_t kLinkGap = 120 * kUs;

// The burst and sparse flows (1..1023), and with `bulkLoad` > 0 flow 0 open
// loop at that multiple of the link.
std::vector<Arrival>
MakeTrace(uint64_t seed, uint64_t duration, double bulkLoad)
{
    Gen g{seed};
    std::vector<Arrival> out;
    for (uint16_t f = 1; f <= 4; f++)
    {
        for (uint64_t t = 50 * kMs + g.Below(500 * kMs); t < duration;
             t += 100 * kMs + g.Below(800 * kMs))
        {
            const uint64_t n = 10 + g.Below(51);
            for (uint64_t i = 0; i < n && t + i * 20 * kUs < duration; i++)
            {
                out.push_back({t + i * 20 * kUs, uint32_t(64 + g.Below(1437)), 2, f});
            }
        }
    }
    for (uint64_t t = 1 + g.Below(5 * kMs); t < duration; t += 1 + g.Below(10 * kMs))
    {
        out.push_back({t, uint32_t(64 + g.Below(237)), 2, uint16_t(5 + g.Below(1019))});
    }
    if (bulkLoad > 0)
    {
        const double mean = 1500.0 * 8 / (100e6 * bulkLoad) * 1e9;
        for (double t = 1; t < double(duration); t += -std::log(1 - g.Unit()) * mean)
        {
            out.push_back({uint64_t(t), 1500, uint8_t(g.Below(3) == 0 ? 2 : 0), 0});
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
    return out;
}

// The flow rides in the UDP source port (1000 + flow).
class TraceFlowFilter : public PacketFilter
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::NetcondFqPieCrosscheckFlowFilter")
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

// One disc's side of a run.
struct Side
{
    Ptr<QueueDisc> q;
    std::vector<uint8_t> fate;
    std::vector<uint64_t> departed;                  // instant, per packet
    std::vector<std::pair<uint32_t, uint64_t>> sent; // (packet, instant), in order
    std::unordered_map<uint64_t, uint32_t> byUid;
    uint64_t bulkQueued = 0; // flow 0's packets in the disc
};

uint32_t g_netcondTargetMs = 15;

void
Connect(Side& s)
{
    auto index = [&s](Ptr<const QueueDiscItem> i) {
        auto it = s.byUid.find(i->GetPacket()->GetUid());
        NS_ABORT_MSG_IF(it == s.byUid.end(), "a packet not from the trace");
        return it->second;
    };
    std::function<void(Ptr<const QueueDiscItem>, const char*)> drop =
        [&s, index](Ptr<const QueueDiscItem> i, const char*) { s.fate[index(i)] = DROPPED; };
    std::function<void(Ptr<const QueueDiscItem>, const char*)> mark =
        [&s, index](Ptr<const QueueDiscItem> i, const char*) { s.fate[index(i)] = MARKED; };
    s.q->TraceConnectWithoutContext("DropBeforeEnqueue",
                                    Callback<void, Ptr<const QueueDiscItem>, const char*>(drop));
    s.q->TraceConnectWithoutContext("DropAfterDequeue",
                                    Callback<void, Ptr<const QueueDiscItem>, const char*>(drop));
    s.q->TraceConnectWithoutContext("Mark",
                                    Callback<void, Ptr<const QueueDiscItem>, const char*>(mark));
}

struct RunResult
{
    size_t packets = 0, agree = 0;
    bool ok = true;
};

// Runs one trace through both discs. With `topUp` > 0, flow 0 is topped up
// to that many packets in each disc before each link request (the same
// packets on both sides while they agree: the top-up follows ns-3's count).
RunResult
Run(const char* label, uint64_t seed, uint64_t duration, double bulkLoad, uint32_t topUp)
{
    std::vector<Arrival> trace = MakeTrace(seed, duration, bulkLoad);
    const size_t open = trace.size();
    trace.reserve(open * 4);
    Gen bulkGen{seed * 7919};

    Side ns3side, net;
    Ptr<FqPieQueueDisc> a = CreateObjectWithAttributes<FqPieQueueDisc>(
        "UseDerandomization", BooleanValue(true));
    a->SetQuantum(1514);
    a->AddPacketFilter(CreateObject<TraceFlowFilter>());
    a->Initialize();
    ns3side.q = a;
    Ptr<NetcondFqPieQueueDisc> b = CreateObjectWithAttributes<NetcondFqPieQueueDisc>(
        "QueueDelayReference", TimeValue(MilliSeconds(g_netcondTargetMs)));
    b->SetQuantum(1514);
    b->AddPacketFilter(CreateObject<TraceFlowFilter>());
    b->AssignStreams(5);
    b->Initialize();
    net.q = b;
    Connect(ns3side);
    Connect(net);

    auto now = []() { return uint64_t(Simulator::Now().GetNanoSeconds()); };
    auto offer = [&](uint32_t k) {
        for (Side* s : {&ns3side, &net})
        {
            Ptr<Ipv4QueueDiscItem> item = Item(trace[k]);
            s->byUid[item->GetPacket()->GetUid()] = k;
            if (s->fate.size() < trace.size())
            {
                s->fate.resize(trace.size(), QUEUED);
                s->departed.resize(trace.size(), 0);
            }
            s->q->Enqueue(item);
            if (trace[k].flow == 0 && s->fate[k] != DROPPED)
            {
                s->bulkQueued++;
            }
        }
    };
    auto link = [&]() {
        while (topUp > 0 && ns3side.bulkQueued < topUp)
        {
            trace.push_back({now(), 1500, uint8_t(bulkGen.Below(3) == 0 ? 2 : 0), 0});
            offer(uint32_t(trace.size() - 1));
        }
        for (Side* s : {&ns3side, &net})
        {
            Ptr<QueueDiscItem> out = s->q->Dequeue();
            if (!out)
            {
                continue;
            }
            const uint32_t k = s->byUid.at(out->GetPacket()->GetUid());
            if (s->fate[k] == QUEUED)
            {
                s->fate[k] = SENT;
            }
            s->departed[k] = now();
            s->sent.emplace_back(k, now());
            if (trace[k].flow == 0)
            {
                s->bulkQueued--;
            }
        }
    };
    for (uint32_t k = 0; k < open; k++)
    {
        Simulator::Schedule(NanoSeconds(int64_t(trace[k].at)), [&offer, k]() { offer(k); });
    }
    for (uint64_t t = kLinkGap; t < duration; t += kLinkGap)
    {
        Simulator::Schedule(NanoSeconds(int64_t(t)), link);
    }
    Simulator::Stop(NanoSeconds(int64_t(duration)));
    Simulator::Run();

    RunResult r;
    r.packets = trace.size();
    if (topUp > 0)
    {
        size_t diffs = 0;
        for (size_t k = 0; k < trace.size(); k++)
        {
            if (ns3side.fate[k] == net.fate[k])
            {
                r.agree++;
            }
            else if (++diffs <= 5)
            {
                std::printf("  packet %zu (flow %u, t %" PRIu64 " ns): ns-3 %s, netcond %s\n", k,
                            trace[k].flow, trace[k].at, kFateName[ns3side.fate[k]],
                            kFateName[net.fate[k]]);
            }
        }
        size_t acted = 0;
        std::vector<bool> used(1024, false);
        for (size_t k = 0; k < trace.size(); k++)
        {
            acted += ns3side.fate[k] >= MARKED || net.fate[k] >= MARKED;
            used[trace[k].flow] = true;
        }
        const size_t flows = size_t(std::count(used.begin(), used.end(), true));
        const bool order = ns3side.sent == net.sent;
        std::printf("%s, seed %" PRIu64 ": %zu packets (%zu departures), %zu flows, %zu agree, "
                    "%zu dropped or marked; departures %s\n",
                    label, seed, trace.size(), ns3side.sent.size(), flows, r.agree, acted,
                    order ? "equal" : "DIFFER");
        r.ok = diffs == 0 && order && acted == 0 && flows > 500;
    }
    else
    {
        // Flow 0's share dropped or marked, and its mean sojourn over the
        // last 15 s; the other flows' losses.
        struct Stats
        {
            uint64_t bulk = 0, dropped = 0, marked = 0, others = 0, othersLost = 0;
            double sojourn = 0;
            uint64_t sojourns = 0;
        };
        auto stats = [&](const Side& s) {
            Stats st;
            for (size_t k = 0; k < trace.size(); k++)
            {
                if (trace[k].flow != 0)
                {
                    st.others++;
                    st.othersLost += s.fate[k] == DROPPED;
                    continue;
                }
                st.bulk++;
                st.dropped += s.fate[k] == DROPPED;
                st.marked += s.fate[k] == MARKED;
                if (s.departed[k] > 0 && trace[k].at >= duration - 15 * kS)
                {
                    st.sojourn += double(s.departed[k] - trace[k].at);
                    st.sojourns++;
                }
            }
            st.sojourn /= double(std::max<uint64_t>(st.sojourns, 1));
            return st;
        };
        const Stats x = stats(ns3side), y = stats(net);
        const double fx = double(x.dropped + x.marked) / double(x.bulk);
        const double fy = double(y.dropped + y.marked) / double(y.bulk);
        std::printf("%s, seed %" PRIu64 ": flow 0 %" PRIu64 " packets; ns-3 %" PRIu64
                    " dropped, %" PRIu64 " marked (%.4f), mean sojourn %.2f ms; netcond %" PRIu64
                    " dropped, %" PRIu64 " marked (%.4f), mean sojourn %.2f ms; other flows "
                    "%" PRIu64 " packets, lost %" PRIu64 " (ns-3) and %" PRIu64 " (netcond)\n",
                    label, seed, x.bulk, x.dropped, x.marked, fx, x.sojourn / 1e6, y.dropped,
                    y.marked, fy, y.sojourn / 1e6, x.others, x.othersLost, y.othersLost);
        const bool ok = std::fabs(fx - fy) <= 0.01 &&
                        std::fabs(x.sojourn - y.sojourn) <= 0.1 * x.sojourn &&
                        x.othersLost == 0 && y.othersLost == 0 && x.dropped > 0 &&
                        x.marked > 0 && y.marked > 0;
        if (!ok)
        {
            std::printf("  outside the agreement (share within 0.01, sojourn within 10 %%, "
                        "no loss in other flows, both sides dropping and marking)\n");
        }
        r.ok = ok;
    }
    a->Dispose();
    b->Dispose();
    Simulator::Destroy();
    return r;
}

// Each bad attribute must end the run through NS_FATAL_ERROR with netcond's
// message (or the disc's own, for what the C interface cannot express).
bool
BadAttributes()
{
    const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
        {"Flows", "2048", "Flows = 2048 is outside 1..1024"},
        {"MaxSize", "100000B", "MaxSize must be in packets"},
        {"UseDerandomization", "false", "UseDerandomization=false"},
        {"UseDequeueRateEstimator", "true", "UseDequeueRateEstimator=true"},
        {"UseCapDropAdjustment", "false", "UseCapDropAdjustment=false"},
        {"EnableSetAssociativeHash", "true", "EnableSetAssociativeHash=true"},
        {"UseL4s", "true", "UseL4s=true is not supported"},
        {"CeThreshold", "1ms", "has no CE threshold"},
        {"A", "0.1", "A = 0.1 is not a whole number of sixteenths"},
        {"B", "3", "alpha and beta at most 32 sixteenths"},
        {"MarkEcnThreshold", "0.105", "MarkEcnThreshold = 0.105 is not a whole number of percent"},
        {"Tupdate", "0s", "T_UPDATE must be at least one tick"},
        {"MeanPktSize", "0", "MTU must be at least one byte"},
        {"QueueDelayReference", "-1ms", "QueueDelayReference is negative"},
    };
    bool ok = true;
    for (const auto& [attr, value, needle] : cases)
    {
        ok &= netcond_test::ExpectFatal(
            "NetcondFqPieQueueDisc with " + attr + "=" + value,
            [&]() {
                ObjectFactory f;
                f.SetTypeId("ns3::NetcondFqPieQueueDisc");
                f.Set(attr, StringValue(value));
                Ptr<NetcondFqPieQueueDisc> q = f.Create<NetcondFqPieQueueDisc>();
                q->SetQuantum(1514);
                q->Initialize();
            },
            needle);
    }
    ok &= netcond_test::ExpectFatal(
        "NetcondFqPieQueueDisc with quantum 2^31",
        []() {
            Ptr<NetcondFqPieQueueDisc> q = CreateObject<NetcondFqPieQueueDisc>();
            q->SetQuantum(1u << 31);
            q->Initialize();
        },
        "the DRR quantum must be below 2^31 bytes");
    ok &= netcond_test::ExpectFatal(
        "NetcondFqPieQueueDisc without a quantum or a device",
        []() { CreateObject<NetcondFqPieQueueDisc>()->Initialize(); },
        "no quantum");
    return ok;
}

} // namespace

int
main(int argc, char** argv)
{
    uint32_t seeds = 2;
    double seconds = 20;
    CommandLine cmd(__FILE__);
    cmd.AddValue("seeds", "seeds", seeds);
    cmd.AddValue("seconds", "length of each run, s (at least 16)", seconds);
    cmd.AddValue("netcond-target-ms", "netcond's QueueDelayReference, ms", g_netcondTargetMs);
    cmd.Parse(argc, argv);
    const uint64_t duration = uint64_t(std::max(seconds, 16.0) * double(kS));
    size_t packets = 0, agree = 0, runs = 0, aqmOk = 0;
    bool ok = g_netcondTargetMs != 15 || BadAttributes();
    for (uint64_t seed = 1; seed <= seeds; seed++)
    {
        const RunResult s = Run("scheduler", seed, duration, 0, 40);
        packets += s.packets;
        agree += s.agree;
        runs++;
        ok = ok && s.ok;
        const RunResult q = Run("aqm", seed, duration, 1.25, 0);
        aqmOk += q.ok;
        ok = ok && q.ok;
    }
    std::printf("netcond-fq-pie-crosscheck: %zu packets in %zu scheduler runs, %zu agree, %zu "
                "differ; aqm runs %zu of %u within the agreement\n",
                packets, runs, agree, packets - agree, aqmOk, seeds);
    return ok ? 0 : 1;
}
