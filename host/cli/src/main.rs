//! `othello`: the desktop app without a subcommand, the headless arena with one (see [`cli`]).

#[macro_use]
mod output;

mod cli;
mod event_run;
mod global;
mod ladder;
mod merge;
mod progress;
mod rate;
mod report;
mod secrets;
mod serve;
mod worker;

fn main() {
    // Bots run in child processes started as `othello runner …` (see `cli::runner_command`): serve
    // that before any other set-up, so a runner runs nothing but the runner's code.
    othello_runner::main_if_runner();
    // Then, while it has one thread, out of the environment with every secret it was given.
    secrets::take_from_environment();
    std::process::exit(cli::main());
}
