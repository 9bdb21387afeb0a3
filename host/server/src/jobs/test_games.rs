//! Unrated test games: an entrant asks for a pair of games (colours swapped) between one of its
//! versions and a current bot of the leaderboard. The workers, the server's own or remote ones
//! (a `test` job leased over the worker API), play them after the checks and before any ladder
//! work; they are kept in tables of their own, never in the ladder's `games`,
//! so no rating ever counts them.

use std::sync::atomic::Ordering;

use othello_db::Db;

use othello_arena::event::openings::OpeningSource;
use othello_arena::referee::Opening;
use othello_ladder::identity::Kind;
use othello_ladder::play::{Player, play_pair_with};
use othello_ladder::session::OPENING_PLIES;
use othello_ladder::{Entry, Ladder};
use othello_sdk::format_transcript;

use crate::config::Config;
use crate::plan::{Plan, PlannedBot};
use crate::shared::Shared;
use crate::store;
pub use crate::store::test_games::*;

/// Plays a claimed pair and records its games in the test tables (a slot recorded before a crash
/// is not recorded again). A pair that cannot be played is finished with the reason.
pub fn play(job: &TestJob, config: &Config, shared: &Shared, ladder: &Ladder, db: &Db) -> Result<(), String> {
    match play_pair(job, config, shared, ladder, db) {
        Ok(()) => Ok(finish(db, job.id, None)?),
        Err(_) if shared.stop.load(Ordering::SeqCst) => Ok(()), // queued again on the next start
        Err(why) => {
            eprintln!("test games {}: {why}", job.id);
            Ok(finish(db, job.id, Some(&why))?)
        }
    }
}

/// The two bots of a pair of test games (the entrant's, then its opponent) and its opening.
fn bots_of(job: &TestJob, config: &Config, ladder: &Ladder, db: &Db) -> Result<(Entry, Entry, Opening), String> {
    let upload = store::upload(db, job.upload)?.ok_or_else(|| format!("upload {} is gone", job.upload))?;
    let mine = upload.entry.ok_or("the bot has no ladder entry (it did not pass its check)")?;
    let entries = ladder.entries()?;
    let find = |id: i64| entries.iter().find(|e| e.id == id).cloned();
    let me = find(mine).ok_or("the bot's ladder entry is gone")?;
    let opponent = find(job.opponent).ok_or("the opponent is no longer on the ladder")?;
    if !crate::jobs::library::still_built(&opponent.identity) {
        return Err("the opponent's library is no longer there".to_owned());
    }
    let opening =
        OpeningSource::Random { plies: OPENING_PLIES }.openings(1, config.seed ^ job.id as u64 ^ 0x7e57).remove(0);
    Ok((me, opponent, opening))
}

/// What a remote worker plays for a pair of test games: the same bots, opening and time control
/// (the organiser's, as rating games) as the server's own worker would play.
pub fn plan(job: &TestJob, config: &Config, ladder: &Ladder, db: &Db) -> Result<Plan, String> {
    let (me, opponent, opening) = bots_of(job, config, ladder, db)?;
    if opponent.identity.kind != Kind::Library {
        return Err(format!(
            "{} is an engine of the organiser's machine: remote workers play libraries only",
            opponent.identity.label()
        ));
    }
    let time_limit = crate::store::settings::time_limit(db, config)?;
    Ok(Plan {
        kind: "test".to_owned(),
        bots: [PlannedBot::of_entry(&me), PlannedBot::of_entry(&opponent)],
        opening: format_transcript(opening.moves()),
        time_limit_ms: time_limit.map(|t| t.as_millis() as u64),
        grace_ms: time_limit.map(|t| config.seat_options.grace_for(t).as_millis() as u64),
        clock: Some(config.seat_options.clock),
        threads: Some(config.seat_options.threads),
        seed: Some(config.seed),
    })
}

fn play_pair(job: &TestJob, config: &Config, shared: &Shared, ladder: &Ladder, db: &Db) -> Result<(), String> {
    let (me, opponent, opening) = bots_of(job, config, ladder, db)?;
    let seating = config.seating();
    let (me, opponent) = (Player::new(me, &seating), Player::new(opponent, &seating));
    let recorded = recorded_slots(db, job.id)?;
    // The organiser's time control (admin page or CLI), as rating games.
    let time_limit = crate::store::settings::time_limit(db, config)?;
    play_pair_with(&me, &opponent, &opening, time_limit, &mut |slot, _, _, game| {
        if shared.stop.load(Ordering::SeqCst) {
            return Err("the server is stopping".to_owned());
        }
        if recorded.contains(&(slot as i64)) {
            return Ok(());
        }
        record(db, job.id, slot, game)?;
        shared.changed();
        Ok(())
    })?;
    Ok(())
}
