// Tests of the netcond queue discs inside ns-3: packets are enqueued into a
// queue disc at scheduled simulation times (no network), and what comes out
// is checked against what the RFCs and netcond's contract say. Bad attribute
// values are checked in a child process: the simulation must abort with
// NS_FATAL_ERROR carrying netcond's message. Ends with
// "netcond-ns3-tests: N passed, N failed"; exits 1 if any failed.

#ifdef NETCOND_NS3_HAVE_PCN
#include "netcond-pcn-queue-disc.h"
#endif
#include "netcond-policer-queue-disc.h"
#include "netcond-red-queue-disc.h"
#include "netcond.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

int g_passed = 0;
int g_failed = 0;

void
Check(bool ok, const std::string& what)
{
    (ok ? g_passed : g_failed)++;
    std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
    std::fflush(stdout);
}

// An IPv4 UDP packet of `len` bytes in total (20 + 8 + payload) from
// 10.0.0.<src>, with DS field `ds` (DSCP << 2 | ECN).
Ptr<QueueDiscItem>
Item(uint32_t len, uint8_t ds, uint8_t src = 1)
{
    Ptr<Packet> p = Create<Packet>(len - 28);
    UdpHeader udp;
    udp.SetSourcePort(1000 + src);
    udp.SetDestinationPort(9);
    p->AddHeader(udp);
    Ipv4Header h;
    h.SetSource(Ipv4Address((10u << 24) | src));
    h.SetDestination(Ipv4Address("10.0.1.1"));
    h.SetProtocol(17);
    h.SetPayloadSize(p->GetSize());
    h.SetTos(ds);
    return Create<Ipv4QueueDiscItem>(p, Address(), 0x0800, h);
}

uint8_t
DsOf(Ptr<QueueDiscItem> item)
{
    return DynamicCast<Ipv4QueueDiscItem>(item)->GetHeader().GetTos();
}

// Runs `body` in a child process; true if the child aborted (NS_FATAL_ERROR)
// and its standard error contains `needle`.
bool
AbortsWith(const std::function<void()>& body, const std::string& needle, std::string* err)
{
    int fds[2];
    if (pipe(fds) != 0)
    {
        return false;
    }
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
    {
        close(fds[0]);
        dup2(fds[1], 2);
        body();
        _exit(0); // no abort: the test fails
    }
    close(fds[1]);
    std::string text;
    char buf[512];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0)
    {
        text.append(buf, size_t(n));
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    *err = text;
    bool aborted = WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0);
    return aborted && text.find(needle) != std::string::npos;
}

void
ExpectFatal(const std::string& what, const std::function<void()>& body, const std::string& needle)
{
    std::string err;
    bool ok = AbortsWith(body, needle, &err);
    std::string first = err.substr(0, err.find('\n'));
    Check(ok, what + " -> fatal error mentioning \"" + needle + "\"" +
                  (ok ? "" : " (got: " + first + ")"));
    if (ok && std::getenv("NETCOND_TEST_VERBOSE"))
    {
        std::printf("    %s\n", first.c_str());
    }
}

// ------------------------------------------------------------------ policer

// Offers `count` packets of `len` bytes, one every `gap`, from `nSrc`
// sources in turn, to `q`, dequeuing everything at once (no backlog).
// Returns the dequeued items.
std::vector<Ptr<QueueDiscItem>>
Offer(Ptr<QueueDisc> q, uint32_t count, uint32_t len, Time gap, uint8_t ds, uint8_t nSrc = 1)
{
    std::vector<Ptr<QueueDiscItem>> out;
    for (uint32_t i = 0; i < count; i++)
    {
        Simulator::Schedule(gap * i, [=, &out]() {
            q->Enqueue(Item(len, ds, uint8_t(1 + i % nSrc)));
            while (Ptr<QueueDiscItem> d = q->Dequeue())
            {
                out.push_back(d);
            }
        });
    }
    Simulator::Run();
    Simulator::Destroy();
    return out;
}

void
TestPolicer()
{
    // trTCM, CIR 1 Mbit/s (125000 B/s), PIR 2 Mbit/s, CBS 3000, PBS 6000;
    // 1000-byte packets at 3 Mbit/s (one per 8/3 ms) for 3 s (1125 packets).
    // RFC 2698: over [0, T] green bytes <= CBS + CIR T and green + yellow <=
    // PBS + PIR T; with the stream above both rates, each is reached to
    // within one packet.
    auto make = [](const std::string& action, const std::string& key) {
        Ptr<NetcondPolicerQueueDisc> q = CreateObject<NetcondPolicerQueueDisc>();
        q->SetAttribute("Meter", StringValue("Trtcm"));
        q->SetAttribute("Cir", DataRateValue(DataRate("1Mbps")));
        q->SetAttribute("Pir", DataRateValue(DataRate("2Mbps")));
        q->SetAttribute("Cbs", UintegerValue(3000));
        q->SetAttribute("Pbs", UintegerValue(6000));
        q->SetAttribute("Action", StringValue(action));
        q->SetAttribute("Key", StringValue(key));
        q->Initialize();
        return q;
    };
    const uint32_t n = 1125;
    const Time gap = NanoSeconds(8000000 / 3); // 2.666 ms
    const double T = (n - 1) * gap.GetSeconds();
    {
        auto q = make("RemarkDropRed", "Flow");
        auto out = Offer(q, n, 1000, gap, 0);
        double green = q->GetColorBytes(NetcondPolicerQueueDisc::GREEN);
        double yellow = q->GetColorBytes(NetcondPolicerQueueDisc::YELLOW);
        double red = q->GetColorBytes(NetcondPolicerQueueDisc::RED);
        double gMax = 3000 + 125000 * T;
        double gyMax = 6000 + 250000 * T;
        Check(green <= gMax && green > gMax - 1000,
              "trTCM green bytes " + std::to_string(green) + " within one packet below CBS + CIR T = " +
                  std::to_string(gMax));
        Check(green + yellow <= gyMax && green + yellow > gyMax - 1000,
              "trTCM green + yellow bytes within one packet below PBS + PIR T");
        Check(red == n * 1000.0 - green - yellow, "every packet colored once");
        Check(q->GetStats().GetNDroppedPackets(NetcondPolicerQueueDisc::RED_DROP) ==
                  q->GetColorPackets(NetcondPolicerQueueDisc::RED),
              "RemarkDropRed drops exactly the red packets");
        bool dscpOk = !out.empty();
        uint32_t af11 = 0;
        uint32_t af12 = 0;
        for (auto& it : out)
        {
            uint8_t dscp = DsOf(it) >> 2;
            af11 += dscp == 10;
            af12 += dscp == 12;
            dscpOk = dscpOk && (dscp == 10 || dscp == 12);
        }
        Check(dscpOk && af11 == q->GetColorPackets(NetcondPolicerQueueDisc::GREEN) &&
                  af12 == q->GetColorPackets(NetcondPolicerQueueDisc::YELLOW),
              "green re-marked AF11 (10), yellow AF12 (12)");
    }
    {
        // Two sources interleaved, keyed by flow: each has its own buckets,
        // so each flow's green bytes reach CBS + CIR T on its own.
        auto q = make("DropRed", "Flow");
        Offer(q, 2 * n, 1000, gap / 2, 0, 2);
        double green = q->GetColorBytes(NetcondPolicerQueueDisc::GREEN);
        double gMax = 2 * (3000 + 125000 * T); // each flow sends n packets over T
        Check(q->GetNStates() == 2 && green <= gMax && green > gMax - 2000,
              "keyed by flow: two states, green bytes of both flows " + std::to_string(green) +
                  " near 2 (CBS + CIR T)");
    }
    {
        // The same two sources keyed by DSCP (both DSCP 0): one state.
        auto q = make("DropRed", "Dscp");
        Offer(q, 2 * n, 1000, gap / 2, 0, 2);
        double green = q->GetColorBytes(NetcondPolicerQueueDisc::GREEN);
        double gMax = 3000 + 125000 * (2 * n - 1) * (gap / 2).GetSeconds();
        Check(q->GetNStates() == 1 && green <= gMax && green > gMax - 1000,
              "keyed by DSCP: one state, green bytes " + std::to_string(green) +
                  " within one packet below CBS + CIR T = " + std::to_string(gMax));
    }
    {
        // Color-aware srTCM: pre-colored AF13 packets stay red whatever the
        // tokens (RFC 2697 section 3), and Remark keeps them (as AF13).
        Ptr<NetcondPolicerQueueDisc> q = CreateObject<NetcondPolicerQueueDisc>();
        q->SetAttribute("Meter", StringValue("Srtcm"));
        q->SetAttribute("Cir", DataRateValue(DataRate("8Mbps")));
        q->SetAttribute("ColorAware", BooleanValue(true));
        q->SetAttribute("Action", StringValue("Remark"));
        q->Initialize();
        auto out = Offer(q, 10, 500, MilliSeconds(10), uint8_t(14 << 2)); // AF13
        bool allAf13 = out.size() == 10;
        for (auto& it : out)
        {
            allAf13 = allAf13 && (DsOf(it) >> 2) == 14;
        }
        Check(q->GetColorPackets(NetcondPolicerQueueDisc::RED) == 10 && allAf13,
              "color-aware srTCM keeps AF13 packets red, re-marked AF13, none dropped");
    }
    {
        // RFC 4115, color-blind, far below CIR: everything green.
        Ptr<NetcondPolicerQueueDisc> q = CreateObject<NetcondPolicerQueueDisc>();
        q->SetAttribute("Meter", StringValue("Rfc4115"));
        q->SetAttribute("Cir", DataRateValue(DataRate("8Mbps")));
        q->SetAttribute("Eir", DataRateValue(DataRate("8Mbps")));
        q->Initialize();
        Offer(q, 100, 500, MilliSeconds(1), 0);
        Check(q->GetColorPackets(NetcondPolicerQueueDisc::GREEN) == 100,
              "RFC 4115 below CIR: all green");
    }

    ExpectFatal(
        "policer with Cir 0",
        []() {
            Ptr<NetcondPolicerQueueDisc> q = CreateObject<NetcondPolicerQueueDisc>();
            q->SetAttribute("Meter", StringValue("Srtcm"));
            q->SetAttribute("Cir", DataRateValue(DataRate(0)));
            q->Initialize();
        },
        netcond_strerror(NETCOND_E_SRTCM_ZERO_CIR));
    ExpectFatal(
        "trTCM with Pir below Cir",
        []() {
            Ptr<NetcondPolicerQueueDisc> q = CreateObject<NetcondPolicerQueueDisc>();
            q->SetAttribute("Cir", DataRateValue(DataRate("2Mbps")));
            q->SetAttribute("Pir", DataRateValue(DataRate("1Mbps")));
            q->Initialize();
        },
        netcond_strerror(NETCOND_E_TRTCM_PIR_BELOW_CIR));
    ExpectFatal(
        "policer with a rate that is not whole bytes per second",
        []() {
            Ptr<NetcondPolicerQueueDisc> q = CreateObject<NetcondPolicerQueueDisc>();
            q->SetAttribute("Cir", DataRateValue(DataRate(1001)));
            q->Initialize();
        },
        "not a whole number of bytes per second");
}

// ---------------------------------------------------------------------- RED

Ptr<NetcondRedQueueDisc>
MakeRed(bool ecn)
{
    // aqm-red's documented example: min_th 10, max_th 30, max_p 0.5, w_q 0.001,
    // 50 packets.
    Ptr<NetcondRedQueueDisc> q = CreateObject<NetcondRedQueueDisc>();
    q->SetAttribute("MinTh", DoubleValue(10));
    q->SetAttribute("MaxTh", DoubleValue(30));
    q->SetAttribute("MaxP", DoubleValue(0.5));
    q->SetAttribute("QW", DoubleValue(0.001));
    q->SetAttribute("MaxSize", QueueSizeValue(QueueSize("50p")));
    q->SetAttribute("Gentle", BooleanValue(false));
    q->SetAttribute("UseEcn", BooleanValue(ecn));
    q->SetAttribute("LinkBandwidth", DataRateValue(DataRate("10Mbps")));
    q->SetAttribute("MeanPktSize", UintegerValue(1500));
    q->AssignStreams(3);
    q->Initialize();
    return q;
}

void
TestRed()
{
    // A standing queue of 20 packets: the average converges to 20 exactly,
    // p_b = 0.5 (20 - 10) / 20 = 0.25, and FJ93's spreading (the default)
    // drops or marks 2 p_b / (1 + p_b) = 40 % of the arrivals.
    for (bool ecn : {false, true})
    {
        Ptr<NetcondRedQueueDisc> q = MakeRed(ecn);
        const uint8_t ds = ecn ? Ipv4Header::ECN_ECT0 : 0;
        uint32_t hits = 0;
        uint32_t ce = 0;
        uint32_t arrivals = 0;
        for (int i = 0; i < 20; i++)
        {
            q->Enqueue(Item(1500, ds));
        }
        const int n = 30000;
        for (int i = 0; i < n; i++)
        {
            Simulator::Schedule(MicroSeconds(1000 * (i + 1)), [&, i]() {
                bool in = q->Enqueue(Item(1500, ds));
                if (i >= 10000)
                {
                    arrivals++;
                }
                if (in)
                {
                    Ptr<QueueDiscItem> d = q->Dequeue();
                    if (i >= 10000 && (DsOf(d) & 3) == Ipv4Header::ECN_CE)
                    {
                        ce++;
                    }
                }
                else if (i >= 10000)
                {
                    hits++;
                }
            });
        }
        Simulator::Run();
        const QueueDisc::Stats& st = q->GetStats();
        double avg = q->GetAverage();
        if (ecn)
        {
            // The packets marked after i = 10000 leave 20 packets later.
            hits = ce;
        }
        double frac = double(hits) / arrivals;
        Check(std::fabs(avg - 20) < 1e-6, std::string(ecn ? "ECN: " : "") +
                                              "RED's average reaches the standing queue (" +
                                              std::to_string(avg) + ")");
        Check(frac > 0.38 && frac < 0.42,
              std::string(ecn ? "ECN: marked " : "dropped ") + std::to_string(100 * frac) +
                  " % of the arrivals, FJ93's 2 p_b / (1 + p_b) = 40 %");
        if (ecn)
        {
            Check(st.nTotalDroppedPackets == 0 &&
                      st.GetNMarkedPackets(NetcondRedQueueDisc::UNFORCED_MARK) > 0,
                  "ECN: no drops, marks counted as \"Unforced mark\"");
        }
        else
        {
            Check(st.GetNDroppedPackets(NetcondRedQueueDisc::UNFORCED_DROP) > 0 &&
                      st.GetNDroppedPackets(NetcondRedQueueDisc::FORCED_DROP) == 0,
                  "drops counted as \"Unforced drop\", none forced");
        }

        // Idle decay, FJ93: the queue empties at t0 = 1 s (the dequeue that
        // takes its last packet) and stays empty for 1.2 s, 1000 times s
        // (1500 B at 10 Mbit/s); the next arrival sees the average times
        // (1 - w_q)^1000.
        if (!ecn)
        {
            double before = 0;
            Simulator::Schedule(Seconds(1), [&]() {
                while (q->Dequeue())
                {
                }
                before = q->GetAverage();
            });
            Simulator::Schedule(Seconds(1) + MilliSeconds(1200), [&]() { q->Enqueue(Item(1500, 0)); });
            Simulator::Run();
            double want = before * std::pow(1 - 0.001, 1.2 / 1.2e-3);
            double got = q->GetAverage();
            Check(std::fabs(got - want) < 1e-6 * want + 1e-8,
                  "idle decay over 1000 transmission times: " + std::to_string(got) + " = " +
                      std::to_string(before) + " (1 - w_q)^1000 = " + std::to_string(want));
        }
        Simulator::Destroy();
    }

    {
        // The buffer: the 6th packet into a 5-packet buffer is dropped as
        // "Buffer full" (the average is still 0: no RED drop).
        Ptr<NetcondRedQueueDisc> q = CreateObject<NetcondRedQueueDisc>();
        q->SetAttribute("MinTh", DoubleValue(3));
        q->SetAttribute("MaxTh", DoubleValue(5));
        q->SetAttribute("MaxSize", QueueSizeValue(QueueSize("5p")));
        q->Initialize();
        int accepted = 0;
        for (int i = 0; i < 6; i++)
        {
            accepted += q->Enqueue(Item(1000, 0)) ? 1 : 0;
        }
        Check(accepted == 5 && q->GetStats().GetNDroppedPackets(NetcondRedQueueDisc::OVERFLOW_DROP) == 1,
              "a full buffer drops as \"Buffer full\"");
        Simulator::Destroy();
    }

    auto red = [](std::function<void(Ptr<NetcondRedQueueDisc>)> set) {
        return [set]() {
            Ptr<NetcondRedQueueDisc> q = CreateObject<NetcondRedQueueDisc>();
            set(q);
            q->Initialize();
        };
    };
    ExpectFatal("RED with MinTh 20 > MaxTh 10",
                red([](Ptr<NetcondRedQueueDisc> q) {
                    q->SetAttribute("MinTh", DoubleValue(20));
                    q->SetAttribute("MaxTh", DoubleValue(10));
                }),
                netcond_strerror(NETCOND_E_RED_THRESHOLD_ORDER));
    ExpectFatal("RED with MaxP 1.5",
                red([](Ptr<NetcondRedQueueDisc> q) { q->SetAttribute("MaxP", DoubleValue(1.5)); }),
                netcond_strerror(NETCOND_E_RED_MAX_P_OUT_OF_RANGE));
    ExpectFatal("RED with MaxP -0.1",
                red([](Ptr<NetcondRedQueueDisc> q) { q->SetAttribute("MaxP", DoubleValue(-0.1)); }),
                netcond_strerror(NETCOND_E_RED_MAX_P_OUT_OF_RANGE));
    ExpectFatal("RED with QW 0",
                red([](Ptr<NetcondRedQueueDisc> q) { q->SetAttribute("QW", DoubleValue(0)); }),
                netcond_strerror(NETCOND_E_RED_WEIGHT_OUT_OF_RANGE));
    ExpectFatal("RED with MaxTh 30 above MaxSize 25p",
                red([](Ptr<NetcondRedQueueDisc> q) { q->SetAttribute("MaxTh", DoubleValue(30)); }),
                netcond_strerror(NETCOND_E_RED_THRESHOLD_ABOVE_LIMIT));
    ExpectFatal("RED with LinkBandwidth 0 (no idle transmission time)",
                red([](Ptr<NetcondRedQueueDisc> q) {
                    q->SetAttribute("LinkBandwidth", DataRateValue(DataRate(0)));
                }),
                netcond_strerror(NETCOND_E_RED_ZERO_TRANSMISSION_TIME));
    ExpectFatal("RED with MinTh 5.5",
                red([](Ptr<NetcondRedQueueDisc> q) { q->SetAttribute("MinTh", DoubleValue(5.5)); }),
                "is not a whole number");
    ExpectFatal("RED with SmallQueueGuard and the Accumulated spreading",
                red([](Ptr<NetcondRedQueueDisc> q) {
                    q->SetAttribute("SmallQueueGuard", UintegerValue(1));
                }),
                "SmallQueueGuard needs a spreading");
}

} // namespace

int
main(int argc, char* argv[])
{
    TestPolicer();
    TestRed();
    std::printf("netcond-ns3-tests: %d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
