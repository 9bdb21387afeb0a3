//! The on-screen game as a GGF game and back, through the host's GGF reader and writer.
//!
//! The app has games the arena never writes: still in progress, aborted or resigned. GGF marks a
//! resignation with `:r` in `RE`; a game without a result (in progress, or aborted) is written
//! without `RE`, and opens again as a game in progress that can be continued or replayed.

use std::path::Path;

use super::game::{Ending, Game};
use othello_arena::ggf::{self, GgfGame};
use othello_arena::record::unix_now;

/// What a saved game needs besides its moves.
pub struct Players<'a> {
    pub black: &'a str,
    pub white: &'a str,
    pub time_limit_ms: Option<u64>,
}

/// The game as a GGF line. A game without a result is written without `RE`.
pub fn to_ggf(game: &Game, players: &Players<'_>) -> String {
    let result = game.ending().and_then(|ending| ending.outcome(&game.live()));
    ggf::format(&GgfGame {
        black: players.black.to_owned(),
        white: players.white.to_owned(),
        start: game.start(),
        moves: game.moves().iter().map(|m| m.record.clone()).collect(),
        time_limit_ms: players.time_limit_ms,
        started_at: unix_now(),
        result,
    })
}

/// A game read from GGF, with its players' names.
pub struct Loaded {
    pub game: Game,
    pub black: String,
    pub white: String,
    /// Games in the file besides the one loaded.
    pub others: usize,
}

/// Reads the first game of a GGF file, finished or in progress.
pub fn open(path: &Path) -> Result<Loaded, String> {
    open_at(path, 0)
}

/// Reads game `index` (0-based) of a GGF file.
pub fn open_at(path: &Path, index: usize) -> Result<Loaded, String> {
    let mut games = list(path)?;
    if index >= games.len() {
        return Err(format!("{} has {} games, not {}", path.display(), games.len(), index + 1));
    }
    let others = games.len() - 1;
    let saved = games.swap_remove(index);
    Ok(Loaded { game: from_ggf(&saved)?, black: saved.black, white: saved.white, others })
}

/// Every game of a GGF file (an error if it has none).
pub fn list(path: &Path) -> Result<Vec<GgfGame>, String> {
    let games = ggf::parse_file(path)?;
    if games.is_empty() {
        return Err(format!("{} holds no game", path.display()));
    }
    Ok(games)
}

/// One line about a game of a file, for a list to pick from: "3. Alice – Bob, 40 moves, 33-31".
pub fn summary(number: usize, game: &GgfGame) -> String {
    let result = match &game.result {
        Some(outcome) => format!(", {}-{}", outcome.discs[0], outcome.discs[1]),
        None => ", unfinished".to_owned(),
    };
    format!("{number}. {} – {}, {} moves{result}", game.black, game.white, game.moves.len())
}

/// The game of a GGF game: its moves, and how it ended (a game without a result goes on).
pub fn from_ggf(saved: &GgfGame) -> Result<Game, String> {
    let mut game = Game::new(saved.start);
    for (number, m) in saved.moves.iter().enumerate() {
        game.play(m.mv, Some(m.elapsed), m.info)
            .map_err(|why| format!("move {} ({}) is illegal: {why}", number + 1, m.mv))?;
    }
    let Some(result) = &saved.result else {
        return Ok(game); // saved in progress: it continues from its last move
    };
    if !game.is_over() {
        game.end(Ending::from_outcome(result));
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_arena::seat::{Failure, Termination};
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
        let games = ggf::parse(&text).unwrap();
        let back = from_ggf(&games[0]).unwrap();
        assert_eq!(moves_of(&back), moves_of(&game));
        assert_eq!(back.result(), game.result());
    }

    #[test]
    fn a_forfeit_keeps_its_result_and_an_unfinished_game_has_no_result() {
        let mut game = Game::from_transcript("f5d6").unwrap();
        game.end(Ending::Forfeit { loser: Color::Black, failure: Failure::new(Termination::Timeout, "too slow") });
        let text = to_ggf(&game, &PLAYERS);
        assert!(text.contains("RE[-64.00:t]"), "{text}");
        let back = from_ggf(&ggf::parse(&text).unwrap()[0]).unwrap();
        assert_eq!(back.result().unwrap().outcome, game.result().unwrap().outcome);

        let going_on = Game::from_transcript("f5d6").unwrap();
        let text = to_ggf(&going_on, &PLAYERS);
        assert!(!text.contains("RE["), "an unfinished game is not written as finished: {text}");
        assert!(text.contains("B[f5") && text.contains("W[d6"), "{text}");
        assert!(ggf::read_games(&text).is_err(), "the arena's reader takes only finished games");
    }

    #[test]
    fn a_resignation_is_saved_and_reopened_as_a_resignation() {
        let mut game = Game::from_transcript("f5d6c3").unwrap();
        game.end(Ending::Resigned(Color::White));
        let text = to_ggf(&game, &PLAYERS);
        assert!(text.contains("RE[+64.00:r]"), "{text}");
        let back = from_ggf(&ggf::parse(&text).unwrap()[0]).unwrap();
        assert_eq!(back.ending(), Some(&Ending::Resigned(Color::White)));
        assert_eq!(back.result(), game.result());
        assert_eq!(back.result().unwrap().headline(), "White resigned: Black wins");
    }

    #[test]
    fn a_game_saved_in_progress_opens_at_the_same_position_and_goes_on() {
        let mut going_on = Game::from_transcript("f5d6c3d3c4").unwrap();
        let text = to_ggf(&going_on, &PLAYERS);
        let mut back = from_ggf(&ggf::parse(&text).unwrap()[0]).unwrap();
        assert_eq!(moves_of(&back), moves_of(&going_on));
        assert_eq!(back.live(), going_on.live());
        assert_eq!(back.start(), going_on.start());
        assert!(!back.is_over() && back.ending().is_none(), "no result: the game goes on");
        let next = Move::Play("f4".parse().unwrap());
        back.play(next, None, None).unwrap();
        going_on.play(next, None, None).unwrap();
        assert_eq!(back.live(), going_on.live(), "and continues like the original");

        // An aborted game has no result either: it opens as a game in progress.
        let mut aborted = Game::from_transcript("f5").unwrap();
        aborted.end(Ending::Aborted);
        let back = from_ggf(&ggf::parse(&to_ggf(&aborted, &PLAYERS)).unwrap()[0]).unwrap();
        assert_eq!((back.transcript(), back.is_over()), ("f5".to_owned(), false));
    }
}
