//! The final's games played: a worker that claimed one of them ([`crate::store::finals::claim`])
//! plays it here, shown live, and records it with its row in one transaction.

use othello_arena::seat::open_seat;
use othello_ladder::Ladder;
use othello_ladder::play::{Player, play_one};

pub use crate::service::finals::{FinalView, view};
use crate::shared::Shared;
use crate::shared::live::LiveObserver;
pub use crate::store::finals::*;

/// Plays a claimed game and records it in the ladder, in one transaction with its row turning
/// `done`. Every move is shown on the arena screen as it is played. Returns an error, leaving the
/// row running (it is queued again on the next start), when the server stops mid-game.
pub fn play(
    claimed: &ClaimedGame,
    lease: &str,
    config: &crate::config::Config,
    shared: &Shared,
    ladder: &mut Ladder,
) -> Result<i64, String> {
    let seating = config.seating();
    let entries = ladder.entries()?;
    let player = |bot: &FinalBot| {
        entries
            .iter()
            .find(|e| e.id == bot.entry)
            .map(|e| Player::new(e.clone(), &seating))
            .ok_or_else(|| format!("the ladder entry of {} is gone", bot.name))
    };
    let (black, white) = (player(&claimed.black)?, player(&claimed.white)?);
    let title = match claimed.format {
        Format::RoundRobin => format!("Final, game {}", claimed.number + 1),
        Format::Knockout => format!("Final, round {}, game {}", claimed.round, claimed.number + 1),
    };
    let mut black_seat = open_seat(&black.spec);
    let mut white_seat = open_seat(&white.spec);
    let mut observer = LiveObserver::new(shared, &title, true);
    let record = play_one(
        (&black, &mut black_seat),
        (&white, &mut white_seat),
        &claimed.opening,
        claimed.time_limit,
        &mut observer,
    )?;
    let game = ladder.record_game_with(black.entry.id, white.entry.id, &record, |transaction, game| {
        note_played(transaction, claimed, lease, game, &record)
    })?;
    observer.finished(&record, Some(game));
    Ok(game)
}
