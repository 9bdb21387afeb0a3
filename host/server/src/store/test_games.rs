//! The unrated test games' tables: the pairs entrants ask for, their queue and their games.

use othello_db::{Db, OptionalExtension, params};
use serde::Serialize;

use othello_arena::record::{GameRecord, unix_now};
use othello_sdk::Color;

use crate::store::{all_rows, db};

/// Default pairs of test games one entrant may ask for per hour.
pub const DEFAULT_TEST_GAMES_PER_HOUR: u32 = 20;

/// Pairs of test games `entrant` asked for since `since` (Unix seconds), for the rate limit.
pub fn requested_since(connection: &Db, entrant: i64, since: u64) -> Result<u32, crate::store::Error> {
    connection
        .query_row(
            // A pair the server could not play (its reason says why) is not the entrant's doing.
            "SELECT count(*) FROM server_test_games WHERE entrant = ?1 AND requested_at >= ?2 AND reason IS NULL",
            params![entrant, since as i64],
            |row| row.get::<i64>(0),
        )
        .map(|n| n as u32)
        .map_err(db)
}

/// Queues a pair of test games; returns its id.
pub fn request(connection: &Db, entrant: i64, upload: i64, opponent: i64) -> Result<i64, crate::store::Error> {
    connection
        .insert(
            "INSERT INTO server_test_games (entrant, upload, opponent, requested_at) VALUES (?1, ?2, ?3, ?4)",
            params![entrant, upload, opponent, unix_now() as i64],
        )
        .map_err(db)
}

/// A pair of test games a worker holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestJob {
    pub id: i64,
    pub upload: i64,
    pub opponent: i64,
}

/// Claims the oldest queued pair of test games for `lease`, unless a check waits (checks come
/// first; test games then come before every ladder job).
pub fn claim(connection: &mut Db, lease: &str) -> Result<Option<TestJob>, crate::store::Error> {
    let transaction = connection.transaction().map_err(db)?;
    crate::store::replicas::requeue_abandoned(&transaction)?;
    let check_waits: bool = transaction
        .query_row("SELECT EXISTS (SELECT 1 FROM server_jobs WHERE state = 'queued' AND kind = 'check')", [], |row| {
            row.get(0)
        })
        .map_err(db)?;
    if check_waits {
        return Ok(None);
    }
    let job = transaction
        .query_row(
            &format!(
                "SELECT id, upload, opponent FROM server_test_games WHERE state = 'queued' ORDER BY id LIMIT 1{}",
                transaction.skip_locked()
            ),
            [],
            |row| Ok(TestJob { id: row.get(0)?, upload: row.get(1)?, opponent: row.get(2)? }),
        )
        .optional()
        .map_err(db)?;
    if let Some(job) = &job {
        transaction
            .execute("UPDATE server_test_games SET state = 'running', lease = ?2 WHERE id = ?1", params![job.id, lease])
            .map_err(db)?;
    }
    transaction.commit().map_err(db)?;
    Ok(job)
}

/// Ends a pair of test games: played, or not with the reason.
pub fn finish(connection: &Db, id: i64, reason: Option<&str>) -> Result<(), crate::store::Error> {
    connection
        .execute(
            "UPDATE server_test_games SET state = 'done', lease = NULL, reason = ?2, finished_at = ?3 WHERE id = ?1",
            params![id, reason, unix_now() as i64],
        )
        .map(drop)
        .map_err(db)
}

/// Records test game `slot` of pair `test` (a slot recorded already is left as it is).
pub fn record(db: &Db, test: i64, slot: usize, game: &GameRecord) -> Result<(), crate::store::Error> {
    let black_score = match game.result.winner {
        Some(Color::Black) => 1.0,
        Some(Color::White) => 0.0,
        None => 0.5,
    };
    db.execute(
        "INSERT INTO server_test_game_records (test, slot, black, white, black_score, termination, played_at, ggf)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (test, slot) DO NOTHING",
        params![
            test,
            slot as i64,
            game.black,
            game.white,
            black_score,
            game.result.termination().as_str(),
            game.started_at as i64,
            othello_arena::ggf::write_game(game)
        ],
    )
    .map(drop)
    .map_err(self::db)
}

/// One recorded test game.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestGame {
    pub id: i64,
    /// The pair it belongs to.
    pub test: i64,
    pub upload: i64,
    pub entrant: i64,
    pub black: String,
    pub white: String,
    pub black_score: f64,
    pub termination: String,
    pub played_at: u64,
    #[serde(skip)]
    pub ggf: String,
}

const GAME_COLUMNS: &str = "r.id, r.test, t.upload, t.entrant, r.black, r.white, r.black_score, r.termination,
    r.played_at, r.ggf FROM server_test_game_records r JOIN server_test_games t ON t.id = r.test";

fn game_row(row: &othello_db::Row) -> othello_db::Result<TestGame> {
    Ok(TestGame {
        id: row.get(0)?,
        test: row.get(1)?,
        upload: row.get(2)?,
        entrant: row.get(3)?,
        black: row.get(4)?,
        white: row.get(5)?,
        black_score: row.get(6)?,
        termination: row.get(7)?,
        played_at: row.get::<i64>(8)? as u64,
        ggf: row.get(9)?,
    })
}

/// The test games of an upload, newest first.
pub fn games_of(connection: &Db, upload: i64) -> Result<Vec<TestGame>, crate::store::Error> {
    all_rows(connection, &format!("SELECT {GAME_COLUMNS} WHERE t.upload = ?1 ORDER BY r.id DESC"), [upload], game_row)
}

pub fn game(connection: &Db, id: i64) -> Result<Option<TestGame>, crate::store::Error> {
    connection.query_row(&format!("SELECT {GAME_COLUMNS} WHERE r.id = ?1"), [id], game_row).optional().map_err(db)
}

/// Pairs of test games of an upload not played yet (queued or being played).
pub fn pending_of(connection: &Db, upload: i64) -> Result<u32, crate::store::Error> {
    connection
        .query_row("SELECT count(*) FROM server_test_games WHERE upload = ?1 AND state != 'done'", [upload], |row| {
            row.get::<i64>(0)
        })
        .map(|n| n as u32)
        .map_err(db)
}

/// Pairs of test games of an upload that could not be played: their id and why, newest first.
pub fn failures_of(connection: &Db, upload: i64) -> Result<Vec<(i64, String)>, crate::store::Error> {
    all_rows(
        connection,
        "SELECT id, reason FROM server_test_games WHERE upload = ?1 AND reason IS NOT NULL ORDER BY id DESC",
        [upload],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )
}

/// The opponent (a ladder entry) of pair `id`. Its error is the database's alone (the caller
/// names the pair).
pub fn opponent(connection: &Db, id: i64) -> Result<i64, othello_db::Error> {
    connection.query_row("SELECT opponent FROM server_test_games WHERE id = ?1", [id], |row| row.get(0))
}

/// The slots of pair `test` recorded already.
pub fn recorded_slots(connection: &Db, test: i64) -> Result<Vec<i64>, crate::store::Error> {
    all_rows(connection, "SELECT slot FROM server_test_game_records WHERE test = ?1", [test], |row| row.get(0))
}
