#include "netcond-codel-queue-disc.h"

#include "netcond-ns3-util.h"
#include "netcond.h"

#include "ns3/boolean.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NetcondCoDelQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(NetcondCoDelQueueDisc);

struct NetcondCoDelQueueDisc::Impl
{
    netcond_codel_profile profile;
    netcond_codel state;
};

TypeId
NetcondCoDelQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NetcondCoDelQueueDisc")
            .SetParent<NetcondQueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<NetcondCoDelQueueDisc>()
            .AddAttribute("UseEcn",
                          "ECN (RFC 3168): mark ECN-capable packets CE instead of dropping them",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NetcondCoDelQueueDisc::m_useEcn),
                          MakeBooleanChecker())
            .AddAttribute("UseL4s",
                          "CoDelQueueDisc's L4S mode: not implemented by netcond; only false "
                          "is accepted",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NetcondCoDelQueueDisc::m_useL4s),
                          MakeBooleanChecker())
            .AddAttribute("MaxSize",
                          "The buffer, packets or bytes: an arrival that does not fit is "
                          "dropped (\"Overlimit drop\")",
                          QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, 1500 * 1000)),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("MinBytes",
                          "MAXPACKET (RFC 8289 section 5.3): no drop while fewer than this "
                          "many bytes stay queued behind the head (ns-3's rule; ControlLaw "
                          "Kernel: at most this many)",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&NetcondCoDelQueueDisc::m_minBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Interval",
                          "INTERVAL (RFC 8289 section 4.2)",
                          StringValue("100ms"),
                          MakeTimeAccessor(&NetcondCoDelQueueDisc::m_interval),
                          MakeTimeChecker())
            .AddAttribute("Target",
                          "TARGET (RFC 8289 section 4.3), below Interval",
                          StringValue("5ms"),
                          MakeTimeAccessor(&NetcondCoDelQueueDisc::m_target),
                          MakeTimeChecker())
            .AddAttribute("CeThreshold",
                          "CoDelQueueDisc's CE threshold: not implemented by netcond; only "
                          "the default (Time::Max, off) is accepted",
                          TimeValue(Time::Max()),
                          MakeTimeAccessor(&NetcondCoDelQueueDisc::m_ceThreshold),
                          MakeTimeChecker())
            .AddAttribute("ControlLaw",
                          "Not a CoDelQueueDisc attribute: Ns3 (the default; Linux's "
                          "arithmetic with CoDelQueueDisc's state machine, its decisions "
                          "packet for packet), Kernel (Linux's codel_impl.h) or Exact "
                          "(RFC 8289's pseudocode, t + floor(interval / sqrt(count)))",
                          EnumValue(LAW_NS3),
                          MakeEnumAccessor(&NetcondCoDelQueueDisc::m_law),
                          MakeEnumChecker(LAW_NS3, "Ns3", LAW_KERNEL, "Kernel", LAW_EXACT, "Exact"));
    return tid;
}

NetcondCoDelQueueDisc::NetcondCoDelQueueDisc()
    : NetcondQueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE,
                       "NetcondCoDelQueueDisc",
                       Layout::SINGLE_FIFO,
                       false),
      m_impl(std::make_unique<Impl>())
{
}

NetcondCoDelQueueDisc::~NetcondCoDelQueueDisc() = default;

void
NetcondCoDelQueueDisc::CheckAttributes()
{
    RefuseL4sAndCeThreshold("CoDel", m_useL4s, m_ceThreshold);
}

void
NetcondCoDelQueueDisc::InitializeParams()
{
    if (m_target.IsStrictlyNegative() || m_interval.IsStrictlyNegative())
    {
        Refuse("Target and Interval must not be negative");
    }
    netcond_codel_params p{};
    p.target_ns = uint64_t(m_target.GetNanoSeconds());
    p.interval_ns = uint64_t(m_interval.GetNanoSeconds());
    p.tick_hz = 1000000000u;
    p.mtu = m_minBytes;
    p.ecn = m_useEcn ? 1 : 0;
    p.control_law = m_law == LAW_EXACT ? NETCOND_CODEL_EXACT : NETCOND_CODEL_LINUX;
    p.linux_variant = m_law == LAW_KERNEL ? NETCOND_CODEL_KERNEL : NETCOND_CODEL_NS3;
    std::ostringstream what;
    what << "NetcondCoDelQueueDisc (Target " << m_target.As(Time::MS) << ", Interval "
         << m_interval.As(Time::MS) << ", MinBytes " << m_minBytes << ")";
    netcond::CheckStatus(netcond_codel_profile_config(&m_impl->profile, &p), what.str());
    netcond::CheckStatus(netcond_codel_config(&m_impl->state, &m_impl->profile, netcond::NowNs()),
                         "NetcondCoDelQueueDisc: the CoDel state");
}

uint32_t
NetcondCoDelQueueDisc::GetCount() const
{
    return netcond_codel_count(&m_impl->state);
}

bool
NetcondCoDelQueueDisc::IsDropping() const
{
    return netcond_codel_dropping(&m_impl->state) == 1;
}

bool
NetcondCoDelQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    if (GetCurrentSize() + item > GetMaxSize())
    {
        DropBeforeEnqueue(item, OVERLIMIT_DROP);
        return false;
    }
    return GetInternalQueue(0)->Enqueue(item);
}

Ptr<QueueDiscItem>
NetcondCoDelQueueDisc::DoDequeue()
{
    NS_LOG_FUNCTION(this);
    Ptr<QueueDisc::InternalQueue> q = GetInternalQueue(0);
    const uint64_t now = netcond::NowNs();
    // RFC 8289's dequeue loop: after a drop, the next head is judged at the
    // same instant.
    for (;;)
    {
        Ptr<QueueDiscItem> item = q->Dequeue();
        if (!item)
        {
            netcond_codel_queue_empty(&m_impl->state, &m_impl->profile, now);
            return nullptr;
        }
        const int64_t at = item->GetTimeStamp().GetNanoSeconds();
        uint8_t ds = 0;
        const int ect = netcond::GetDsField(item, ds) && (ds & 3) != 0 ? 1 : 0;
        const netcond_codel_verdict v =
            netcond_codel_on_dequeue(&m_impl->state, &m_impl->profile, now,
                                     at < 0 ? 0 : uint64_t(at), item->GetSize(), ect,
                                     q->GetNBytes());
        if (v == NETCOND_CODEL_DROP)
        {
            DropAfterDequeue(item, TARGET_EXCEEDED_DROP);
            continue;
        }
        if (v == NETCOND_CODEL_MARK && !Mark(item, TARGET_EXCEEDED_MARK))
        {
            // netcond marks only what is ECN-capable, so Mark() succeeds; an
            // item that cannot carry CE is dropped, as CoDelQueueDisc does.
            DropAfterDequeue(item, TARGET_EXCEEDED_DROP);
            continue;
        }
        return item;
    }
}

} // namespace ns3
