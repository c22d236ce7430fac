// NetcondPolicerQueueDisc: meters every packet with a netcond three-color
// marker (RFC 2697 srTCM, RFC 2698 trTCM or RFC 4115), one meter state per
// flow, per DSCP or for the whole aggregate, and then drops red packets,
// re-marks the DSCP to the AF class's AFx1 / AFx2 / AFx3 (RFC 2597) for green
// / yellow / red, or both. The packets it keeps go into one FIFO. Metering
// color-aware, it takes a packet's input color from its DSCP through a table
// (the InputColors attribute: RFC 2597's drop precedences, or a list).
#ifndef NETCOND_POLICER_QUEUE_DISC_H
#define NETCOND_POLICER_QUEUE_DISC_H

#include "netcond-queue-disc.h"

#include "ns3/data-rate.h"
#include "ns3/traced-callback.h"

#include <array>
#include <memory>
#include <string>

namespace ns3
{

class NetcondPolicerQueueDisc : public NetcondQueueDisc
{
  public:
    static TypeId GetTypeId();
    NetcondPolicerQueueDisc();
    ~NetcondPolicerQueueDisc() override;

    /// The marker (the netcond profile type).
    enum Meter
    {
        SRTCM,   //!< RFC 2697: CIR, CBS, EBS
        TRTCM,   //!< RFC 2698: CIR, PIR, CBS, PBS
        RFC4115, //!< RFC 4115: CIR, EIR, CBS, EBS
    };

    /// What one meter state meters.
    enum Key
    {
        KEY_FLOW,      //!< one state per flow (the item's 5-tuple hash)
        KEY_DSCP,      //!< one state per DSCP value
        KEY_AGGREGATE, //!< one state for every packet
    };

    /// What happens to a packet after it is colored.
    enum Action
    {
        DROP_RED,        //!< drop red packets; green and yellow pass unchanged
        REMARK,          //!< re-mark the DSCP to AFx1/AFx2/AFx3; nothing is dropped
        REMARK_DROP_RED, //!< drop red packets and re-mark the others
    };

    /// Colors, as netcond numbers them.
    enum Color
    {
        GREEN = 0,
        YELLOW = 1,
        RED = 2,
    };

    /// Packets (or bytes) colored `c` since the start.
    uint64_t GetColorPackets(Color c) const;
    uint64_t GetColorBytes(Color c) const;
    /// Meter states in use (flows or DSCPs seen).
    size_t GetNStates() const;
    /// The input color of a packet with DSCP `dscp` (masked to 6 bits) when
    /// metering color-aware, from the InputColors table (read at
    /// initialization; RFC 2597's before).
    Color GetInputColor(uint8_t dscp) const;

    /// Signature of the Color trace source: the item and its color (0 green,
    /// 1 yellow, 2 red), before the action.
    typedef void (*ColorTracedCallback)(Ptr<const QueueDiscItem> item, uint8_t color);

    /// Drop reason of a red packet.
    static constexpr const char* RED_DROP = "Red (policer)";

    /// The DSCP of AF class `afClass` (1..4) and drop precedence `prec` (1..3):
    /// 8 afClass + 2 prec (RFC 2597 section 6).
    static uint8_t AfDscp(uint8_t afClass, uint8_t prec);

  protected:
    void DoDispose() override;

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    void InitializeParams() override;

    struct Impl;
    std::unique_ptr<Impl> m_impl;

    Meter m_meter;
    Key m_key;
    Action m_action;
    bool m_colorAware;
    std::string m_inputColors;
    uint32_t m_afClass;
    DataRate m_cir;
    DataRate m_pir;
    DataRate m_eir;
    uint64_t m_cbs;
    uint64_t m_pbs;
    uint64_t m_ebs;
    std::array<uint64_t, 3> m_packets{};
    std::array<uint64_t, 3> m_bytes{};
    TracedCallback<Ptr<const QueueDiscItem>, uint8_t> m_colorTrace;
};

} // namespace ns3

#endif
