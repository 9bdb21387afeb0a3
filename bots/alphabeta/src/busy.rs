//! Which positions another search thread is working on right now: the
//! "exclusive" flag of ABDADA (Weill 1996), for lazy SMP.
//!
//! With several threads on one shared transposition table, threads that
//! search the same moves in the same order duplicate each other's work. A
//! thread marks a child position busy while it searches it; another thread
//! that reaches the same position as a later (not first) move of a node puts
//! it off to the end of that node's move loop, searches other moves
//! meanwhile, and by the time it comes back often finds the result in the
//! table. The table is lossy and lock-free: a slot holds one position's
//! hash; a collision only makes a move look busy or free when it is not,
//! which changes the order of moves, never a result.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::board::hash;

/// log2 of the number of slots: far more than the positions searched at
/// once (a few per thread), so collisions are rare.
pub const BUSY_TABLE_BITS: u32 = 14;

pub struct BusyTable {
    slots: Vec<AtomicU64>,
}

impl Default for BusyTable {
    fn default() -> Self {
        BusyTable::new()
    }
}

impl BusyTable {
    pub fn new() -> BusyTable {
        BusyTable { slots: (0..1usize << BUSY_TABLE_BITS).map(|_| AtomicU64::new(0)).collect() }
    }

    #[inline(always)]
    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[(key >> (64 - BUSY_TABLE_BITS)) as usize]
    }

    /// The key of a position (never 0, which marks a free slot).
    #[inline(always)]
    pub fn key(player: u64, opponent: u64) -> u64 {
        hash(player, opponent) | 1
    }

    /// Whether a thread is searching the position with this key.
    #[inline(always)]
    pub fn is_busy(&self, key: u64) -> bool {
        self.slot(key).load(Relaxed) == key
    }

    /// Marks the position busy (until [`BusyTable::leave`]).
    #[inline(always)]
    pub fn enter(&self, key: u64) {
        self.slot(key).store(key, Relaxed);
    }

    /// Clears the mark, if it is still this position's.
    #[inline(always)]
    pub fn leave(&self, key: u64) {
        let _ = self.slot(key).compare_exchange(key, 0, Relaxed, Relaxed);
    }
}

/// Runs `search` on the position `(player, opponent)` with it marked busy meanwhile, when the
/// threads share a `busy` table.
#[inline(always)]
pub fn while_busy<T>(busy: Option<&BusyTable>, player: u64, opponent: u64, search: impl FnOnce() -> T) -> T {
    let Some(busy) = busy else { return search() };
    let key = BusyTable::key(player, opponent);
    busy.enter(key);
    let result = search();
    busy.leave(key);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_is_busy_between_enter_and_leave() {
        let busy = BusyTable::new();
        let key = BusyTable::key(0x10, 0x20);
        assert!(!busy.is_busy(key));
        busy.enter(key);
        assert!(busy.is_busy(key));
        assert!(!busy.is_busy(BusyTable::key(0x20, 0x10)));
        busy.leave(key);
        assert!(!busy.is_busy(key));
    }
}
