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
//!
//! ## Shared between threads, without locks
//! Searches on several threads (lazy SMP, see [`crate::search`]) share one
//! table. An entry is three machine words written and read one by one with
//! relaxed atomics (plain loads and stores on x86-64): the packed data, and
//! each half of the position XORed with the data. Two threads writing the
//! same slot at once may leave words of both; a reader then finds that the
//! keys, un-XORed with the data it read, no longer spell its position, and
//! treats the slot as empty. So a torn entry is never used; at worst a result
//! is lost.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::board::hash;
use crate::table_memory::{ZeroIsEmpty, ZeroedBuckets};

/// "No move" in [`Entry::best_move`].
pub const NO_MOVE: u8 = 0xFF;

/// Depths count plies or empties below this; a search may add multiples of
/// it to say how sure its results are (the endgame solver's selectivity,
/// see [`crate::mpc::QUALITY_STEP`]). The sure result replaces a less sure
/// one of the same position, but the choice of which *other* position to
/// evict looks at the work behind each entry only (`depth % DEPTH_WORK_LIMIT`):
/// a selective result at 25 empties orders a big subtree of the exact search
/// that follows, an exact one at 9 empties saves little. FFO #53: 11 % fewer
/// nodes than when exact results at any depth evicted selective ones.
pub const DEPTH_WORK_LIMIT: u8 = 64;

/// One stored position, as read from the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The score is at least `lower` and at most `upper`.
    pub lower: i16,
    pub upper: i16,
    /// Square of the best move found, or [`NO_MOVE`].
    pub best_move: u8,
    /// Search depth (plies, or a quality for exact solves: see
    /// `endgame::Solver`) the bounds are valid for.
    pub depth: u8,
    /// Which search stored it ([`TranspositionTable::new_search`]).
    date: u8,
}

impl Entry {
    /// The entry's fields in one word.
    #[inline(always)]
    fn pack(self) -> u64 {
        (self.lower as u16 as u64)
            | (self.upper as u16 as u64) << 16
            | (self.best_move as u64) << 32
            | (self.depth as u64) << 40
            | (self.date as u64) << 48
    }

    #[inline(always)]
    fn unpack(data: u64) -> Entry {
        Entry {
            lower: data as u16 as i16,
            upper: (data >> 16) as u16 as i16,
            best_move: (data >> 32) as u8,
            depth: (data >> 40) as u8,
            date: (data >> 48) as u8,
        }
    }
}

/// One slot: the packed [`Entry`] and the position's halves XORed with it.
#[derive(Default)]
struct Slot {
    player_key: AtomicU64,
    opponent_key: AtomicU64,
    data: AtomicU64,
}

impl Slot {
    /// The slot's entry if it holds this position (whole, not torn).
    #[inline(always)]
    fn read(&self, player: u64, opponent: u64) -> Option<Entry> {
        let data = self.data.load(Relaxed);
        let hit = self.player_key.load(Relaxed) ^ data == player && self.opponent_key.load(Relaxed) ^ data == opponent;
        // An empty slot (all zero) reads as the empty board, which no search stores.
        hit.then(|| Entry::unpack(data))
    }

    /// The slot's entry whatever position it holds (for replacement choices).
    #[inline(always)]
    fn entry(&self) -> Entry {
        Entry::unpack(self.data.load(Relaxed))
    }

    #[inline(always)]
    fn write(&self, player: u64, opponent: u64, entry: Entry) {
        let data = entry.pack();
        self.data.store(data, Relaxed);
        self.player_key.store(player ^ data, Relaxed);
        self.opponent_key.store(opponent ^ data, Relaxed);
    }

    fn clear(&self) {
        self.data.store(0, Relaxed);
        self.player_key.store(0, Relaxed);
        self.opponent_key.store(0, Relaxed);
    }
}

/// The slots one position may use, in one cache line.
#[derive(Default)]
#[repr(align(64))]
pub(crate) struct Bucket([Slot; 2]);

// SAFETY: a bucket is atomics of u64 only; all zero, each is 0, which is
// also `Default` (the empty slot of `Slot::read`).
unsafe impl ZeroIsEmpty for Bucket {
    fn empty() -> Bucket {
        Bucket::default()
    }
}

pub struct TranspositionTable {
    buckets: ZeroedBuckets<Bucket>,
    /// log2 of the number of buckets.
    bucket_bits: u32,
    date: u8,
}

impl TranspositionTable {
    /// A table of `2^bits` entries (two in a 64-byte bucket).
    pub fn new(bits: u32) -> TranspositionTable {
        let bucket_bits = bits.max(1) - 1;
        TranspositionTable { buckets: ZeroedBuckets::new(1usize << bucket_bits), bucket_bits, date: 1 }
    }

    /// A table of `2^bits` entries, or `None` if the memory cannot be had
    /// (a process memory limit, say).
    pub fn try_new(bits: u32) -> Option<TranspositionTable> {
        let bucket_bits = bits.max(1) - 1;
        let buckets = ZeroedBuckets::try_new(1usize.checked_shl(bucket_bits)?)?;
        Some(TranspositionTable { buckets, bucket_bits, date: 1 })
    }

    /// log2 of the number of entries.
    pub fn bits(&self) -> u32 {
        self.bucket_bits + 1
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        for bucket in self.buckets.iter() {
            bucket.0.iter().for_each(Slot::clear);
        }
        self.date = 1;
    }

    /// Marks later stores as newer than everything stored so far, so that old
    /// entries are replaced first.
    pub fn new_search(&mut self) {
        self.date = self.date.wrapping_add(1).max(1);
    }

    #[inline(always)]
    fn bucket(&self, player: u64, opponent: u64) -> &Bucket {
        // The shift is at most 63 (bucket_bits ≥ 0), and the result < 2^bucket_bits.
        &self.buckets[(hash(player, opponent) >> (63 - self.bucket_bits) >> 1) as usize]
    }

    /// Starts loading this position's bucket into the cache (a hint: no
    /// effect on results).
    #[inline(always)]
    pub fn prefetch(&self, player: u64, opponent: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let bucket: *const Bucket = self.bucket(player, opponent);
            // SAFETY: a prefetch only hints the cache; the pointer is to a live element.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (player, opponent);
    }

    /// The entry for this position, if stored.
    #[inline]
    pub fn probe(&self, player: u64, opponent: u64) -> Option<Entry> {
        let bucket = &self.bucket(player, opponent).0;
        bucket[0].read(player, opponent).or_else(|| bucket[1].read(player, opponent))
    }

    /// Stores the result `score` of a search of this position to `depth` with
    /// window (`alpha`, `beta`): a fail-low gives an upper bound, a fail-high a
    /// lower bound, anything between an exact score. `score_limit` is the
    /// widest score (the bound that stays open).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn store(
        &self,
        player: u64,
        opponent: u64,
        depth: u32,
        alpha: i32,
        beta: i32,
        score: i32,
        best_move: u8,
        score_limit: i32,
    ) {
        let (lower, upper) = window_bounds(alpha, beta, score, score_limit);
        let (lower, upper) = (lower as i16, upper as i16);
        let depth = depth.min(u8::MAX as u32) as u8;
        let date = self.date;
        let bucket = &self.bucket(player, opponent).0;

        // Same position: tighten the bounds at equal depth, replace them if deeper.
        for slot in bucket {
            if let Some(mut entry) = slot.read(player, opponent) {
                if depth == entry.depth {
                    entry.lower = entry.lower.max(lower);
                    entry.upper = entry.upper.min(upper);
                    if entry.lower > entry.upper {
                        // Inconsistent (a search that was cut short): trust the new result.
                        entry.lower = lower;
                        entry.upper = upper;
                    }
                } else if depth > entry.depth {
                    entry.lower = lower;
                    entry.upper = upper;
                    entry.depth = depth;
                } else {
                    return;
                }
                if best_move != NO_MOVE {
                    entry.best_move = best_move;
                }
                entry.date = date;
                slot.write(player, opponent, entry);
                return;
            }
        }

        // A new position: replace an entry from an older search, else the
        // one with less work behind it.
        let priority = |e: Entry| ((e.date == date) as u32) << 8 | (e.depth % DEPTH_WORK_LIMIT) as u32;
        let victim = if priority(bucket[0].entry()) <= priority(bucket[1].entry()) { 0 } else { 1 };
        bucket[victim].write(player, opponent, Entry { lower, upper, best_move, depth, date });
    }
}

/// The bounds `(lower, upper)` a fail-soft search's `score` proves with the
/// window (`alpha`, `beta`): a fail-low an upper bound, a fail-high a lower
/// bound, anything between the exact score. `score_limit` is the widest
/// score (the bound that stays open).
#[inline(always)]
pub fn window_bounds(alpha: i32, beta: i32, score: i32, score_limit: i32) -> (i32, i32) {
    if score <= alpha {
        (-score_limit, score)
    } else if score >= beta {
        (score, score_limit)
    } else {
        (score, score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_bounds_by_window() {
        let tt = TranspositionTable::new(4);
        tt.store(1, 2, 5, 0, 10, -3, 7, 64);
        let e = tt.probe(1, 2).unwrap();
        assert_eq!((e.lower, e.upper, e.best_move, e.depth), (-64, -3, 7, 5));
        tt.store(1, 2, 5, -10, -8, -8, NO_MOVE, 64);
        let e = tt.probe(1, 2).unwrap();
        assert_eq!((e.lower, e.upper, e.best_move), (-8, -3, 7));
        assert!(tt.probe(2, 1).is_none());
    }

    #[test]
    fn a_new_position_evicts_the_entry_with_less_work_behind_it_however_sure() {
        // One bucket: every position competes for its two slots.
        let tt = TranspositionTable::new(1);
        let sure = DEPTH_WORK_LIMIT as u32;
        tt.store(1, 2, 25, -64, 64, 4, 7, 64); // a selective result at 25 empties
        tt.store(3, 4, sure + 12, -64, 64, 0, 8, 64); // an exact one at 12
        tt.store(5, 6, sure + 9, -64, 64, 2, 9, 64); // a new exact one at 9
        assert!(tt.probe(1, 2).is_some_and(|e| e.best_move == 7), "the selective 25-empties result stays");
        assert!(tt.probe(3, 4).is_none(), "the exact 12-empties result goes");
        assert!(tt.probe(5, 6).is_some());
        // The same position's sure result still replaces its unsure one.
        tt.store(1, 2, sure + 25, -64, 64, 2, 6, 64);
        assert_eq!(tt.probe(1, 2).map(|e| (e.lower, e.depth)), Some((2, sure as u8 + 25)));
    }

    #[test]
    fn a_table_in_huge_pages_starts_empty_and_keeps_what_is_stored() {
        // 2^18 entries: 8 MiB, mapped in huge pages on Linux.
        let tt = TranspositionTable::new(18);
        assert!(tt.buckets.iter().all(|b| b.0.iter().all(|s| s.entry() == Entry::unpack(0))));
        for i in 1..=1000u64 {
            tt.store(i, i << 32, 9, -64, 64, (i % 30) as i32 * 2, 3, 64);
        }
        let kept =
            (1..=1000u64).filter(|&i| tt.probe(i, i << 32).is_some_and(|e| e.lower as u64 == i % 30 * 2)).count();
        assert!(kept > 990, "{kept} of 1000 entries kept");
        assert!(tt.probe(5, 6).is_none());
    }

    #[test]
    fn a_table_too_big_for_memory_is_refused_not_fatal() {
        assert!(TranspositionTable::try_new(62).is_none());
        assert_eq!(TranspositionTable::try_new(12).map(|tt| tt.bits()), Some(12));
    }

    #[test]
    fn entries_pack_and_unpack_unchanged() {
        let entry = Entry { lower: -6400, upper: 31, best_move: NO_MOVE, depth: 200, date: 9 };
        assert_eq!(Entry::unpack(entry.pack()), entry);
    }

    #[test]
    fn a_torn_entry_is_not_a_hit() {
        let tt = TranspositionTable::new(4);
        tt.store(1, 2, 5, 0, 10, 4, 7, 64);
        // Another thread's data word lands between the keys of this entry.
        let slot = tt.bucket(1, 2).0.iter().find(|s| s.read(1, 2).is_some()).unwrap();
        slot.data.store(Entry { lower: 9, upper: 9, best_move: 3, depth: 5, date: 1 }.pack(), Relaxed);
        assert!(tt.probe(1, 2).is_none());
    }

    #[test]
    fn threads_share_one_table() {
        let tt = TranspositionTable::new(10);
        std::thread::scope(|scope| {
            for thread in 0..2u64 {
                let tt = &tt;
                scope.spawn(move || {
                    for i in 1..=300u64 {
                        tt.store(i, thread + 1000, 3, -64, 64, i as i32 % 60, 0, 64);
                    }
                });
            }
        });
        // Every entry read back is one a thread wrote, whole.
        for thread in 0..2u64 {
            for i in 1..=300u64 {
                if let Some(entry) = tt.probe(i, thread + 1000) {
                    assert_eq!((entry.lower, entry.upper, entry.depth), ((i % 60) as i16, (i % 60) as i16, 3));
                }
            }
        }
    }
}
