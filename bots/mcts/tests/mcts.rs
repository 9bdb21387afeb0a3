//! The MCTS bot plays legal moves (passing when it must), keeps to its time,
//! replays the same moves from the same seed with a playout budget, reports
//! its search, keeps its tree between moves, and beats the weighted bot.

use std::time::{Duration, Instant};

use mcts::{DEFAULT_THINK_TIME, MctsBot, PLAYOUTS_PER_LEVEL};
use othello_sdk::testing::{legal_reply, play_game, random_game_positions, think_time};
use othello_sdk::{Bot, Color, Move, Position, SplitMix64, Square, ThinkRequest};

/// Small enough for quick tests, big enough to search a little.
const QUICK_BUDGET: u64 = 300;

fn think(bot: &mut MctsBot, position: Position) -> Move {
    bot.think(&ThinkRequest { position, time_limit: None })
}

#[test]
fn always_plays_a_legal_move_and_passes_when_it_must() {
    let positions = random_game_positions(40, 21);
    assert!(positions.iter().any(Position::must_pass), "the sample must include forced passes");
    // One bot through consecutive positions: it re-roots its tree as it goes,
    // also across passes.
    let mut bot = MctsBot::with_seed(1).with_playout_budget(QUICK_BUDGET);
    for position in positions {
        let mv = legal_reply(&mut bot, position, None);
        assert_eq!(mv == Move::Pass, position.must_pass(), "in\n{position}");
    }
}

#[test]
fn keeps_to_a_small_time_limit() {
    let mut bot = MctsBot::default(); // full strength: only the clock stops it
    for position in random_game_positions(1, 22).into_iter().step_by(6) {
        let took = think_time(&mut bot, position, Duration::from_millis(30));
        assert!(took < Duration::from_millis(300), "took {took:?} in\n{position}");
    }
}

#[test]
fn searches_for_about_a_second_without_a_limit() {
    let mut bot = MctsBot::default();
    let started = Instant::now();
    legal_reply(&mut bot, Position::start(), None);
    let took = started.elapsed();
    assert!(took >= DEFAULT_THINK_TIME / 2 && took < DEFAULT_THINK_TIME * 5, "took {took:?}");
}

/// The moves of one game of `mcts` against a seeded, budgeted MCTS opponent.
fn game_moves(mut mcts: MctsBot) -> Vec<Move> {
    let mut opponent = MctsBot::with_seed(5).with_playout_budget(QUICK_BUDGET);
    mcts.new_game();
    opponent.new_game();
    let mut position = Position::start();
    let mut moves = Vec::new();
    while !position.is_game_over() {
        let request = ThinkRequest { position, time_limit: Some(Duration::from_secs(60)) };
        let mv = match position.side_to_move() {
            Color::Black => mcts.think(&request),
            Color::White => opponent.think(&request),
        };
        position.play(mv);
        moves.push(mv);
    }
    moves
}

#[test]
fn the_same_seed_replays_the_same_game() {
    let game = |seed| game_moves(MctsBot::with_seed(seed).with_playout_budget(QUICK_BUDGET));
    let first = game(7);
    assert_eq!(game(7), first);
    assert_ne!(game(8), first, "another seed should play another game");
}

#[test]
fn reports_win_rate_playouts_and_depth() {
    let mut bot = MctsBot::with_seed(2).with_playout_budget(2000);
    think(&mut bot, Position::start());
    let info = bot.search_info().expect("a search report");
    assert_eq!(info.nodes, Some(2000));
    let win_rate = info.win_rate.expect("a win rate");
    assert!((0.3..0.7).contains(&win_rate), "{win_rate} at the start");
    assert!(info.depth.is_some_and(|depth| depth >= 2), "{info:?}");

    // Black to move wins whatever it plays (a1 or h8): a win rate of 1
    // from the mover's view.
    let won = Position::from_board_string(&format!("-O{}O- X", "X".repeat(60))).unwrap();
    assert_eq!(won.legal_moves().count(), 2, "a choice to search\n{won}");
    think(&mut bot, won);
    assert_eq!(bot.search_info().and_then(|info| info.win_rate), Some(1.0));
}

#[test]
fn keeps_the_subtree_of_the_moves_played() {
    const BUDGET: u64 = 20_000;
    let mut bot = MctsBot::with_seed(3).with_playout_budget(BUDGET);
    let mut position = Position::start();
    let ours = think(&mut bot, position);
    position.play(ours);
    // The opponent answers with the reply the bot searched most.
    let tree = bot.tree();
    let our_node = tree.root_children().iter().find(|c| c.player == position.player().0).unwrap();
    let reply_node = *tree.children(our_node).iter().max_by_key(|c| c.visits).unwrap();
    let reply = othello_sdk::Square::new(reply_node.mv).unwrap();
    position.play(Move::Play(reply));
    assert!(reply_node.visits > 0);

    think(&mut bot, position);
    let root = bot.tree().root().unwrap();
    assert_eq!((root.player, root.opponent), (position.player().0, position.opponent().0));
    // (At least: another move order may reach the same position and have been
    // searched more.)
    assert!(
        root.visits as u64 >= reply_node.visits as u64 + BUDGET,
        "the earlier playouts below the position are lost"
    );
}

#[test]
fn levels_cap_the_playouts() {
    assert_eq!(MctsBot::LEVELS as usize, PLAYOUTS_PER_LEVEL.len());
    let mut bot = MctsBot::with_seed(4);
    bot.set_level(1);
    bot.new_game(); // the level holds across games
    let limit = Some(Duration::from_millis(200));
    bot.think(&ThinkRequest { position: Position::start(), time_limit: limit });
    assert_eq!(bot.search_info().unwrap().nodes, Some(PLAYOUTS_PER_LEVEL[0]));
    bot.set_level(MctsBot::LEVELS);
    bot.think(&ThinkRequest { position: Position::start(), time_limit: limit });
    let nodes = bot.search_info().unwrap().nodes.unwrap();
    assert!(nodes > PLAYOUTS_PER_LEVEL[0] * 10, "only {nodes} playouts at full strength");
}

#[test]
fn beats_the_weighted_bot_with_a_small_budget() {
    const GAMES: u64 = 20;
    const MIN_SCORE: f64 = 0.75;
    let mut points = 0.0;
    for game in 0..GAMES {
        let mut mcts = MctsBot::with_seed(game).with_playout_budget(1000);
        let mut weighted = ClassicWeighted::with_seed(1000 + game);
        points += if game % 2 == 0 {
            play_game(&mut mcts, &mut weighted, Position::start())
        } else {
            1.0 - play_game(&mut weighted, &mut mcts, Position::start())
        };
    }
    let score = points / GAMES as f64;
    eprintln!("mcts (1000 playouts a move) vs weighted: {:.1} % over {GAMES} games", 100.0 * score);
    assert!(score >= MIN_SCORE, "mcts scored only {:.1} % against weighted", 100.0 * score);
}

/// The weighted sample bot's strategy, seeded: the classic beginner's table
/// (corners 150, X-squares -64, other edges 10, the rest 0), ties broken at
/// random. A copy, not the `weighted` crate: two bot crates linked into one
/// test binary would both export the plugin symbols, and its plugin is built
/// only when the `weighted` package is tested too.
struct ClassicWeighted(SplitMix64);

impl ClassicWeighted {
    fn with_seed(seed: u64) -> ClassicWeighted {
        ClassicWeighted(SplitMix64::new(seed))
    }

    fn weight(square: Square) -> i32 {
        let on_edge = |line: u8| line == 0 || line == 7;
        let next_to_edge = |line: u8| line == 1 || line == 6;
        let (row, col) = (square.row(), square.col());
        if on_edge(row) && on_edge(col) {
            150
        } else if next_to_edge(row) && next_to_edge(col) {
            -64
        } else if on_edge(row) || on_edge(col) {
            10
        } else {
            0
        }
    }
}

impl Default for ClassicWeighted {
    fn default() -> ClassicWeighted {
        ClassicWeighted::with_seed(0)
    }
}

impl Bot for ClassicWeighted {
    const NAME: &'static str = "Classic weighted";

    fn new_game(&mut self) {}

    fn think(&mut self, request: &ThinkRequest) -> Move {
        let moves = request.position.legal_moves();
        let Some(best) = moves.into_iter().map(ClassicWeighted::weight).max() else {
            return Move::Pass;
        };
        let best: Vec<Square> = moves.into_iter().filter(|&square| ClassicWeighted::weight(square) == best).collect();
        Move::Play(best[self.0.below(best.len() as u32) as usize])
    }
}
