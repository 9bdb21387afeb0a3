//! The leaderboard: every entry with its version, rating, error bar and record, best first.

use std::collections::HashMap;

use serde::Serialize;

use crate::fit::Fit;
use crate::identity::{Kind, label, short_hash};
use crate::store::{Entry, EntryRecord, Ladder};

/// One line of the leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// 1 for the best; `None` while the entry has no rating.
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
    /// Half-width of the 95 % interval.
    pub error: Option<f64>,
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
}

/// The whole leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Leaderboard {
    pub rows: Vec<Row>,
    pub games: u64,
    /// The anchor's name (held at 0).
    pub anchor: Option<String>,
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
        .zip(&fit.ratings)
        .zip(versions)
        .map(|((entry, rating), version)| {
            let record = records.get(&entry.id).copied().unwrap_or_default();
            Row {
                rank: None,
                entry: entry.id,
                name: label(&entry.identity.name, entry.identity.level),
                kind: entry.identity.kind.as_str(),
                version,
                hash: short_hash(&entry.identity.hash).to_owned(),
                rating: rating.map(|r| r.elo),
                error: rating.map(|r| r.error),
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
    rows.sort_by(|a, b| match (a.rating, b.rating) {
        (Some(x), Some(y)) => y.total_cmp(&x).then(a.entry.cmp(&b.entry)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.entry.cmp(&b.entry),
    });
    for (i, row) in rows.iter_mut().enumerate() {
        if row.rating.is_some() {
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
    Ok(Leaderboard { rows, games: ladder.game_count()?, anchor })
}
