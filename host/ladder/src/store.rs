//! The ladder's database: entries, games (each with its GGF) and rating snapshots in one SQLite
//! file. Every game is committed in a transaction of its own, so `kill -9` loses at most the game
//! being played; the write-ahead log and a busy timeout let several processes rate on one ladder
//! at once. The file is plain SQLite: other tools can read it (`sqlite3 ladder.sqlite3`).

use std::collections::HashMap;
use std::path::Path;

use othello_db::{Db, Location, OptionalExtension, params};

use othello_arena::record::{End, GameRecord, unix_now};
use othello_sdk::Color;

use crate::fit::{Fit, FitOptions, PairTally, Rating, Results, fit};
use crate::identity::{Identity, Kind};

/// The key of the anchor's entry id in the `settings` table.
const ANCHOR_KEY: &str = "anchor";
/// The key of the entry id of the bot rated last (highlighted on the web page).
const LAST_RATED_KEY: &str = "last_rated";

/// The key of the shipped calibration a ladder's pool started from (see
/// [`Ladder::set_calibration`]): its tallies by entry id, one pair a line.
const CALIBRATION_KEY: &str = "calibration";
/// The key of where that calibration came from, in words.
const CALIBRATION_SOURCE_KEY: &str = "calibration_source";

/// One pair of a shipped calibration: two entry ids and the first's wins, draws and losses.
pub type CalibratedPair = (i64, i64, PairTally);

/// A ladder database, open.
pub struct Ladder {
    connection: Db,
    location: Location,
    /// Fit without the shipped calibration (a calibration of the pool's own, which must stand
    /// on its games alone).
    own_games_only: bool,
}

/// One rated entry as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: i64,
    pub identity: Identity,
    pub added_at: u64,
}

/// One game of the ladder.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredGame {
    pub id: i64,
    pub black: i64,
    pub white: i64,
    /// 1, ½ or 0.
    pub black_score: f64,
    /// `normal`, `resigned` or the failure's name.
    pub termination: String,
    /// The entry that lost by a failure.
    pub failed: Option<i64>,
    pub played_at: u64,
    pub ggf: String,
}

/// An entry's record over all its games.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EntryRecord {
    pub games: u64,
    pub points: f64,
    pub failures: u64,
    pub last_played: Option<u64>,
}

impl EntryRecord {
    /// It played, and lost every game by a failure (it never loads, crashes or times out).
    pub fn failed_every_game(&self) -> bool {
        self.games > 0 && self.failures == self.games
    }
}

/// Ratings saved at one moment, for the history plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub id: i64,
    pub taken_at: u64,
    /// Games in the ladder then.
    pub games: u64,
    pub reason: String,
    /// `(entry id, rating)`.
    pub ratings: Vec<(i64, Rating)>,
}

/// A `games` row: id, black, white, black_score, termination, failed, played_at, ggf.
fn stored_game(row: &othello_db::Row) -> othello_db::Result<StoredGame> {
    Ok(StoredGame {
        id: row.get(0)?,
        black: row.get(1)?,
        white: row.get(2)?,
        black_score: row.get(3)?,
        termination: row.get(4)?,
        failed: row.get(5)?,
        played_at: row.get::<i64>(6)? as u64,
        ggf: row.get(7)?,
    })
}

/// Inserts one finished game in `transaction`; returns its id.
fn insert_game(transaction: &Db, black: i64, white: i64, game: &GameRecord) -> othello_db::Result<i64> {
    let black_score = match game.result.winner {
        Some(Color::Black) => 1.0,
        Some(Color::White) => 0.0,
        None => 0.5,
    };
    let failed = match &game.result.end {
        End::Forfeit { loser: Color::Black, .. } => Some(black),
        End::Forfeit { loser: Color::White, .. } => Some(white),
        _ => None,
    };
    transaction.insert(
        "INSERT INTO games (black, white, black_score, termination, failed, played_at, ggf)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            black,
            white,
            black_score,
            game.result.termination().as_str(),
            failed,
            game.started_at as i64,
            othello_arena::ggf::write_game(game)
        ],
    )
}

fn db_error(location: &Location) -> impl Fn(othello_db::Error) -> String + '_ {
    move |e| format!("ladder {location}: {e}")
}

impl Ladder {
    /// Opens the ladder at `path`, creating it if there is no file (see [`crate::schema`]). A file
    /// that is not a ladder is refused and left as it is.
    pub fn open(location: impl Into<Location>) -> Result<Ladder, String> {
        let location = location.into();
        Ok(Ladder { connection: crate::schema::open(&location)?, location, own_games_only: false })
    }

    /// Where it is: a file, or a PostgreSQL database.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The file it is in (`None` for a PostgreSQL ladder).
    pub fn path(&self) -> Option<&Path> {
        self.location.file()
    }

    /// The database connection underneath (a server keeps its own tables beside the ladder's).
    pub fn db(&self) -> &Db {
        &self.connection
    }

    fn error(&self) -> impl Fn(othello_db::Error) -> String + '_ {
        db_error(&self.location)
    }

    /// The entry of `identity`, added if it is new (its locator is brought up to date).
    pub fn entry_for(&mut self, identity: &Identity) -> Result<Entry, String> {
        let error = db_error(&self.location);
        let transaction = self.connection.transaction().map_err(&error)?;
        let level = identity.level.unwrap_or(0) as i64;
        transaction
            .execute(
                "INSERT INTO entries (kind, name, level, hash, locator, added_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (kind, name, level, hash) DO UPDATE SET locator = excluded.locator",
                params![
                    identity.kind.as_str(),
                    identity.name,
                    level,
                    identity.hash,
                    identity.locator,
                    unix_now() as i64
                ],
            )
            .map_err(&error)?;
        let (id, added_at): (i64, i64) = transaction
            .query_row(
                "SELECT id, added_at FROM entries WHERE kind = ?1 AND name = ?2 AND level = ?3 AND hash = ?4",
                params![identity.kind.as_str(), identity.name, level, identity.hash],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .map_err(&error)?;
        transaction.commit().map_err(&error)?;
        Ok(Entry { id, identity: identity.clone(), added_at: added_at as u64 })
    }

    /// Every entry, oldest first.
    pub fn entries(&self) -> Result<Vec<Entry>, String> {
        self.connection
            .query_map("SELECT id, kind, name, level, hash, locator, added_at FROM entries ORDER BY id", [], |row| {
                let kind: String = row.get(1)?;
                let level: i64 = row.get(3)?;
                Ok(Entry {
                    id: row.get(0)?,
                    identity: Identity {
                        kind: Kind::parse(&kind).unwrap_or(Kind::Library),
                        name: row.get(2)?,
                        level: (level > 0).then_some(level as u32),
                        hash: row.get(4)?,
                        locator: row.get(5)?,
                    },
                    added_at: row.get::<i64>(6)? as u64,
                })
            })
            .map_err(self.error())
    }

    /// The anchor's entry id, if set.
    pub fn anchor(&self) -> Result<Option<i64>, String> {
        let value: Option<String> = self
            .connection
            .query_row("SELECT value FROM settings WHERE key = ?1", params![ANCHOR_KEY], |row| row.get(0))
            .optional()
            .map_err(self.error())?;
        Ok(value.and_then(|v| v.parse().ok()))
    }

    /// The entry rated last, if any (see [`Ladder::set_last_rated`]).
    pub fn last_rated(&self) -> Result<Option<i64>, String> {
        let value: Option<String> = self
            .connection
            .query_row("SELECT value FROM settings WHERE key = ?1", params![LAST_RATED_KEY], |row| row.get(0))
            .optional()
            .map_err(self.error())?;
        Ok(value.and_then(|v| v.parse().ok()))
    }

    /// Remembers `entry` as the bot rated last.
    pub fn set_last_rated(&mut self, entry: i64) -> Result<(), String> {
        self.connection
            .execute(
                "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![LAST_RATED_KEY, entry.to_string()],
            )
            .map_err(self.error())?;
        Ok(())
    }

    /// Makes `entry` the anchor unless the ladder has one (the first anchor stays for good, so
    /// ratings stay comparable).
    pub fn set_anchor_if_unset(&mut self, entry: i64) -> Result<(), String> {
        self.connection
            .execute(
                "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO NOTHING",
                params![ANCHOR_KEY, entry.to_string()],
            )
            .map_err(self.error())?;
        Ok(())
    }

    /// Records a finished game between two entries (in its own transaction).
    pub fn record_game(&mut self, black: i64, white: i64, game: &GameRecord) -> Result<i64, String> {
        let ids = self.record_games(&[(black, white, game)])?;
        Ok(ids[0])
    }

    /// Records many finished games `(black, white, game)` in one transaction (an import: all
    /// or none).
    pub fn record_games(&mut self, games: &[(i64, i64, &GameRecord)]) -> Result<Vec<i64>, String> {
        let error = db_error(&self.location);
        let transaction = self.connection.transaction().map_err(&error)?;
        let mut ids = Vec::with_capacity(games.len());
        for &(black, white, game) in games {
            ids.push(insert_game(&transaction, black, white, game).map_err(&error)?);
        }
        transaction.commit().map_err(&error)?;
        Ok(ids)
    }

    /// Records a finished game and, in the same transaction, whatever `also` writes with the
    /// game's id (a server's note of which job played it): both are committed or neither, so a
    /// game is never counted without its note, nor twice when `also` refuses a second note.
    pub fn record_game_with(
        &mut self,
        black: i64,
        white: i64,
        game: &GameRecord,
        also: impl FnOnce(&Db, i64) -> othello_db::Result<()>,
    ) -> Result<i64, String> {
        let error = db_error(&self.location);
        let transaction = self.connection.transaction().map_err(&error)?;
        let id = insert_game(&transaction, black, white, game).map_err(&error)?;
        also(&transaction, id).map_err(&error)?;
        transaction.commit().map_err(&error)?;
        Ok(id)
    }

    /// Games in the ladder.
    pub fn game_count(&self) -> Result<u64, String> {
        let count: i64 =
            self.connection.query_row("SELECT count(*) FROM games", [], |row| row.get(0)).map_err(self.error())?;
        Ok(count as u64)
    }

    /// The game `id`, if there is one.
    pub fn game(&self, id: i64) -> Result<Option<StoredGame>, String> {
        self.connection
            .query_row(
                "SELECT id, black, white, black_score, termination, failed, played_at, ggf FROM games WHERE id = ?1",
                params![id],
                stored_game,
            )
            .optional()
            .map_err(self.error())
    }

    /// The games of `entry`, newest first.
    pub fn games_of(&self, entry: i64) -> Result<Vec<StoredGame>, String> {
        self.connection
            .query_map(
                "SELECT id, black, white, black_score, termination, failed, played_at, ggf FROM games
                 WHERE black = ?1 OR white = ?1 ORDER BY id DESC",
                params![entry],
                stored_game,
            )
            .map_err(self.error())
    }

    /// One page of an entry's games, newest first: `limit` games after the first `offset`, and
    /// how many games it has in all (a bot's page lists its games a page at a time).
    pub fn games_page_of(&self, entry: i64, offset: u64, limit: u64) -> Result<(Vec<StoredGame>, u64), String> {
        let total: i64 = self
            .connection
            .query_row("SELECT count(*) FROM games WHERE black = ?1 OR white = ?1", params![entry], |row| row.get(0))
            .map_err(self.error())?;
        let games = self
            .connection
            .query_map(
                "SELECT id, black, white, black_score, termination, failed, played_at, ggf FROM games
                 WHERE black = ?1 OR white = ?1 ORDER BY id DESC LIMIT ?2 OFFSET ?3",
                params![entry, limit as i64, offset as i64],
                stored_game,
            )
            .map_err(self.error())?;
        Ok((games, total as u64))
    }

    /// Each entry's games, points, failures and last game.
    pub fn records(&self) -> Result<HashMap<i64, EntryRecord>, String> {
        let mut records: HashMap<i64, EntryRecord> = HashMap::new();
        // `failed` as 0/1 by CASE: PostgreSQL sums no booleans.
        let rows = self
            .connection
            .query_map(
                "SELECT entry, count(*), sum(score), sum(failed), max(played_at) FROM (
                     SELECT black AS entry, black_score AS score, CASE WHEN failed = black THEN 1 ELSE 0 END AS failed,
                            played_at FROM games
                     UNION ALL
                     SELECT white, 1.0 - black_score, CASE WHEN failed = white THEN 1 ELSE 0 END, played_at FROM games
                 ) AS sides GROUP BY entry",
                [],
                |row| {
                    Ok((
                        row.get::<i64>(0)?,
                        EntryRecord {
                            games: row.get::<i64>(1)? as u64,
                            points: row.get(2)?,
                            failures: row.get::<Option<i64>>(3)?.unwrap_or(0) as u64,
                            last_played: row.get::<Option<i64>>(4)?.map(|t| t as u64),
                        },
                    ))
                },
            )
            .map_err(self.error())?;
        for (entry, record) in rows {
            records.insert(entry, record);
        }
        Ok(records)
    }

    /// Every game aggregated into one tally per pair, with entries numbered in the order of
    /// `entries` (ids not listed are left out).
    pub fn results(&self, entries: &[Entry]) -> Result<Results, String> {
        let index: HashMap<i64, usize> = entries.iter().enumerate().map(|(i, e)| (e.id, i)).collect();
        let mut results = Results::new(entries.len());
        let rows = self
            .connection
            .query_map(
                "SELECT black, white, black_score, count(*) FROM games GROUP BY black, white, black_score",
                [],
                |row| Ok((row.get::<i64>(0)?, row.get::<i64>(1)?, row.get::<f64>(2)?, row.get::<i64>(3)?)),
            )
            .map_err(self.error())?;
        for (black, white, score, count) in rows {
            if let (Some(&b), Some(&w)) = (index.get(&black), index.get(&white)) {
                results.add_games(b, w, score, count as f64);
            }
        }
        Ok(results)
    }

    /// Fits every entry's rating from all games (see [`crate::fit`](mod@crate::fit)); `entries` as
    /// [`Ladder::entries`] returns them. Without an anchor, nothing is rated. An entry that lost
    /// every one of its games by a failure ([`EntryRecord::failed_every_game`]) is left out of the
    /// fit: its forfeits say nothing of its strength (nor of its opponents'), and a leaderboard
    /// places it at the bottom.
    pub fn fit(&self, entries: &[Entry]) -> Result<Fit, String> {
        let (results, anchor) = self.fit_inputs(entries)?;
        Ok(match anchor {
            Some(anchor) => fit(&results, &FitOptions::anchored_at(anchor)),
            None => Fit { ratings: vec![None; entries.len()], placement_errors: vec![None; entries.len()], steps: 0 },
        })
    }

    /// What [`Ladder::fit`] fits: the games, less those of entries that failed every game, and
    /// the anchor's index in `entries`.
    pub fn fit_inputs(&self, entries: &[Entry]) -> Result<(Results, Option<usize>), String> {
        let records = self.records()?;
        let failing: Vec<i64> = entries
            .iter()
            .filter(|e| records.get(&e.id).is_some_and(EntryRecord::failed_every_game))
            .map(|e| e.id)
            .collect();
        let counted: Vec<Entry> = entries
            .iter()
            .map(|e| {
                // A failing entry stays in the numbering with an id no game has.
                let mut entry = e.clone();
                if failing.contains(&e.id) {
                    entry.id = i64::MIN;
                }
                entry
            })
            .collect();
        let mut results = self.results(&counted)?;
        if !self.own_games_only {
            // The shipped calibration's games count as if played here (see `set_calibration`).
            let index: HashMap<i64, usize> = counted.iter().enumerate().map(|(i, e)| (e.id, i)).collect();
            for (a, b, tally) in self.calibration()?.map(|(pairs, _)| pairs).unwrap_or_default() {
                if let (Some(&a), Some(&b)) = (index.get(&a), index.get(&b)) {
                    results.add_games(a, b, 1.0, tally.wins);
                    results.add_games(a, b, 0.5, tally.draws);
                    results.add_games(a, b, 0.0, tally.losses);
                }
            }
        }
        let anchor = self.anchor()?.and_then(|id| entries.iter().position(|e| e.id == id));
        Ok((results, anchor))
    }

    /// Enters a shipped calibration of the pool: the tallies `(a, b, a's wins, draws and
    /// losses)` between entries of the pool, played elsewhere at the contest's time control. Every
    /// fit counts them as games of this ladder (they are not games: no page lists them), so the
    /// pool is rated before it plays here; `source` says where they come from.
    pub fn set_calibration(&mut self, pairs: &[(i64, i64, PairTally)], source: &str) -> Result<(), String> {
        let text: String =
            pairs.iter().map(|(a, b, t)| format!("{a}\t{b}\t{}\t{}\t{}\n", t.wins, t.draws, t.losses)).collect();
        for (key, value) in [(CALIBRATION_KEY, text.as_str()), (CALIBRATION_SOURCE_KEY, source)] {
            self.connection
                .execute(
                    "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    params![key, value],
                )
                .map_err(self.error())?;
        }
        Ok(())
    }

    /// Drops the shipped calibration (the pool's own games now place it).
    pub fn clear_calibration(&mut self) -> Result<(), String> {
        self.connection
            .execute("DELETE FROM settings WHERE key IN (?1, ?2)", params![CALIBRATION_KEY, CALIBRATION_SOURCE_KEY])
            .map_err(self.error())?;
        Ok(())
    }

    /// The shipped calibration the fits count, and where it comes from (see
    /// [`Ladder::set_calibration`]); `None` once the pool's own games place it.
    pub fn calibration(&self) -> Result<Option<(Vec<CalibratedPair>, String)>, String> {
        let value = |key: &str| -> Result<Option<String>, String> {
            self.connection
                .query_row("SELECT value FROM settings WHERE key = ?1", params![key], |row| row.get(0))
                .optional()
                .map_err(self.error())
        };
        let Some(text) = value(CALIBRATION_KEY)? else { return Ok(None) };
        let pairs = text
            .lines()
            .filter_map(|line| {
                let fields: Vec<&str> = line.split('\t').collect();
                let [a, b, wins, draws, losses] = fields[..] else { return None };
                Some((
                    a.parse().ok()?,
                    b.parse().ok()?,
                    PairTally { wins: wins.parse().ok()?, draws: draws.parse().ok()?, losses: losses.parse().ok()? },
                ))
            })
            .collect();
        Ok(Some((pairs, value(CALIBRATION_SOURCE_KEY)?.unwrap_or_default())))
    }

    /// From now on this handle fits the games alone, without the shipped calibration: for a
    /// calibration of the pool's own, whose progress must be what it played.
    pub fn fit_own_games_only(&mut self) {
        self.own_games_only = true;
    }

    /// Whether fits through this handle count the shipped calibration.
    pub fn counts_calibration(&self) -> bool {
        !self.own_games_only
    }

    /// Saves the ratings of `fit` (for `entries`) as a snapshot of the history.
    pub fn save_snapshot(&mut self, entries: &[Entry], fit: &Fit, reason: &str) -> Result<i64, String> {
        let games = self.game_count()?;
        let error = db_error(&self.location);
        let transaction = self.connection.transaction().map_err(&error)?;
        let snapshot = transaction
            .insert(
                "INSERT INTO snapshots (taken_at, games, reason) VALUES (?1, ?2, ?3)",
                params![unix_now() as i64, games as i64, reason],
            )
            .map_err(&error)?;
        for (entry, rating) in entries.iter().zip(&fit.ratings) {
            if let Some(rating) = rating {
                transaction
                    .execute(
                        "INSERT INTO snapshot_ratings (snapshot, entry, rating, error) VALUES (?1, ?2, ?3, ?4)",
                        params![snapshot, entry.id, rating.elo, rating.error],
                    )
                    .map_err(&error)?;
            }
        }
        transaction.commit().map_err(&error)?;
        Ok(snapshot)
    }

    /// Every snapshot, oldest first.
    pub fn history(&self) -> Result<Vec<Snapshot>, String> {
        let mut snapshots: Vec<Snapshot> = self
            .connection
            .query_map("SELECT id, taken_at, games, reason FROM snapshots ORDER BY id", [], |row| {
                Ok(Snapshot {
                    id: row.get(0)?,
                    taken_at: row.get::<i64>(1)? as u64,
                    games: row.get::<i64>(2)? as u64,
                    reason: row.get(3)?,
                    ratings: Vec::new(),
                })
            })
            .map_err(self.error())?;
        let position: HashMap<i64, usize> = snapshots.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
        let rows = self
            .connection
            .query_map(
                "SELECT snapshot, entry, rating, error FROM snapshot_ratings ORDER BY snapshot, entry",
                [],
                |row| Ok((row.get::<i64>(0)?, row.get::<i64>(1)?, row.get::<f64>(2)?, row.get::<f64>(3)?)),
            )
            .map_err(self.error())?;
        for (snapshot, entry, elo, error) in rows {
            if let Some(&i) = position.get(&snapshot) {
                snapshots[i].ratings.push((entry, Rating { elo, error }));
            }
        }
        Ok(snapshots)
    }
}
