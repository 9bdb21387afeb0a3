//! The on-screen game as a GGF game and back, through the host's GGF reader and writer.
//!
//! The app has games the arena never writes: still in progress, aborted or resigned. GGF marks a
//! resignation with `:r` in `RE`; a game without a result (in progress, or aborted) is written
//! without `RE`, and opens again as a game in progress that can be continued or replayed.

use std::path::Path;

use super::clock::SavedClock;
use super::game::{Ending, Game};
use othello_arena::ggf::{self, GgfGame};
use othello_arena::record::unix_now;

/// What a saved game needs besides its moves.
pub struct Players<'a> {
    pub black: &'a str,
    pub white: &'a str,
    pub time_limit_ms: Option<u64>,
}

/// The app's own GGF property for the moves' win rates, which GGF's move field (square,
/// evaluation in discs, time) has no room for: `WR[3:0.620 5:0.580]`, each a ply and the mover's
/// chance of winning, as bots report it. Other programs skip a property they do not know.
const WIN_RATES: &str = "WR";

/// The app's own GGF property for the game clock of a game saved in progress, so that it opens
/// exactly as it was: `CL[total increment black-used white-used base-ply]`, times in ms (see
/// [`SavedClock`]).
const CLOCK: &str = "CL";

/// The game as a GGF line. A game without a result is written without `RE`.
pub fn to_ggf(game: &Game, players: &Players<'_>) -> String {
    to_ggf_with_clock(game, players, None)
}

/// The game as a GGF line with its game clock, if it has one.
pub fn to_ggf_with_clock(game: &Game, players: &Players<'_>, clock: Option<SavedClock>) -> String {
    let text = ggf_line(game, players);
    let rates: Vec<String> = game
        .moves()
        .iter()
        .enumerate()
        .filter_map(|(i, m)| Some(format!("{}:{:.3}", i + 1, m.info.as_ref()?.win_rate?)))
        .collect();
    let mut own = String::new();
    if !rates.is_empty() {
        own += &format!("{WIN_RATES}[{}]", rates.join(" "));
    }
    if let Some(clock) = clock {
        own += &format!("{CLOCK}[{}]", clock.to_text());
    }
    match text.strip_suffix(";)") {
        Some(body) if !own.is_empty() => format!("{body}{own};)"),
        _ => text,
    }
}

/// The value of the app's property `name` in `text` (the game's own text), if it has one.
fn property<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let start = text.find(&format!("{name}["))?;
    let value = &text[start + name.len() + 1..];
    Some(&value[..value.find(']').unwrap_or(value.len())])
}

/// The win rates of a game's `WR` property in `text` (the game's own text), if it has one.
fn win_rates_in(text: &str) -> Vec<(usize, f64)> {
    let Some(value) = property(text, WIN_RATES) else { return Vec::new() };
    value
        .split_whitespace()
        .filter_map(|pair| {
            let (ply, rate) = pair.split_once(':')?;
            let rate: f64 = rate.parse().ok().filter(|r| (0.0..=1.0).contains(r))?;
            Some((ply.parse().ok()?, rate))
        })
        .collect()
}

fn ggf_line(game: &Game, players: &Players<'_>) -> String {
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
    /// The game clock it was saved with, if any.
    pub clock: Option<SavedClock>,
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
    let mut game = from_ggf(&saved)?;
    // The app's own win rates, in the text of the same game (the file was read just above).
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let own_text = text.split("(;").filter(|part| !part.trim().is_empty()).nth(index).unwrap_or_default();
    game.restore_win_rates(&win_rates_in(own_text));
    let clock = property(own_text, CLOCK).and_then(SavedClock::from_text).filter(|c| c.base_ply <= game.moves().len());
    Ok(Loaded { game, black: saved.black, white: saved.white, others, clock })
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
    fn win_rates_survive_a_save_and_an_open() {
        let mut game = Game::default();
        let rate = |r| Some(othello_sdk::SearchInfo { win_rate: Some(r), ..Default::default() });
        game.play("f5".parse().unwrap(), None, rate(0.625)).unwrap();
        game.play("d6".parse().unwrap(), None, None).unwrap();
        game.play("c3".parse().unwrap(), None, rate(0.75)).unwrap();
        let text = to_ggf(&game, &PLAYERS);
        assert!(text.contains("WR[1:0.625 3:0.750];)"), "{text}");
        let path = std::env::temp_dir().join(format!("app-win-rates-{}.ggf", std::process::id()));
        // Two games in the file: the second one's rates are its own.
        std::fs::write(&path, to_ggf(&Game::from_transcript("d3").unwrap(), &PLAYERS) + "\n" + &text + "\n").unwrap();
        let back = open_at(&path, 1).unwrap().game;
        let _ = std::fs::remove_file(&path);
        let rates: Vec<Option<f64>> = back.moves().iter().map(|m| m.win_rate_for_black()).collect();
        assert_eq!(rates, [Some(0.625), None, Some(0.75)]);
        assert!(ggf::parse(&text).is_ok(), "the arena's reader skips the property");
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
