//! Named variants as (growth, recovery) pairs.

use super::cc::{Growth, Reno as RenoGrowth, Vegas as VegasGrowth, VegasParams};
use super::recovery::{NewReno, Recovery, Reno, RtoOnly, Sack, Tahoe, Vegas};
use crate::config::Variant;

/// The phase of ns-2 2.35's RTT tick clock, `boot_time_ / tcpTick_`, for a single agent in
/// the scripts `lossytcp.ns2` writes. TcpAgent::reset() draws `boot_time_ =
/// Random::uniform(tcpTick_)` from ns-2's default generator, which those scripts leave at
/// its fixed seed, and the reset every agent gets when the run starts makes the last draw:
/// the phase is the same in every run, whatever the seed. Vegas's delay_bind_init_all()
/// calls reset() once more, so its agent takes a later draw. Both read from the Debian
/// binary with gdb (the first argument of fmod() in the first rtt_update(): sendtime 0 plus
/// boot_time_): 0.0055588071598279961 s and 0.00014204660652803589 s at a 10 ms tick.
pub fn ns2_tick_phase(v: Variant) -> f64 {
    match v {
        Variant::Vegas => 0.014_204_660_652_803_59,
        _ => 0.555_880_715_982_799_6,
    }
}

pub fn build(v: Variant, vegas: VegasParams) -> (Growth, Recovery) {
    let reno = Growth::Reno(RenoGrowth);
    match v {
        Variant::OldTahoe => (reno, Recovery::RtoOnly(RtoOnly)),
        Variant::Tahoe => (reno, Recovery::Tahoe(Tahoe)),
        Variant::Reno => (reno, Recovery::Reno(Reno)),
        Variant::NewReno => (reno, Recovery::NewReno(NewReno::default())),
        Variant::Sack => (reno, Recovery::Sack(Sack::default())),
        // Brakmo & Peterson's Vegas changes both axes: the window rule and retransmission.
        Variant::Vegas => (
            Growth::Vegas(VegasGrowth::new(vegas)),
            Recovery::Vegas(Vegas::default()),
        ),
    }
}
