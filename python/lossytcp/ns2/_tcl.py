"""Tcl text for ns-2 2.35: the channel models and the script around them.

The channel models are OTcl subclasses of ns-2's ``ErrorModel/Trace``. That C++ class keeps
two counters, ``good_`` (packets still to pass) and ``loss_`` (packets still to drop after
them), and calls the OTcl method ``read`` on the first packet that finds both exhausted. Each
model overrides ``read`` to decide the fate of *that* packet and, where its law allows, of a
whole run after it: ``assign G B`` lets the current packet and the next ``G - 1`` pass and
drops the ``B`` after them (``assign 0 B`` drops the current packet first). Models whose runs
have a closed-form length (Bernoulli, Gilbert-Elliott stepped per transmission with losses
0/1, the burst dropper, an explicit drop list, a loss trace) therefore cost one Tcl call per
run, not per packet, and stay close to ns-2's native speed; the others decide packet by
packet. Every model counts what it passed and dropped, so the script reports exact channel
losses and receptions without a packet trace.

Where the model sits: ``$ns link-lossmodel`` puts it *after* the link's delay element, so it
sees a packet when its last bit arrives at the receiver, ``D = size*8/rate + one-way delay``
after its transmission started. The engine draws a packet's fate when transmission starts.
The two agree exactly: packets leave a FIFO link in transmission order, so per-transmission
models see the same sequence, and time-driven models (slot-stepped Gilbert-Elliott, burst
holds, two-state periods) subtract the constant ``D`` from ``$ns now`` to get the start time.
A lost packet still occupies the link for its whole transmission time, as in the engine.
(``$ns lossmodel`` would put the model before the queue instead, where a packet's fate would
be drawn at enqueue time and a dropped packet would free the link at once.)

Random numbers come from one ns-2 ``RNG`` object per direction, seeded from the run's seed;
ns-2's RNG needs a seed >= 1 (0 means "seed from the clock"), hence ``seed + 1``.
"""

from __future__ import annotations

# One OTcl prelude, emitted into every script. Geometric draws use inversion on 1 - U, which
# lies in (0, 1]: log() never sees 0. Counters use Tcl's wide integers.
CHANNEL_CLASSES = r"""
proc lossytcp_u {rng} { return [expr {1.0 - [$rng uniform 0 1]}] }
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
        if {[$rng_ uniform 0 1] < $alpha_ / ($alpha_ + $beta_)} {
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
    $self instvar rng_ alpha_ beta_ lg_ lb_ per_slot_ slot_ idle_ bad_ last_slot_ last_t_ pib_
    set t [$self start-time]
    # starts one slot apart are exactly k and k+1 slots; the 1e-6 absorbs float sums
    set k [expr {wide(floor($t / $slot_ + 1e-6))}]
    if {$bad_ < 0 || ($idle_ > 0 && $t - $last_t_ > $idle_)} {
        set bad_ [expr {[$rng_ uniform 0 1] < $pib_}]
    } else {
        set n [expr {$per_slot_ ? $k - $last_slot_ : 1}]
        if {$n > 0} {
            set p [expr {$pib_ + ($bad_ - $pib_) * pow(1.0 - $alpha_ - $beta_, $n)}]
            set bad_ [expr {[$rng_ uniform 0 1] < $p}]
        }
    }
    set last_slot_ $k
    set last_t_ $t
    set pl [expr {$bad_ ? $lb_ : $lg_}]
    if {[$rng_ uniform 0 1] < $pl} { $self assign 0 1 } else { $self assign 1 0 }
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

# Good and Bad periods in continuous time (exponential or fixed), state at the start drawn
# by time fraction; each packet is lost with its state's probability.
Class LossyTcp/TwoState -superclass LossyTcp/Channel
LossyTcp/TwoState instproc init {rng offset good_s bad_s loss_good loss_bad fixed} {
    $self next $rng $offset
    $self instvar mg_ mb_ lg_ lb_ fixed_ bad_ until_
    set mg_ $good_s
    set mb_ $bad_s
    set lg_ $loss_good
    set lb_ $loss_bad
    set fixed_ $fixed
    set bad_ -1
    set until_ 0.0
}
LossyTcp/TwoState instproc hold {} {
    $self instvar rng_ mg_ mb_ fixed_ bad_
    set m [expr {$bad_ ? $mb_ : $mg_}]
    if {$fixed_} { return $m }
    return [expr {-$m * log([lossytcp_u $rng_])}]
}
LossyTcp/TwoState instproc read {} {
    $self instvar rng_ mg_ mb_ lg_ lb_ bad_ until_
    set t [$self start-time]
    if {$bad_ < 0} {
        set bad_ [expr {[$rng_ uniform 0 1] < $mb_ / ($mg_ + $mb_)}]
        set until_ [$self hold]
    }
    while {$t >= $until_} {
        set bad_ [expr {!$bad_}]
        set until_ [expr {$until_ + [$self hold]}]
    }
    set pl [expr {$bad_ ? $lb_ : $lg_}]
    if {[$rng_ uniform 0 1] < $pl} { $self assign 0 1 } else { $self assign 1 0 }
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
