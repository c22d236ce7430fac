// NetcondFqCoDelQueueDisc: an ns-3 queue disc that is netcond's FQ-CoDel
// (RFC 8290: deficit round robin over flow queues, CoDel on each), through
// netcond's C interface (include/netcond.h). netcond keeps the scheduler and
// every flow's CoDel; the packets wait in one ns-3 DropTail queue per flow,
// created when the flow first sees a packet.
//
// A drop-in for ns3::FqCoDelQueueDisc: UseEcn, Interval, Target, MaxSize,
// Flows, DropBatchSize and Perturbation have FqCoDelQueueDisc's names, types
// and defaults; packets are classified as FqCoDelQueueDisc does (the packet
// filters if any, else the item's hash salted with Perturbation, modulo
// Flows); the quantum is set with SetQuantum or, by default, is the
// device's MTU. CeThreshold, UseL4s and EnableSetAssociativeHash, which
// netcond does not implement, are refused unless left at their defaults.
//
// Where netcond's FQ-CoDel follows Linux's sch_fq_codel rather than
// FqCoDelQueueDisc (see README.md): each flow's CoDel compares MinBytes with
// the bytes of the whole queue (ns-3: of its own flow), an emptied new flow
// leaves both lists when there are no old flows (ns-3: it joins the old
// flows), the packets an overflow drops count in the victim's CoDel count
// with the Linux control law, and one flow may hold all MaxSize packets.
#ifndef NETCOND_FQ_CODEL_QUEUE_DISC_H
#define NETCOND_FQ_CODEL_QUEUE_DISC_H

#include "netcond-codel-queue-disc.h"
#include "netcond-queue-disc.h"

#include "ns3/nstime.h"
#include "ns3/queue-disc.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class NetcondFqCoDelQueueDisc : public NetcondQueueDisc
{
  public:
    static TypeId GetTypeId();
    NetcondFqCoDelQueueDisc();
    ~NetcondFqCoDelQueueDisc() override;

    /// The DRR quantum in bytes (0, the default: the device's MTU).
    void SetQuantum(uint32_t quantum);
    uint32_t GetQuantum() const;

    /// The flow queue (0 .. Flows - 1) that `item` is classified into, or -1
    /// if no packet filter matches it.
    int64_t FlowOf(Ptr<const QueueDiscItem> item) const;

    /// Packets queued in flow `flow`.
    uint32_t GetFlowPackets(uint32_t flow) const;

    static constexpr const char* UNCLASSIFIED_DROP = "Unclassified drop"; //!< no filter matched
    static constexpr const char* OVERLIMIT_DROP = "Overlimit drop";       //!< over MaxSize: fattest flow's head
    static constexpr const char* TARGET_EXCEEDED_DROP = "Target exceeded drop"; //!< a flow's CoDel
    static constexpr const char* TARGET_EXCEEDED_MARK = "Target exceeded mark"; //!< a flow's CoDel

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    void CheckAttributes() override;
    void InitializeParams() override;

    static int DropHead(void* ctx, uint32_t flow, uint32_t* len);

    struct Impl;
    std::unique_ptr<Impl> m_impl;
    std::vector<int32_t> m_queueOf; //!< flow -> internal queue index, -1 before its first packet

    bool m_useEcn;
    std::string m_interval;
    std::string m_target;
    uint32_t m_quantum = 0;
    uint32_t m_flows;
    uint32_t m_dropBatchSize;
    uint32_t m_perturbation;
    Time m_ceThreshold;
    bool m_enableSetAssociativeHash;
    uint32_t m_setWays;
    bool m_useL4s;
    uint32_t m_minBytes;
    NetcondCoDelQueueDisc::Law m_law;
};

} // namespace ns3

#endif
