//! A small table of exact bounds for the solver's nodes just above the last
//! empties, where the shared transposition table costs more than it saves
//! (see [`super::TT_MIN_EMPTIES`]): a few thousand entries per number of
//! empties, owned by one solver thread, so a probe stays in the processor's
//! own caches (Egaroucid keeps such a table for its last 7–12 empties).
//!
//! No probabilistic cut happens this close to the end (see
//! [`crate::mpc::MIN_EMPTIES`]), so every stored bound is a fact about its
//! position whatever search stored it, and the table never needs clearing.

use crate::board::SCORE_MAX;
use crate::tt::window_bounds;

/// Nodes with this many empties or more, and fewer than
/// [`super::TT_MIN_EMPTIES`], use the local table.
pub const LOCAL_TABLE_MIN_EMPTIES: u32 = 7;
/// log2 of the entries per number of empties. FFO #45–#52: 9 % fewer nodes,
/// 0.959x the time (3 pairs); 2^12 entries saved 0.5 % more nodes but were
/// slower, 2^8 saved 0.8 % fewer; the table for 9 empties too (the shared
/// one from 10) was slower.
pub const LOCAL_TABLE_BITS: u32 = 10;

/// One position's bounds: the score is at least `lower` and at most `upper`.
#[derive(Clone, Copy, Default)]
struct LocalEntry {
    player: u64,
    opponent: u64,
    lower: i8,
    upper: i8,
}

/// See the module documentation. Direct-mapped: a new position replaces
/// the one in its slot.
pub struct LocalTable {
    entries: Vec<LocalEntry>,
}

impl LocalTable {
    pub fn new() -> LocalTable {
        let levels = (super::TT_MIN_EMPTIES - LOCAL_TABLE_MIN_EMPTIES) as usize;
        LocalTable { entries: vec![LocalEntry::default(); levels << LOCAL_TABLE_BITS] }
    }

    #[inline(always)]
    fn index(player: u64, opponent: u64, empties: u32) -> usize {
        let mixed = player.wrapping_mul(0x9DDA_1C54_CFE6_B6E9) ^ opponent.wrapping_mul(0xA2E6_C030_0831_E05A);
        let level = (empties - LOCAL_TABLE_MIN_EMPTIES) as usize;
        (level << LOCAL_TABLE_BITS) | (mixed >> (64 - LOCAL_TABLE_BITS)) as usize
    }

    /// The bounds `(lower, upper)` stored for this position of `empties`
    /// empties, if any.
    #[inline(always)]
    pub fn probe(&self, player: u64, opponent: u64, empties: u32) -> Option<(i32, i32)> {
        let entry = &self.entries[Self::index(player, opponent, empties)];
        // An empty slot holds the empty board, which no search stores.
        (entry.player == player && entry.opponent == opponent).then_some((entry.lower as i32, entry.upper as i32))
    }

    /// Stores what a fail-soft search with window (`alpha`, `beta`) found.
    #[inline(always)]
    pub fn store(&mut self, player: u64, opponent: u64, empties: u32, alpha: i32, beta: i32, score: i32) {
        let (lower, upper) = window_bounds(alpha, beta, score, SCORE_MAX);
        self.entries[Self::index(player, opponent, empties)] =
            LocalEntry { player, opponent, lower: lower as i8, upper: upper as i8 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_result_reads_back_as_the_bounds_its_window_proves() {
        let mut table = LocalTable::new();
        let (player, opponent) = (0x0000_0010_0800_0000, 0x0000_0008_1000_0000);
        assert_eq!(table.probe(player, opponent, 7), None);
        // Failed low: an upper bound; failed high: a lower bound; inside: exact.
        table.store(player, opponent, 7, 4, 5, 2);
        assert_eq!(table.probe(player, opponent, 7), Some((-SCORE_MAX, 2)));
        table.store(player, opponent, 7, 4, 5, 10);
        assert_eq!(table.probe(player, opponent, 7), Some((10, SCORE_MAX)));
        table.store(player, opponent, 7, -64, 64, -6);
        assert_eq!(table.probe(player, opponent, 7), Some((-6, -6)));
        // Each number of empties has its own entries, and the colours matter.
        assert_eq!(table.probe(player, opponent, 8), None);
        assert_eq!(table.probe(opponent, player, 7), None);
    }
}
