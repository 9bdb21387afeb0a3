//! The games of an event, in order: pairs of games with the same opening and
//! colours swapped.

use super::{EventSpec, Format};
use crate::referee::Opening;

/// One game to play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduledGame {
    pub index: usize,
    /// Participant indices.
    pub black: usize,
    pub white: usize,
    pub opening: Opening,
}

impl EventSpec {
    /// Every game of the event.
    pub fn schedule(&self) -> Vec<ScheduledGame> {
        // (first, second, games): the pairings, each played in colour-swapped pairs.
        let mut pairings = Vec::new();
        match self.format {
            Format::Match { games } => pairings.push((0, 1, games)),
            Format::Tournament { rounds, games_per_pair } => {
                let n = self.participants.len();
                for _ in 0..rounds {
                    for first in 0..n {
                        for second in first + 1..n {
                            pairings.push((first, second, games_per_pair));
                        }
                    }
                }
            }
        }
        let pairs: usize = pairings.iter().map(|&(_, _, games)| games.div_ceil(2) as usize).sum();
        let openings = self.openings.openings(pairs, self.seed);
        let mut schedule = Vec::new();
        let mut pair = 0;
        for (first, second, games) in pairings {
            for game in 0..games as usize {
                let (black, white) = if game % 2 == 0 { (first, second) } else { (second, first) };
                let opening = openings[pair + game / 2].clone();
                schedule.push(ScheduledGame { index: schedule.len(), black, white, opening });
            }
            pair += games.div_ceil(2) as usize;
        }
        schedule
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
}
