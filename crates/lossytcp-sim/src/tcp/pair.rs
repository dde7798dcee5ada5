//! The simulator runs a scenario on a sender monomorphised for its plugin pair.
//!
//! `Sender<GrowthImpl, RecoveryImpl>` matches an enum at every plugin hook, a dozen times per
//! ACK. When
//! every flow of a scenario uses the same preset pair (one flow, or n flows of one variant)
//! the simulator is instantiated for that pair's concrete types instead; a scenario that
//! mixes pairs runs on the enum-dispatched sets. This saves 1.2-1.3% of the instructions of
//! the single-flow bench scenarios (callgrind, `bench/README.md`).

use super::cc::{Bbr, Cubic, GrowthImpl, Reno, Vegas, Westwood};
use super::recovery::{self, NewReno, RecoveryImpl, RtoOnly, Sack, Sack1, Tahoe};
use super::{cc::Growth, recovery::Recovery, SenderConfig};

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

concrete!(FromGrowthImpl, GrowthImpl, Reno => Reno, Vegas => Vegas, Westwood => Westwood,
    Cubic => Cubic, Bbr => Bbr);
concrete!(FromRecoveryImpl, RecoveryImpl, RtoOnly => RtoOnly, Tahoe => Tahoe,
    recovery::Reno => Reno, NewReno => NewReno, Sack => Sack, Sack1 => Sack1,
    recovery::Vegas => Vegas);

/// Whether a sender configuration's plugins are of the types `(G, R)`.
pub fn fits<G: FromGrowthImpl, R: FromRecoveryImpl>(cfg: &SenderConfig) -> bool {
    G::from_impl(GrowthImpl::new(&cfg.growth, cfg.seed)).is_some()
        && R::from_impl(RecoveryImpl::new(&cfg.recovery)).is_some()
}

/// Whether every configuration fits `(G, R)`.
pub fn all_fit<G: FromGrowthImpl, R: FromRecoveryImpl>(cfgs: &[SenderConfig]) -> bool {
    cfgs.iter().all(fits::<G, R>)
}

/// `with_pair!(cfgs, f(args...))` calls `f::<G, R>(args...)` with the concrete pair of the
/// presets that fits every configuration of `cfgs`, or with the enum sets if none does. The
/// list of pairs the simulator is instantiated for is this one.
macro_rules! with_pair {
    ($cfgs:expr, $f:ident($($arg:expr),*)) => {{
        use $crate::tcp::cc::{Bbr, Cubic, GrowthImpl, Reno, Vegas, Westwood};
        use $crate::tcp::pair::all_fit;
        use $crate::tcp::recovery::{self as rec, RecoveryImpl};
        let cfgs: &[$crate::tcp::SenderConfig] = $cfgs;
        if all_fit::<Reno, rec::RtoOnly>(cfgs) {
            $f::<Reno, rec::RtoOnly>($($arg),*)
        } else if all_fit::<Reno, rec::Tahoe>(cfgs) {
            $f::<Reno, rec::Tahoe>($($arg),*)
        } else if all_fit::<Reno, rec::Reno>(cfgs) {
            $f::<Reno, rec::Reno>($($arg),*)
        } else if all_fit::<Reno, rec::NewReno>(cfgs) {
            $f::<Reno, rec::NewReno>($($arg),*)
        } else if all_fit::<Reno, rec::Sack>(cfgs) {
            $f::<Reno, rec::Sack>($($arg),*)
        } else if all_fit::<Reno, rec::Sack1>(cfgs) {
            $f::<Reno, rec::Sack1>($($arg),*)
        } else if all_fit::<Vegas, rec::Vegas>(cfgs) {
            $f::<Vegas, rec::Vegas>($($arg),*)
        } else if all_fit::<Westwood, rec::NewReno>(cfgs) {
            $f::<Westwood, rec::NewReno>($($arg),*)
        } else if all_fit::<Cubic, rec::Sack>(cfgs) {
            $f::<Cubic, rec::Sack>($($arg),*)
        } else if all_fit::<Bbr, rec::Sack>(cfgs) {
            $f::<Bbr, rec::Sack>($($arg),*)
        } else {
            $f::<GrowthImpl, RecoveryImpl>($($arg),*)
        }
    }};
}
pub(crate) use with_pair;
