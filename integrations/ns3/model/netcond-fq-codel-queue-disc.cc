#include "netcond-fq-codel-queue-disc.h"

#include "netcond-ns3-util.h"
#include "netcond.h"

#include "ns3/boolean.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/net-device.h"
#include "ns3/packet-filter.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NetcondFqCoDelQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(NetcondFqCoDelQueueDisc);

struct NetcondFqCoDelQueueDisc::Impl
{
    netcond_fq_codel_profile profile;
    netcond_fq_codel queue; // 64 KiB, 64-byte aligned (C++17 aligned new)
};

TypeId
NetcondFqCoDelQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NetcondFqCoDelQueueDisc")
            .SetParent<NetcondQueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<NetcondFqCoDelQueueDisc>()
            .AddAttribute("UseEcn",
                          "ECN (RFC 3168): mark ECN-capable packets CE instead of dropping them "
                          "(on by default, RFC 8290 section 5.2.6)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NetcondFqCoDelQueueDisc::m_useEcn),
                          MakeBooleanChecker())
            .AddAttribute("Interval",
                          "INTERVAL of every flow's CoDel (RFC 8290 section 5.2.1)",
                          StringValue("100ms"),
                          MakeStringAccessor(&NetcondFqCoDelQueueDisc::m_interval),
                          MakeStringChecker())
            .AddAttribute("Target",
                          "TARGET of every flow's CoDel (RFC 8290 section 5.2.2)",
                          StringValue("5ms"),
                          MakeStringAccessor(&NetcondFqCoDelQueueDisc::m_target),
                          MakeStringChecker())
            .AddAttribute("MaxSize",
                          "The packet limit of the whole queue (RFC 8290 section 5.2.3); "
                          "packets only",
                          QueueSizeValue(QueueSize("10240p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("Flows",
                          "The number of flow queues (RFC 8290 section 5.2.5), 1 to 1024 "
                          "(netcond's C queue has 1024)",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&NetcondFqCoDelQueueDisc::m_flows),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("DropBatchSize",
                          "The most packets one overflow drops from the fattest flow (which "
                          "loses packets until half its bytes are gone)",
                          UintegerValue(64),
                          MakeUintegerAccessor(&NetcondFqCoDelQueueDisc::m_dropBatchSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Perturbation",
                          "The salt of the flow hash (when there is no packet filter)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&NetcondFqCoDelQueueDisc::m_perturbation),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("CeThreshold",
                          "FqCoDelQueueDisc's CE threshold: not implemented by netcond; only "
                          "the default (Time::Max, off) is accepted",
                          TimeValue(Time::Max()),
                          MakeTimeAccessor(&NetcondFqCoDelQueueDisc::m_ceThreshold),
                          MakeTimeChecker())
            .AddAttribute("EnableSetAssociativeHash",
                          "FqCoDelQueueDisc's set-associative hash: not implemented; only "
                          "false is accepted",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NetcondFqCoDelQueueDisc::m_enableSetAssociativeHash),
                          MakeBooleanChecker())
            .AddAttribute("SetWays",
                          "The set size of the set-associative hash (unused: that hash is "
                          "not implemented)",
                          UintegerValue(8),
                          MakeUintegerAccessor(&NetcondFqCoDelQueueDisc::m_setWays),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("UseL4s",
                          "FqCoDelQueueDisc's L4S mode: not implemented by netcond; only false "
                          "is accepted",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NetcondFqCoDelQueueDisc::m_useL4s),
                          MakeBooleanChecker())
            .AddAttribute("MinBytes",
                          "Not an FqCoDelQueueDisc attribute: every flow's CoDel drops nothing "
                          "while fewer than this many bytes stay in the whole queue (Linux's "
                          "rule; ns-3's flows use their own bytes and CoDelQueueDisc's "
                          "MinBytes, 1500)",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&NetcondFqCoDelQueueDisc::m_minBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ControlLaw",
                          "Not an FqCoDelQueueDisc attribute: the flows' CoDel, as "
                          "NetcondCoDelQueueDisc's ControlLaw (Ns3, Kernel or Exact)",
                          EnumValue(NetcondCoDelQueueDisc::LAW_NS3),
                          MakeEnumAccessor(&NetcondFqCoDelQueueDisc::m_law),
                          MakeEnumChecker(NetcondCoDelQueueDisc::LAW_NS3, "Ns3",
                                          NetcondCoDelQueueDisc::LAW_KERNEL, "Kernel",
                                          NetcondCoDelQueueDisc::LAW_EXACT, "Exact"));
    return tid;
}

NetcondFqCoDelQueueDisc::NetcondFqCoDelQueueDisc()
    : NetcondQueueDisc(QueueDiscSizePolicy::MULTIPLE_QUEUES,
                       QueueSizeUnit::PACKETS,
                       "NetcondFqCoDelQueueDisc",
                       Layout::FLOW_QUEUES,
                       false),
      m_impl(std::make_unique<Impl>())
{
}

NetcondFqCoDelQueueDisc::~NetcondFqCoDelQueueDisc() = default;

void
NetcondFqCoDelQueueDisc::SetQuantum(uint32_t quantum)
{
    m_quantum = quantum;
}

uint32_t
NetcondFqCoDelQueueDisc::GetQuantum() const
{
    return m_quantum;
}

void
NetcondFqCoDelQueueDisc::CheckAttributes()
{
    RefuseL4sAndCeThreshold("FQ-CoDel", m_useL4s, m_ceThreshold);
    if (m_enableSetAssociativeHash)
    {
        Refuse("EnableSetAssociativeHash=true is not supported; leave it false (flows are the "
               "hash modulo Flows)");
    }
    CheckFlows(m_flows, NETCOND_FQ_CODEL_FLOWS);
    RequireMaxSizeUnit(QueueSizeUnit::PACKETS, "RFC 8290's limit is a packet count");
}

void
NetcondFqCoDelQueueDisc::InitializeParams()
{
    m_quantum = QuantumOrMtu(m_quantum);
    const Time target(m_target);
    const Time interval(m_interval);
    if (target.IsStrictlyNegative() || interval.IsStrictlyNegative())
    {
        Refuse("Target and Interval must not be negative");
    }
    netcond_fq_codel_params p{};
    p.codel.target_ns = uint64_t(target.GetNanoSeconds());
    p.codel.interval_ns = uint64_t(interval.GetNanoSeconds());
    p.codel.tick_hz = 1000000000u;
    p.codel.mtu = m_minBytes;
    p.codel.ecn = m_useEcn ? 1 : 0;
    p.codel.control_law = m_law == NetcondCoDelQueueDisc::LAW_EXACT ? NETCOND_CODEL_EXACT
                                                                    : NETCOND_CODEL_LINUX;
    p.codel.linux_variant =
        m_law == NetcondCoDelQueueDisc::LAW_KERNEL ? NETCOND_CODEL_KERNEL : NETCOND_CODEL_NS3;
    p.quantum = m_quantum;
    p.limit = GetMaxSize().GetValue();
    p.overflow = NETCOND_FQ_OVERFLOW_BATCH;
    p.drop_batch = m_dropBatchSize;
    std::ostringstream what;
    what << "NetcondFqCoDelQueueDisc (Target " << m_target << ", Interval " << m_interval
         << ", MaxSize " << GetMaxSize() << ", quantum " << m_quantum << ", DropBatchSize "
         << m_dropBatchSize << ")";
    netcond::CheckStatus(netcond_fq_codel_profile_config(&m_impl->profile, &p), what.str());
    netcond::CheckStatus(
        netcond_fq_codel_config(&m_impl->queue, &m_impl->profile, netcond::NowNs()),
        "NetcondFqCoDelQueueDisc: the FQ-CoDel state");
    m_queueOf.assign(m_flows, -1);
}

int64_t
NetcondFqCoDelQueueDisc::FlowOf(Ptr<const QueueDiscItem> item) const
{
    if (GetNPacketFilters() == 0)
    {
        return int64_t(item->Hash(m_perturbation) % m_flows);
    }
    // Classify is not const in ns-3; it changes nothing.
    int32_t ret = const_cast<NetcondFqCoDelQueueDisc*>(this)->Classify(
        ConstCast<QueueDiscItem>(item));
    if (ret == PacketFilter::PF_NO_MATCH)
    {
        return -1;
    }
    return int64_t(uint32_t(ret) % m_flows);
}

uint32_t
NetcondFqCoDelQueueDisc::GetFlowPackets(uint32_t flow) const
{
    netcond_fq_codel_flow f;
    if (netcond_fq_codel_flow_get(&m_impl->queue, flow, &f) != 0)
    {
        return 0;
    }
    return f.packets;
}

int
NetcondFqCoDelQueueDisc::DropHead(void* ctx, uint32_t flow, uint32_t* len)
{
    auto self = static_cast<NetcondFqCoDelQueueDisc*>(ctx);
    if (flow >= self->m_queueOf.size() || self->m_queueOf[flow] < 0)
    {
        return 0;
    }
    Ptr<QueueDiscItem> item = self->GetInternalQueue(self->m_queueOf[flow])->Dequeue();
    if (!item)
    {
        return 0;
    }
    *len = item->GetSize();
    self->DropAfterDequeue(item, OVERLIMIT_DROP);
    return 1;
}

bool
NetcondFqCoDelQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    const int64_t h = FlowOf(item);
    if (h < 0)
    {
        DropBeforeEnqueue(item, UNCLASSIFIED_DROP);
        return false;
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
    const uint32_t len = item->GetSize();
    if (!GetInternalQueue(qi)->Enqueue(item))
    {
        return false;
    }
    netcond_fq_overflow_info info;
    const int rc = netcond_fq_codel_enqueue(&m_impl->queue, &m_impl->profile, netcond::NowNs(),
                                            uint32_t(h), len, &DropHead, this, &info);
    NS_ABORT_MSG_IF(rc < 0, "NetcondFqCoDelQueueDisc: netcond_fq_codel_enqueue failed");
    if (rc == 1)
    {
        NS_LOG_LOGIC("overflow: " << info.packets << " packets dropped from flow " << info.victim);
    }
    return true;
}

Ptr<QueueDiscItem>
NetcondFqCoDelQueueDisc::DoDequeue()
{
    NS_LOG_FUNCTION(this);
    const uint64_t now = netcond::NowNs();
    for (;;)
    {
        uint32_t f = 0;
        if (netcond_fq_codel_schedule(&m_impl->queue, &m_impl->profile, now, &f) != 1)
        {
            return nullptr;
        }
        NS_ABORT_MSG_IF(f >= m_queueOf.size() || m_queueOf[f] < 0,
                        "NetcondFqCoDelQueueDisc: netcond named a flow without a queue");
        Ptr<QueueDiscItem> item = GetInternalQueue(m_queueOf[f])->Dequeue();
        NS_ABORT_MSG_IF(!item, "NetcondFqCoDelQueueDisc: netcond named an empty flow");
        const int64_t at = item->GetTimeStamp().GetNanoSeconds();
        uint8_t ds = 0;
        const int ect = netcond::GetDsField(item, ds) && (ds & 3) != 0 ? 1 : 0;
        const netcond_codel_verdict v =
            netcond_fq_codel_on_dequeue(&m_impl->queue, &m_impl->profile, now, f,
                                        at < 0 ? 0 : uint64_t(at), item->GetSize(), ect);
        if (v == NETCOND_CODEL_DROP)
        {
            DropAfterDequeue(item, TARGET_EXCEEDED_DROP);
            continue;
        }
        if (v == NETCOND_CODEL_MARK && !Mark(item, TARGET_EXCEEDED_MARK))
        {
            DropAfterDequeue(item, TARGET_EXCEEDED_DROP);
            continue;
        }
        return item;
    }
}

} // namespace ns3
