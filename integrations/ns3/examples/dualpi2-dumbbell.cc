// DualPI2 dumbbell: Classic TCP flows (NewReno, Not-ECT by default) and L4S
// TCP flows (ns-3's DCTCP with ECT(1), its UseEct0=false) from their own
// senders to their own receivers over fast access links and one bottleneck
// whose sending side runs NetcondDualPi2QueueDisc at its defaults (RFC 9332:
// target 15 ms, Tupdate 15 ms, alpha 0.15, beta 3, k 2, the L4S ramp from
// 800 us over 400 us, recur()). The device queue holds one packet, so the
// backlog is in the queue disc.
//
// Measured after the warm-up: the sojourn time of every packet the disc
// hands to the device (its dequeue instant minus its enqueue instant), by
// the queue it came from (the sender's class: a Classic packet marked CE
// stays Classic), as mean, median and 99th percentile; each class's
// throughput; the disc's drops and marks by reason; and p' averaged over the
// PI updates. One line of "key=value" pairs, then "check: ok" or the reason
// it failed: --check asks the Classic mean sojourn to be within
// [--classicLo, --classicHi] ms and the L4S mean below --l4sHi ms, and both
// classes to move data.

#include "netcond-dualpi2-queue-disc.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct Sojourns
{
    std::vector<double> ms;

    double Mean() const
    {
        double s = 0;
        for (double v : ms)
        {
            s += v;
        }
        return ms.empty() ? 0 : s / double(ms.size());
    }

    double Quantile(double q)
    {
        if (ms.empty())
        {
            return 0;
        }
        std::sort(ms.begin(), ms.end());
        return ms[std::min(ms.size() - 1, size_t(q * double(ms.size())))];
    }
};

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t nClassic = 2;
    uint32_t nL4s = 2;
    double duration = 40;
    double warmup = 10;
    std::string bottleneckRate = "40Mbps";
    std::string bottleneckDelay = "10ms";
    std::string accessRate = "1Gbps";
    std::string accessDelay = "5ms";
    bool classicEcn = false;
    uint32_t seed = 1;
    uint32_t run = 1;
    bool check = false;
    double classicLo = 10;
    double classicHi = 20;
    double l4sHi = 3;
    CommandLine cmd(__FILE__);
    cmd.AddValue("classic", "Classic (NewReno) flows", nClassic);
    cmd.AddValue("l4s", "L4S (DCTCP, ECT(1)) flows", nL4s);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "seconds left out of the measures", warmup);
    cmd.AddValue("bottleneckRate", "bottleneck rate", bottleneckRate);
    cmd.AddValue("bottleneckDelay", "bottleneck one-way delay", bottleneckDelay);
    cmd.AddValue("accessRate", "access link rate", accessRate);
    cmd.AddValue("accessDelay", "access link one-way delay", accessDelay);
    cmd.AddValue("classicEcn", "Classic flows negotiate ECN (ECT(0))", classicEcn);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.AddValue("run", "RngSeedManager run number", run);
    cmd.AddValue("check", "exit 1 unless the delays are within the bounds below", check);
    cmd.AddValue("classicLo", "lowest Classic mean sojourn accepted, ms", classicLo);
    cmd.AddValue("classicHi", "highest Classic mean sojourn accepted, ms", classicHi);
    cmd.AddValue("l4sHi", "highest L4S mean sojourn accepted, ms", l4sHi);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(run);
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpNewReno"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 22));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 22));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    // Every socket accepts ECN; DCTCP turns it on for its senders, and the
    // Classic senders only with --classicEcn.
    Config::SetDefault("ns3::TcpSocketBase::UseEcn",
                       StringValue(classicEcn ? "On" : "AcceptOnly"));
    Config::SetDefault("ns3::TcpDctcp::UseEct0", BooleanValue(false));

    const uint32_t n = nClassic + nL4s;
    NodeContainer senders, receivers, routers;
    senders.Create(n);
    receivers.Create(n);
    routers.Create(2);
    InternetStackHelper stack;
    stack.InstallAll();
    // L4S flows: DCTCP at both ends (its receiver echoes CE as DCTCP does).
    for (uint32_t i = nClassic; i < n; i++)
    {
        for (Ptr<Node> node : {senders.Get(i), receivers.Get(i)})
        {
            node->GetObject<TcpL4Protocol>()->SetAttribute("SocketType",
                                                           TypeIdValue(TcpDctcp::GetTypeId()));
        }
    }

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetChannelAttribute("Delay", StringValue(accessDelay));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    bottleneck.SetChannelAttribute("Delay", StringValue(bottleneckDelay));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    NetDeviceContainer bottleneckDevs = bottleneck.Install(routers.Get(0), routers.Get(1));

    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::NetcondDualPi2QueueDisc");
    QueueDiscContainer discs = tch.Install(bottleneckDevs.Get(0));
    Ptr<NetcondDualPi2QueueDisc> q = DynamicCast<NetcondDualPi2QueueDisc>(discs.Get(0));
    q->AssignStreams(7);

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    addr.Assign(bottleneckDevs);
    addr.NewNetwork();
    std::vector<Ipv4Address> receiverAddr;
    std::map<uint32_t, bool> l4sSource; // sender address -> L4S
    for (uint32_t i = 0; i < n; i++)
    {
        Ipv4InterfaceContainer s = addr.Assign(access.Install(senders.Get(i), routers.Get(0)));
        l4sSource[s.GetAddress(0).Get()] = i >= nClassic;
        addr.NewNetwork();
        Ipv4InterfaceContainer r = addr.Assign(access.Install(routers.Get(1), receivers.Get(i)));
        receiverAddr.push_back(r.GetAddress(1));
        addr.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    Ptr<UniformRandomVariable> startVar = CreateObject<UniformRandomVariable>();
    startVar->SetStream(1000);
    std::vector<Ptr<PacketSink>> sinks;
    const uint16_t port = 5000;
    for (uint32_t i = 0; i < n; i++)
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

    Sojourns classic, l4s;
    q->TraceConnectWithoutContext(
        "Dequeue", MakeCallback(+[](Sojourns* c, Sojourns* l, std::map<uint32_t, bool>* src,
                                    double warm, Ptr<const QueueDiscItem> item) {
                                   if (Simulator::Now().GetSeconds() < warm)
                                   {
                                       return;
                                   }
                                   auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
                                   const bool isL4s =
                                       ip && (*src)[ip->GetHeader().GetSource().Get()];
                                   const double ms =
                                       (Simulator::Now() - item->GetTimeStamp()).GetSeconds() *
                                       1e3;
                                   (isL4s ? l : c)->ms.push_back(ms);
                               })
                                   .Bind(&classic, &l4s, &l4sSource, warmup));

    double pSum = 0;
    uint64_t pCount = 0;
    std::vector<uint64_t> rxAtWarmup(n, 0);
    Simulator::Schedule(Seconds(warmup), [&]() {
        for (uint32_t i = 0; i < n; i++)
        {
            rxAtWarmup[i] = sinks[i]->GetTotalRx();
        }
    });
    // p' sampled every 15 ms after the warm-up.
    std::function<void()> sample = [&]() {
        pSum += q->GetBaseProbability();
        pCount++;
        Simulator::Schedule(MilliSeconds(15), sample);
    };
    Simulator::Schedule(Seconds(warmup), sample);

    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    const double span = duration - warmup;
    double cMbps = 0, lMbps = 0;
    for (uint32_t i = 0; i < n; i++)
    {
        const double mbps = double(sinks[i]->GetTotalRx() - rxAtWarmup[i]) * 8 / span / 1e6;
        (i >= nClassic ? lMbps : cMbps) += mbps;
    }
    const QueueDisc::Stats& st = q->GetStats();
    const double cMean = classic.Mean(), lMean = l4s.Mean();
    std::printf("classic_flows=%u l4s_flows=%u bottleneck=%s rtt_base_ms=%.1f seed=%u run=%u "
                "classic_mbps=%.2f l4s_mbps=%.2f "
                "classic_sojourn_ms_mean=%.2f p50=%.2f p99=%.2f "
                "l4s_sojourn_ms_mean=%.3f p50=%.3f p99=%.3f "
                "classic_drops=%u classic_marks=%u l4s_marks=%u l4s_overload_drops=%u "
                "buffer_drops=%u mean_p_prime=%.4f\n",
                nClassic, nL4s, bottleneckRate.c_str(),
                2 * (2 * Time(accessDelay).GetSeconds() + Time(bottleneckDelay).GetSeconds()) *
                    1e3,
                seed, run, cMbps, lMbps, cMean, classic.Quantile(0.5), classic.Quantile(0.99),
                lMean, l4s.Quantile(0.5), l4s.Quantile(0.99),
                st.GetNDroppedPackets(NetcondDualPi2QueueDisc::UNFORCED_CLASSIC_DROP),
                st.GetNMarkedPackets(NetcondDualPi2QueueDisc::UNFORCED_CLASSIC_MARK),
                st.GetNMarkedPackets(NetcondDualPi2QueueDisc::UNFORCED_L4S_MARK),
                st.GetNDroppedPackets(NetcondDualPi2QueueDisc::UNFORCED_L4S_DROP),
                st.GetNDroppedPackets(NetcondDualPi2QueueDisc::FORCED_DROP),
                pCount ? pSum / double(pCount) : 0.0);
    Simulator::Destroy();
    if (!check)
    {
        return 0;
    }
    std::string why;
    if (nClassic > 0 && (cMean < classicLo || cMean > classicHi))
    {
        why += " Classic mean sojourn outside [classicLo, classicHi];";
    }
    if (nL4s > 0 && lMean > l4sHi)
    {
        why += " L4S mean sojourn above l4sHi;";
    }
    if ((nClassic > 0 && cMbps <= 0) || (nL4s > 0 && lMbps <= 0))
    {
        why += " a class moved no data;";
    }
    std::printf("check: %s\n", why.empty() ? "ok" : why.c_str());
    return why.empty() ? 0 : 1;
}
