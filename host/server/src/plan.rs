//! What a game job plays and what playing it gave: the plan the server decides, the games a
//! worker (local or remote) plays by it, the check's report, and the remote worker protocol's
//! messages. The one part of the server a remote worker shares, so it names nothing above it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use othello_arena::plugins::{PluginInfo, probe};
use othello_arena::record::GameRecord;
use othello_arena::referee::Opening;
use othello_arena::seat::{Clock, Isolation, MoveBudget, SeatOptions, Seating};
use othello_ladder::Entry;
use othello_ladder::identity::{Identity, Kind};
use othello_ladder::play::{Observer, Player, play_pair_observed, play_pair_with};

/// What a check found, as the bot's page and `GET /api/bots/{id}` show it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CheckReport {
    /// The platform the server accepts.
    pub platform: String,
    pub loads: bool,
    /// Why it does not load (missing export, wrong ABI version, crash in `init` …).
    pub error: Option<String>,
    /// The name `init` returned.
    pub name: Option<String>,
    pub abi_version: Option<u32>,
    pub levels: u32,
    pub search_info: bool,
    pub last_error: bool,
    pub analysis: bool,
    /// The two games against `random`.
    pub games: Vec<CheckGame>,
}

/// One check game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckGame {
    /// The bot's colour: `black` or `white`.
    pub color: String,
    pub opponent: String,
    /// For the bot: `win`, `loss` or `draw`.
    pub result: String,
    /// Discs, black then white.
    pub discs: [u32; 2],
    /// `normal`, or the failure's name (`crash`, `timeout`, `illegal-move` …).
    pub termination: String,
    /// The bot's failure, if it lost by one: what happened.
    pub failure: Option<String>,
    /// The bot's last lines on stderr when it failed.
    pub stderr_tail: Vec<String>,
    /// The time the bot took for each of its moves, in milliseconds.
    pub move_times_ms: Vec<f64>,
}

/// One bot of a [`Plan`]: its ladder entry, who it is and the SHA-256 of its library (what a
/// remote worker downloads and checks). The server's own path to the library is not sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlannedBot {
    /// Its ladder entry (0 for a bot that is not on the ladder: the upload being checked, and
    /// the check games' `random`).
    pub entry: i64,
    /// The bot's own name (an upload being checked: the file's stem until its check names it).
    pub name: String,
    pub level: Option<u32>,
    pub sha256: String,
    #[serde(skip)]
    pub path: PathBuf,
    /// A WebAssembly module, not a library (a remote worker keeps it as a `.wasm`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wasm: bool,
}

impl PlannedBot {
    pub fn of_entry(entry: &Entry) -> PlannedBot {
        PlannedBot {
            entry: entry.id,
            name: entry.identity.name.clone(),
            level: entry.identity.level,
            sha256: entry.identity.hash.clone(),
            wasm: othello_arena::seat::is_wasm_file(Path::new(&entry.identity.locator)),
            path: PathBuf::from(&entry.identity.locator),
        }
    }

    /// Whether the bot is a WebAssembly module (its file is a `.wasm`, or it was uploaded as one).
    pub fn is_wasm(&self) -> bool {
        self.wasm || othello_arena::seat::is_wasm_file(&self.path)
    }

    /// `Name` or `Name@LEVEL`, as the ladder's games name it.
    pub fn label(&self) -> String {
        othello_ladder::identity::label(&self.name, self.level)
    }
}

/// What the server decided a job plays: two games on one opening, `bots[0]` with black in the
/// first and with white in the second, at the server's time limit. Workers, local or remote,
/// play exactly this; they choose nothing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// `check` (first probe `bots[0]`, then the games), `pair` or `refresh`.
    pub kind: String,
    pub bots: [PlannedBot; 2],
    /// The opening's moves from the standard start, e.g. `f5d6c3d3c4`.
    pub opening: String,
    pub time_limit_ms: Option<u64>,
    /// The grace after the time limit, in milliseconds: a move slower than the limit and its
    /// grace is its bot's timeout loss. The one rule of time: every worker plays by it and the
    /// server checks by it ([`Plan::move_time_allowed`]).
    #[serde(default)]
    pub grace_ms: Option<u64>,
    /// The clock the limit is counted on (`cpu`, the default, or `wall`): part of the rule of
    /// time, so every worker counts as the server does. `None`: a plan made before plans carried
    /// it, held to the wall clock.
    #[serde(default)]
    pub clock: Option<Clock>,
    /// The CPUs each bot may use at once (`--threads`): on the CPU-time clock, a move may use
    /// the limit's CPU time on each. `None`: the worker's own.
    #[serde(default)]
    pub threads: Option<u32>,
    /// Where the WebAssembly bots' random numbers start from: with the opening, what makes a
    /// game between two modules the same wherever it is played (the server re-plays some).
    #[serde(default)]
    pub seed: Option<u64>,
}

impl Plan {
    /// The longest a move may take under the plan's rule: the limit and its grace (the plan's
    /// grace, or `options`' for a plan made before plans carried one). `None`: no limit.
    pub fn move_time_allowed(&self, options: &SeatOptions) -> Option<Duration> {
        let limit = self.time_limit()?;
        let grace = self.grace_ms.map_or_else(|| options.grace_for(limit), Duration::from_millis);
        Some(limit + grace)
    }

    /// `seating` playing by the plan's rule of time: its grace exactly (no share of the limit),
    /// its clock and its threads.
    pub fn seating(&self, seating: &Seating) -> Seating {
        let mut seating = seating.clone();
        if let Some(grace) = self.grace_ms {
            seating.options.grace = Duration::from_millis(grace);
            seating.options.grace_percent = 0;
        }
        if let Some(clock) = self.clock {
            seating.options.clock = clock;
        }
        if let Some(threads) = self.threads {
            seating.options.threads = threads;
        }
        if let Some(seed) = self.seed {
            seating.options.wasm_seed = Some(seed);
        }
        seating
    }

    /// What a move of the plan's games is held to (`None`: no limit): its limit and grace on the
    /// plan's clock (the wall clock for a plan that names none), or on the modules' fuel for a
    /// game between two WebAssembly bots. The server rules a remote worker's moves by it.
    pub fn move_budget(&self, options: &SeatOptions) -> Option<MoveBudget> {
        let limit = self.time_limit()?;
        let grace = self.grace_ms.map_or_else(|| options.grace_for(limit), Duration::from_millis);
        let threads = self.threads.unwrap_or(options.threads);
        Some(MoveBudget::new(self.game_clock(), limit, grace, threads))
    }

    /// The clock the plan's games are counted on: fuel when both bots are WebAssembly modules,
    /// else the plan's (the wall clock for a plan that names none).
    pub fn game_clock(&self) -> Clock {
        let clock = self.clock.unwrap_or(Clock::Wall);
        if self.bots.iter().all(PlannedBot::is_wasm) { Clock::Fuel } else { clock }
    }

    pub fn opening(&self) -> Result<Opening, String> {
        Opening::parse(&self.opening).map_err(|e| format!("the plan's opening `{}`: {e}", self.opening))
    }

    pub fn time_limit(&self) -> Option<Duration> {
        self.time_limit_ms.map(Duration::from_millis)
    }

    /// What the arena screen calls the plan's games.
    pub fn title(&self) -> &'static str {
        match self.kind.as_str() {
            "check" => "Check",
            "pair" => "Placement",
            _ => "Ladder",
        }
    }

    pub fn is_check(&self) -> bool {
        self.kind == "check"
    }
}

/// What playing a [`Plan`] gave: the probe of the checked library (checks only) and the games
/// in the plan's order. A library that does not load plays no check games.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Played {
    #[serde(default)]
    pub probe: Option<PluginInfo>,
    pub games: Vec<GameRecord>,
}

/// Plays `plan` with the libraries at `paths` (the same order as its bots), through `seating`'s
/// seats; `record(slot, game)` is called as soon as each game ends (an error stops the pair).
/// Local and remote workers both play every job through here; a local worker passes an
/// `observer` that shows every move live on the arena screen.
pub fn play_plan(
    plan: &Plan,
    paths: [&Path; 2],
    seating: &Seating,
    observer: Option<&mut dyn Observer>,
    record: &mut dyn FnMut(usize, &GameRecord) -> Result<(), String>,
) -> Result<Played, String> {
    let opening = plan.opening()?;
    let seating = &plan.seating(seating);
    let mut names = [plan.bots[0].name.clone(), plan.bots[1].name.clone()];
    let mut probed = None;
    if plan.is_check() {
        let Isolation::Isolated(runner) = &seating.isolation else {
            return Err("checks run isolated bots only".to_owned());
        };
        let info = probe(paths[0], runner, &seating.options);
        if !info.is_ok() {
            return Ok(Played { probe: Some(info), games: Vec::new() });
        }
        names[0] = info.name.clone();
        probed = Some(info);
    }
    let player = |index: usize| -> Result<Player, String> {
        let bot = &plan.bots[index];
        let identity = Identity {
            kind: Kind::Library,
            name: names[index].clone(),
            level: bot.level,
            hash: bot.sha256.clone(),
            locator: paths[index].to_string_lossy().into_owned(),
        };
        Ok(Player::new(Entry { id: bot.entry, identity, added_at: 0 }, seating))
    };
    let (first, second) = (player(0)?, player(1)?);
    let record = &mut |slot, _: &Player, _: &Player, game: &GameRecord| record(slot, game);
    let games = match observer {
        Some(observer) => play_pair_observed(&first, &second, &opening, plan.time_limit(), record, observer)?,
        None => play_pair_with(&first, &second, &opening, plan.time_limit(), record)?,
    };
    Ok(Played { probe: probed, games: games.into() })
}

/// What a worker says of itself when it claims.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Hello {
    #[serde(default)]
    pub host: String,
    #[serde(default)]
    pub cores: u32,
}

/// A claimed job, as the claim answers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claimed {
    /// Send it with every heartbeat and with the result.
    pub lease: String,
    /// The lease lapses this long after the claim or the last heartbeat.
    pub lease_ms: u64,
    pub job: i64,
    pub plan: Plan,
    /// Where each of the plan's bots' libraries is downloaded (same order as its bots).
    pub libraries: [String; 2],
}

/// What the server answers an accepted result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accepted {
    pub job: i64,
    /// Games that counted.
    pub games: usize,
    /// The same result was accepted before: nothing was counted again.
    pub duplicate: bool,
}
