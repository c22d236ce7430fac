#include "netcond-queue-disc.h"

#include "netcond-ns3-util.h"

#include "ns3/drop-tail-queue.h"
#include "ns3/log.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/net-device.h"
#include "ns3/object-factory.h"

#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NetcondQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(NetcondQueueDisc);

TypeId
NetcondQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NetcondQueueDisc").SetParent<QueueDisc>().SetGroupName("TrafficControl");
    return tid;
}

NetcondQueueDisc::NetcondQueueDisc(QueueDiscSizePolicy policy,
                                   const std::string& name,
                                   Layout layout,
                                   bool draws)
    : QueueDisc(policy),
      m_name(name),
      m_layout(layout),
      m_draws(draws),
      m_uv(CreateObject<UniformRandomVariable>())
{
}

NetcondQueueDisc::NetcondQueueDisc(QueueDiscSizePolicy policy,
                                   QueueSizeUnit unit,
                                   const std::string& name,
                                   Layout layout,
                                   bool draws)
    : QueueDisc(policy, unit),
      m_name(name),
      m_layout(layout),
      m_draws(draws),
      m_uv(CreateObject<UniformRandomVariable>())
{
}

NetcondQueueDisc::~NetcondQueueDisc() = default;

void
NetcondQueueDisc::DoDispose()
{
    m_uv = nullptr;
    m_update.Cancel();
    QueueDisc::DoDispose();
}

int64_t
NetcondQueueDisc::AssignStreams(int64_t stream)
{
    m_uv->SetStream(stream);
    return m_draws ? 1 : 0;
}

void
NetcondQueueDisc::CheckAttributes()
{
}

const std::string&
NetcondQueueDisc::Name() const
{
    return m_name;
}

void
NetcondQueueDisc::Refuse(const std::string& what) const
{
    netcond::Refuse(m_name + ": " + what);
}

void
NetcondQueueDisc::RefuseL4sAndCeThreshold(const std::string& algorithm,
                                          bool useL4s,
                                          Time ceThreshold) const
{
    if (useL4s)
    {
        Refuse("UseL4s=true is not supported (netcond's " + algorithm +
               " has no L4S mode); leave it false");
    }
    if (ceThreshold != Time::Max())
    {
        std::ostringstream os;
        os << "CeThreshold = " << ceThreshold.As(Time::MS) << " is not supported (netcond's "
           << algorithm << " has no CE threshold); leave it at its default, Time::Max (off)";
        Refuse(os.str());
    }
}

void
NetcondQueueDisc::RefusePieVariants(const std::string& algorithm,
                                    bool useDqRateEstimator,
                                    bool capDropAdjustment,
                                    bool derandomization) const
{
    auto refuse = [&](const std::string& what) {
        Refuse(what + " is not supported by netcond's " + algorithm);
    };
    if (useDqRateEstimator)
    {
        refuse("UseDequeueRateEstimator=true (the delay comes from timestamps)");
    }
    if (!capDropAdjustment)
    {
        refuse("UseCapDropAdjustment=false (the cap is always on)");
    }
    if (!derandomization)
    {
        refuse("UseDerandomization=false (it always derandomizes, as Linux)");
    }
}

void
NetcondQueueDisc::RequireMaxSizeUnit(QueueSizeUnit unit, const std::string& why) const
{
    if (GetMaxSize().GetUnit() != unit)
    {
        Refuse(std::string("MaxSize must be in ") +
               (unit == QueueSizeUnit::PACKETS ? "packets" : "bytes") + " (" + why + ")");
    }
}

void
NetcondQueueDisc::CheckFlows(uint32_t flows, uint32_t most) const
{
    if (flows == 0 || flows > most)
    {
        std::ostringstream os;
        os << "Flows = " << flows << " is outside 1.." << most << " (netcond's C queue has "
           << most << " flow queues)";
        Refuse(os.str());
    }
}

uint32_t
NetcondQueueDisc::QuantumOrMtu(uint32_t quantum) const
{
    if (quantum == 0)
    {
        Ptr<NetDeviceQueueInterface> ndqi = GetNetDeviceQueueInterface();
        Ptr<NetDevice> dev = ndqi ? ndqi->GetObject<NetDevice>() : nullptr;
        if (dev)
        {
            quantum = dev->GetMtu();
        }
        if (quantum == 0)
        {
            Refuse("no quantum (call SetQuantum, or attach the disc to a device, whose MTU is "
                   "then the quantum)");
        }
    }
    return quantum;
}

uint64_t
NetcondQueueDisc::NonNegativeNs(Time t, const std::string& attribute) const
{
    if (t.IsStrictlyNegative())
    {
        Refuse(attribute + " is negative");
    }
    return uint64_t(t.GetNanoSeconds());
}

uint32_t
NetcondQueueDisc::Whole(double v, double scale, const std::string& attribute, const char* unit) const
{
    const double s = v * scale;
    if (!(s >= 0) || s > 4294967295.0 || std::fabs(s - std::round(s)) > 1e-9 * scale)
    {
        std::ostringstream os;
        os << attribute << " = " << v << " is not a whole number of " << unit
           << " (netcond's units)";
        Refuse(os.str());
    }
    return uint32_t(std::llround(s));
}

uint32_t
NetcondQueueDisc::Draw32()
{
    return m_uv->GetInteger(0, 0xffffffffu);
}

uint64_t
NetcondQueueDisc::Draw64()
{
    // Two uniform 32-bit values from ns-3's generator, so that
    // RngSeedManager's seed and run, and AssignStreams, decide the draws.
    const uint64_t hi = Draw32();
    const uint64_t lo = Draw32();
    return hi << 32 | lo;
}

bool
NetcondQueueDisc::CheckConfig()
{
    CheckAttributes();
    switch (m_layout)
    {
    case Layout::SINGLE_FIFO:
        if (GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0)
        {
            NS_LOG_ERROR(m_name << " takes no classes and no packet filters");
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
            NS_LOG_ERROR(m_name << " needs exactly one internal queue");
            return false;
        }
        return true;
    case Layout::FLOW_QUEUES:
        if (GetNQueueDiscClasses() > 0)
        {
            NS_LOG_ERROR(m_name << " takes no classes");
            return false;
        }
        if (GetNInternalQueues() > 0)
        {
            NS_LOG_ERROR(m_name << " makes its own internal queues");
            return false;
        }
        return true;
    case Layout::TWO_FIFOS:
        if (GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0)
        {
            NS_LOG_ERROR(m_name << " takes no classes and no packet filters");
            return false;
        }
        if (GetNInternalQueues() > 0)
        {
            NS_LOG_ERROR(m_name << " makes its own two internal queues");
            return false;
        }
        for (int i = 0; i < 2; i++)
        {
            AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
                "MaxSize",
                QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, 0xffffffffu))));
        }
        return true;
    }
    return false;
}

} // namespace ns3
