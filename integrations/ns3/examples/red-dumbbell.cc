// The RED cross-check dumbbell: N long-lived TCP NewReno flows through one
// bottleneck whose root queue disc is either ns-3's own RedQueueDisc or
// NetcondRedQueueDisc, set with the same attribute lines (only the class
// name differs, as when a script swaps one for the other) and the same seed.
// Prints one CSV row (with --header, the header first) with the early
// drops/marks, forced drops, buffer-overflow drops, the time-averaged queue,
// the aggregate goodput and Jain's fairness index over the flows.
//
//   senders --(access)-- L ==(bottleneck, RED)== R --(access)-- receivers
//
// Only the L -> R direction of the bottleneck runs RED; everything else is a
// FIFO of ns-3's default size. Device queues are 1 packet long so that the
// backlog builds in the queue disc, as in ns-3's own RED examples.

#include "netcond-red-queue-disc.h"
#ifdef NETCOND_NS3_HAVE_PIE
#include "netcond-pie-queue-disc.h"
#endif

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

// Time-weighted integral of the queue disc's packet count.
struct QueueIntegral
{
    Time start;     // measurement start (warm-up end)
    Time last;      // time of the last change
    uint32_t value = 0;
    double area = 0; // packet-seconds since start

    void Change(uint32_t, uint32_t now)
    {
        Time t = Simulator::Now();
        if (t > start)
        {
            Time from = last > start ? last : start;
            area += value * (t - from).GetSeconds();
        }
        last = t;
        value = now;
    }

    double Mean(Time end)
    {
        Time from = last > start ? last : start;
        double a = area + value * (end - from).GetSeconds();
        return a / (end - start).GetSeconds();
    }
};

} // namespace

int
main(int argc, char* argv[])
{
    std::string disc = "ns3";
    std::string aqm = "red";
    uint32_t seed = 1;
    uint32_t run = 1;
    uint32_t nFlows = 10;
    double duration = 60;
    double warmup = 5;
    std::string bottleneckRate = "10Mbps";
    std::string bottleneckDelay = "20ms";
    std::string accessRate = "100Mbps";
    std::string accessDelay = "2ms";
    std::string redLinkBandwidth; // empty: bottleneckRate
    double minTh = 10;
    double maxTh = 30;
    double maxP = 0.1;
    double qW = 0.002;
    uint32_t limit = 60;
    bool gentle = true;
    bool wait = true;
    bool ecn = false;
    uint32_t segmentSize = 1448;
    std::string spreading; // empty: not set (the default)
    int64_t guard = -1;    // negative: not set (the default)
    bool header = false;
    std::string label;

    CommandLine cmd(__FILE__);
    cmd.AddValue("disc",
                 "ns3 (RedQueueDisc), netcond (NetcondRedQueueDisc, the same attributes) or "
                 "netcond-fj93 (the same with Fj93=true: FJ93 as published)",
                 disc);
    cmd.AddValue("aqm",
                 "red (the default) or pie: with pie, --disc=ns3 is PieQueueDisc and "
                 "--disc=netcond NetcondPieQueueDisc, both with UseDerandomization=true, "
                 "MaxSize --limit, MeanPktSize the segment plus headers, UseEcn --ecn, the "
                 "rest at their defaults (the RED options are ignored)",
                 aqm);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run number", run);
    cmd.AddValue("flows", "number of TCP flows", nFlows);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "seconds excluded from the averages", warmup);
    cmd.AddValue("bottleneckRate", "bottleneck rate", bottleneckRate);
    cmd.AddValue("bottleneckDelay", "bottleneck one-way delay", bottleneckDelay);
    cmd.AddValue("accessRate", "access link rate", accessRate);
    cmd.AddValue("accessDelay", "access link one-way delay", accessDelay);
    cmd.AddValue("redLinkBandwidth",
                 "the discs' LinkBandwidth attribute (the rate in FJ93's s and ns-3's idle "
                 "formula); default: bottleneckRate",
                 redLinkBandwidth);
    cmd.AddValue("minTh", "RED min_th (packets)", minTh);
    cmd.AddValue("maxTh", "RED max_th (packets)", maxTh);
    cmd.AddValue("maxP", "RED max_p", maxP);
    cmd.AddValue("qW", "RED w_q", qW);
    cmd.AddValue("limit", "buffer size (packets)", limit);
    cmd.AddValue("gentle", "gentle RED", gentle);
    cmd.AddValue("wait",
                 "the Wait attribute of both discs (default true, both discs' default; set "
                 "only when false)",
                 wait);
    cmd.AddValue("spreading",
                 "NetcondRedQueueDisc only: its Spreading attribute (default: not set)",
                 spreading);
    cmd.AddValue("guard",
                 "NetcondRedQueueDisc only: its SmallQueueGuard attribute (default: not set)",
                 guard);
    cmd.AddValue("ecn", "ECN: TCP negotiates ECN and RED marks instead of dropping", ecn);
    cmd.AddValue("segmentSize", "TCP segment size (bytes)", segmentSize);
    cmd.AddValue("header", "print the CSV header first", header);
    cmd.AddValue("label", "free text copied to the CSV row", label);
    cmd.Parse(argc, argv);

    if (aqm != "red" && aqm != "pie")
    {
        NS_FATAL_ERROR("--aqm must be red or pie, not " << aqm);
    }
    if (aqm == "pie" && disc != "ns3" && disc != "netcond")
    {
        NS_FATAL_ERROR("--aqm=pie takes --disc=ns3 or netcond, not " << disc);
    }
    if (disc != "ns3" && disc != "netcond" && disc != "netcond-fj93")
    {
        NS_FATAL_ERROR("--disc must be ns3, netcond or netcond-fj93, not " << disc);
    }

    if (redLinkBandwidth.empty())
    {
        redLinkBandwidth = bottleneckRate;
    }

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpNewReno"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segmentSize));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 21));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 21));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    if (ecn)
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    }

    NodeContainer senders;
    NodeContainer receivers;
    NodeContainer routers;
    senders.Create(nFlows);
    receivers.Create(nFlows);
    routers.Create(2);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetChannelAttribute("Delay", StringValue(accessDelay));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    bottleneck.SetChannelAttribute("Delay", StringValue(bottleneckDelay));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

    InternetStackHelper stack;
    stack.InstallAll();

    NetDeviceContainer bottleneckDevs = bottleneck.Install(routers.Get(0), routers.Get(1));

    // The RED queue disc on L's bottleneck device, installed before addresses
    // are assigned so that no default queue disc takes its place.
    // The same lines for both discs: only the class name differs.
    TrafficControlHelper red;
    double meanPkt = segmentSize + 52.0; // IPv4 + TCP with timestamps
    red.SetRootQueueDisc(
        disc == "ns3" ? "ns3::RedQueueDisc" : "ns3::NetcondRedQueueDisc",
        "MinTh", DoubleValue(minTh),
        "MaxTh", DoubleValue(maxTh),
        "LInterm", DoubleValue(1.0 / maxP),
        "QW", DoubleValue(qW),
        "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)),
        "Gentle", BooleanValue(gentle),
        "UseEcn", BooleanValue(ecn),
        "MeanPktSize", UintegerValue(uint32_t(meanPkt)),
        "LinkBandwidth", DataRateValue(DataRate(redLinkBandwidth)));
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> extra;
    if (!wait)
    {
        extra.push_back({"Wait", Create<BooleanValue>(false)});
    }
    if (disc != "ns3")
    {
        if (disc == "netcond-fj93")
        {
            extra.push_back({"Fj93", Create<BooleanValue>(true)});
        }
        if (!spreading.empty())
        {
            extra.push_back({"Spreading", Create<StringValue>(spreading)});
        }
        if (guard >= 0)
        {
            extra.push_back({"SmallQueueGuard", Create<UintegerValue>(uint64_t(guard))});
        }
    }
#ifdef NETCOND_NS3_HAVE_PIE
    if (aqm == "pie")
    {
        // PIE: the same lines for both discs, only the class name differs.
        red = TrafficControlHelper();
        red.SetRootQueueDisc(disc == "ns3" ? "ns3::PieQueueDisc" : "ns3::NetcondPieQueueDisc",
                             "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit)),
                             "MeanPktSize", UintegerValue(uint32_t(meanPkt)),
                             "UseEcn", BooleanValue(ecn),
                             "UseDerandomization", BooleanValue(true));
        extra.clear();
    }
#else
    if (aqm == "pie")
    {
        NS_FATAL_ERROR("--aqm=pie: this build has no NetcondPieQueueDisc (netcond.h without PIE)");
    }
#endif
    QueueDiscContainer redDiscs = red.Install(bottleneckDevs.Get(0));
    for (auto& [name, value] : extra)
    {
        redDiscs.Get(0)->SetAttribute(name, *value);
    }
    Ptr<QueueDisc> q = redDiscs.Get(0);

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    addr.Assign(bottleneckDevs);
    addr.NewNetwork();
    std::vector<Ipv4Address> receiverAddr;
    for (uint32_t i = 0; i < nFlows; i++)
    {
        addr.Assign(access.Install(senders.Get(i), routers.Get(0)));
        addr.NewNetwork();
        Ipv4InterfaceContainer r = addr.Assign(access.Install(routers.Get(1), receivers.Get(i)));
        receiverAddr.push_back(r.GetAddress(1));
        addr.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // Flows start at random times in the first second (same seed, same starts).
    Ptr<UniformRandomVariable> startVar = CreateObject<UniformRandomVariable>();
    startVar->SetStream(1000);
    std::vector<Ptr<PacketSink>> sinks;
    const uint16_t port = 5000;
    for (uint32_t i = 0; i < nFlows; i++)
    {
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(receivers.Get(i));
        s.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));

        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(receiverAddr[i], port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        ApplicationContainer a = src.Install(senders.Get(i));
        a.Start(Seconds(startVar->GetValue(0, 1)));
    }
    // The queue disc's own random variable on a fixed stream: both discs draw
    // from stream 7 of the same seed and run.
    if (auto d = DynamicCast<RedQueueDisc>(q))
    {
        d->AssignStreams(7);
    }
    else if (auto d = DynamicCast<NetcondRedQueueDisc>(q))
    {
        d->AssignStreams(7);
    }
    else if (auto d = DynamicCast<PieQueueDisc>(q))
    {
        d->AssignStreams(7);
    }
#ifdef NETCOND_NS3_HAVE_PIE
    else if (auto d = DynamicCast<NetcondPieQueueDisc>(q))
    {
        d->AssignStreams(7);
    }
#endif

    QueueIntegral qi;
    qi.start = Seconds(warmup);
    q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&QueueIntegral::Change, &qi));

    std::vector<uint64_t> rxAtWarmup(nFlows, 0);
    Simulator::Schedule(Seconds(warmup), [&]() {
        for (uint32_t i = 0; i < nFlows; i++)
        {
            rxAtWarmup[i] = sinks[i]->GetTotalRx();
        }
    });

    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    double span = duration - warmup;
    double sum = 0;
    double sumSq = 0;
    double minMbps = 1e300;
    for (uint32_t i = 0; i < nFlows; i++)
    {
        double mbps = (sinks[i]->GetTotalRx() - rxAtWarmup[i]) * 8.0 / span / 1e6;
        sum += mbps;
        sumSq += mbps * mbps;
        minMbps = std::min(minMbps, mbps);
    }
    double jain = sumSq > 0 ? sum * sum / (nFlows * sumSq) : 0;

    const QueueDisc::Stats& st = q->GetStats();
    // The two discs name their drops alike, with RedQueueDisc's strings:
    // "Unforced drop"/"Unforced mark" for RED's early decisions, "Forced
    // drop"/"Forced mark" for an average at or above max_th (2 max_th when
    // gentle), and buffer overflow as the internal queue's drop.
    uint32_t early = st.GetNDroppedPackets(RedQueueDisc::UNFORCED_DROP);
    uint32_t earlyMarks = st.GetNMarkedPackets(RedQueueDisc::UNFORCED_MARK);
    uint32_t forced = st.GetNDroppedPackets(RedQueueDisc::FORCED_DROP);
    uint32_t overflow = st.GetNDroppedPackets(QueueDisc::INTERNAL_QUEUE_DROP);

    if (header)
    {
        std::printf("label,disc,seed,run,ecn,early_drops,early_marks,forced_drops,overflow_drops,"
                    "arrivals,avg_queue_pkts,goodput_mbps,min_flow_mbps,jain\n");
    }
    std::printf("%s,%s,%u,%u,%d,%u,%u,%u,%u,%u,%.4f,%.4f,%.4f,%.5f\n",
                label.c_str(),
                disc.c_str(),
                seed,
                run,
                ecn ? 1 : 0,
                early,
                earlyMarks,
                forced,
                overflow,
                st.nTotalReceivedPackets,
                qi.Mean(Seconds(duration)),
                sum,
                minMbps,
                jain);

    Simulator::Destroy();
    return 0;
}
