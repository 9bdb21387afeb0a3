//! The on-screen game as a GGF record and back, through the host's GGF reader and writer.
//!
//! The host's records describe games bots finished; the app also has games still in progress,
//! aborted or resigned. GGF marks a resignation with `:r` in `RE`, and a game without a result has
//! no `RE` at all, so those two cases are adjusted here on top of [`ggf::write_game`].

use std::path::Path;

use othello_sdk::Position;

use super::game::{Ending, Game};
use crate::ggf;
use crate::record::{GameRecord, GameResult, MoveRecord, unix_now};
use crate::seat::{Failure, Termination};

/// What a saved game needs besides its moves.
pub struct Players<'a> {
    pub black: &'a str,
    pub white: &'a str,
    pub time_limit_ms: Option<u64>,
}

/// The game as a GGF line. A game without a result is written without `RE`.
pub fn to_ggf(game: &Game, players: &Players<'_>) -> String {
    let result = match game.ending() {
        Some(Ending::Normal) => Some(GameResult::normal(&game.live())),
        Some(Ending::Forfeit { loser, failure }) => Some(GameResult::forfeit(*loser, failure.clone())),
        // GGF has no separate mark for a resignation; `:r` is what it uses.
        Some(Ending::Resigned(loser)) => {
            Some(GameResult::forfeit(*loser, Failure::new(Termination::Crash, "resigned")))
        }
        Some(Ending::Aborted) | None => None,
    };
    let finished = result.is_some();
    let record = GameRecord {
        black: players.black.to_owned(),
        white: players.white.to_owned(),
        opening: Vec::new(),
        start: game.start(),
        moves: game
            .moves()
            .iter()
            .map(|m| MoveRecord { color: m.color, mv: m.mv, elapsed: m.elapsed.unwrap_or_default(), info: m.info })
            .collect(),
        time_limit_ms: players.time_limit_ms,
        started_at: unix_now(),
        result: result.unwrap_or_else(|| GameResult::normal(&game.live())),
    };
    let text = ggf::write_game(&record);
    if finished { text } else { without_result(&text) }
}

/// Drops the `RE[…]` property of a GGF game.
fn without_result(text: &str) -> String {
    match text.find("RE[") {
        Some(start) => match text[start..].find(']') {
            Some(end) => format!("{}{}", &text[..start], &text[start + end + 1..]),
            None => text.to_owned(),
        },
        None => text.to_owned(),
    }
}

/// A game read from GGF, with its players' names.
pub struct Loaded {
    pub game: Game,
    pub black: String,
    pub white: String,
    /// Games in the file besides the one loaded.
    pub others: usize,
}

/// Reads the first game of a GGF file.
pub fn open(path: &Path) -> Result<Loaded, String> {
    let mut records = ggf::read_file(path)?;
    if records.is_empty() {
        return Err(format!("{} holds no game", path.display()));
    }
    let others = records.len() - 1;
    let record = records.swap_remove(0);
    Ok(Loaded { game: from_record(&record)?, black: record.black, white: record.white, others })
}

/// The game of a record: its opening and moves, and how it ended.
pub fn from_record(record: &GameRecord) -> Result<Game, String> {
    let start = if record.opening.is_empty() { record.start } else { Position::start() };
    let mut game = Game::new(start);
    let opening = record.opening.iter().map(|&mv| (mv, None, None));
    let moves = record.moves.iter().map(|m| (m.mv, Some(m.elapsed), m.info));
    for (number, (mv, elapsed, info)) in opening.chain(moves).enumerate() {
        game.play(mv, elapsed, info).map_err(|why| format!("move {} ({mv}) is illegal: {why}", number + 1))?;
    }
    let result = &record.result;
    if result.termination != Termination::Normal
        && let Some(loser) = result.loser
    {
        let failure =
            Failure { termination: result.termination, detail: result.detail.clone(), stderr_tail: Vec::new() };
        game.end(Ending::Forfeit { loser, failure });
    } else if !game.is_over()
        && let Some(winner) = result.winner
    {
        // Ended early without a named failure (e.g. RE[+64.00:r] from another program).
        game.end(Ending::Resigned(!winner));
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_sdk::{Color, Move};

    fn moves_of(game: &Game) -> Vec<(Color, Move)> {
        game.moves().iter().map(|m| (m.color, m.mv)).collect()
    }

    const PLAYERS: Players<'static> = Players { black: "Alice", white: "Bob", time_limit_ms: None };

    #[test]
    fn a_finished_game_round_trips_through_ggf() {
        let game = Game::from_transcript("d3c3b3d2e1d6d7e3f4").unwrap();
        let text = to_ggf(&game, &PLAYERS);
        assert!(text.contains("PB[Alice]PW[Bob]") && text.contains("RE[+64.00]"), "{text}");
        let records = ggf::read_games(&text).unwrap();
        let back = from_record(&records[0]).unwrap();
        assert_eq!(moves_of(&back), moves_of(&game));
        assert_eq!(back.result(), game.result());
    }

    #[test]
    fn a_forfeit_keeps_its_result_and_an_unfinished_game_has_no_result() {
        let mut game = Game::from_transcript("f5d6").unwrap();
        game.end(Ending::Forfeit { loser: Color::Black, failure: Failure::new(Termination::Timeout, "too slow") });
        let text = to_ggf(&game, &PLAYERS);
        assert!(text.contains("RE[-64.00:t]"), "{text}");
        let back = from_record(&ggf::read_games(&text).unwrap()[0]).unwrap();
        assert_eq!(back.result().unwrap().outcome, game.result().unwrap().outcome);

        let going_on = Game::from_transcript("f5d6").unwrap();
        let text = to_ggf(&going_on, &PLAYERS);
        assert!(!text.contains("RE["), "an unfinished game is not written as finished: {text}");
        assert!(text.contains("B[f5") && text.contains("W[d6"), "{text}");
    }
}
