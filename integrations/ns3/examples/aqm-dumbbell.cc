// The simulator's `aqm-dumbbell` (crates/netcond-sim, docs/reproductions.md)
// built in ns-3, so that its queue delays can be set beside ns-3's TCP with
// ns-3's own AQMs and with netcond's.
//
// 8 Classic flows (ns-3's TcpNewReno with SACK and timestamps, Not-ECT) with
// base RTTs of 10, 20, 50 and 100 ms, round robin, and 1 scalable flow
// (ns-3's TcpDctcp at both ends, ECT(1)) of 20 ms, each from its own sender
// over its own 100 Mbit/s access link to a 10 Mbit/s bottleneck of 2 ms, then
// over a 1 Gbit/s link of no delay to its own receiver: the access link holds
// the rest of half the base RTT, and the ACKs come back the same way. 1500-byte
// packets (1448-byte segments and the timestamp option), initial window 10, minimum RTO 200 ms, no
// delayed ACKs, buffers that never limit; flows start at random instants in
// the first second; 60 s runs, statistics from 10 s on. The bottleneck's
// device queue holds one packet; its queue disc (--aqm, --impl) holds 1000
// packets, ECN off (the Classic flows are Not-ECT and the scalable flow's
// ECT(1) packets are dropped like the others, as in the simulator's default
// run):
//   codel:   CoDelQueueDisc / NetcondCoDelQueueDisc (defaults: target 5 ms,
//            interval 100 ms, MinBytes 1500; netcond's Linux law, ns-3 variant)
//   fq_codel: FqCoDelQueueDisc / NetcondFqCoDelQueueDisc (1024 flows, hashed;
//            quantum the device's MTU)
//   pie:     PieQueueDisc / NetcondPieQueueDisc (QDELAY_REF 15 ms, T_UPDATE
//            15 ms, derandomizing, MeanPktSize 1500)
//   fq_pie:  FqPieQueueDisc / NetcondFqPieQueueDisc (the same PIE per flow)
//   droptail: FifoQueueDisc (ns3 only), for reference
// What differs from the simulator: ns-3's TCP (NewReno's recovery, its RTO
// and SACK code) in place of the simulator's model, no random send jitter
// (ns-3's own event order), a 1 Gbit/s receiver link, and the ACKs crossing
// the bottleneck's other direction instead of a pure delay.
//
// Measured after the warm-up: every packet's queue delay at the bottleneck,
// from its arrival at the queue disc to the start of its transmission (the
// simulator's measure: the disc's sojourn plus the wait in the one-packet
// device queue), as median, 95th and 99th percentile and mean, over all
// packets and over the scalable flow's; the disc's own sojourn median; the
// link's utilization; the flows' goodput and Jain's index; drops and marks.
// One CSV row (--header: the header first).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <deque>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

// Nearest rank: the smallest value with at least q n values at or below it.
double
Rank(std::vector<double>& v, double q)
{
    if (v.empty())
    {
        return 0;
    }
    std::sort(v.begin(), v.end());
    size_t k = size_t(std::ceil(q * double(v.size())));
    k = std::min(std::max<size_t>(k, 1), v.size());
    return v[k - 1];
}

double
Mean(const std::vector<double>& v)
{
    double s = 0;
    for (double x : v)
    {
        s += x;
    }
    return v.empty() ? 0 : s / double(v.size());
}

// The root queue disc and its attributes for (aqm, impl).
std::pair<std::string, std::vector<std::pair<std::string, std::string>>>
Disc(const std::string& aqm, const std::string& impl)
{
    const bool ns3 = impl == "ns3";
    if (impl != "ns3" && impl != "netcond")
    {
        NS_FATAL_ERROR("--impl must be ns3 or netcond, not " << impl);
    }
    std::vector<std::pair<std::string, std::string>> attrs = {{"MaxSize", "1000p"}};
    if (aqm == "droptail")
    {
        if (!ns3)
        {
            NS_FATAL_ERROR("--aqm=droptail is ns-3's FifoQueueDisc: --impl=ns3 only");
        }
        return {"ns3::FifoQueueDisc", attrs};
    }
    attrs.emplace_back("UseEcn", "false");
    if (aqm == "codel")
    {
        return {ns3 ? "ns3::CoDelQueueDisc" : "ns3::NetcondCoDelQueueDisc", attrs};
    }
    if (aqm == "fq_codel")
    {
        return {ns3 ? "ns3::FqCoDelQueueDisc" : "ns3::NetcondFqCoDelQueueDisc", attrs};
    }
    attrs.emplace_back("MeanPktSize", "1500");
    attrs.emplace_back("UseDerandomization", "true");
    if (aqm == "pie")
    {
        return {ns3 ? "ns3::PieQueueDisc" : "ns3::NetcondPieQueueDisc", attrs};
    }
    if (aqm == "fq_pie")
    {
        return {ns3 ? "ns3::FqPieQueueDisc" : "ns3::NetcondFqPieQueueDisc", attrs};
    }
    NS_FATAL_ERROR("--aqm must be codel, fq_codel, pie, fq_pie or droptail, not " << aqm);
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string aqm = "codel";
    std::string impl = "ns3";
    uint32_t nClassic = 8;
    uint32_t nScalable = 1;
    double duration = 60;
    double warmup = 10;
    uint32_t run = 1;
    bool header = false;
    CommandLine cmd(__FILE__);
    cmd.AddValue("aqm", "codel, fq_codel, pie, fq_pie or droptail", aqm);
    cmd.AddValue("impl", "ns3 (ns-3's queue disc) or netcond (netcond's)", impl);
    cmd.AddValue("flows", "Classic (NewReno) flows", nClassic);
    cmd.AddValue("l4s", "scalable (DCTCP, ECT(1)) flows", nScalable);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("warmup", "seconds left out of the measures", warmup);
    cmd.AddValue("run", "RngSeedManager run number", run);
    cmd.AddValue("header", "print the CSV header first", header);
    cmd.Parse(argc, argv);
    if (!(warmup >= 0 && duration > warmup))
    {
        NS_FATAL_ERROR("--duration must exceed --warmup");
    }
    const auto disc = Disc(aqm, impl);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpNewReno"));
    // 1448-byte segments: with the 12 bytes of the timestamp option, 1500-byte
    // IP packets (the simulator's: 1460 bytes of payload, 40 of headers).
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    // The Classic senders send Not-ECT; DCTCP turns ECN on for its own
    // sockets, with ECT(1).
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("AcceptOnly"));
    Config::SetDefault("ns3::TcpDctcp::UseEct0", BooleanValue(false));

    const uint32_t n = nClassic + nScalable;
    const double rttsMs[] = {10, 20, 50, 100};
    const double scalableRttMs = 20;
    const double bottleneckDelayMs = 2;
    NodeContainer senders, receivers, routers;
    senders.Create(n);
    receivers.Create(n);
    routers.Create(2);
    InternetStackHelper stack;
    stack.InstallAll();
    for (uint32_t i = nClassic; i < n; i++)
    {
        for (Ptr<Node> node : {senders.Get(i), receivers.Get(i)})
        {
            node->GetObject<TcpL4Protocol>()->SetAttribute("SocketType",
                                                           TypeIdValue(TcpDctcp::GetTypeId()));
        }
    }

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
    bottleneck.SetChannelAttribute("Delay", TimeValue(MilliSeconds(bottleneckDelayMs)));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    NetDeviceContainer bottleneckDevs = bottleneck.Install(routers.Get(0), routers.Get(1));
    TrafficControlHelper tch;
    tch.SetRootQueueDisc(disc.first);
    QueueDiscContainer discs = tch.Install(bottleneckDevs.Get(0));
    Ptr<QueueDisc> q = discs.Get(0);
    for (const auto& a : disc.second)
    {
        q->SetAttribute(a.first, StringValue(a.second));
    }

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    addr.Assign(bottleneckDevs);
    addr.NewNetwork();
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    PointToPointHelper egress;
    egress.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    egress.SetChannelAttribute("Delay", TimeValue(Seconds(0)));
    std::vector<Ipv4Address> receiverAddr;
    std::map<uint32_t, uint32_t> flowOf; // sender address -> flow
    std::vector<double> baseRtt;
    for (uint32_t i = 0; i < n; i++)
    {
        const double rtt = i < nClassic ? rttsMs[i % 4] : scalableRttMs;
        baseRtt.push_back(rtt);
        access.SetChannelAttribute("Delay",
                                   TimeValue(MicroSeconds(int64_t((rtt / 2 - bottleneckDelayMs) * 1e3))));
        Ipv4InterfaceContainer s = addr.Assign(access.Install(senders.Get(i), routers.Get(0)));
        flowOf[s.GetAddress(0).Get()] = i;
        addr.NewNetwork();
        Ipv4InterfaceContainer r = addr.Assign(egress.Install(routers.Get(1), receivers.Get(i)));
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
        src.SetAttribute("SendSize", UintegerValue(1448));
        ApplicationContainer a = src.Install(senders.Get(i));
        a.Start(Seconds(startVar->GetValue(0, 1)));
    }

    // Every packet the bottleneck device sends went through the disc, and the
    // device queue is a FIFO: so the k-th transmission start is the k-th
    // packet out of the disc, not counting those it dropped after taking
    // them (CoDel's drops: the Dequeue trace shows them too) or the device
    // handed back. Each departure leaves the packet's arrival instant (its
    // timestamp) and its departure instant in a FIFO; a drop after dequeue
    // or a requeue takes its entry back out, and a transmission start takes
    // the first entry.
    struct Departure
    {
        const QueueDiscItem* item;
        int64_t arrived, left; // ns
        bool scalable;
    };
    struct Log
    {
        std::deque<Departure> out;
        std::vector<double> all, scalable, sojourn;
        uint64_t txBytes = 0;
        double warm = 0;
        uint32_t nClassic = 0;
        std::map<uint32_t, uint32_t>* flowOf = nullptr;

        void Forget(const QueueDiscItem* item)
        {
            for (auto it = out.rbegin(); it != out.rend(); ++it)
            {
                if (it->item == item)
                {
                    out.erase(std::next(it).base());
                    return;
                }
            }
        }
    } log;
    log.warm = warmup;
    log.nClassic = nClassic;
    log.flowOf = &flowOf;
    q->TraceConnectWithoutContext(
        "Dequeue", MakeCallback(+[](Log* l, Ptr<const QueueDiscItem> item) {
                       auto ip = DynamicCast<const Ipv4QueueDiscItem>(item);
                       bool sc = false;
                       if (ip)
                       {
                           auto f = l->flowOf->find(ip->GetHeader().GetSource().Get());
                           sc = f != l->flowOf->end() && f->second >= l->nClassic;
                       }
                       l->out.push_back({PeekPointer(item), item->GetTimeStamp().GetNanoSeconds(),
                                         Simulator::Now().GetNanoSeconds(), sc});
                   }).Bind(&log));
    q->TraceConnectWithoutContext(
        "DropAfterDequeue",
        MakeCallback(+[](Log* l, Ptr<const QueueDiscItem> item, const char*) {
            l->Forget(PeekPointer(item));
        }).Bind(&log));
    q->TraceConnectWithoutContext("Requeue",
                                  MakeCallback(+[](Log* l, Ptr<const QueueDiscItem> item) {
                                      l->Forget(PeekPointer(item));
                                  }).Bind(&log));
    bottleneckDevs.Get(0)->TraceConnectWithoutContext(
        "PhyTxBegin", MakeCallback(+[](Log* l, Ptr<const Packet> p) {
                          if (l->out.empty())
                          {
                              NS_FATAL_ERROR("a transmission with no departure from the disc");
                          }
                          const Departure d = l->out.front();
                          l->out.pop_front();
                          if (Simulator::Now().GetSeconds() >= l->warm)
                          {
                              const double ms =
                                  double(Simulator::Now().GetNanoSeconds() - d.arrived) / 1e6;
                              l->all.push_back(ms);
                              if (d.scalable)
                              {
                                  l->scalable.push_back(ms);
                              }
                              l->sojourn.push_back(double(d.left - d.arrived) / 1e6);
                              // Less the point-to-point header (2 bytes).
                              l->txBytes += p->GetSize() - 2;
                          }
                      }).Bind(&log));

    std::vector<uint64_t> rxAtWarmup(n, 0);
    uint64_t dropsAtWarmup = 0, marksAtWarmup = 0;
    Simulator::Schedule(Seconds(warmup), [&]() {
        for (uint32_t i = 0; i < n; i++)
        {
            rxAtWarmup[i] = sinks[i]->GetTotalRx();
        }
        dropsAtWarmup = q->GetStats().nTotalDroppedPackets;
        marksAtWarmup = q->GetStats().nTotalMarkedPackets;
    });
    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    const double span = duration - warmup;
    double goodput = 0, sum = 0, sumSq = 0;
    std::vector<double> mbps;
    for (uint32_t i = 0; i < n; i++)
    {
        const double m = double(sinks[i]->GetTotalRx() - rxAtWarmup[i]) * 8 / span / 1e6;
        mbps.push_back(m);
        goodput += m;
        sum += m;
        sumSq += m * m;
    }
    const double jain = sumSq > 0 ? sum * sum / (double(n) * sumSq) : 0;
    const double utilization = double(log.txBytes) * 8 / (10e6 * span);
    const QueueDisc::Stats& st = q->GetStats();
    if (header)
    {
        std::printf("aqm,impl,run,packets,p50_ms,p95_ms,p99_ms,mean_ms,scalable_p50_ms,"
                    "scalable_p99_ms,sojourn_p50_ms,utilization,goodput_mbps,jain,drops,marks");
        for (uint32_t i = 0; i < n; i++)
        {
            std::printf(",flow%u_rtt%.0f_mbps", i, baseRtt[i]);
        }
        std::printf("\n");
    }
    const size_t packets = log.all.size();
    std::printf("%s,%s,%u,%zu,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%.3f,%.4f,%" PRIu64
                ",%" PRIu64,
                aqm.c_str(), impl.c_str(), run, packets, Rank(log.all, 0.5), Rank(log.all, 0.95),
                Rank(log.all, 0.99), Mean(log.all), Rank(log.scalable, 0.5),
                Rank(log.scalable, 0.99), Rank(log.sojourn, 0.5), utilization, goodput, jain,
                uint64_t(st.nTotalDroppedPackets) - dropsAtWarmup,
                uint64_t(st.nTotalMarkedPackets) - marksAtWarmup);
    for (double m : mbps)
    {
        std::printf(",%.3f", m);
    }
    std::printf("\n");
    // Every transmission was matched with a departure: at most the packet on
    // the wire and the one in the device queue are left.
    if (log.out.size() > 2)
    {
        std::fprintf(stderr, "%zu departures from the disc never reached the wire\n",
                     log.out.size());
        return 1;
    }
    Simulator::Destroy();
    return packets > 0 ? 0 : 1;
}
