// Tests of the netcond queue discs inside ns-3: packets are enqueued into a
// queue disc at scheduled simulation times (no network), and what comes out
// is checked against what the RFCs and netcond's contract say. Bad attribute
// values are checked in a child process: the simulation must abort with
// NS_FATAL_ERROR carrying netcond's message. Ends with
// "netcond-ns3-tests: N passed, N failed"; exits 1 if any failed. The same
// checks are registered as the ns-3 TestSuite "netcond-queue-discs"
// (--test-runner hands the remaining arguments to ns-3's TestRunner).

#ifdef NETCOND_NS3_HAVE_PCN
#include "netcond-pcn-queue-disc.h"
#endif
#ifdef NETCOND_NS3_HAVE_CODEL
#include "netcond-codel-queue-disc.h"
#include "netcond-fq-codel-queue-disc.h"
#endif
#include "netcond-policer-queue-disc.h"
#ifdef NETCOND_NS3_HAVE_PIE
#include "netcond-pie-queue-disc.h"
#endif
#include "netcond-red-queue-disc.h"
#include "netcond.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"
#include "ns3/traffic-control-module.h"

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <tuple>
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

    {
        // Color-blind trTCM with Remark into AF class 3: every packet leaves,
        // green as AF31 (26), yellow AF32 (28), red AF33 (30), whatever DSCP
        // it arrived with (here EF, 46).
        Ptr<NetcondPolicerQueueDisc> q = make("Remark", "Aggregate");
        q->SetAttribute("AfClass", UintegerValue(3));
        auto out = Offer(q, n, 1000, gap, uint8_t(46 << 2));
        uint32_t af[3] = {0, 0, 0};
        bool other = false;
        for (auto& it : out)
        {
            uint8_t dscp = DsOf(it) >> 2;
            if (dscp == 26 || dscp == 28 || dscp == 30)
            {
                af[(dscp - 26) / 2]++;
            }
            else
            {
                other = true;
            }
        }
        Check(out.size() == n && !other &&
                  af[0] == q->GetColorPackets(NetcondPolicerQueueDisc::GREEN) &&
                  af[1] == q->GetColorPackets(NetcondPolicerQueueDisc::YELLOW) &&
                  af[2] == q->GetColorPackets(NetcondPolicerQueueDisc::RED) && af[2] > 0 &&
                  q->GetStats().nTotalDroppedPackets == 0,
              "Remark, AfClass 3: green AF31, yellow AF32, red AF33 (" + std::to_string(af[0]) +
                  ", " + std::to_string(af[1]) + ", " + std::to_string(af[2]) +
                  "), none dropped");
    }
    {
        // srTCM color-blind, CIR 1 Mbit/s, CBS 3000, EBS 6000, the same
        // 3 Mbit/s stream (RFC 2697 section 3): green bytes reach CBS + CIR T,
        // and yellow bytes EBS (the E bucket refills only while C is full,
        // which it never is again), each to within one packet.
        Ptr<NetcondPolicerQueueDisc> q = CreateObject<NetcondPolicerQueueDisc>();
        q->SetAttribute("Meter", StringValue("Srtcm"));
        q->SetAttribute("Cir", DataRateValue(DataRate("1Mbps")));
        q->SetAttribute("Cbs", UintegerValue(3000));
        q->SetAttribute("Ebs", UintegerValue(6000));
        q->Initialize();
        Offer(q, n, 1000, gap, 0);
        double green = q->GetColorBytes(NetcondPolicerQueueDisc::GREEN);
        double yellow = q->GetColorBytes(NetcondPolicerQueueDisc::YELLOW);
        double gMax = 3000 + 125000 * T;
        Check(green <= gMax && green > gMax - 1000 && yellow <= 6000 && yellow > 5000,
              "srTCM green bytes " + std::to_string(green) + " within one packet below CBS + CIR T, "
              "yellow bytes " + std::to_string(yellow) + " within one packet below EBS");
    }
    {
        // RFC 4115 color-blind, CIR 1 Mbit/s and EIR 1 Mbit/s, CBS 3000, EBS
        // 6000: the two buckets fill independently, so green bytes reach
        // CBS + CIR T within one packet, and yellow bytes EBS + EIR T within
        // two (a packet is yellow only when it is not green, so Te can hold
        // a packet's worth of tokens and the fill of one more arrival gap).
        Ptr<NetcondPolicerQueueDisc> q = CreateObject<NetcondPolicerQueueDisc>();
        q->SetAttribute("Meter", StringValue("Rfc4115"));
        q->SetAttribute("Cir", DataRateValue(DataRate("1Mbps")));
        q->SetAttribute("Eir", DataRateValue(DataRate("1Mbps")));
        q->SetAttribute("Cbs", UintegerValue(3000));
        q->SetAttribute("Ebs", UintegerValue(6000));
        q->Initialize();
        Offer(q, n, 1000, gap, 0);
        double green = q->GetColorBytes(NetcondPolicerQueueDisc::GREEN);
        double yellow = q->GetColorBytes(NetcondPolicerQueueDisc::YELLOW);
        double gMax = 3000 + 125000 * T;
        double yMax = 6000 + 125000 * T;
        Check(green <= gMax && green > gMax - 1000 && yellow <= yMax && yellow > yMax - 2000,
              "RFC 4115 green bytes " + std::to_string(green) + " and yellow bytes " +
                  std::to_string(yellow) + " within one and two packets below CBS + CIR T "
                  "and EBS + EIR T");
    }

    {
        // InputColors: the default table is RFC 2597's (AFx1 green, AFx2
        // yellow, AFx3 red, every other DSCP green).
        Ptr<NetcondPolicerQueueDisc> q = CreateObject<NetcondPolicerQueueDisc>();
        q->Initialize();
        bool rfc2597 = true;
        for (uint8_t d = 0; d < 64; d++)
        {
            bool af = d >= 10 && d <= 38 && d % 8 >= 2 && d % 8 <= 6 && d % 2 == 0;
            int want = af ? d % 8 / 2 - 1 : 0;
            rfc2597 = rfc2597 && q->GetInputColor(d) == want;
        }
        Check(rfc2597, "InputColors defaults to RFC 2597's AF drop precedences");
    }
    {
        // InputColors as a list, color-aware trTCM far below its rates: the
        // listed DSCPs get their colors (EF red, AF11 yellow, CS1 yellow),
        // unlisted ones green (AF13 too, which RFC 2597's table makes red),
        // and a color-aware marker never improves a color (RFC 2698 section
        // 3), so each packet leaves with its input color.
        Ptr<NetcondPolicerQueueDisc> q = CreateObject<NetcondPolicerQueueDisc>();
        q->SetAttribute("Cir", DataRateValue(DataRate("80Mbps")));
        q->SetAttribute("Pir", DataRateValue(DataRate("80Mbps")));
        q->SetAttribute("ColorAware", BooleanValue(true));
        q->SetAttribute("InputColors", StringValue("dscp:EF=red,af11=y,8=yellow"));
        q->Initialize();
        std::vector<Ptr<QueueDiscItem>> out;
        const uint8_t dscps[] = {46, 10, 8, 14, 0};
        std::map<uint8_t, uint8_t> colorOf;
        q->TraceConnectWithoutContext(
            "Color",
            MakeCallback(
                +[](std::map<uint8_t, uint8_t>* m, Ptr<const QueueDiscItem> it, uint8_t c) {
                    (*m)[DynamicCast<const Ipv4QueueDiscItem>(it)->GetHeader().GetTos() >> 2] =
                        c;
                })
                .Bind(&colorOf));
        for (uint32_t i = 0; i < 50; i++)
        {
            Simulator::Schedule(MilliSeconds(i), [=]() {
                q->Enqueue(Item(500, uint8_t(dscps[i % 5] << 2)));
                while (q->Dequeue())
                {
                }
            });
        }
        Simulator::Run();
        Simulator::Destroy();
        bool table = q->GetInputColor(46) == NetcondPolicerQueueDisc::RED &&
                     q->GetInputColor(10) == NetcondPolicerQueueDisc::YELLOW &&
                     q->GetInputColor(8) == NetcondPolicerQueueDisc::YELLOW &&
                     q->GetInputColor(14) == NetcondPolicerQueueDisc::GREEN &&
                     q->GetInputColor(0) == NetcondPolicerQueueDisc::GREEN &&
                     q->GetInputColor(12) == NetcondPolicerQueueDisc::GREEN;
        Check(table && colorOf.size() == 5 && colorOf[46] == 2 && colorOf[10] == 1 &&
                  colorOf[8] == 1 && colorOf[14] == 0 && colorOf[0] == 0 &&
                  q->GetColorPackets(NetcondPolicerQueueDisc::RED) == 10 &&
                  q->GetColorPackets(NetcondPolicerQueueDisc::YELLOW) == 20 &&
                  q->GetColorPackets(NetcondPolicerQueueDisc::GREEN) == 20,
              "InputColors dscp:EF=red,af11=y,8=yellow: EF red, AF11 and CS1 yellow, AF13 and "
              "BE green (10, 20, 20 packets)");
    }
    for (const auto& [value, needle] :
         std::vector<std::pair<std::string, std::string>>{
             {"pcp:1=red", "no VLAN tag"},
             {"dscp:64=red", "bad DSCP '64'"},
             {"dscp:af14=red", "bad DSCP 'af14'"},
             {"dscp:10=blue", "unknown color 'blue'"},
             {"dscp:af11=red,10=green", "DSCP 10 given twice"},
             {"dscp:", "the list is empty"},
             {"dscp:10", "is not <dscp>=<color>"},
             {"rfc2598", "expected rfc2597 or dscp:"}})
    {
        ExpectFatal(
            "policer with InputColors " + value,
            [value = value]() {
                Ptr<NetcondPolicerQueueDisc> q = CreateObject<NetcondPolicerQueueDisc>();
                q->SetAttribute("ColorAware", BooleanValue(true));
                q->SetAttribute("InputColors", StringValue(value));
                q->Initialize();
            },
            needle);
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
        "RFC 4115 with Cir 0 and Eir 0",
        []() {
            Ptr<NetcondPolicerQueueDisc> q = CreateObject<NetcondPolicerQueueDisc>();
            q->SetAttribute("Meter", StringValue("Rfc4115"));
            q->SetAttribute("Cir", DataRateValue(DataRate(0)));
            q->SetAttribute("Eir", DataRateValue(DataRate(0)));
            q->Initialize();
        },
        netcond_strerror(NETCOND_E_RFC4115_ZERO_RATES));
    ExpectFatal(
        "trTCM with Cbs 0",
        []() {
            Ptr<NetcondPolicerQueueDisc> q = CreateObject<NetcondPolicerQueueDisc>();
            q->SetAttribute("Cbs", UintegerValue(0));
            q->Initialize();
        },
        netcond_strerror(NETCOND_E_TRTCM_ZERO_CBS));
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
    // 50 packets; FJ93 as published (Fj93=true).
    Ptr<NetcondRedQueueDisc> q = CreateObject<NetcondRedQueueDisc>();
    q->SetAttribute("Fj93", BooleanValue(true));
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

// Holds the queue of `q` at `standing` packets of `len` bytes (one arrival
// and, when it is accepted, one departure every millisecond) for `n`
// arrivals; returns the fraction of the arrivals after the first `warm` that
// were dropped or, with `ecnCe`, that left with CE.
double
StandingQueue(Ptr<QueueDisc> q, uint32_t standing, uint32_t len, uint8_t ds, int n,
              int warm, bool ecnCe = false)
{
    for (uint32_t i = 0; i < standing; i++)
    {
        q->Enqueue(Item(len, ds));
    }
    uint32_t hits = 0;
    uint32_t arrivals = 0;
    for (int i = 0; i < n; i++)
    {
        Simulator::Schedule(MicroSeconds(1000 * (i + 1)), [&, i]() {
            bool in = q->Enqueue(Item(len, ds));
            bool counted = i >= warm;
            arrivals += counted ? 1 : 0;
            if (in)
            {
                Ptr<QueueDiscItem> d = q->Dequeue();
                // A packet marked at arrival i leaves `standing` arrivals later;
                // the marks and the arrivals are counted over the same span.
                if (ecnCe && counted && (DsOf(d) & 3) == Ipv4Header::ECN_CE)
                {
                    hits++;
                }
            }
            else if (counted && !ecnCe)
            {
                hits++;
            }
        });
    }
    Simulator::Run();
    return double(hits) / arrivals;
}

Ptr<NetcondRedQueueDisc>
MakeRed2(const std::vector<std::pair<std::string, Ptr<AttributeValue>>>& attrs)
{
    // min_th 10, max_th 30, w_q 0.001, 50 packets, s of 1500 B at 10 Mbit/s,
    // FJ93 as published unless `attrs` say Fj93 false, then `attrs`.
    Ptr<NetcondRedQueueDisc> q = CreateObject<NetcondRedQueueDisc>();
    q->SetAttribute("Fj93", BooleanValue(true));
    q->SetAttribute("MinTh", DoubleValue(10));
    q->SetAttribute("MaxTh", DoubleValue(30));
    q->SetAttribute("QW", DoubleValue(0.001));
    q->SetAttribute("MaxSize", QueueSizeValue(QueueSize("50p")));
    q->SetAttribute("LinkBandwidth", DataRateValue(DataRate("10Mbps")));
    q->SetAttribute("MeanPktSize", UintegerValue(1500));
    for (auto& a : attrs)
    {
        q->SetAttribute(a.first, *a.second);
    }
    q->AssignStreams(5);
    q->Initialize();
    return q;
}

void
TestRedAttributes()
{
    using A = std::vector<std::pair<std::string, Ptr<AttributeValue>>>;
    auto B = [](bool b) { return Ptr<AttributeValue>(Create<BooleanValue>(b)); };
    auto D = [](double d) { return Ptr<AttributeValue>(Create<DoubleValue>(d)); };
    auto U = [](uint64_t u) { return Ptr<AttributeValue>(Create<UintegerValue>(u)); };
    {
        // LInterm, RedQueueDisc's form of max_p: LInterm 2 is max_p 0.5, so
        // the standing queue of 20 loses 40 % as with MaxP 0.5 (TestRed).
        auto q = MakeRed2(A{{"LInterm", D(2)}, {"Gentle", B(false)}});
        double f = StandingQueue(q, 20, 1500, 0, 30000, 10000);
        Check(f > 0.38 && f < 0.42,
              "LInterm 2 (max_p 0.5): dropped " + std::to_string(100 * f) + " %, 40 % expected");
        Simulator::Destroy();
    }
    {
        // Byte mode, M = 1500: 150-byte packets see p_b / 10 = 0.025, so FJ93
        // drops 2 p_b / (1 + p_b) = 4.88 % of them.
        auto q = MakeRed2(A{{"MaxP", D(0.5)}, {"Gentle", B(false)}, {"ByteMode", B(true)},
                            {"MaxPktSize", U(1500)}});
        double f = StandingQueue(q, 20, 150, 0, 50000, 10000);
        Check(f > 0.044 && f < 0.054,
              "ByteMode: 150-byte packets dropped " + std::to_string(100 * f) +
                  " %, 2 p_b / (1 + p_b) = 4.88 % with p_b = 0.25 * 150 / 1500");
        Simulator::Destroy();
    }
    {
        // Gentle: a standing queue of 40 (between max_th 30 and 2 max_th) with
        // max_p 0.25 gives p_b = max_p + (1 - max_p) (40 - 30) / 30 = 1/2:
        // gaps between drops of 1 or 2 packets, equally likely, so 2/3 of the
        // arrivals are dropped early, none forced.
        auto q = MakeRed2(A{{"MaxP", D(0.25)}, {"Gentle", B(true)}});
        double f = StandingQueue(q, 40, 1500, 0, 30000, 10000);
        const QueueDisc::Stats& st = q->GetStats();
        Check(f > 0.645 && f < 0.69 && st.GetNDroppedPackets(NetcondRedQueueDisc::FORCED_DROP) == 0,
              "Gentle: average 40 between max_th and 2 max_th, dropped " + std::to_string(100 * f) +
                  " % (66.7 % expected), all as \"Unforced drop\"");
        Simulator::Destroy();
    }
    {
        // Not gentle: once the average reaches max_th every arrival is a
        // forced drop.
        auto q = MakeRed2(A{{"MaxP", D(0.5)}, {"Gentle", B(false)}});
        double f = StandingQueue(q, 40, 1500, 0, 30000, 10000);
        const QueueDisc::Stats& st = q->GetStats();
        Check(f == 1 && st.GetNDroppedPackets(NetcondRedQueueDisc::FORCED_DROP) >= 20000,
              "Gentle false: average 40 above max_th, every arrival dropped as \"Forced drop\"");
        Simulator::Destroy();
    }
    {
        // ECN with UseHardDrop (the default): above max_th (not gentle) ECT
        // packets are dropped too, as forced drops.
        auto q = MakeRed2(A{{"MaxP", D(0.5)}, {"Gentle", B(false)}, {"UseEcn", B(true)}});
        double f = StandingQueue(q, 40, 1500, Ipv4Header::ECN_ECT0, 30000, 10000);
        Check(f == 1 && q->GetStats().GetNDroppedPackets(NetcondRedQueueDisc::FORCED_DROP) >= 20000,
              "UseEcn + UseHardDrop: ECT packets above max_th dropped as \"Forced drop\"");
        Simulator::Destroy();
    }
    {
        // ECN without UseHardDrop: above max_th ECT packets are all marked
        // ("Forced mark"), none dropped.
        auto q = MakeRed2(A{{"MaxP", D(0.5)}, {"Gentle", B(false)}, {"UseEcn", B(true)},
                            {"UseHardDrop", B(false)}});
        double f = StandingQueue(q, 40, 1500, Ipv4Header::ECN_ECT0, 30000, 10000, true);
        const QueueDisc::Stats& st = q->GetStats();
        Check(f == 1 && st.nTotalDroppedPackets == 0 &&
                  st.GetNMarkedPackets(NetcondRedQueueDisc::FORCED_MARK) >= 20000,
              "UseEcn, UseHardDrop false: ECT packets above max_th all marked as \"Forced "
              "mark\", none dropped");
        Simulator::Destroy();
    }
    {
        // ECN: a packet that is not ECN-capable is dropped where an ECT one
        // would be marked (RFC 3168 section 7).
        auto q = MakeRed2(A{{"MaxP", D(0.5)}, {"Gentle", B(false)}, {"UseEcn", B(true)}});
        double f = StandingQueue(q, 20, 1500, 0, 30000, 10000);
        Check(f > 0.38 && f < 0.42 && q->GetStats().GetNMarkedPackets(NetcondRedQueueDisc::UNFORCED_MARK) == 0,
              "UseEcn: not-ECT packets are dropped early (" + std::to_string(100 * f) +
                  " %), never marked");
        Simulator::Destroy();
    }
    {
        // Thresholds in bytes: MaxSize 75000B, min_th 15000 B, max_th 45000 B,
        // max_p 0.5, a standing queue of 20 packets of 1500 B (30000 B):
        // p_b = 0.5 (30000 - 15000) / 30000 = 0.25, 40 % dropped.
        auto q = MakeRed2(A{{"MaxSize", Ptr<AttributeValue>(Create<QueueSizeValue>(QueueSize("75000B")))},
                            {"MinTh", D(15000)}, {"MaxTh", D(45000)}, {"MaxP", D(0.5)},
                            {"Gentle", B(false)}});
        double f = StandingQueue(q, 20, 1500, 0, 30000, 10000);
        Check(f > 0.38 && f < 0.42 && std::fabs(q->GetAverage() - 30000) < 1,
              "MaxSize in bytes: the average " + std::to_string(q->GetAverage()) +
                  " B, dropped " + std::to_string(100 * f) + " %, 40 % expected");
        Simulator::Destroy();
    }

    auto red = [](std::function<void(Ptr<NetcondRedQueueDisc>)> set) {
        return [set]() {
            Ptr<NetcondRedQueueDisc> q = CreateObject<NetcondRedQueueDisc>();
            set(q);
            q->Initialize();
        };
    };
    ExpectFatal("RED with LInterm 0.5 (max_p 2)",
                red([](Ptr<NetcondRedQueueDisc> q) { q->SetAttribute("LInterm", DoubleValue(0.5)); }),
                netcond_strerror(NETCOND_E_RED_MAX_P_OUT_OF_RANGE));
    ExpectFatal("RED with LInterm -1",
                red([](Ptr<NetcondRedQueueDisc> q) { q->SetAttribute("LInterm", DoubleValue(-1)); }),
                "LInterm = -1 is not positive");
    ExpectFatal("RED with ByteMode and MaxPktSize 0",
                red([](Ptr<NetcondRedQueueDisc> q) {
                    q->SetAttribute("ByteMode", BooleanValue(true));
                    q->SetAttribute("MaxPktSize", UintegerValue(0));
                }),
                netcond_strerror(NETCOND_E_RED_ZERO_MAX_PACKET_SIZE));
    ExpectFatal("RED with UseEcn and EcnDropTh 3, below MinTh",
                red([](Ptr<NetcondRedQueueDisc> q) {
                    q->SetAttribute("UseEcn", BooleanValue(true));
                    q->SetAttribute("EcnDropTh", DoubleValue(3));
                }),
                netcond_strerror(NETCOND_E_RED_ECN_DROP_BELOW_MIN_TH));
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
        // The buffer: the 6th packet into a 5-packet buffer is dropped by the
        // internal queue, as with RedQueueDisc (the average is still 0: no
        // RED drop).
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
        const QueueDisc::Stats& st = q->GetStats();
        Check(accepted == 5 && st.GetNDroppedPackets(QueueDisc::INTERNAL_QUEUE_DROP) == 1 &&
                  st.nTotalDroppedPackets == 1,
              "a full buffer drops as \"Dropped by internal queue\", as RedQueueDisc");
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
    ExpectFatal("RED with Fj93 and Spreading Uniform",
                red([](Ptr<NetcondRedQueueDisc> q) {
                    q->SetAttribute("Fj93", BooleanValue(true));
                    q->SetAttribute("Spreading", StringValue("Uniform"));
                }),
                "Fj93=true sets the Accumulated spreading");
    ExpectFatal("RED with Fj93 and SmallQueueGuard 2",
                red([](Ptr<NetcondRedQueueDisc> q) {
                    q->SetAttribute("Fj93", BooleanValue(true));
                    q->SetAttribute("SmallQueueGuard", UintegerValue(2));
                }),
                "Fj93=true sets the Accumulated spreading");
    ExpectFatal("RED with Wait false and Spreading Dpdk",
                red([](Ptr<NetcondRedQueueDisc> q) {
                    q->SetAttribute("Wait", BooleanValue(false));
                    q->SetAttribute("Spreading", StringValue("Dpdk"));
                }),
                "Wait=false selects RedQueueDisc's law without waiting");
    ExpectFatal("RED with LInterm 0 (MaxP not set)",
                red([](Ptr<NetcondRedQueueDisc> q) { q->SetAttribute("LInterm", DoubleValue(0)); }),
                "LInterm = 0 is not positive");
}

// ns-3's own RedQueueDisc with its defaults and `attrs` (for the side by side
// checks of TestRedDefaults).
Ptr<QueueDisc>
MakeNs3Red(const std::vector<std::pair<std::string, Ptr<AttributeValue>>>& attrs, int64_t stream)
{
    Ptr<RedQueueDisc> q = CreateObject<RedQueueDisc>();
    for (auto& a : attrs)
    {
        q->SetAttribute(a.first, *a.second);
    }
    q->AssignStreams(stream);
    q->Initialize();
    return q;
}

Ptr<NetcondRedQueueDisc>
MakeNetcondRed(const std::vector<std::pair<std::string, Ptr<AttributeValue>>>& attrs,
               int64_t stream)
{
    Ptr<NetcondRedQueueDisc> q = CreateObject<NetcondRedQueueDisc>();
    for (auto& a : attrs)
    {
        q->SetAttribute(a.first, *a.second);
    }
    q->AssignStreams(stream);
    q->Initialize();
    return q;
}

// The defaults are RedQueueDisc's: its Wait=true law, its rule of no drop at
// a queue of at most one packet, LInterm 50; the same attributes set on both
// discs give the same drop fractions (different draws: within a few standard
// deviations).
void
TestRedDefaults()
{
    using A = std::vector<std::pair<std::string, Ptr<AttributeValue>>>;
    auto B = [](bool b) { return Ptr<AttributeValue>(Create<BooleanValue>(b)); };
    auto D = [](double d) { return Ptr<AttributeValue>(Create<DoubleValue>(d)); };
    auto U = [](uint64_t u) { return Ptr<AttributeValue>(Create<UintegerValue>(u)); };
    auto Q = [](const char* s) { return Ptr<AttributeValue>(Create<QueueSizeValue>(QueueSize(s))); };
    // The attributes both discs accept: min_th 10, max_th 30, LInterm 4
    // (max_p 0.25), w_q 0.001, 50 packets, not gentle.
    const A common{{"MinTh", D(10)}, {"MaxTh", D(30)}, {"LInterm", D(4)}, {"QW", D(0.001)},
                   {"MaxSize", Q("50p")}, {"Gentle", B(false)}, {"MeanPktSize", U(1500)}};
    // A standing queue of 22: p_b = 0.25 (22 - 10) / 20 = 0.15. With Wait
    // no drop before the 7th packet of a gap (7 p_b >= 1), then P(gap = n) =
    // 0.15 / 0.95 for n = 7..12 and the rest at 13: mean gap 9.684, so
    // 10.33 % of the arrivals are dropped. Without (Wait=false, count
    // first): P(gap = n) = 0.15 / 0.85 for n = 1..5, the rest at 6: mean
    // 3.353, 29.82 %.
    const int n = 40000;
    const int warm = 10000;
    for (bool wait : {true, false})
    {
        A attrs = common;
        attrs.push_back({"Wait", B(wait)});
        double fNs3 = StandingQueue(MakeNs3Red(attrs, 9), 22, 1500, 0, n, warm);
        Simulator::Destroy();
        Ptr<NetcondRedQueueDisc> nq = MakeNetcondRed(attrs, 9);
        double fNc = StandingQueue(nq, 22, 1500, 0, n, warm);
        const uint32_t unforced = nq->GetStats().GetNDroppedPackets(NetcondRedQueueDisc::UNFORCED_DROP);
        Simulator::Destroy();
        // The exact fractions from the laws (1 / mean gap).
        const double want = wait ? 1 / 9.684211 : 1 / 3.352941;
        // Binomial-like spread over 30000 arrivals (gaps are less variable
        // than geometric): 4 sd of a binomial is at most 0.0105 at 30 %.
        const double tol = 4 * std::sqrt(want * (1 - want) / (n - warm));
        Check(std::fabs(fNc - want) < tol && std::fabs(fNs3 - want) < tol && unforced > 0,
              std::string("Wait=") + (wait ? "true" : "false") +
                  ", the same attributes on both discs, standing queue 22: RedQueueDisc drops " +
                  std::to_string(100 * fNs3) + " %, NetcondRedQueueDisc " +
                  std::to_string(100 * fNc) + " %, the law " + std::to_string(100 * want) +
                  " % (within " + std::to_string(100 * tol) + ")");
    }
    {
        // No attribute but the buffer and thresholds: RedQueueDisc's and
        // NetcondRedQueueDisc's defaults (LInterm 50, Wait, gentle, QW 0.002)
        // at a standing queue of 14 (MinTh 5, MaxTh 15 are the defaults too):
        // p_b = 0.02 (14 - 5) / 10 = 0.018: no drop before the 56th packet of
        // a gap, then P(gap = n) = 0.018 / 0.992 for n = 56..110 and the rest
        // at 111: mean gap 83.056, 1.204 %.
        const A none{};
        const int m = 120000;
        double fNs3 = StandingQueue(MakeNs3Red(none, 4), 14, 1500, 0, m, 20000);
        Simulator::Destroy();
        double fNc = StandingQueue(MakeNetcondRed(none, 4), 14, 1500, 0, m, 20000);
        Simulator::Destroy();
        const double want = 1 / 83.056452;
        const double tol = 4 * std::sqrt(want * (1 - want) / (m - 20000));
        Check(std::fabs(fNc - want) < tol && std::fabs(fNs3 - want) < tol,
              "defaults on both discs, standing queue 14: RedQueueDisc drops " +
                  std::to_string(100 * fNs3) + " %, NetcondRedQueueDisc " +
                  std::to_string(100 * fNc) + " %, Wait's law " + std::to_string(100 * want) +
                  " %");
    }
    for (uint32_t guard : {1u, 0u})
    {
        // The small-queue guard: after a standing queue of 30 (average 30,
        // p_b = max_p = 0.25 at max_th, gentle), 300 arrivals each find one packet
        // queued (the average falls from 30 toward 1, staying above 20):
        // with the default guard none is dropped, as with RedQueueDisc;
        // without it some are.
        A attrs = common;
        attrs.push_back({"SmallQueueGuard", U(guard)});
        attrs.push_back({"Gentle", B(true)});
        Ptr<NetcondRedQueueDisc> q = MakeNetcondRed(attrs, 6);
        for (int i = 0; i < 30; i++)
        {
            q->Enqueue(Item(1500, 0));
        }
        int dropped = 0;
        for (int i = 0; i < 20000; i++)
        {
            Simulator::Schedule(MicroSeconds(100 * (i + 1)), [&]() {
                if (q->Enqueue(Item(1500, 0)))
                {
                    q->Dequeue();
                }
            });
        }
        Simulator::Schedule(MicroSeconds(100 * 20001), [&]() {
            while (q->GetNPackets() > 1)
            {
                q->Dequeue();
            }
        });
        for (int i = 0; i < 300; i++)
        {
            Simulator::Schedule(MicroSeconds(100 * (20002 + i)), [&]() {
                if (q->Enqueue(Item(1500, 0)))
                {
                    q->Dequeue();
                }
                else
                {
                    dropped++;
                }
            });
        }
        double avgAfter = 0;
        Simulator::Schedule(MicroSeconds(100 * 20400), [&]() { avgAfter = q->GetAverage(); });
        Simulator::Run();
        Simulator::Destroy();
        Check(avgAfter > 20 && (guard == 1 ? dropped == 0 : dropped > 10),
              "SmallQueueGuard " + std::to_string(guard) + ": " + std::to_string(dropped) +
                  " of 300 arrivals to a one-packet queue dropped with the average still at " +
                  std::to_string(avgAfter) + (guard == 1 ? " (none, as RedQueueDisc)" : " (some)"));
    }
}

#ifdef NETCOND_NS3_HAVE_CODEL
// -------------------------------------------------------- CoDel and FQ-CoDel

// What happened to each packet of a run through a disc: the order in which
// they left (indexes), and the indexes dropped and marked.
struct Fates
{
    std::vector<int> sent;
    std::vector<int> dropped;
    std::vector<int> marked;
    bool operator==(const Fates& o) const
    {
        return sent == o.sent && dropped == o.dropped && marked == o.marked;
    }
};

// Runs `arrivals` (instant, packet length, DS field, source) through `q`
// with the device asking for a packet at each of `requests`; the packets'
// indexes are recovered from their uids.
Fates
RunDisc(Ptr<QueueDisc> q, const std::vector<std::tuple<Time, uint32_t, uint8_t, uint8_t>>& arrivals,
        const std::vector<Time>& requests)
{
    Fates f;
    std::map<uint64_t, int> idx;
    auto index = [&idx](Ptr<const QueueDiscItem> i) { return idx.at(i->GetPacket()->GetUid()); };
    std::function<void(Ptr<const QueueDiscItem>, const char*)> onDrop =
        [&](Ptr<const QueueDiscItem> i, const char*) { f.dropped.push_back(index(i)); };
    std::function<void(Ptr<const QueueDiscItem>, const char*)> onMark =
        [&](Ptr<const QueueDiscItem> i, const char*) { f.marked.push_back(index(i)); };
    q->TraceConnectWithoutContext("DropBeforeEnqueue",
                                  Callback<void, Ptr<const QueueDiscItem>, const char*>(onDrop));
    q->TraceConnectWithoutContext("DropAfterDequeue",
                                  Callback<void, Ptr<const QueueDiscItem>, const char*>(onDrop));
    q->TraceConnectWithoutContext("Mark", Callback<void, Ptr<const QueueDiscItem>, const char*>(onMark));
    for (size_t k = 0; k < arrivals.size(); k++)
    {
        Simulator::Schedule(std::get<0>(arrivals[k]), [&, k]() {
            Ptr<QueueDiscItem> it =
                Item(std::get<1>(arrivals[k]), std::get<2>(arrivals[k]), std::get<3>(arrivals[k]));
            idx[it->GetPacket()->GetUid()] = int(k);
            q->Enqueue(it);
        });
    }
    for (Time t : requests)
    {
        Simulator::Schedule(t, [&]() {
            if (Ptr<QueueDiscItem> d = q->Dequeue())
            {
                f.sent.push_back(index(d));
            }
        });
    }
    Simulator::Run();
    Simulator::Destroy();
    return f;
}

// Arrivals from `nSrc` sources in turn, 5 s of them: one every 800 us
// (25 % more than the link's one per ms) for 3 s, then one every 2 ms;
// lengths 500..1500 bytes, DS field `ds`.
std::vector<std::tuple<Time, uint32_t, uint8_t, uint8_t>>
Overload(uint8_t ds, uint8_t nSrc)
{
    std::vector<std::tuple<Time, uint32_t, uint8_t, uint8_t>> a;
    int k = 0;
    for (int64_t us = 0; us < 5000000; us += us < 3000000 ? 800 : 2000, k++)
    {
        a.emplace_back(MicroSeconds(us), 500 + (k * 337) % 1001, ds, uint8_t(1 + k % nSrc));
    }
    return a;
}

std::vector<Time>
EveryMs(int n)
{
    std::vector<Time> r;
    for (int i = 0; i < n; i++)
    {
        r.push_back(MicroSeconds(1000 * i + 500));
    }
    return r;
}

// Where two runs first part: the first departure that differs.
std::string
FirstDifference(const Fates& a, const Fates& b)
{
    for (size_t i = 0; i < std::min(a.sent.size(), b.sent.size()); i++)
    {
        if (a.sent[i] != b.sent[i])
        {
            return " (departure " + std::to_string(i) + ": packet " + std::to_string(a.sent[i]) +
                   " against " + std::to_string(b.sent[i]) + ")";
        }
    }
    return "";
}

std::string
Summary(const Fates& f)
{
    return std::to_string(f.sent.size()) + " sent, " + std::to_string(f.dropped.size()) +
           " dropped, " + std::to_string(f.marked.size()) + " marked";
}

void
TestCoDel()
{
    // Side by side with ns-3's CoDelQueueDisc, both at their defaults (and
    // both with UseEcn): every packet's fate and the order of departures.
    for (bool ecn : {false, true})
    {
        auto make = [ecn](const std::string& type) {
            ObjectFactory f;
            f.SetTypeId(type);
            f.Set("UseEcn", BooleanValue(ecn));
            Ptr<QueueDisc> q = f.Create<QueueDisc>();
            q->Initialize();
            return q;
        };
        // ECT(0) for two packets in three with UseEcn (the rest are dropped).
        auto arrivals = Overload(0, 1);
        if (ecn)
        {
            for (size_t k = 0; k < arrivals.size(); k++)
            {
                std::get<2>(arrivals[k]) = k % 3 ? Ipv4Header::ECN_ECT0 : 0;
            }
        }
        Fates ns3 = RunDisc(make("ns3::CoDelQueueDisc"), arrivals, EveryMs(5200));
        Fates nc = RunDisc(make("ns3::NetcondCoDelQueueDisc"), arrivals, EveryMs(5200));
        Check(ns3 == nc && ns3.dropped.size() > 50 && (!ecn || ns3.marked.size() > 50),
              std::string("CoDel") + (ecn ? " with UseEcn" : "") +
                  " against CoDelQueueDisc, packet for packet: ns-3 " + Summary(ns3) +
                  "; netcond " + Summary(nc));
    }
    {
        // The reasons are CoDelQueueDisc's; MaxSize drops at arrival.
        Ptr<NetcondCoDelQueueDisc> q = CreateObject<NetcondCoDelQueueDisc>();
        q->SetAttribute("MaxSize", QueueSizeValue(QueueSize("40p")));
        q->Initialize();
        Fates f = RunDisc(q, Overload(0, 1), EveryMs(5200));
        const QueueDisc::Stats& st = q->GetStats();
        const uint32_t codel = st.GetNDroppedPackets(NetcondCoDelQueueDisc::TARGET_EXCEEDED_DROP);
        Check(codel > 50 && codel + st.GetNDroppedPackets(NetcondCoDelQueueDisc::OVERLIMIT_DROP) ==
                                f.dropped.size(),
              "CoDel's drops counted as \"Target exceeded drop\" (" + std::to_string(codel) +
                  "), MaxSize's as \"Overlimit drop\"");
    }
    {
        // MaxSize 3 packets: the fourth arrival at once is refused.
        Ptr<NetcondCoDelQueueDisc> q = CreateObject<NetcondCoDelQueueDisc>();
        q->SetAttribute("MaxSize", QueueSizeValue(QueueSize("3p")));
        q->Initialize();
        int in = 0;
        for (int i = 0; i < 4; i++)
        {
            in += q->Enqueue(Item(1000, 0)) ? 1 : 0;
        }
        Check(in == 3 && q->GetStats().GetNDroppedPackets(NetcondCoDelQueueDisc::OVERLIMIT_DROP) == 1,
              "CoDel MaxSize 3p: the fourth packet is an \"Overlimit drop\"");
        Simulator::Destroy();
    }
    {
        // A standing queue of 10 ms (RFC 8289): not dropping within the first
        // interval, dropping after it; count grows.
        Ptr<NetcondCoDelQueueDisc> q = CreateObject<NetcondCoDelQueueDisc>();
        q->Initialize();
        bool droppedEarly = false;
        for (int i = 0; i < 10; i++)
        {
            q->Enqueue(Item(1500, 0));
        }
        for (int ms = 1; ms <= 400; ms++)
        {
            Simulator::Schedule(MilliSeconds(ms), [&, ms]() {
                q->Enqueue(Item(1500, 0));
                q->Dequeue();
                if (ms < 100 && q->GetStats().nTotalDroppedPackets > 0)
                {
                    droppedEarly = true;
                }
            });
        }
        Simulator::Run();
        Check(!droppedEarly && q->GetStats().nTotalDroppedPackets > 0,
              "CoDel: no drop within the first Interval of a standing queue, drops after it (" +
                  std::to_string(q->GetStats().nTotalDroppedPackets) + ")");
        Simulator::Destroy();
    }
    auto codel = [](std::function<void(Ptr<NetcondCoDelQueueDisc>)> set) {
        return [set]() {
            Ptr<NetcondCoDelQueueDisc> q = CreateObject<NetcondCoDelQueueDisc>();
            set(q);
            q->Initialize();
        };
    };
    ExpectFatal("CoDel with UseL4s",
                codel([](Ptr<NetcondCoDelQueueDisc> q) { q->SetAttribute("UseL4s", BooleanValue(true)); }),
                "UseL4s=true is not supported");
    ExpectFatal("CoDel with CeThreshold 1ms",
                codel([](Ptr<NetcondCoDelQueueDisc> q) {
                    q->SetAttribute("CeThreshold", TimeValue(MilliSeconds(1)));
                }),
                "CeThreshold = ");
    ExpectFatal("CoDel with Target 200ms above Interval",
                codel([](Ptr<NetcondCoDelQueueDisc> q) {
                    q->SetAttribute("Target", StringValue("200ms"));
                }),
                netcond_strerror(NETCOND_E_DELAY_TARGET_NOT_BELOW_INTERVAL));
    ExpectFatal("CoDel with Target 0",
                codel([](Ptr<NetcondCoDelQueueDisc> q) { q->SetAttribute("Target", StringValue("0ms")); }),
                netcond_strerror(NETCOND_E_DELAY_ZERO_TARGET));
}

// A packet filter that puts a packet into flow (source address - 1): the
// flow of source 10.0.0.<k> is k - 1.
class SourceFlowFilter : public PacketFilter
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::NetcondTestSourceFlowFilter")
                                .SetParent<PacketFilter>()
                                .AddConstructor<SourceFlowFilter>();
        return tid;
    }

  private:
    bool CheckProtocol(Ptr<QueueDiscItem> item) const override
    {
        return DynamicCast<Ipv4QueueDiscItem>(item) != nullptr;
    }

    int32_t DoClassify(Ptr<QueueDiscItem> item) const override
    {
        auto v4 = DynamicCast<Ipv4QueueDiscItem>(item);
        return int32_t(v4->GetHeader().GetSource().Get() & 0xff) - 1;
    }
};

Ptr<NetcondFqCoDelQueueDisc>
MakeFq(const std::string& maxSize = "10240p")
{
    Ptr<NetcondFqCoDelQueueDisc> q = CreateObject<NetcondFqCoDelQueueDisc>();
    q->SetAttribute("MaxSize", QueueSizeValue(QueueSize(maxSize)));
    q->SetQuantum(1500);
    q->AddPacketFilter(CreateObject<SourceFlowFilter>());
    q->Initialize();
    return q;
}

void
TestFqCoDel()
{
    {
        // DRR with a quantum of one 1500-byte packet: flows 0 and 1, four
        // packets each, queued before the first dequeue, leave alternately
        // (0 1 0); flow 2 arrives, is new and goes first (2); it then joins
        // the old flows behind 0 and 1 with a fresh quantum, 0 gets its
        // quantum back and goes behind it, 1 is served, 2 is found empty and
        // leaves, and 0 and 1 alternate to the end (1 0 1 0 1).
        Ptr<NetcondFqCoDelQueueDisc> q = MakeFq();
        std::string order;
        for (int i = 0; i < 4; i++)
        {
            q->Enqueue(Item(1500, 0, 1));
        }
        for (int i = 0; i < 4; i++)
        {
            q->Enqueue(Item(1500, 0, 2));
        }
        for (int i = 0; i < 3; i++)
        {
            order += char('0' + (q->FlowOf(q->Dequeue())));
        }
        q->Enqueue(Item(1500, 0, 3));
        Ptr<QueueDiscItem> d;
        while ((d = q->Dequeue()))
        {
            order += char('0' + q->FlowOf(d));
        }
        Check(order == "010210101", "FQ-CoDel DRR order with a quantum of one packet: " + order +
                                        " (010210101 expected)");
        Simulator::Destroy();
    }
    {
        // Over MaxSize (10p): the fattest flow (0, eight 1000-byte packets)
        // loses head packets until half its bytes are gone: four.
        Ptr<NetcondFqCoDelQueueDisc> q = MakeFq("10p");
        std::vector<uint64_t> uids;
        for (int i = 0; i < 8; i++)
        {
            Ptr<QueueDiscItem> it = Item(1000, 0, 1);
            uids.push_back(it->GetPacket()->GetUid());
            q->Enqueue(it);
        }
        q->Enqueue(Item(1000, 0, 2));
        q->Enqueue(Item(1000, 0, 2));
        const bool before = q->GetStats().nTotalDroppedPackets == 0;
        q->Enqueue(Item(1000, 0, 2));
        const uint32_t over = q->GetStats().GetNDroppedPackets(NetcondFqCoDelQueueDisc::OVERLIMIT_DROP);
        Ptr<QueueDiscItem> first = q->Dequeue();
        Check(before && over == 4 && q->GetNPackets() == 6 && q->GetFlowPackets(0) == 3 &&
                  first->GetPacket()->GetUid() == uids[4],
              "FQ-CoDel over MaxSize: " + std::to_string(over) +
                  " \"Overlimit drop\" from the head of the fattest flow (4 expected), which "
                  "then starts with its fifth packet");
        Simulator::Destroy();
    }
    {
        // Side by side with ns-3's FqCoDelQueueDisc at its defaults (ECN on),
        // flows by the same filter, ECT(0) packets, and MinBytes 0 on both
        // sides (ns-3's flows compare MinBytes with their own bytes, netcond
        // with the whole queue's, as Linux does; 0 voids the rule on both,
        // and with every packet ECT nothing is dropped, so ns-3's CoDel
        // never empties a flow): four flows of one overload and, queued
        // 10 ms before them, a fifth flow of 3000 packets that stays
        // backlogged, so that there always are old flows. Every fate and the order of
        // departures are equal. Without the fifth flow the discs part at
        // the sixth departure, as they must: a new flow that empties when
        // there are no old flows leaves both lists in netcond (as in Linux)
        // and joins the old flows in ns-3.
        for (bool backlogged : {true, false})
        {
            auto arrivals = Overload(Ipv4Header::ECN_ECT0, 4);
            if (backlogged)
            {
                // The fifth flow first, alone for 10 ms, so that it is on
                // the old list when the others come.
                for (auto& a : arrivals)
                {
                    std::get<0>(a) += MilliSeconds(10);
                }
                for (int i = 0; i < 3000; i++)
                {
                    arrivals.emplace_back(Seconds(0), 1500, Ipv4Header::ECN_ECT0, 5);
                }
            }
            // MinBytes 0 on both sides (see above).
            Config::SetDefault("ns3::CoDelQueueDisc::MinBytes", UintegerValue(backlogged ? 0 : 1500));
            Ptr<FqCoDelQueueDisc> ns3q = CreateObject<FqCoDelQueueDisc>();
            ns3q->SetQuantum(1500);
            ns3q->AddPacketFilter(CreateObject<SourceFlowFilter>());
            ns3q->Initialize();
            Fates ns3 = RunDisc(ns3q, arrivals, EveryMs(5200));
            Config::SetDefault("ns3::CoDelQueueDisc::MinBytes", UintegerValue(1500));
            Ptr<NetcondFqCoDelQueueDisc> ncq = CreateObject<NetcondFqCoDelQueueDisc>();
            ncq->SetAttribute("MinBytes", UintegerValue(backlogged ? 0 : 1500));
            ncq->SetQuantum(1500);
            ncq->AddPacketFilter(CreateObject<SourceFlowFilter>());
            ncq->Initialize();
            Fates nc = RunDisc(ncq, arrivals, EveryMs(5200));
            const bool same = ns3 == nc;
            Check((backlogged ? same : !same) && ns3.marked.size() > 50,
                  std::string("FQ-CoDel against FqCoDelQueueDisc, four flows of an overload with ECN") +
                      (backlogged ? " and a backlogged fifth, packet for packet"
                                  : " alone, differ (an emptied new flow)") +
                      ": ns-3 " + Summary(ns3) + "; netcond " + Summary(nc) +
                      FirstDifference(ns3, nc));
        }
    }
    {
        // A packet that no filter classifies is dropped as ns-3 does.
        Ptr<NetcondFqCoDelQueueDisc> q = MakeFq();
        Ptr<Packet> p = Create<Packet>(100);
        Ptr<QueueDiscItem> other = Create<Ipv6QueueDiscItem>(p, Address(), 0x86dd, Ipv6Header());
        Check(!q->Enqueue(other) &&
                  q->GetStats().GetNDroppedPackets(NetcondFqCoDelQueueDisc::UNCLASSIFIED_DROP) == 1,
              "FQ-CoDel: an unclassified packet is an \"Unclassified drop\"");
        Simulator::Destroy();
    }
    auto fq = [](std::function<void(Ptr<NetcondFqCoDelQueueDisc>)> set) {
        return [set]() {
            Ptr<NetcondFqCoDelQueueDisc> q = CreateObject<NetcondFqCoDelQueueDisc>();
            q->SetQuantum(1500);
            set(q);
            q->Initialize();
        };
    };
    ExpectFatal("FQ-CoDel with Flows 2048",
                fq([](Ptr<NetcondFqCoDelQueueDisc> q) { q->SetAttribute("Flows", UintegerValue(2048)); }),
                "Flows = 2048 is outside 1..1024");
    ExpectFatal("FQ-CoDel with MaxSize in bytes",
                fq([](Ptr<NetcondFqCoDelQueueDisc> q) {
                    q->SetAttribute("MaxSize", QueueSizeValue(QueueSize("100000B")));
                }),
                "Attribute name=MaxSize could not be set");
    ExpectFatal("FQ-CoDel with UseL4s",
                fq([](Ptr<NetcondFqCoDelQueueDisc> q) { q->SetAttribute("UseL4s", BooleanValue(true)); }),
                "UseL4s=true is not supported");
    ExpectFatal("FQ-CoDel with CeThreshold 1ms",
                fq([](Ptr<NetcondFqCoDelQueueDisc> q) {
                    q->SetAttribute("CeThreshold", TimeValue(MilliSeconds(1)));
                }),
                "CeThreshold = ");
    ExpectFatal("FQ-CoDel with EnableSetAssociativeHash",
                fq([](Ptr<NetcondFqCoDelQueueDisc> q) {
                    q->SetAttribute("EnableSetAssociativeHash", BooleanValue(true));
                }),
                "EnableSetAssociativeHash=true is not supported");
    ExpectFatal("FQ-CoDel with DropBatchSize 0",
                fq([](Ptr<NetcondFqCoDelQueueDisc> q) {
                    q->SetAttribute("DropBatchSize", UintegerValue(0));
                }),
                netcond_strerror(NETCOND_E_DELAY_ZERO_DROP_BATCH));
    ExpectFatal("FQ-CoDel with no quantum and no device",
                []() {
                    Ptr<NetcondFqCoDelQueueDisc> q = CreateObject<NetcondFqCoDelQueueDisc>();
                    q->Initialize();
                },
                "no quantum");
}
#endif

#ifdef NETCOND_NS3_HAVE_PIE
// ---------------------------------------------------------------------- PIE

void
TestPie()
{
    {
        // A standing queue of 100 packets of 1000 bytes (100 ms at one
        // departure per ms) fed by a sender that would keep it there: no
        // early drop during the 150 ms burst allowance, then the probability
        // climbs, arrivals are dropped early ("Unforced drop") and the delay
        // comes down towards QDELAY_REF (15 ms); MaxSize 200p is never
        // reached.
        Ptr<NetcondPieQueueDisc> q = CreateObject<NetcondPieQueueDisc>();
        q->SetAttribute("MaxSize", QueueSizeValue(QueueSize("200p")));
        q->AssignStreams(11);
        q->Initialize();
        for (int i = 0; i < 100; i++)
        {
            q->Enqueue(Item(1000, 0));
        }
        uint32_t dropsEarly = 0;
        double probAt150 = -1;
        for (int ms = 1; ms <= 3000; ms++)
        {
            Simulator::Schedule(MilliSeconds(ms), [&, ms]() {
                q->Dequeue();
                // Arrivals keep the queue at 100 when they are accepted.
                for (int i = 0; i < 3 && q->GetNPackets() < 100; i++)
                {
                    q->Enqueue(Item(1000, 0));
                }
                if (ms == 150)
                {
                    dropsEarly = q->GetStats().nTotalDroppedPackets;
                    probAt150 = q->GetDropProbability();
                }
            });
        }
        // The disc's update timer runs for ever: stop after the last event.
        Simulator::Stop(MilliSeconds(3001));
        Simulator::Run();
        const QueueDisc::Stats& st = q->GetStats();
        const uint32_t unforced = st.GetNDroppedPackets(NetcondPieQueueDisc::UNFORCED_DROP);
        Check(dropsEarly == 0 && probAt150 > 0 && unforced > 100 &&
                  st.GetNDroppedPackets(NetcondPieQueueDisc::FORCED_DROP) == 0 &&
                  q->GetDropProbability() > 0.01 && q->GetQueueDelay() < MilliSeconds(40),
              "PIE on a 100 ms standing queue: no drop in the burst allowance (probability " +
                  std::to_string(probAt150) + " at 150 ms), then " + std::to_string(unforced) +
                  " \"Unforced drop\", probability " + std::to_string(q->GetDropProbability()) +
                  ", queue delay " + std::to_string(q->GetQueueDelay().GetMilliSeconds()) + " ms");
        Simulator::Destroy();
    }
    {
        // The first update of a 100 ms standing delay: RFC 8033's
        // (0.125 x 0.085 + 1.25 x 0.1) / 2048 = 6.62e-5 (netcond's integers:
        // 4771877968750 / 2^56).
        Ptr<NetcondPieQueueDisc> q = CreateObject<NetcondPieQueueDisc>();
        q->SetAttribute("MaxSize", QueueSizeValue(QueueSize("200p")));
        q->Initialize();
        for (int i = 0; i < 101; i++)
        {
            q->Enqueue(Item(1000, 0));
        }
        Simulator::Schedule(MilliSeconds(100), [&]() { q->Dequeue(); });
        double p = -1;
        Simulator::Schedule(MilliSeconds(106), [&]() { p = q->GetDropProbability(); });
        Simulator::Stop(MilliSeconds(107));
        Simulator::Run();
        const double want = 4771877968750.0 / double(NETCOND_PIE_MAX_PROB);
        Check(std::fabs(p - want) < 1e-15 && std::fabs(p - 6.622e-5) < 1e-8,
              "PIE's first update of a 100 ms delay: " + std::to_string(p) + " (6.62e-5)");
        Simulator::Destroy();
    }
    {
        // MaxSize 3p: the fourth packet at once is a "Forced drop".
        Ptr<NetcondPieQueueDisc> q = CreateObject<NetcondPieQueueDisc>();
        q->SetAttribute("MaxSize", QueueSizeValue(QueueSize("3p")));
        q->Initialize();
        int in = 0;
        for (int i = 0; i < 4; i++)
        {
            in += q->Enqueue(Item(1000, 0)) ? 1 : 0;
        }
        Check(in == 3 && q->GetStats().GetNDroppedPackets(NetcondPieQueueDisc::FORCED_DROP) == 1,
              "PIE MaxSize 3p: the fourth packet is a \"Forced drop\"");
        Simulator::Destroy();
        // In bytes, 2500B: the third packet of 1000 bytes does not fit.
        q = CreateObject<NetcondPieQueueDisc>();
        q->SetAttribute("MaxSize", QueueSizeValue(QueueSize("2500B")));
        q->Initialize();
        in = 0;
        for (int i = 0; i < 3; i++)
        {
            in += q->Enqueue(Item(1000, 0)) ? 1 : 0;
        }
        Check(in == 2 && q->GetStats().GetNDroppedPackets(NetcondPieQueueDisc::FORCED_DROP) == 1,
              "PIE MaxSize 2500B: the third 1000-byte packet is a \"Forced drop\"");
        Simulator::Destroy();
    }
    auto pie = [](std::function<void(Ptr<NetcondPieQueueDisc>)> set) {
        return [set]() {
            Ptr<NetcondPieQueueDisc> q = CreateObject<NetcondPieQueueDisc>();
            set(q);
            q->Initialize();
        };
    };
    ExpectFatal("PIE with A 0.1",
                pie([](Ptr<NetcondPieQueueDisc> q) { q->SetAttribute("A", DoubleValue(0.1)); }),
                "A = 0.1 is not a whole number of sixteenths");
    ExpectFatal("PIE with B 3",
                pie([](Ptr<NetcondPieQueueDisc> q) { q->SetAttribute("B", DoubleValue(3)); }),
                "B = 3 is not a whole number of sixteenths in [0, 2]");
    ExpectFatal("PIE with UseDerandomization false",
                pie([](Ptr<NetcondPieQueueDisc> q) {
                    q->SetAttribute("UseDerandomization", BooleanValue(false));
                }),
                "UseDerandomization=false");
    ExpectFatal("PIE with UseDequeueRateEstimator",
                pie([](Ptr<NetcondPieQueueDisc> q) {
                    q->SetAttribute("UseDequeueRateEstimator", BooleanValue(true));
                }),
                "UseDequeueRateEstimator=true");
    ExpectFatal("PIE with UseCapDropAdjustment false",
                pie([](Ptr<NetcondPieQueueDisc> q) {
                    q->SetAttribute("UseCapDropAdjustment", BooleanValue(false));
                }),
                "UseCapDropAdjustment=false");
    ExpectFatal("PIE with MarkEcnThreshold 0.2",
                pie([](Ptr<NetcondPieQueueDisc> q) {
                    q->SetAttribute("MarkEcnThreshold", DoubleValue(0.2));
                }),
                "MarkEcnThreshold = 0.2");
    ExpectFatal("PIE with ActiveThreshold 10ms",
                pie([](Ptr<NetcondPieQueueDisc> q) {
                    q->SetAttribute("ActiveThreshold", TimeValue(MilliSeconds(10)));
                }),
                "ActiveThreshold");
    ExpectFatal("PIE with UseL4s",
                pie([](Ptr<NetcondPieQueueDisc> q) { q->SetAttribute("UseL4s", BooleanValue(true)); }),
                "UseL4s=true");
    ExpectFatal("PIE with Tupdate 0",
                pie([](Ptr<NetcondPieQueueDisc> q) { q->SetAttribute("Tupdate", TimeValue(Seconds(0))); }),
                netcond_strerror(NETCOND_E_DELAY_ZERO_UPDATE));
    ExpectFatal("PIE with MeanPktSize 0",
                pie([](Ptr<NetcondPieQueueDisc> q) {
                    q->SetAttribute("MeanPktSize", UintegerValue(0));
                }),
                netcond_strerror(NETCOND_E_DELAY_ZERO_MTU));
}
#endif

#ifdef NETCOND_NS3_HAVE_PCN
// ---------------------------------------------------------------------- PCN

const uint8_t kPcnDscp = 46;
const uint8_t kNm = uint8_t(kPcnDscp << 2 | 2);

Ptr<NetcondPcnQueueDisc>
MakePcn(const std::string& marker)
{
    // PCN-threshold-rate 8 Mbit/s (10^6 B/s), BS_tm 20000 B, depth 10000 B;
    // PCN-excess-rate 12 Mbit/s (1.5 10^6 B/s), BS_etm 20000 B.
    Ptr<NetcondPcnQueueDisc> q = CreateObject<NetcondPcnQueueDisc>();
    q->SetAttribute("Marker", StringValue(marker));
    q->SetAttribute("ThresholdRate", DataRateValue(DataRate("8Mbps")));
    q->SetAttribute("ThresholdBucket", UintegerValue(20000));
    q->SetAttribute("ThresholdDepth", UintegerValue(10000));
    q->SetAttribute("ExcessRate", DataRateValue(DataRate("12Mbps")));
    q->SetAttribute("ExcessBucket", UintegerValue(20000));
    q->SetAttribute("PcnDscp", UintegerValue(kPcnDscp));
    q->Initialize();
    return q;
}

// Sends the packets (time, length, DS field) through `q`, dequeuing each at
// once; returns the DS field each leaves with.
std::vector<uint8_t>
Through(Ptr<QueueDisc> q, const std::vector<std::tuple<Time, uint32_t, uint8_t>>& pkts)
{
    std::vector<uint8_t> out;
    for (auto& pk : pkts)
    {
        Time t = std::get<0>(pk);
        uint32_t len = std::get<1>(pk);
        uint8_t ds = std::get<2>(pk);
        Simulator::Schedule(t, [=, &out]() {
            q->Enqueue(Item(len, ds));
            while (Ptr<QueueDiscItem> d = q->Dequeue())
            {
                out.push_back(DsOf(d));
            }
        });
    }
    Simulator::Run();
    Simulator::Destroy();
    return out;
}

std::vector<std::tuple<Time, uint32_t, uint8_t>>
Cbr(uint32_t count, uint32_t len, Time gap, uint8_t ds)
{
    std::vector<std::tuple<Time, uint32_t, uint8_t>> v;
    for (uint32_t i = 0; i < count; i++)
    {
        v.emplace_back(gap * i, len, ds);
    }
    return v;
}

void
TestPcn()
{
    {
        // 6 Mbit/s of 1000-byte NM packets, below the threshold rate: every
        // packet leaves NM.
        auto q = MakePcn("Rfc5670");
        auto out = Through(q, Cbr(750, 1000, MicroSeconds(4000) / 3, kNm));
        bool allNm = out.size() == 750;
        for (uint8_t ds : out)
        {
            allNm = allNm && ds == kNm;
        }
        Check(allNm && q->GetPackets(NetcondPcnQueueDisc::NM) == 750 &&
                  q->GetPackets(NetcondPcnQueueDisc::THM) == 0 &&
                  q->GetPackets(NetcondPcnQueueDisc::ETM) == 0,
              "RFC 5670 at 6 Mbit/s (below PCN-threshold-rate): every packet leaves NM");
    }
    {
        // 16 Mbit/s (2 10^6 B/s) of 1000-byte packets for 2 s: the excess
        // meter passes BS_etm + excess-rate T unmarked (within one packet) and
        // marks the rest ETM (RFC 5670 section 2.4); the threshold meter has
        // drained to its depth within 20 ms, after which every packet not
        // ETM leaves ThM (section 2.3).
        auto q = MakePcn("Rfc5670");
        const uint32_t n = 4000;
        const Time gap = MicroSeconds(500);
        auto out = Through(q, Cbr(n, 1000, gap, kNm));
        double T = (n - 1) * gap.GetSeconds();
        double notEtm = 1000.0 * (q->GetPackets(NetcondPcnQueueDisc::NM) +
                                  q->GetPackets(NetcondPcnQueueDisc::THM));
        double want = 20000 + 1.5e6 * T;
        uint32_t nmLate = 0;
        for (uint32_t i = 40; i < out.size(); i++) // after 20 ms
        {
            nmLate += (out[i] & 3) == 2 ? 1 : 0;
        }
        Check(out.size() == n && std::fabs(notEtm - want) <= 1000 && nmLate == 0 &&
                  q->GetPackets(NetcondPcnQueueDisc::ETM) > 0,
              "RFC 5670 at 16 Mbit/s: " + std::to_string(notEtm) +
                  " bytes not ETM, BS_etm + excess-rate T = " + std::to_string(want) +
                  " within one packet; no NM after 20 ms");
        Check(q->GetBytes(NetcondPcnQueueDisc::ETM) + q->GetBytes(NetcondPcnQueueDisc::THM) +
                      q->GetBytes(NetcondPcnQueueDisc::NM) ==
                  1000.0 * n,
              "RFC 5670: each PCN packet counted once by the codepoint it leaves with");
    }
    {
        // Packets that are not metered: the PCN DSCP with ECN 00 (not-PCN),
        // and another DSCP with ECT(0), both at 16 Mbit/s: they leave
        // unchanged and take no tokens, so a later NM packet leaves NM.
        auto q = MakePcn("Rfc5670");
        auto pkts = Cbr(2000, 1000, MicroSeconds(500), uint8_t(kPcnDscp << 2));
        auto other = Cbr(2000, 1000, MicroSeconds(500), uint8_t(10 << 2 | 2));
        pkts.insert(pkts.end(), other.begin(), other.end());
        pkts.emplace_back(Seconds(1.1), 1000, kNm);
        auto out = Through(q, pkts);
        uint32_t notPcn = 0;
        uint32_t af11Ect = 0;
        for (uint8_t ds : out)
        {
            notPcn += ds == uint8_t(kPcnDscp << 2) ? 1 : 0;
            af11Ect += ds == uint8_t(10 << 2 | 2) ? 1 : 0;
        }
        Check(notPcn == 2000 && af11Ect == 2000 && out.back() == kNm &&
                  q->GetPackets(NetcondPcnQueueDisc::NM) == 1,
              "not-PCN packets and other DSCPs pass unchanged and unmetered");
    }
    {
        // A packet that arrives ETM or ThM leaves at least as marked, even
        // below the rates (RFC 6660 section 5.2.2: the more severe codepoint).
        auto q = MakePcn("Rfc5670");
        std::vector<std::tuple<Time, uint32_t, uint8_t>> pkts = {
            {MilliSeconds(1), 1000, uint8_t(kPcnDscp << 2 | 3)},
            {MilliSeconds(2), 1000, uint8_t(kPcnDscp << 2 | 1)},
            {MilliSeconds(3), 1000, kNm}};
        auto out = Through(q, pkts);
        Check(out.size() == 3 && (out[0] & 3) == 3 && (out[1] & 3) == 1 && (out[2] & 3) == 2,
              "arriving ETM stays ETM, ThM stays ThM, NM stays NM below the rates");
    }

    // Each marker against netcond's C functions called directly with the
    // same profile, the same nanosecond timestamps and the packets' sizes
    // (IP header included): the queue disc must give every packet the
    // codepoint netcond gives it. Random sizes (40..1500 B) and gaps (mean
    // 0.4 ms, about 20 Mbit/s), a third of the packets arriving ThM or ETM.
    for (const std::string marker : {"Rfc5670", "ThreeState"})
    {
        Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
        u->SetStream(21);
        std::vector<std::tuple<Time, uint32_t, uint8_t>> pkts;
        Time t = MilliSeconds(1);
        for (int i = 0; i < 20000; i++)
        {
            t += NanoSeconds(u->GetInteger(0, 800000));
            uint32_t len = u->GetInteger(40, 1500);
            uint32_t r = u->GetInteger(0, 5);
            uint8_t ecn = r == 0 ? 1 : r == 1 ? 3 : 2;
            pkts.emplace_back(t, len, uint8_t(kPcnDscp << 2 | ecn));
        }
        auto q = MakePcn(marker);
        auto out = Through(q, pkts);

        netcond_excess_meter_profile ep;
        netcond_excess_meter es;
        netcond_threshold_meter_profile tp;
        netcond_threshold_meter ts;
        netcond_et_marker_profile etp;
        netcond_et_marker ets;
        netcond_as_marker_profile asp;
        netcond_as_marker ass;
        bool rfc = marker == "Rfc5670";
        int rc = 0;
        if (rfc)
        {
            netcond_excess_meter_params e{};
            e.excess_rate = 1500000;
            e.bs_etm = 20000;
            e.tick_hz = 1000000000;
            e.mode = NETCOND_EXCESS_SIZE_INDEPENDENT;
            netcond_threshold_meter_params th{};
            th.threshold_rate = 1000000;
            th.bs_tm = 20000;
            th.threshold = 10000;
            th.tick_hz = 1000000000;
            rc |= netcond_excess_meter_profile_config(&ep, &e);
            rc |= netcond_excess_meter_config(&es, &ep, 0);
            rc |= netcond_threshold_meter_profile_config(&tp, &th);
            rc |= netcond_threshold_meter_config(&ts, &tp, 0);
        }
        else
        {
            netcond_et_marker_params e{};
            e.sr = 1500000;
            e.bucket_size = 20000;
            e.s = 1500;
            e.tick_hz = 1000000000;
            e.already_et_adds_s = 1;
            e.marking = NETCOND_ET_TAIL;
            e.mtu = 1500;
            netcond_as_marker_params a{};
            a.ar = 1000000;
            a.bucket_size = 20000;
            a.threshold = 10000;
            a.tick_hz = 1000000000;
            a.form = NETCOND_AS_3SM_01;
            rc |= netcond_et_marker_profile_config(&etp, &e);
            rc |= netcond_et_marker_config(&ets, &etp, 0);
            rc |= netcond_as_marker_profile_config(&asp, &a);
            rc |= netcond_as_marker_config(&ass, &asp, 0);
        }
        uint32_t same = 0;
        uint32_t marked = 0;
        for (size_t i = 0; i < pkts.size() && i < out.size(); i++)
        {
            uint64_t now = uint64_t(std::get<0>(pkts[i]).GetNanoSeconds());
            uint32_t len = std::get<1>(pkts[i]);
            int m = std::get<2>(pkts[i]) & 3;
            int before = m;
            if (rfc)
            {
                m = netcond_excess_meter_mark(&es, &ep, now, len, m);
                m = netcond_threshold_meter_mark(&ts, &tp, now, len, m);
            }
            else
            {
                m = netcond_et_marker_mark(&ets, &etp, now, len, m);
                m = netcond_as_marker_mark(&ass, &asp, now, len, m);
            }
            same += (out[i] & 3) == m && (out[i] >> 2) == kPcnDscp ? 1 : 0;
            marked += m != before ? 1 : 0;
        }
        Check(rc == 0 && out.size() == pkts.size() && same == pkts.size() && marked > 1000,
              marker + ": the queue disc's codepoint equals netcond's for all " +
                  std::to_string(same) + " of " + std::to_string(pkts.size()) + " packets (" +
                  std::to_string(marked) + " re-marked)");
    }
    {
        // 3sM at 6 and at 16 Mbit/s: nothing marked below AR; above SR the
        // ET-marker marks and, once the AS bucket is below its threshold,
        // no packet leaves NM.
        auto low = MakePcn("ThreeState");
        Through(low, Cbr(750, 1000, MicroSeconds(4000) / 3, kNm));
        auto high = MakePcn("ThreeState");
        auto out = Through(high, Cbr(4000, 1000, MicroSeconds(500), kNm));
        uint32_t nmLate = 0;
        for (uint32_t i = 40; i < out.size(); i++)
        {
            nmLate += (out[i] & 3) == 2 ? 1 : 0;
        }
        Check(low->GetPackets(NetcondPcnQueueDisc::NM) == 750 &&
                  high->GetPackets(NetcondPcnQueueDisc::ETM) > 0 && nmLate == 0,
              "ThreeState: no marks at 6 Mbit/s; at 16 Mbit/s ETM marks and no NM after 20 ms");
    }

    auto pcn = [](std::function<void(Ptr<NetcondPcnQueueDisc>)> set) {
        return [set]() {
            Ptr<NetcondPcnQueueDisc> q = CreateObject<NetcondPcnQueueDisc>();
            set(q);
            q->Initialize();
        };
    };
    ExpectFatal("PCN with ThresholdRate 0",
                pcn([](Ptr<NetcondPcnQueueDisc> q) {
                    q->SetAttribute("ThresholdRate", DataRateValue(DataRate(0)));
                }),
                netcond_strerror(NETCOND_E_RFC5670_ZERO_RATE));
    ExpectFatal("PCN with ThresholdDepth 30000 above ThresholdBucket 20000",
                pcn([](Ptr<NetcondPcnQueueDisc> q) {
                    q->SetAttribute("ThresholdDepth", UintegerValue(30000));
                }),
                netcond_strerror(NETCOND_E_RFC5670_THRESHOLD_ABOVE_SIZE));
    ExpectFatal("PCN with ExcessBucket 0",
                pcn([](Ptr<NetcondPcnQueueDisc> q) {
                    q->SetAttribute("ExcessBucket", UintegerValue(0));
                }),
                netcond_strerror(NETCOND_E_RFC5670_ZERO_BUCKET));
    ExpectFatal("3sM with ExcessRate 0",
                pcn([](Ptr<NetcondPcnQueueDisc> q) {
                    q->SetAttribute("Marker", StringValue("ThreeState"));
                    q->SetAttribute("ExcessRate", DataRateValue(DataRate(0)));
                }),
                netcond_strerror(NETCOND_E_ET_ZERO_RATE));
    ExpectFatal("3sM with ThresholdRate 0",
                pcn([](Ptr<NetcondPcnQueueDisc> q) {
                    q->SetAttribute("Marker", StringValue("ThreeState"));
                    q->SetAttribute("ThresholdRate", DataRateValue(DataRate(0)));
                }),
                netcond_strerror(NETCOND_E_AS_ZERO_RATE));
    ExpectFatal("3sM SizeIndependent with Mtu 30000 above ExcessBucket 20000",
                pcn([](Ptr<NetcondPcnQueueDisc> q) {
                    q->SetAttribute("Marker", StringValue("ThreeState"));
                    q->SetAttribute("EtMarking", StringValue("SizeIndependent"));
                    q->SetAttribute("Mtu", UintegerValue(30000));
                }),
                netcond_strerror(NETCOND_E_ET_MTU_ABOVE_BUCKET));
    ExpectFatal("PCN with a rate that is not whole bytes per second",
                pcn([](Ptr<NetcondPcnQueueDisc> q) {
                    q->SetAttribute("ExcessRate", DataRateValue(DataRate(12000001)));
                }),
                "not a whole number of bytes per second");
    ExpectFatal("PCN with PcnDscp 64 (the attribute checker)",
                pcn([](Ptr<NetcondPcnQueueDisc> q) {
                    q->SetAttribute("PcnDscp", UintegerValue(64));
                }),
                "PcnDscp");
}
#endif

// The same groups of checks as an ns-3 TestSuite, for ns-3's test runner:
//   netcond-ns3-tests --test-runner --suite=netcond-queue-discs [--verbose]
// Each TestCase fails if any check of its group fails.
class NetcondGroupTestCase : public TestCase
{
  public:
    NetcondGroupTestCase(const std::string& name, void (*group)())
        : TestCase(name),
          m_group(group)
    {
    }

  private:
    void DoRun() override
    {
        const int failedBefore = g_failed;
        m_group();
        NS_TEST_EXPECT_MSG_EQ(g_failed, failedBefore, "checks failed: see the lines marked FAILED");
    }

    void (*m_group)();
};

class NetcondTestSuite : public TestSuite
{
  public:
    NetcondTestSuite()
        : TestSuite("netcond-queue-discs", UNIT)
    {
        AddTestCase(new NetcondGroupTestCase("policer", &TestPolicer), TestCase::QUICK);
        AddTestCase(new NetcondGroupTestCase("red", &TestRed), TestCase::QUICK);
        AddTestCase(new NetcondGroupTestCase("red-attributes", &TestRedAttributes),
                    TestCase::QUICK);
        AddTestCase(new NetcondGroupTestCase("red-defaults", &TestRedDefaults),
                    TestCase::QUICK);
#ifdef NETCOND_NS3_HAVE_PCN
        AddTestCase(new NetcondGroupTestCase("pcn", &TestPcn), TestCase::QUICK);
#endif
#ifdef NETCOND_NS3_HAVE_CODEL
        AddTestCase(new NetcondGroupTestCase("codel", &TestCoDel), TestCase::QUICK);
        AddTestCase(new NetcondGroupTestCase("fq-codel", &TestFqCoDel), TestCase::QUICK);
#endif
#ifdef NETCOND_NS3_HAVE_PIE
        AddTestCase(new NetcondGroupTestCase("pie", &TestPie), TestCase::QUICK);
#endif
    }
};

NetcondTestSuite g_netcondTestSuite;

} // namespace

int
main(int argc, char* argv[])
{
    if (argc > 1 && std::string(argv[1]) == "--test-runner")
    {
        argv[1] = argv[0];
        return TestRunner::Run(argc - 1, argv + 1);
    }
    TestPolicer();
    TestRed();
    TestRedAttributes();
    TestRedDefaults();
#ifdef NETCOND_NS3_HAVE_PCN
    TestPcn();
#endif
#ifdef NETCOND_NS3_HAVE_CODEL
    TestCoDel();
    TestFqCoDel();
#endif
#ifdef NETCOND_NS3_HAVE_PIE
    TestPie();
#endif
    std::printf("netcond-ns3-tests: %d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
