//! The sample pool's shipped calibration: the results of a real seeding of the pool (each pair's
//! wins, draws and losses, and the ratings they give), played once at a contest's usual time
//! control and kept in the repository (`host/ladder/calibration/sample-pool.tsv`). A new ladder
//! enters its pool with them ([`enter_pool`]), so the pool is rated from the first second and a
//! bot can be placed at once; the pool's own games (a calibration in the background) then refine
//! it. A pool member the file does not name (or not at this time control) is calibrated by games
//! as before, and every page says which.
//!
//! The file is written by `othello --time-ms 100 ladder --ladder CAL.sqlite3 --export-calibration
//! FILE` from a ladder seeded with `othello --time-ms 100 ladder --ladder CAL.sqlite3 --seed-pool`
//! (see `book/src/contest.md`). Its lines are tab-separated: `source` (where it comes from, in
//! words), `time-ms`, `rating NAME ELO ERROR` (for people and checks; the fits use the pairs),
//! `pair A B WINS DRAWS LOSSES` (from A's side); `#` starts a comment.

use std::collections::HashMap;

use crate::fit::PairTally;
use crate::identity::Identity;
use crate::store::Ladder;

/// The shipped file.
pub const SHIPPED: &str = include_str!("../calibration/sample-pool.tsv");

/// A calibration of a pool, by the members' labels (`Name` or `Name@LEVEL`).
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// Where it comes from, in words (games, time control, clock, build, machine, date).
    pub source: String,
    /// The time a move its games were played at.
    pub time_ms: Option<u64>,
    /// Each member's rating and the half-width of its 95 % interval, as the pairs give them.
    pub ratings: Vec<(String, f64, f64)>,
    /// Each pair's tally, from the first's side.
    pub pairs: Vec<(String, String, PairTally)>,
}

impl Calibration {
    /// The shipped calibration, if the file holds one.
    pub fn shipped() -> Option<Calibration> {
        Calibration::parse(SHIPPED).ok().filter(|c| !c.pairs.is_empty())
    }

    pub fn parse(text: &str) -> Result<Calibration, String> {
        let mut calibration =
            Calibration { source: String::new(), time_ms: None, ratings: Vec::new(), pairs: Vec::new() };
        for (number, line) in text.lines().enumerate() {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = || format!("calibration line {}: cannot read {line:?}", number + 1);
            let fields: Vec<&str> = line.split('\t').collect();
            match fields[..] {
                ["source", source] => calibration.source = source.to_owned(),
                ["time-ms", ms] => calibration.time_ms = Some(ms.parse().map_err(|_| bad())?),
                ["rating", name, elo, error] => calibration.ratings.push((
                    name.to_owned(),
                    elo.parse().map_err(|_| bad())?,
                    error.parse().map_err(|_| bad())?,
                )),
                ["pair", a, b, wins, draws, losses] => calibration.pairs.push((
                    a.to_owned(),
                    b.to_owned(),
                    PairTally {
                        wins: wins.parse().map_err(|_| bad())?,
                        draws: draws.parse().map_err(|_| bad())?,
                        losses: losses.parse().map_err(|_| bad())?,
                    },
                )),
                _ => return Err(bad()),
            }
        }
        Ok(calibration)
    }

    /// The file's text (with `header`, each line of it a comment).
    pub fn to_text(&self, header: &str) -> String {
        let mut text: String = header.lines().map(|line| format!("# {line}\n")).collect();
        text.push_str(&format!("source\t{}\n", self.source));
        if let Some(ms) = self.time_ms {
            text.push_str(&format!("time-ms\t{ms}\n"));
        }
        for (name, elo, error) in &self.ratings {
            text.push_str(&format!("rating\t{name}\t{elo:.1}\t{error:.1}\n"));
        }
        for (a, b, t) in &self.pairs {
            text.push_str(&format!("pair\t{a}\t{b}\t{}\t{}\t{}\n", t.wins, t.draws, t.losses));
        }
        text
    }

    /// Games in all.
    pub fn games(&self) -> f64 {
        self.pairs.iter().map(|(_, _, t)| t.games()).sum()
    }

    /// The calibration a seeded ladder's games give: every pair of its entries (a ladder that
    /// holds the pool alone, as `othello ladder --seed-pool` makes it), with `source` saying
    /// where it comes from.
    pub fn from_ladder(ladder: &Ladder, time_ms: Option<u64>, source: &str) -> Result<Calibration, String> {
        let entries = ladder.entries()?;
        let labels: Vec<String> = entries.iter().map(|e| e.identity.label()).collect();
        for (i, label) in labels.iter().enumerate() {
            if labels[..i].contains(label) {
                return Err(format!("the ladder has two versions of {label}: export a ladder with one of each"));
            }
        }
        let fit = ladder.fit(&entries)?;
        let results = ladder.results(&entries)?;
        Ok(Calibration {
            source: source.to_owned(),
            time_ms,
            ratings: labels
                .iter()
                .zip(&fit.ratings)
                .filter_map(|(label, rating)| rating.map(|r| (label.clone(), r.elo, r.error)))
                .collect(),
            pairs: results.pairs().map(|(a, b, tally)| (labels[a].clone(), labels[b].clone(), *tally)).collect(),
        })
    }
}

/// How a pool was entered: which members the calibration rates, which it does not (those are
/// calibrated by games first), and where it comes from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PoolStart {
    /// The calibration used (`None`: none, or it did not fit this pool or time control).
    pub source: Option<String>,
    /// Members it does not name: rated by their own games only.
    pub not_calibrated: Vec<String>,
    /// Why no calibration was used, when one was offered.
    pub why_not: Option<String>,
}

/// Enters `pool` in the ladder (its first member the anchor unless the ladder has one) with
/// `calibration` for the members it names, if its games were played at `time_ms` a move and it
/// names the anchor; see the module docs. Entering a pool again (a ladder that has one) keeps
/// what it started from.
pub fn enter_pool(
    ladder: &mut Ladder,
    pool: &[Identity],
    calibration: Option<&Calibration>,
    time_ms: u64,
) -> Result<PoolStart, String> {
    let mut ids = HashMap::new();
    for identity in pool {
        ids.insert(identity.label(), ladder.entry_for(identity)?.id);
    }
    let Some(anchor) = pool.first() else { return Ok(PoolStart::default()) };
    ladder.set_anchor_if_unset(ids[&anchor.label()])?;
    if ladder.calibration()?.is_some() {
        return pool_start(ladder, pool);
    }
    let Some(calibration) = calibration else {
        return Ok(PoolStart { not_calibrated: pool.iter().map(Identity::label).collect(), ..PoolStart::default() });
    };
    let refused = |why: String| PoolStart {
        source: None,
        not_calibrated: pool.iter().map(Identity::label).collect(),
        why_not: Some(why),
    };
    if calibration.time_ms != Some(time_ms) {
        return Ok(refused(format!(
            "the shipped calibration was played at {} a move, this contest plays at {time_ms} ms",
            calibration.time_ms.map_or("no limit".to_owned(), |ms| format!("{ms} ms"))
        )));
    }
    let pairs: Vec<(i64, i64, PairTally)> =
        calibration.pairs.iter().filter_map(|(a, b, tally)| Some((*ids.get(a)?, *ids.get(b)?, *tally))).collect();
    let anchor_id = ids[&anchor.label()];
    if ladder.anchor()? != Some(anchor_id) || !pairs.iter().any(|(a, b, _)| *a == anchor_id || *b == anchor_id) {
        return Ok(refused(format!("the shipped calibration does not rate {}, the anchor", anchor.label())));
    }
    ladder.set_calibration(&pairs, &calibration.source)?;
    pool_start(ladder, pool)
}

/// What the ladder's calibration says of `pool` now.
pub fn pool_start(ladder: &Ladder, pool: &[Identity]) -> Result<PoolStart, String> {
    let Some((pairs, source)) = ladder.calibration()? else {
        return Ok(PoolStart { not_calibrated: pool.iter().map(Identity::label).collect(), ..PoolStart::default() });
    };
    let entries = ladder.entries()?;
    let not_calibrated = pool
        .iter()
        .filter(|identity| {
            let id = entries
                .iter()
                .find(|e| {
                    let i = &e.identity;
                    i.kind == identity.kind
                        && i.name == identity.name
                        && i.level == identity.level
                        && i.hash == identity.hash
                })
                .map(|e| e.id);
            !id.is_some_and(|id| pairs.iter().any(|(a, b, _)| *a == id || *b == id))
        })
        .map(Identity::label)
        .collect();
    Ok(PoolStart { source: Some(source), not_calibrated, why_not: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_file_reads_and_names_the_whole_sample_pool() {
        let shipped = Calibration::parse(SHIPPED).unwrap();
        assert!(shipped.games() > 0.0, "{shipped:?}");
        assert_eq!(shipped.time_ms, Some(100));
        assert!(!shipped.source.is_empty());
        assert_eq!(shipped.ratings.len(), crate::seed::SAMPLE_POOL.len(), "{:?}", shipped.ratings);
        let again = Calibration::parse(&shipped.to_text("a header")).unwrap();
        assert_eq!(again, shipped);
    }
}
