#include "netcond-ns3-util.h"

#include "netcond.h"

#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/ipv6-queue-disc-item.h"
#include "ns3/simulator.h"

namespace ns3
{

namespace netcond
{

void
CheckStatus(int code, const std::string& what)
{
    if (code != 0)
    {
        NS_FATAL_ERROR(what << ": netcond refused the configuration: " << netcond_strerror(code)
                            << " (status " << code << ")");
    }
}

void
Refuse(const std::string& what)
{
    NS_FATAL_ERROR(what);
}

bool
GetDsField(Ptr<const QueueDiscItem> item, uint8_t& ds)
{
    return item->GetUint8Value(QueueItem::IP_DSFIELD, ds);
}

// The queue disc items keep their IP header by value and write it into the
// packet only when the device dequeues it (AddHeader). ns-3 3.37 offers no
// setter for the DSCP of a queued item (only Mark() for CE), so these two
// functions write the item's own, non-const header object through the const
// reference that GetHeader() returns. The object is not const, so the write
// is well defined; the checksum is computed at serialization.
bool
SetDscp(Ptr<QueueDiscItem> item, uint8_t dscp)
{
    if (auto v4 = DynamicCast<Ipv4QueueDiscItem>(item))
    {
        const_cast<Ipv4Header&>(v4->GetHeader()).SetDscp(Ipv4Header::DscpType(dscp & 0x3f));
        return true;
    }
    if (auto v6 = DynamicCast<Ipv6QueueDiscItem>(item))
    {
        auto& h = const_cast<Ipv6Header&>(v6->GetHeader());
        h.SetTrafficClass(uint8_t((dscp & 0x3f) << 2) | (h.GetTrafficClass() & 0x3));
        return true;
    }
    return false;
}

bool
SetEcnBits(Ptr<QueueDiscItem> item, uint8_t ecn)
{
    if (auto v4 = DynamicCast<Ipv4QueueDiscItem>(item))
    {
        const_cast<Ipv4Header&>(v4->GetHeader()).SetEcn(Ipv4Header::EcnType(ecn & 0x3));
        return true;
    }
    if (auto v6 = DynamicCast<Ipv6QueueDiscItem>(item))
    {
        auto& h = const_cast<Ipv6Header&>(v6->GetHeader());
        h.SetTrafficClass(uint8_t(h.GetTrafficClass() & 0xfc) | (ecn & 0x3));
        return true;
    }
    return false;
}

uint64_t
NowNs()
{
    int64_t ns = Simulator::Now().GetNanoSeconds();
    return ns < 0 ? 0 : uint64_t(ns);
}

} // namespace netcond
} // namespace ns3
