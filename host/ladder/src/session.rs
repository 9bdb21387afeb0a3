//! "Rate this bot": plays a bot against the ladder's pool, picking each opponent near its current
//! estimate, until its rating is known to the precision asked for or a game cap is reached.
//!
//! Each round is a pair of games on one random opening with colours swapped. After each round the
//! whole ladder is refitted (a fit takes well under a millisecond per thousand games) and the next
//! opponent is the one whose game says the most about the bot: the largest expected
//! information `p·(1 − p)` for the predicted score `p`, discounted for opponents already met in
//! this session so that the bot's rating rests on several opponents.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use othello_arena::event::openings::OpeningSource;
use othello_arena::record::GameRecord;
use othello_arena::seat::Seating;
use othello_sdk::Color;

use crate::fit::{Rating, expected_score};
use crate::identity::{Identity, still_matches};
use crate::leaderboard::{Row, rows};
use crate::play::{Player, play_pair, play_pair_with};
use crate::store::{Entry, Ladder};

/// Default precision asked for: the 95 % interval's half-width, in Elo.
pub const DEFAULT_TARGET_ERROR: f64 = 30.0;
/// Default most games one rating session plays.
///
/// A 95 % interval of ±30 Elo takes at least about 500 games: each game gives at most
/// `p·(1 − p) = ¼` of information, and ±30 Elo needs `(1.96 · 173.7 / 30)² ≈ 129` units of it.
pub const DEFAULT_MAX_GAMES: u32 = 1000;
/// Fewest games before a session may stop for precision (an entry rated before may be precise
/// already; it still plays a few games with its build).
pub const MIN_GAMES: u32 = 6;
/// Plies of the random openings (both colours of a pair start from the same one).
pub const OPENING_PLIES: u32 = 6;
/// An opponent met `k` times in this session has its appeal divided by `(1 + k)` to this power:
/// enough to spread the games over the opponents near the bot, not so much that it is sent to
/// hopeless mismatches.
pub const REPEAT_DISCOUNT_POWER: f64 = 0.5;
/// A bot that lost every one of this many games by a failure (it does not load, crashes or
/// times out every time) is not made to play more: it is rated at the bottom as it stands.
pub const GIVE_UP_AFTER_FAILED_GAMES: u32 = 4;

/// How a rating session plays.
#[derive(Debug, Clone, PartialEq)]
pub struct RateOptions {
    /// Time per move (`None` = no limit).
    pub time_limit: Option<Duration>,
    /// Stop once the bot's placement (its 95 % interval among its opponents, see
    /// [`Progress::placement_error`]) is at most ± this many Elo.
    pub target_error: f64,
    /// Stop after this many games whatever the precision.
    pub max_games: u32,
    /// Seed of the openings (mixed with the bot's games so far, so a second session plays new ones).
    pub seed: u64,
}

impl Default for RateOptions {
    fn default() -> RateOptions {
        RateOptions {
            time_limit: Some(Duration::from_millis(100)),
            target_error: DEFAULT_TARGET_ERROR,
            max_games: DEFAULT_MAX_GAMES,
            seed: 1,
        }
    }
}

/// Why a session stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The rating's error reached the target.
    Precise,
    /// The game cap was reached first.
    GameCap,
    /// Every game was lost by a failure of the bot.
    Failing,
    /// Asked to stop.
    Stopped,
}

impl StopReason {
    pub fn describe(self) -> &'static str {
        match self {
            StopReason::Precise => "the rating reached the precision asked for",
            StopReason::GameCap => "the game cap was reached",
            StopReason::Failing => "the bot lost every game by a failure",
            StopReason::Stopped => "stopped",
        }
    }
}

/// Where the session stands, after each game.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub entry: Entry,
    /// Games of this session.
    pub games: u32,
    /// The bot's points in them.
    pub points: f64,
    /// Its games lost by a failure in them.
    pub failures: u32,
    /// Why: each distinct failure (`timeout: …`, `load-error: …`) with its number of games, in
    /// the order first seen.
    pub failure_reasons: Vec<FailureReason>,
    /// Its rating over all its games in the ladder (refitted after each pair of games); the
    /// error is relative to the anchor, so it includes the opponents' own uncertainty.
    pub rating: Option<Rating>,
    /// How precisely its games place it among its opponents (95 % half-width with their ratings
    /// held fixed): the session stops when this reaches the target.
    pub placement_error: Option<f64>,
    /// The opponent of the last game.
    pub opponent: String,
    /// Entries in the ladder.
    pub entries: usize,
}

/// One reason the bot lost games by a failure.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FailureReason {
    /// The termination and its detail: `crash: the bot's process died (signal 11)`.
    pub reason: String,
    pub games: u32,
}

/// Counts a failure under its reason.
fn add_failure_reason(reasons: &mut Vec<FailureReason>, reason: String) {
    match reasons.iter_mut().find(|r| r.reason == reason) {
        Some(known) => known.games += 1,
        None => reasons.push(FailureReason { reason, games: 1 }),
    }
}

/// The end of a session: the bot's place on the ladder.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    pub progress: Progress,
    /// The bot's leaderboard line (rank among all rated entries).
    pub row: Row,
    /// Entries ranked: rated ones and those that failed every game.
    pub rated: usize,
    pub stop: StopReason,
}

/// Plays `candidate` against the other entries of `ladder` whose libraries (or engines) are still
/// as rated, as `seating` runs bots, until `options` says to stop or `stop` is set. Calls
/// `on_progress` after every game (after the second game of a pair, with the refitted rating).
pub fn rate(
    ladder: &mut Ladder,
    candidate: &Identity,
    seating: &Seating,
    options: &RateOptions,
    stop: &AtomicBool,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<Placement, String> {
    rate_concurrently(ladder, candidate, seating, options, 1, stop, on_progress)
}

/// [`rate`] with up to `concurrency` pairs of games played at once, each on a thread of its own.
/// The pairs are chosen as [`rate`] chooses them (the opponents of the pairs still being played
/// count as met), every game is recorded once, from this thread, as its pair ends; once the
/// session should stop, no pair is started and the pairs being played are finished and counted.
pub fn rate_concurrently(
    ladder: &mut Ladder,
    candidate: &Identity,
    seating: &Seating,
    options: &RateOptions,
    concurrency: usize,
    stop: &AtomicBool,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<Placement, String> {
    let me = Player::new(ladder.entry_for(candidate)?, seating);
    ladder.set_anchor_if_unset(me.entry.id)?;
    // An entry that failed every game is no opponent: its forfeits say nothing (the fit leaves
    // them out).
    let records = ladder.records()?;
    let failing = |entry: &Entry| records.get(&entry.id).is_some_and(|r| r.failed_every_game());
    let mut pool: Vec<Player> = ladder
        .entries()?
        .into_iter()
        .filter(|e| e.id != me.entry.id && still_matches(&e.identity) && !failing(e))
        .map(|e| Player::new(e, seating))
        .collect();
    if pool.is_empty() {
        return Err(format!(
            "the ladder {} has no opponent to play: seed it with `othello ladder --seed-pool`, or rate another bot first",
            ladder.location()
        ));
    }
    let earlier_games = records.get(&me.entry.id).map_or(0, |r| r.games);
    let pairs = options.max_games.div_ceil(2).max(1) as usize;
    let openings = OpeningSource::Random { plies: OPENING_PLIES }.openings(pairs, options.seed ^ earlier_games);
    let mut met: HashMap<i64, u32> = HashMap::new();
    let mut progress = Progress {
        entry: me.entry.clone(),
        games: 0,
        points: 0.0,
        failures: 0,
        failure_reasons: Vec::new(),
        rating: None,
        placement_error: None,
        opponent: String::new(),
        entries: pool.len() + 1,
    };
    let (mut ratings, placement_errors) = current_ratings(ladder)?;
    progress.rating = ratings.get(&me.entry.id).copied();
    progress.placement_error = placement_errors.get(&me.entry.id).copied();
    if concurrency > 1 {
        let session = Session { me: &me, openings: &openings, options, stop };
        let reason = session.play_concurrently(ladder, &mut pool, concurrency, &mut met, &mut progress, on_progress)?;
        return finish(ladder, progress, reason);
    }
    let reason = loop {
        if let Some(reason) = should_stop(&progress, options, stop) {
            break reason;
        }
        let Some(index) = pick_opponent(&pool, &ratings, progress.rating, &met) else {
            return Err("no opponent left to play: every one failed to load".to_owned());
        };
        let opponent = &pool[index];
        let opening = &openings[(progress.games / 2) as usize % openings.len()];
        let games = play_pair(ladder, &me, opponent, opening, options.time_limit)?;
        *met.entry(opponent.entry.id).or_default() += 1;
        progress.opponent = opponent.label();
        ratings = count_pair(ladder, &games, &mut progress, on_progress)?;
        // An opponent that could not even load is dropped: its forfeits say nothing more.
        if opponent_broken(&games) && pool.len() > 1 {
            pool.remove(index);
        }
    };
    finish(ladder, progress, reason)
}

/// Why the session should stop now, if it should.
fn should_stop(progress: &Progress, options: &RateOptions, stop: &AtomicBool) -> Option<StopReason> {
    if stop.load(Ordering::SeqCst) {
        Some(StopReason::Stopped)
    } else if progress.games >= options.max_games {
        Some(StopReason::GameCap)
    } else if progress.games >= GIVE_UP_AFTER_FAILED_GAMES && progress.failures == progress.games {
        Some(StopReason::Failing)
    } else if progress.games >= MIN_GAMES && progress.placement_error.is_some_and(|e| e <= options.target_error) {
        Some(StopReason::Precise)
    } else {
        None
    }
}

/// What the pairs of a concurrent session share.
struct Session<'a> {
    me: &'a Player,
    openings: &'a [othello_arena::referee::Opening],
    options: &'a RateOptions,
    stop: &'a AtomicBool,
}

/// A pair played on a worker thread: the opponent and its two games, or why it failed.
type PairDone = (Player, Result<[GameRecord; 2], String>);

impl Session<'_> {
    fn play_concurrently(
        &self,
        ladder: &mut Ladder,
        pool: &mut Vec<Player>,
        concurrency: usize,
        met: &mut HashMap<i64, u32>,
        progress: &mut Progress,
        on_progress: &mut dyn FnMut(&Progress),
    ) -> Result<StopReason, String> {
        let (done_tx, done_rx) = mpsc::channel::<PairDone>();
        std::thread::scope(|scope| {
            let mut in_flight = 0usize;
            let mut started = 0usize;
            let mut stopping: Option<StopReason> = None;
            let mut failed: Option<String> = None;
            let (mut ratings, _) = current_ratings(ladder)?;
            loop {
                // Start pairs while there is room and the session goes on.
                while in_flight < concurrency && stopping.is_none() && failed.is_none() {
                    if let Some(reason) = should_stop(progress, self.options, self.stop) {
                        // The pairs being played may still change it (their games count).
                        if in_flight == 0 {
                            stopping = Some(reason);
                        }
                        break;
                    }
                    if progress.games + 2 * in_flight as u32 >= self.options.max_games {
                        break; // the cap is reached once the pairs being played end
                    }
                    let Some(index) = pick_opponent(pool, &ratings, progress.rating, met) else {
                        failed = Some("no opponent left to play: every one failed to load".to_owned());
                        break;
                    };
                    let opponent = pool[index].clone();
                    *met.entry(opponent.entry.id).or_default() += 1;
                    let opening = self.openings[started % self.openings.len()].clone();
                    started += 1;
                    in_flight += 1;
                    let (me, time_limit, done) = (self.me, self.options.time_limit, done_tx.clone());
                    scope.spawn(move || {
                        let games = play_pair_with(me, &opponent, &opening, time_limit, &mut |_, _, _, _| Ok(()));
                        let _ = done.send((opponent, games));
                    });
                }
                if in_flight == 0 {
                    if let Some(why) = failed {
                        return Err(why);
                    }
                    match stopping.or_else(|| should_stop(progress, self.options, self.stop)) {
                        Some(reason) => return Ok(reason),
                        None => continue,
                    }
                }
                let (opponent, games) = done_rx.recv().map_err(|_| "a game thread vanished".to_owned())?;
                in_flight -= 1;
                let games = match games {
                    Ok(games) => games,
                    Err(why) => {
                        failed.get_or_insert(why);
                        continue;
                    }
                };
                let (mine, theirs) = (self.me.entry.id, opponent.entry.id);
                ladder.record_games(&[(mine, theirs, &games[0]), (theirs, mine, &games[1])])?;
                progress.opponent = opponent.label();
                ratings = count_pair(ladder, &games, progress, on_progress)?;
                if opponent_broken(&games) && pool.len() > 1 {
                    pool.retain(|p| p.entry.id != theirs);
                }
            }
        })
    }
}

/// The opponent of a pair (the bot black, then white) could not even load: it lost both games
/// by a failure.
fn opponent_broken(games: &[GameRecord; 2]) -> bool {
    lost_by_failure(&games[0], Color::White) && lost_by_failure(&games[1], Color::Black)
}

/// Counts a recorded pair (the bot black, then white) in `progress`, refits and reports after
/// each game (after the second with the refitted rating). Returns the refitted ratings.
fn count_pair(
    ladder: &Ladder,
    games: &[GameRecord; 2],
    progress: &mut Progress,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<HashMap<i64, Rating>, String> {
    let mut refitted = HashMap::new();
    for (game, my_color) in games.iter().zip([Color::Black, Color::White]) {
        progress.games += 1;
        progress.points += points_of(game, my_color);
        if lost_by_failure(game, my_color) {
            progress.failures += 1;
            let result = &game.result;
            add_failure_reason(&mut progress.failure_reasons, format!("{}: {}", result.termination(), result.detail()));
        }
        if my_color == Color::White {
            // The pair is complete: refit before reporting it.
            let (ratings, placement_errors) = current_ratings(ladder)?;
            progress.rating = ratings.get(&progress.entry.id).copied();
            progress.placement_error = placement_errors.get(&progress.entry.id).copied();
            progress.entries = ratings.len().max(progress.entries);
            refitted = ratings;
        }
        on_progress(progress);
    }
    Ok(refitted)
}

/// Ends a session: a snapshot of the ladder's ratings and the bot's leaderboard line.
fn finish(ladder: &mut Ladder, progress: Progress, stop: StopReason) -> Result<Placement, String> {
    ladder.set_last_rated(progress.entry.id)?;
    let entries = ladder.entries()?;
    let fit = ladder.fit(&entries)?;
    ladder.save_snapshot(&entries, &fit, &format!("rated {}", progress.entry.identity.label()))?;
    let rows = rows(&entries, &fit, &ladder.records()?, ladder.anchor()?);
    let rated = rows.iter().filter(|r| r.rank.is_some()).count();
    let row = rows.into_iter().find(|r| r.entry == progress.entry.id).expect("the bot is an entry");
    Ok(Placement { progress, row, rated, stop })
}

/// Ratings and placement errors by entry id.
pub type Current = (HashMap<i64, Rating>, HashMap<i64, f64>);

/// Every rated entry's rating and placement error now, by entry id.
pub fn current_ratings(ladder: &Ladder) -> Result<Current, String> {
    let entries = ladder.entries()?;
    let fit = ladder.fit(&entries)?;
    let ratings = entries.iter().zip(&fit.ratings).filter_map(|(e, r)| r.map(|r| (e.id, r))).collect();
    let errors = entries.iter().zip(&fit.placement_errors).filter_map(|(e, x)| x.map(|x| (e.id, x))).collect();
    Ok((ratings, errors))
}

/// The opponent whose games would tell the most about a bot rated `me` (see the module docs).
/// An unrated bot is placed at the pool's median to begin with.
pub fn pick_opponent(
    pool: &[Player],
    ratings: &HashMap<i64, Rating>,
    me: Option<Rating>,
    met: &HashMap<i64, u32>,
) -> Option<usize> {
    let rating_of = |player: &Player| ratings.get(&player.entry.id).map_or(0.0, |r| r.elo);
    let estimate = match me {
        Some(rating) => rating.elo,
        None => {
            let mut all: Vec<f64> = pool.iter().map(rating_of).collect();
            all.sort_by(f64::total_cmp);
            all.get(all.len() / 2).copied().unwrap_or(0.0)
        }
    };
    let appeal = |player: &Player| {
        let p = expected_score(estimate - rating_of(player));
        let times = met.get(&player.entry.id).copied().unwrap_or(0) as f64;
        p * (1.0 - p) / (1.0 + times).powf(REPEAT_DISCOUNT_POWER)
    };
    (0..pool.len()).max_by(|&a, &b| appeal(&pool[a]).total_cmp(&appeal(&pool[b])).then(b.cmp(&a)))
}

/// Points of `color` in `game`.
fn points_of(game: &GameRecord, color: Color) -> f64 {
    match game.result.winner {
        Some(winner) if winner == color => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}

/// `color` lost `game` by a failure.
pub fn lost_by_failure(game: &GameRecord, color: Color) -> bool {
    game.result.failure().is_some() && game.result.loser() == Some(color)
}
