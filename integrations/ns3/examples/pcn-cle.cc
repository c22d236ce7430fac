// PCN on one bottleneck: NetcondPcnQueueDisc meters the PCN traffic of a
// 20 Mbit/s link (RFC 5670 threshold meter at PCN-threshold-rate and
// excess-traffic meter at PCN-excess-rate, encoding per RFC 6660), and the
// PCN-egress-node measures, per interval, the NM, ThM and ETM rates and the
// congestion level estimate of RFC 6661 section 3.2.3,
//     CLE = (ThM-rate + ETM-rate) / (NM-rate + ThM-rate + ETM-rate).
// The offered PCN load climbs one constant-rate flow at a time, past the
// threshold rate and then past the excess rate. Writes a CSV (one row per
// measurement interval) and an SVG plot; checks that
//   - no packet is marked while the offered load is below the threshold rate,
//   - threshold marking starts once the load has crossed the threshold rate,
//     no later than the threshold bucket takes to drain from full to its
//     depth at the load's excess over that rate (plus one interval),
//   - no packet is excess-marked while the load is below the excess rate,
//     and excess marking starts no later than the excess bucket takes to
//     drain from full at the load's excess over the excess rate,
//   - above the excess rate, the ETM rate is the load minus the excess rate
//     (RFC 5670 section 2.4: the meter marks the traffic in excess), or with
//     --marker=ThreeState that times size / (size + s) (3sM's ET-marker
//     adds s tokens after each mark).
// and ends with "pcn-cle: N passed, N failed" (exit 1 if any failed).
//
//   sources -- ingress ==(bottleneck, PCN interior node)==> egress -- sinks

#include "netcond-pcn-queue-disc.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

const uint8_t kPcnDscp = 46; // EF, used here as the PCN-compatible DSCP

// The egress's per-interval byte counts by RFC 6660 codepoint.
struct EgressCounter
{
    uint64_t nm = 0;
    uint64_t thm = 0;
    uint64_t etm = 0;
    uint64_t notPcn = 0;

    void Rx(Ptr<const Packet> p, Ptr<Ipv4>, uint32_t)
    {
        Ipv4Header h;
        p->PeekHeader(h);
        uint32_t len = p->GetSize();
        if (h.GetDscp() != kPcnDscp)
        {
            return;
        }
        switch (h.GetEcn())
        {
        case Ipv4Header::ECN_ECT0:
            nm += len; // 10: not marked
            break;
        case Ipv4Header::ECN_ECT1:
            thm += len; // 01: threshold-marked
            break;
        case Ipv4Header::ECN_CE:
            etm += len; // 11: excess-traffic-marked
            break;
        default:
            notPcn += len; // 00: not-PCN
        }
    }
};

struct Row
{
    double t;       // end of the interval (s)
    double offered; // offered PCN load at the interval's start (Mbit/s)
    double nm;      // Mbit/s
    double thm;
    double etm;
    double cle;
};

std::string
Polyline(const std::vector<Row>& rows, double (*f)(const Row&), double x0, double x1, double y1,
         const char* color, const char* dash)
{
    std::string pts;
    char buf[64];
    for (const Row& r : rows)
    {
        double x = 60 + (r.t - x0) / (x1 - x0) * 620;
        double y = 330 - f(r) / y1 * 300;
        std::snprintf(buf, sizeof buf, "%.1f,%.1f ", x, y);
        pts += buf;
    }
    return std::string("<polyline fill=\"none\" stroke=\"") + color + "\" stroke-width=\"2\"" +
           (dash[0] ? std::string(" stroke-dasharray=\"") + dash + "\"" : "") + " points=\"" +
           pts + "\"/>\n";
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t nFlows = 30;
    double flowKbps = 500;
    double step = 0.5;          // seconds between flow starts
    double interval = 0.2;      // T_meas, seconds
    uint32_t pktSize = 200;     // UDP payload bytes
    std::string linkRate = "20Mbps";
    std::string thresholdRate = "8Mbps";
    std::string excessRate = "12Mbps";
    std::string marker = "Rfc5670";
    std::string csvPath = "pcn-cle.csv";
    std::string svgPath = "pcn-cle.svg";
    uint32_t seed = 1;

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of constant-rate PCN flows", nFlows);
    cmd.AddValue("flowKbps", "rate of each flow, kbit/s (UDP payload)", flowKbps);
    cmd.AddValue("step", "seconds between flow starts", step);
    cmd.AddValue("interval", "egress measurement interval T_meas, seconds", interval);
    cmd.AddValue("pktSize", "UDP payload size, bytes", pktSize);
    cmd.AddValue("linkRate", "bottleneck rate", linkRate);
    cmd.AddValue("thresholdRate", "PCN-threshold-rate", thresholdRate);
    cmd.AddValue("excessRate", "PCN-excess-rate", excessRate);
    cmd.AddValue("marker", "Rfc5670 (threshold and excess-traffic meters) or ThreeState (3sM)",
                 marker);
    cmd.AddValue("csv", "CSV output path", csvPath);
    cmd.AddValue("svg", "SVG output path (none: no plot)", svgPath);
    cmd.AddValue("seed", "RngSeedManager seed", seed);
    cmd.Parse(argc, argv);
    RngSeedManager::SetSeed(seed);

    NodeContainer nodes;
    nodes.Create(4); // 0 sources, 1 ingress, 2 egress, 3 sinks
    PointToPointHelper edge;
    edge.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    edge.SetChannelAttribute("Delay", StringValue("1ms"));
    PointToPointHelper core;
    core.SetDeviceAttribute("DataRate", StringValue(linkRate));
    core.SetChannelAttribute("Delay", StringValue("10ms"));
    core.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

    InternetStackHelper stack;
    stack.Install(nodes);
    NetDeviceContainer d01 = edge.Install(nodes.Get(0), nodes.Get(1));
    NetDeviceContainer d12 = core.Install(nodes.Get(1), nodes.Get(2));
    NetDeviceContainer d23 = edge.Install(nodes.Get(2), nodes.Get(3));

    // The PCN interior node on the ingress's bottleneck device.
    double lineOverhead = pktSize + 8 + 20; // UDP + IPv4 headers: the bytes the meters see
    TrafficControlHelper pcn;
    pcn.SetRootQueueDisc("ns3::NetcondPcnQueueDisc",
                         "Marker", StringValue(marker),
                         "ThresholdRate", DataRateValue(DataRate(thresholdRate)),
                         "ExcessRate", DataRateValue(DataRate(excessRate)),
                         "PcnDscp", UintegerValue(kPcnDscp));
    QueueDiscContainer qd = pcn.Install(d12.Get(0));

    Ipv4AddressHelper addr;
    addr.SetBase("10.1.1.0", "255.255.255.0");
    addr.Assign(d01);
    addr.SetBase("10.1.2.0", "255.255.255.0");
    addr.Assign(d12);
    addr.SetBase("10.1.3.0", "255.255.255.0");
    Ipv4InterfaceContainer i23 = addr.Assign(d23);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // The flows: constant rate, PCN-compatible DSCP with ECT(0) (NM).
    const uint16_t port = 9;
    PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    sink.Install(nodes.Get(3)).Start(Seconds(0));
    Ptr<UniformRandomVariable> jitter = CreateObject<UniformRandomVariable>();
    jitter->SetStream(11);
    double hold = 4; // seconds at the full load after the last start
    double end = (nFlows + 1) * step + hold;
    std::vector<double> starts;
    for (uint32_t i = 0; i < nFlows; i++)
    {
        InetSocketAddress dst(i23.GetAddress(1), port);
        dst.SetTos(uint8_t(kPcnDscp << 2 | Ipv4Header::ECN_ECT0));
        OnOffHelper src("ns3::UdpSocketFactory", dst);
        src.SetConstantRate(DataRate(uint64_t(flowKbps * 1000)), pktSize);
        ApplicationContainer a = src.Install(nodes.Get(0));
        // Flow i starts at (i + 1) step, plus a random phase of at most one
        // packet time so that the flows do not send in lockstep.
        double pktTime = pktSize * 8 / (flowKbps * 1000);
        double s = (i + 1) * step + jitter->GetValue(0, pktTime);
        starts.push_back(s);
        a.Start(Seconds(s));
        a.Stop(Seconds(end));
    }

    EgressCounter egress;
    Ptr<Ipv4L3Protocol> ip = nodes.Get(2)->GetObject<Ipv4L3Protocol>();
    ip->TraceConnectWithoutContext("Rx", MakeCallback(&EgressCounter::Rx, &egress));

    std::vector<Row> rows;
    const double overheadFactor = lineOverhead / pktSize;
    auto offeredAt = [&](double t) {
        uint32_t n = 0;
        for (double s : starts)
        {
            n += s <= t ? 1 : 0;
        }
        return n * flowKbps / 1000 * overheadFactor; // Mbit/s of IP packets
    };
    EgressCounter last;
    uint32_t nIntervals = uint32_t(std::floor(end / interval));
    for (uint32_t k = 1; k <= nIntervals; k++)
    {
        double t = k * interval;
        Simulator::Schedule(Seconds(t), [&, t]() {
            Row r;
            r.t = t;
            r.offered = offeredAt(t - interval / 2); // the load at the interval's middle
            double scale = 8.0 / interval / 1e6;
            r.nm = (egress.nm - last.nm) * scale;
            r.thm = (egress.thm - last.thm) * scale;
            r.etm = (egress.etm - last.etm) * scale;
            double total = r.nm + r.thm + r.etm;
            r.cle = total > 0 ? (r.thm + r.etm) / total : 0;
            rows.push_back(r);
            last = egress;
        });
    }
    Simulator::Stop(Seconds(nIntervals * interval + 1e-9));
    Simulator::Run();

    std::ofstream csv(csvPath);
    csv << "t_s,offered_mbps,nm_mbps,thm_mbps,etm_mbps,cle\n";
    for (const Row& r : rows)
    {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%.2f,%.3f,%.3f,%.3f,%.3f,%.4f\n", r.t, r.offered, r.nm,
                      r.thm, r.etm, r.cle);
        csv << buf;
    }

    // Checks. The offered load of an interval is only known at its start and
    // end, so each check uses intervals whose load was the same throughout.
    const double thr = DataRate(thresholdRate).GetBitRate() / 1e6;
    const double exc = DataRate(excessRate).GetBitRate() / 1e6;
    int passed = 0;
    int failed = 0;
    auto check = [&](bool ok, const std::string& what) {
        (ok ? passed : failed)++;
        std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
    };
    // The share of the traffic in excess that leaves ETM: all of it with
    // RFC 5670's excess-traffic meter; with 3sM's ET-marker, each mark
    // adds s tokens, so of the excess (L - SR) only size / (size + s) is
    // marked (draft-babiarz-pcn-3sm-01: the marking-frequency reduction).
    double etmShare = 1;
    if (marker == "ThreeState")
    {
        UintegerValue etS;
        qd.Get(0)->GetAttribute("EtS", etS);
        etmShare = lineOverhead / (lineOverhead + etS.Get());
    }
    double firstThm = -1;
    double firstEtm = -1;
    bool markedBelowThreshold = false;
    bool etmBelowExcess = false;
    double worstEtmError = 0;
    int etmSamples = 0;
    for (const Row& r : rows)
    {
        double loadEnd = offeredAt(r.t);
        // Packets reach the egress about 11 ms after they are sent.
        double loadStart = offeredAt(r.t - interval - 0.011);
        double hi = std::max(loadStart, loadEnd);
        if (hi < thr && (r.thm > 0 || r.etm > 0))
        {
            markedBelowThreshold = true;
        }
        if (hi < exc && r.etm > 0)
        {
            etmBelowExcess = true;
        }
        if (firstThm < 0 && r.thm > 0)
        {
            firstThm = r.t;
        }
        if (firstEtm < 0 && r.etm > 0)
        {
            firstEtm = r.t;
        }
        // Steady intervals well above the excess rate, after the flow starts
        // have stopped (the excess bucket has drained by then).
        if (loadStart == loadEnd && loadEnd > exc * 1.05 && r.t > (nFlows + 1) * step + 1)
        {
            double want = (loadEnd - exc) * etmShare;
            worstEtmError = std::max(worstEtmError, std::fabs(r.etm - want) / want);
            etmSamples++;
        }
    }
    check(!markedBelowThreshold, "no marks while the offered load is below the threshold rate");
    check(!etmBelowExcess, "no excess-traffic marks while the offered load is below the excess rate");
    check(firstThm > 0 && offeredAt(firstThm) > thr,
          "threshold marking starts after the load crosses the threshold rate (first ThM at t = " +
              std::to_string(firstThm) + " s, load " + std::to_string(offeredAt(firstThm)) +
              " Mbit/s)");
    check(firstEtm > 0 && offeredAt(firstEtm) > exc,
          "excess marking starts after the load crosses the excess rate (first ETM at t = " +
              std::to_string(firstEtm) + " s, load " + std::to_string(offeredAt(firstEtm)) +
              " Mbit/s)");
    // When marking must have started: the first flow start that takes the
    // offered load above `rate`, plus the time a full bucket of `bucket`
    // bytes, marking below `depth`, takes to drain at the load's excess over
    // `rate`, plus one interval (the egress counts per interval) and the
    // 11 ms path delay.
    auto latest = [&](double rate, double bucket, double depth) {
        for (double s : starts)
        {
            double load = offeredAt(s);
            if (load > rate)
            {
                double drain = (bucket - depth) * 8 / ((load - rate) * 1e6);
                return s + drain + interval + 0.011;
            }
        }
        return -1.0;
    };
    UintegerValue bsTm;
    UintegerValue depthTm;
    UintegerValue bsEtm;
    qd.Get(0)->GetAttribute("ThresholdBucket", bsTm);
    qd.Get(0)->GetAttribute("ThresholdDepth", depthTm);
    qd.Get(0)->GetAttribute("ExcessBucket", bsEtm);
    const double thmBy = latest(thr, bsTm.Get(), depthTm.Get());
    const double etmBy = latest(exc, bsEtm.Get(), 0);
    check(firstThm > 0 && firstThm <= thmBy,
          "threshold marking starts by t = " + std::to_string(thmBy) +
              " s (crossing, plus the bucket's drain from BS_tm to the depth, plus one interval)");
    check(firstEtm > 0 && firstEtm <= etmBy,
          "excess marking starts by t = " + std::to_string(etmBy) +
              " s (crossing, plus the bucket's drain from BS_etm, plus one interval)");
    check(etmSamples >= 5 && worstEtmError < 0.05,
          std::string(marker == "ThreeState" ? "ETM rate = (load - excess rate) size / (size + s)"
                                             : "ETM rate = load - excess rate") +
              " within 5 % in steady intervals (" +
              std::to_string(etmSamples) + " intervals, worst " +
              std::to_string(100 * worstEtmError) + " %)");

    if (!svgPath.empty() && svgPath != "none")
    {
        double x0 = 0;
        double x1 = rows.empty() ? 1 : rows.back().t;
        double y1 = 2;
        for (const Row& r : rows)
        {
            y1 = std::max(y1, std::ceil(r.offered / 2) * 2);
        }
        std::ofstream svg(svgPath);
        svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"860\" height=\"400\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n"
               "<rect width=\"860\" height=\"400\" fill=\"white\"/>\n"
               "<text x=\"60\" y=\"20\">PCN marking on one link (NetcondPcnQueueDisc, "
            << marker << "); egress rates per " << interval * 1000 << " ms</text>\n";
        for (int g = 0; g <= 4; g++)
        {
            double y = 330 - g * 75;
            char buf[200];
            std::snprintf(buf, sizeof buf,
                          "<line x1=\"60\" x2=\"680\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#ddd\"/>"
                          "<text x=\"55\" y=\"%.0f\" text-anchor=\"end\">%.1f</text>\n",
                          y, y, y + 4, y1 * g / 4);
            svg << buf;
        }
        for (double lim : {thr, exc})
        {
            double y = 330 - lim / y1 * 300;
            svg << "<line x1=\"60\" x2=\"680\" y1=\"" << y << "\" y2=\"" << y
                << "\" stroke=\"#999\" stroke-dasharray=\"2,3\"/>\n";
        }
        for (int sec = 0; sec <= int(x1); sec += 2)
        {
            double x = 60 + (sec - x0) / (x1 - x0) * 620;
            svg << "<text x=\"" << x << "\" y=\"345\" text-anchor=\"middle\">" << sec
                << "</text>\n";
        }
        svg << "<text x=\"370\" y=\"362\" text-anchor=\"middle\">time (s)"
            << "</text>\n<text x=\"15\" y=\"180\" transform=\"rotate(-90 15 180)\" "
               "text-anchor=\"middle\">Mbit/s</text>\n";
        svg << Polyline(rows, [](const Row& r) { return r.offered; }, x0, x1, y1, "#000", "5,3");
        svg << Polyline(rows, [](const Row& r) { return r.nm; }, x0, x1, y1, "#2a7", "");
        svg << Polyline(rows, [](const Row& r) { return r.thm; }, x0, x1, y1, "#e90", "");
        svg << Polyline(rows, [](const Row& r) { return r.etm; }, x0, x1, y1, "#c22", "");
        const char* names[] = {"offered PCN load", "NM rate", "ThM rate", "ETM rate",
                               "threshold / excess rate"};
        const char* colors[] = {"#000", "#2a7", "#e90", "#c22", "#999"};
        for (int i = 0; i < 5; i++)
        {
            svg << "<line x1=\"" << 60 + i * 150 << "\" x2=\"" << 80 + i * 150
                << "\" y1=\"385\" y2=\"385\" stroke=\"" << colors[i]
                << "\" stroke-width=\"2\"/><text x=\"" << 85 + i * 150 << "\" y=\"389\">"
                << names[i] << "</text>\n";
        }
        svg << "</svg>\n";
    }

    Simulator::Destroy();
    std::printf("pcn-cle: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
