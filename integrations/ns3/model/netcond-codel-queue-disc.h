// NetcondCoDelQueueDisc: an ns-3 queue disc whose dequeue decision (deliver,
// ECN-mark, drop) is netcond's CoDel (RFC 8289), through netcond's C
// interface (include/netcond.h).
//
// A drop-in for ns3::CoDelQueueDisc: MaxSize, MinBytes, Interval, Target and
// UseEcn have CoDelQueueDisc's names, types and defaults, and the default
// control law (Linux's arithmetic with the state machine of ns-3's
// CoDelQueueDisc) decides packet for packet as CoDelQueueDisc does (see
// tests/netcond-codel-crosscheck.cc). The drop and mark reasons are
// CoDelQueueDisc's strings. CeThreshold and UseL4s, which netcond's CoDel
// does not implement, are refused unless left at their defaults (off).
// ControlLaw (not a CoDelQueueDisc attribute) selects the Linux kernel's
// state machine or RFC 8289's exact law instead.
#ifndef NETCOND_CODEL_QUEUE_DISC_H
#define NETCOND_CODEL_QUEUE_DISC_H

#include "netcond-queue-disc.h"

#include "ns3/nstime.h"

#include <memory>

namespace ns3
{

class NetcondCoDelQueueDisc : public NetcondQueueDisc
{
  public:
    static TypeId GetTypeId();
    NetcondCoDelQueueDisc();
    ~NetcondCoDelQueueDisc() override;

    /// CoDel's `count` (RFC 8289 section 5.2), as netcond keeps it.
    uint32_t GetCount() const;
    /// Whether CoDel is in its dropping state.
    bool IsDropping() const;

    // CoDelQueueDisc's reasons.
    static constexpr const char* TARGET_EXCEEDED_DROP = "Target exceeded drop"; //!< CoDel's drop
    static constexpr const char* OVERLIMIT_DROP = "Overlimit drop";             //!< MaxSize
    static constexpr const char* TARGET_EXCEEDED_MARK = "Target exceeded mark"; //!< CoDel's mark

    /// The control law and state machine (netcond's netcond_codel_law and
    /// netcond_codel_variant).
    enum Law
    {
        LAW_NS3 = 0, //!< Linux arithmetic, ns-3 CoDelQueueDisc's state machine (the default)
        LAW_KERNEL,  //!< Linux arithmetic, the Linux kernel's codel_impl.h state machine
        LAW_EXACT,   //!< RFC 8289's pseudocode, t + floor(interval / sqrt(count)) exactly
    };

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    void CheckAttributes() override;
    void InitializeParams() override;

    struct Impl;
    std::unique_ptr<Impl> m_impl;

    uint32_t m_minBytes;
    Time m_interval;
    Time m_target;
    bool m_useEcn;
    Time m_ceThreshold;
    bool m_useL4s;
    Law m_law;
};

} // namespace ns3

#endif
