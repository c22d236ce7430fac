// Shared helpers of the netcond queue discs (besides their base class,
// NetcondQueueDisc): reporting a refused netcond configuration through
// NS_FATAL_ERROR, and reading and writing the DS field
// (DSCP and ECN) of the IPv4 or IPv6 header that a QueueDiscItem carries.
#ifndef NETCOND_NS3_UTIL_H
#define NETCOND_NS3_UTIL_H

#include "ns3/nstime.h"
#include "ns3/queue-item.h"

#include <cstdint>
#include <string>

namespace ns3
{
namespace netcond
{

/// Aborts the simulation with NS_FATAL_ERROR: `what` (the queue disc and the
/// attributes at fault), netcond's message for status `code`
/// (netcond_strerror), and the code. Returns only if `code` is 0.
void CheckStatus(int code, const std::string& what);

/// Aborts with NS_FATAL_ERROR: `what`, for attribute values that netcond's C
/// interface cannot even express (a negative threshold, a NaN probability).
[[noreturn]] void Refuse(const std::string& what);

/// The DS field (DSCP << 2 | ECN) of the item's IP header; false for an item
/// that carries no IPv4 or IPv6 header.
bool GetDsField(Ptr<const QueueDiscItem> item, uint8_t& ds);

/// Sets the DSCP (6 bits) of the item's IP header, keeping the ECN field.
/// False for an item without an IPv4 or IPv6 header.
bool SetDscp(Ptr<QueueDiscItem> item, uint8_t dscp);

/// Sets the ECN field (2 bits) of the item's IP header, keeping the DSCP.
/// False for an item without an IPv4 or IPv6 header.
bool SetEcnBits(Ptr<QueueDiscItem> item, uint8_t ecn);

/// Nanoseconds since the start of the simulation (Simulator::Now()), the
/// clock of every netcond call made by these queue discs (tick_hz = 10^9).
uint64_t NowNs();

} // namespace netcond
} // namespace ns3

#endif
