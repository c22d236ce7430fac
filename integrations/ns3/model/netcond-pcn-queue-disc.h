// NetcondPcnQueueDisc: the PCN interior node (RFC 5559) on a link. Every
// packet with a PCN-compatible DSCP is metered by netcond's per-link marker
// and its ECN field re-marked per RFC 6660 ("3-in-1": 00 not-PCN, 10 NM,
// 01 ThM, 11 ETM); the marker is either RFC 5670's threshold meter and
// excess-traffic meter, or three-state PCN marking (3sM, draft-babiarz-pcn-
// 3sm-01: AS and ET markers). Packets are never dropped by the marker; one FIFO
// (MaxSize) holds them.
#ifndef NETCOND_PCN_QUEUE_DISC_H
#define NETCOND_PCN_QUEUE_DISC_H

#include "netcond-queue-disc.h"

#include "ns3/data-rate.h"
#include "ns3/traced-callback.h"

#include <array>
#include <memory>

namespace ns3
{

class NetcondPcnQueueDisc : public NetcondQueueDisc
{
  public:
    static TypeId GetTypeId();
    NetcondPcnQueueDisc();
    ~NetcondPcnQueueDisc() override;

    /// The marker behind the link.
    enum Marker
    {
        RFC5670,     //!< threshold meter + excess-traffic meter (RFC 5670)
        THREE_STATE, //!< 3sM: AS marker + ET marker
    };

    /// RFC 5670 excess-traffic meter behaviour.
    enum ExcessMode
    {
        SIZE_INDEPENDENT, //!< section 2.4's SHOULD: packet size independent marking
        CLASSIC,          //!< section 2.4: marked if the tokens are at most the packet size
        CLASSIC_B6,       //!< appendix B.6: marked if the tokens are below the packet size
    };

    /// 3sM ET-marker's marking test.
    enum EtMarking
    {
        ET_TAIL,             //!< mark when the tokens are below the packet size (3sm-01 section 3.1.2)
        ET_SIZE_INDEPENDENT, //!< mark when the tokens are below the MTU (3sm-01 appendix A.1.5)
    };

    /// The AS-marker's form.
    enum AsForm
    {
        AS_3SM_01,              //!< draft-babiarz-pcn-3sm-01
        AS_EXPLICIT_MARKING_01, //!< draft-babiarz-pcn-explicit-marking-01 section 1.2
    };

    /// RFC 6660 codepoints of the ECN field for a PCN-compatible DSCP.
    enum PcnCodepoint
    {
        NOT_PCN = 0, //!< 00
        THM = 1,     //!< 01: threshold-marked
        NM = 2,      //!< 10: not marked
        ETM = 3,     //!< 11: excess-traffic-marked
    };

    /// Signature of the PcnMark trace source: the item, and its codepoint
    /// (a PcnCodepoint) before and after the marker.
    typedef void (*MarkTracedCallback)(Ptr<const QueueDiscItem> item,
                                       uint8_t before,
                                       uint8_t after);

    /// PCN packets (bytes) that left the marker with codepoint `c`.
    uint64_t GetPackets(PcnCodepoint c) const;
    uint64_t GetBytes(PcnCodepoint c) const;

  protected:
    void DoDispose() override;

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    void InitializeParams() override;

    struct Impl;
    std::unique_ptr<Impl> m_impl;

    Marker m_marker;
    ExcessMode m_excessMode;
    EtMarking m_etMarking;
    bool m_etArrivingEtAddsS;
    AsForm m_asForm;
    DataRate m_thresholdRate;
    uint64_t m_thresholdBucket;
    uint64_t m_thresholdDepth;
    DataRate m_excessRate;
    uint64_t m_excessBucket;
    uint64_t m_etS;
    uint32_t m_mtu;
    uint32_t m_pcnDscp;
    std::array<uint64_t, 4> m_packets{};
    std::array<uint64_t, 4> m_bytes{};
    TracedCallback<Ptr<const QueueDiscItem>, uint8_t, uint8_t> m_markTrace;
};

} // namespace ns3

#endif
