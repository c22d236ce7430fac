// NetcondRedQueueDisc: an ns-3 queue disc whose enqueue decision (accept,
// ECN-mark, drop) is netcond's RED (Floyd and Jacobson 1993, RFC 2309,
// RFC 3168 for ECN), through netcond's C interface (include/netcond.h).
//
// A drop-in for ns3::RedQueueDisc in a TrafficControlHelper: the attributes
// that mean the same thing have the same names and defaults (MinTh, MaxTh,
// LInterm, QW, MaxSize, Gentle, Wait, UseEcn, UseHardDrop, MeanPktSize,
// LinkBandwidth), the defaults decide as RedQueueDisc's do (its Wait=true law
// and its rule of no drop at a queue of at most one packet), and the drop and
// mark reasons are RedQueueDisc's strings. Fj93=true gives Floyd and
// Jacobson's algorithm as published instead.
#ifndef NETCOND_RED_QUEUE_DISC_H
#define NETCOND_RED_QUEUE_DISC_H

#include "netcond-queue-disc.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <memory>

namespace ns3
{

class NetcondRedQueueDisc : public NetcondQueueDisc
{
  public:
    static TypeId GetTypeId();
    NetcondRedQueueDisc();
    ~NetcondRedQueueDisc() override;

    /// RED's average queue length (packets or bytes, as MaxSize), as netcond keeps it.
    double GetAverage() const;

    // Drop and mark reasons: ns3::RedQueueDisc's strings, so that scripts
    // counting RedQueueDisc's statistics count these too. A packet that RED
    // accepts and that does not fit MaxSize is dropped by the internal queue,
    // as QueueDisc::INTERNAL_QUEUE_DROP ("Dropped by internal queue"), as
    // with RedQueueDisc.
    static constexpr const char* UNFORCED_DROP = "Unforced drop"; //!< early drop
    static constexpr const char* FORCED_DROP = "Forced drop";     //!< average >= max_th (2 max_th gentle) or hard-drop threshold
    static constexpr const char* UNFORCED_MARK = "Unforced mark"; //!< early ECN mark
    static constexpr const char* FORCED_MARK = "Forced mark";     //!< ECN mark above max_th (UseHardDrop false)

    /// How drops are spread over the packets since the last one (netcond's
    /// Spreading, in its declaration order).
    enum Spreading
    {
        SPREAD_ACCUMULATED = 0,   //!< FJ93, one draw per drop (netcond's default)
        SPREAD_ACCUMULATED_DPDK,  //!< DPDK's p_b / (2 - count p_b), one draw per drop
        SPREAD_UNIFORM,           //!< FJ93 section 7: p_b / (1 - count p_b), one draw per packet
        SPREAD_UNIFORM_COUNT_FIRST, //!< FJ93 figure 2 literally (count incremented first): ns-2 and ns-3 with Wait=false
        SPREAD_DPDK,              //!< p_b / (2 - count p_b), one draw per packet
        SPREAD_GEOMETRIC,         //!< no spreading: p_a = p_b
        SPREAD_WAIT,              //!< RedQueueDisc with Wait=true (the default): no drop while count p_b < 1, then p_b / (2 - count p_b)
    };

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    Ptr<const QueueDiscItem> DoPeek() override;
    void InitializeParams() override;

    struct Impl;
    std::unique_ptr<Impl> m_impl;

    // Attributes.
    double m_minTh;
    double m_maxTh;
    double m_maxP;
    double m_lInterm;
    double m_qW;
    bool m_gentle;
    bool m_byteMode;
    uint32_t m_maxPktSize;
    bool m_useEcn;
    bool m_useHardDrop;
    double m_ecnDropTh;
    uint32_t m_meanPktSize;
    DataRate m_linkBandwidth;
    Time m_idleTxTime;
    Spreading m_spreading;
    uint32_t m_smallQueueGuard;
    bool m_wait;
    bool m_fj93;
    Spreading m_law = SPREAD_WAIT; //!< the spreading in force (from Spreading, Wait and Fj93)
    uint32_t m_guard = 1;          //!< the small-queue guard in force
    double m_forcedFrom = 0; //!< the average from which RED's drops are forced
};

} // namespace ns3

#endif
