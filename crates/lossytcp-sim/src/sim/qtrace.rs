//! The optional queue trace of one link, bounded to a time window (and a record limit) so
//! memory does not grow with simulated time (paper 002 Figs. 15-18).

use crate::config::QueueTraceConfig;
use crate::link::Fate;
use crate::metrics::QueueTrace;
use crate::packet::{Kind, Packet};
use crate::queue::DropReason;
use crate::time::Time;

pub(super) struct QueueTracer {
    pub link: usize,
    from: Time,
    to: Time,
    max: usize,
    pub out: QueueTrace,
}

impl QueueTracer {
    pub fn new(cfg: &QueueTraceConfig) -> Self {
        Self {
            link: cfg.link,
            from: Time::from_secs(cfg.from_s),
            to: Time::from_secs(cfg.to_s),
            max: cfg.max_records,
            out: QueueTrace {
                link: cfg.link,
                ..QueueTrace::default()
            },
        }
    }

    #[inline]
    pub fn wants(&self, link: usize, now: Time) -> bool {
        link == self.link && now >= self.from && now <= self.to
    }

    /// One arrival at the traced queue: `waiting` packets were queued when it came, `fate`
    /// is the link's decision, `dequeue` when an admitted packet starts transmission,
    /// `flow` / `traffic` its owner.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        now: Time,
        p: &Packet,
        fate: Fate,
        waiting: usize,
        red_avg: Option<f64>,
        dequeue: Time,
        flow: i64,
        traffic: i64,
    ) {
        let o = &mut self.out;
        if o.t_s.len() >= self.max {
            o.truncated = true;
            return;
        }
        let (event, admitted) = match fate {
            Fate::Arrives(_) => ("admit", true),
            Fate::Lost => ("lost", true),
            Fate::Dropped(DropReason::Early) => ("early", false),
            Fate::Dropped(DropReason::Forced) => ("forced", false),
        };
        let (packet, seq) = match p.kind {
            Kind::Data { seq, .. } => ("data", seq),
            Kind::Ack { ack, .. } => ("ack", ack),
            Kind::Udp { seq } => ("udp", seq),
        };
        o.t_s.push(now.as_secs());
        o.event.push(event);
        o.packet.push(packet);
        o.flow.push(flow);
        o.traffic.push(traffic);
        o.seq.push(seq);
        o.queue_packets.push(waiting as u32);
        o.red_avg.push(red_avg);
        o.dequeue_s.push(admitted.then(|| dequeue.as_secs()));
    }
}
