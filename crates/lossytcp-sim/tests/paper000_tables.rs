//! Paper 000 (Anjum & Tassiulas), Tables II and III: packets 15-19 lost from a window of 8
//! (packets 15-22 outstanding when the ACK for 14 arrives). Tahoe recovers them in three
//! RTTs, NewReno in five, one retransmission per RTT.

mod common;
use common::*;
use lossytcp_sim::config::{Profile, Variant};

const LOST: [u64; 5] = [15, 16, 17, 18, 19];

#[test]
fn table_ii_tahoe_recovers_in_three_rtts() {
    for profile in [Profile::Rfc, Profile::Ns2] {
        let r = with_drops(Variant::Tahoe, &LOST, 8, profile, 40);
        let b = bursts_from_retransmission(&r, 15);
        // Table II, column "Pkt sent": 15 | 16,17 | 18,19 | 20,21 ... one ACK-clocked round
        // each; within a round the packets go out as ACKs arrive.
        let rounds: Vec<Vec<u64>> = b.iter().take(4).cloned().collect();
        assert_eq!(rounds[0], vec![15], "{profile:?}");
        assert_eq!(rounds[1], vec![16, 17], "{profile:?}");
        assert_eq!(rounds[2], vec![18, 19, 20, 21], "{profile:?}");
        assert_eq!(rounds[3], vec![22, 23, 24, 25, 26], "{profile:?}");
        assert_eq!(r.fast_retransmits, 1);
        assert_eq!(r.timeouts, 0);
        // Everything through 19 is retransmitted by the third round: three RTTs.
        let third = &rounds[2];
        assert!(LOST
            .iter()
            .all(|s| rounds[..3].iter().flatten().any(|x| x == s) || third.contains(s)));
        // cwnd 1 -> 2 -> 3 -> 4 -> 4.25 -> 4.49 (Table II's W column, 4.5 rounded).
        let t15 = r.send_trace.iter().find(|x| x.1 == 15 && x.2).unwrap().0;
        assert_eq!(cwnd_at(&r, t15), 1.0);
        let t22 = r.send_trace.iter().find(|x| x.1 == 22 && x.2).unwrap().0;
        assert!((cwnd_at(&r, t22) - 4.25).abs() < 1e-12);
        let t23 = r.send_trace.iter().find(|x| x.1 == 23).unwrap().0;
        assert!((cwnd_at(&r, t23) - (4.25 + 1.0 / 4.25)).abs() < 1e-12);
    }
}

#[test]
fn table_iii_newreno_ns2_takes_five_rtts() {
    let r = with_drops(Variant::NewReno, &LOST, 8, Profile::Ns2, 40);
    let b = bursts_from_retransmission(&r, 15);
    // Table III: one retransmission per RTT, no new data while cwnd = ssthresh = 4 and 7
    // packets are outstanding; then 23-26 once the ACK for 22 arrives.
    assert_eq!(
        &b[..6],
        &[
            vec![15],
            vec![16],
            vec![17],
            vec![18],
            vec![19],
            vec![23, 24, 25, 26]
        ]
    );
    let t15 = r.send_trace.iter().find(|x| x.1 == 15 && x.2).unwrap().0;
    assert_eq!(cwnd_at(&r, t15), 7.0, "ssthresh 4 + 3 duplicate ACKs");
    let t16 = r.send_trace.iter().find(|x| x.1 == 16 && x.2).unwrap().0;
    assert_eq!(cwnd_at(&r, t16), 4.0, "partial ACK: W = 4");
    let t23 = r.send_trace.iter().find(|x| x.1 == 23).unwrap().0;
    assert_eq!(cwnd_at(&r, t23), 4.0);
    assert!((t23 - t15) > 4.9 * 2.0 * ONE_WAY_S && (t23 - t15) < 5.2 * 2.0 * ONE_WAY_S);
    assert_eq!((r.fast_retransmits, r.timeouts), (1, 0));
}

#[test]
fn newreno_rfc6582_partial_acks_deflate_and_send_new_data() {
    let r = with_drops(Variant::NewReno, &LOST, 8, Profile::Rfc, 40);
    let b = bursts_from_retransmission(&r, 15);
    // cwnd 7 at entry; partial ACK for 15 (one new segment): 7 - 1 + 1 = 7 with 7 outstanding
    // (16-22): only the retransmission. The partial ACK for 16 frees a slot for 23; 23 then
    // draws a duplicate ACK that inflates cwnd to 8 (§3.2 step 4), so 25 follows 24; the
    // advertised window of 8 stops the last round at 26.
    assert_eq!(
        &b[..5],
        &[
            vec![15],
            vec![16],
            vec![17, 23],
            vec![18, 24, 25],
            vec![19, 26]
        ]
    );
    let t16 = r.send_trace.iter().find(|x| x.1 == 16 && x.2).unwrap().0;
    assert_eq!(cwnd_at(&r, t16), 7.0);
    assert_eq!((r.fast_retransmits, r.timeouts), (1, 0));
}
