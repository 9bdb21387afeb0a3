//! The solver against known facts: the exact scores and best moves of FFO
//! endgame problems #1–#19 (14 to 16 empties), read from the crate's copy of
//! the FFO file.

use alphabeta::{Limits, Searcher};
use othello_sdk::{Move, Position};

const FFO_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ffo.txt");

struct Problem {
    id: u32,
    position: Position,
    best_moves: Vec<String>,
    score: i32,
}

fn problems() -> Vec<Problem> {
    let text = std::fs::read_to_string(FFO_FILE).expect("tests/data/ffo.txt");
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            Problem {
                id: fields[0].parse().unwrap(),
                position: Position::from_board_string(&format!("{} {}", fields[1], fields[2])).unwrap(),
                best_moves: fields[3].split(',').map(str::to_owned).collect(),
                score: fields[4].parse().unwrap(),
            }
        })
        .collect()
}

#[test]
fn solves_ffo_1_to_19_exactly() {
    let problems = problems();
    let mut searcher = Searcher::new();
    let mut checked = 0;
    for problem in problems.iter().filter(|p| (1..=19).contains(&p.id)) {
        searcher.clear();
        let solution = searcher.solve(&problem.position);
        assert_eq!(solution.score, problem.score, "FFO #{}: score", problem.id);
        let Move::Play(square) = solution.best_move else { panic!("FFO #{}: passed", problem.id) };
        assert!(
            problem.best_moves.contains(&square.to_string()),
            "FFO #{}: {square} is not among the best moves {:?}",
            problem.id,
            problem.best_moves
        );
        assert!(solution.nodes > 0);
        checked += 1;
    }
    assert_eq!(checked, 19, "the file holds #1-#19");
}

#[test]
fn solving_is_deterministic() {
    let problem = problems().into_iter().find(|p| p.id == 3).unwrap();
    let first = Searcher::new().solve(&problem.position);
    let second = Searcher::new().solve(&problem.position);
    assert_eq!(first, second);
}

/// Lazy SMP: helper threads share the tables, the answers stay exact.
#[test]
fn two_threads_solve_exactly_too() {
    let mut searcher = Searcher::new();
    searcher.set_threads(2);
    for problem in problems().iter().filter(|p| (1..=19).contains(&p.id)) {
        searcher.clear();
        let solution = searcher.solve(&problem.position);
        assert_eq!(solution.score, problem.score, "FFO #{}: score with two threads", problem.id);
        let Move::Play(square) = solution.best_move else { panic!("FFO #{}: passed", problem.id) };
        assert!(problem.best_moves.contains(&square.to_string()), "FFO #{}: {square} with two threads", problem.id);
    }
}

/// A midgame search on two threads completes the iterations one thread does
/// and plays a legal move.
#[test]
fn two_thread_midgame_search_plays_a_legal_move() {
    let mut searcher = Searcher::new();
    searcher.set_threads(2);
    for problem in problems().iter().filter(|p| (20..=25).contains(&p.id)) {
        let result = searcher.search(&problem.position, &Limits::depth(7));
        let single = Searcher::new().search(&problem.position, &Limits::depth(7));
        assert_eq!(result.depth, single.depth, "FFO #{}: the same iterations as one thread", problem.id);
        assert!(problem.position.is_legal(result.best_move), "FFO #{}: {:?}", problem.id, result.best_move);
    }
}

/// The win/loss/draw solve agrees with the sign of every known score.
#[test]
fn win_loss_draw_solves_match_the_scores_signs() {
    let mut searcher = Searcher::new();
    for problem in problems().iter().filter(|p| (1..=19).contains(&p.id)) {
        searcher.clear();
        let solution = searcher.solve_wld_until(&problem.position, None).expect("no deadline");
        assert_eq!(solution.score, problem.score.signum(), "FFO #{}: win/loss/draw", problem.id);
        if problem.score > 0 {
            // A winning move: solving after it leaves the opponent lost.
            let Move::Play(square) = solution.best_move else { panic!("FFO #{}: passed", problem.id) };
            let mut after = problem.position;
            after.play(Move::Play(square));
            assert!(searcher.solve(&after).score < 0, "FFO #{}: {square} does not win", problem.id);
        }
    }
}
