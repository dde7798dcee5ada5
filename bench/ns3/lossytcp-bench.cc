// ns-3 (3.37) twin of bench/run.py's scenarios, for speed and memory only.
//
// One bulk TCP NewReno flow over a point-to-point link: rate, one-way delay rtt/2, a
// DropTail device queue of 1000 packets (no traffic-control qdisc), loss on the receiving
// device. Wire size of a data packet = MSS + 40 (IPv4 + TCP, timestamps off) + 2 (PPP), so
// MSS = size - 42 gives the same packets per second as lossytcp and ns-2. The receive window
// limit is a cap on cwnd (window x MSS) in a NewReno subclass: limiting the receive window
// instead makes ns-3 3.37 crash on the first retransmission (TcpRateLinux::SkbSent, seen
// with the Debian build whenever RcvBufSize is small enough to limit the sender). Classic
// fast recovery may inflate cwnd above the cap while it lasts. Initial cwnd 1, one ACK per
// segment unless --delack 2 (ns-3's delayed ACKs: every second segment or 200 ms), minimum RTO
// 200 ms, a device queue of --queue packets (1000).
//
// Channels: "bernoulli:p=P" (RateErrorModel per packet) and
// "ge:alpha=A,beta=B[,advance=slot|transmission]" (the Gilbert-Elliott chain of paper 000,
// stepped per packet time of the link or per transmission, Good delivers, Bad loses). The
// receive error model sees a packet when it arrives, D = tx time + one-way delay after it
// started, so the slot index is taken at now - D.
//
// Prints one JSON line: {"delivered": segments delivered in order, "goodput_norm": ...,
// "timeouts": entries into CA_LOSS, "fast_retransmits": entries into CA_RECOVERY}.
// Build: see bench/README.md.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cmath>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

using namespace ns3;

class GilbertElliottErrorModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("GilbertElliottErrorModel")
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
        double t = Simulator::Now().GetSeconds() - m_offset;
        auto k = static_cast<long long>(std::floor(t / m_slot + 1e-6));
        double piB = m_alpha / (m_alpha + m_beta);
        if (!m_started)
        {
            m_bad = m_u->GetValue() < piB;
            m_started = true;
        }
        else
        {
            long long n = m_perSlot ? k - m_lastSlot : 1;
            if (n > 0)
            {
                // n steps at once: P(Bad) = pi_B + (1{Bad} - pi_B) (1 - alpha - beta)^n
                double p = piB + ((m_bad ? 1.0 : 0.0) - piB) *
                                     std::pow(1.0 - m_alpha - m_beta, static_cast<double>(n));
                m_bad = m_u->GetValue() < p;
            }
        }
        m_lastSlot = k;
        return m_bad;
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

static uint32_t g_cwndCapBytes = 0;

class TcpNewRenoCapped : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("TcpNewRenoCapped")
                                .SetParent<TcpNewReno>()
                                .AddConstructor<TcpNewRenoCapped>();
        return tid;
    }
    TcpNewRenoCapped() = default;
    TcpNewRenoCapped(const TcpNewRenoCapped& o) = default;
    std::string GetName() const override
    {
        return "TcpNewRenoCapped";
    }
    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpNewRenoCapped>(this);
    }
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        TcpNewReno::IncreaseWindow(tcb, segmentsAcked);
        if (tcb->m_cWnd > g_cwndCapBytes)
        {
            tcb->m_cWnd = g_cwndCapBytes;
        }
    }
};

static uint64_t g_losses = 0, g_recoveries = 0;

static void CountState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    g_losses += now == TcpSocketState::CA_LOSS;
    g_recoveries += now == TcpSocketState::CA_RECOVERY;
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

int main(int argc, char* argv[])
{
    double rate = 2e6, rtt = 0.02, duration = 100.0;
    uint32_t size = 500, window = 20, seed = 1, delack = 1, queue = 1000;
    std::string channel = "none";
    CommandLine cmd;
    cmd.AddValue("rate", "link rate, b/s", rate);
    cmd.AddValue("rtt", "two-way propagation delay, s", rtt);
    cmd.AddValue("size", "data packet size on the wire, bytes", size);
    cmd.AddValue("window", "maximum window, packets", window);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("channel", "none | bernoulli:p=.. | ge:alpha=..,beta=..[,advance=..]", channel);
    cmd.AddValue("seed", "run number", seed);
    cmd.AddValue("delack", "segments per ACK (ns3::TcpSocket::DelAckCount)", delack);
    cmd.AddValue("queue", "device queue, packets", queue);
    cmd.Parse(argc, argv);
    RngSeedManager::SetRun(seed);

    const uint32_t mss = size - 42;
    g_cwndCapBytes = window * mss;
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(TcpNewRenoCapped::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName("ns3::TcpClassicRecovery")));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delack));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4u << 20));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4u << 20));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(0.2)));

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
    // the device queue alone, as in lossytcp and ns-2: no fq_codel in front of it
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
    else if (kind != "none")
    {
        std::cerr << "unsupported channel " << channel << "\n";
        return 2;
    }

    uint16_t port = 9;
    BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(ifs.GetAddress(1), port));
    src.SetAttribute("MaxBytes", UintegerValue(0));
    src.SetAttribute("SendSize", UintegerValue(mss * 64));
    ApplicationContainer sa = src.Install(nodes.Get(0));
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer ka = sink.Install(nodes.Get(1));
    sa.Start(Seconds(0.0));
    ka.Start(Seconds(0.0));
    // Count entries into the loss and recovery states once the sender's socket exists.
    Simulator::Schedule(MilliSeconds(1), [] {
        Config::ConnectWithoutContext(
            "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/CongState",
            MakeCallback(&CountState));
    });
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    uint64_t bytes = DynamicCast<PacketSink>(ka.Get(0))->GetTotalRx();
    Simulator::Destroy();
    double delivered = static_cast<double>(bytes / mss);
    double capacity = rate / (8.0 * size);
    std::cout << "{\"delivered\": " << static_cast<uint64_t>(delivered)
              << ", \"goodput_norm\": " << delivered / duration / capacity
              << ", \"timeouts\": " << g_losses << ", \"fast_retransmits\": " << g_recoveries
              << "}" << std::endl;
    return 0;
}
