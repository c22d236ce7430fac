// DualPI2 glue check: one packet trace through NetcondDualPi2QueueDisc and,
// in the same simulation events, through netcond's C calls
// (netcond_dualpi2_*) driven directly over two FIFOs kept here. ns-3.37 has
// no DualPI2 of its own, so this checks the disc's glue, exactly: the queue
// each arrival goes to (or the shared buffer's refusal), the queue served at
// each link request, every packet's fate (delivered, CE-marked, dropped by
// the AQM, refused by the buffer) and the departure order and instants, and
// p', p_CL and p_C at the end.
//
// The reference side polls the PI update before every arrival and every link
// request and at every multiple of Tupdate, as the disc does (its timer, and
// a poll in DoEnqueue and DoDequeue); netcond runs an update once when due,
// whichever poll comes first at that instant, so the order of same-instant
// events does not matter. The reference draws from a UniformRandomVariable
// on the stream given to the disc's AssignStreams, two 32-bit values per
// head taken, high half first, as the disc does.
//
// The trace (arrival instant, size, ECN field) comes from a seeded
// generator: open-loop arrivals of 64 to 1500 bytes, ECN fields Not-ECT,
// ECT(0), ECT(1) and CE in turn weighted 3:2:4:1, at an offered load that
// cycles every 4 s through 0.7, 1.02 and 1.6 times a 100 Mbit/s link, the
// last phase opening with 150 ms at 20 times the link (so the Classic delay
// crosses the target, p' climbs and falls back, L4S marking saturates and the
// shared buffer fills). The link asks for one packet every 120 us.
//
// Configurations: RFC 9332's defaults (recur()), random draws (two for the
// Classic queue), and the weighted round robin with a step (Range 0), a 10 ms
// target and random one-draw decisions. --k-bias gives the reference side K
// one sixteenth higher: then decisions must differ (the check of the check).
// The program exits 1 on any difference, or if a run did not mark in both
// queues, drop in the Classic queue and refuse at the buffer. Ends with
// "netcond-dualpi2-crosscheck: N packets in R runs, A agree, D differ".

#include "netcond-dualpi2-queue-disc.h"
#include "netcond-expect-fatal.h"
#include "netcond.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint64_t kUs = 1000;
constexpr uint64_t kS = 1000000000;

enum Fate
{
    QUEUED = 0,
    SENT,
    MARKED,
    DROPPED,
    REFUSED,
};

const char* const kFateName[] = {"queued", "sent", "marked", "dropped", "refused"};

struct Arrival
{
    uint64_t at;
    uint32_t len;
    uint8_t ecn;
};

struct Gen
{
    uint64_t s;
    uint64_t Next()
    {
        s += 0x9e3779b97f4a7c15ull;
        uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    double Unit() { return double(Next() >> 11) * 0x1.0p-53; }
};

std::vector<Arrival>
MakeTrace(uint64_t seed, uint64_t duration)
{
    Gen g{seed};
    std::vector<Arrival> v;
    const double linkBps = 100e6;
    const double loads[] = {0.7, 1.02, 1.6};
    double t = 1000; // ns
    while (t < double(duration))
    {
        const uint32_t len = 64 + uint32_t(g.Next() % (1500 - 64 + 1));
        const uint32_t w = uint32_t(g.Next() % 10);
        const uint8_t ecn = w < 3 ? 0 : w < 5 ? 2 : w < 9 ? 1 : 3;
        v.push_back(Arrival{uint64_t(t), len, ecn});
        const uint64_t phase = (uint64_t(t) / (4 * kS)) % 3;
        // The overload phase opens with 150 ms at 20 times the link, which
        // fills the shared buffer.
        const double load = phase == 2 && uint64_t(t) % (4 * kS) < 150000000 ? 20 : loads[phase];
        // Exponential gaps with the mean of this size at `load` of the link.
        const double mean = double(len) * 8 / (linkBps * load) * 1e9;
        t += -std::log(1 - g.Unit()) * mean;
    }
    return v;
}

Ptr<Ipv4QueueDiscItem>
Item(const Arrival& a)
{
    Ptr<Packet> p = Create<Packet>(a.len - 20);
    Ipv4Header h;
    h.SetSource(Ipv4Address("10.0.0.1"));
    h.SetDestination(Ipv4Address("10.0.1.1"));
    h.SetProtocol(17);
    h.SetPayloadSize(p->GetSize());
    h.SetEcn(Ipv4Header::EcnType(a.ecn));
    return Create<Ipv4QueueDiscItem>(p, Address(), 0x0800, h);
}

struct Setup
{
    const char* name;
    std::vector<std::pair<std::string, std::string>> attrs; // attribute, value
    netcond_dualpi2_params params;                            // the same, for the C side
};

std::vector<Setup>
Setups()
{
    netcond_dualpi2_params rfc{};
    rfc.target_ns = 15000000;
    rfc.t_update_ns = 15000000;
    rfc.min_th_ns = 800000;
    rfc.range_ns = 400000;
    rfc.tshift_ns = 40000000;
    rfc.limit = 3125000;
    rfc.tick_hz = 1000000000;
    rfc.alpha_mhz = 150;
    rfc.beta_mhz = 3000;
    rfc.k16 = 32;
    rfc.th_len = 1;
    rfc.mtu = 1500;
    rfc.curq_max = 1;
    rfc.scheduler = 0;
    rfc.decision = 0;
    rfc.wrr_l4s = 10;
    rfc.wrr_classic = 1;
    std::vector<Setup> s;
    s.push_back(Setup{"RFC 9332 defaults (recur)", {}, rfc});
    netcond_dualpi2_params two = rfc;
    two.decision = 1;
    s.push_back(Setup{"random, two draws", {{"Decision", "RandomTwoDraws"}}, two});
    netcond_dualpi2_params wrr = rfc;
    wrr.scheduler = 1;
    wrr.wrr_l4s = 3;
    wrr.wrr_classic = 2;
    wrr.range_ns = 0;
    wrr.min_th_ns = 1000000;
    wrr.target_ns = 10000000;
    wrr.decision = 2;
    wrr.k16 = 40;
    wrr.curq_max = 0;
    wrr.limit = 1500000;
    s.push_back(Setup{"WRR 3:2, step at 1 ms, target 10 ms, K 2.5, one draw, Classic curq, "
                      "1.5 MB",
                      {{"Scheduler", "Wrr"},
                       {"WrrL4s", "3"},
                       {"WrrClassic", "2"},
                       {"Range", "0s"},
                       {"MinTh", "1ms"},
                       {"Target", "10ms"},
                       {"Decision", "RandomOneDraw"},
                       {"K", "2.5"},
                       {"CurqMax", "false"},
                       {"MaxSize", "1500000B"}},
                      wrr});
    return s;
}

struct Result
{
    size_t packets = 0, agree = 0;
    bool ok = true;
};

bool g_kBias = false;
uint64_t g_duration = 24 * kS;

struct Side
{
    std::vector<uint8_t> fate;
    std::vector<std::pair<uint32_t, uint64_t>> sent; // (packet, instant), in order
};

Result
RunOne(const Setup& setup, uint64_t seed)
{
    const std::vector<Arrival> trace = MakeTrace(seed, g_duration);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    const int64_t stream = 11;

    ObjectFactory f;
    f.SetTypeId("ns3::NetcondDualPi2QueueDisc");
    for (const auto& a : setup.attrs)
    {
        f.Set(a.first, StringValue(a.second));
    }
    Ptr<NetcondDualPi2QueueDisc> q = f.Create<NetcondDualPi2QueueDisc>();
    q->AssignStreams(stream);
    q->Initialize();

    netcond_dualpi2_params p = setup.params;
    if (g_kBias)
    {
        p.k16 += 1;
    }
    netcond_dualpi2_profile prof;
    netcond_dualpi2 st;
    Result r;
    if (netcond_dualpi2_profile_config(&prof, &p) != NETCOND_OK ||
        netcond_dualpi2_config(&st, &prof, 0) != NETCOND_OK)
    {
        std::printf("%s: netcond refused the configuration\n", setup.name);
        r.ok = false;
        return r;
    }
    Ptr<UniformRandomVariable> uv = CreateObject<UniformRandomVariable>();
    uv->SetStream(stream);

    Side ns3side, ref;
    ns3side.fate.assign(trace.size(), QUEUED);
    ref.fate.assign(trace.size(), QUEUED);
    std::deque<uint32_t> fifo[2]; // reference: L4S, Classic
    uint64_t bytes = 0;
    std::unordered_map<uint64_t, uint32_t> byUid;
    auto index = [&byUid](Ptr<const QueueDiscItem> item) -> uint32_t {
        auto it = byUid.find(item->GetPacket()->GetUid());
        NS_ABORT_MSG_IF(it == byUid.end(), "a packet not from the trace");
        return it->second;
    };
    uint64_t l4sMarks = 0, classicMarks = 0, classicDrops = 0, l4sDrops = 0;
    std::function<void(Ptr<const QueueDiscItem>, const char*)> onDropBefore =
        [&](Ptr<const QueueDiscItem> i, const char*) { ns3side.fate[index(i)] = REFUSED; };
    std::function<void(Ptr<const QueueDiscItem>, const char*)> onDropAfter =
        [&](Ptr<const QueueDiscItem> i, const char* why) {
            ns3side.fate[index(i)] = DROPPED;
            (std::strcmp(why, NetcondDualPi2QueueDisc::UNFORCED_L4S_DROP) == 0 ? l4sDrops
                                                                              : classicDrops)++;
        };
    std::function<void(Ptr<const QueueDiscItem>, const char*)> onMark =
        [&](Ptr<const QueueDiscItem> i, const char* why) {
            ns3side.fate[index(i)] = MARKED;
            (std::strcmp(why, NetcondDualPi2QueueDisc::UNFORCED_L4S_MARK) == 0 ? l4sMarks
                                                                              : classicMarks)++;
        };
    q->TraceConnectWithoutContext(
        "DropBeforeEnqueue", Callback<void, Ptr<const QueueDiscItem>, const char*>(onDropBefore));
    q->TraceConnectWithoutContext(
        "DropAfterDequeue", Callback<void, Ptr<const QueueDiscItem>, const char*>(onDropAfter));
    q->TraceConnectWithoutContext("Mark",
                                  Callback<void, Ptr<const QueueDiscItem>, const char*>(onMark));

    auto now = []() { return uint64_t(Simulator::Now().GetNanoSeconds()); };
    auto poll = [&]() {
        const bool hl = !fifo[0].empty(), hc = !fifo[1].empty();
        netcond_dualpi2_poll(&st, &prof, now(), hl, hl ? trace[fifo[0].front()].at : 0, hc,
                             hc ? trace[fifo[1].front()].at : 0);
    };
    auto arrive = [&](uint32_t k) {
        const Arrival& a = trace[k];
        Ptr<Ipv4QueueDiscItem> item = Item(a);
        byUid[item->GetPacket()->GetUid()] = k;
        q->Enqueue(item);
        poll();
        const netcond_dualpi2_queue which =
            netcond_dualpi2_enqueue(&st, &prof, now(), a.ecn, a.len, bytes);
        if (which == NETCOND_DUALPI2_NONE)
        {
            ref.fate[k] = REFUSED;
            return;
        }
        fifo[which].push_back(k);
        bytes += a.len;
    };
    auto link = [&]() {
        Ptr<QueueDiscItem> out = q->Dequeue();
        if (out)
        {
            const uint32_t k = index(out);
            if (ns3side.fate[k] == QUEUED)
            {
                ns3side.fate[k] = SENT;
            }
            ns3side.sent.emplace_back(k, now());
        }
        poll();
        for (;;)
        {
            const bool hl = !fifo[0].empty(), hc = !fifo[1].empty();
            const netcond_dualpi2_queue which = netcond_dualpi2_schedule(
                &st, &prof, now(), hl, hl ? trace[fifo[0].front()].at : 0, hc,
                hc ? trace[fifo[1].front()].at : 0);
            if (which == NETCOND_DUALPI2_NONE)
            {
                break;
            }
            const uint32_t k = fifo[which].front();
            fifo[which].pop_front();
            bytes -= trace[k].len;
            const uint64_t hi = uv->GetInteger(0, 0xffffffffu);
            const uint64_t lo = uv->GetInteger(0, 0xffffffffu);
            const netcond_codel_verdict v = netcond_dualpi2_on_dequeue_draw(
                &st, &prof, now(), which, trace[k].at, trace[k].len, trace[k].ecn,
                uint32_t(fifo[which].size()), hi << 32 | lo);
            if (v == NETCOND_CODEL_DROP)
            {
                ref.fate[k] = DROPPED;
                continue;
            }
            ref.fate[k] = v == NETCOND_CODEL_MARK ? MARKED : SENT;
            ref.sent.emplace_back(k, now());
            break;
        }
    };

    for (uint32_t k = 0; k < trace.size(); k++)
    {
        Simulator::Schedule(NanoSeconds(int64_t(trace[k].at)), [&arrive, k]() { arrive(k); });
    }
    for (uint64_t t = 120 * kUs; t < g_duration; t += 120 * kUs)
    {
        Simulator::Schedule(NanoSeconds(int64_t(t)), link);
    }
    for (uint64_t t = p.t_update_ns; t < g_duration; t += p.t_update_ns)
    {
        Simulator::Schedule(NanoSeconds(int64_t(t)), poll);
    }
    Simulator::Stop(NanoSeconds(int64_t(g_duration)));
    Simulator::Run();

    uint64_t diffs = 0;
    for (size_t k = 0; k < trace.size(); k++)
    {
        if (ns3side.fate[k] == ref.fate[k])
        {
            r.agree++;
            continue;
        }
        if (++diffs <= 5)
        {
            std::printf("  packet %zu (t %" PRIu64 " ns, %u B, ECN %u): disc %s, C calls %s\n", k,
                        trace[k].at, trace[k].len, trace[k].ecn, kFateName[ns3side.fate[k]],
                        kFateName[ref.fate[k]]);
        }
    }
    r.packets = trace.size();
    bool orderOk = ns3side.sent == ref.sent;
    netcond_dualpi2_info info;
    netcond_dualpi2_info_get(&st, &prof, &info);
    const bool probOk = q->GetBaseProbability() == std::ldexp(double(info.p_prime), -32) &&
                        q->GetCoupledProbability() == std::ldexp(double(info.p_cl), -32) &&
                        q->GetClassicProbability() == std::ldexp(double(info.p_c), -64);
    uint64_t refused = 0;
    for (uint8_t fate : ns3side.fate)
    {
        refused += fate == REFUSED;
    }
    const QueueDisc::Stats& stats = q->GetStats();
    std::printf("%s, seed %" PRIu64 ": %zu packets, %zu agree; disc: %" PRIu64
                " L4S marks, %" PRIu64 " Classic marks, %" PRIu64 " Classic drops, %" PRIu64
                " L4S overload drops, %" PRIu64 " refused (stats: %" PRIu32
                " dropped, %" PRIu32 " marked); departures %s; p' %s (%.6f)\n",
                setup.name, seed, trace.size(), r.agree, l4sMarks, classicMarks, classicDrops,
                l4sDrops, refused, stats.nTotalDroppedPackets, stats.nTotalMarkedPackets,
                orderOk ? "equal" : "DIFFER", probOk ? "equal" : "DIFFERS",
                q->GetBaseProbability());
    const bool exercised = l4sMarks > 0 && classicMarks > 0 && classicDrops > 0 && refused > 0;
    if (!exercised)
    {
        std::printf("  the trace did not mark in both queues, drop in the Classic queue and "
                    "fill the buffer\n");
    }
    const bool statsOk = stats.nTotalDroppedPackets == classicDrops + l4sDrops + refused &&
                         stats.nTotalMarkedPackets == l4sMarks + classicMarks;
    if (!statsOk)
    {
        std::printf("  the disc's QueueDisc statistics disagree with its traces\n");
    }
    r.ok = diffs == 0 && orderOk && probOk && exercised && statsOk;
    q->Dispose();
    Simulator::Destroy();
    return r;
}

// Each bad attribute must end the run through NS_FATAL_ERROR with netcond's
// message (or the disc's own, for what the C interface cannot express).
bool
BadAttributes()
{
    const std::vector<std::tuple<std::string, std::string, std::string, std::string>> cases = {
        {"Target", "0s", "", "Classic target must be at least one tick"},
        {"Tupdate", "0s", "", "Tupdate must be at least one tick"},
        {"K", "0", "", "coupling factor k must be positive"},
        {"MinTh", "0s", "Range=0s", "ramp must end at least one tick above zero"},
        {"MaxSize", "1000B", "", "limit must hold at least one MTU"},
        {"Mtu", "0", "", "the MTU be positive"},
        {"WrrL4s", "0", "Scheduler=Wrr", "round-robin weights must be positive"},
        {"Alpha", "1001", "", "alpha and beta at most 1 kHz"},
        {"K", "17", "", "k at most 16"},
        {"MaxSize", "100p", "", "MaxSize must be in bytes"},
        {"Alpha", "0.1505", "", "Alpha = 0.1505 is not a whole number of millihertz"},
        {"K", "2.01", "", "K = 2.01 is not a whole number of sixteenths"},
        {"Target", "-1ms", "", "Target is negative"},
    };
    bool ok = true;
    for (const auto& [attr, value, other, needle] : cases)
    {
        const std::string what = "NetcondDualPi2QueueDisc with " + attr + "=" + value +
                                 (other.empty() ? "" : " and " + other);
        ok &= netcond_test::ExpectFatal(
            what,
            [&]() {
                ObjectFactory f;
                f.SetTypeId("ns3::NetcondDualPi2QueueDisc");
                f.Set(attr, StringValue(value));
                if (!other.empty())
                {
                    const size_t eq = other.find('=');
                    f.Set(other.substr(0, eq), StringValue(other.substr(eq + 1)));
                }
                f.Create<QueueDisc>()->Initialize();
            },
            needle);
    }
    return ok;
}

} // namespace

int
main(int argc, char** argv)
{
    uint32_t seeds = 2;
    double seconds = 24;
    CommandLine cmd(__FILE__);
    cmd.AddValue("seeds", "seeds per configuration", seeds);
    cmd.AddValue("seconds", "trace length, s", seconds);
    cmd.AddValue("k-bias", "give the C side K one sixteenth higher (must fail)", g_kBias);
    cmd.Parse(argc, argv);
    bool ok = g_kBias || BadAttributes();
    g_duration = uint64_t(seconds * double(kS));
    size_t packets = 0, agree = 0, runs = 0;
    for (const Setup& s : Setups())
    {
        for (uint64_t seed = 1; seed <= seeds; seed++)
        {
            const Result r = RunOne(s, seed);
            packets += r.packets;
            agree += r.agree;
            runs++;
            ok = ok && r.ok;
        }
    }
    std::printf("netcond-dualpi2-crosscheck: %zu packets in %zu runs, %zu agree, %zu differ\n",
                packets, runs, agree, packets - agree);
    return ok ? 0 : 1;
}
