// NetcondRedQueueDisc: an ns-3 queue disc whose enqueue decision (accept,
// ECN-mark, drop) is netcond's RED (Floyd and Jacobson 1993, RFC 2309,
// RFC 3168 for ECN), through netcond's C interface (include/netcond.h).
//
// A drop-in for ns3::RedQueueDisc in a TrafficControlHelper: the attributes
// that mean the same thing have the same names (MinTh, MaxTh, QW, MaxSize,
// Gentle, UseEcn, UseHardDrop, MeanPktSize, LinkBandwidth) and the drop and
// mark reasons are RedQueueDisc's strings. max_p is given as MaxP, or as
// RedQueueDisc's LInterm = 1 / max_p.
#ifndef NETCOND_RED_QUEUE_DISC_H
#define NETCOND_RED_QUEUE_DISC_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/queue-disc.h"
#include "ns3/random-variable-stream.h"

#include <memory>

namespace ns3
{

class NetcondRedQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    NetcondRedQueueDisc();
    ~NetcondRedQueueDisc() override;

    /// Assigns the stream of the random variable that feeds RED's draws.
    int64_t AssignStreams(int64_t stream);

    /// RED's average queue length (packets or bytes, as MaxSize), as netcond keeps it.
    double GetAverage() const;

    // Drop and mark reasons. The first four are ns3::RedQueueDisc's strings,
    // so that scripts counting RedQueueDisc's statistics count these too.
    static constexpr const char* UNFORCED_DROP = "Unforced drop"; //!< early drop
    static constexpr const char* FORCED_DROP = "Forced drop";     //!< average >= max_th (2 max_th gentle) or hard-drop threshold
    static constexpr const char* UNFORCED_MARK = "Unforced mark"; //!< early ECN mark
    static constexpr const char* FORCED_MARK = "Forced mark";     //!< ECN mark above max_th (UseHardDrop false)
    static constexpr const char* OVERFLOW_DROP = "Buffer full";   //!< the packet does not fit MaxSize

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
    };

  protected:
    void DoDispose() override;

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    Ptr<const QueueDiscItem> DoPeek() override;
    bool CheckConfig() override;
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
    Ptr<UniformRandomVariable> m_uv;
    double m_forcedFrom = 0; //!< the average from which RED's drops are forced
};

} // namespace ns3

#endif
