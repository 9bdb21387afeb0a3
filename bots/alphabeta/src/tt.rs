//! The transposition table: bounds on positions already searched.
//!
//! Each entry stores the full position (so there are no false hits), a lower
//! and an upper bound on its score, the best move found and the depth the
//! bounds hold for. A position may live in either slot of its bucket; a new
//! position replaces the slot from an older search first, then the shallower
//! one (deep results are costly to recompute).
//!
//! A bucket is one 64-byte cache line: a probe costs at most one memory
//! access, and [`TranspositionTable::prefetch`] can start that access early
//! (the endgame solver asks for its children's buckets before it needs them).

use crate::board::hash;

/// "No move" in [`Entry::best_move`].
pub const NO_MOVE: u8 = 0xFF;

/// One stored position (24 bytes).
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    player: u64,
    opponent: u64,
    /// The score is at least `lower` and at most `upper`.
    pub lower: i16,
    pub upper: i16,
    /// Square of the best move found, or [`NO_MOVE`].
    pub best_move: u8,
    /// Search depth (plies, or empties for exact solves) the bounds are valid for.
    pub depth: u8,
    /// Which search stored it ([`TranspositionTable::new_search`]).
    date: u8,
}

impl Entry {
    const EMPTY: Entry = Entry { player: 0, opponent: 0, lower: 0, upper: 0, best_move: NO_MOVE, depth: 0, date: 0 };
}

/// The slots one position may use, in one cache line.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Bucket([Entry; 2]);

pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    /// log2 of the number of buckets.
    bucket_bits: u32,
    date: u8,
}

impl TranspositionTable {
    /// A table of `2^bits` entries (32 bytes each: two in a 64-byte bucket).
    pub fn new(bits: u32) -> TranspositionTable {
        let bucket_bits = bits.max(1) - 1;
        TranspositionTable { buckets: vec![Bucket([Entry::EMPTY; 2]); 1 << bucket_bits], bucket_bits, date: 1 }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.buckets.fill(Bucket([Entry::EMPTY; 2]));
        self.date = 1;
    }

    /// Marks later stores as newer than everything stored so far, so that old
    /// entries are replaced first.
    pub fn new_search(&mut self) {
        self.date = self.date.wrapping_add(1).max(1);
    }

    #[inline(always)]
    fn bucket(&self, player: u64, opponent: u64) -> usize {
        // The shift is at most 63 (bucket_bits ≥ 0), and the result < 2^bucket_bits.
        (hash(player, opponent) >> (63 - self.bucket_bits) >> 1) as usize
    }

    /// Starts loading this position's bucket into the cache (a hint: no
    /// effect on results).
    #[inline(always)]
    pub fn prefetch(&self, player: u64, opponent: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket: *const Bucket = &self.buckets[self.bucket(player, opponent)];
            // SAFETY: a prefetch only hints the cache; the pointer is to a live element.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (player, opponent);
    }

    /// The entry for this position, if stored.
    #[inline]
    pub fn probe(&self, player: u64, opponent: u64) -> Option<Entry> {
        let bucket = &self.buckets[self.bucket(player, opponent)].0;
        bucket.iter().find(|entry| entry.player == player && entry.opponent == opponent).copied()
    }

    /// Stores the result `score` of a search of this position to `depth` with
    /// window (`alpha`, `beta`): a fail-low gives an upper bound, a fail-high a
    /// lower bound, anything between an exact score. `score_limit` is the
    /// widest score (the bound that stays open).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn store(
        &mut self,
        player: u64,
        opponent: u64,
        depth: u32,
        alpha: i32,
        beta: i32,
        score: i32,
        best_move: u8,
        score_limit: i32,
    ) {
        let (lower, upper) = if score <= alpha {
            (-score_limit, score)
        } else if score >= beta {
            (score, score_limit)
        } else {
            (score, score)
        };
        let depth = depth.min(u8::MAX as u32) as u8;
        let date = self.date;
        let index = self.bucket(player, opponent);
        let bucket = &mut self.buckets[index].0;

        // Same position: tighten the bounds at equal depth, replace them if deeper.
        for entry in bucket.iter_mut() {
            if entry.player == player && entry.opponent == opponent {
                if depth == entry.depth {
                    entry.lower = entry.lower.max(lower as i16);
                    entry.upper = entry.upper.min(upper as i16);
                    if entry.lower > entry.upper {
                        // Inconsistent (a search that was cut short): trust the new result.
                        entry.lower = lower as i16;
                        entry.upper = upper as i16;
                    }
                } else if depth > entry.depth {
                    entry.lower = lower as i16;
                    entry.upper = upper as i16;
                    entry.depth = depth;
                } else {
                    return;
                }
                if best_move != NO_MOVE {
                    entry.best_move = best_move;
                }
                entry.date = date;
                return;
            }
        }

        // A new position: replace an entry from an older search, else the shallower one.
        let priority = |e: &Entry| ((e.date == date) as u32) << 8 | e.depth as u32;
        let victim = if priority(&bucket[0]) <= priority(&bucket[1]) { 0 } else { 1 };
        bucket[victim] = Entry { player, opponent, lower: lower as i16, upper: upper as i16, best_move, depth, date };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_bounds_by_window() {
        let mut tt = TranspositionTable::new(4);
        tt.store(1, 2, 5, 0, 10, -3, 7, 64);
        let e = tt.probe(1, 2).unwrap();
        assert_eq!((e.lower, e.upper, e.best_move, e.depth), (-64, -3, 7, 5));
        tt.store(1, 2, 5, -10, -8, -8, NO_MOVE, 64);
        let e = tt.probe(1, 2).unwrap();
        assert_eq!((e.lower, e.upper, e.best_move), (-8, -3, 7));
        assert!(tt.probe(2, 1).is_none());
    }
}
