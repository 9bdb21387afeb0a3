//! `othello-runner [--memory-mb N] LIBRARY`: serves one bot library to the arena that started it.

fn main() {
    std::process::exit(othello_runner::main_with_args(std::env::args_os().skip(1)));
}
