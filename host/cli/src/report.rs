//! What the headless arena prints: one JSON object per finished game and a
//! summary object (`--json`), or readable text.

use serde::Serialize;

use othello_arena::event::stats::{format_elo, format_elo_finite};
use othello_arena::event::{
    Estimate, FinishedGame, Pentanomial, Sprt, SprtDecision, SprtModel, StandingRow, Standings, Tally, Wdl,
};
use othello_arena::plugins::{PluginInfo, PluginStatus};

/// The `--json` line of a finished game.
#[derive(Debug, Serialize)]
pub struct GameLine<'a> {
    /// 1-based game number.
    pub game: usize,
    /// 1-based number of its colour-swapped pair (both games of a pair start from `opening`).
    pub pair: usize,
    /// The opening's moves, forced on both bots, e.g. `f5d6c3` (empty without openings).
    pub opening: String,
    pub black: &'a str,
    pub white: &'a str,
    /// `black`, `white` or `draw`.
    pub result: &'static str,
    pub score: [u32; 2],
    pub termination: &'static str,
    /// `black`/`white` for the side that failed, else null.
    pub loser: Option<&'static str>,
    pub detail: &'a str,
    /// The whole game from the standard start, passes omitted.
    pub moves: String,
    /// Every move the bots played (after the opening; passes included) with its wall time and,
    /// where measured, the CPU time of the bot's whole process tree.
    pub move_times: Vec<MoveTime>,
    /// The clock the time limit was counted on: `cpu`, `wall`, or `fuel` (two WebAssembly bots);
    /// absent for games of state folders of earlier versions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<&'static str>,
}

/// Milliseconds to the microsecond (what the clocks resolve).
fn milliseconds(duration: std::time::Duration) -> f64 {
    duration.as_micros() as f64 / 1e3
}

/// One move's times in a `--json` game line.
#[derive(Debug, Serialize)]
pub struct MoveTime {
    /// `f5`, or `pass`.
    #[serde(rename = "move")]
    pub mv: String,
    pub wall_ms: f64,
    /// Absent where the seat cannot measure it (sandbox off, NBoard engines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_ms: Option<f64>,
    /// How long the bot's CPU share held it back during the move (its threads wanted more CPUs
    /// than `--threads`); absent when it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throttled_ms: Option<f64>,
}

impl<'a> GameLine<'a> {
    pub fn new(game: &'a FinishedGame) -> GameLine<'a> {
        let record = &game.record;
        let result = &record.result;
        GameLine {
            game: game.index + 1,
            pair: game.pair_number() + 1,
            opening: record.opening.iter().map(ToString::to_string).collect(),
            black: &record.black,
            white: &record.white,
            result: result.winner_str(),
            score: result.discs,
            termination: result.termination().as_str(),
            loser: result.loser().map(|c| if c == othello_sdk::Color::Black { "black" } else { "white" }),
            detail: result.detail(),
            moves: record.transcript(),
            clock: game.clock.map(othello_arena::seat::Clock::as_str),
            move_times: record
                .moves
                .iter()
                .map(|m| MoveTime {
                    mv: m.mv.to_string(),
                    wall_ms: milliseconds(m.elapsed),
                    cpu_ms: m.cpu.map(milliseconds),
                    throttled_ms: m.throttled.map(milliseconds),
                })
                .collect(),
        }
    }
}

/// The `--json` summary line.
#[derive(Debug, Serialize)]
pub struct SummaryLine<'a> {
    pub summary: Summary<'a>,
}

#[derive(Debug, Serialize)]
pub struct Summary<'a> {
    pub games: usize,
    pub unplayed: usize,
    /// The part of the event played (`K/N`), when sharded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// Stopped by Ctrl-C or SIGTERM.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    pub standings: &'a [StandingRow],
    pub sprt: Option<SprtSummary>,
}

/// The SPRT's report on a match, from the first-named bot's point of view.
#[derive(Debug, Serialize)]
pub struct SprtSummary {
    /// `elo0`, `elo1`, `alpha`, `beta`, `model`.
    #[serde(flatten)]
    pub test: Sprt,
    /// The bot whose results these are, and its opponent.
    pub first: String,
    pub second: String,
    /// Its games.
    #[serde(flatten)]
    pub games: Wdl,
    /// Draws per game, 0..1.
    pub draw_ratio: f64,
    /// Its finished colour-swapped pairs by points: `[LL, LD, DD+WL, WD, WW]` (0, ½, 1, 1½, 2).
    pub pentanomial: Pentanomial,
    /// Elo, normalized Elo and LOS from the model's samples (pairs, or games for the trinomial
    /// model); `null` before the first sample or where infinite.
    pub elo: Option<f64>,
    /// Half-width of Elo's 95 % interval.
    pub elo_error: Option<f64>,
    pub nelo: Option<f64>,
    pub nelo_error: Option<f64>,
    /// Likelihood of superiority, 0..1.
    pub los: Option<f64>,
    pub llr: f64,
    pub lower_bound: f64,
    pub upper_bound: f64,
    pub decision: SprtDecision,
}

impl SprtSummary {
    /// The test's state after the games counted in `tally` (participant 0 against 1); `decided`
    /// is the decision that stopped the match, if one did.
    pub fn new(test: Sprt, decided: Option<(SprtDecision, f64)>, tally: &Tally) -> SprtSummary {
        let (lower_bound, upper_bound) = test.bounds();
        let games = tally.pair(0, 1).wdl;
        let pentanomial = tally.pentanomial();
        let llr = decided.map_or_else(|| test.llr(games, pentanomial), |(_, llr)| llr);
        let estimate = estimate(test.model, games, pentanomial);
        let finite = |x: f64| x.is_finite().then_some(x);
        SprtSummary {
            test,
            first: tally.names()[0].clone(),
            second: tally.names()[1].clone(),
            games,
            draw_ratio: if games.games() > 0 { games.draws as f64 / games.games() as f64 } else { 0.0 },
            pentanomial,
            elo: estimate.and_then(|e| finite(e.elo)),
            elo_error: estimate.and_then(|e| finite(e.elo).and(finite(e.elo_error()))),
            nelo: estimate.and_then(|e| finite(e.nelo)),
            nelo_error: estimate.and_then(|e| finite(e.nelo).and(finite(e.nelo_error))),
            los: estimate.map(|e| e.los),
            llr,
            lower_bound,
            upper_bound,
            decision: test.decision(llr),
        }
    }

    pub fn to_text(&self) -> String {
        let (first, second) = (&self.first, &self.second);
        let verdict = match self.decision {
            SprtDecision::Continue => "no decision yet".to_owned(),
            SprtDecision::AcceptH0 => {
                format!("H0 accepted: {first} is not {} Elo stronger than {second}", self.test.elo1)
            }
            SprtDecision::AcceptH1 => {
                format!("H1 accepted: {first} is at least {} Elo stronger than {second}", self.test.elo1)
            }
        };
        let [ll, ld, dd_wl, wd, ww] = self.pentanomial.0;
        let elo = match (self.elo, self.elo_error) {
            (Some(elo), Some(error)) => format_elo(elo, error),
            _ => format_elo_finite(self.games),
        };
        let nelo = match (self.nelo, self.nelo_error) {
            (Some(nelo), Some(error)) => format_elo(nelo, error),
            _ => "-".to_owned(),
        };
        let los = self.los.map_or("-".to_owned(), |los| format!("{:.2} %", 100.0 * los));
        let samples = match self.test.model {
            SprtModel::Pentanomial => "pairs",
            SprtModel::Trinomial => "games",
        };
        format!(
            "SPRT ({}), {first} against {second}, from {first}'s side:\n\
             \x20 Games: {} (W {}, D {}, L {}), draw ratio {:.1} %\n\
             \x20 Pairs: {} (LL {ll}, LD {ld}, DD+WL {dd_wl}, WD {wd}, WW {ww})\n\
             \x20 Elo {elo}, nElo {nelo} (95 %, from the {samples}), LOS {los}\n\
             \x20 LLR {:.2} (bounds {:.2}, {:.2}): {verdict}",
            self.test,
            self.games.games(),
            self.games.wins,
            self.games.draws,
            self.games.losses,
            100.0 * self.draw_ratio,
            self.pentanomial.pairs(),
            self.llr,
            self.lower_bound,
            self.upper_bound
        )
    }
}

/// The Elo estimate the model's samples give (pairs if any finished, else games).
fn estimate(model: SprtModel, games: Wdl, pairs: Pentanomial) -> Option<Estimate> {
    match model {
        SprtModel::Pentanomial if pairs.pairs() > 0 => Estimate::of_pairs(pairs),
        _ => Estimate::of_games(games),
    }
}

/// `othello list` as a text table.
pub fn plugin_table(plugins: &[PluginInfo]) -> String {
    let path_width = plugins.iter().map(|p| p.path.display().to_string().chars().count()).max().unwrap_or(4).max(4);
    let name_width = plugins.iter().map(|p| p.name.chars().count()).max().unwrap_or(4).max(4);
    let features_width = plugins.iter().map(|p| p.features_text().chars().count()).max().unwrap_or(8).max(8);
    let mut out = format!(
        "{:<path_width$}  {:<name_width$}  {:>3}  {:<features_width$}  STATUS\n",
        "PATH", "NAME", "ABI", "FEATURES"
    );
    for plugin in plugins {
        let status = match &plugin.status {
            PluginStatus::Ok => "ok".to_owned(),
            PluginStatus::Error(why) => format!("error: {why}"),
        };
        out += &format!(
            "{:<path_width$}  {:<name_width$}  {:>3}  {:<features_width$}  {status}\n",
            plugin.path.display(),
            plugin.name,
            plugin.abi_version.map_or("-".to_owned(), |v| v.to_string()),
            plugin.features_text(),
        );
    }
    out
}

/// The readable summary of an event: `finished` games, `unplayed` ones, the standings, and the
/// first forfeits (`forfeit_total` in all).
pub fn summary_text(
    standings: &Standings,
    finished: usize,
    unplayed: usize,
    forfeits: &[FinishedGame],
    forfeit_total: u64,
) -> String {
    let mut out = format!("{finished} games played");
    if unplayed > 0 {
        out += &format!(", {unplayed} not played");
    }
    out += "\n\n";
    out += &standings.to_text();
    if forfeit_total > 0 || !forfeits.is_empty() {
        out += "\nForfeits:\n";
        for game in forfeits.iter().take(MAX_FORFEITS_LISTED) {
            let result = &game.record.result;
            let loser = result.loser().map_or("", |c| game.record.name(c));
            out +=
                &format!("  game {}: {loser} lost by {}: {}\n", game.index + 1, result.termination(), result.detail());
            for line in result.failure().map_or(&[][..], |f| &f.stderr_tail[..]) {
                out += &format!("      | {line}\n");
            }
        }
    }
    let listed = forfeits.len().min(MAX_FORFEITS_LISTED) as u64;
    if forfeit_total > listed {
        out += &format!("  … and {} more forfeits\n", forfeit_total - listed);
    }
    out
}

/// Forfeits listed in the text summary.
const MAX_FORFEITS_LISTED: usize = 10;
