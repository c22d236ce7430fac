// NetcondFqPieQueueDisc: an ns-3 queue disc that is netcond's FQ-PIE (Linux
// sch_fq_pie: deficit round robin over flow queues as RFC 8290, a PIE of
// RFC 8033 on each flow, with Linux's integers), through netcond's C
// interface (include/netcond.h). netcond keeps the scheduler and every
// flow's PIE; the packets wait in one ns-3 DropTail queue per flow, created
// when the flow first sees a packet.
//
// FqPieQueueDisc's attributes, names and defaults, where netcond has the
// parameter; packets are classified as FqPieQueueDisc does (the packet
// filters if any, else the item's hash salted with Perturbation, modulo
// Flows); the quantum is set with SetQuantum or, by default, is the device's
// MTU. Where it follows Linux rather than FqPieQueueDisc (see README.md):
// one update timer for every flow (ns-3: one per flow, started when the flow
// is created), the PIE always derandomizing (UseDerandomization true by
// default here, false refused), and an arrival to a full queue (MaxSize
// packets over all flows) dropped itself (ns-3: the fattest flow loses up to
// DropBatchSize packets from its head).
#ifndef NETCOND_FQ_PIE_QUEUE_DISC_H
#define NETCOND_FQ_PIE_QUEUE_DISC_H

#include "netcond-queue-disc.h"

#include "ns3/nstime.h"

#include <memory>
#include <vector>

namespace ns3
{

class NetcondFqPieQueueDisc : public NetcondQueueDisc
{
  public:
    static TypeId GetTypeId();
    NetcondFqPieQueueDisc();
    ~NetcondFqPieQueueDisc() override;

    /// The DRR quantum in bytes (0, the default: the device's MTU).
    void SetQuantum(uint32_t quantum);
    uint32_t GetQuantum() const;

    /// The flow queue (0 .. Flows - 1) that `item` is classified into, or -1
    /// if no packet filter matches it.
    int64_t FlowOf(Ptr<const QueueDiscItem> item) const;

    /// Packets queued in flow `flow`.
    uint32_t GetFlowPackets(uint32_t flow) const;
    /// The drop probability of flow `flow`'s PIE (0 to 1).
    double GetFlowDropProbability(uint32_t flow) const;

    static constexpr const char* UNCLASSIFIED_DROP = "Unclassified drop"; //!< no filter matched
    static constexpr const char* OVERLIMIT_DROP = "Overlimit drop"; //!< MaxSize packets queued
    static constexpr const char* UNFORCED_DROP = "Unforced drop";   //!< a flow's PIE
    static constexpr const char* UNFORCED_MARK = "Unforced mark";   //!< a flow's PIE

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    void CheckAttributes() override;
    void InitializeParams() override;

    /// The timer: every flow's update when due, then again one Tupdate later.
    void Update();

    struct Impl;
    std::unique_ptr<Impl> m_impl;
    std::vector<int32_t> m_queueOf; //!< flow -> internal queue index, -1 before its first packet

    bool m_useEcn;
    double m_markEcnTh;
    Time m_ceThreshold;
    bool m_useL4s;
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
    bool m_useDerandomization;
    uint32_t m_quantum = 0;
    uint32_t m_flows;
    uint32_t m_dropBatchSize;
    uint32_t m_perturbation;
    bool m_enableSetAssociativeHash;
    uint32_t m_setWays;
};

} // namespace ns3

#endif
