//! The final as it is shown: its bots, games, standings and, for a knockout, its bracket.

use othello_db::Db;
use serde::Serialize;

use crate::store::finals::{
    FinalBot, FinalGameRow, FinalInfo, Match, Standing, bracket, final_bots, final_games, latest, standings,
};
pub use crate::store::finals::{Format, Slot};

/// A whole final as the pages and `GET /api/final` show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinalView {
    #[serde(flatten)]
    pub info: FinalInfo,
    /// `running` or `finished`.
    pub status: &'static str,
    /// Games of the whole final (a knockout's later rounds counted as they will be played).
    pub games_total: u32,
    pub games_done: u32,
    pub standings: Vec<Standing>,
    /// A knockout's bracket, round by round (empty for a round robin).
    pub rounds: Vec<Vec<Match>>,
    pub bots: Vec<FinalBot>,
    pub games: Vec<FinalGameRow>,
}

/// The newest final, if any, with its standings.
pub fn view(connection: &Db) -> Result<Option<FinalView>, String> {
    let Some(info) = latest(connection)? else { return Ok(None) };
    let bots = final_bots(connection, info.id)?;
    let games = final_games(connection, info.id)?;
    let n = bots.len() as u32;
    let pairings = match info.format {
        Format::RoundRobin => n * n.saturating_sub(1) / 2,
        Format::Knockout => n.saturating_sub(1),
    };
    let rounds = match info.format {
        Format::RoundRobin => Vec::new(),
        Format::Knockout => bracket(n, info.games_per_pair, &games),
    };
    Ok(Some(FinalView {
        status: if info.finished_at.is_some() { "finished" } else { "running" },
        games_total: pairings * info.games_per_pair,
        games_done: games.iter().filter(|g| g.state == "done").count() as u32,
        standings: standings(&info, &bots, &games),
        rounds,
        info,
        bots,
        games,
    }))
}

impl super::Service {
    /// The newest final, if any, with its standings.
    pub fn final_view(&self) -> Result<Option<FinalView>, super::Refusal> {
        self.with_db(|db| view(db))
    }

    /// Starts a final (the organiser's form): 409 when nobody would play it or one is running.
    pub fn start_final(&self, options: crate::store::finals::FinalOptions) -> Result<(), super::Refusal> {
        if self.config.workers == 0 {
            // Nobody would play it: remote workers play checks and rating pairs only.
            return Err(super::Refusal::new(
                409,
                "this server plays no games itself (--workers 0), and remote workers do not play a \
                 final's games: restart it with --workers 1 or more to run the final",
            ));
        }
        crate::store::finals::start(&self.config.ladder, options).map_err(|why| super::Refusal::new(409, why))?;
        self.shared.work_added();
        Ok(())
    }
}
