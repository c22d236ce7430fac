#include "netcond-pcn-queue-disc.h"

#include "netcond-ns3-util.h"
#include "netcond.h"

#include "ns3/boolean.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NetcondPcnQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(NetcondPcnQueueDisc);

// One link's marker: the two stages of RFC 6660 section 5.2.2 (excess
// first), as netcond profiles and states.
struct NetcondPcnQueueDisc::Impl
{
    netcond_pcn_dscps dscps;
    netcond_excess_meter_profile excessProfile;
    netcond_excess_meter excess;
    netcond_threshold_meter_profile thresholdProfile;
    netcond_threshold_meter threshold;
    netcond_et_marker_profile etProfile;
    netcond_et_marker et;
    netcond_as_marker_profile asProfile;
    netcond_as_marker as;
};

TypeId
NetcondPcnQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NetcondPcnQueueDisc")
            .SetParent<NetcondQueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<NetcondPcnQueueDisc>()
            .AddAttribute("Marker",
                          "Rfc5670 (threshold meter and excess-traffic meter) or ThreeState "
                          "(3sM: AS-marker at ThresholdRate, ET-marker at ExcessRate)",
                          EnumValue(RFC5670),
                          MakeEnumAccessor(&NetcondPcnQueueDisc::m_marker),
                          MakeEnumChecker(RFC5670, "Rfc5670", THREE_STATE, "ThreeState"))
            .AddAttribute("ThresholdRate",
                          "PCN-threshold-rate (3sM: AR); whole bytes per second",
                          DataRateValue(DataRate("8Mbps")),
                          MakeDataRateAccessor(&NetcondPcnQueueDisc::m_thresholdRate),
                          MakeDataRateChecker())
            .AddAttribute("ThresholdBucket",
                          "BS_tm, the threshold meter's bucket depth in bytes (3sM: TB.size)",
                          UintegerValue(20000),
                          MakeUintegerAccessor(&NetcondPcnQueueDisc::m_thresholdBucket),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ThresholdDepth",
                          "The threshold meter's marking depth in bytes: packets are "
                          "threshold-marked while the bucket holds less (3sM: TB.threshold)",
                          UintegerValue(10000),
                          MakeUintegerAccessor(&NetcondPcnQueueDisc::m_thresholdDepth),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ExcessRate",
                          "PCN-excess-rate (3sM: SR); whole bytes per second",
                          DataRateValue(DataRate("12Mbps")),
                          MakeDataRateAccessor(&NetcondPcnQueueDisc::m_excessRate),
                          MakeDataRateChecker())
            .AddAttribute("ExcessBucket",
                          "BS_etm, the excess-traffic meter's bucket depth in bytes (3sM: "
                          "TB.size)",
                          UintegerValue(20000),
                          MakeUintegerAccessor(&NetcondPcnQueueDisc::m_excessBucket),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ExcessMode",
                          "RFC 5670 section 2.4: SizeIndependent (recommended) or Classic",
                          EnumValue(SIZE_INDEPENDENT),
                          MakeEnumAccessor(&NetcondPcnQueueDisc::m_excessMode),
                          MakeEnumChecker(SIZE_INDEPENDENT, "SizeIndependent", CLASSIC,
                                          "Classic", CLASSIC_B6, "ClassicB6"))
            .AddAttribute("EtMarking",
                          "3sM ET-marker's test: Tail (mark when the tokens are below the "
                          "packet size) or SizeIndependent (below Mtu, proportional reduction)",
                          EnumValue(ET_TAIL),
                          MakeEnumAccessor(&NetcondPcnQueueDisc::m_etMarking),
                          MakeEnumChecker(ET_TAIL, "Tail", ET_SIZE_INDEPENDENT, "SizeIndependent"))
            .AddAttribute("EtS",
                          "3sM: s, the tokens (bytes) the ET-marker adds after each mark",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&NetcondPcnQueueDisc::m_etS),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EtArrivingEtAddsS",
                          "3sM: a packet that arrives already ET-marked also adds s to the "
                          "ET-marker's bucket (3sm-01 appendix A.1.5); false: it does not "
                          "(3sm-01 section 3.1.2)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NetcondPcnQueueDisc::m_etArrivingEtAddsS),
                          MakeBooleanChecker())
            .AddAttribute("Mtu",
                          "3sM: the MTU of the ET-marker's SizeIndependent marking, bytes",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&NetcondPcnQueueDisc::m_mtu),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AsForm",
                          "3sM: the AS-marker's form, ThreeSm01 (draft-babiarz-pcn-3sm-01) or "
                          "ExplicitMarking01 (draft-babiarz-pcn-explicit-marking-01)",
                          EnumValue(AS_3SM_01),
                          MakeEnumAccessor(&NetcondPcnQueueDisc::m_asForm),
                          MakeEnumChecker(AS_3SM_01, "ThreeSm01", AS_EXPLICIT_MARKING_01,
                                          "ExplicitMarking01"))
            .AddAttribute("PcnDscp",
                          "The PCN-compatible DSCP (RFC 6660 section 3); packets with any "
                          "other DSCP pass unmetered and unmarked",
                          UintegerValue(46),
                          MakeUintegerAccessor(&NetcondPcnQueueDisc::m_pcnDscp),
                          MakeUintegerChecker<uint32_t>(0, 63))
            .AddAttribute("MaxSize",
                          "The FIFO of the link",
                          QueueSizeValue(QueueSize("1000p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddTraceSource("PcnMark",
                            "A PCN packet metered: the item, its codepoint before and after",
                            MakeTraceSourceAccessor(&NetcondPcnQueueDisc::m_markTrace),
                            "ns3::NetcondPcnQueueDisc::MarkTracedCallback");
    return tid;
}

NetcondPcnQueueDisc::NetcondPcnQueueDisc()
    : NetcondQueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE,
                       "NetcondPcnQueueDisc",
                       Layout::SINGLE_FIFO,
                       false),
      m_impl(std::make_unique<Impl>())
{
}

NetcondPcnQueueDisc::~NetcondPcnQueueDisc() = default;

void
NetcondPcnQueueDisc::DoDispose()
{
    NetcondQueueDisc::DoDispose();
}

uint64_t
NetcondPcnQueueDisc::GetPackets(PcnCodepoint c) const
{
    return m_packets.at(c);
}

uint64_t
NetcondPcnQueueDisc::GetBytes(PcnCodepoint c) const
{
    return m_bytes.at(c);
}


namespace
{

uint64_t
PcnBytesPerSec(const DataRate& r, const char* name)
{
    uint64_t bits = r.GetBitRate();
    if (bits % 8 != 0)
    {
        std::ostringstream os;
        os << "NetcondPcnQueueDisc: " << name << " = " << bits
           << " bit/s is not a whole number of bytes per second, which netcond's rates are";
        netcond::Refuse(os.str());
    }
    return bits / 8;
}

} // namespace

void
NetcondPcnQueueDisc::InitializeParams()
{
    const uint64_t hz = 1000000000;
    const uint64_t now = netcond::NowNs();
    Impl& m = *m_impl;
    m.dscps = netcond_pcn_dscps{};
    netcond::CheckStatus(netcond_pcn_dscps_add(&m.dscps, m_pcnDscp), "NetcondPcnQueueDisc: PcnDscp");
    const uint64_t thr = PcnBytesPerSec(m_thresholdRate, "ThresholdRate");
    const uint64_t exc = PcnBytesPerSec(m_excessRate, "ExcessRate");
    std::ostringstream th;
    std::ostringstream ex;
    if (m_marker == RFC5670)
    {
        netcond_excess_meter_params e{};
        e.excess_rate = exc;
        e.bs_etm = m_excessBucket;
        e.tick_hz = hz;
        e.mode = m_excessMode == SIZE_INDEPENDENT ? NETCOND_EXCESS_SIZE_INDEPENDENT
                 : m_excessMode == CLASSIC        ? NETCOND_EXCESS_CLASSIC
                                                  : NETCOND_EXCESS_CLASSIC_B6;
        ex << "NetcondPcnQueueDisc: RFC 5670 excess-traffic meter (ExcessRate " << exc
           << " B/s, ExcessBucket " << m_excessBucket << " B)";
        netcond::CheckStatus(netcond_excess_meter_profile_config(&m.excessProfile, &e), ex.str());
        netcond::CheckStatus(netcond_excess_meter_config(&m.excess, &m.excessProfile, now), ex.str());

        netcond_threshold_meter_params t{};
        t.threshold_rate = thr;
        t.bs_tm = m_thresholdBucket;
        t.threshold = m_thresholdDepth;
        t.tick_hz = hz;
        th << "NetcondPcnQueueDisc: RFC 5670 threshold meter (ThresholdRate " << thr
           << " B/s, ThresholdBucket " << m_thresholdBucket << " B, ThresholdDepth "
           << m_thresholdDepth << " B)";
        netcond::CheckStatus(netcond_threshold_meter_profile_config(&m.thresholdProfile, &t),
                             th.str());
        netcond::CheckStatus(netcond_threshold_meter_config(&m.threshold, &m.thresholdProfile, now),
                             th.str());
    }
    else
    {
        netcond_et_marker_params e{};
        e.sr = exc;
        e.bucket_size = m_excessBucket;
        e.s = m_etS;
        e.tick_hz = hz;
        e.already_et_adds_s = m_etArrivingEtAddsS ? 1 : 0;
        e.marking = m_etMarking == ET_TAIL ? NETCOND_ET_TAIL : NETCOND_ET_SIZE_INDEPENDENT;
        e.mtu = m_mtu;
        ex << "NetcondPcnQueueDisc: 3sM ET-marker (ExcessRate " << exc << " B/s, ExcessBucket "
           << m_excessBucket << " B, EtS " << m_etS << " B, Mtu " << m_mtu << " B)";
        netcond::CheckStatus(netcond_et_marker_profile_config(&m.etProfile, &e), ex.str());
        netcond::CheckStatus(netcond_et_marker_config(&m.et, &m.etProfile, now), ex.str());

        netcond_as_marker_params a{};
        a.ar = thr;
        a.bucket_size = m_thresholdBucket;
        a.threshold = m_thresholdDepth;
        a.tick_hz = hz;
        a.form = m_asForm == AS_3SM_01 ? NETCOND_AS_3SM_01 : NETCOND_AS_EXPLICIT_MARKING_01;
        th << "NetcondPcnQueueDisc: 3sM AS-marker (ThresholdRate " << thr
           << " B/s, ThresholdBucket " << m_thresholdBucket << " B, ThresholdDepth "
           << m_thresholdDepth << " B)";
        netcond::CheckStatus(netcond_as_marker_profile_config(&m.asProfile, &a), th.str());
        netcond::CheckStatus(netcond_as_marker_config(&m.as, &m.asProfile, now), th.str());
    }
}

bool
NetcondPcnQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    uint8_t tos = 0;
    if (netcond::GetDsField(item, tos))
    {
        const int before = netcond_pcn_decode_tos(&m_impl->dscps, tos);
        // -1: not a PCN-compatible DSCP; 0: not-PCN. Neither is metered.
        if (before > 0)
        {
            const uint64_t now = netcond::NowNs();
            const uint32_t len = item->GetSize();
            Impl& m = *m_impl;
            int after = before;
            // RFC 6660 section 5.2.2: the excess stage first, then the
            // threshold stage on the packet as the first left it.
            if (m_marker == RFC5670)
            {
                after = netcond_excess_meter_mark(&m.excess, &m.excessProfile, now, len, after);
                after =
                    netcond_threshold_meter_mark(&m.threshold, &m.thresholdProfile, now, len, after);
            }
            else
            {
                after = netcond_et_marker_mark(&m.et, &m.etProfile, now, len, after);
                after = netcond_as_marker_mark(&m.as, &m.asProfile, now, len, after);
            }
            const uint8_t out = netcond_pcn_remark_tos(&m.dscps, tos, after);
            if (out != tos)
            {
                netcond::SetEcnBits(item, out & 3);
            }
            const int cp = netcond_pcn_decode_tos(&m.dscps, out);
            if (cp >= 0 && cp <= 3)
            {
                m_packets[cp]++;
                m_bytes[cp] += len;
            }
            m_markTrace(item, uint8_t(before), uint8_t(cp));
            NS_LOG_LOGIC(len << " B: codepoint " << before << " -> " << cp);
        }
    }
    return GetInternalQueue(0)->Enqueue(item);
}

Ptr<QueueDiscItem>
NetcondPcnQueueDisc::DoDequeue()
{
    return GetInternalQueue(0)->Dequeue();
}

} // namespace ns3
