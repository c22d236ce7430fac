#include "netcond-fq-pie-queue-disc.h"

#include "netcond-ns3-util.h"
#include "netcond.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/log.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/net-device.h"
#include "ns3/object-factory.h"
#include "ns3/packet-filter.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NetcondFqPieQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(NetcondFqPieQueueDisc);

struct NetcondFqPieQueueDisc::Impl
{
    netcond_fq_pie_profile profile;
    netcond_fq_pie queue; // 120 KiB, 64-byte aligned (C++17 aligned new)
};

TypeId
NetcondFqPieQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NetcondFqPieQueueDisc")
            .SetParent<NetcondQueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<NetcondFqPieQueueDisc>()
            .AddAttribute("UseEcn",
                          "ECN: mark ECN-capable packets instead of dropping them while the "
                          "flow's probability is at most MarkEcnThreshold",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NetcondFqPieQueueDisc::m_useEcn),
                          MakeBooleanChecker())
            .AddAttribute("MarkEcnThreshold",
                          "The probability up to which ECN-capable packets are marked (a whole "
                          "percentage: netcond's ecn_prob, Linux's)",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&NetcondFqPieQueueDisc::m_markEcnTh),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("CeThreshold",
                          "Not implemented by netcond; only the default (Time::Max) is "
                          "accepted",
                          TimeValue(Time::Max()),
                          MakeTimeAccessor(&NetcondFqPieQueueDisc::m_ceThreshold),
                          MakeTimeChecker())
            .AddAttribute("UseL4s",
                          "Not implemented by netcond; only false is accepted",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NetcondFqPieQueueDisc::m_useL4s),
                          MakeBooleanChecker())
            .AddAttribute("MeanPktSize",
                          "Bytes: no early drop while a flow holds fewer than twice this many "
                          "(each flow's PIE's MTU)",
                          UintegerValue(1000),
                          MakeUintegerAccessor(&NetcondFqPieQueueDisc::m_meanPktSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("A",
                          "alpha, Hz: a whole number of sixteenths, at most 2",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&NetcondFqPieQueueDisc::m_a),
                          MakeDoubleChecker<double>())
            .AddAttribute("B",
                          "beta, Hz: a whole number of sixteenths, at most 2",
                          DoubleValue(1.25),
                          MakeDoubleAccessor(&NetcondFqPieQueueDisc::m_b),
                          MakeDoubleChecker<double>())
            .AddAttribute("Tupdate",
                          "T_UPDATE, the period of every flow's probability update",
                          TimeValue(MilliSeconds(15)),
                          MakeTimeAccessor(&NetcondFqPieQueueDisc::m_tUpdate),
                          MakeTimeChecker())
            .AddAttribute("Supdate",
                          "When the update timer first fires; the first update is Tupdate "
                          "after it",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&NetcondFqPieQueueDisc::m_sUpdate),
                          MakeTimeChecker())
            .AddAttribute("MaxSize",
                          "The packet limit over all flows (packets only): an arrival to a "
                          "queue holding this many is dropped",
                          QueueSizeValue(QueueSize("10240p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("DequeueThreshold",
                          "The dequeue-rate estimator's threshold: accepted, unused (netcond "
                          "measures the delay from timestamps)",
                          UintegerValue(16384),
                          MakeUintegerAccessor(&NetcondFqPieQueueDisc::m_dqThreshold),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("QueueDelayReference",
                          "QDELAY_REF, every flow's target queue delay",
                          TimeValue(MilliSeconds(15)),
                          MakeTimeAccessor(&NetcondFqPieQueueDisc::m_qDelayRef),
                          MakeTimeChecker())
            .AddAttribute("MaxBurstAllowance",
                          "MAX_BURST of every flow's PIE",
                          TimeValue(MilliSeconds(150)),
                          MakeTimeAccessor(&NetcondFqPieQueueDisc::m_maxBurst),
                          MakeTimeChecker())
            .AddAttribute("UseDequeueRateEstimator",
                          "Not implemented by netcond (the delay comes from timestamps); only "
                          "false is accepted",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NetcondFqPieQueueDisc::m_useDqRateEstimator),
                          MakeBooleanChecker())
            .AddAttribute("UseCapDropAdjustment",
                          "RFC 8033 section 5.5, always on in netcond; only true is accepted",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NetcondFqPieQueueDisc::m_isCapDropAdjustment),
                          MakeBooleanChecker())
            .AddAttribute("UseDerandomization",
                          "RFC 8033 section 5.4, always on in netcond (as in Linux); only true "
                          "is accepted, and true is this disc's default",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NetcondFqPieQueueDisc::m_useDerandomization),
                          MakeBooleanChecker())
            .AddAttribute("Flows",
                          "The number of flow queues, 1 to 1024 (netcond's C queue has 1024)",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&NetcondFqPieQueueDisc::m_flows),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("DropBatchSize",
                          "FqPieQueueDisc's overflow batch: accepted, unused (netcond, as "
                          "Linux, drops the arrival to a full queue)",
                          UintegerValue(64),
                          MakeUintegerAccessor(&NetcondFqPieQueueDisc::m_dropBatchSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Perturbation",
                          "The salt of the flow hash (when there is no packet filter)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&NetcondFqPieQueueDisc::m_perturbation),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EnableSetAssociativeHash",
                          "FqPieQueueDisc's set-associative hash: not implemented; only false "
                          "is accepted",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NetcondFqPieQueueDisc::m_enableSetAssociativeHash),
                          MakeBooleanChecker())
            .AddAttribute("SetWays",
                          "The set size of the set-associative hash (unused: that hash is "
                          "not implemented)",
                          UintegerValue(8),
                          MakeUintegerAccessor(&NetcondFqPieQueueDisc::m_setWays),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

NetcondFqPieQueueDisc::NetcondFqPieQueueDisc()
    : NetcondQueueDisc(QueueDiscSizePolicy::MULTIPLE_QUEUES,
                       "NetcondFqPieQueueDisc",
                       Layout::FLOW_QUEUES,
                       true),
      m_impl(std::make_unique<Impl>())
{
}

NetcondFqPieQueueDisc::~NetcondFqPieQueueDisc() = default;

void
NetcondFqPieQueueDisc::SetQuantum(uint32_t quantum)
{
    m_quantum = quantum;
}

uint32_t
NetcondFqPieQueueDisc::GetQuantum() const
{
    return m_quantum;
}

void
NetcondFqPieQueueDisc::CheckAttributes()
{
    RefusePieVariants("FQ-PIE", m_useDqRateEstimator, m_isCapDropAdjustment, m_useDerandomization);
    if (m_enableSetAssociativeHash)
    {
        Refuse("EnableSetAssociativeHash=true (flows are the hash modulo Flows) is not supported "
               "by netcond's FQ-PIE");
    }
    RefuseL4sAndCeThreshold("FQ-PIE", m_useL4s, m_ceThreshold);
    CheckFlows(m_flows, NETCOND_FQ_PIE_FLOWS);
    RequireMaxSizeUnit(QueueSizeUnit::PACKETS, "the limit is a packet count over all flows");
}

void
NetcondFqPieQueueDisc::InitializeParams()
{
    m_quantum = QuantumOrMtu(m_quantum);
    netcond_fq_pie_params p{};
    p.pie.target_ns = NonNegativeNs(m_qDelayRef, "QueueDelayReference");
    p.pie.t_update_ns = NonNegativeNs(m_tUpdate, "Tupdate");
    p.pie.max_burst_ns = NonNegativeNs(m_maxBurst, "MaxBurstAllowance");
    p.pie.tick_hz = 1000000000u;
    p.pie.alpha = Whole(m_a, 16, "A", "sixteenths");
    p.pie.beta = Whole(m_b, 16, "B", "sixteenths");
    p.pie.limit = GetMaxSize().GetValue();
    p.pie.mtu = m_meanPktSize;
    p.pie.ecn = m_useEcn ? 1 : 0;
    p.pie.bytemode = 0;
    p.pie.bound_prob = 0; // Linux's law
    p.quantum = m_quantum;
    p.limit = GetMaxSize().GetValue();
    p.ecn_prob = Whole(m_markEcnTh, 100, "MarkEcnThreshold", "percent");
    std::ostringstream what;
    what << "NetcondFqPieQueueDisc (QueueDelayReference " << m_qDelayRef.As(Time::MS)
         << ", Tupdate " << m_tUpdate.As(Time::MS) << ", MaxBurstAllowance "
         << m_maxBurst.As(Time::MS) << ", A " << m_a << ", B " << m_b << ", MaxSize "
         << GetMaxSize() << ", MeanPktSize " << m_meanPktSize << ", quantum " << m_quantum
         << ", MarkEcnThreshold " << m_markEcnTh << ")";
    netcond::CheckStatus(netcond_fq_pie_profile_config(&m_impl->profile, &p), what.str());
    const Time start = Simulator::Now() + m_sUpdate;
    netcond::CheckStatus(
        netcond_fq_pie_config(&m_impl->queue, &m_impl->profile, uint64_t(start.GetNanoSeconds())),
        "NetcondFqPieQueueDisc: the FQ-PIE state");
    m_queueOf.assign(m_flows, -1);
    // The timer: at Supdate, then every Tupdate; netcond updates when due.
    m_update = Simulator::Schedule(m_sUpdate, &NetcondFqPieQueueDisc::Update, this);
}

void
NetcondFqPieQueueDisc::Update()
{
    netcond_fq_pie_poll(&m_impl->queue, &m_impl->profile, netcond::NowNs());
    m_update = Simulator::Schedule(m_tUpdate, &NetcondFqPieQueueDisc::Update, this);
}

int64_t
NetcondFqPieQueueDisc::FlowOf(Ptr<const QueueDiscItem> item) const
{
    if (GetNPacketFilters() == 0)
    {
        return int64_t(item->Hash(m_perturbation) % m_flows);
    }
    // Classify is not const in ns-3; it changes nothing.
    int32_t ret =
        const_cast<NetcondFqPieQueueDisc*>(this)->Classify(ConstCast<QueueDiscItem>(item));
    if (ret == PacketFilter::PF_NO_MATCH)
    {
        return -1;
    }
    return int64_t(uint32_t(ret) % m_flows);
}

uint32_t
NetcondFqPieQueueDisc::GetFlowPackets(uint32_t flow) const
{
    netcond_fq_pie_flow f;
    if (netcond_fq_pie_flow_get(&m_impl->queue, flow, &f) != 0)
    {
        return 0;
    }
    return f.packets;
}

double
NetcondFqPieQueueDisc::GetFlowDropProbability(uint32_t flow) const
{
    netcond_fq_pie_flow f;
    if (netcond_fq_pie_flow_get(&m_impl->queue, flow, &f) != 0)
    {
        return 0;
    }
    return double(f.pie.prob) / double(NETCOND_PIE_MAX_PROB);
}

bool
NetcondFqPieQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    const int64_t h = FlowOf(item);
    if (h < 0)
    {
        DropBeforeEnqueue(item, UNCLASSIFIED_DROP);
        return false;
    }
    const uint64_t now = netcond::NowNs();
    uint8_t ds = 0;
    const int ect = netcond::GetDsField(item, ds) && (ds & 3) != 0 ? 1 : 0;
    const bool full = netcond_fq_pie_packets(&m_impl->queue) >= GetMaxSize().GetValue();
    const netcond_pie_verdict v = netcond_fq_pie_enqueue_draw(
        &m_impl->queue, &m_impl->profile, now, uint32_t(h), item->GetSize(), ect, Draw64());
    if (v == NETCOND_PIE_DROP)
    {
        DropBeforeEnqueue(item, full ? OVERLIMIT_DROP : UNFORCED_DROP);
        return false;
    }
    if (v == NETCOND_PIE_MARK && !Mark(item, UNFORCED_MARK))
    {
        // netcond queued it: it must leave the flow's FIFO through netcond.
        NS_LOG_LOGIC("mark refused by the item; it is queued unmarked");
    }
    int32_t& qi = m_queueOf[h];
    if (qi < 0)
    {
        // A FIFO that never refuses: the limit is netcond's, over all flows.
        AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
            "MaxSize",
            QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, 0xffffffffu))));
        qi = int32_t(GetNInternalQueues() - 1);
    }
    return GetInternalQueue(qi)->Enqueue(item);
}

Ptr<QueueDiscItem>
NetcondFqPieQueueDisc::DoDequeue()
{
    NS_LOG_FUNCTION(this);
    const uint64_t now = netcond::NowNs();
    uint32_t f = 0;
    if (netcond_fq_pie_schedule(&m_impl->queue, &m_impl->profile, now, &f) != 1)
    {
        return nullptr;
    }
    NS_ABORT_MSG_IF(f >= m_queueOf.size() || m_queueOf[f] < 0,
                    "NetcondFqPieQueueDisc: netcond named a flow without a queue");
    Ptr<QueueDiscItem> item = GetInternalQueue(m_queueOf[f])->Dequeue();
    NS_ABORT_MSG_IF(!item, "NetcondFqPieQueueDisc: netcond named an empty flow");
    const int64_t at = item->GetTimeStamp().GetNanoSeconds();
    netcond_fq_pie_on_dequeue(&m_impl->queue, &m_impl->profile, now, f, at < 0 ? 0 : uint64_t(at),
                           item->GetSize());
    return item;
}

} // namespace ns3
