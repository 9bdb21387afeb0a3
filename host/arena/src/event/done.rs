//! Which games of a run are finished, in memory that does not grow with the event: games are
//! handed out in order, so the finished ones are a prefix plus the few that finished early.

use std::collections::BTreeSet;
use std::ops::Range;

use serde::{Deserialize, Serialize};

/// The finished games of a range of the schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoneSet {
    range: Range<usize>,
    /// Every game of `range.start..prefix_end` is finished.
    prefix_end: usize,
    /// Finished games after the prefix (those that finished before an earlier one).
    beyond: BTreeSet<usize>,
}

impl DoneSet {
    /// No game of `range` finished yet.
    pub fn new(range: Range<usize>) -> DoneSet {
        DoneSet { prefix_end: range.start, range, beyond: BTreeSet::new() }
    }

    /// Every game of `range` finished.
    pub fn complete(range: Range<usize>) -> DoneSet {
        DoneSet { prefix_end: range.end, range, beyond: BTreeSet::new() }
    }

    /// The games this set is about.
    pub fn range(&self) -> Range<usize> {
        self.range.clone()
    }

    /// Marks game `index` finished; false if it was already, or is not in the range.
    pub fn insert(&mut self, index: usize) -> bool {
        if !self.range.contains(&index) || self.contains(index) {
            return false;
        }
        if index == self.prefix_end {
            self.prefix_end += 1;
            while self.beyond.remove(&self.prefix_end) {
                self.prefix_end += 1;
            }
        } else {
            self.beyond.insert(index);
        }
        true
    }

    pub fn contains(&self, index: usize) -> bool {
        (self.range.start..self.prefix_end).contains(&index) || self.beyond.contains(&index)
    }

    /// Number of finished games.
    pub fn len(&self) -> usize {
        self.prefix_end - self.range.start + self.beyond.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether every game of the range finished.
    pub fn is_complete(&self) -> bool {
        self.prefix_end == self.range.end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_finished_out_of_order_fold_into_the_prefix() {
        let mut done = DoneSet::new(10..20);
        assert!(done.insert(12) && done.insert(10) && done.insert(13));
        assert!(!done.insert(12), "already finished");
        assert!(!done.insert(20) && !done.insert(9), "outside the range");
        assert_eq!(done.len(), 3);
        assert!(done.contains(13) && !done.contains(11));
        assert!(done.insert(11));
        assert_eq!((done.prefix_end, done.beyond.len()), (14, 0));
        for index in 14..20 {
            done.insert(index);
        }
        assert!(done.is_complete());
        assert_eq!(done, DoneSet::complete(10..20));
    }
}
