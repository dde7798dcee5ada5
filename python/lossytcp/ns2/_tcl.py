"""Tcl text for ns-2 2.35: the channel models and the pieces of script around them.

Three kinds of channel model, chosen for exactness first and ns-2's speed second:

* Run-length models, OTcl subclasses of ns-2's ``ErrorModel/Trace``. That C++ class keeps
  two counters, ``good_`` (packets still to pass) and ``loss_`` (packets to drop after them),
  and calls the OTcl method ``read`` on the first packet that finds both exhausted. ``read``
  decides the fate of that packet and, where the law allows, of a whole run after it:
  ``assign G B`` lets the current packet and the next ``G - 1`` pass and drops the ``B``
  after them (``assign 0 B`` drops the current packet first). Bernoulli (Geom0 passes, then
  one loss), Gilbert-Elliott stepped per transmission with losses 0/1 (Geom(alpha) Good,
  Geom(beta) Bad transmissions), the burst dropper, loss traces and drop lists: one Tcl call
  per run.
* Switched models, for channels whose state depends on time alone (Gilbert-Elliott stepped
  per slot, the two-state channel in continuous time): ns-2's native ``ErrorModel`` drops
  each packet with probability ``rate_``, and scheduled events set ``rate_`` to the loss
  probability of the state entered, one event per state change.
* Packet by packet, only for Gilbert-Elliott stepped per transmission with a lossy Good
  state or an ``idle_reset``: about 15-20 us of Tcl per packet, more than ns-2 itself spends.

Queue monitors on each model's two exits (its drop target, its target) count channel losses
and receptions exactly, without a packet trace.

Where the model sits: ``$ns link-lossmodel`` puts it *after* the link's delay element, so it
sees a packet when its last bit arrives at the receiver, ``D = size*8/rate + one-way delay``
after its transmission started. The engine draws a packet's fate when transmission starts.
The two agree exactly: packets leave a FIFO link in transmission order, so per-transmission
models see the same sequence, and time-driven models subtract (or, when switched, add) the
constant ``D``. A lost packet still occupies the link for its whole transmission time, as in
the engine. (``$ns lossmodel`` would put the model before the queue, where a packet's fate
would be drawn at enqueue time and a dropped packet would free the link at once.)

Random numbers come from Tcl's own ``rand()`` (Park and Miller's minimal standard
generator, period 2^31 - 2, seeded by ``srand(ns2_seed(seed))``, a scrambled seed: see
:func:`lossytcp.ns2.script.ns2_seed`), not from an ns-2 ``RNG``
object: calling an OTcl object costs about 10 us, ``rand()`` about 0.1 us. One stream serves
every model of a run; a run is fully determined by its seed.
"""

from __future__ import annotations

# One OTcl prelude, emitted into every script. Geometric draws use inversion on 1 - U, which
# lies in (0, 1]: log() never sees 0. Counters use Tcl's wide integers.
CHANNEL_CLASSES = r"""
proc lossytcp_u {rng} { return [expr {1.0 - rand()}] }
# trials up to and including the first success (>= 1); q is the success probability
proc lossytcp_geom1 {rng q} {
    if {$q >= 1.0} { return 1 }
    if {$q <= 0.0} { return 1000000000 }
    set g [expr {1 + int(floor(log([lossytcp_u $rng]) / log(1.0 - $q)))}]
    if {$g > 1000000000} { set g 1000000000 }
    return $g
}
# failures before the first success (>= 0)
proc lossytcp_geom0 {rng q} { return [expr {[lossytcp_geom1 $rng $q] - 1}] }

Class LossyTcp/Channel -superclass ErrorModel/Trace
LossyTcp/Channel instproc init {rng offset} {
    $self next ""
    $self instvar rng_ offset_ npass_ nlost_ ns_ log_
    set rng_ $rng
    set offset_ $offset
    set npass_ 0
    set nlost_ 0
    set log_ ""
    set ns_ [Simulator instance]
    $self set good_ 0
    $self set loss_ 0
}
# start time of the packet being decided (see the module docstring)
LossyTcp/Channel instproc start-time {} {
    $self instvar ns_ offset_
    return [expr {[$ns_ now] - $offset_}]
}
LossyTcp/Channel instproc assign {pass lost} {
    $self instvar npass_ nlost_ log_
    incr npass_ $pass
    incr nlost_ $lost
    $self set good_ $pass
    $self set loss_ $lost
    if {$log_ != ""} { puts $log_ "[$self start-time] $pass $lost" }
}
LossyTcp/Channel instproc log-to {chan} { $self instvar log_; set log_ $chan }
# packets passed and lost so far: what was assigned minus what is still pending
LossyTcp/Channel instproc counts {} {
    $self instvar npass_ nlost_
    set g [$self set good_]
    set l [$self set loss_]
    set p [expr {$npass_ - ($g > 0 ? $g : 0)}]
    set d [expr {$nlost_ - ($l > 0 ? $l : 0)}]
    return "$p $d"
}

Class LossyTcp/None -superclass LossyTcp/Channel
LossyTcp/None instproc read {} { $self assign 1000000000 0 }

Class LossyTcp/Bernoulli -superclass LossyTcp/Channel
LossyTcp/Bernoulli instproc init {rng offset p} {
    $self next $rng $offset
    $self instvar p_
    set p_ $p
}
LossyTcp/Bernoulli instproc read {} {
    $self instvar rng_ p_
    if {$p_ <= 0.0} { $self assign 1000000000 0; return }
    $self assign [lossytcp_geom0 $rng_ $p_] 1
}

# Gilbert-Elliott stepped once per transmission, Good always delivers, Bad always loses: the
# runs are geometric, Good ~ Geom(alpha) and Bad ~ Geom(beta) transmissions. The first
# packet's state is drawn from the stationary law; by memorylessness its run is a full one.
Class LossyTcp/GERuns -superclass LossyTcp/Channel
LossyTcp/GERuns instproc init {rng offset alpha beta} {
    $self next $rng $offset
    $self instvar alpha_ beta_ started_
    set alpha_ $alpha
    set beta_ $beta
    set started_ 0
}
LossyTcp/GERuns instproc read {} {
    $self instvar rng_ alpha_ beta_ started_
    if {!$started_} {
        set started_ 1
        if {rand() < $alpha_ / ($alpha_ + $beta_)} {
            $self assign 0 [lossytcp_geom1 $rng_ $beta_]
            return
        }
    }
    # every later read starts a Good run: the previous Bad run just ended
    $self assign [lossytcp_geom1 $rng_ $alpha_] [lossytcp_geom1 $rng_ $beta_]
}

# Gilbert-Elliott in full generality, packet by packet: advance per transmission or per
# slot (n slots between two starts: P(Bad) = pi_B + (1{Bad} - pi_B) (1 - alpha - beta)^n),
# loss probabilities per state, optional redraw from stationarity after an idle gap.
Class LossyTcp/GE -superclass LossyTcp/Channel
LossyTcp/GE instproc init {rng offset alpha beta loss_good loss_bad per_slot slot_s idle_s} {
    $self next $rng $offset
    $self instvar alpha_ beta_ lg_ lb_ per_slot_ slot_ idle_ bad_ last_slot_ last_t_ pib_
    set alpha_ $alpha
    set beta_ $beta
    set lg_ $loss_good
    set lb_ $loss_bad
    set per_slot_ $per_slot
    set slot_ $slot_s
    set idle_ $idle_s
    set bad_ -1
    set last_slot_ 0
    set last_t_ 0.0
    set pib_ [expr {$alpha / ($alpha + $beta)}]
}
LossyTcp/GE instproc read {} {
    # one instvar and no method calls: this runs for every packet
    $self instvar ns_ offset_ alpha_ beta_ lg_ lb_ per_slot_ slot_ idle_ bad_ last_slot_ \
        last_t_ pib_ good_ loss_ npass_ nlost_ log_
    set t [expr {[$ns_ now] - $offset_}]
    # starts one slot apart are exactly k and k+1 slots; the 1e-6 absorbs float sums
    set k [expr {wide(floor($t / $slot_ + 1e-6))}]
    if {$bad_ < 0 || ($idle_ > 0 && $t - $last_t_ > $idle_)} {
        set bad_ [expr {rand() < $pib_}]
    } else {
        set n [expr {$per_slot_ ? $k - $last_slot_ : 1}]
        if {$n > 0} {
            set p [expr {$pib_ + ($bad_ - $pib_) * pow(1.0 - $alpha_ - $beta_, $n)}]
            set bad_ [expr {rand() < $p}]
        }
    }
    set last_slot_ $k
    set last_t_ $t
    if {rand() < ($bad_ ? $lb_ : $lg_)} {
        set good_ 0
        set loss_ 1
        incr nlost_
        if {$log_ != ""} { puts $log_ "$t 0 1" }
    } else {
        set good_ 1
        set loss_ 0
        incr npass_
        if {$log_ != ""} { puts $log_ "$t 1 0" }
    }
}

# Paper 002's DropTail stand-in: outside a hold each packet starts one with probability p
# (and is lost); everything starting within `hold` of that packet is lost too. Outside holds
# the number of packets before the next trigger is Geom0(p), so one call covers it.
Class LossyTcp/Burst -superclass LossyTcp/Channel
LossyTcp/Burst instproc init {rng offset p hold_s} {
    $self next $rng $offset
    $self instvar p_ hold_ until_ pending_
    set p_ $p
    set hold_ $hold_s
    set until_ -1.0
    set pending_ 0
}
LossyTcp/Burst instproc read {} {
    $self instvar rng_ p_ hold_ until_ pending_
    set t [$self start-time]
    if {$t < $until_} { $self assign 0 1; return }
    if {$p_ <= 0.0} { $self assign 1000000000 0; return }
    if {$pending_} {
        set k 0
    } else {
        set k [lossytcp_geom0 $rng_ $p_]
    }
    if {$k == 0} {
        set pending_ 0
        set until_ [expr {$t + $hold_}]
        $self assign 0 1
    } else {
        # this packet and k-1 more pass; the read after them is the trigger
        set pending_ 1
        $self assign $k 0
    }
}

# Channels whose state is a function of time alone (Gilbert-Elliott stepped per slot, the
# two-state channel in continuous time) need no per-packet Tcl: ns-2's native ErrorModel
# drops each packet with probability rate_, and scheduled events set rate_ to the loss
# probability of the state the channel enters. The per-slot chain is sampled at its
# changes only: from a state held at slot k, the next change is Geom(leaving probability)
# slots later. A change at slot k is applied a millionth of a slot before k's boundary
# (shifted by the model's offset), so a packet starting exactly on the boundary sees it.
proc lossytcp_ge_switch {em lg lb bad k slot off alpha beta} {
    global ns
    $em set rate_ [expr {$bad ? $lb : $lg}]
    set L [lossytcp_geom1 "" [expr {$bad ? $beta : $alpha}]]
    if {$L >= 1000000000} { return }
    set k2 [expr {$k + $L}]
    $ns at [expr {($k2 - 1e-6) * $slot + $off}] \
        "lossytcp_ge_switch $em $lg $lb [expr {!$bad}] $k2 $slot $off $alpha $beta"
}
proc lossytcp_ge_slot {em off alpha beta lg lb slot} {
    lossytcp_ge_switch $em $lg $lb [expr {rand() < $alpha / ($alpha + $beta)}] 0 $slot $off \
        $alpha $beta
}
# Good and Bad periods in continuous time, exponential or fixed, the first state drawn by
# time fraction and the first period a full one, as in the engine.
proc lossytcp_ts_switch {em lg lb bad t mg mb fixed off} {
    global ns
    $em set rate_ [expr {$bad ? $lb : $lg}]
    set m [expr {$bad ? $mb : $mg}]
    set h [expr {$fixed ? $m : -$m * log([lossytcp_u ""])}]
    set t2 [expr {$t + $h}]
    $ns at [expr {$t2 + $off}] \
        "lossytcp_ts_switch $em $lg $lb [expr {!$bad}] $t2 $mg $mb $fixed $off"
}
proc lossytcp_two_state {em off mg mb lg lb fixed} {
    lossytcp_ts_switch $em $lg $lb [expr {rand() < $mb / ($mg + $mb)}] 0.0 $mg $mb $fixed $off
}
# Count each channel model's two exits (drops to a null agent, so that the link's queue
# monitor sees only queue drops; passes on to the receiver).
proc lossytcp_count {em node} {
    global ns
    set null [new Agent/Null]
    $ns attach-agent $node $null
    set lost [new QueueMonitor]
    set d [new SnoopQueue/Drop]
    $d set-monitor $lost
    $d target $null
    $em drop-target $d
    set passed [new QueueMonitor]
    set i [new SnoopQueue/In]
    $i set-monitor $passed
    $i target [$em target]
    $em target $i
    return [list $passed $lost]
}
proc lossytcp_native {} {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ 0.0
    return $em
}

# A fixed list of runs {pass lost} consumed in order (cyclically when `cycle` is 1,
# otherwise everything after the list passes): loss traces and explicit drop lists.
Class LossyTcp/Runs -superclass LossyTcp/Channel
LossyTcp/Runs instproc init {rng offset runs cycle} {
    $self next $rng $offset
    $self instvar runs_ i_ cycle_
    set runs_ $runs
    set i_ 0
    set cycle_ $cycle
}
LossyTcp/Runs instproc read {} {
    $self instvar runs_ i_ cycle_
    if {$i_ >= [llength $runs_]} {
        if {!$cycle_} { $self assign 1000000000 0; return }
        set i_ 0
    }
    set r [lindex $runs_ $i_]
    incr i_
    $self assign [lindex $r 0] [lindex $r 1]
}
"""
