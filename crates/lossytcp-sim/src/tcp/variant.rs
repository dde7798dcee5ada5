//! Named variants as (growth, recovery) pairs.

use super::cc::{Growth, Reno as RenoGrowth};
use super::recovery::{NewReno, Recovery, Reno, RtoOnly, Sack, Tahoe};
use crate::config::Variant;

pub fn build(v: Variant) -> (Growth, Recovery) {
    let growth = Growth::Reno(RenoGrowth);
    let recovery = match v {
        Variant::OldTahoe => Recovery::RtoOnly(RtoOnly),
        Variant::Tahoe => Recovery::Tahoe(Tahoe),
        Variant::Reno => Recovery::Reno(Reno),
        Variant::NewReno => Recovery::NewReno(NewReno::default()),
        Variant::Sack => Recovery::Sack(Sack::default()),
    };
    (growth, recovery)
}
