#include "netcond-policer-queue-disc.h"

#include "netcond-ns3-util.h"
#include "netcond.h"

#include "ns3/boolean.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
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
    netcond_color_table colors; // input colors by DSCP (InputColors)
    std::unordered_map<uint32_t, netcond_srtcm> sr;
    std::unordered_map<uint32_t, netcond_trtcm> tr;
    std::unordered_map<uint32_t, netcond_rfc4115> rf;
};

TypeId
NetcondPolicerQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NetcondPolicerQueueDisc")
            .SetParent<NetcondQueueDisc>()
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
                          "Color-aware metering: a packet's input color is its DSCP's in the "
                          "InputColors table (a packet without an IP header is green)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&NetcondPolicerQueueDisc::m_colorAware),
                          MakeBooleanChecker())
            .AddAttribute("InputColors",
                          "The input color of each DSCP when ColorAware: rfc2597 (AFx1 green, "
                          "AFx2 yellow, AFx3 red, any other DSCP green; RFC 2597 section 6), or "
                          "dscp:<dscp>=<color>,... (a DSCP as 0..63, afXY, csN, ef, be/df, le "
                          "or va; a color green/g, yellow/y or red/r; unlisted DSCPs green)",
                          StringValue("rfc2597"),
                          MakeStringAccessor(&NetcondPolicerQueueDisc::m_inputColors),
                          MakeStringChecker())
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
    : NetcondQueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE,
                       "NetcondPolicerQueueDisc",
                       Layout::SINGLE_FIFO,
                       false),
      m_impl(std::make_unique<Impl>())
{
    netcond_color_table_rfc2597(&m_impl->colors, NETCOND_GREEN);
}

NetcondPolicerQueueDisc::~NetcondPolicerQueueDisc() = default;

void
NetcondPolicerQueueDisc::DoDispose()
{
    m_impl->sr.clear();
    m_impl->tr.clear();
    m_impl->rf.clear();
    NetcondQueueDisc::DoDispose();
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

NetcondPolicerQueueDisc::Color
NetcondPolicerQueueDisc::GetInputColor(uint8_t dscp) const
{
    return Color(netcond_color_table_dscp(&m_impl->colors, dscp));
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

// A lowercase copy of `s`.
std::string
Lower(std::string s)
{
    for (char& ch : s)
    {
        ch = char(std::tolower(static_cast<unsigned char>(ch)));
    }
    return s;
}

// A DSCP by number (0..63) or name (afXY = 8x + 2y, RFC 2597 section 6; csN
// = 8N; ef 46; be, df, default 0; le 1; va 44), or -1.
int
ParseDscp(const std::string& s)
{
    static const std::pair<const char*, int> names[] = {
        {"be", 0}, {"df", 0}, {"default", 0}, {"ef", 46}, {"le", 1}, {"va", 44}};
    for (const auto& [name, v] : names)
    {
        if (s == name)
        {
            return v;
        }
    }
    if (s.size() == 4 && s.compare(0, 2, "af") == 0 && s[2] >= '1' && s[2] <= '4' &&
        s[3] >= '1' && s[3] <= '3')
    {
        return 8 * (s[2] - '0') + 2 * (s[3] - '0');
    }
    if (s.size() == 3 && s.compare(0, 2, "cs") == 0 && s[2] >= '0' && s[2] <= '7')
    {
        return 8 * (s[2] - '0');
    }
    if (!s.empty() && s.size() <= 2 && std::all_of(s.begin(), s.end(), [](char ch) {
            return ch >= '0' && ch <= '9';
        }))
    {
        int v = std::stoi(s);
        return v < 64 ? v : -1;
    }
    return -1;
}

// A color name (green/g, yellow/y, red/r) as a netcond_color, or -1.
int
ParseColor(const std::string& s)
{
    if (s == "green" || s == "g")
    {
        return NETCOND_GREEN;
    }
    if (s == "yellow" || s == "y")
    {
        return NETCOND_YELLOW;
    }
    if (s == "red" || s == "r")
    {
        return NETCOND_RED;
    }
    return -1;
}

// Fills `t` from the InputColors value `v` (rfc2597 or dscp:<dscp>=<color>,...),
// or refuses it with a fatal error naming the attribute.
void
ParseInputColors(const std::string& v, netcond_color_table* t)
{
    const std::string what = "NetcondPolicerQueueDisc: InputColors = \"" + v + "\": ";
    const std::string l = Lower(v);
    if (l == "rfc2597")
    {
        netcond::CheckStatus(netcond_color_table_rfc2597(t, NETCOND_GREEN), what);
        return;
    }
    if (l.compare(0, 4, "pcp:") == 0)
    {
        netcond::Refuse(what + "ns-3 packets carry no VLAN tag, so no PCP: give DSCPs "
                               "(dscp:<dscp>=<color>,...)");
    }
    if (l.compare(0, 5, "dscp:") != 0)
    {
        netcond::Refuse(what + "expected rfc2597 or dscp:<dscp>=<color>,...");
    }
    netcond::CheckStatus(netcond_color_table_init(t, NETCOND_GREEN), what);
    uint64_t seen = 0;
    std::istringstream list(l.substr(5));
    std::string item;
    while (std::getline(list, item, ','))
    {
        if (item.empty())
        {
            continue;
        }
        size_t eq = item.find('=');
        if (eq == std::string::npos)
        {
            netcond::Refuse(what + "'" + item + "' is not <dscp>=<color>");
        }
        int dscp = ParseDscp(item.substr(0, eq));
        int color = ParseColor(item.substr(eq + 1));
        if (dscp < 0)
        {
            netcond::Refuse(what + "bad DSCP '" + item.substr(0, eq) +
                            "': expected 0..63, afXY, csN, ef, be, df, le or va");
        }
        if (color < 0)
        {
            netcond::Refuse(what + "unknown color '" + item.substr(eq + 1) +
                            "' (expected green, yellow or red)");
        }
        if ((seen >> dscp) & 1)
        {
            netcond::Refuse(what + "DSCP " + std::to_string(dscp) + " given twice");
        }
        seen |= uint64_t(1) << dscp;
        netcond::CheckStatus(netcond_color_table_set_dscp(t, uint8_t(dscp), color), what);
    }
    if (seen == 0)
    {
        netcond::Refuse(what + "the list is empty");
    }
}

} // namespace


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
    ParseInputColors(m_inputColors, &m_impl->colors);
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
    // The input color: the DSCP's in the table (green without an IP header).
    int pre = m_colorAware && hasIp ? netcond_color_table_ds_field(&m_impl->colors, ds)
                                    : NETCOND_GREEN;

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
