//! The simulator runs a scenario on a sender monomorphised for its plugin pair.
//!
//! `Sender<GrowthImpl, RecoveryImpl>` matches an enum at every plugin hook, a dozen times per
//! ACK, and the matches keep the compiler from inlining the hooks into the ACK path. When
//! every flow of a scenario uses the same preset pair (one flow, or n flows of one variant)
//! the simulator is instantiated for that pair's concrete types instead; a scenario that
//! mixes pairs runs on the enum-dispatched sets. This is worth 7% of the instructions per
//! packet of a single NewReno flow (callgrind, `bench/README.md`).

use super::cc::{GrowthConfig, GrowthImpl, Reno, Vegas, Westwood};
use super::recovery::{self, NewReno, RecoveryConfig, RecoveryImpl, RtoOnly, Sack, Sack1, Tahoe};
use super::{cc::Growth, recovery::Recovery};

/// A growth plugin type the simulator can be instantiated for: taken out of the enum set.
pub trait FromGrowthImpl: Growth + Sized {
    fn from_impl(g: GrowthImpl) -> Option<Self>;
}

/// A recovery plugin type the simulator can be instantiated for.
pub trait FromRecoveryImpl: Recovery + Sized {
    fn from_impl(r: RecoveryImpl) -> Option<Self>;
}

impl FromGrowthImpl for GrowthImpl {
    fn from_impl(g: GrowthImpl) -> Option<Self> {
        Some(g)
    }
}

impl FromRecoveryImpl for RecoveryImpl {
    fn from_impl(r: RecoveryImpl) -> Option<Self> {
        Some(r)
    }
}

macro_rules! concrete {
    ($trait:ident, $set:ident, $($ty:ty => $v:ident),+) => {$(
        impl $trait for $ty {
            fn from_impl(x: $set) -> Option<Self> {
                match x {
                    $set::$v(p) => Some(p),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
        }
    )+};
}

concrete!(FromGrowthImpl, GrowthImpl, Reno => Reno, Vegas => Vegas, Westwood => Westwood);
concrete!(FromRecoveryImpl, RecoveryImpl, RtoOnly => RtoOnly, Tahoe => Tahoe,
    recovery::Reno => Reno, NewReno => NewReno, Sack => Sack, Sack1 => Sack1,
    recovery::Vegas => Vegas);

/// The plugin pair of a sender configuration, by kind (parameters aside).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pair {
    Reno(RecoveryKind),
    VegasVegas,
    WestwoodNewReno,
    /// A pair no preset builds.
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryKind {
    RtoOnly,
    Tahoe,
    Reno,
    NewReno,
    Sack,
    Sack1,
}

impl Pair {
    pub fn of(growth: &GrowthConfig, recovery: &RecoveryConfig) -> Pair {
        use RecoveryConfig as R;
        match (growth, recovery) {
            (GrowthConfig::Reno(_), r) => Pair::Reno(match r {
                R::RtoOnly => RecoveryKind::RtoOnly,
                R::Tahoe => RecoveryKind::Tahoe,
                R::Reno(_) => RecoveryKind::Reno,
                R::NewReno(_) => RecoveryKind::NewReno,
                R::Sack => RecoveryKind::Sack,
                R::Sack1 => RecoveryKind::Sack1,
                R::Vegas(_) => return Pair::Other,
            }),
            (GrowthConfig::Vegas(_), R::Vegas(_)) => Pair::VegasVegas,
            (GrowthConfig::Westwood(_), R::NewReno(_)) => Pair::WestwoodNewReno,
            _ => Pair::Other,
        }
    }
}
