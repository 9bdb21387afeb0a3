//! Solves FFO endgame positions exactly and prints the figures.
//!
//! ```text
//! cargo run --release -p bot-alphabeta --example ffo -- bots/alphabeta/tests/data/ffo.txt 40-49 [--threads N] [--depth D]
//! ```
//!
//! With `--depth D` the positions are not solved but searched by the
//! midgame search to depth D (time to depth, e.g. for the speed-up of
//! threads); the moves and scores are then printed, not checked.
//!
//! FILE has one position per line, `id board side best_moves score all_moves`
//! (see the header of `tests/data/ffo.txt`). IDS is `N`, `N-M` or a comma list
//! of those. Every score is checked against the file; a mismatch is reported
//! loudly and the exit status is non-zero. The move is checked too, unless
//! the best-moves field is `*` (sets made by `examples/endgame_set.rs`).
//!
//! The first line says which copy of the solver's code runs: AVX-512 where
//! the processor has it, else the build's own (`ALPHABETA_AVX512=0` forces
//! the latter; see `alphabeta::instruction_set`).

use std::process::ExitCode;
use std::time::Instant;

use alphabeta::Searcher;
use othello_sdk::Move;

#[path = "shared/ffo_file.rs"]
mod ffo_file;
use ffo_file::read_problems;

fn parse_ids(text: &str) -> Result<Vec<u32>, String> {
    let mut ids = Vec::new();
    for part in text.split(',') {
        let bad = |_| format!("bad id range `{part}` (expected N or N-M)");
        match part.split_once('-') {
            Some((from, to)) => ids.extend(from.parse::<u32>().map_err(bad)?..=to.parse::<u32>().map_err(bad)?),
            None => ids.push(part.parse().map_err(bad)?),
        }
    }
    Ok(ids)
}

fn run() -> Result<bool, String> {
    let usage = || "usage: ffo FILE IDS [--threads N] [--depth D]   (IDS like 40-49 or 1,5,7-9)".to_owned();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, ids, flags @ ..] = args.as_slice() else {
        return Err(usage());
    };
    let (mut threads, mut depth) = (1, None);
    for pair in flags.chunks(2) {
        match pair {
            [flag, n] if flag == "--threads" => threads = alphabeta::threads::parse_threads(n).ok_or_else(usage)?,
            [flag, d] if flag == "--depth" => depth = Some(d.parse::<u32>().map_err(|_| usage())?),
            _ => return Err(usage()),
        }
    }
    let problems = read_problems(file)?;
    let ids = parse_ids(ids)?;

    let mut searcher = Searcher::new();
    searcher.set_threads(threads);
    let code = match alphabeta::instruction_set::detected_avx512() {
        Some(_) => "AVX-512 (ALPHABETA_AVX512=0 for the build's own)",
        None => "the build's own (no AVX-512 here, or ALPHABETA_AVX512=0)",
    };
    println!("solver code: {code}");
    let (mut total_nodes, mut total_seconds, mut all_right) = (0u64, 0f64, true);
    println!(
        "{:>4} {:>7} {:>6} {:>6} {:>14} {:>9} {:>12}",
        "#", "empties", "move", "score", "nodes", "seconds", "nodes/s"
    );
    for id in ids {
        let Some(problem) = problems.iter().find(|p| p.id == id) else {
            return Err(format!("no position #{id} in {file}"));
        };
        searcher.clear();
        let start = Instant::now();
        if let Some(depth) = depth {
            let result = searcher.search(&problem.position, &alphabeta::Limits::depth(depth));
            let seconds = start.elapsed().as_secs_f64();
            total_nodes += result.nodes;
            total_seconds += seconds;
            println!(
                "{:>4} {:>7} {:>6} {:>+6.1} {:>14} {:>9.3} {:>12.0}",
                id,
                problem.position.empty().count(),
                result.best_move.to_string(),
                alphabeta::eval::score_to_discs(result.score),
                result.nodes,
                seconds,
                result.nodes as f64 / seconds
            );
            continue;
        }
        let solution = searcher.solve(&problem.position);
        let seconds = start.elapsed().as_secs_f64();
        total_nodes += solution.nodes;
        total_seconds += seconds;
        let best = match solution.best_move {
            Move::Play(square) => square.to_string(),
            Move::Pass => "pass".to_owned(),
        };
        println!(
            "{:>4} {:>7} {:>6} {:>+6} {:>14} {:>9.3} {:>12.0}",
            id,
            problem.position.empty().count(),
            best,
            solution.score,
            solution.nodes,
            seconds,
            solution.nodes as f64 / seconds
        );
        if solution.score != problem.score {
            println!("!!! MISMATCH on #{id}: solved {:+}, the file says {:+}", solution.score, problem.score);
            all_right = false;
        } else if !problem.best_moves.iter().any(|m| *m == best || m == "*") {
            println!("!!! MISMATCH on #{id}: move {best} is not among the best moves {:?}", problem.best_moves);
            all_right = false;
        }
    }
    println!("total {:>32} {:>9.3} {:>12.0}", total_nodes, total_seconds, total_nodes as f64 / total_seconds.max(1e-9));
    Ok(all_right)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("FAILED: some results differ from the file");
            ExitCode::FAILURE
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
