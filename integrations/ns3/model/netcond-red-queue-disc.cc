#include "netcond-red-queue-disc.h"

#include "netcond-ns3-util.h"
#include "netcond.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NetcondRedQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(NetcondRedQueueDisc);

struct NetcondRedQueueDisc::Impl
{
    netcond_red_profile profile;
    netcond_red state;
};

TypeId
NetcondRedQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NetcondRedQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<NetcondRedQueueDisc>()
            .AddAttribute("MinTh",
                          "min_th: minimum average queue threshold, in packets or bytes (the "
                          "unit of MaxSize); a whole number",
                          DoubleValue(5),
                          MakeDoubleAccessor(&NetcondRedQueueDisc::m_minTh),
                          MakeDoubleChecker<double>())
            .AddAttribute("MaxTh",
                          "max_th: maximum average queue threshold, in packets or bytes; a "
                          "whole number, above MinTh and at most MaxSize",
                          DoubleValue(15),
                          MakeDoubleAccessor(&NetcondRedQueueDisc::m_maxTh),
                          MakeDoubleChecker<double>())
            .AddAttribute("MaxP",
                          "max_p: the drop probability at max_th, in [0, 1] "
                          "(RedQueueDisc's LInterm is 1 / max_p)",
                          DoubleValue(0.02),
                          MakeDoubleAccessor(&NetcondRedQueueDisc::m_maxP),
                          MakeDoubleChecker<double>())
            .AddAttribute("LInterm",
                          "RedQueueDisc's form of max_p: if positive, max_p = 1 / LInterm "
                          "and MaxP is not used; 0 (the default): MaxP",
                          DoubleValue(0),
                          MakeDoubleAccessor(&NetcondRedQueueDisc::m_lInterm),
                          MakeDoubleChecker<double>())
            .AddAttribute("QW",
                          "w_q: the weight of the average queue's EWMA, in (0, 1]",
                          DoubleValue(0.002),
                          MakeDoubleAccessor(&NetcondRedQueueDisc::m_qW),
                          MakeDoubleChecker<double>())
            .AddAttribute("MaxSize",
                          "The buffer: packets or bytes (and so the unit of the thresholds)",
                          QueueSizeValue(QueueSize("25p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("Gentle",
                          "Gentle RED: p_b rises from max_p at max_th to 1 at 2 max_th",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NetcondRedQueueDisc::m_gentle),
                          MakeBooleanChecker())
            .AddAttribute("ByteMode",
                          "FJ93 byte mode: p_b scaled by min(size, MaxPktSize) / MaxPktSize",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NetcondRedQueueDisc::m_byteMode),
                          MakeBooleanChecker())
            .AddAttribute("MaxPktSize",
                          "Byte mode's maximum packet size M, bytes",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&NetcondRedQueueDisc::m_maxPktSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("UseEcn",
                          "ECN (RFC 3168): mark ECN-capable packets instead of dropping them",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NetcondRedQueueDisc::m_useEcn),
                          MakeBooleanChecker())
            .AddAttribute("UseHardDrop",
                          "With ECN, drop ECN-capable packets too once the average is at or "
                          "above max_th (RFC 3168 section 7); see EcnDropTh",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NetcondRedQueueDisc::m_useHardDrop),
                          MakeBooleanChecker())
            .AddAttribute("EcnDropTh",
                          "With ECN and UseHardDrop: the average at and above which ECN-capable "
                          "packets are dropped; 0 means max_th (2 max_th when Gentle)",
                          DoubleValue(0),
                          MakeDoubleAccessor(&NetcondRedQueueDisc::m_ecnDropTh),
                          MakeDoubleChecker<double>())
            .AddAttribute("MeanPktSize",
                          "With LinkBandwidth, gives FJ93's s (the time to send a packet of "
                          "this size) for the idle decay, unless IdleTxTime is set",
                          UintegerValue(500),
                          MakeUintegerAccessor(&NetcondRedQueueDisc::m_meanPktSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("LinkBandwidth",
                          "The link's rate, for FJ93's s",
                          DataRateValue(DataRate("1.5Mbps")),
                          MakeDataRateAccessor(&NetcondRedQueueDisc::m_linkBandwidth),
                          MakeDataRateChecker())
            .AddAttribute("IdleTxTime",
                          "FJ93's s directly: after an idle time t the average is multiplied "
                          "by (1 - w_q)^(t / s). 0: MeanPktSize * 8 / LinkBandwidth",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&NetcondRedQueueDisc::m_idleTxTime),
                          MakeTimeChecker())
            .AddAttribute("SmallQueueGuard",
                          "Not in FJ93: no early or forced drop (or mark) while the queue "
                          "holds at most this many packets or bytes before the arrival; "
                          "RedQueueDisc behaves as 1. 0 (the default): off. Needs a spreading "
                          "that draws once per packet (Uniform, UniformCountFirst, Dpdk, "
                          "Geometric)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&NetcondRedQueueDisc::m_smallQueueGuard),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Spreading",
                          "How early drops are spread over the packets since the last one: "
                          "Accumulated (FJ93, netcond's default), AccumulatedDpdk, Uniform, "
                          "UniformCountFirst (FJ93 figure 2 literally; RedQueueDisc with "
                          "Wait=false), Dpdk, Geometric",
                          EnumValue(SPREAD_ACCUMULATED),
                          MakeEnumAccessor(&NetcondRedQueueDisc::m_spreading),
                          MakeEnumChecker(SPREAD_ACCUMULATED, "Accumulated",
                                          SPREAD_ACCUMULATED_DPDK, "AccumulatedDpdk",
                                          SPREAD_UNIFORM, "Uniform",
                                          SPREAD_UNIFORM_COUNT_FIRST, "UniformCountFirst",
                                          SPREAD_DPDK, "Dpdk",
                                          SPREAD_GEOMETRIC, "Geometric"));
    return tid;
}

NetcondRedQueueDisc::NetcondRedQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE),
      m_impl(std::make_unique<Impl>())
{
    m_uv = CreateObject<UniformRandomVariable>();
}

NetcondRedQueueDisc::~NetcondRedQueueDisc() = default;

void
NetcondRedQueueDisc::DoDispose()
{
    m_uv = nullptr;
    QueueDisc::DoDispose();
}

int64_t
NetcondRedQueueDisc::AssignStreams(int64_t stream)
{
    m_uv->SetStream(stream);
    return 1;
}

bool
NetcondRedQueueDisc::CheckConfig()
{
    if (GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0)
    {
        NS_LOG_ERROR("NetcondRedQueueDisc takes no classes and no packet filters");
        return false;
    }
    if (GetNInternalQueues() == 0)
    {
        AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
            "MaxSize",
            QueueSizeValue(GetMaxSize())));
    }
    if (GetNInternalQueues() != 1)
    {
        NS_LOG_ERROR("NetcondRedQueueDisc needs exactly one internal queue");
        return false;
    }
    return true;
}

namespace
{

// A threshold attribute as the whole number netcond takes, or a fatal error.
uint32_t
WholeUnits(double v, const char* name)
{
    if (!(v >= 0) || v > 4294967295.0 || v != std::floor(v))
    {
        std::ostringstream os;
        os << "NetcondRedQueueDisc: " << name << " = " << v
           << " is not a whole number of packets or bytes in [0, 2^32), which netcond's "
              "thresholds are";
        netcond::Refuse(os.str());
    }
    return uint32_t(v);
}

// A probability or weight as netcond's 32.32 fixed point, rounded to the
// nearest unit (2^-32). A negative, NaN or huge value becomes UINT64_MAX,
// which netcond refuses with its own message.
uint64_t
Fixed32(double v)
{
    if (!(v >= 0) || v >= 4294967296.0)
    {
        return UINT64_MAX;
    }
    return uint64_t(std::llround(std::ldexp(v, 32)));
}

} // namespace

void
NetcondRedQueueDisc::InitializeParams()
{
    const QueueSize max = GetMaxSize();
    // FJ93's s: given directly, or the time to send MeanPktSize bytes at
    // LinkBandwidth (RedQueueDisc's ptc = LinkBandwidth / (8 MeanPktSize)).
    uint64_t s = 0;
    if (m_idleTxTime.IsStrictlyPositive())
    {
        s = uint64_t(m_idleTxTime.GetNanoSeconds());
    }
    else if (m_linkBandwidth.GetBitRate() > 0)
    {
        s = uint64_t(
            std::llround(m_meanPktSize * 8.0 * 1e9 / double(m_linkBandwidth.GetBitRate())));
    }
    netcond_red_params p{};
    p.min_th = WholeUnits(m_minTh, "MinTh");
    p.max_th = WholeUnits(m_maxTh, "MaxTh");
    if (!(m_lInterm >= 0))
    {
        std::ostringstream os;
        os << "NetcondRedQueueDisc: LInterm = " << m_lInterm
           << " is negative; it is 1 / max_p (or 0 to use MaxP)";
        netcond::Refuse(os.str());
    }
    const double maxP = m_lInterm > 0 ? 1.0 / m_lInterm : m_maxP;
    p.max_p = Fixed32(maxP);
    p.w_q = Fixed32(m_qW);
    p.idle_tx_ticks = s;
    p.limit = max.GetValue();
    p.unit = max.GetUnit() == QueueSizeUnit::BYTES ? NETCOND_QUEUE_BYTES : NETCOND_QUEUE_PACKETS;
    p.gentle = m_gentle ? 1 : 0;
    p.ecn = m_useEcn ? 1 : 0;
    p.ecn_drop_th = NETCOND_RED_NONE;
    if (m_useEcn && m_useHardDrop)
    {
        // RedQueueDisc's UseHardDrop drops in its forced region: from max_th,
        // or from 2 max_th when gentle.
        p.ecn_drop_th = m_ecnDropTh > 0 ? WholeUnits(m_ecnDropTh, "EcnDropTh")
                                        : (m_gentle ? 2 : 1) * p.max_th;
    }
    p.byte_mode = m_byteMode ? m_maxPktSize : NETCOND_RED_NONE;
    p.spreading = uint32_t(m_spreading);
    if (m_smallQueueGuard > 0 &&
        (m_spreading == SPREAD_ACCUMULATED || m_spreading == SPREAD_ACCUMULATED_DPDK))
    {
        // The guard works by handing netcond a draw that never drops; the
        // accumulated spreadings keep a draw as the budget for the next gap,
        // which that value would distort.
        netcond::Refuse("NetcondRedQueueDisc: SmallQueueGuard needs a spreading that draws once "
                        "per packet (Uniform, UniformCountFirst, Dpdk or Geometric), not "
                        "Accumulated or AccumulatedDpdk");
    }
    std::ostringstream what;
    what << "NetcondRedQueueDisc (MinTh " << m_minTh << ", MaxTh " << m_maxTh << ", MaxP "
         << maxP << ", QW " << m_qW << ", MaxSize " << max << ", s " << s << " ns)";
    netcond::CheckStatus(netcond_red_profile_config(&m_impl->profile, &p), what.str());
    netcond::CheckStatus(netcond_red_config(&m_impl->state, netcond::NowNs()),
                         "NetcondRedQueueDisc: the RED state");
    m_forcedFrom = double(m_gentle ? 2 * uint64_t(p.max_th) : p.max_th);
}

double
NetcondRedQueueDisc::GetAverage() const
{
    return std::ldexp(double(netcond_red_avg(&m_impl->state, &m_impl->profile)), -32);
}

bool
NetcondRedQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    const uint64_t now = netcond::NowNs();
    Ptr<QueueDisc::InternalQueue> q = GetInternalQueue(0);
    const uint32_t qlen = q->GetCurrentSize().GetValue();
    const uint32_t len = item->GetSize();
    uint8_t ds = 0;
    const uint32_t ecn = netcond::GetDsField(item, ds) ? (ds & 3) : 0;
    // One uniform 32-bit value from ns-3's generator per arrival, so that
    // RngSeedManager's seed and run, and AssignStreams, decide the draws.
    uint32_t draw = m_uv->GetInteger(0, 0xffffffffu);
    // SmallQueueGuard: the average is updated as always, but the draw is the
    // largest value, which drops only where p_a is 1; such a drop is undone.
    const bool guarded = qlen <= m_smallQueueGuard && m_smallQueueGuard > 0;
    if (guarded)
    {
        draw = 0xffffffffu;
    }
    netcond_red_decision d =
        netcond_red_enqueue_draw(&m_impl->state, &m_impl->profile, now, qlen, len, ecn, draw);
    if (guarded && d != NETCOND_ENQUEUE)
    {
        const QueueSize max = GetMaxSize();
        const bool fits = max.GetUnit() == QueueSizeUnit::BYTES
                              ? uint64_t(qlen) + len <= max.GetValue()
                              : qlen < max.GetValue();
        if (fits)
        {
            d = NETCOND_ENQUEUE;
        }
    }
    NS_LOG_LOGIC("queue " << qlen << ", average " << GetAverage() << ": decision " << int(d));
    switch (d)
    {
    case NETCOND_ENQUEUE:
        break;
    case NETCOND_MARK:
        // netcond marks only ECN-capable packets, so Mark() succeeds; an
        // item that could not carry CE would be dropped as RED decided.
        if (!Mark(item, GetAverage() >= m_forcedFrom ? FORCED_MARK : UNFORCED_MARK))
        {
            DropBeforeEnqueue(item, UNFORCED_DROP);
            return false;
        }
        break;
    case NETCOND_DROP_EARLY:
        DropBeforeEnqueue(item, UNFORCED_DROP);
        return false;
    case NETCOND_DROP_FORCED:
    default: {
        // The buffer is full, or the average is in the forced region (or at
        // the ECN hard-drop threshold).
        const QueueSize max = GetMaxSize();
        const bool fits = max.GetUnit() == QueueSizeUnit::BYTES
                              ? uint64_t(qlen) + len <= max.GetValue()
                              : qlen < max.GetValue();
        DropBeforeEnqueue(item, fits ? FORCED_DROP : OVERFLOW_DROP);
        return false;
    }
    }
    return q->Enqueue(item);
}

Ptr<QueueDiscItem>
NetcondRedQueueDisc::DoDequeue()
{
    Ptr<QueueDisc::InternalQueue> q = GetInternalQueue(0);
    Ptr<QueueDiscItem> item = q->Dequeue();
    if (item && q->IsEmpty())
    {
        // FJ93's q_time: the queue becomes empty when its last packet leaves
        // for the device. The next arrival to the empty queue decays the
        // average over the time since then (RedQueueDisc instead starts its
        // idle time when the device next asks for a packet; README.md).
        netcond_red_queue_empty(&m_impl->state, netcond::NowNs());
    }
    return item;
}

Ptr<const QueueDiscItem>
NetcondRedQueueDisc::DoPeek()
{
    return GetInternalQueue(0)->Peek();
}

} // namespace ns3
