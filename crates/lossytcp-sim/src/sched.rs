//! The event heap: ordered by (time, insertion counter) so simultaneous events run in the
//! order they were scheduled, on every machine.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::time::Time;

struct Entry<E> {
    at: Time,
    order: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.at == o.at && self.order == o.order
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // BinaryHeap is a max-heap: reverse so the earliest (then first-scheduled) pops first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.at.cmp(&self.at).then_with(|| o.order.cmp(&self.order))
    }
}

pub struct Scheduler<E> {
    heap: BinaryHeap<Entry<E>>,
    counter: u64,
    now: Time,
}

impl<E> Default for Scheduler<E> {
    fn default() -> Self {
        Self {
            heap: BinaryHeap::new(),
            counter: 0,
            now: Time::ZERO,
        }
    }
}

impl<E> Scheduler<E> {
    pub fn now(&self) -> Time {
        self.now
    }
    pub fn schedule(&mut self, at: Time, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        self.counter += 1;
        self.heap.push(Entry {
            at,
            order: self.counter,
            event,
        });
    }
    /// A place in the tie-breaking order for an event kept outside the heap (it runs before
    /// anything scheduled later at the same time, as if it had been scheduled now).
    pub fn next_order(&mut self) -> u64 {
        self.counter += 1;
        self.counter
    }
    /// Schedules `event` at `at` in a tie-breaking place taken earlier with `next_order()`: among
    /// events due at `at` it runs after those scheduled before that place was taken and before
    /// those scheduled after (a timer re-armed lazily keeps the place of its last re-arming).
    pub fn schedule_at_order(&mut self, at: Time, order: u64, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        debug_assert!(order <= self.counter, "order not taken from next_order()");
        self.heap.push(Entry { at, order, event });
    }
    /// Time and order of the earliest event in the heap.
    pub fn peek_key(&self) -> Option<(Time, u64)> {
        self.heap.peek().map(|e| (e.at, e.order))
    }
    /// Moves the clock to an event run from outside the heap.
    pub fn advance(&mut self, at: Time) {
        debug_assert!(at >= self.now, "clock moved back");
        self.now = at;
    }
    /// Pops the next event if it is due no later than `until`, advancing the clock to it.
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        if self.heap.peek()?.at > until {
            return None;
        }
        let e = self.heap.pop()?;
        self.now = e.at;
        Some((e.at, e.event))
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simultaneous_events_pop_in_scheduling_order() {
        let mut s = Scheduler::default();
        s.schedule(Time(5), 'b');
        s.schedule(Time(1), 'a');
        s.schedule(Time(5), 'c');
        s.schedule(Time(5), 'd');
        let got: Vec<char> = std::iter::from_fn(|| s.pop_until(Time::MAX).map(|e| e.1)).collect();
        assert_eq!(got, vec!['a', 'b', 'c', 'd']);
    }

    #[test]
    fn an_event_keeps_the_place_it_was_given() {
        let mut s = Scheduler::default();
        let early = s.next_order();
        s.schedule(Time(5), 'b');
        s.schedule_at_order(Time(5), early, 'a');
        s.schedule(Time(5), 'c');
        let got: Vec<char> = std::iter::from_fn(|| s.pop_until(Time::MAX).map(|e| e.1)).collect();
        assert_eq!(got, vec!['a', 'b', 'c']);
    }

    #[test]
    fn pop_until_stops_at_horizon() {
        let mut s = Scheduler::default();
        s.schedule(Time(10), 1);
        assert!(s.pop_until(Time(9)).is_none());
        assert_eq!(s.pop_until(Time(10)), Some((Time(10), 1)));
        assert_eq!(s.now(), Time(10));
    }
}
