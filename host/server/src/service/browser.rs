//! WebAssembly bots in the visitor's browser: the metered copy of a module the pages run
//! ([`othello_wasm::metering`]: the module counts wasmtime's fuel itself, so the browser's
//! virtual clocks are the server's), what a page needs to play against a bot, and what a game
//! page needs to re-compute a game between two modules.
//!
//! Only bots on the leaderboard are served, and only modules: a library is never sent.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use sha2::{Digest, Sha256};

use othello_ladder::Entry;

use super::{Refusal, Service, lock};

/// What a page needs to run an entry's module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrowserBot {
    pub entry: i64,
    pub name: String,
    /// The metered module's address (`/entries/ID/bot.wasm`).
    pub module: String,
    pub level: Option<u32>,
}

/// What a game page needs to re-compute a game between two modules: both modules, the seed
/// their random numbers start from, and the fuel of every call but `think`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WasmGame {
    pub black: BrowserBot,
    pub white: BrowserBot,
    /// In decimal, as a string: JavaScript's numbers hold 53 bits, not 64.
    pub seed: String,
    pub load_fuel: String,
    /// The game's first moves that were its opening, not the bots' (the page re-computes the
    /// moves after them).
    pub opening_plies: usize,
}

/// What the play page needs: the bot, the time a move, the seed and the fuel of every call but
/// `think`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaySetup {
    pub bot: BrowserBot,
    pub limit_ms: Option<u64>,
    pub seed: u64,
    pub load_fuel: u64,
}

/// Metered modules by the SHA-256 of their source (a module is metered once per process).
fn metered_cache() -> &'static Mutex<HashMap<String, Arc<Vec<u8>>>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Vec<u8>>>>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

fn browser_bot(entry: &Entry) -> Option<BrowserBot> {
    othello_arena::seat::is_wasm_file(Path::new(&entry.identity.locator)).then(|| BrowserBot {
        entry: entry.id,
        name: entry.identity.name.clone(),
        module: format!("/entries/{}/bot.wasm", entry.id),
        level: entry.identity.level,
    })
}

impl Service {
    /// The fuel of loading and of every call but `think`, as the server's seats give it.
    fn browser_load_fuel(&self) -> u64 {
        othello_arena::seat::wasm_load_fuel(&self.config.seat_options)
    }

    /// The ladder entry `entry` if it is a module on the leaderboard.
    fn public_module_entry(&self, entry: i64) -> Result<Entry, Refusal> {
        let not_here = || Refusal::new(404, format!("bot {entry} is not a WebAssembly bot on the leaderboard"));
        if !self.leaderboard()?.iter().any(|row| row.entry == entry) {
            return Err(not_here());
        }
        let found = lock(&self.ladder).entries().map_err(Refusal::internal)?.into_iter().find(|e| e.id == entry);
        found.filter(|e| browser_bot(e).is_some()).ok_or_else(not_here)
    }

    /// The metered copy of entry `entry`'s module (`GET /entries/ID/bot.wasm`).
    pub fn metered_module(&self, entry: i64) -> Result<Arc<Vec<u8>>, Refusal> {
        let found = self.public_module_entry(entry)?;
        if let Some(bytes) = lock(metered_cache()).get(&found.identity.hash) {
            return Ok(bytes.clone());
        }
        let bytes = std::fs::read(&found.identity.locator)
            .map_err(|e| Refusal::internal(format!("cannot read bot {entry}'s module: {e}")))?;
        let hash: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        if hash != found.identity.hash {
            return Err(Refusal::internal(format!("bot {entry}'s module is not the file that was entered")));
        }
        let metered = othello_wasm::metering::instrument(&bytes)
            .map_err(|why| Refusal::new(409, format!("this module cannot run in a browser: {why}")))?;
        let metered = Arc::new(metered);
        lock(metered_cache()).insert(hash, metered.clone());
        Ok(metered)
    }

    /// What `/entries/ID/play` needs.
    pub fn play_setup(&self, entry: i64) -> Result<PlaySetup, Refusal> {
        let found = self.public_module_entry(entry)?;
        let bot = browser_bot(&found).ok_or_else(|| Refusal::new(404, "not a WebAssembly bot"))?;
        Ok(PlaySetup {
            bot,
            limit_ms: self.config.time_limit.map(|t| t.as_millis() as u64),
            seed: self.config.seed,
            load_fuel: self.browser_load_fuel(),
        })
    }

    /// Whether ladder entry `entry` is a WebAssembly module (its public page offers a game).
    pub fn is_module_entry(&self, entry: i64) -> Result<bool, Refusal> {
        let entries = lock(&self.ladder).entries().map_err(Refusal::internal)?;
        Ok(entries.iter().any(|e| e.id == entry && browser_bot(e).is_some()))
    }

    /// The modules of a game between ladder entries `black` and `white`, when both are modules.
    pub(super) fn wasm_game(&self, black: i64, white: i64, ggf: &str) -> Result<Option<WasmGame>, Refusal> {
        let entries = lock(&self.ladder).entries().map_err(Refusal::internal)?;
        let bot = |id: i64| entries.iter().find(|e| e.id == id).and_then(browser_bot);
        Ok(match (bot(black), bot(white)) {
            (Some(black), Some(white)) => {
                let (seed, load_fuel) = (self.config.seed.to_string(), self.browser_load_fuel().to_string());
                Some(WasmGame { black, white, seed, load_fuel, opening_plies: opening_plies(ggf) })
            }
            _ => None,
        })
    }
}

/// How many of a GGF game's moves are its opening: the moves before the first with a time (the
/// arena writes an opening's moves as `B[c4]`, the bots' as `B[c4/eval/seconds]`).
fn opening_plies(ggf: &str) -> usize {
    let Some(board) = ggf.find("BO[") else { return 0 };
    let Some(end) = ggf[board..].find(']') else { return 0 };
    let mut rest = &ggf[board + end + 1..];
    let mut plies = 0;
    while let Some(open) = rest.find('[') {
        let name = rest[..open].trim();
        let Some(close) = rest[open..].find(']') else { break };
        let value = &rest[open + 1..open + close];
        if !matches!(name, "B" | "W") || value.contains('/') {
            break;
        }
        plies += 1;
        rest = &rest[open + close + 1..];
    }
    plies
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_opening_is_the_moves_without_a_time() {
        let ggf = "(;GM[Othello]PB[a]PW[b]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[c4]W[c3]B[d3//0.01]W[e3/1.00/0.02];)";
        assert_eq!(super::opening_plies(ggf), 2);
        assert_eq!(super::opening_plies("(;GM[Othello]BO[8 x *]B[d3//0.01];)"), 0);
    }
}
