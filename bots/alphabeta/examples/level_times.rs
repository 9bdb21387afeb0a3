//! Checks that every level answers within its time limit, and prints how
//! much of the limit each one uses.
//!
//! ```text
//! cargo run --release -p bot-alphabeta --example level_times -- [--limits-ms 10,100] [--games 2] [--levels 1-10]
//! ```
//!
//! For each time limit and level, the bot plays `--games` whole games
//! against itself from random 8-move openings (reproducible), with that
//! limit on every move: the openings, midgames and endgames (solves) of real
//! games. Each `think` is timed as the host times an in-process bot. The
//! table gives, per level, the moves played and the median, 99th-percentile
//! and largest time per move, the largest as a share of the limit. A move
//! over its limit is reported and the exit status is non-zero.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use alphabeta::{AlphaBetaBot, LEVEL_COUNT};
use othello_sdk::{Bot, Move, Position, ThinkRequest};

/// Default time limits per move, in milliseconds: a blitz game and the
/// arena's usual 100 ms.
const DEFAULT_LIMITS_MS: [u64; 2] = [10, 100];
/// Default games per level and limit.
const DEFAULT_GAMES: u32 = 2;
/// Random moves before the bot takes over (as the arena's `random:8` openings).
const OPENING_PLIES: u32 = 8;

struct Options {
    limits: Vec<Duration>,
    games: u32,
    levels: Vec<u32>,
}

fn parse_list(text: &str) -> Result<Vec<u64>, String> {
    let mut values = Vec::new();
    for part in text.split(',') {
        let bad = |_| format!("bad number or range `{part}`");
        match part.split_once('-') {
            Some((from, to)) => values.extend(from.parse::<u64>().map_err(bad)?..=to.parse::<u64>().map_err(bad)?),
            None => values.push(part.parse().map_err(bad)?),
        }
    }
    Ok(values)
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        limits: DEFAULT_LIMITS_MS.iter().map(|&ms| Duration::from_millis(ms)).collect(),
        games: DEFAULT_GAMES,
        levels: (1..=LEVEL_COUNT).collect(),
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).ok_or_else(|| format!("{} needs a value", args[i]))?;
        match args[i].as_str() {
            "--limits-ms" => options.limits = parse_list(value)?.into_iter().map(Duration::from_millis).collect(),
            "--games" => options.games = value.parse().map_err(|e| format!("bad --games: {e}"))?,
            "--levels" => {
                options.levels = parse_list(value)?.into_iter().map(|l| l as u32).collect();
                if let Some(bad) = options.levels.iter().find(|&&l| !(1..=LEVEL_COUNT).contains(&l)) {
                    return Err(format!("level {bad} is not in 1..={LEVEL_COUNT}"));
                }
            }
            other => {
                return Err(format!(
                    "unknown argument `{other}` (usage: level_times [--limits-ms 10,100] [--games N] [--levels 1-10])"
                ));
            }
        }
        i += 2;
    }
    Ok(options)
}

/// xorshift64: reproducible openings.
fn next_random(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// A reproducible random opening of [`OPENING_PLIES`] moves.
fn opening(game: u32) -> Position {
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ (u64::from(game) + 1).wrapping_mul(0xD1B5_4A32_D192_ED03);
    let mut position = Position::start();
    for _ in 0..OPENING_PLIES {
        let moves: Vec<_> = position.legal_moves().into_iter().collect();
        if moves.is_empty() {
            break;
        }
        position.play(Move::Play(moves[(next_random(&mut state) % moves.len() as u64) as usize]));
    }
    position
}

/// The time of every move of `games` self-play games at this level and limit.
fn move_times(level: u32, limit: Duration, games: u32) -> Vec<Duration> {
    let mut bot = AlphaBetaBot::with_seed(u64::from(level) << 32 | limit.as_millis() as u64);
    let mut times = Vec::new();
    for game in 0..games {
        bot.new_game();
        bot.set_level(level);
        let mut position = opening(game);
        while !position.is_game_over() {
            let request = ThinkRequest { position, time_limit: Some(limit) };
            let start = Instant::now();
            let chosen = bot.think(&request);
            times.push(start.elapsed());
            if position.try_play(chosen).is_err() {
                panic!("level {level} played the illegal move {chosen:?}");
            }
        }
    }
    times
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * fraction).round() as usize]
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let mut all_within = true;
    println!(
        "{:>9} {:>5} {:>6} {:>10} {:>10} {:>10} {:>8} {:>5}",
        "limit ms", "level", "moves", "median ms", "p99 ms", "max ms", "max/lim", "over"
    );
    for &limit in &options.limits {
        for &level in &options.levels {
            let mut times = move_times(level, limit, options.games);
            times.sort();
            let over = times.iter().filter(|&&t| t > limit).count();
            let max = *times.last().expect("a game has moves");
            let ms = |d: Duration| d.as_secs_f64() * 1000.0;
            println!(
                "{:>9} {:>5} {:>6} {:>10.2} {:>10.2} {:>10.2} {:>8.2} {:>5}",
                limit.as_millis(),
                level,
                times.len(),
                ms(percentile(&times, 0.5)),
                ms(percentile(&times, 0.99)),
                ms(max),
                max.as_secs_f64() / limit.as_secs_f64(),
                over
            );
            all_within &= over == 0;
        }
    }
    if all_within {
        println!("every move within its limit");
        ExitCode::SUCCESS
    } else {
        eprintln!("FAILED: some moves took longer than their limit");
        ExitCode::FAILURE
    }
}
