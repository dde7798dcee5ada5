// What lossytcp's two ns-3 (3.37, Debian libns3-dev) programs share: crosscheck.cc beside
// this file (`lossytcp crosscheck ns3`, built by lossytcp.ns3) and bench/ns3/lossytcp-bench.cc
// (bench/run.py, tests/reference/make_westwood.py), which includes it by its path in the
// source tree. Shipped in the package so that an installed wheel still builds crosscheck.cc.
//
// One bulk TCP flow over one point-to-point link as lossytcp describes it: --rate, one-way
// delay --rtt/2 each way, a DropTail device queue of --queue packets and no traffic-control
// qdisc (as the engine and ns-2), the data channel a receive error model on the receiving
// device. MSS = packet size - 42 (IPv4 20 + TCP 20 + PPP 2, timestamps off), so a data packet
// is the same size on the wire as in the engine and ns-2.
//
// The window limit is a cap on cwnd in a subclass of the congestion control (Capped): limiting
// the receive window instead crashes ns-3 3.37 on the first retransmission
// (TcpRateLinux::SkbSent, with the Debian build whenever RcvBufSize is small enough to limit
// the sender).
//
// Channels: none | bernoulli:p=P (RateErrorModel per packet) |
// ge:alpha=A,beta=B[,advance=slot|transmission] (the Gilbert-Elliott chain of paper 000,
// stepped per packet time of the link or per transmission; Good delivers, Bad loses) |
// drops:seq=S1+S2+... (the first transmission of each listed segment, numbered from 0 as the
// engine's, is lost).

#ifndef LOSSYTCP_NS3_H
#define LOSSYTCP_NS3_H

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cmath>
#include <map>
#include <sstream>
#include <string>

namespace lossytcp
{
using namespace ns3;

// The engine's Gilbert-Elliott chain (paper 000), stepped per packet-time slot or per
// transmission. A packet is seen here when it arrives, one transmission time and one delay
// after it started, so its slot is taken at now - offset.
class GilbertElliottErrorModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("LossytcpGilbertElliott")
                                .SetParent<ErrorModel>()
                                .AddConstructor<GilbertElliottErrorModel>();
        return tid;
    }
    void Configure(double alpha, double beta, bool perSlot, double slotS, double offsetS)
    {
        m_alpha = alpha;
        m_beta = beta;
        m_perSlot = perSlot;
        m_slot = slotS;
        m_offset = offsetS;
        m_u = CreateObject<UniformRandomVariable>();
    }

  private:
    bool DoCorrupt(Ptr<Packet>) override
    {
        double piB = m_alpha / (m_alpha + m_beta);
        if (!m_started)
        {
            m_started = true;
            m_bad = m_u->GetValue() < piB;
            m_lastSlot = SlotNow();
            return m_bad;
        }
        long long n = 1;
        if (m_perSlot)
        {
            long long k = SlotNow();
            n = k - m_lastSlot;
            m_lastSlot = k;
        }
        // n steps of the chain at once: P(Bad) = piB + (1{Bad} - piB)(1 - alpha - beta)^n.
        if (n > 0)
        {
            double p = piB + ((m_bad ? 1.0 : 0.0) - piB) *
                                 std::pow(1.0 - m_alpha - m_beta, static_cast<double>(n));
            m_bad = m_u->GetValue() < p;
        }
        return m_bad;
    }
    long long SlotNow() const
    {
        double t = Simulator::Now().GetSeconds() - m_offset;
        return static_cast<long long>(std::floor(t / m_slot + 1e-6));
    }
    void DoReset() override
    {
        m_started = false;
    }

    double m_alpha{0}, m_beta{1}, m_slot{1}, m_offset{0};
    bool m_perSlot{true}, m_started{false}, m_bad{false};
    long long m_lastSlot{0};
    Ptr<UniformRandomVariable> m_u;
};

// The first transmission of each listed segment is lost (its data sequence number: ns-3's
// first data byte is 1, after the SYN).
class SegmentDropModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("LossytcpSegmentDrops")
                                .SetParent<ErrorModel>()
                                .AddConstructor<SegmentDropModel>();
        return tid;
    }
    uint32_t m_mss{1000};
    std::map<uint64_t, int> m_left;

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        Ptr<Packet> c = p->Copy();
        PppHeader ppp;
        Ipv4Header ip;
        TcpHeader tcp;
        c->RemoveHeader(ppp);
        c->RemoveHeader(ip);
        if (ip.GetProtocol() != 6)
        {
            return false;
        }
        c->RemoveHeader(tcp);
        if (c->GetSize() == 0)
        {
            return false;
        }
        uint64_t seg = (tcp.GetSequenceNumber().GetValue() - 1) / m_mss;
        auto it = m_left.find(seg);
        if (it == m_left.end() || it->second == 0)
        {
            return false;
        }
        --it->second;
        return true;
    }
    void DoReset() override
    {
    }
};

// The cwnd cap, bytes (see the header).
inline uint32_t g_capBytes = 0;

// A congestion control with the cwnd cap, applied after every change it makes: IncreaseWindow,
// and CongControl for those that have one (TcpSocketBase calls it only when HasCongControl(),
// in 3.37 BBR alone). The TypeId is the base's name + "Capped", so the base's attributes
// (Westwood's ProtocolType, CUBIC's C) take their Config defaults. Classic fast recovery may
// inflate cwnd above the cap while it lasts.
template <class Base>
class Capped : public Base
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId(Base::GetTypeId().GetName() + "Capped")
                                .template SetParent<Base>()
                                .template AddConstructor<Capped<Base>>();
        return tid;
    }
    Capped() = default;
    Capped(const Capped& o) = default;
    std::string GetName() const override
    {
        return Base::GetTypeId().GetName() + "Capped";
    }
    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<Capped<Base>>(this);
    }
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        Base::IncreaseWindow(tcb, segmentsAcked);
        Cap(tcb);
    }
    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override
    {
        Base::CongControl(tcb, rc, rs);
        Cap(tcb);
    }

  private:
    static void Cap(Ptr<TcpSocketState> tcb)
    {
        if (tcb->m_cWnd > g_capBytes)
        {
            tcb->m_cWnd = g_capBytes;
        }
    }
};

// The sender's counters, under the engine's metric names.
struct Counters
{
    uint64_t sent{0};           // data segments handed to IP
    uint64_t retransmitted{0};  // those not beyond the highest sequence number sent before
    uint64_t losses{0};         // entries into CA_LOSS (timeouts)
    uint64_t recoveries{0};     // entries into CA_RECOVERY (fast retransmits)
    SequenceNumber32 highTx{0};
    bool anyTx{false};
};
inline Counters g_counts;

// Every data segment the sender hands to IP; one that does not start beyond the highest
// sequence number sent so far is a retransmission (ns-2's and lossytcp's count, by segment).
inline void CountTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    ++g_counts.sent;
    if (g_counts.anyTx && h.GetSequenceNumber() < g_counts.highTx)
    {
        ++g_counts.retransmitted;
        return;
    }
    g_counts.anyTx = true;
    g_counts.highTx = h.GetSequenceNumber() + SequenceNumber32(p->GetSize());
}

inline void CountState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    g_counts.losses += now == TcpSocketState::CA_LOSS;
    g_counts.recoveries += now == TcpSocketState::CA_RECOVERY;
}

// "kind:k1=v1,k2=v2" -> kind and {k1: v1, k2: v2}.
inline std::map<std::string, std::string> ParseSpec(const std::string& spec, std::string& kind)
{
    std::map<std::string, std::string> kv;
    auto colon = spec.find(':');
    kind = spec.substr(0, colon);
    if (colon == std::string::npos)
    {
        return kv;
    }
    std::stringstream ss(spec.substr(colon + 1));
    std::string item;
    while (std::getline(ss, item, ','))
    {
        auto eq = item.find('=');
        kv[item.substr(0, eq)] = item.substr(eq + 1);
    }
    return kv;
}

// The sender's TCP, as Config defaults (set before the sockets exist).
struct TcpSettings
{
    TypeId cc;            // a Capped<...> type
    std::string recovery; // ns3::TcpClassicRecovery or ns3::TcpPrrRecovery
    uint32_t mss{1000};
    uint32_t initialCwnd{1};
    uint32_t delack{1};   // segments per ACK
    double delackTimeoutS{0.2};
    uint32_t bufferBytes{4u << 20};
    bool sack{false};
    double minRtoS{0.2};
    double granularityS{0.001};
};

inline void ConfigureTcp(const TcpSettings& s)
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(s.cc));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName(s.recovery)));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(s.mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(s.initialCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(s.delack));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(Seconds(s.delackTimeoutS)));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(s.bufferBytes));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(s.bufferBytes));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(s.sack));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(s.minRtoS)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity",
                       TimeValue(Seconds(s.granularityS)));
}

struct Link
{
    NodeContainer nodes;
    NetDeviceContainer devs;
    Ipv4InterfaceContainer ifs;
};

// Two nodes, one point-to-point link, the device queue alone (no fq_codel in front of it).
inline Link BuildLink(double rateBps, double rttS, uint32_t queuePackets)
{
    Link l;
    l.nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(rateBps))));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(rttS / 2)));
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize",
                 QueueSizeValue(QueueSize(std::to_string(queuePackets) + "p")));
    l.devs = p2p.Install(l.nodes);
    InternetStackHelper stack;
    stack.Install(l.nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    l.ifs = addr.Assign(l.devs);
    TrafficControlHelper::Default().Uninstall(l.devs);
    return l;
}

// The channel spec as the receive error model of the data direction; false for a spec it
// does not know.
inline bool InstallChannel(const Link& l, const std::string& spec, uint32_t sizeBytes,
                           double rateBps, double rttS, uint32_t mss)
{
    std::string kind;
    auto kv = ParseSpec(spec, kind);
    Ptr<ErrorModel> em;
    if (kind == "bernoulli")
    {
        auto rate = CreateObject<RateErrorModel>();
        rate->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
        rate->SetAttribute("ErrorRate", DoubleValue(std::stod(kv["p"])));
        em = rate;
    }
    else if (kind == "ge")
    {
        auto ge = CreateObject<GilbertElliottErrorModel>();
        bool perSlot = kv.count("advance") == 0 || kv["advance"] == "slot";
        double txS = sizeBytes * 8.0 / rateBps;
        ge->Configure(std::stod(kv["alpha"]), std::stod(kv["beta"]), perSlot, txS,
                      txS + rttS / 2);
        em = ge;
    }
    else if (kind == "drops")
    {
        auto drops = CreateObject<SegmentDropModel>();
        drops->m_mss = mss;
        std::stringstream ds(kv["seq"]);
        std::string s;
        while (std::getline(ds, s, '+'))
        {
            drops->m_left[std::stoull(s)] += 1;
        }
        em = drops;
    }
    else
    {
        return kind == "none";
    }
    l.devs.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    return true;
}

// A bulk sender on node 0 to a sink on node 1, both started at 0; the sink.
inline Ptr<PacketSink> InstallBulkFlow(const Link& l, uint32_t mss)
{
    uint16_t port = 9;
    BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(l.ifs.GetAddress(1), port));
    src.SetAttribute("MaxBytes", UintegerValue(0));
    src.SetAttribute("SendSize", UintegerValue(mss * 64));
    ApplicationContainer sa = src.Install(l.nodes.Get(0));
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer ka = sink.Install(l.nodes.Get(1));
    sa.Start(Seconds(0.0));
    ka.Start(Seconds(0.0));
    return DynamicCast<PacketSink>(ka.Get(0));
}

// The sender's socket's trace sources, once the application has started it.
inline const std::string kSenderSocket = "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/";

} // namespace lossytcp

#endif
