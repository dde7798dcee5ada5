// ns-3 (3.37, Debian libns3-dev) side of `lossytcp crosscheck ns3`: one bulk TCP flow over
// one point-to-point link, as lossytcp.simulate() describes it. Built and run by
// lossytcp.ns3 (see its docstring for the mapping and what each side departs from).
//
// The link, the channels (--channel) and the cwnd cap (--window) are lossytcp_ns3.h's, shared
// with bench/ns3/lossytcp-bench.cc.
//
// The sender: --cc (ns3::TcpNewReno, ns3::TcpLinuxReno, ns3::TcpCubic, ns3::TcpBbr) with
// attribute defaults from --attrs "NAME=VALUE;..." (ns-3's own attribute names), --recovery
// (ns3::TcpClassicRecovery or ns3::TcpPrrRecovery), --sack, --initial-cwnd, --min-rto,
// --granularity, --delack (segments per ACK), --delack-timeout.
//
// Prints one JSON line: counters with the engine's metric names, and the time-weighted mean
// and quartiles of cwnd (segments) and the mean pacing rate (b/s, 0 when not pacing) over the
// run from the first data segment.

#include "lossytcp_ns3.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

using namespace ns3;
using namespace lossytcp;

static uint32_t g_mss = 1000;
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

// The first data segment starts the traces' clock; then the shared counters.
static void OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s)
{
    if (p->GetSize() > 0 && g_first < 0)
    {
        double now = Simulator::Now().GetSeconds();
        g_first = now;
        g_cwnd.last_t = now;
        g_pacing.last_t = now;
    }
    CountTx(p, h, s);
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
    TcpSettings tcp;
    tcp.recovery = recovery;
    tcp.mss = g_mss;
    tcp.initialCwnd = iw;
    tcp.delack = delack;
    tcp.delackTimeoutS = delackTimeout;
    tcp.bufferBytes = 64u << 20;
    tcp.sack = sack;
    tcp.minRtoS = minRto;
    tcp.granularityS = granularity;
    if (cc == "ns3::TcpNewReno")
    {
        tcp.cc = Capped<TcpNewReno>::GetTypeId();
    }
    else if (cc == "ns3::TcpLinuxReno")
    {
        tcp.cc = Capped<TcpLinuxReno>::GetTypeId();
    }
    else if (cc == "ns3::TcpCubic")
    {
        tcp.cc = Capped<TcpCubic>::GetTypeId();
    }
    else if (cc == "ns3::TcpBbr")
    {
        tcp.cc = Capped<TcpBbr>::GetTypeId();
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
    ConfigureTcp(tcp);

    Link link = BuildLink(rate, rtt, queue);
    if (!InstallChannel(link, channel, size, rate, rtt, g_mss))
    {
        std::cerr << "unsupported channel " << channel << "\n";
        return 2;
    }
    Ptr<PacketSink> sink = InstallBulkFlow(link, g_mss);
    // The sender's socket exists once the application has started.
    Simulator::Schedule(NanoSeconds(1), [] {
        Config::ConnectWithoutContext(kSenderSocket + "CongState", MakeCallback(&CountState));
        Config::ConnectWithoutContext(kSenderSocket + "Tx", MakeCallback(&OnTx));
        Config::ConnectWithoutContext(kSenderSocket + "CongestionWindow", MakeCallback(&OnCwnd));
        Config::ConnectWithoutContext(kSenderSocket + "PacingRate", MakeCallback(&OnPacing));
    });
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    uint64_t bytes = sink->GetTotalRx();
    g_cwnd.Close(duration);
    g_pacing.Close(duration);
    Simulator::Destroy();
    double span = duration - std::max(g_first, 0.0);
    std::cout << "{\"packets_delivered\": " << bytes / g_mss
              << ", \"packets_sent\": " << g_counts.sent
              << ", \"retransmissions\": " << g_counts.retransmitted
              << ", \"timeouts\": " << g_counts.losses
              << ", \"fast_retransmits\": " << g_counts.recoveries
              << ", \"first_data_s\": " << g_first
              << ", \"cwnd_mean\": " << (span > 0 ? g_cwnd.integral / span : 0.0)
              << ", \"cwnd_p25\": " << g_cwnd.Quantile(0.25)
              << ", \"cwnd_p50\": " << g_cwnd.Quantile(0.5)
              << ", \"cwnd_p75\": " << g_cwnd.Quantile(0.75)
              << ", \"pacing_rate_mean_bps\": " << (span > 0 ? g_pacing.integral / span : 0.0)
              << "}" << std::endl;
    return 0;
}
