//! The games of an event, in order: pairs of games with the same opening and colours swapped.
//! The schedule is never stored: any game, or any run of games, is computed from its index, so a
//! million-game event costs no memory and a shard (`--shard K/N`) starts anywhere.

use std::ops::Range;

use super::openings::OpeningCursor;
use super::{EventSpec, Format, Shard};
use crate::referee::Opening;

/// One game to play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduledGame {
    pub index: usize,
    /// Participant indices.
    pub black: usize,
    pub white: usize,
    /// 0-based number of its colour-swapped pair (the two games share `opening`).
    pub pair: usize,
    pub opening: Opening,
}

/// The shape of a schedule: `pairings` meetings of two participants, each of `games` games
/// played in colour-swapped pairs that share an opening.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    participants: usize,
    pairings: usize,
    games: usize,
}

impl Layout {
    fn of(spec: &EventSpec) -> Layout {
        let participants = spec.participants.len();
        match spec.format {
            Format::Match { games } => Layout { participants, pairings: 1, games: games as usize },
            Format::Tournament { rounds, games_per_pair } => Layout {
                participants,
                pairings: rounds as usize * participants * participants.saturating_sub(1) / 2,
                games: games_per_pair as usize,
            },
        }
    }

    fn pairs_per_pairing(&self) -> usize {
        self.games.div_ceil(2)
    }

    fn game_count(&self) -> usize {
        self.pairings * self.games
    }

    fn pair_count(&self) -> usize {
        self.pairings * self.pairs_per_pairing()
    }

    /// The index of the first game of colour-swapped pair `pair` (`pair_count()` gives the end).
    fn first_game_of_pair(&self, pair: usize) -> usize {
        let per = self.pairs_per_pairing().max(1);
        (pair / per) * self.games + (pair % per) * 2
    }

    /// The two participants of pairing `pairing` (first has black in the pair's first game).
    fn pairing(&self, pairing: usize) -> (usize, usize) {
        if self.participants == 2 {
            return (0, 1);
        }
        let per_round = self.participants * (self.participants - 1) / 2;
        let mut k = pairing % per_round;
        for first in 0..self.participants {
            let opponents = self.participants - first - 1;
            if k < opponents {
                return (first, first + 1 + k);
            }
            k -= opponents;
        }
        unreachable!("pairing {pairing} is within a round")
    }
}

impl EventSpec {
    /// Number of games in the event's schedule.
    pub fn game_count(&self) -> usize {
        Layout::of(self).game_count()
    }

    /// Every game of the event (small events; large ones use [`EventSpec::games`]).
    pub fn schedule(&self) -> Vec<ScheduledGame> {
        self.games(0..self.game_count()).collect()
    }

    /// The games with indices in `range`, computed one by one.
    pub fn games(&self, range: Range<usize>) -> ScheduleIter {
        let end = range.end.min(self.game_count());
        ScheduleIter {
            layout: Layout::of(self),
            openings: self.openings.cursor(self.seed),
            next: range.start.min(end),
            end,
            pairing: None,
        }
    }

    /// The indices of the games of `shard`: the K-th of N runs of whole colour-swapped pairs,
    /// as equal as can be. Every game belongs to exactly one shard of N.
    pub fn shard_games(&self, shard: Shard) -> Range<usize> {
        let layout = Layout::of(self);
        let pairs = layout.pair_count();
        let bound = |k: usize| {
            let pair = (pairs as u128 * k as u128 / shard.count as u128) as usize;
            if pair >= pairs { layout.game_count() } else { layout.first_game_of_pair(pair) }
        };
        bound(shard.index)..bound(shard.index + 1)
    }

    /// The games a run plays: its shard's, or every game.
    pub fn games_of(&self, shard: Option<Shard>) -> Range<usize> {
        match shard {
            Some(shard) => self.shard_games(shard),
            None => 0..self.game_count(),
        }
    }
}

/// The games of a range of the schedule, in order, computed as they are taken.
pub struct ScheduleIter {
    layout: Layout,
    openings: OpeningCursor,
    next: usize,
    end: usize,
    /// The last pairing looked up: (pairing, first, second).
    pairing: Option<(usize, usize, usize)>,
}

impl Iterator for ScheduleIter {
    type Item = ScheduledGame;

    fn next(&mut self) -> Option<ScheduledGame> {
        if self.next >= self.end {
            return None;
        }
        let index = self.next;
        self.next += 1;
        let layout = self.layout;
        let pairing = index / layout.games;
        let game = index % layout.games;
        let (first, second) = match self.pairing {
            Some((cached, first, second)) if cached == pairing => (first, second),
            _ => {
                let (first, second) = layout.pairing(pairing);
                self.pairing = Some((pairing, first, second));
                (first, second)
            }
        };
        let (black, white) = if game.is_multiple_of(2) { (first, second) } else { (second, first) };
        let pair = pairing * layout.pairs_per_pairing() + game / 2;
        Some(ScheduledGame { index, black, white, pair, opening: self.openings.opening(pair) })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end - self.next;
        (left, Some(left))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{OpeningSource, Participant};
    use super::*;

    fn spec(n: usize, format: Format) -> EventSpec {
        EventSpec {
            participants: (0..n)
                .map(|i| Participant { name: format!("bot{i}"), library: format!("lib{i}.so").into(), level: None })
                .collect(),
            format,
            openings: OpeningSource::Random { plies: 4 },
            seed: 1,
            time_limit_ms: None,
            sprt: None,
        }
    }

    #[test]
    fn games_come_in_colour_swapped_pairs_with_one_opening() {
        let games = spec(2, Format::Match { games: 5 }).schedule();
        assert_eq!(games.len(), 5);
        assert_eq!(
            games.iter().map(|g| (g.black, g.white)).collect::<Vec<_>>(),
            [(0, 1), (1, 0), (0, 1), (1, 0), (0, 1)]
        );
        assert_eq!(games[0].opening, games[1].opening);
        assert_ne!(games[1].opening, games[2].opening);
    }

    #[test]
    fn round_robin_meets_every_pair_each_round() {
        let games = spec(4, Format::Tournament { rounds: 2, games_per_pair: 2 }).schedule();
        assert_eq!(games.len(), 2 * 6 * 2);
        for a in 0..4 {
            for b in 0..4 {
                let count = games.iter().filter(|g| g.black == a && g.white == b).count();
                assert_eq!(count, if a == b { 0 } else { 2 });
            }
        }
        assert!(games.iter().enumerate().all(|(i, g)| g.index == i));
    }

    #[test]
    fn any_range_of_the_schedule_is_the_same_games_as_the_whole() {
        for format in [Format::Match { games: 9 }, Format::Tournament { rounds: 3, games_per_pair: 3 }] {
            let spec = spec(4, format);
            let whole = spec.schedule();
            for start in [0, 1, 5, whole.len() - 1] {
                let part: Vec<_> = spec.games(start..whole.len()).collect();
                assert_eq!(part, whole[start..], "{format:?} from {start}");
            }
        }
    }

    #[test]
    fn shards_split_the_schedule_into_disjoint_runs_of_whole_pairs() {
        for (format, count) in [
            (Format::Match { games: 101 }, 4),
            (Format::Tournament { rounds: 2, games_per_pair: 3 }, 5),
            (Format::Match { games: 2 }, 3),
        ] {
            let spec = spec(3, format);
            let whole = spec.schedule();
            let mut next = 0;
            for index in 0..count {
                let range = spec.shard_games(Shard { index, count });
                assert_eq!(range.start, next, "{format:?}: shards follow each other");
                next = range.end;
                if let Some(first) = whole.get(range.start)
                    && range.start > 0
                {
                    // A shard never splits a colour-swapped pair.
                    assert_ne!(first.opening, whole[range.start - 1].opening, "{format:?} shard {index}");
                }
            }
            assert_eq!(next, whole.len(), "{format:?}: the shards cover the schedule");
            let sizes: Vec<usize> = (0..count).map(|index| spec.shard_games(Shard { index, count }).len()).collect();
            assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 3, "{sizes:?}");
        }
    }
}
