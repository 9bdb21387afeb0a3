//! Re-play of remote workers' games between WebAssembly bots. A game between two modules depends
//! only on the modules, the opening, the seed and the time limit (fuel, virtual clocks, seeded
//! random numbers), so the server can play a worker's game again and must get the same moves. A
//! sample of each worker's such pairs ([`Config::wasm_replay_percent`]) is played again before the
//! result counts; a result that differs is refused, and the worker is flagged on the workers'
//! page (its tally, see [`crate::jobs::remote::tallies`]).

use sha2::{Digest, Sha256};

use othello_arena::record::GameRecord;
use othello_arena::seat::{Seating, replay_wasm_game};

use crate::config::Config;
use crate::plan::{Plan, Played};

/// The default share of a worker's pairs between modules that are re-played, in percent.
pub const DEFAULT_REPLAY_PERCENT: u32 = 25;

/// Whether the pair of `lease` is re-played: both bots are modules at their default level, and
/// the lease falls in the sample (chosen by its id's hash, which the worker cannot pick: the
/// server makes lease ids).
pub fn sampled(plan: &Plan, lease: &str, percent: u32) -> bool {
    let modules = plan.bots.iter().all(|bot| bot.is_wasm() && bot.level.is_none());
    let draw = u32::from_le_bytes(Sha256::digest(lease.as_bytes())[..4].try_into().expect("4 bytes")) % 100;
    modules && !plan.is_check() && draw < percent.min(100)
}

/// Plays the plan's games again here, from the modules `bytes` (the plan's order) on the plan's
/// rule (seed, limit, fuel), and compares them with the worker's: `Err` names the first
/// difference.
pub fn replay_matches(plan: &Plan, played: &Played, bytes: [&[u8]; 2], config: &Config) -> Result<(), String> {
    let opening = plan.opening()?;
    let options =
        plan.seating(&Seating { isolation: othello_arena::seat::Isolation::InProcess, ..config.seating() }).options;
    let seed = plan.seed.unwrap_or(0);
    for (slot, game) in played.games.iter().enumerate() {
        let (black, white) = if slot == 0 { (bytes[0], bytes[1]) } else { (bytes[1], bytes[0]) };
        let replayed = replay_wasm_game(black, white, &opening, seed, plan.time_limit(), options)?;
        if let Some(why) = first_difference(game, &replayed) {
            return Err(format!("game {}: {why}", slot + 1));
        }
    }
    Ok(())
}

/// Where the worker's game and the server's re-play part, if they do.
fn first_difference(worker: &GameRecord, server: &GameRecord) -> Option<String> {
    for (ply, (theirs, ours)) in worker.moves.iter().zip(&server.moves).enumerate() {
        if theirs.mv != ours.mv {
            return Some(format!(
                "move {} is {} in the worker's game, {} in the server's re-play",
                ply + 1,
                theirs.mv,
                ours.mv
            ));
        }
    }
    if worker.moves.len() != server.moves.len() {
        return Some(format!(
            "the worker's game has {} moves, the server's re-play {}",
            worker.moves.len(),
            server.moves.len()
        ));
    }
    if worker.result != server.result {
        return Some(format!(
            "the worker's result is {} ({}), the server's re-play gives {} ({})",
            worker.result.winner_str(),
            worker.result.termination().as_str(),
            server.result.winner_str(),
            server.result.termination().as_str()
        ));
    }
    None
}

pub use crate::store::workers::{note_replay as note, replay_tallies as tallies};
