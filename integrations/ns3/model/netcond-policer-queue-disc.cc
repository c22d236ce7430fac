#include "netcond-policer-queue-disc.h"

#include "netcond-ns3-util.h"
#include "netcond.h"

#include "ns3/boolean.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

#include <sstream>
#include <unordered_map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NetcondPolicerQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(NetcondPolicerQueueDisc);

// The profile of the configured meter, and one state per key. Only the
// member of the configured meter is used.
struct NetcondPolicerQueueDisc::Impl
{
    netcond_srtcm_profile srProfile;
    netcond_trtcm_profile trProfile;
    netcond_rfc4115_profile rfProfile;
    std::unordered_map<uint32_t, netcond_srtcm> sr;
    std::unordered_map<uint32_t, netcond_trtcm> tr;
    std::unordered_map<uint32_t, netcond_rfc4115> rf;
};

TypeId
NetcondPolicerQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NetcondPolicerQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<NetcondPolicerQueueDisc>()
            .AddAttribute("Meter",
                          "The three-color marker: Srtcm (RFC 2697), Trtcm (RFC 2698) or "
                          "Rfc4115 (RFC 4115)",
                          EnumValue(TRTCM),
                          MakeEnumAccessor(&NetcondPolicerQueueDisc::m_meter),
                          MakeEnumChecker(SRTCM, "Srtcm", TRTCM, "Trtcm", RFC4115, "Rfc4115"))
            .AddAttribute("Key",
                          "What one meter state meters: Flow (5-tuple hash), Dscp, or "
                          "Aggregate (every packet)",
                          EnumValue(KEY_FLOW),
                          MakeEnumAccessor(&NetcondPolicerQueueDisc::m_key),
                          MakeEnumChecker(KEY_FLOW, "Flow", KEY_DSCP, "Dscp", KEY_AGGREGATE,
                                          "Aggregate"))
            .AddAttribute("Action",
                          "DropRed, Remark (DSCP to AFx1/AFx2/AFx3 for green/yellow/red), or "
                          "RemarkDropRed",
                          EnumValue(DROP_RED),
                          MakeEnumAccessor(&NetcondPolicerQueueDisc::m_action),
                          MakeEnumChecker(DROP_RED, "DropRed", REMARK, "Remark",
                                          REMARK_DROP_RED, "RemarkDropRed"))
            .AddAttribute("ColorAware",
                          "Color-aware metering: the arriving DSCP's AF drop precedence is the "
                          "pre-color (AFx1 green, AFx2 yellow, AFx3 red, any other DSCP green)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NetcondPolicerQueueDisc::m_colorAware),
                          MakeBooleanChecker())
            .AddAttribute("AfClass",
                          "The AF class (1..4) whose codepoints re-marking writes",
                          UintegerValue(1),
                          MakeUintegerAccessor(&NetcondPolicerQueueDisc::m_afClass),
                          MakeUintegerChecker<uint32_t>(1, 4))
            .AddAttribute("Cir",
                          "Committed Information Rate (all three meters); a whole number of "
                          "bytes per second",
                          DataRateValue(DataRate("1Mbps")),
                          MakeDataRateAccessor(&NetcondPolicerQueueDisc::m_cir),
                          MakeDataRateChecker())
            .AddAttribute("Pir",
                          "Peak Information Rate (trTCM), at least Cir",
                          DataRateValue(DataRate("2Mbps")),
                          MakeDataRateAccessor(&NetcondPolicerQueueDisc::m_pir),
                          MakeDataRateChecker())
            .AddAttribute("Eir",
                          "Excess Information Rate (RFC 4115)",
                          DataRateValue(DataRate("1Mbps")),
                          MakeDataRateAccessor(&NetcondPolicerQueueDisc::m_eir),
                          MakeDataRateChecker())
            .AddAttribute("Cbs",
                          "Committed Burst Size in bytes (all three meters)",
                          UintegerValue(3000),
                          MakeUintegerAccessor(&NetcondPolicerQueueDisc::m_cbs),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Pbs",
                          "Peak Burst Size in bytes (trTCM)",
                          UintegerValue(6000),
                          MakeUintegerAccessor(&NetcondPolicerQueueDisc::m_pbs),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Ebs",
                          "Excess Burst Size in bytes (srTCM, RFC 4115)",
                          UintegerValue(6000),
                          MakeUintegerAccessor(&NetcondPolicerQueueDisc::m_ebs),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("MaxSize",
                          "The FIFO behind the policer",
                          QueueSizeValue(QueueSize("1000p")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddTraceSource("Color",
                            "A packet's color (0 green, 1 yellow, 2 red), before the action",
                            MakeTraceSourceAccessor(&NetcondPolicerQueueDisc::m_colorTrace),
                            "ns3::NetcondPolicerQueueDisc::ColorTracedCallback");
    return tid;
}

NetcondPolicerQueueDisc::NetcondPolicerQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE),
      m_impl(std::make_unique<Impl>())
{
}

NetcondPolicerQueueDisc::~NetcondPolicerQueueDisc() = default;

void
NetcondPolicerQueueDisc::DoDispose()
{
    m_impl->sr.clear();
    m_impl->tr.clear();
    m_impl->rf.clear();
    QueueDisc::DoDispose();
}

uint8_t
NetcondPolicerQueueDisc::AfDscp(uint8_t afClass, uint8_t prec)
{
    return uint8_t(8 * afClass + 2 * prec);
}

uint64_t
NetcondPolicerQueueDisc::GetColorPackets(Color c) const
{
    return m_packets.at(c);
}

uint64_t
NetcondPolicerQueueDisc::GetColorBytes(Color c) const
{
    return m_bytes.at(c);
}

size_t
NetcondPolicerQueueDisc::GetNStates() const
{
    return m_impl->sr.size() + m_impl->tr.size() + m_impl->rf.size();
}

namespace
{

// A DataRate as whole bytes per second, or a fatal error naming the attribute.
uint64_t
BytesPerSec(const DataRate& r, const char* name)
{
    uint64_t bits = r.GetBitRate();
    if (bits % 8 != 0)
    {
        std::ostringstream os;
        os << "NetcondPolicerQueueDisc: " << name << " = " << bits
           << " bit/s is not a whole number of bytes per second, which netcond's rates are";
        netcond::Refuse(os.str());
    }
    return bits / 8;
}

// The pre-color of a packet for color-aware metering: the drop precedence of
// an AF DSCP (RFC 2597: AFxy = 8x + 2y, x 1..4, y 1..3), green otherwise.
int
PreColor(Ptr<const QueueDiscItem> item)
{
    uint8_t ds = 0;
    if (!netcond::GetDsField(item, ds))
    {
        return NETCOND_GREEN;
    }
    uint8_t dscp = ds >> 2;
    uint8_t cls = dscp >> 3;
    uint8_t prec = (dscp >> 1) & 3;
    if (cls >= 1 && cls <= 4 && (dscp & 1) == 0 && prec >= 1 && prec <= 3)
    {
        return prec - 1; // AFx1 green, AFx2 yellow, AFx3 red
    }
    return NETCOND_GREEN;
}

} // namespace

bool
NetcondPolicerQueueDisc::CheckConfig()
{
    if (GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0)
    {
        NS_LOG_ERROR("NetcondPolicerQueueDisc takes no classes and no packet filters");
        return false;
    }
    if (GetNInternalQueues() == 0)
    {
        AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
            "MaxSize",
            QueueSizeValue(GetMaxSize())));
    }
    if (GetNInternalQueues() != 1)
    {
        NS_LOG_ERROR("NetcondPolicerQueueDisc needs exactly one internal queue");
        return false;
    }
    return true;
}

void
NetcondPolicerQueueDisc::InitializeParams()
{
    // The profile is built (and so checked by netcond) before the first packet.
    const uint64_t hz = 1000000000;
    int rc = 0;
    std::ostringstream what;
    what << "NetcondPolicerQueueDisc: ";
    switch (m_meter)
    {
    case SRTCM: {
        netcond_srtcm_params p{};
        p.cir = BytesPerSec(m_cir, "Cir");
        p.cbs = m_cbs;
        p.ebs = m_ebs;
        p.tick_hz = hz;
        rc = netcond_srtcm_profile_config(&m_impl->srProfile, &p);
        what << "srTCM with Cir " << p.cir << " B/s, Cbs " << p.cbs << " B, Ebs " << p.ebs << " B";
        break;
    }
    case TRTCM: {
        netcond_trtcm_params p{};
        p.cir = BytesPerSec(m_cir, "Cir");
        p.pir = BytesPerSec(m_pir, "Pir");
        p.cbs = m_cbs;
        p.pbs = m_pbs;
        p.tick_hz = hz;
        rc = netcond_trtcm_profile_config(&m_impl->trProfile, &p);
        what << "trTCM with Cir " << p.cir << " B/s, Pir " << p.pir << " B/s, Cbs " << p.cbs
             << " B, Pbs " << p.pbs << " B";
        break;
    }
    case RFC4115: {
        netcond_rfc4115_params p{};
        p.cir = BytesPerSec(m_cir, "Cir");
        p.eir = BytesPerSec(m_eir, "Eir");
        p.cbs = m_cbs;
        p.ebs = m_ebs;
        p.tick_hz = hz;
        rc = netcond_rfc4115_profile_config(&m_impl->rfProfile, &p);
        what << "RFC 4115 marker with Cir " << p.cir << " B/s, Eir " << p.eir << " B/s, Cbs "
             << p.cbs << " B, Ebs " << p.ebs << " B";
        break;
    }
    }
    netcond::CheckStatus(rc, what.str());
}

namespace
{

// The state of `key` in `states`, started with full buckets at `now` when new.
template <typename S, typename P, typename F>
S*
StateOf(std::unordered_map<uint32_t, S>& states, uint32_t key, const P* profile, uint64_t now,
        F config)
{
    auto it = states.find(key);
    if (it == states.end())
    {
        S s{};
        netcond::CheckStatus(config(&s, profile, now), "NetcondPolicerQueueDisc: a new meter state");
        it = states.emplace(key, s).first;
    }
    return &it->second;
}

} // namespace

bool
NetcondPolicerQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    const uint64_t now = netcond::NowNs();
    const uint32_t len = item->GetSize();
    uint32_t key = 0;
    uint8_t ds = 0;
    bool hasIp = netcond::GetDsField(item, ds);
    if (m_key == KEY_FLOW)
    {
        key = item->Hash(0);
    }
    else if (m_key == KEY_DSCP)
    {
        key = hasIp ? ds >> 2 : 64; // items without an IP header share one state
    }
    int pre = m_colorAware ? PreColor(item) : NETCOND_GREEN;

    netcond_color c = NETCOND_RED;
    switch (m_meter)
    {
    case SRTCM: {
        auto* s = StateOf(m_impl->sr, key, &m_impl->srProfile, now, netcond_srtcm_config);
        c = m_colorAware
                ? netcond_srtcm_color_aware_check(s, &m_impl->srProfile, now, len, pre)
                : netcond_srtcm_color_blind_check(s, &m_impl->srProfile, now, len);
        break;
    }
    case TRTCM: {
        auto* s = StateOf(m_impl->tr, key, &m_impl->trProfile, now, netcond_trtcm_config);
        c = m_colorAware
                ? netcond_trtcm_color_aware_check(s, &m_impl->trProfile, now, len, pre)
                : netcond_trtcm_color_blind_check(s, &m_impl->trProfile, now, len);
        break;
    }
    case RFC4115: {
        auto* s = StateOf(m_impl->rf, key, &m_impl->rfProfile, now, netcond_rfc4115_config);
        c = m_colorAware
                ? netcond_rfc4115_color_aware_check(s, &m_impl->rfProfile, now, len, pre)
                : netcond_rfc4115_color_blind_check(s, &m_impl->rfProfile, now, len);
        break;
    }
    }
    const unsigned ci = c == NETCOND_GREEN ? 0 : c == NETCOND_YELLOW ? 1 : 2;
    m_packets[ci]++;
    m_bytes[ci] += len;
    m_colorTrace(item, uint8_t(ci));
    NS_LOG_LOGIC("key " << key << ", " << len << " B: color " << ci);

    if (ci == RED && (m_action == DROP_RED || m_action == REMARK_DROP_RED))
    {
        DropBeforeEnqueue(item, RED_DROP);
        return false;
    }
    if (m_action == REMARK || m_action == REMARK_DROP_RED)
    {
        netcond::SetDscp(item, AfDscp(uint8_t(m_afClass), uint8_t(ci + 1)));
    }
    return GetInternalQueue(0)->Enqueue(item);
}

Ptr<QueueDiscItem>
NetcondPolicerQueueDisc::DoDequeue()
{
    return GetInternalQueue(0)->Dequeue();
}

} // namespace ns3
