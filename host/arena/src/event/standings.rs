//! Standings and the cross-table: a [`Tally`] takes each finished game in O(1) and gives the
//! standings at any time in O(participants²), whatever the number of games.

use std::collections::BTreeMap;

use othello_sdk::Color;
use serde::{Deserialize, Serialize};

use super::{FinishedGame, Pentanomial, Wdl};

/// One participant's results against one opponent (or everyone).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PairScore {
    #[serde(flatten)]
    pub wdl: Wdl,
    pub discs_for: u32,
    pub discs_against: u32,
}

impl PairScore {
    fn add(&mut self, game: &FinishedGame, color: Color) {
        let result = &game.record.result;
        match result.winner {
            None => self.wdl.draws += 1,
            Some(winner) if winner == color => self.wdl.wins += 1,
            Some(_) => self.wdl.losses += 1,
        }
        let (own, other) = if color == Color::Black { (0, 1) } else { (1, 0) };
        self.discs_for += result.discs[own];
        self.discs_against += result.discs[other];
    }
}

/// A line of the standings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StandingRow {
    /// Participant index.
    pub participant: usize,
    pub name: String,
    pub games: u32,
    #[serde(flatten)]
    pub score: PairScore,
    pub points: f64,
    /// Elo against the field this participant met (`null` when undefined or infinite).
    pub elo: Option<f64>,
    /// Half-width of the 95 % interval.
    pub elo_error: Option<f64>,
    /// Games this participant lost by failing (any termination but `normal`).
    pub failures: u32,
}

/// The standings (best first) and the cross-table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standings {
    pub rows: Vec<StandingRow>,
    /// `cross[i][j]`: participant i's results against participant j.
    pub cross: Vec<Vec<PairScore>>,
}

/// The running totals of an event: the cross-table and the failures, updated game by game.
/// Serializable, so a state directory's checkpoint and a merge of shards carry it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    names: Vec<String>,
    /// `cross[i][j]`: participant i's results against participant j.
    cross: Vec<Vec<PairScore>>,
    failures: Vec<u32>,
    games: usize,
    /// The colour-swapped pairs between participants 0 and 1 (a match), from 0's view: the
    /// SPRT's samples. Absent in checkpoints of earlier versions.
    #[serde(default)]
    pairs: Pentanomial,
    /// Pairs between 0 and 1 with one game finished: pair number → 0's half points in it.
    #[serde(default)]
    half_pairs: BTreeMap<usize, u8>,
}

impl Tally {
    /// Nothing played yet between `names`.
    pub fn new(names: &[String]) -> Tally {
        let n = names.len();
        Tally {
            names: names.to_vec(),
            cross: vec![vec![PairScore::default(); n]; n],
            failures: vec![0; n],
            games: 0,
            pairs: Pentanomial::default(),
            half_pairs: BTreeMap::new(),
        }
    }

    /// Counts one finished game.
    pub fn add(&mut self, game: &FinishedGame) {
        self.cross[game.black][game.white].add(game, Color::Black);
        self.cross[game.white][game.black].add(game, Color::White);
        let result = &game.record.result;
        if result.failure().is_some() {
            match result.loser() {
                Some(Color::Black) => self.failures[game.black] += 1,
                Some(Color::White) => self.failures[game.white] += 1,
                None => {}
            }
        }
        self.games += 1;
        let first = match (game.black, game.white) {
            (0, 1) => Color::Black,
            (1, 0) => Color::White,
            _ => return,
        };
        let half_points = match result.winner {
            None => 1,
            Some(winner) if winner == first => 2,
            Some(_) => 0,
        };
        self.add_half_pair(game.pair_number(), half_points);
    }

    /// One game of pair `pair` between 0 and 1: the pair counts once both are in.
    fn add_half_pair(&mut self, pair: usize, half_points: u8) {
        match self.half_pairs.remove(&pair) {
            Some(other) => self.pairs.add_pair(other + half_points),
            None => {
                self.half_pairs.insert(pair, half_points);
            }
        }
    }

    /// Adds another tally of the same participants (another shard of the event).
    pub fn merge(&mut self, other: &Tally) {
        for (row, other_row) in self.cross.iter_mut().zip(&other.cross) {
            for (score, other_score) in row.iter_mut().zip(other_row) {
                score.wdl += other_score.wdl;
                score.discs_for += other_score.discs_for;
                score.discs_against += other_score.discs_against;
            }
        }
        for (failures, other_failures) in self.failures.iter_mut().zip(&other.failures) {
            *failures += other_failures;
        }
        self.games += other.games;
        self.pairs += other.pairs;
        for (&pair, &half_points) in &other.half_pairs {
            self.add_half_pair(pair, half_points);
        }
    }

    /// The finished colour-swapped pairs between participants 0 and 1, from 0's view.
    pub fn pentanomial(&self) -> Pentanomial {
        self.pairs
    }

    /// The participants' names, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Games lost by a failure (any termination but `normal` or `resigned`), over everyone.
    pub fn forfeits(&self) -> u64 {
        self.failures.iter().map(|&f| u64::from(f)).sum()
    }

    /// Games counted so far.
    pub fn games(&self) -> usize {
        self.games
    }

    /// Participant `i`'s results against participant `j`.
    pub fn pair(&self, i: usize, j: usize) -> PairScore {
        self.cross[i][j]
    }

    /// The standings now, best first.
    pub fn standings(&self) -> Standings {
        let finite = |x: Option<f64>| x.filter(|v| v.is_finite());
        let mut rows: Vec<StandingRow> = (0..self.names.len())
            .map(|i| {
                let mut total = PairScore::default();
                for score in &self.cross[i] {
                    total.wdl += score.wdl;
                    total.discs_for += score.discs_for;
                    total.discs_against += score.discs_against;
                }
                StandingRow {
                    participant: i,
                    name: self.names[i].clone(),
                    games: total.wdl.games(),
                    score: total,
                    points: total.wdl.points(),
                    elo: finite(total.wdl.elo()),
                    elo_error: finite(total.wdl.elo_error()),
                    failures: self.failures[i],
                }
            })
            .collect();
        rows.sort_by(|a, b| {
            b.points
                .total_cmp(&a.points)
                .then(
                    (b.score.discs_for as i64 - b.score.discs_against as i64)
                        .cmp(&(a.score.discs_for as i64 - a.score.discs_against as i64)),
                )
                .then(a.participant.cmp(&b.participant))
        });
        Standings { rows, cross: self.cross.clone() }
    }
}

impl Standings {
    /// The standings of `games` between `names` (a [`Tally`] of them).
    pub fn compute(names: &[String], games: &[FinishedGame]) -> Standings {
        let mut tally = Tally::new(names);
        for game in games {
            tally.add(game);
        }
        tally.standings()
    }

    /// A plain-text table: standings, then the cross-table (W-D-L of the row
    /// participant against each column participant).
    pub fn to_text(&self) -> String {
        let width = self.rows.iter().map(|r| r.name.chars().count()).max().unwrap_or(4).max(4);
        let mut out = format!(
            "{:>3}  {:<width$}  {:>5}  {:>6}  {:>5}  {:>5}  {:>5}  {:>11}  {:>27}  {:>8}\n",
            "#", "Name", "Games", "Points", "W", "D", "L", "Discs", "Elo", "Failures"
        );
        for (rank, row) in self.rows.iter().enumerate() {
            let wdl = row.score.wdl;
            // Always finite: a perfect score is shown as a one-sided bound, never `+inf`.
            let elo = super::stats::format_elo_finite(wdl);
            out += &format!(
                "{:>3}  {:<width$}  {:>5}  {:>6.1}  {:>5}  {:>5}  {:>5}  {:>11}  {:>27}  {:>8}\n",
                rank + 1,
                row.name,
                row.games,
                row.points,
                wdl.wins,
                wdl.draws,
                wdl.losses,
                format!("{}-{}", row.score.discs_for, row.score.discs_against),
                elo,
                row.failures
            );
        }
        if self.cross.len() > 2 {
            out += "\nCross-table (W-D-L of the row against the column):\n";
            let order: Vec<usize> = self.rows.iter().map(|r| r.participant).collect();
            let cell_width = width.min(MAX_CROSS_TABLE_COLUMN);
            out += &format!("{:<width$}", "");
            for &j in &order {
                let name = &self.rows.iter().find(|r| r.participant == j).expect("every participant has a row").name;
                out += &format!("  {:>cell_width$}", truncate(name, cell_width));
            }
            out += "\n";
            for &i in &order {
                let name = &self.rows.iter().find(|r| r.participant == i).expect("every participant has a row").name;
                out += &format!("{name:<width$}");
                for &j in &order {
                    let cell = if i == j {
                        "-".to_owned()
                    } else {
                        let w = self.cross[i][j].wdl;
                        format!("{}-{}-{}", w.wins, w.draws, w.losses)
                    };
                    out += &format!("  {cell:>cell_width$}");
                }
                out += "\n";
            }
        }
        out
    }
}

/// Widest cross-table column (longer names are cut).
const MAX_CROSS_TABLE_COLUMN: usize = 16;

fn truncate(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{GameRecord, Outcome};
    use crate::seat::{Failure, Termination};
    use othello_sdk::Position;

    fn game(index: usize, black: usize, white: usize, result: Outcome) -> FinishedGame {
        let record = GameRecord {
            black: format!("p{black}"),
            white: format!("p{white}"),
            opening: Vec::new(),
            start: Position::start(),
            moves: Vec::new(),
            time_limit_ms: None,
            started_at: 0,
            result,
            clock: None,
        };
        FinishedGame { index, pair: index / 2, black, white, record, clock: None }
    }

    fn normal(black: u32, white: u32) -> Outcome {
        Outcome::from_final_score(black, white)
    }

    /// Wins, a draw and a timeout among players 0, 1 and 2.
    fn three_players_four_games() -> [FinishedGame; 4] {
        [
            game(0, 0, 1, normal(40, 24)),
            game(1, 1, 0, normal(32, 32)),
            game(2, 2, 0, Outcome::forfeit(Color::Black, Failure::new(Termination::Timeout, "slow"))),
            game(3, 1, 2, normal(10, 54)),
        ]
    }

    #[test]
    fn pairs_are_counted_from_the_first_participant_whatever_order_their_games_finish_in() {
        let names: Vec<String> = (0..2).map(|i| format!("p{i}")).collect();
        let mut tally = Tally::new(&names);
        // Pair 1 finishes its second game first; pair 2 has one game only so far.
        let games = [
            game(3, 1, 0, normal(40, 24)), // pair 1: p0 loses with white
            game(0, 0, 1, normal(40, 24)), // pair 0: p0 wins with black
            game(1, 1, 0, normal(32, 32)), // pair 0: draw -> 1½ points for p0
            game(2, 0, 1, normal(10, 54)), // pair 1: p0 loses with black -> 0 points
            game(4, 0, 1, normal(54, 10)), // pair 2: waiting for its second game
        ];
        for game in &games {
            tally.add(game);
        }
        assert_eq!(tally.pentanomial(), Pentanomial([1, 0, 0, 1, 0]));
        // A shard holding the other half of pair 2 completes it on merge.
        let mut other = Tally::new(&names);
        other.add(&game(5, 1, 0, normal(10, 54)));
        tally.merge(&other);
        assert_eq!(tally.pentanomial(), Pentanomial([1, 0, 0, 1, 1]));
        // A checkpoint carries the half pairs.
        let saved: Tally = serde_json::from_str(&serde_json::to_string(&tally).unwrap()).unwrap();
        assert_eq!(saved, tally);
    }

    #[test]
    fn standings_count_results_discs_and_failures_per_side() {
        let names: Vec<String> = (0..3).map(|i| format!("p{i}")).collect();
        let games = three_players_four_games();
        let standings = Standings::compute(&names, &games);
        let order: Vec<usize> = standings.rows.iter().map(|r| r.participant).collect();
        assert_eq!(order, [0, 2, 1]); // 2.5, 1 and 0.5 points
        let p0 = &standings.rows[0];
        assert_eq!(p0.score.wdl, Wdl { wins: 2, draws: 1, losses: 0 });
        assert_eq!((p0.score.discs_for, p0.score.discs_against), (40 + 32 + 64, 24 + 32));
        assert_eq!(p0.points, 2.5);
        assert_eq!(standings.rows[1].failures, 1);
        assert_eq!(standings.cross[1][0].wdl, Wdl { wins: 0, draws: 1, losses: 1 });
        assert_eq!(standings.cross[2][1].discs_for, 54);
        assert!(standings.to_text().contains("Cross-table"));
    }

    #[test]
    fn a_resignation_is_a_loss_but_not_a_failure() {
        let names: Vec<String> = (0..2).map(|i| format!("p{i}")).collect();
        let mut tally = Tally::new(&names);
        tally.add(&game(0, 0, 1, Outcome::resigned(Color::White)));
        tally.add(&game(1, 1, 0, Outcome::forfeit(Color::White, Failure::new(Termination::Crash, "boom"))));
        assert_eq!(tally.games(), 2);
        assert_eq!(tally.pair(0, 1).wdl, Wdl { wins: 1, draws: 0, losses: 1 });
        let standings = tally.standings();
        let p1 = standings.rows.iter().find(|r| r.participant == 1).unwrap();
        assert_eq!(p1.failures, 0, "resigning is not failing");
        let p0 = standings.rows.iter().find(|r| r.participant == 0).unwrap();
        assert_eq!(p0.failures, 1, "the crash counts against the bot that crashed");
    }

    #[test]
    fn tallies_of_parts_merge_into_the_tally_of_the_whole() {
        let names: Vec<String> = (0..3).map(|i| format!("p{i}")).collect();
        let games = three_players_four_games();
        let (mut first, mut second, mut whole) = (Tally::new(&names), Tally::new(&names), Tally::new(&names));
        for (i, game) in games.iter().enumerate() {
            whole.add(game);
            if i % 2 == 0 { &mut first } else { &mut second }.add(game);
        }
        first.merge(&second);
        assert_eq!(first, whole);
        assert_eq!(whole.forfeits(), 1);
        let json = serde_json::to_string(&whole).unwrap();
        assert_eq!(serde_json::from_str::<Tally>(&json).unwrap(), whole);
    }
}
