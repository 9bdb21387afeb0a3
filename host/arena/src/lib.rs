//! The Othello arena core: finds bot plugins, runs each seat in an isolated runner process (or in
//! process), referees games, and runs matches and tournaments. It knows nothing of a terminal or a
//! window: the `othello` command line and the desktop app are thin clients of it.
//!
//! - [`plugins`]: plugin folders, scanning, safe probing ([`plugins::probe_all`]), resolving bot names.
//! - [`load_diagnosis`]: why a library cannot load (a missing DLL, another architecture or
//!   platform, a debug runtime), read from its headers, added to the load error.
//! - [`seat`]: the [`Seat`](seat::Seat) trait — the one extension point for kinds of player —
//!   with isolated and in-process bot seats, [`SeatSpec`](seat::SeatSpec), [`SeatOptions`](seat::SeatOptions),
//!   the named losses ([`Failure`](seat::Failure), [`Termination`](seat::Termination)) and the
//!   [`RunnerCommand`](seat::RunnerCommand) that starts isolated bots.
//! - [`referee`]: the one referee, step by step ([`Referee`](referee::Referee)) or a whole game
//!   ([`play_game`](referee::play_game)).
//! - [`record`]: the one game model ([`GameRecord`](record::GameRecord), [`Outcome`](record::Outcome));
//!   [`ggf`] reads and writes it as GGF, [`record`] as JSON.
//! - [`event`]: matches and tournaments ([`event::run`]) with progress events, standings, Elo and
//!   SPRT, and a state folder that survives `kill -9`.
//! - [`text`]: every text a bot writes made harmless before anyone sees it, and the skeletons
//!   that tell look-alike names apart.
//!
//! Playing one game between two bot libraries, each in its own runner process (the runnable
//! version is `examples/one_game.rs`: `cargo run -p othello-arena --example one_game -- A.so B.so`):
//!
//! ```no_run
//! use std::time::Duration;
//! use othello_arena::referee::{Opening, play_game};
//! use othello_arena::seat::{RunnerCommand, Seating, open_seat};
//!
//! // The standalone `othello-runner` next to this program (`cargo build -p othello-runner`).
//! let seating = Seating::isolated(RunnerCommand::beside_current_exe().expect("a runner"));
//! let mut black = open_seat(&seating.spec("plugins/libalphabeta.so", None)).expect("loads");
//! let mut white = open_seat(&seating.spec("plugins/librandom.so", None)).expect("loads");
//! let record = play_game(black.as_mut(), white.as_mut(), &Opening::none(), Some(Duration::from_millis(100)));
//! println!("{}", othello_arena::ggf::write_game(&record));
//! ```

pub mod event;
pub mod ggf;
pub mod load_diagnosis;
pub mod nboard;
pub mod plugins;
pub mod record;
pub mod referee;
pub mod seat;
pub mod text;
