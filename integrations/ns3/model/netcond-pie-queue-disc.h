// NetcondPieQueueDisc: an ns-3 queue disc whose enqueue decision (accept,
// ECN-mark, drop) is netcond's PIE (RFC 8033, in the integer arithmetic of
// Linux's sch_pie), through netcond's C interface (include/netcond.h).
//
// PieQueueDisc's attribute names, types and defaults where netcond's PIE has
// the parameter: MeanPktSize (netcond's MTU: no early drop below two of them
// queued; byte mode's scale), A and B (whole sixteenths, at most 2), Tupdate,
// Supdate (the first update timer, then every Tupdate), MaxSize (packets or
// bytes), QueueDelayReference, MaxBurstAllowance, UseEcn, DequeueThreshold
// (accepted, unused: it belongs to the rate estimator). The drop and mark
// reasons are PieQueueDisc's strings. Refused unless at the value netcond
// implements: UseDequeueRateEstimator (false), UseCapDropAdjustment (true),
// MarkEcnThreshold (0.1), UseDerandomization (true: netcond, as Linux,
// always derandomizes, so this disc's default is true where PieQueueDisc's
// is false), ActiveThreshold (Time::Max), CeThreshold (Time::Max), UseL4s
// (false). BoundProb (not a PieQueueDisc attribute) keeps the probability
// at most one after each update, as RFC 8033 and PieQueueDisc do (the
// default); false lets it grow past one as Linux does.
#ifndef NETCOND_PIE_QUEUE_DISC_H
#define NETCOND_PIE_QUEUE_DISC_H

#include "netcond-queue-disc.h"

#include "ns3/nstime.h"

#include <memory>

namespace ns3
{

class NetcondPieQueueDisc : public NetcondQueueDisc
{
  public:
    static TypeId GetTypeId();
    NetcondPieQueueDisc();
    ~NetcondPieQueueDisc() override;

    /// The drop probability (netcond's, in [0, 1] with BoundProb).
    double GetDropProbability() const;
    /// The queue delay estimate.
    Time GetQueueDelay() const;

    static constexpr const char* UNFORCED_DROP = "Unforced drop"; //!< early drop
    static constexpr const char* FORCED_DROP = "Forced drop";     //!< MaxSize
    static constexpr const char* UNFORCED_MARK = "Unforced mark"; //!< early ECN mark

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    void CheckAttributes() override;
    void InitializeParams() override;
    void Update();

    struct Impl;
    std::unique_ptr<Impl> m_impl;

    uint32_t m_meanPktSize;
    double m_a;
    double m_b;
    Time m_tUpdate;
    Time m_sUpdate;
    uint32_t m_dqThreshold;
    Time m_qDelayRef;
    Time m_maxBurst;
    bool m_useDqRateEstimator;
    bool m_isCapDropAdjustment;
    bool m_useEcn;
    double m_markEcnTh;
    bool m_useDerandomization;
    Time m_activeThreshold;
    Time m_ceThreshold;
    bool m_useL4s;
    bool m_boundProb;
};

} // namespace ns3

#endif
