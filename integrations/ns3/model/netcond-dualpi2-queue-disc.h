// NetcondDualPi2QueueDisc: an ns-3 queue disc that is netcond's DualPI2
// (RFC 9332, the DualQ Coupled AQM with a PI2 base controller), through
// netcond's C interface (include/netcond.h). Two internal DropTail queues,
// L4S (index 0) and Classic (index 1), hold the packets; netcond classifies
// each arrival by its ECN field (ECT(1) and CE to the L4S queue, Not-ECT and
// ECT(0) to the Classic queue; an item without an IP header counts as
// Not-ECT), refuses it when the shared buffer cannot take one more MTU,
// names the queue to serve, decides deliver, CE mark or drop for the head
// it takes, and runs the PI update every Tupdate.
//
// ns-3.37 has no DualPI2 of its own; the attributes carry RFC 9332 Appendix
// A's names and defaults (Linux's sch_dualpi2 names in the help texts).
#ifndef NETCOND_DUALPI2_QUEUE_DISC_H
#define NETCOND_DUALPI2_QUEUE_DISC_H

#include "netcond-queue-disc.h"

#include "ns3/nstime.h"

#include <memory>

namespace ns3
{

class NetcondDualPi2QueueDisc : public NetcondQueueDisc
{
  public:
    /// The scheduler between the two queues (RFC 9332 section 4.1).
    enum Scheduler
    {
        TIME_SHIFTED, //!< time-shifted FIFO (Tshift)
        WRR,          //!< weighted round robin in packets (WrrL4s, WrrClassic)
    };

    /// How a probability becomes a decision.
    enum Decision
    {
        RECUR,            //!< RFC 9332 Appendix A.2's deterministic recur()
        RANDOM_TWO_DRAWS, //!< random; Classic as max(u1, u2) < p'
        RANDOM_ONE_DRAW,  //!< random; Classic as u < p'^2
    };

    static TypeId GetTypeId();
    NetcondDualPi2QueueDisc();
    ~NetcondDualPi2QueueDisc() override;

    /// The base probability p' (0 to 1).
    double GetBaseProbability() const;
    /// The coupled L4S probability p_CL = min(k p', 1).
    double GetCoupledProbability() const;
    /// The Classic probability p_C = p'^2.
    double GetClassicProbability() const;

    static constexpr uint32_t L4S = 0;     //!< internal queue index of the L4S queue
    static constexpr uint32_t CLASSIC = 1; //!< internal queue index of the Classic queue

    static constexpr const char* FORCED_DROP = "Forced drop"; //!< shared buffer full
    static constexpr const char* UNFORCED_CLASSIC_DROP = "Unforced drop in classic queue";
    static constexpr const char* UNFORCED_CLASSIC_MARK = "Unforced mark in classic queue";
    static constexpr const char* UNFORCED_L4S_MARK = "Unforced mark in L4S queue";
    static constexpr const char* UNFORCED_L4S_DROP =
        "Unforced drop in L4S queue (overload)"; //!< p_CL saturated

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    void CheckAttributes() override;
    void InitializeParams() override;

    /// Polls netcond's PI update with the two heads' enqueue times.
    void Poll();
    /// The timer: Poll, then again one Tupdate later.
    void Update();

    struct Impl;
    std::unique_ptr<Impl> m_impl;

    Time m_target;
    Time m_tUpdate;
    double m_alpha;
    double m_beta;
    double m_k;
    Time m_minTh;
    Time m_range;
    uint32_t m_thLen;
    uint32_t m_mtu;
    bool m_curqMax;
    Scheduler m_scheduler;
    Time m_tshift;
    uint16_t m_wrrL4s;
    uint16_t m_wrrClassic;
    Decision m_decision;
};

} // namespace ns3

#endif
