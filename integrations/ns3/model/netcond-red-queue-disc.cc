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

#include <algorithm>
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
            .SetParent<NetcondQueueDisc>()
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
                          "Not a RedQueueDisc attribute: max_p, the drop probability at max_th, "
                          "in [0, 1], in place of 1 / LInterm; -1 (the default): max_p = 1 / "
                          "LInterm",
                          DoubleValue(-1),
                          MakeDoubleAccessor(&NetcondRedQueueDisc::m_maxP),
                          MakeDoubleChecker<double>())
            .AddAttribute("LInterm",
                          "RedQueueDisc's form of max_p: max_p = 1 / LInterm, unless MaxP is "
                          "set; positive",
                          DoubleValue(50),
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
                          "Not in FJ93, RedQueueDisc's rule with 1 (the default): an arrival "
                          "while the queue holds at most this many packets or bytes is neither "
                          "dropped nor marked by RED (the average is updated), and the next "
                          "arrival in the probabilistic region starts the count again, as after "
                          "a stay below MinTh. 0: off",
                          UintegerValue(1),
                          MakeUintegerAccessor(&NetcondRedQueueDisc::m_smallQueueGuard),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Spreading",
                          "How early drops are spread over the packets since the last one: "
                          "Wait (the default; RedQueueDisc with Wait=true), UniformCountFirst "
                          "(FJ93 figure 2 literally; RedQueueDisc with Wait=false), Accumulated "
                          "(FJ93, one draw per drop), AccumulatedDpdk, Uniform, Dpdk, Geometric",
                          EnumValue(SPREAD_WAIT),
                          MakeEnumAccessor(&NetcondRedQueueDisc::m_spreading),
                          MakeEnumChecker(SPREAD_WAIT, "Wait",
                                          SPREAD_ACCUMULATED, "Accumulated",
                                          SPREAD_ACCUMULATED_DPDK, "AccumulatedDpdk",
                                          SPREAD_UNIFORM, "Uniform",
                                          SPREAD_UNIFORM_COUNT_FIRST, "UniformCountFirst",
                                          SPREAD_DPDK, "Dpdk",
                                          SPREAD_GEOMETRIC, "Geometric"))
            .AddAttribute("Wait",
                          "RedQueueDisc's Wait: true (the default), the Wait spreading; false, "
                          "RedQueueDisc's other law, UniformCountFirst. Wait=false is refused "
                          "with a Spreading other than Wait",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NetcondRedQueueDisc::m_wait),
                          MakeBooleanChecker())
            .AddAttribute("Fj93",
                          "Not a RedQueueDisc attribute: true gives Floyd and Jacobson's RED as "
                          "published (the Accumulated spreading, one draw per drop, and no "
                          "small-queue guard); refused with Spreading, Wait or SmallQueueGuard "
                          "away from their defaults",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NetcondRedQueueDisc::m_fj93),
                          MakeBooleanChecker());
    return tid;
}

NetcondRedQueueDisc::NetcondRedQueueDisc()
    : NetcondQueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE,
                       "NetcondRedQueueDisc",
                       Layout::SINGLE_FIFO,
                       true),
      m_impl(std::make_unique<Impl>())
{
}

NetcondRedQueueDisc::~NetcondRedQueueDisc() = default;

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
    const bool useLInterm = m_maxP == -1;
    if (useLInterm && !(m_lInterm > 0))
    {
        std::ostringstream os;
        os << "NetcondRedQueueDisc: LInterm = " << m_lInterm
           << " is not positive; it is 1 / max_p (or set MaxP)";
        netcond::Refuse(os.str());
    }
    const double maxP = useLInterm ? 1.0 / m_lInterm : m_maxP;
    p.max_p = Fixed32(maxP);
    p.w_q = Fixed32(m_qW);
    p.idle_tx_ns = s;
    p.tick_hz = 1000000000u; // netcond::NowNs(): nanosecond ticks
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
    // The law in force: Spreading, or RedQueueDisc's Wait=false, or FJ93's.
    m_law = m_spreading;
    m_guard = m_smallQueueGuard;
    if (!m_wait)
    {
        if (m_spreading != SPREAD_WAIT || m_fj93)
        {
            netcond::Refuse("NetcondRedQueueDisc: Wait=false selects RedQueueDisc's law without "
                            "waiting (the UniformCountFirst spreading); it is refused with a "
                            "Spreading other than Wait, and with Fj93=true");
        }
        m_law = SPREAD_UNIFORM_COUNT_FIRST;
    }
    if (m_fj93)
    {
        if (m_spreading != SPREAD_WAIT || m_smallQueueGuard != 1)
        {
            netcond::Refuse("NetcondRedQueueDisc: Fj93=true sets the Accumulated spreading and no "
                            "small-queue guard; it is refused with a Spreading other than Wait "
                            "or a SmallQueueGuard other than 1 (set those alone instead)");
        }
        m_law = SPREAD_ACCUMULATED;
        m_guard = 0;
    }
    p.spreading = uint32_t(m_law);
    std::ostringstream what;
    what << "NetcondRedQueueDisc (MinTh " << m_minTh << ", MaxTh " << m_maxTh << ", MaxP "
         << maxP << ", QW " << m_qW << ", MaxSize " << max << ", s " << s << " ns)";
    // The parameters as given are checked first (thresholds within MaxSize,
    // ...); then netcond's buffer is made one packet (bytes: 65535 B) larger
    // than MaxSize, so that netcond never refuses a packet for space: as with
    // RedQueueDisc, RED decides first (the packet counts in RED's count) and
    // the internal queue then drops what does not fit, as "Dropped by
    // internal queue".
    netcond::CheckStatus(netcond_red_profile_config(&m_impl->profile, &p), what.str());
    const uint64_t room = p.unit == NETCOND_QUEUE_BYTES ? 65535 : 1;
    p.limit = uint32_t(std::min<uint64_t>(uint64_t(p.limit) + room, 0xfffffffeu));
    netcond::CheckStatus(netcond_red_profile_config(&m_impl->profile, &p), what.str());
    netcond::CheckStatus(netcond_red_config(&m_impl->state, &m_impl->profile, netcond::NowNs()),
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
    const uint32_t draw = Draw32();
    netcond_red_decision d =
        netcond_red_enqueue_draw(&m_impl->state, &m_impl->profile, now, qlen, len, ecn, draw);
    // SmallQueueGuard (RedQueueDisc's rule): the average was updated as
    // always; RED's decision is set aside, and the count starts again at the
    // next arrival in the region, as RedQueueDisc's does.
    if (m_guard > 0 && qlen <= m_guard)
    {
        d = NETCOND_ENQUEUE;
        netcond_red_restart_count(&m_impl->state);
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
    default:
        // The average is in the forced region, or at the ECN hard-drop
        // threshold (netcond's buffer is larger than MaxSize, so it is never
        // the buffer, but for a packet of more than 65535 B in a queue counted
        // in bytes).
        DropBeforeEnqueue(item, FORCED_DROP);
        return false;
    }
    // A packet that does not fit MaxSize is dropped here by the internal
    // queue, which reports it as QueueDisc::INTERNAL_QUEUE_DROP.
    return q->Enqueue(item);
}

Ptr<QueueDiscItem>
NetcondRedQueueDisc::DoDequeue()
{
    Ptr<QueueDisc::InternalQueue> q = GetInternalQueue(0);
    Ptr<QueueDiscItem> item = q->Dequeue();
    if (!item || q->IsEmpty())
    {
        // The idle period: FJ93's q_time is when the last packet leaves for
        // the device; RedQueueDisc starts its idle time at each dequeue from
        // the empty queue, i.e. whenever the device asks for a packet and
        // there is none. netcond keeps the later of the two (a time older
        // than the one recorded is ignored), so the next arrival to the empty
        // queue decays the average over the time since RedQueueDisc's idle
        // start, or since the last packet left if the device has not asked.
        netcond_red_queue_empty(&m_impl->state, &m_impl->profile, netcond::NowNs());
    }
    return item;
}

Ptr<const QueueDiscItem>
NetcondRedQueueDisc::DoPeek()
{
    return GetInternalQueue(0)->Peek();
}

} // namespace ns3
