//! The final: a round robin (or a knockout) of every entrant's latest version, played by the
//! same workers as the ladder's jobs and before them.
//!
//! Its games are rows of `server_final_games`, claimed and played one at a time like the job
//! queue's jobs: a worker holds a row (`running`, with its lease) while it plays, and the game is
//! recorded in the ladder in one transaction with the row turning `done`, so a server killed in
//! the middle, or one of its replicas gone, puts the row back in the queue
//! ([`crate::store::replicas::requeue_abandoned`]) and no game is lost or counted twice. The games are ladder games too: each is replayable at
//! `/games/{id}` and counts on the leaderboard.
//!
//! A knockout's next round is queued when the queue of the final is empty and every match of the
//! round before is decided, in the transaction of the claim that finds it so.

use std::collections::HashMap;
use std::time::Duration;

use othello_db::{Db, Location, OptionalExtension, params};
use serde::Serialize;

use othello_arena::event::openings::OpeningSource;
use othello_arena::record::{GameRecord, unix_now};
use othello_arena::referee::Opening;
use othello_ladder::session::{OPENING_PLIES, lost_by_failure};
use othello_ladder::{Ladder, leaderboard};
use othello_sdk::Color;

use crate::store::{all_rows, db};

/// Tries of one game before the server gives up on it (for its own failures, e.g. the disk).
pub const MAX_ATTEMPTS: i64 = 3;

/// Round robin or knockout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    RoundRobin,
    Knockout,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::RoundRobin => "round-robin",
            Format::Knockout => "knockout",
        }
    }

    pub fn parse(text: &str) -> Result<Format, String> {
        match text {
            "round-robin" => Ok(Format::RoundRobin),
            "knockout" => Ok(Format::Knockout),
            _ => Err(format!("`{text}`: a final is `round-robin` or `knockout`")),
        }
    }
}

/// How a final is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FinalOptions {
    pub format: Format,
    /// Games each pairing plays: even, as each opening is played with colours swapped.
    pub games_per_pair: u32,
    /// Time per move (`None` = no limit).
    pub time_limit: Option<Duration>,
    /// Seed of the openings.
    pub seed: u64,
}

/// Default games of each pairing.
pub const DEFAULT_GAMES_PER_PAIR: u32 = 4;
/// Most games of one pairing.
pub const MAX_GAMES_PER_PAIR: u32 = 100;

/// A bot of a final.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FinalBot {
    pub seed: u32,
    pub upload: i64,
    pub entry: i64,
    pub name: String,
    pub entrant: String,
}

/// One game of a final as stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinalGameRow {
    pub id: i64,
    pub round: u32,
    pub match_no: u32,
    pub number: u32,
    /// Seeds.
    pub black: u32,
    pub white: u32,
    pub state: String,
    /// The ladder game, once played (`/games/{game}`).
    pub game: Option<i64>,
    pub black_score: Option<f64>,
    pub discs: Option<[u32; 2]>,
    pub failed: Option<u32>,
}

/// A final as stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinalInfo {
    pub id: i64,
    pub format: Format,
    pub games_per_pair: u32,
    pub time_ms: Option<u64>,
    pub seed: u64,
    pub started_at: u64,
    pub finished_at: Option<u64>,
}

/// Starts a final of every entrant's latest version that passed its check (a bot still being
/// placed is in), seeded by ladder rating. Refused while another final runs, with fewer than two
/// such bots, or with an odd or zero number of games per pairing.
pub fn start(ladder_path: &Location, options: FinalOptions) -> Result<(FinalInfo, Vec<FinalBot>), crate::store::Error> {
    if options.games_per_pair == 0 || options.games_per_pair % 2 == 1 || options.games_per_pair > MAX_GAMES_PER_PAIR {
        return Err(format!(
            "games per pairing: an even number from 2 to {MAX_GAMES_PER_PAIR} (each opening is played with colours swapped)"
        ).into());
    }
    let connection = crate::store::open(ladder_path)?;
    let ladder = Ladder::open(ladder_path)?;
    let board = leaderboard(&ladder)?;
    let rating: HashMap<i64, f64> = board.rows.iter().filter_map(|r| Some((r.entry, r.rating?))).collect();
    let transaction = connection.transaction().map_err(db)?;
    if let Some(running) = running_final(&transaction)? {
        return Err(format!("final #{running} is still being played: one final at a time").into());
    }
    // Each active entrant's version that counts (the one it chose, else its newest that loaded).
    let mut candidates: Vec<(i64, i64, String, String)> = all_rows(
        &transaction,
        &format!(
            "SELECT u.id, u.entry, u.report, u.file_name, e.name
             FROM server_uploads u JOIN server_entrants e ON e.id = u.entrant
             WHERE e.revoked_at IS NULL AND u.entry IS NOT NULL AND u.status IN ('rating', 'rated')
               AND u.id = {}
             ORDER BY u.id",
            crate::store::current_upload_sql("u.entrant", "'rating', 'rated'")
        ),
        [],
        |row| Ok((row.get(0)?, row.get(1)?, crate::store::bot_name(row.get(2)?, row.get(3)?), row.get(4)?)),
    )?;
    // One seed per ladder entry, the earliest upload's: two uploads on one entry (a copy, from
    // before copies were refused) would seed it twice and make it play itself.
    let mut seeded = std::collections::HashSet::new();
    candidates.retain(|candidate| seeded.insert(candidate.1));
    if candidates.len() < 2 {
        return Err(format!(
            "a final needs at least two entrants with a checked bot; there {} {}",
            if candidates.len() == 1 { "is" } else { "are" },
            candidates.len()
        )
        .into());
    }
    // The best rated first; unrated ones after, oldest upload first.
    candidates.sort_by(|a, b| {
        let (ra, rb) = (rating.get(&a.1), rating.get(&b.1));
        rb.partial_cmp(&ra).unwrap_or(std::cmp::Ordering::Equal).then(a.0.cmp(&b.0))
    });
    let now = unix_now() as i64;
    let final_id = transaction
        .insert(
            "INSERT INTO server_finals (format, games_per_pair, time_ms, seed, started_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                options.format.as_str(),
                options.games_per_pair,
                options.time_limit.map(|t| t.as_millis() as i64),
                options.seed as i64,
                now
            ],
        )
        .map_err(db)?;
    let bots: Vec<FinalBot> = candidates
        .into_iter()
        .enumerate()
        .map(|(index, (upload, entry, name, entrant))| FinalBot {
            seed: index as u32 + 1,
            upload,
            entry,
            name,
            entrant,
        })
        .collect();
    for bot in &bots {
        transaction
            .execute(
                "INSERT INTO server_final_bots (final, seed, upload, entry, name, entrant) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![final_id, bot.seed, bot.upload, bot.entry, bot.name, bot.entrant],
            )
            .map_err(db)?;
    }
    let pairings: Vec<(u32, u32, u32, u32)> = match options.format {
        Format::RoundRobin => {
            let n = bots.len() as u32;
            let mut pairs = Vec::new();
            for a in 1..=n {
                for b in a + 1..=n {
                    pairs.push((1, pairs.len() as u32, a, b));
                }
            }
            pairs
        }
        Format::Knockout => Vec::new(), // queued round by round, by the claims
    };
    queue_pairings(&transaction, final_id, options.games_per_pair, &pairings)?;
    if options.format == Format::Knockout {
        queue_next_round(&transaction, final_id, bots.len() as u32, options.games_per_pair)?;
    }
    transaction.commit().map_err(db)?;
    let info = final_info(&connection, final_id)?.expect("just made");
    Ok((info, bots))
}

/// Queues the games of `(round, match, seed a, seed b)` pairings, game by game across the
/// pairings (so the standings move evenly): game 2k with `a` black, 2k+1 with colours swapped.
fn queue_pairings(
    transaction: &Db,
    final_id: i64,
    games_per_pair: u32,
    pairings: &[(u32, u32, u32, u32)],
) -> Result<(), crate::store::Error> {
    for number in 0..games_per_pair {
        for &(round, match_no, a, b) in pairings {
            let (black, white) = if number % 2 == 0 { (a, b) } else { (b, a) };
            transaction
                .execute(
                    "INSERT INTO server_final_games (final, round, match_no, number, black, white)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![final_id, round, match_no, number, black, white],
                )
                .map_err(db)?;
        }
    }
    Ok(())
}

/// Queues the knockout matches whose two bots are known and that have no game yet.
fn queue_next_round(
    transaction: &Db,
    final_id: i64,
    bots: u32,
    games_per_pair: u32,
) -> Result<bool, crate::store::Error> {
    let games = final_games(transaction, final_id)?;
    let rounds = bracket(bots, games_per_pair, &games);
    let mut pairings = Vec::new();
    for round in &rounds {
        for m in round {
            if let (Slot::Bot(a), Slot::Bot(b)) = (m.a, m.b)
                && m.games.is_empty()
            {
                pairings.push((m.round, m.match_no, a, b));
            }
        }
    }
    queue_pairings(transaction, final_id, games_per_pair, &pairings)?;
    Ok(!pairings.is_empty())
}

fn running_final(connection: &Db) -> Result<Option<i64>, crate::store::Error> {
    connection
        .query_row("SELECT id FROM server_finals WHERE finished_at IS NULL ORDER BY id DESC LIMIT 1", [], |row| {
            row.get(0)
        })
        .optional()
        .map_err(db)
}

fn final_info(connection: &Db, id: i64) -> Result<Option<FinalInfo>, crate::store::Error> {
    connection
        .query_row(
            "SELECT id, format, games_per_pair, time_ms, seed, started_at, finished_at FROM server_finals WHERE id = ?1",
            [id],
            |row| {
                Ok(FinalInfo {
                    id: row.get(0)?,
                    format: if row.get::<String>(1)? == "knockout" { Format::Knockout } else { Format::RoundRobin },
                    games_per_pair: row.get(2)?,
                    time_ms: row.get::<Option<i64>>(3)?.map(|t| t as u64),
                    seed: row.get::<i64>(4)? as u64,
                    started_at: row.get::<i64>(5)? as u64,
                    finished_at: row.get::<Option<i64>>(6)?.map(|t| t as u64),
                })
            },
        )
        .optional()
        .map_err(db)
}

/// The newest final, if there was one.
pub fn latest(connection: &Db) -> Result<Option<FinalInfo>, crate::store::Error> {
    let id: Option<i64> =
        connection.query_row("SELECT max(id) FROM server_finals", [], |row| row.get(0)).map_err(db)?;
    match id {
        Some(id) => final_info(connection, id),
        None => Ok(None),
    }
}

pub fn final_bots(connection: &Db, final_id: i64) -> Result<Vec<FinalBot>, crate::store::Error> {
    all_rows(
        connection,
        "SELECT seed, upload, entry, name, entrant FROM server_final_bots WHERE final = ?1 ORDER BY seed",
        [final_id],
        |row| {
            Ok(FinalBot {
                seed: row.get(0)?,
                upload: row.get(1)?,
                entry: row.get(2)?,
                name: row.get(3)?,
                entrant: row.get(4)?,
            })
        },
    )
}

pub fn final_games(connection: &Db, final_id: i64) -> Result<Vec<FinalGameRow>, crate::store::Error> {
    all_rows(
        connection,
        "SELECT id, round, match_no, number, black, white, state, game, black_score, black_discs, white_discs, failed
         FROM server_final_games WHERE final = ?1 ORDER BY id",
        [final_id],
        |row| {
            let discs: (Option<u32>, Option<u32>) = (row.get(9)?, row.get(10)?);
            Ok(FinalGameRow {
                id: row.get(0)?,
                round: row.get(1)?,
                match_no: row.get(2)?,
                number: row.get(3)?,
                black: row.get(4)?,
                white: row.get(5)?,
                state: row.get(6)?,
                game: row.get(7)?,
                black_score: row.get(8)?,
                discs: match discs {
                    (Some(b), Some(w)) => Some([b, w]),
                    _ => None,
                },
                failed: row.get(11)?,
            })
        },
    )
}

/// A final game a worker holds.
#[derive(Debug, Clone)]
pub struct ClaimedGame {
    pub id: i64,
    pub final_id: i64,
    pub round: u32,
    pub number: u32,
    pub black: FinalBot,
    pub white: FinalBot,
    pub time_limit: Option<Duration>,
    pub opening: Opening,
    pub format: Format,
}

/// What a claim found.
pub enum Claim {
    Game(Box<ClaimedGame>),
    /// No final game waits.
    Nothing,
    /// The final just ended (its last game was recorded before): the pages should know.
    Finished,
}

/// Claims the next game of the running final for `lease`; queues a knockout's next round, or
/// marks the final finished, when its queue is empty and nothing of it is being played.
pub fn claim(connection: &mut Db, lease: &str) -> Result<Claim, crate::store::Error> {
    let transaction = connection.transaction().map_err(db)?;
    crate::store::replicas::requeue_abandoned(&transaction)?;
    let Some(final_id) = running_final(&transaction)? else { return Ok(Claim::Nothing) };
    // One claim of a final at a time, whichever replica makes it: a knockout's next round and
    // the final's end are decided once.
    transaction
        .query_row(
            &format!("SELECT id FROM server_finals WHERE id = ?1{}", transaction.for_update()),
            [final_id],
            |_| Ok(()),
        )
        .map_err(db)?;
    let info = final_info(&transaction, final_id)?.ok_or("the final is gone")?;
    let mut next = queued(&transaction, final_id)?;
    if next.is_none() {
        let running: i64 = transaction
            .query_row(
                "SELECT count(*) FROM server_final_games WHERE final = ?1 AND state = 'running'",
                [final_id],
                |row| row.get(0),
            )
            .map_err(db)?;
        if running > 0 {
            return Ok(Claim::Nothing);
        }
        let bots = final_bots(&transaction, final_id)?.len() as u32;
        if info.format == Format::Knockout && queue_next_round(&transaction, final_id, bots, info.games_per_pair)? {
            next = queued(&transaction, final_id)?;
        }
        if next.is_none() {
            transaction
                .execute(
                    "UPDATE server_finals SET finished_at = ?2 WHERE id = ?1",
                    params![final_id, unix_now() as i64],
                )
                .map_err(db)?;
            transaction.commit().map_err(db)?;
            return Ok(Claim::Finished);
        }
    }
    let (id, round, number, black, white) = next.expect("found or queued");
    transaction
        .execute(
            "UPDATE server_final_games SET state = 'running', lease = ?2, attempts = attempts + 1 WHERE id = ?1",
            params![id, lease],
        )
        .map_err(db)?;
    let bots = final_bots(&transaction, final_id)?;
    let bot = |seed: u32| bots.iter().find(|b| b.seed == seed).cloned().ok_or("a bot of the final is gone");
    let (black, white) = (bot(black)?, bot(white)?);
    transaction.commit().map_err(db)?;
    // Each pairing plays the same openings, opening k in its games 2k and 2k+1.
    let opening = OpeningSource::Random { plies: OPENING_PLIES }
        .openings(info.games_per_pair as usize / 2, info.seed)
        .swap_remove(number as usize / 2);
    Ok(Claim::Game(Box::new(ClaimedGame {
        id,
        final_id,
        round,
        number,
        black,
        white,
        time_limit: info.time_ms.map(Duration::from_millis),
        opening,
        format: info.format,
    })))
}

type QueuedGame = (i64, u32, u32, u32, u32);

fn queued(connection: &Db, final_id: i64) -> Result<Option<QueuedGame>, crate::store::Error> {
    connection
        .query_row(
            "SELECT id, round, number, black, white FROM server_final_games
             WHERE final = ?1 AND state = 'queued' ORDER BY id LIMIT 1",
            [final_id],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?)),
        )
        .optional()
        .map_err(db)
}

/// Gives a claimed game back after a failure of the server's own (not the bots'): queued again,
/// or given up after [`MAX_ATTEMPTS`] tries.
pub fn release(connection: &Db, id: i64) -> Result<(), crate::store::Error> {
    connection
        .execute(
            "UPDATE server_final_games SET lease = NULL,
                 state = CASE WHEN attempts >= ?2 THEN 'done' ELSE 'queued' END,
                 finished_at = CASE WHEN attempts >= ?2 THEN CAST(?3 AS BIGINT) ELSE NULL END
             WHERE id = ?1",
            params![id, MAX_ATTEMPTS, unix_now() as i64],
        )
        .map(drop)
        .map_err(db)
}

/// Marks the claimed row done with its game, inside the game's own transaction; refuses (and so
/// rolls the game back) when the row is no longer this lease's.
pub fn note_played(
    transaction: &Db,
    claimed: &ClaimedGame,
    lease: &str,
    game: i64,
    record: &GameRecord,
) -> othello_db::Result<()> {
    let black_score = match record.result.winner {
        Some(Color::Black) => 1.0,
        Some(Color::White) => 0.0,
        None => 0.5,
    };
    let failed = if lost_by_failure(record, Color::Black) {
        Some(claimed.black.seed)
    } else if lost_by_failure(record, Color::White) {
        Some(claimed.white.seed)
    } else {
        None
    };
    let changed = transaction.execute(
        "UPDATE server_final_games SET state = 'done', lease = NULL, game = ?3, black_score = ?4, black_discs = ?5,
             white_discs = ?6, failed = ?7, finished_at = ?8
         WHERE id = ?1 AND state = 'running' AND lease = ?2",
        params![
            claimed.id,
            lease,
            game,
            black_score,
            record.result.discs[0],
            record.result.discs[1],
            failed,
            unix_now() as i64
        ],
    )?;
    if changed == 1 { Ok(()) } else { Err(othello_db::Error::NoRows) }
}

/// One bot's line of the standings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Standing {
    pub rank: usize,
    pub seed: u32,
    pub name: String,
    pub entrant: String,
    pub upload: i64,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub points: f64,
    /// Its discs minus its opponents', over its games.
    pub disc_difference: i64,
    /// Games it lost by a failure (crash, timeout, illegal move …).
    pub failures: u32,
    /// Knockout: the last round it played in (or was given a bye into).
    pub reached: u32,
}

/// A place in a knockout's bracket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "seed")]
pub enum Slot {
    Bot(u32),
    /// No bot: the other goes through.
    Bye,
    /// The winner of a match not decided yet.
    Pending,
}

/// One match of a knockout.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Match {
    pub round: u32,
    pub match_no: u32,
    pub a: Slot,
    pub b: Slot,
    /// Points of `a` and `b`.
    pub points: [f64; 2],
    /// Discs of `a` and `b` over the match.
    pub discs: [u32; 2],
    pub winner: Option<u32>,
    /// What decided it: `points`, `discs` (level on points), `seed` (level on both) or `bye`.
    pub decided_by: Option<&'static str>,
    /// Its games (ids of the final's rows).
    pub games: Vec<i64>,
}

/// Seeds in bracket order for `size` places (a power of two): 1 meets `size`, and the best two
/// can only meet in the last round.
fn seeding_order(size: u32) -> Vec<u32> {
    let mut order = vec![1];
    while (order.len() as u32) < size {
        let next = order.len() as u32 * 2;
        order = order.iter().flat_map(|&s| [s, next + 1 - s]).collect();
    }
    order
}

/// The knockout's bracket as far as its games decide it. A match is decided when all its games
/// are done: by points, then disc difference, then the better seed.
pub fn bracket(bots: u32, games_per_pair: u32, games: &[FinalGameRow]) -> Vec<Vec<Match>> {
    let size = bots.max(2).next_power_of_two();
    let mut slots: Vec<Slot> =
        seeding_order(size).into_iter().map(|s| if s <= bots { Slot::Bot(s) } else { Slot::Bye }).collect();
    let mut rounds = Vec::new();
    let mut round = 1;
    while slots.len() >= 2 {
        let matches: Vec<Match> = slots
            .chunks(2)
            .enumerate()
            .map(|(index, pair)| {
                let mine: Vec<&FinalGameRow> =
                    games.iter().filter(|g| g.round == round && g.match_no == index as u32).collect();
                let mut m = Match {
                    round,
                    match_no: index as u32,
                    a: pair[0],
                    b: pair[1],
                    points: [0.0; 2],
                    discs: [0; 2],
                    winner: None,
                    decided_by: None,
                    games: mine.iter().map(|g| g.id).collect(),
                };
                if let (Slot::Bot(a), Slot::Bot(b)) = (m.a, m.b) {
                    for game in &mine {
                        let (Some(score), Some(discs)) = (game.black_score, game.discs) else { continue };
                        let a_black = game.black == a;
                        m.points[0] += if a_black { score } else { 1.0 - score };
                        m.points[1] += if a_black { 1.0 - score } else { score };
                        m.discs[0] += if a_black { discs[0] } else { discs[1] };
                        m.discs[1] += if a_black { discs[1] } else { discs[0] };
                    }
                    let all_done = mine.len() as u32 == games_per_pair && mine.iter().all(|g| g.state == "done");
                    if all_done {
                        let by_points = m.points[0].partial_cmp(&m.points[1]).unwrap_or(std::cmp::Ordering::Equal);
                        let by_discs = m.discs[0].cmp(&m.discs[1]);
                        let order = by_points.then(by_discs).then(b.cmp(&a));
                        m.winner = Some(if order == std::cmp::Ordering::Less { b } else { a });
                        m.decided_by = Some(if by_points.is_ne() {
                            "points"
                        } else if by_discs.is_ne() {
                            "discs"
                        } else {
                            "seed"
                        });
                    }
                } else {
                    m.winner = match (m.a, m.b) {
                        (Slot::Bot(a), Slot::Bye) => Some(a),
                        (Slot::Bye, Slot::Bot(b)) => Some(b),
                        _ => None,
                    };
                    m.decided_by = m.winner.map(|_| "bye");
                }
                m
            })
            .collect();
        slots = matches.iter().map(|m| m.winner.map_or(Slot::Pending, Slot::Bot)).collect();
        rounds.push(matches);
        round += 1;
    }
    rounds
}

/// The standings from the final's games: a round robin's by points, then disc difference, then
/// fewer failures, then seed; a knockout's by the round reached (the winner first), then the same.
pub fn standings(info: &FinalInfo, bots: &[FinalBot], games: &[FinalGameRow]) -> Vec<Standing> {
    let mut lines: Vec<Standing> = bots
        .iter()
        .map(|bot| Standing {
            rank: 0,
            seed: bot.seed,
            name: bot.name.clone(),
            entrant: bot.entrant.clone(),
            upload: bot.upload,
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            points: 0.0,
            disc_difference: 0,
            failures: 0,
            reached: 0,
        })
        .collect();
    for game in games {
        let (Some(score), Some(discs)) = (game.black_score, game.discs) else { continue };
        for (seed, my_score, mine, theirs) in
            [(game.black, score, discs[0], discs[1]), (game.white, 1.0 - score, discs[1], discs[0])]
        {
            let Some(line) = lines.iter_mut().find(|l| l.seed == seed) else { continue };
            line.games += 1;
            line.points += my_score;
            line.disc_difference += i64::from(mine) - i64::from(theirs);
            match my_score {
                s if s >= 1.0 => line.wins += 1,
                s if s <= 0.0 => line.losses += 1,
                _ => line.draws += 1,
            }
            if game.failed == Some(seed) {
                line.failures += 1;
            }
        }
    }
    let mut champion = None;
    if info.format == Format::Knockout {
        let rounds = bracket(bots.len() as u32, info.games_per_pair, games);
        for round in &rounds {
            for m in round {
                for slot in [m.a, m.b] {
                    if let Slot::Bot(seed) = slot
                        && let Some(line) = lines.iter_mut().find(|l| l.seed == seed)
                    {
                        line.reached = line.reached.max(m.round);
                    }
                }
            }
        }
        champion = rounds.last().and_then(|last| last.first()).and_then(|m| m.winner);
    }
    lines.sort_by(|x, y| {
        (Some(y.seed) == champion)
            .cmp(&(Some(x.seed) == champion))
            .then(y.reached.cmp(&x.reached))
            .then(y.points.partial_cmp(&x.points).unwrap_or(std::cmp::Ordering::Equal))
            .then(y.disc_difference.cmp(&x.disc_difference))
            .then(x.failures.cmp(&y.failures))
            .then(x.seed.cmp(&y.seed))
    });
    for (index, line) in lines.iter_mut().enumerate() {
        line.rank = index + 1;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_two_seeds_meet_only_in_the_last_round() {
        assert_eq!(seeding_order(2), [1, 2]);
        assert_eq!(seeding_order(4), [1, 4, 2, 3]);
        assert_eq!(seeding_order(8), [1, 8, 4, 5, 2, 7, 3, 6]);
    }

    fn done(id: i64, round: u32, match_no: u32, number: u32, black: u32, white: u32, score: f64) -> FinalGameRow {
        FinalGameRow {
            id,
            round,
            match_no,
            number,
            black,
            white,
            state: "done".to_owned(),
            game: Some(id),
            black_score: Some(score),
            discs: Some(if score > 0.5 {
                [40, 24]
            } else if score < 0.5 {
                [24, 40]
            } else {
                [32, 32]
            }),
            failed: None,
        }
    }

    #[test]
    fn three_bots_give_the_first_seed_a_bye_and_the_bracket_follows_the_results() {
        // Round 1: seed 1 has a bye; 2 meets 3 and loses both games.
        let first_round = [done(1, 1, 1, 0, 2, 3, 0.0), done(2, 1, 1, 1, 3, 2, 1.0)];
        let rounds = bracket(3, 2, &first_round);
        assert_eq!(rounds.len(), 2);
        assert_eq!(rounds[0][0].winner, Some(1), "the bye");
        assert_eq!(rounds[0][1].winner, Some(3));
        assert_eq!((rounds[1][0].a, rounds[1][0].b), (Slot::Bot(1), Slot::Bot(3)));
        assert_eq!(rounds[1][0].winner, None, "not played yet");
        // The last round drawn on points and discs: the better seed goes through.
        let all = [first_round.to_vec(), vec![done(3, 2, 0, 0, 1, 3, 0.5), done(4, 2, 0, 1, 3, 1, 0.5)]].concat();
        let rounds = bracket(3, 2, &all);
        assert_eq!(rounds[1][0].winner, Some(1));
        assert_eq!(rounds[1][0].decided_by, Some("seed"));
    }
}
