// ns-3 (3.37) twin of bench/run.py's scenarios (speed and memory) and of the Westwood+
// cross-check (tests/reference/make_westwood.py).
//
// One bulk TCP flow, NewReno or Westwood+ (--cc), over the point-to-point link of
// python/lossytcp/ns3/lossytcp_ns3.h (shared with `lossytcp crosscheck ns3`'s program): rate,
// one-way delay rtt/2, a DropTail device queue of --queue packets (1000), no traffic-control
// qdisc, loss on the receiving device (--channel: none, bernoulli, ge, drops), MSS = size - 42
// so that a data packet is the same size on the wire as in lossytcp and ns-2, the receive
// window limit a cap on cwnd (window x MSS; classic fast recovery may inflate cwnd above it
// while it lasts). Initial cwnd 1, one ACK per segment unless --delack 2 (ns-3's delayed
// ACKs: every second segment or --delack-timeout, 200 ms), minimum RTO 200 ms, classic fast
// recovery (ns3::TcpClassicRecovery), no SACK, no timestamps.
//
// Prints one JSON line: {"delivered": segments delivered in order, "goodput_norm": ...,
// "timeouts": entries into CA_LOSS, "fast_retransmits": entries into CA_RECOVERY,
// "packets_sent": data segments handed to IP, "retransmissions": those not beyond the highest
// sequence number sent before}.
// Build: see bench/README.md.

// By its path in the source tree, so that the build line needs no include directory.
#include "../../python/lossytcp/ns3/lossytcp_ns3.h"

#include <iostream>
#include <string>

using namespace ns3;
using namespace lossytcp;

int main(int argc, char* argv[])
{
    double rate = 2e6, rtt = 0.02, duration = 100.0;
    uint32_t size = 500, window = 20, seed = 1, delack = 1, queue = 1000;
    double delackTimeout = 0.2;
    std::string channel = "none", cc = "newreno";
    CommandLine cmd;
    cmd.AddValue("rate", "link rate, b/s", rate);
    cmd.AddValue("rtt", "two-way propagation delay, s", rtt);
    cmd.AddValue("size", "data packet size on the wire, bytes", size);
    cmd.AddValue("window", "maximum window, packets", window);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("channel",
                 "none | bernoulli:p=.. | ge:alpha=..,beta=..[,advance=..] | drops:seq=..",
                 channel);
    cmd.AddValue("seed", "run number", seed);
    cmd.AddValue("delack", "segments per ACK (ns3::TcpSocket::DelAckCount)", delack);
    cmd.AddValue("queue", "device queue, packets", queue);
    cmd.AddValue("delack-timeout", "delayed-ACK timer, s (ns3::TcpSocket::DelAckTimeout)",
                 delackTimeout);
    cmd.AddValue("cc",
                 "newreno | westwoodplus (ns3::TcpWestwood, ProtocolType WestwoodPlus, its "
                 "default Tustin filter)",
                 cc);
    cmd.Parse(argc, argv);
    RngSeedManager::SetRun(seed);

    const uint32_t mss = size - 42;
    g_capBytes = window * mss;
    TcpSettings tcp;
    tcp.recovery = "ns3::TcpClassicRecovery";
    tcp.mss = mss;
    tcp.delack = delack;
    tcp.delackTimeoutS = delackTimeout;
    if (cc == "newreno")
    {
        tcp.cc = Capped<TcpNewReno>::GetTypeId();
    }
    else if (cc == "westwoodplus")
    {
        // ns-3 3.37 has one class for both; 3.38 renamed the Westwood+ one TcpWestwoodPlus.
        Config::SetDefault("ns3::TcpWestwood::ProtocolType",
                           EnumValue(TcpWestwood::WESTWOODPLUS));
        tcp.cc = Capped<TcpWestwood>::GetTypeId();
    }
    else
    {
        std::cerr << "unsupported cc " << cc << "\n";
        return 2;
    }
    ConfigureTcp(tcp);

    Link link = BuildLink(rate, rtt, queue);
    if (!InstallChannel(link, channel, size, rate, rtt, mss))
    {
        std::cerr << "unsupported channel " << channel << "\n";
        return 2;
    }
    Ptr<PacketSink> sink = InstallBulkFlow(link, mss);
    // Count entries into the loss and recovery states once the sender's socket exists.
    Simulator::Schedule(MilliSeconds(1), [] {
        Config::ConnectWithoutContext(kSenderSocket + "CongState", MakeCallback(&CountState));
        Config::ConnectWithoutContext(kSenderSocket + "Tx", MakeCallback(&CountTx));
    });
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    uint64_t bytes = sink->GetTotalRx();
    Simulator::Destroy();
    double delivered = static_cast<double>(bytes / mss);
    double capacity = rate / (8.0 * size);
    std::cout << "{\"delivered\": " << static_cast<uint64_t>(delivered)
              << ", \"goodput_norm\": " << delivered / duration / capacity
              << ", \"timeouts\": " << g_counts.losses
              << ", \"fast_retransmits\": " << g_counts.recoveries
              << ", \"packets_sent\": " << g_counts.sent
              << ", \"retransmissions\": " << g_counts.retransmitted << "}" << std::endl;
    return 0;
}
