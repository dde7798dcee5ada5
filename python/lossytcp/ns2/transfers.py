"""ns-2 2.35 scripts of one short NewReno transfer to a delayed-ACK sink over one 5 Mb/s,
50 ms link with 42-packet DropTail queues (paper 003's short transfers): what
``scripts/paper003_transfers_ns2.py`` runs and what ``tests/engine/test_ns2_first_segment.py``
holds the engine to. The script prints ``done <time>`` when every segment is acknowledged."""

from __future__ import annotations

#: Independent 5% losses on the data direction, the run's seed from ``argv``.
RANDOM_LOSS = """set em [new ErrorModel]
$em set rate_ 0.05
set rng [new RNG]
$rng seed [lindex $argv 0]
set rv [new RandomVariable/Uniform]
$rv use-rng $rng
$em ranvar $rv"""


def drop_list(transmissions: list[int]) -> str:
    """An error model losing the given transmissions (0-based, in the order they cross the
    data link)."""
    return ("set em [new ErrorModel/List]\n"
            f"$em droplist {{{' '.join(str(k) for k in transmissions)}}}")


def _tcl_bool(x: bool) -> str:
    return "true" if x else "false"


def transfer_script(error_model: str, *, segments: int = 7, initial_window: int = 2,
                    syn: bool = False, min_rto_s: float = 1.0, initial_rto_s: float = 6.0,
                    syn_immediate_ack: bool = False, delay_growth: bool | None = None,
                    trace_path: str | None = None) -> str:
    """The Tcl of one transfer of ``segments`` 1500 B segments (``useHeaders_ false``), losses
    from ``error_model`` (:data:`RANDOM_LOSS` or :func:`drop_list`); ``delay_growth`` None
    keeps ns-2's default; ``trace_path`` writes ns-2's packet trace there."""
    trace = f"set tf [open {trace_path} w]\n$ns trace-all $tf\n" if trace_path else ""
    growth = ("" if delay_growth is None
              else f"$tcp set delay_growth_ {_tcl_bool(delay_growth)}\n")
    close = "    global tf\n    close $tf\n" if trace_path else ""
    return f"""set ns [new Simulator]
{trace}set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 5Mb 50ms DropTail
$ns queue-limit $n0 $n1 42
$ns queue-limit $n1 $n0 42
{error_model}
$em unit pkt
$em drop-target [new Agent/Null]
$ns link-lossmodel $em $n0 $n1
set tcp [new Agent/TCP/Newreno]
$tcp set packetSize_ 1500
$tcp set useHeaders_ false
$tcp set window_ 1000
$tcp set windowInit_ {initial_window}
{growth}$tcp set syn_ {_tcl_bool(syn)}
$tcp set minrto_ {min_rto_s}
$tcp set rtxcur_init_ {initial_rto_s}
set sink [new Agent/TCPSink/DelAck]
$sink set interval_ 0.1
$sink set SYN_immediate_ack_ {_tcl_bool(syn_immediate_ack)}
$ns attach-agent $n0 $tcp
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
Agent/TCP instproc done {{}} {{
    global ns
{close}    puts "done [$ns now]"
    exit 0
}}
$ns at 0.0 "$tcp advanceby {segments}"
$ns at 1000.0 "puts unfinished; exit 0"
$ns run
"""
