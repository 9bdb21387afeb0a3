//! The app's window from this crate's own build, for screenshots under Xvfb without building the
//! `othello` program: `cargo run -p othello-app --example app_window -- [--plugins DIR]…
//! [--seed-ladder NAME=LIBRARY…]`. The bots' runners are this executable. `--seed-ladder` first
//! adds those bots to the default ladder (`$XDG_DATA_HOME/othello-arena/ladder.sqlite3`) and plays
//! its seeding games, so the Ladder tab has real rows.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use othello_app::Launch;
use othello_arena::seat::{RunnerCommand, SeatOptions, Seating};

/// Time per move of the seeding games.
const SEED_MOVE_TIME: Duration = Duration::from_millis(10);

fn main() -> Result<(), String> {
    othello_runner::main_if_runner();
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut plugin_folders = Vec::new();
    let mut seeds = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--plugins", Some(folder)) => plugin_folders.push(PathBuf::from(folder)),
            ("--seed-ladder", Some(seed)) => {
                let (name, library) = seed.split_once('=').ok_or("--seed-ladder NAME=LIBRARY")?;
                seeds.push(othello_ladder::identity::library_identity(library.as_ref(), name, None)?);
            }
            _ => return Err(format!("unknown argument {arg} (see the example's documentation)")),
        }
    }
    if !seeds.is_empty() {
        let path = othello_ladder::paths::default_ladder_path().ok_or("no data folder")?;
        std::fs::create_dir_all(path.parent().ok_or("no data folder")?).map_err(|e| e.to_string())?;
        let mut ladder = othello_ladder::Ladder::open(&path)?;
        let stop = AtomicBool::new(false);
        let games = othello_ladder::seed::seed_pool(
            &mut ladder,
            &seeds,
            &Seating::in_process(),
            Some(SEED_MOVE_TIME),
            1,
            &stop,
            &mut |_| {},
        )?;
        eprintln!("{games} seeding games played into {}", path.display());
    }
    let launch = Launch {
        plugin_folders,
        runner: RunnerCommand::new(exe).with_arg(othello_runner::RUNNER_SUBCOMMAND),
        options: SeatOptions::default(),
        engines: Vec::new(),
    };
    othello_app::run(launch)
}
