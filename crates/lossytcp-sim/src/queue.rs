//! DropTail: a FIFO that refuses arrivals once `limit` packets wait.

use std::collections::VecDeque;

use crate::packet::Packet;

pub struct DropTail {
    q: VecDeque<Packet>,
    limit: usize,
}

impl DropTail {
    pub fn new(limit: usize) -> Self {
        Self {
            q: VecDeque::with_capacity(limit.min(4096)),
            limit,
        }
    }
    /// Returns the packet back when the queue is full.
    pub fn push(&mut self, p: Packet) -> Result<(), Packet> {
        if self.q.len() >= self.limit {
            Err(p)
        } else {
            self.q.push_back(p);
            Ok(())
        }
    }
    pub fn pop(&mut self) -> Option<Packet> {
        self.q.pop_front()
    }
    pub fn len(&self) -> usize {
        self.q.len()
    }
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}
