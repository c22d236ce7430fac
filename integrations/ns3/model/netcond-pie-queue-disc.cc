#include "netcond-pie-queue-disc.h"

#include "netcond-ns3-util.h"
#include "netcond.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NetcondPieQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(NetcondPieQueueDisc);

struct NetcondPieQueueDisc::Impl
{
    netcond_pie_profile profile;
    netcond_pie state;
    bool bytes = false; //!< MaxSize in bytes: the limit is checked here
};

TypeId
NetcondPieQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NetcondPieQueueDisc")
            .SetParent<NetcondQueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<NetcondPieQueueDisc>()
            .AddAttribute("MeanPktSize",
                          "Bytes: no early drop while fewer than twice this many are queued "
                          "(RFC 8033 section 4.1), and byte mode's scale (netcond's MTU)",
                          UintegerValue(1000),
                          MakeUintegerAccessor(&NetcondPieQueueDisc::m_meanPktSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("A",
                          "alpha (RFC 8033 section 4.2), Hz: a whole number of sixteenths, at "
                          "most 2",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&NetcondPieQueueDisc::m_a),
                          MakeDoubleChecker<double>())
            .AddAttribute("B",
                          "beta (RFC 8033 section 4.2), Hz: a whole number of sixteenths, at "
                          "most 2",
                          DoubleValue(1.25),
                          MakeDoubleAccessor(&NetcondPieQueueDisc::m_b),
                          MakeDoubleChecker<double>())
            .AddAttribute("Tupdate",
                          "T_UPDATE, the period of the drop-probability update",
                          TimeValue(MilliSeconds(15)),
                          MakeTimeAccessor(&NetcondPieQueueDisc::m_tUpdate),
                          MakeTimeChecker())
            .AddAttribute("Supdate",
                          "When the update timer first fires; the first update is Tupdate "
                          "after it",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&NetcondPieQueueDisc::m_sUpdate),
                          MakeTimeChecker())
            .AddAttribute("MaxSize",
                          "The buffer, packets or bytes (an arrival that does not fit is a "
                          "\"Forced drop\")",
                          QueueSizeValue(QueueSize("25p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("DequeueThreshold",
                          "The dequeue-rate estimator's threshold: accepted, unused (netcond "
                          "measures the delay from timestamps)",
                          UintegerValue(16384),
                          MakeUintegerAccessor(&NetcondPieQueueDisc::m_dqThreshold),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("QueueDelayReference",
                          "QDELAY_REF, the target queue delay (RFC 8033 section 4.2)",
                          TimeValue(MilliSeconds(15)),
                          MakeTimeAccessor(&NetcondPieQueueDisc::m_qDelayRef),
                          MakeTimeChecker())
            .AddAttribute("MaxBurstAllowance",
                          "MAX_BURST (RFC 8033 section 4.4), spent by the time between "
                          "departures, as Linux does",
                          TimeValue(MilliSeconds(150)),
                          MakeTimeAccessor(&NetcondPieQueueDisc::m_maxBurst),
                          MakeTimeChecker())
            .AddAttribute("UseDequeueRateEstimator",
                          "Not implemented by netcond (the delay comes from timestamps); only "
                          "false is accepted",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NetcondPieQueueDisc::m_useDqRateEstimator),
                          MakeBooleanChecker())
            .AddAttribute("UseCapDropAdjustment",
                          "RFC 8033 section 5.5, always on in netcond; only true is accepted",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NetcondPieQueueDisc::m_isCapDropAdjustment),
                          MakeBooleanChecker())
            .AddAttribute("UseEcn",
                          "ECN: mark ECN-capable packets instead of dropping them while the "
                          "probability is at most MarkEcnThreshold",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NetcondPieQueueDisc::m_useEcn),
                          MakeBooleanChecker())
            .AddAttribute("MarkEcnThreshold",
                          "RFC 8033 section 5.1's mark_ecnth, 10 % in netcond; only 0.1 is "
                          "accepted",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&NetcondPieQueueDisc::m_markEcnTh),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("UseDerandomization",
                          "RFC 8033 section 5.4, always on in netcond (as in Linux); only true "
                          "is accepted, and true is this disc's default",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NetcondPieQueueDisc::m_useDerandomization),
                          MakeBooleanChecker())
            .AddAttribute("ActiveThreshold",
                          "Not implemented by netcond; only the default (Time::Max, PIE "
                          "always active) is accepted",
                          TimeValue(Time::Max()),
                          MakeTimeAccessor(&NetcondPieQueueDisc::m_activeThreshold),
                          MakeTimeChecker())
            .AddAttribute("CeThreshold",
                          "Not implemented by netcond; only the default (Time::Max) is "
                          "accepted",
                          TimeValue(Time::Max()),
                          MakeTimeAccessor(&NetcondPieQueueDisc::m_ceThreshold),
                          MakeTimeChecker())
            .AddAttribute("UseL4s",
                          "Not implemented by netcond; only false is accepted",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NetcondPieQueueDisc::m_useL4s),
                          MakeBooleanChecker())
            .AddAttribute("BoundProb",
                          "Not a PieQueueDisc attribute: keep the probability at most one "
                          "after each update (RFC 8033 section 4.2, PieQueueDisc; the "
                          "default), or let it grow past one as Linux does (false)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NetcondPieQueueDisc::m_boundProb),
                          MakeBooleanChecker());
    return tid;
}

NetcondPieQueueDisc::NetcondPieQueueDisc()
    : NetcondQueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE,
                       "NetcondPieQueueDisc",
                       Layout::SINGLE_FIFO,
                       true),
      m_impl(std::make_unique<Impl>())
{
}

NetcondPieQueueDisc::~NetcondPieQueueDisc() = default;

void
NetcondPieQueueDisc::CheckAttributes()
{
    RefusePieVariants("PIE", m_useDqRateEstimator, m_isCapDropAdjustment, m_useDerandomization);
    if (m_markEcnTh != 0.1)
    {
        std::ostringstream os;
        os << "MarkEcnThreshold = " << m_markEcnTh
           << " (the threshold is 0.1) is not supported by netcond's PIE";
        Refuse(os.str());
    }
    if (m_activeThreshold != Time::Max())
    {
        Refuse("ActiveThreshold other than Time::Max is not supported by netcond's PIE");
    }
    RefuseL4sAndCeThreshold("PIE", m_useL4s, m_ceThreshold);
}

namespace
{

// A gain in Hz as netcond's sixteenths, or a fatal error.
uint32_t
Sixteenths(double v, const char* name)
{
    const double s = v * 16;
    if (!(s >= 0) || s > 32 || s != std::floor(s))
    {
        std::ostringstream os;
        os << "NetcondPieQueueDisc: " << name << " = " << v
           << " is not a whole number of sixteenths in [0, 2], which netcond's alpha and beta "
              "are (Linux sch_pie's units)";
        netcond::Refuse(os.str());
    }
    return uint32_t(s);
}

} // namespace

void
NetcondPieQueueDisc::InitializeParams()
{
    const QueueSize max = GetMaxSize();
    m_impl->bytes = max.GetUnit() == QueueSizeUnit::BYTES;
    netcond_pie_params p{};
    p.target_ns = NonNegativeNs(m_qDelayRef, "QueueDelayReference");
    p.t_update_ns = NonNegativeNs(m_tUpdate, "Tupdate");
    p.max_burst_ns = NonNegativeNs(m_maxBurst, "MaxBurstAllowance");
    p.tick_hz = 1000000000u;
    p.alpha = Sixteenths(m_a, "A");
    p.beta = Sixteenths(m_b, "B");
    // Packets: netcond's limit. Bytes: the limit is checked here, and
    // netcond's is never reached but when this disc asks it to drop.
    p.limit = m_impl->bytes ? 0xffffffffu : max.GetValue();
    p.mtu = m_meanPktSize;
    p.ecn = m_useEcn ? 1 : 0;
    p.bytemode = m_impl->bytes ? 1 : 0;
    p.bound_prob = m_boundProb ? 1 : 0;
    std::ostringstream what;
    what << "NetcondPieQueueDisc (QueueDelayReference " << m_qDelayRef.As(Time::MS)
         << ", Tupdate " << m_tUpdate.As(Time::MS) << ", MaxBurstAllowance "
         << m_maxBurst.As(Time::MS) << ", MaxSize " << max << ", MeanPktSize " << m_meanPktSize
         << ")";
    netcond::CheckStatus(netcond_pie_profile_config(&m_impl->profile, &p), what.str());
    const Time start = Simulator::Now() + m_sUpdate;
    netcond::CheckStatus(
        netcond_pie_config(&m_impl->state, &m_impl->profile, uint64_t(start.GetNanoSeconds())),
        "NetcondPieQueueDisc: the PIE state");
    // The timer: at Supdate, then every Tupdate; netcond updates when due.
    m_update = Simulator::Schedule(m_sUpdate, &NetcondPieQueueDisc::Update, this);
}

void
NetcondPieQueueDisc::Update()
{
    netcond_pie_poll(&m_impl->state, &m_impl->profile, netcond::NowNs(),
                     GetInternalQueue(0)->GetNBytes());
    m_update = Simulator::Schedule(m_tUpdate, &NetcondPieQueueDisc::Update, this);
}

double
NetcondPieQueueDisc::GetDropProbability() const
{
    return double(netcond_pie_prob(&m_impl->state)) / double(NETCOND_PIE_MAX_PROB);
}

Time
NetcondPieQueueDisc::GetQueueDelay() const
{
    netcond_pie_info info;
    if (netcond_pie_info_get(&m_impl->state, &info) != 0)
    {
        return Seconds(0);
    }
    return NanoSeconds(int64_t(info.qdelay << 6));
}

bool
NetcondPieQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    Ptr<QueueDisc::InternalQueue> q = GetInternalQueue(0);
    const uint64_t now = netcond::NowNs();
    const uint32_t len = item->GetSize();
    uint8_t ds = 0;
    const int ect = netcond::GetDsField(item, ds) && (ds & 3) != 0 ? 1 : 0;
    // MaxSize in bytes: netcond is asked to drop (qlen at its limit), so
    // that it restarts its derandomization as after any drop.
    const bool full = m_impl->bytes && GetCurrentSize() + item > GetMaxSize();
    const uint32_t qlen = full ? 0xffffffffu : q->GetNPackets();
    const netcond_pie_verdict v = netcond_pie_enqueue_draw(
        &m_impl->state, &m_impl->profile, now, len, ect, qlen, q->GetNBytes(), Draw64());
    if (v == NETCOND_PIE_DROP)
    {
        const bool forced = full || (!m_impl->bytes && qlen >= GetMaxSize().GetValue());
        DropBeforeEnqueue(item, forced ? FORCED_DROP : UNFORCED_DROP);
        return false;
    }
    if (v == NETCOND_PIE_MARK && !Mark(item, UNFORCED_MARK))
    {
        DropBeforeEnqueue(item, UNFORCED_DROP);
        return false;
    }
    return q->Enqueue(item);
}

Ptr<QueueDiscItem>
NetcondPieQueueDisc::DoDequeue()
{
    Ptr<QueueDisc::InternalQueue> q = GetInternalQueue(0);
    Ptr<QueueDiscItem> item = q->Dequeue();
    if (!item)
    {
        return nullptr;
    }
    const int64_t at = item->GetTimeStamp().GetNanoSeconds();
    netcond_pie_on_dequeue(&m_impl->state, &m_impl->profile, netcond::NowNs(),
                        at < 0 ? 0 : uint64_t(at), item->GetSize(), q->GetNBytes());
    return item;
}

} // namespace ns3
