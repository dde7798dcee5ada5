// ns-3 (3.37, Debian libns3-dev) side of `lossytcp crosscheck ns3`: one bulk TCP flow over
// one point-to-point link, as lossytcp.simulate() describes it. Built and run by
// lossytcp.ns3 (see its docstring for the mapping and what each side departs from).
//
// The link: --rate, one-way delay --rtt/2 each way, a DropTail device queue of --queue packets
// (no traffic-control qdisc, as the engine and ns-2), the channel a receive error model on
// the data direction. Segments: MSS = --size - 42 (IPv4 20 + TCP 20 + PPP 2, timestamps off),
// so a data packet is --size bytes on the wire as in the engine.
//
// The sender: --cc (ns3::TcpNewReno, ns3::TcpCubic, ns3::TcpBbr...) with its attributes from
// --attr NAME=VALUE (repeatable, ns-3's own attribute names), --recovery
// (ns3::TcpClassicRecovery or ns3::TcpPrrRecovery), --sack, --initial-cwnd, --min-rto,
// --granularity, --delack (segments per ACK), --delack-timeout. The window cap --window is a
// cap on cwnd applied after every change the congestion control makes (limiting the receive
// window instead crashes ns-3 3.37's TcpRateLinux on the first retransmission).
//
// Channels: none | bernoulli:p=P | ge:alpha=A,beta=B[,advance=slot|transmission] |
// drops:seq=S1+S2+... (the first transmission of each listed segment, numbered from 0 as
// the engine's, is lost).
//
// Prints one JSON line: counters with the engine's metric names, and the time-weighted mean
// and quartiles of cwnd (segments) and the mean pacing rate (b/s, 0 when not pacing) over the
// run from the first data segment.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

static uint32_t g_mss = 1000;

// The engine's Gilbert-Elliott chain (paper 000), stepped per packet-time slot or per
// transmission; Good delivers, Bad loses. A packet is seen here when it arrives, one
// transmission time and one delay after it started, so its slot is taken at now - offset.
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
        uint64_t seg = (tcp.GetSequenceNumber().GetValue() - 1) / g_mss;
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

static uint32_t g_capBytes = 0;

// The congestion control with the cwnd cap (see the header): after every change it makes.
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

static uint64_t g_losses = 0, g_recoveries = 0, g_sent = 0, g_retransmitted = 0;
static SequenceNumber32 g_highTx(0);
static bool g_anyTx = false;
static double g_first = -1;

// Time-weighted accumulators of a piecewise-constant trace.
struct Weighted
{
    double last_t{-1}, last_v{0};
    std::map<double, double> time_at;  // value -> seconds held
    double integral{0};
    void Set(double t, double v)
    {
        if (last_t >= 0 && t > last_t)
        {
            time_at[last_v] += t - last_t;
            integral += last_v * (t - last_t);
        }
        last_t = t;
        last_v = v;
    }
    void Close(double t)
    {
        Set(t, last_v);
    }
    double Quantile(double q) const
    {
        double total = 0;
        for (auto& kv : time_at)
        {
            total += kv.second;
        }
        double acc = 0;
        for (auto& kv : time_at)
        {
            acc += kv.second;
            if (acc >= q * total)
            {
                return kv.first;
            }
        }
        return last_v;
    }
};

static Weighted g_cwnd, g_pacing;
static bool g_pacingOn = false;

static void CountTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    double now = Simulator::Now().GetSeconds();
    if (g_first < 0)
    {
        g_first = now;
        g_cwnd.last_t = now;
        g_pacing.last_t = now;
    }
    ++g_sent;
    if (g_anyTx && h.GetSequenceNumber() < g_highTx)
    {
        ++g_retransmitted;
        return;
    }
    g_anyTx = true;
    g_highTx = h.GetSequenceNumber() + SequenceNumber32(p->GetSize());
}

static void CountState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    g_losses += now == TcpSocketState::CA_LOSS;
    g_recoveries += now == TcpSocketState::CA_RECOVERY;
}

static void OnCwnd(uint32_t, uint32_t now)
{
    double t = Simulator::Now().GetSeconds();
    if (g_first < 0)
    {
        g_cwnd.last_v = static_cast<double>(now) / g_mss;
        return;
    }
    g_cwnd.Set(t, static_cast<double>(now) / g_mss);
}

static void OnPacing(DataRate, DataRate now)
{
    double t = Simulator::Now().GetSeconds();
    double v = g_pacingOn ? static_cast<double>(now.GetBitRate()) : 0.0;
    if (g_first < 0)
    {
        g_pacing.last_v = v;
        return;
    }
    g_pacing.Set(t, v);
}

static std::map<std::string, std::string> ParseSpec(const std::string& spec, std::string& kind)
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

template <class T>
static TypeId CappedType()
{
    return Capped<T>::GetTypeId();
}

int main(int argc, char* argv[])
{
    double rate = 2e6, rtt = 0.02, duration = 100.0, minRto = 0.2, granularity = 0.001;
    double delackTimeout = 0.1;
    uint32_t size = 500, window = 20, seed = 1, delack = 1, queue = 1000, iw = 1;
    bool sack = true;
    std::string channel = "none", cc = "ns3::TcpNewReno", recovery = "ns3::TcpClassicRecovery";
    std::string attrs;
    CommandLine cmd;
    cmd.AddValue("rate", "link rate, b/s", rate);
    cmd.AddValue("rtt", "two-way propagation delay, s", rtt);
    cmd.AddValue("size", "data packet size on the wire, bytes", size);
    cmd.AddValue("window", "cwnd cap, packets", window);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("channel", "none | bernoulli:p= | ge:alpha=,beta=[,advance=] | drops:seq=",
                 channel);
    cmd.AddValue("seed", "run number", seed);
    cmd.AddValue("delack", "segments per ACK (ns3::TcpSocket::DelAckCount)", delack);
    cmd.AddValue("delack-timeout", "delayed-ACK timer, s", delackTimeout);
    cmd.AddValue("queue", "device queue, packets", queue);
    cmd.AddValue("cc", "congestion control TypeId", cc);
    cmd.AddValue("recovery", "recovery TypeId", recovery);
    cmd.AddValue("sack", "SACK option", sack);
    cmd.AddValue("initial-cwnd", "initial window, segments", iw);
    cmd.AddValue("min-rto", "minimum RTO, s", minRto);
    cmd.AddValue("granularity", "RTO clock granularity, s", granularity);
    cmd.AddValue("attrs", "semicolon-separated NAME=VALUE attribute defaults", attrs);
    cmd.Parse(argc, argv);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    g_mss = size - 42;
    g_capBytes = window * g_mss;
    TypeId ccType;
    if (cc == "ns3::TcpNewReno")
    {
        ccType = CappedType<TcpNewReno>();
    }
    else if (cc == "ns3::TcpLinuxReno")
    {
        ccType = CappedType<TcpLinuxReno>();
    }
    else if (cc == "ns3::TcpCubic")
    {
        ccType = CappedType<TcpCubic>();
    }
    else if (cc == "ns3::TcpBbr")
    {
        ccType = CappedType<TcpBbr>();
        g_pacingOn = true;
    }
    else
    {
        std::cerr << "unsupported congestion control " << cc << "\n";
        return 2;
    }
    std::stringstream as(attrs);
    std::string item;
    while (std::getline(as, item, ';'))
    {
        if (item.empty())
        {
            continue;
        }
        auto eq = item.find('=');
        Config::SetDefault(item.substr(0, eq), StringValue(item.substr(eq + 1)));
    }
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(ccType));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName(recovery)));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(g_mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(iw));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delack));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(Seconds(delackTimeout)));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(64u << 20));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(64u << 20));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRto)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(Seconds(granularity)));

    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(rate))));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(rtt / 2)));
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize",
                 QueueSizeValue(QueueSize(std::to_string(queue) + "p")));
    NetDeviceContainer devs = p2p.Install(nodes);
    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = addr.Assign(devs);
    TrafficControlHelper::Default().Uninstall(devs);

    std::string kind;
    auto kv = ParseSpec(channel, kind);
    double offset = size * 8.0 / rate + rtt / 2;
    if (kind == "bernoulli")
    {
        auto em = CreateObject<RateErrorModel>();
        em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
        em->SetAttribute("ErrorRate", DoubleValue(std::stod(kv["p"])));
        devs.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
    else if (kind == "ge")
    {
        auto em = CreateObject<GilbertElliottErrorModel>();
        bool perSlot = kv.count("advance") == 0 || kv["advance"] == "slot";
        em->Configure(std::stod(kv["alpha"]), std::stod(kv["beta"]), perSlot, size * 8.0 / rate,
                      offset);
        devs.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
    else if (kind == "drops")
    {
        auto em = CreateObject<SegmentDropModel>();
        std::stringstream ds(kv["seq"]);
        std::string s;
        while (std::getline(ds, s, '+'))
        {
            em->m_left[std::stoull(s)] += 1;
        }
        devs.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
    else if (kind != "none")
    {
        std::cerr << "unsupported channel " << channel << "\n";
        return 2;
    }

    uint16_t port = 9;
    BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(ifs.GetAddress(1), port));
    src.SetAttribute("MaxBytes", UintegerValue(0));
    src.SetAttribute("SendSize", UintegerValue(g_mss * 64));
    ApplicationContainer sa = src.Install(nodes.Get(0));
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer ka = sink.Install(nodes.Get(1));
    sa.Start(Seconds(0.0));
    ka.Start(Seconds(0.0));
    // The sender's socket exists once the application has started.
    Simulator::Schedule(NanoSeconds(1), [] {
        std::string base = "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/";
        Config::ConnectWithoutContext(base + "CongState", MakeCallback(&CountState));
        Config::ConnectWithoutContext(base + "Tx", MakeCallback(&CountTx));
        Config::ConnectWithoutContext(base + "CongestionWindow", MakeCallback(&OnCwnd));
        Config::ConnectWithoutContext(base + "PacingRate", MakeCallback(&OnPacing));
    });
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    uint64_t bytes = DynamicCast<PacketSink>(ka.Get(0))->GetTotalRx();
    g_cwnd.Close(duration);
    g_pacing.Close(duration);
    Simulator::Destroy();
    double span = duration - std::max(g_first, 0.0);
    std::cout << "{\"packets_delivered\": " << bytes / g_mss << ", \"packets_sent\": " << g_sent
              << ", \"retransmissions\": " << g_retransmitted << ", \"timeouts\": " << g_losses
              << ", \"fast_retransmits\": " << g_recoveries << ", \"first_data_s\": " << g_first
              << ", \"cwnd_mean\": " << (span > 0 ? g_cwnd.integral / span : 0.0)
              << ", \"cwnd_p25\": " << g_cwnd.Quantile(0.25)
              << ", \"cwnd_p50\": " << g_cwnd.Quantile(0.5)
              << ", \"cwnd_p75\": " << g_cwnd.Quantile(0.75)
              << ", \"pacing_rate_mean_bps\": " << (span > 0 ? g_pacing.integral / span : 0.0)
              << "}" << std::endl;
    return 0;
}
