//! Unrated test games as the service offers them: who may ask for them, against whom, how often,
//! and their replays (see [`crate::store::test_games`]).

use serde::Serialize;

use othello_arena::record::unix_now;

use super::{BoardRow, GameSummary, Refusal, Replay, Service, lock};
use crate::store::test_games;
use crate::store::{Entrant, Status};

/// A pair of test games queued.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TestRequested {
    /// The pair's id.
    pub id: i64,
    /// The entrant's upload that plays.
    pub bot: i64,
    /// The opponent's ladder entry and name.
    pub opponent: i64,
    pub opponent_name: String,
    /// Games the pair holds.
    pub games: u32,
}

impl Service {
    /// The current bots of the leaderboard, best first: the organiser's pool and each entrant's
    /// version that counts (the one it chose, else its newest rated one) (the bots test games may be played against).
    pub fn current_bots(&self) -> Result<Vec<BoardRow>, Refusal> {
        let board = self.leaderboard()?;
        let chosen: std::collections::HashSet<i64> =
            crate::store::chosen_versions(&lock(&self.db))?.into_values().collect();
        // The version the entrant chose when it is rated, else its newest rated one.
        let newest_of = |entrant: &str| {
            let rated: Vec<i64> = board
                .iter()
                .filter(|r| r.entrant.as_deref() == Some(entrant) && r.rating.is_some())
                .filter_map(|r| r.bot)
                .collect();
            rated.iter().copied().find(|bot| chosen.contains(bot)).or_else(|| rated.iter().copied().max())
        };
        Ok(board
            .iter()
            .filter(|row| row.rating.is_some())
            .filter(|row| match &row.entrant {
                None => true,
                Some(entrant) => row.bot == newest_of(entrant),
            })
            .cloned()
            .collect())
    }

    /// Queues a pair of unrated test games of the entrant's upload `bot` against the current bot
    /// whose ladder entry is `opponent`.
    pub fn request_test_games(&self, entrant: &Entrant, bot: i64, opponent: i64) -> Result<TestRequested, Refusal> {
        let upload = self.own_upload(entrant, bot)?;
        let mine = match (upload.entry, upload.status) {
            (Some(entry), Status::Rating | Status::Rated) => entry,
            _ => {
                return Err(Refusal::new(
                    409,
                    format!(
                        "bot {bot} is {}: only a bot that passed its check plays test games",
                        upload.status.as_str()
                    ),
                ));
            }
        };
        if opponent == mine {
            return Err(Refusal::new(422, "a bot cannot play test games against itself: choose another opponent"));
        }
        let Some(rival) = self.current_bots()?.into_iter().find(|row| row.entry == opponent) else {
            return Err(Refusal::new(
                422,
                format!("{opponent} is not a current bot of the leaderboard: choose one of the rated bots it lists"),
            ));
        };
        let db = lock(&self.db);
        let hour_ago = unix_now().saturating_sub(3600);
        let recent = test_games::requested_since(&db, entrant.id, hour_ago)?;
        let limit = self.config.test_games_per_hour;
        if recent >= limit {
            return Err(Refusal::new(
                429,
                format!(
                    "{recent} pairs of test games asked for in the last hour: the limit is {limit}; try again later"
                ),
            ));
        }
        let id = test_games::request(&db, entrant.id, bot, opponent)?;
        drop(db);
        self.shared.work_added();
        self.shared.changed();
        Ok(TestRequested { id, bot, opponent, opponent_name: rival.name, games: 2 })
    }

    /// The test games of the entrant's upload `bot`, newest first.
    pub fn test_games_of(&self, entrant: &Entrant, bot: i64) -> Result<Vec<GameSummary>, Refusal> {
        let upload = self.own_upload(entrant, bot)?;
        let games = test_games::games_of(&lock(&self.db), upload.id)?;
        Ok(games
            .into_iter()
            .map(|g| {
                GameSummary::new(g.id, "test", [g.black, g.white], g.black_score, g.termination, g.played_at, &g.ggf)
            })
            .collect())
    }

    /// Pairs of test games of the entrant's upload `bot` waiting or being played, and those
    /// that could not be played with the reason.
    pub fn pending_test_games(&self, entrant: &Entrant, bot: i64) -> Result<(u32, Vec<(i64, String)>), Refusal> {
        let upload = self.own_upload(entrant, bot)?;
        let db = lock(&self.db);
        let pending = test_games::pending_of(&db, upload.id)?;
        Ok((pending, test_games::failures_of(&db, upload.id)?))
    }

    /// A test game for its replay: only its entrant sees it (another's answers as if it did not
    /// exist).
    pub fn test_replay(&self, entrant: &Entrant, id: i64) -> Result<Replay, Refusal> {
        let game = test_games::game(&lock(&self.db), id)?;
        match game {
            Some(game) if game.entrant == entrant.id => {
                let mut replay = self.replay_of(id, &game.ggf)?;
                replay.termination = game.termination.clone();
                replay.ending = super::ending_text(&replay.termination, game.black_score);
                Ok(replay)
            }
            _ => Err(Refusal::new(404, format!("you have no test game {id}"))),
        }
    }
}

impl Service {
    /// Makes the entrant's upload `bot` the version that counts (refresh pairs, the final, the
    /// opponent of others' test games) until it chooses another or uploads a new one.
    pub fn choose_version(&self, entrant: &Entrant, bot: i64) -> Result<i64, Refusal> {
        let upload = self.own_upload(entrant, bot)?;
        if upload.entry.is_none() || !matches!(upload.status, Status::Rating | Status::Rated) {
            return Err(Refusal::new(
                409,
                format!(
                    "bot {bot} is {}: only a version that passed its check can count; choose another",
                    upload.status.as_str()
                ),
            ));
        }
        crate::store::choose_version(&lock(&self.db), entrant.id, bot)?;
        self.shared.changed();
        Ok(bot)
    }

    /// The version of `entrant` that counts now, if one does: the one it chose when that passed
    /// its check, else its newest that did.
    pub fn current_version(&self, entrant: &Entrant) -> Result<Option<i64>, Refusal> {
        Ok(crate::store::current_version(&lock(&self.db), entrant.id)?)
    }
}
