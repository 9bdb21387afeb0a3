use std::time::Duration;

use crate::{Move, MoveValue, Position, SearchInfo};

/// What a bot is asked on its turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThinkRequest {
    /// The position, the bot to move. `position.legal_moves()` may be empty:
    /// then the only legal reply is [`Move::Pass`].
    pub position: Position,
    /// The time the host allows for this move; `None` = no limit.
    pub time_limit: Option<Duration>,
}

/// A bot written in Rust. [`export_bot!`](crate::export_bot) turns a type
/// implementing it into a plugin library speaking the C ABI.
///
/// ```
/// use othello_sdk::{Bot, Move, ThinkRequest};
///
/// /// Plays the first legal move in a1..h8 order.
/// #[derive(Default)]
/// struct FirstMove;
///
/// impl Bot for FirstMove {
///     const NAME: &'static str = "First move";
///     fn think(&mut self, request: &ThinkRequest) -> Move {
///         request.position.legal_moves().first().map_or(Move::Pass, Move::Play)
///     }
/// }
/// ```
pub trait Bot: Default + Send + 'static {
    /// Display name returned by `init`.
    const NAME: &'static str;

    /// Number of strength levels N (levels 1..=N, N the strongest and the
    /// default); 0 for a bot without levels.
    const LEVELS: u32 = 0;

    /// Called before every game. The default replaces the bot with a fresh
    /// `Default` one; override it to keep costly allocations.
    fn new_game(&mut self) {
        *self = Self::default();
    }

    /// Sets the strength, 1..=`LEVELS`. Called after `new_game`; the level
    /// holds for the following games until set again.
    fn set_level(&mut self, _level: u32) {}

    /// Chooses a move. Returning an illegal move loses the game.
    fn think(&mut self, request: &ThinkRequest) -> Move;

    /// A report on the last `think`, if the bot has one.
    fn search_info(&self) -> Option<SearchInfo> {
        None
    }

    /// The value of every legal move of `request.position` (the side to move's view), searched
    /// within `request.time_limit` (`None`: as the bot sees fit), for analysis (move evaluations
    /// on the board, hints). `None` (the default): the bot does not analyse.
    ///
    /// Exported as `othello_analyze` only by `export_bot!(MyBot, analysis)`: a bot without it
    /// is not offered for analysis.
    fn analyze(&mut self, _request: &ThinkRequest) -> Option<Vec<MoveValue>> {
        None
    }
}
