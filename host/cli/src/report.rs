//! What the headless arena prints: one JSON object per finished game and a
//! summary object (`--json`), or readable text.

use serde::Serialize;

use othello_arena::event::{FinishedGame, Sprt, SprtDecision, StandingRow, Standings};
use othello_arena::plugins::{PluginInfo, PluginStatus};

/// The `--json` line of a finished game.
#[derive(Debug, Serialize)]
pub struct GameLine<'a> {
    /// 1-based game number.
    pub game: usize,
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
}

impl<'a> GameLine<'a> {
    pub fn new(game: &'a FinishedGame) -> GameLine<'a> {
        let record = &game.record;
        let result = &record.result;
        GameLine {
            game: game.index + 1,
            black: &record.black,
            white: &record.white,
            result: result.winner_str(),
            score: result.discs,
            termination: result.termination().as_str(),
            loser: result.loser().map(|c| if c == othello_sdk::Color::Black { "black" } else { "white" }),
            detail: result.detail(),
            moves: record.transcript(),
            move_times: record
                .moves
                .iter()
                .map(|m| MoveTime {
                    mv: m.mv.to_string(),
                    wall_ms: milliseconds(m.elapsed),
                    cpu_ms: m.cpu.map(milliseconds),
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

#[derive(Debug, Serialize)]
pub struct SprtSummary {
    #[serde(flatten)]
    pub test: Sprt,
    pub llr: f64,
    pub lower_bound: f64,
    pub upper_bound: f64,
    pub decision: SprtDecision,
}

impl SprtSummary {
    /// The test's state after the first bot's results `first`; `decided` is the decision that
    /// stopped the match, if one did.
    pub fn new(test: Sprt, decided: Option<(SprtDecision, f64)>, first: othello_arena::event::Wdl) -> SprtSummary {
        let (lower_bound, upper_bound) = test.bounds();
        let llr = decided.map_or_else(|| test.llr(first), |(_, llr)| llr);
        SprtSummary { test, llr, lower_bound, upper_bound, decision: test.decide(first) }
    }

    pub fn to_text(&self, first: &str, second: &str) -> String {
        let verdict = match self.decision {
            SprtDecision::Continue => "no decision yet".to_owned(),
            SprtDecision::AcceptH0 => {
                format!("H0 accepted: {first} is not {} Elo stronger than {second}", self.test.elo1)
            }
            SprtDecision::AcceptH1 => {
                format!("H1 accepted: {first} is at least {} Elo stronger than {second}", self.test.elo1)
            }
        };
        format!(
            "SPRT ({}): LLR {:.2} (bounds {:.2}, {:.2}): {verdict}",
            self.test, self.llr, self.lower_bound, self.upper_bound
        )
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
