//! The game on screen: moves played, the position viewed, undo / redo, and how it ended.
//!
//! Pure data with no UI and no threads, so every rule the app relies on is unit-tested here.

use std::time::Duration;

use super::color_name as name;
use othello_arena::record::{End, MoveRecord, Outcome as GameOutcome};
use othello_arena::seat::Failure;
use othello_sdk::{
    Bitboard, Color, IllegalMove, Move, Outcome, Position, SearchInfo, TranscriptError, format_transcript,
    parse_transcript_from,
};

/// One move of the game: the arena's record of it (colour, move, thinking time — zero for a
/// human's —, search report) and the discs it flipped, for the board's animation.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayedMove {
    pub record: MoveRecord,
    pub flipped: Bitboard,
}

impl std::ops::Deref for PlayedMove {
    type Target = MoveRecord;

    fn deref(&self) -> &MoveRecord {
        &self.record
    }
}

impl PlayedMove {
    /// The bot's evaluation in discs from Black's point of view (the ABI reports the mover's view).
    pub fn eval_for_black(&self) -> Option<f64> {
        self.eval_for(Color::Black)
    }

    /// The bot's estimated chance that Black wins, 0..1 (the ABI reports the mover's chance).
    pub fn win_rate_for_black(&self) -> Option<f64> {
        self.win_rate_for(Color::Black)
    }

    /// The bot's evaluation in discs from `side`'s point of view.
    pub fn eval_for(&self, side: Color) -> Option<f64> {
        Some(crate::analysis::discs_for(self.info.as_ref()?.eval?, self.color, side))
    }

    /// The bot's estimated chance that `side` wins, 0..1.
    pub fn win_rate_for(&self, side: Color) -> Option<f64> {
        Some(crate::analysis::rate_for(self.info.as_ref()?.win_rate?, self.color, side))
    }
}

/// How a game ended other than by both sides running out of moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// Neither side can move.
    Normal,
    Resigned(Color),
    /// A bot lost by a failure (crash, timeout, illegal move …).
    Forfeit {
        loser: Color,
        failure: Failure,
    },
    /// Stopped by the user without a result.
    Aborted,
}

impl Ending {
    /// The arena's result of a game that ended this way in `live` (`None` for an aborted game).
    pub fn outcome(&self, live: &Position) -> Option<GameOutcome> {
        match self {
            Ending::Normal => Some(GameOutcome::normal(live)),
            Ending::Resigned(loser) => Some(GameOutcome::resigned(*loser)),
            Ending::Forfeit { loser, failure } => Some(GameOutcome::forfeit(*loser, failure.clone())),
            Ending::Aborted => None,
        }
    }

    /// How a game with the arena's result `outcome` ended.
    pub fn from_outcome(outcome: &GameOutcome) -> Ending {
        match &outcome.end {
            End::Normal => Ending::Normal,
            End::Resigned { loser } => Ending::Resigned(*loser),
            End::Forfeit { loser, failure } => Ending::Forfeit { loser: *loser, failure: failure.clone() },
        }
    }
}

/// The result shown in the banner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameResult {
    /// `None` for an aborted game.
    pub outcome: Option<Outcome>,
    /// Final score (black, white); empties go to the winner of a finished game.
    pub score: (u32, u32),
    pub ending: Ending,
}

impl GameResult {
    /// One line: "Black wins 40–24", "White wins by forfeit: Black crashed (…)".
    pub fn headline(&self) -> String {
        let (black, white) = self.score;
        match (&self.ending, self.outcome) {
            (Ending::Aborted, _) => format!("Game aborted at {black}–{white}"),
            (Ending::Resigned(loser), _) => format!("{} resigned: {} wins", name(*loser), name(!*loser)),
            (Ending::Forfeit { loser, failure }, _) => {
                let detail = if failure.detail.is_empty() { String::new() } else { format!(": {}", failure.detail) };
                format!("{} wins by forfeit — {} lost by {}{detail}", name(!*loser), name(*loser), failure.termination)
            }
            (Ending::Normal, Some(Outcome::Win(winner))) => format!("{} wins {black}–{white}", name(winner)),
            (Ending::Normal, _) => format!("Draw {black}–{white}"),
        }
    }
}

/// A game: its start position, the moves played, and the ply being viewed.
#[derive(Debug, Clone)]
pub struct Game {
    /// `positions[i]` is the position after `i` moves.
    positions: Vec<Position>,
    moves: Vec<PlayedMove>,
    /// Moves taken back with undo, most recent last.
    redo: Vec<PlayedMove>,
    /// The ply on the board; `moves.len()` when following the game.
    cursor: usize,
    ending: Option<Ending>,
    /// The first moves were a forced opening (a match's random opening), not the players' own.
    opening: usize,
    /// Other lines played from the same start (a move that left the line redo would replay keeps
    /// that line here), each whole from the start: with the current line they make the game's
    /// variation tree, each branching where it leaves the current line.
    variations: Vec<Vec<PlayedMove>>,
}

/// A line of the game other than the one on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VariationInfo {
    /// Its index, for [`Game::switch_to_variation`].
    pub index: usize,
    /// The moves it shares with the current line: it branches after this many.
    pub from: usize,
    /// Its moves after the branch.
    pub length: usize,
}

impl Default for Game {
    fn default() -> Game {
        Game::new(Position::start())
    }
}

impl Game {
    pub fn new(start: Position) -> Game {
        Game {
            positions: vec![start],
            moves: Vec::new(),
            redo: Vec::new(),
            cursor: 0,
            ending: None,
            opening: 0,
            variations: Vec::new(),
        }
    }

    /// A game from the standard start and a transcript (`f5d6c3…`, passes optional).
    pub fn from_transcript(text: &str) -> Result<Game, TranscriptError> {
        let (moves, _) = parse_transcript_from(Position::start(), text)?;
        let mut game = Game::default();
        for mv in moves {
            game.play(mv, None, None).expect("the transcript parser checked every move");
        }
        Ok(game)
    }

    /// Gives the moves of these plies (1-based) the win rates a saved game kept (the mover's
    /// chance, as bots report it); a ply the game does not have is left out.
    pub fn restore_win_rates(&mut self, rates: &[(usize, f64)]) {
        for &(ply, rate) in rates {
            if let Some(played) = ply.checked_sub(1).and_then(|i| self.moves.get_mut(i)) {
                played.record.info.get_or_insert_with(SearchInfo::default).win_rate = Some(rate);
            }
        }
    }

    /// Marks the moves played so far as the game's forced opening.
    pub fn mark_opening(&mut self) {
        self.opening = self.moves.len();
    }

    /// How many of the first moves were a forced opening.
    pub fn opening_plies(&self) -> usize {
        self.opening
    }

    pub fn start(&self) -> Position {
        self.positions[0]
    }

    pub fn moves(&self) -> &[PlayedMove] {
        &self.moves
    }

    /// The position after the last move played.
    pub fn live(&self) -> Position {
        *self.positions.last().expect("at least the start position")
    }

    /// The position after `ply` moves.
    pub fn position_at(&self, ply: usize) -> Position {
        self.positions[ply.min(self.moves.len())]
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The position on the board (a past one while replaying).
    pub fn viewed(&self) -> Position {
        self.positions[self.cursor]
    }

    /// The move that led to the viewed position.
    pub fn viewed_last_move(&self) -> Option<&PlayedMove> {
        self.cursor.checked_sub(1).map(|i| &self.moves[i])
    }

    pub fn is_viewing_live(&self) -> bool {
        self.cursor == self.moves.len()
    }

    /// Shows the position after `ply` moves (clamped to the game).
    pub fn view(&mut self, ply: usize) {
        self.cursor = ply.min(self.moves.len());
    }

    pub fn view_first(&mut self) {
        self.view(0);
    }

    pub fn view_back(&mut self) {
        self.view(self.cursor.saturating_sub(1));
    }

    pub fn view_forward(&mut self) {
        self.view(self.cursor + 1);
    }

    pub fn view_last(&mut self) {
        self.view(self.moves.len());
    }

    pub fn ending(&self) -> Option<&Ending> {
        self.ending.as_ref()
    }

    /// No more moves will be played: the rules ended it, or it was resigned, forfeited or aborted.
    pub fn is_over(&self) -> bool {
        self.ending.is_some()
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<GameResult> {
        let ending = self.ending.clone()?;
        let live = self.live();
        let (outcome, score) = match ending.outcome(&live) {
            Some(result) => {
                let outcome = result.winner.map_or(Outcome::Draw, Outcome::Win);
                (Some(outcome), (result.discs[0], result.discs[1]))
            }
            None => (None, live.disc_counts()),
        };
        Some(GameResult { outcome, score, ending })
    }

    /// Plays `mv` in the live position. The viewed position follows if it was live.
    /// An illegal move (or any move once the game is over) changes nothing.
    pub fn play(
        &mut self,
        mv: Move,
        elapsed: Option<Duration>,
        info: Option<SearchInfo>,
    ) -> Result<Bitboard, IllegalMove> {
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        let mut position = self.live();
        let color = position.side_to_move();
        let flipped = position.try_play(mv)?;
        let following = self.is_viewing_live();
        let played = PlayedMove {
            record: MoveRecord { color, mv, elapsed: elapsed.unwrap_or_default(), info, cpu: None, throttled: None },
            flipped,
        };
        // A move that is what redo would replay keeps the rest of the redo line; another one
        // keeps that line as a variation.
        if self.redo.last().is_some_and(|next| next.mv == mv) {
            self.redo.pop();
        } else if !self.redo.is_empty() {
            let line = self.current_line();
            self.keep_variation(line);
            self.redo.clear();
        }
        self.moves.push(played);
        self.positions.push(position);
        if following {
            self.cursor = self.moves.len();
        }
        if position.is_game_over() {
            self.ending = Some(Ending::Normal);
        }
        Ok(flipped)
    }

    /// Ends the game without playing on (resignation, forfeit, abort). No effect if already over.
    pub fn end(&mut self, ending: Ending) {
        if self.ending.is_none() {
            self.ending = Some(ending);
        }
    }

    /// Makes the viewed position the live one: later moves go to the redo list.
    pub fn play_on_from_viewed(&mut self) {
        while self.moves.len() > self.cursor {
            self.take_back();
        }
    }

    pub fn can_undo(&self) -> bool {
        !self.moves.is_empty() && !matches!(self.ending, Some(Ending::Forfeit { .. } | Ending::Aborted))
    }

    /// Takes back the last move; returns it. A resigned or normally finished game is reopened.
    pub fn undo(&mut self) -> Option<Move> {
        if !self.can_undo() {
            return None;
        }
        self.take_back()
    }

    fn take_back(&mut self) -> Option<Move> {
        let played = self.moves.pop()?;
        self.positions.pop();
        let mv = played.mv;
        self.redo.push(played);
        self.cursor = self.cursor.min(self.moves.len());
        self.ending = None;
        Some(mv)
    }

    /// The game ended by resignation, forfeit or abort (not by the rules): it can be reopened.
    pub fn can_reopen(&self) -> bool {
        matches!(self.ending, Some(Ending::Resigned(_) | Ending::Forfeit { .. } | Ending::Aborted))
    }

    /// Takes back a resignation, forfeit or abort: the game goes on from its last move.
    pub fn reopen(&mut self) {
        if self.can_reopen() {
            self.ending = None;
        }
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty() && !self.is_over()
    }

    /// Replays the last move taken back.
    pub fn redo(&mut self) -> Option<Move> {
        if !self.can_redo() {
            return None;
        }
        let next = self.redo.last().cloned()?;
        self.play(next.mv, Some(next.elapsed), next.info).ok()?;
        Some(next.mv)
    }

    /// The whole current line: the moves played and those redo would replay.
    fn current_line(&self) -> Vec<PlayedMove> {
        self.moves.iter().chain(self.redo.iter().rev()).cloned().collect()
    }

    /// Keeps `line` as a variation, unless the tree has it already.
    fn keep_variation(&mut self, line: Vec<PlayedMove>) {
        let same = |a: &[PlayedMove], b: &[PlayedMove]| a.len() == b.len() && shared(a, b) == a.len();
        if !self.variations.iter().any(|v| same(v, &line)) {
            self.variations.push(line);
        }
    }

    /// The other lines, each with where it leaves the current one (first-branching first).
    pub fn variations(&self) -> Vec<VariationInfo> {
        let current = self.current_line();
        let mut list: Vec<VariationInfo> = self
            .variations
            .iter()
            .enumerate()
            .map(|(index, line)| {
                let from = shared(line, &current);
                VariationInfo { index, from, length: line.len() - from }
            })
            .collect();
        list.sort_by_key(|v| (v.from, v.index));
        list
    }

    /// The moves of variation `index` after it leaves the current line.
    pub fn variation_moves(&self, index: usize) -> &[PlayedMove] {
        let Some(line) = self.variations.get(index) else { return &[] };
        &line[shared(line, &self.current_line())..]
    }

    /// Makes variation `index` the current line (the current one becomes a variation) and views
    /// where it branches off. Its moves are played again from the branch.
    pub fn switch_to_variation(&mut self, index: usize) -> bool {
        if index >= self.variations.len() {
            return false;
        }
        let target = self.variations.remove(index);
        let current = self.current_line();
        let from = shared(&target, &current);
        self.keep_variation(current);
        while self.moves.len() > from {
            self.take_back();
        }
        self.redo.clear();
        for played in &target[from..] {
            if self.play(played.mv, Some(played.elapsed), played.info).is_err() {
                break; // a variation is a line of this game: every move is legal
            }
        }
        self.view(from);
        true
    }

    /// The moves as a transcript, `f5d6c3…` (passes left out, as usual).
    pub fn transcript(&self) -> String {
        let moves: Vec<Move> = self.moves.iter().map(|m| m.mv).collect();
        format_transcript(&moves)
    }

    /// The side to move in the live position, if the game goes on.
    pub fn to_move(&self) -> Option<Color> {
        (!self.is_over()).then(|| self.live().side_to_move())
    }
}

/// How many first moves two lines share.
fn shared(a: &[PlayedMove], b: &[PlayedMove]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x.mv == y.mv).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(text: &str) -> Move {
        text.parse().unwrap()
    }

    #[test]
    fn plays_legal_moves_and_rejects_illegal_ones_unchanged() {
        let mut game = Game::default();
        assert_eq!(game.play(mv("f5"), None, None).unwrap().count(), 1);
        let before = game.live();
        assert_eq!(game.play(mv("a1"), None, None), Err(IllegalMove::NoFlips("a1".parse().unwrap())));
        assert_eq!(game.play(mv("f5"), None, None), Err(IllegalMove::Occupied("f5".parse().unwrap())));
        assert_eq!(game.live(), before);
        assert_eq!(game.moves().len(), 1);
    }

    #[test]
    fn replay_cursor_views_past_positions_and_follows_the_game_when_live() {
        let mut game = Game::from_transcript("f5d6c3d3c4").unwrap();
        assert_eq!(game.cursor(), 5);
        game.view_first();
        assert_eq!(game.viewed(), Position::start());
        game.view_forward();
        game.view_forward();
        assert_eq!(game.viewed(), Game::from_transcript("f5d6").unwrap().live());
        game.view_back();
        assert_eq!(game.viewed_last_move().unwrap().mv, mv("f5"));
        // Moves played while viewing the past do not move the view.
        game.play(mv("f4"), None, None).unwrap();
        assert_eq!(game.cursor(), 1);
        game.view_last();
        assert_eq!(game.cursor(), 6);
        game.view(99);
        assert_eq!(game.cursor(), 6);
    }

    #[test]
    fn undo_and_redo_walk_the_game_back_and_forth() {
        let mut game = Game::from_transcript("f5d6c3").unwrap();
        let after_two = game.position_at(2);
        assert_eq!(game.undo(), Some(mv("c3")));
        assert_eq!(game.live(), after_two);
        assert_eq!(game.redo(), Some(mv("c3")));
        assert_eq!(game.transcript(), "f5d6c3");
        game.undo();
        // A different move drops the redo line.
        game.play(mv("c5"), None, None).unwrap();
        assert!(!game.can_redo());
    }

    #[test]
    fn play_on_from_a_past_position_truncates_and_keeps_redo() {
        let mut game = Game::from_transcript("f5d6c3d3").unwrap();
        game.view(2);
        game.play_on_from_viewed();
        assert_eq!(game.transcript(), "f5d6");
        assert!(game.is_viewing_live());
        assert_eq!(game.redo(), Some(mv("c3")));
    }

    #[test]
    fn a_finished_game_has_its_result_with_empties_to_the_winner() {
        // The shortest possible game: black wipes out white after 9 moves.
        let game = Game::from_transcript("d3c3b3d2e1d6d7e3f4").unwrap_or_else(|e| panic!("{e}"));
        let result = game.result().expect("over");
        assert_eq!(result.outcome, Some(Outcome::Win(Color::Black)));
        assert_eq!(result.score, (64, 0));
        assert_eq!(result.headline(), "Black wins 64–0");
    }

    #[test]
    fn forfeit_ends_the_game_for_the_other_side_and_blocks_moves() {
        let mut game = Game::from_transcript("f5").unwrap();
        let failure = Failure::new(othello_arena::seat::Termination::Crash, "killed by signal 11");
        game.end(Ending::Forfeit { loser: Color::White, failure });
        assert_eq!(game.play(mv("d6"), None, None), Err(IllegalMove::GameOver));
        let result = game.result().unwrap();
        assert_eq!(result.outcome, Some(Outcome::Win(Color::Black)));
        assert_eq!(result.score, (64, 0));
        assert_eq!(result.headline(), "Black wins by forfeit — White lost by crash: killed by signal 11");
        assert!(!game.can_undo());
    }

    #[test]
    fn a_pasted_transcript_with_an_illegal_move_says_where() {
        let error = Game::from_transcript("f5d6a1").unwrap_err();
        assert_eq!(error.move_number, 3);
    }

    #[test]
    fn evaluations_are_turned_to_blacks_view() {
        let info = SearchInfo { eval: Some(3.0), ..Default::default() };
        let mut game = Game::default();
        game.play(mv("f5"), None, Some(info)).unwrap();
        game.play(mv("d6"), None, Some(info)).unwrap();
        assert_eq!(game.moves()[0].eval_for_black(), Some(3.0));
        assert_eq!(game.moves()[1].eval_for_black(), Some(-3.0));
        let info = SearchInfo { win_rate: Some(0.8), ..Default::default() };
        game.play(mv("c3"), None, Some(info)).unwrap();
        game.play(mv("d3"), None, Some(info)).unwrap();
        assert_eq!(game.moves()[2].win_rate_for_black(), Some(0.8));
        assert!((game.moves()[3].win_rate_for_black().unwrap() - 0.2).abs() < 1e-9);
        assert_eq!(game.moves()[3].eval_for_black(), None);
    }

    #[test]
    fn playing_on_from_a_past_position_keeps_the_old_line_as_a_variation() {
        let mut game = Game::from_transcript("f5d6c3d3c4").unwrap();
        game.view(2);
        game.play_on_from_viewed();
        game.play(mv("c5"), None, None).unwrap();
        assert_eq!(game.transcript(), "f5d6c5");
        let variations = game.variations();
        assert_eq!(variations, [VariationInfo { index: 0, from: 2, length: 3 }]);
        let moves: Vec<Move> = game.variation_moves(0).iter().map(|m| m.mv).collect();
        assert_eq!(moves, [mv("c3"), mv("d3"), mv("c4")]);
        // Switching back: the c5 line becomes the variation.
        assert!(game.switch_to_variation(0));
        assert_eq!(game.transcript(), "f5d6c3d3c4");
        assert_eq!(game.cursor(), 2, "viewed where the lines part");
        assert_eq!(game.variations(), [VariationInfo { index: 0, from: 2, length: 1 }]);
        // A branch of a branch: from move 1 of the current line.
        game.view(1);
        game.play_on_from_viewed();
        game.play(mv("f6"), None, None).unwrap();
        let froms: Vec<usize> = game.variations().iter().map(|v| v.from).collect();
        assert_eq!(froms, [1, 1], "both other lines leave this one after f5");
        // Undo and the same move again keeps no duplicate.
        game.undo();
        game.play(mv("f6"), None, None).unwrap();
        assert_eq!(game.variations().len(), 2);
    }
}
