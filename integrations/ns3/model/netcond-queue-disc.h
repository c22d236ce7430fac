// NetcondQueueDisc: the base of the netcond queue discs (RED, CoDel,
// FQ-CoDel, PIE, FQ-PIE, DualPI2, PCN, policer). It holds what they share:
// CheckConfig for the three ways they keep packets (one FIFO; flow queues
// they make themselves; two FIFOs they make themselves), the refusal of
// attribute values netcond cannot honour (named by the disc's type name),
// the checks that turn ns-3 attribute values into netcond's units, the
// random variable of their draws (AssignStreams) and the periodic update
// timer, both released at DoDispose.
#ifndef NETCOND_QUEUE_DISC_H
#define NETCOND_QUEUE_DISC_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/queue-disc.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <string>

namespace ns3
{

class NetcondQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    ~NetcondQueueDisc() override;

    /// Assigns the stream of the random variable that feeds the disc's draws;
    /// returns the streams used (1; 0 for a disc that draws nothing).
    int64_t AssignStreams(int64_t stream);

  protected:
    /// How the disc keeps its packets, as CheckConfig checks it.
    enum class Layout
    {
        /// No classes and no packet filters; exactly one internal queue, a
        /// DropTail queue of the disc's MaxSize added when none was given.
        SINGLE_FIFO,
        /// No classes and no internal queues given (the disc makes its flow
        /// queues); packet filters allowed (they give the flow).
        FLOW_QUEUES,
        /// No classes, no packet filters and no internal queues given; two
        /// DropTail queues that never refuse are added (the limit is the
        /// disc's own).
        TWO_FIFOS,
    };

    /// `name`: the disc's type name, which starts every message; `draws`:
    /// whether the disc draws random numbers (Draw32, Draw64).
    NetcondQueueDisc(QueueDiscSizePolicy policy, const std::string& name, Layout layout, bool draws);
    /// The same, with MaxSize's unit fixed to `unit` (QueueDisc's own rule).
    NetcondQueueDisc(QueueDiscSizePolicy policy,
                     QueueSizeUnit unit,
                     const std::string& name,
                     Layout layout,
                     bool draws);

    void DoDispose() override;

    /// Refusals of attribute values that netcond cannot honour, called by
    /// CheckConfig before the layout is checked (none by default).
    virtual void CheckAttributes();

    /// The type name given to the constructor.
    const std::string& Name() const;

    /// Aborts with NS_FATAL_ERROR: the type name, ": ", `what`.
    [[noreturn]] void Refuse(const std::string& what) const;

    /// Refuses UseL4s=true and a CeThreshold other than Time::Max (off), the
    /// two attributes ns-3's CoDel, FQ-CoDel, PIE and FQ-PIE share and
    /// netcond's `algorithm` does not have.
    void RefuseL4sAndCeThreshold(const std::string& algorithm, bool useL4s, Time ceThreshold) const;

    /// Refuses the PieQueueDisc attributes that netcond's PIE (and each flow's
    /// PIE in FQ-PIE) does not have: UseDequeueRateEstimator=true,
    /// UseCapDropAdjustment=false, UseDerandomization=false.
    void RefusePieVariants(const std::string& algorithm,
                           bool useDqRateEstimator,
                           bool capDropAdjustment,
                           bool derandomization) const;

    /// Refuses a MaxSize not in `unit`; `why` says what the limit is.
    void RequireMaxSizeUnit(QueueSizeUnit unit, const std::string& why) const;

    /// Refuses a Flows attribute outside 1..`most` (netcond's flow queues).
    void CheckFlows(uint32_t flows, uint32_t most) const;

    /// `quantum` if not 0, else the MTU of the device the disc is attached
    /// to; refused if neither is known.
    uint32_t QuantumOrMtu(uint32_t quantum) const;

    /// `t` in nanoseconds; a negative time is refused (`attribute` named).
    uint64_t NonNegativeNs(Time t, const std::string& attribute) const;

    /// `v` times `scale` as a whole 32-bit number; refused otherwise (the
    /// message names `attribute` and netcond's `unit`, e.g. "sixteenths").
    uint32_t Whole(double v, double scale, const std::string& attribute, const char* unit) const;

    /// One uniform 32-bit draw from the disc's random variable.
    uint32_t Draw32();
    /// Two uniform 32-bit draws, the first the high half.
    uint64_t Draw64();

    /// The periodic update's next event (PIE, FQ-PIE, DualPI2), cancelled
    /// at DoDispose.
    EventId m_update;

  private:
    bool CheckConfig() final;

    std::string m_name;
    Layout m_layout;
    bool m_draws;
    Ptr<UniformRandomVariable> m_uv;
};

} // namespace ns3

#endif
