#include "netcond-dualpi2-queue-disc.h"

#include "netcond-ns3-util.h"
#include "netcond.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NetcondDualPi2QueueDisc");
NS_OBJECT_ENSURE_REGISTERED(NetcondDualPi2QueueDisc);

struct NetcondDualPi2QueueDisc::Impl
{
    netcond_dualpi2_profile profile;
    netcond_dualpi2 state;
};

TypeId
NetcondDualPi2QueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NetcondDualPi2QueueDisc")
            .SetParent<NetcondQueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<NetcondDualPi2QueueDisc>()
            .AddAttribute("Target",
                          "The Classic queue delay target (RFC 9332 Appendix A; Linux's "
                          "target)",
                          TimeValue(MilliSeconds(15)),
                          MakeTimeAccessor(&NetcondDualPi2QueueDisc::m_target),
                          MakeTimeChecker())
            .AddAttribute("Tupdate",
                          "The period of the PI update (Linux's tupdate, 16 ms there)",
                          TimeValue(MilliSeconds(15)),
                          MakeTimeAccessor(&NetcondDualPi2QueueDisc::m_tUpdate),
                          MakeTimeChecker())
            .AddAttribute("Alpha",
                          "alpha, the integral gain, Hz (a whole number of millihertz; "
                          "Linux's alpha, 0.16 there)",
                          DoubleValue(0.15),
                          MakeDoubleAccessor(&NetcondDualPi2QueueDisc::m_alpha),
                          MakeDoubleChecker<double>())
            .AddAttribute("Beta",
                          "beta, the proportional gain, Hz (a whole number of millihertz; "
                          "Linux's beta, 3.2 there)",
                          DoubleValue(3.0),
                          MakeDoubleAccessor(&NetcondDualPi2QueueDisc::m_beta),
                          MakeDoubleChecker<double>())
            .AddAttribute("K",
                          "The coupling factor k (a whole number of sixteenths; Linux's "
                          "coupling_factor)",
                          DoubleValue(2.0),
                          MakeDoubleAccessor(&NetcondDualPi2QueueDisc::m_k),
                          MakeDoubleChecker<double>())
            .AddAttribute("MinTh",
                          "minTh, where the L4S queue's native marking ramp starts (Linux's "
                          "step_thresh with Range 0)",
                          TimeValue(MicroSeconds(800)),
                          MakeTimeAccessor(&NetcondDualPi2QueueDisc::m_minTh),
                          MakeTimeChecker())
            .AddAttribute("Range",
                          "The ramp's range; 0 makes it a step at MinTh",
                          TimeValue(MicroSeconds(400)),
                          MakeTimeAccessor(&NetcondDualPi2QueueDisc::m_range),
                          MakeTimeChecker())
            .AddAttribute("ThLen",
                          "Th_len: no native L4S marking with at most this many packets left "
                          "in the L4S queue (Linux's min_qlen_step)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&NetcondDualPi2QueueDisc::m_thLen),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Mtu",
                          "The MTU of the limit test, bytes: an arrival is refused when the "
                          "bytes queued plus this exceed MaxSize",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&NetcondDualPi2QueueDisc::m_mtu),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MaxSize",
                          "The shared buffer of both queues, bytes only (RFC 9332's limit)",
                          QueueSizeValue(QueueSize("3125000B")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("CurqMax",
                          "The PI update's delay: the larger of both heads' (true, RFC 9332 "
                          "Appendix A.2) or the Classic head's (false, Appendix A.1)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&NetcondDualPi2QueueDisc::m_curqMax),
                          MakeBooleanChecker())
            .AddAttribute("Scheduler",
                          "TimeShifted (FIFO with Tshift) or Wrr (WrrL4s, WrrClassic)",
                          EnumValue(NetcondDualPi2QueueDisc::TIME_SHIFTED),
                          MakeEnumAccessor(&NetcondDualPi2QueueDisc::m_scheduler),
                          MakeEnumChecker(NetcondDualPi2QueueDisc::TIME_SHIFTED, "TimeShifted",
                                          NetcondDualPi2QueueDisc::WRR, "Wrr"))
            .AddAttribute("Tshift",
                          "The time-shifted FIFO's shift: the Classic head goes first when "
                          "it has waited this much longer than the L4S head",
                          TimeValue(MilliSeconds(40)),
                          MakeTimeAccessor(&NetcondDualPi2QueueDisc::m_tshift),
                          MakeTimeChecker())
            .AddAttribute("WrrL4s",
                          "L4S packets per round of the weighted round robin",
                          UintegerValue(10),
                          MakeUintegerAccessor(&NetcondDualPi2QueueDisc::m_wrrL4s),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("WrrClassic",
                          "Classic packets per round of the weighted round robin",
                          UintegerValue(1),
                          MakeUintegerAccessor(&NetcondDualPi2QueueDisc::m_wrrClassic),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("Decision",
                          "Recur (RFC 9332 Appendix A.2's recur(), no draws), RandomTwoDraws "
                          "(Classic: max(u1, u2) < p', as Linux) or RandomOneDraw (u < p'^2)",
                          EnumValue(NetcondDualPi2QueueDisc::RECUR),
                          MakeEnumAccessor(&NetcondDualPi2QueueDisc::m_decision),
                          MakeEnumChecker(NetcondDualPi2QueueDisc::RECUR, "Recur",
                                          NetcondDualPi2QueueDisc::RANDOM_TWO_DRAWS,
                                          "RandomTwoDraws",
                                          NetcondDualPi2QueueDisc::RANDOM_ONE_DRAW,
                                          "RandomOneDraw"));
    return tid;
}

NetcondDualPi2QueueDisc::NetcondDualPi2QueueDisc()
    : NetcondQueueDisc(QueueDiscSizePolicy::MULTIPLE_QUEUES,
                       "NetcondDualPi2QueueDisc",
                       Layout::TWO_FIFOS,
                       true),
      m_impl(std::make_unique<Impl>())
{
}

NetcondDualPi2QueueDisc::~NetcondDualPi2QueueDisc() = default;

void
NetcondDualPi2QueueDisc::CheckAttributes()
{
    RequireMaxSizeUnit(QueueSizeUnit::BYTES, "RFC 9332's limit is the bytes of both queues");
}

void
NetcondDualPi2QueueDisc::InitializeParams()
{
    netcond_dualpi2_params p{};
    p.target_ns = NonNegativeNs(m_target, "Target");
    p.t_update_ns = NonNegativeNs(m_tUpdate, "Tupdate");
    p.min_th_ns = NonNegativeNs(m_minTh, "MinTh");
    p.range_ns = NonNegativeNs(m_range, "Range");
    p.tshift_ns = NonNegativeNs(m_tshift, "Tshift");
    p.limit = GetMaxSize().GetValue();
    p.tick_hz = 1000000000u;
    p.alpha_mhz = Whole(m_alpha, 1000, "Alpha", "millihertz");
    p.beta_mhz = Whole(m_beta, 1000, "Beta", "millihertz");
    p.k16 = Whole(m_k, 16, "K", "sixteenths");
    p.th_len = m_thLen;
    p.mtu = m_mtu;
    p.curq_max = m_curqMax ? 1 : 0;
    p.scheduler = m_scheduler == WRR ? 1 : 0;
    p.decision = m_decision == RECUR ? 0 : m_decision == RANDOM_TWO_DRAWS ? 1 : 2;
    p.wrr_l4s = m_wrrL4s;
    p.wrr_classic = m_wrrClassic;
    std::ostringstream what;
    what << "NetcondDualPi2QueueDisc (Target " << m_target.As(Time::MS) << ", Tupdate "
         << m_tUpdate.As(Time::MS) << ", Alpha " << m_alpha << ", Beta " << m_beta << ", K "
         << m_k << ", MinTh " << m_minTh.As(Time::US) << ", Range " << m_range.As(Time::US)
         << ", MaxSize " << GetMaxSize() << ", Mtu " << m_mtu << ", WrrL4s " << m_wrrL4s
         << ", WrrClassic " << m_wrrClassic << ")";
    netcond::CheckStatus(netcond_dualpi2_profile_config(&m_impl->profile, &p), what.str());
    netcond::CheckStatus(
        netcond_dualpi2_config(&m_impl->state, &m_impl->profile, netcond::NowNs()),
        "NetcondDualPi2QueueDisc: the DualPI2 state");
    // The update is due every Tupdate from now: the timer fires then, and
    // every enqueue and dequeue polls too (netcond runs it once when due,
    // whichever asks first at that instant).
    m_update = Simulator::Schedule(m_tUpdate, &NetcondDualPi2QueueDisc::Update, this);
}

void
NetcondDualPi2QueueDisc::Poll()
{
    Ptr<const QueueDiscItem> lh = GetInternalQueue(L4S)->Peek();
    Ptr<const QueueDiscItem> ch = GetInternalQueue(CLASSIC)->Peek();
    auto at = [](Ptr<const QueueDiscItem> h) {
        const int64_t t = h ? h->GetTimeStamp().GetNanoSeconds() : 0;
        return t < 0 ? uint64_t(0) : uint64_t(t);
    };
    netcond_dualpi2_poll(&m_impl->state, &m_impl->profile, netcond::NowNs(), lh ? 1 : 0, at(lh),
                         ch ? 1 : 0, at(ch));
}

void
NetcondDualPi2QueueDisc::Update()
{
    Poll();
    m_update = Simulator::Schedule(m_tUpdate, &NetcondDualPi2QueueDisc::Update, this);
}

double
NetcondDualPi2QueueDisc::GetBaseProbability() const
{
    netcond_dualpi2_info info;
    if (netcond_dualpi2_info_get(&m_impl->state, &m_impl->profile, &info) != 0)
    {
        return 0;
    }
    return std::ldexp(double(info.p_prime), -32);
}

double
NetcondDualPi2QueueDisc::GetCoupledProbability() const
{
    netcond_dualpi2_info info;
    if (netcond_dualpi2_info_get(&m_impl->state, &m_impl->profile, &info) != 0)
    {
        return 0;
    }
    return std::ldexp(double(info.p_cl), -32);
}

double
NetcondDualPi2QueueDisc::GetClassicProbability() const
{
    netcond_dualpi2_info info;
    if (netcond_dualpi2_info_get(&m_impl->state, &m_impl->profile, &info) != 0)
    {
        return 0;
    }
    return std::ldexp(double(info.p_c), -64);
}

bool
NetcondDualPi2QueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    Poll();
    uint8_t ds = 0;
    const uint32_t ecn = netcond::GetDsField(item, ds) ? ds & 3u : 0u;
    const uint64_t backlog =
        GetInternalQueue(L4S)->GetNBytes() + GetInternalQueue(CLASSIC)->GetNBytes();
    const netcond_dualpi2_queue q = netcond_dualpi2_enqueue(
        &m_impl->state, &m_impl->profile, netcond::NowNs(), ecn, item->GetSize(), backlog);
    if (q == NETCOND_DUALPI2_NONE)
    {
        DropBeforeEnqueue(item, FORCED_DROP);
        return false;
    }
    return GetInternalQueue(q == NETCOND_DUALPI2_L4S ? L4S : CLASSIC)->Enqueue(item);
}

Ptr<QueueDiscItem>
NetcondDualPi2QueueDisc::DoDequeue()
{
    NS_LOG_FUNCTION(this);
    Poll();
    const uint64_t now = netcond::NowNs();
    auto at = [](Ptr<const QueueDiscItem> h) {
        const int64_t t = h ? h->GetTimeStamp().GetNanoSeconds() : 0;
        return t < 0 ? uint64_t(0) : uint64_t(t);
    };
    for (;;)
    {
        Ptr<const QueueDiscItem> lh = GetInternalQueue(L4S)->Peek();
        Ptr<const QueueDiscItem> ch = GetInternalQueue(CLASSIC)->Peek();
        const netcond_dualpi2_queue q = netcond_dualpi2_schedule(
            &m_impl->state, &m_impl->profile, now, lh ? 1 : 0, at(lh), ch ? 1 : 0, at(ch));
        if (q == NETCOND_DUALPI2_NONE)
        {
            return nullptr;
        }
        Ptr<InternalQueue> fifo = GetInternalQueue(q == NETCOND_DUALPI2_L4S ? L4S : CLASSIC);
        Ptr<QueueDiscItem> item = fifo->Dequeue();
        NS_ABORT_MSG_IF(!item, "NetcondDualPi2QueueDisc: netcond named an empty queue");
        uint8_t ds = 0;
        const uint32_t ecn = netcond::GetDsField(item, ds) ? ds & 3u : 0u;
        const netcond_codel_verdict v = netcond_dualpi2_on_dequeue_draw(
            &m_impl->state, &m_impl->profile, now, q, at(item), item->GetSize(), ecn,
            fifo->GetNPackets(), Draw64());
        const bool l4s = q == NETCOND_DUALPI2_L4S;
        if (v == NETCOND_CODEL_DROP)
        {
            DropAfterDequeue(item, l4s ? UNFORCED_L4S_DROP : UNFORCED_CLASSIC_DROP);
            continue;
        }
        if (v == NETCOND_CODEL_MARK &&
            !Mark(item, l4s ? UNFORCED_L4S_MARK : UNFORCED_CLASSIC_MARK))
        {
            // A packet that cannot carry CE (no IP header): dropped instead.
            DropAfterDequeue(item, l4s ? UNFORCED_L4S_DROP : UNFORCED_CLASSIC_DROP);
            continue;
        }
        return item;
    }
}

} // namespace ns3
