//! The leaderboard: every entry with its version, rating, error bar and record, best first.

use std::collections::HashMap;

use serde::Serialize;

use othello_arena::event::stats::format_elo;

use crate::fit::Fit;
use crate::identity::{Kind, label, short_hash};
use crate::store::{Entry, EntryRecord, Ladder};

/// One line of the leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// 1 for the best; entries that failed every game come after every rated one; `None` while
    /// the entry has no rating.
    pub rank: Option<usize>,
    pub entry: i64,
    /// `Name` or `Name@LEVEL`.
    pub name: String,
    pub kind: &'static str,
    /// 1 for the first build of this bot seen by the ladder, 2 for the next …
    pub version: u32,
    /// The first hex digits of the library's SHA-256.
    pub hash: String,
    /// Elo relative to the anchor; `None` when the entry has no games linking it to the anchor.
    pub rating: Option<f64>,
    /// Half-width of the 95 % interval from the anchor: how well the rating is known on the
    /// ladder's scale (its opponents' own uncertainty included; 0 for the anchor).
    pub error: Option<f64>,
    /// Half-width of the 95 % interval among its opponents (their ratings held fixed): how
    /// precisely its own games place it; what a rating session waits for.
    pub placement_error: Option<f64>,
    /// It lost every game by a failure (it never loads, crashes or times out): no rating, and
    /// placed at the bottom, below the anchor.
    pub failing: bool,
    pub games: u64,
    /// Points (a draw is half a point).
    pub points: f64,
    /// Points per game, 0–1.
    pub score: Option<f64>,
    /// Games lost by a failure (crash, timeout, illegal move, load error …).
    pub failures: u64,
    /// Unix seconds of its last game.
    pub last_played: Option<u64>,
    pub anchor: bool,
    /// The library's path or the engine's `nboard:COMMAND`.
    pub locator: String,
}

impl Row {
    /// `v2 (1a2b3c4d)`.
    pub fn version_text(&self) -> String {
        format!("v{} ({})", self.version, self.hash)
    }

    /// The rating as every output writes it ([`format_elo`]): `+312.4 ± 45.1` (± from the
    /// anchor), `+0.0 (anchor)`, `every game failed`, `unrated`.
    pub fn rating_text(&self) -> String {
        match (self.rating, self.error) {
            _ if self.failing => "every game failed".to_owned(),
            (Some(rating), _) if self.anchor => format!("{:+.1} (anchor)", rating + 0.0),
            (Some(rating), Some(error)) => format_elo(rating, error),
            _ => "unrated".to_owned(),
        }
    }
}

/// The whole leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Leaderboard {
    pub rows: Vec<Row>,
    pub games: u64,
    /// The anchor's name (held at 0).
    pub anchor: Option<String>,
    /// The entry rated last (`othello rate`), highlighted on the web page.
    pub last_rated: Option<i64>,
}

/// Version numbers: per bot (kind and name), each distinct hash in the order the ladder first saw
/// it. Levels of one build share its version.
pub fn versions(entries: &[Entry]) -> Vec<u32> {
    let mut seen: HashMap<(Kind, &str), Vec<&str>> = HashMap::new();
    let mut order: Vec<&Entry> = entries.iter().collect();
    order.sort_by_key(|e| e.id);
    let mut by_id = HashMap::new();
    for entry in order {
        let hashes = seen.entry((entry.identity.kind, entry.identity.name.as_str())).or_default();
        let version = match hashes.iter().position(|h| *h == entry.identity.hash) {
            Some(i) => i + 1,
            None => {
                hashes.push(&entry.identity.hash);
                hashes.len()
            }
        };
        by_id.insert(entry.id, version as u32);
    }
    entries.iter().map(|e| by_id[&e.id]).collect()
}

/// The rows of `entries` with `fit`, best first; entries without a rating last.
pub fn rows(entries: &[Entry], fit: &Fit, records: &HashMap<i64, EntryRecord>, anchor: Option<i64>) -> Vec<Row> {
    let versions = versions(entries);
    let mut rows: Vec<Row> = entries
        .iter()
        .zip(fit.ratings.iter().zip(&fit.placement_errors))
        .zip(versions)
        .map(|((entry, (rating, placement_error)), version)| {
            let record = records.get(&entry.id).copied().unwrap_or_default();
            let failing = record.failed_every_game();
            Row {
                rank: None,
                entry: entry.id,
                name: label(&entry.identity.name, entry.identity.level),
                kind: entry.identity.kind.as_str(),
                version,
                hash: short_hash(&entry.identity.hash).to_owned(),
                rating: rating.filter(|_| !failing).map(|r| r.elo),
                error: rating.filter(|_| !failing).map(|r| r.error),
                placement_error: placement_error.filter(|_| !failing && rating.is_some()),
                failing,
                games: record.games,
                points: record.points,
                score: (record.games > 0).then(|| record.points / record.games as f64),
                failures: record.failures,
                last_played: record.last_played,
                anchor: anchor == Some(entry.id),
                locator: entry.identity.locator.clone(),
            }
        })
        .collect();
    // Rated entries best first, then those that failed every game, then the unrated.
    let group = |row: &Row| {
        if row.rating.is_some() {
            0
        } else if row.failing {
            1
        } else {
            2
        }
    };
    rows.sort_by(|a, b| {
        group(a)
            .cmp(&group(b))
            .then(b.rating.unwrap_or(0.0).total_cmp(&a.rating.unwrap_or(0.0)))
            .then(a.entry.cmp(&b.entry))
    });
    for (i, row) in rows.iter_mut().enumerate() {
        if row.rating.is_some() || row.failing {
            row.rank = Some(i + 1);
        }
    }
    rows
}

/// The ladder's leaderboard, fitted from every game now.
pub fn leaderboard(ladder: &Ladder) -> Result<Leaderboard, String> {
    let entries = ladder.entries()?;
    let fit = ladder.fit(&entries)?;
    let anchor = ladder.anchor()?;
    let rows = rows(&entries, &fit, &ladder.records()?, anchor);
    let anchor = rows.iter().find(|r| r.anchor).map(|r| r.name.clone());
    Ok(Leaderboard { rows, games: ladder.game_count()?, anchor, last_rated: ladder.last_rated()? })
}
