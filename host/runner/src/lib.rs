//! The bot runner: one bot library loaded in a process of its own, answering
//! the arena over a private binary channel ([`protocol`]) until the arena
//! closes it. A crash, hang, memory hog or stray print of the bot ends this
//! process, never the arena.
//!
//! The arena starts it as `othello-runner --memory-mb N LIBRARY` (the
//! standalone binary of this crate), or as `othello runner --memory-mb N
//! LIBRARY`: a program that embeds the runner calls [`main_if_runner`] first
//! thing in its `main`, so one executable can serve as both. This crate links
//! no terminal or GUI library.

mod child;
pub mod protocol;

use std::ffi::OsString;
use std::path::PathBuf;

pub use child::run as serve;

/// The subcommand under which a program that embeds the runner serves it
/// (`othello runner …`).
pub const RUNNER_SUBCOMMAND: &str = "runner";

/// Exit code for a runner started with arguments it does not understand.
const EXIT_USAGE: i32 = 64;
/// Exit code when the runner cannot set itself up (limits, channel).
const EXIT_SETUP_FAILED: i32 = 71;

/// Runs the runner with its arguments (`--memory-mb N LIBRARY`, program name
/// not included) and returns the process exit code.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> i32 {
    let (library, memory_limit_mb) = match parse_args(args) {
        Ok(parsed) => parsed,
        Err(usage) => {
            eprintln!("othello-runner: {usage}");
            return EXIT_USAGE;
        }
    };
    match serve(&library, memory_limit_mb) {
        Ok(()) => 0,
        Err(why) => {
            eprintln!("othello-runner: {why}");
            EXIT_SETUP_FAILED
        }
    }
}

/// For a program that embeds the runner: when it was started as
/// `PROGRAM runner …`, serves the runner and exits; otherwise returns at once.
/// Call it first thing in `main`, before any other set-up.
pub fn main_if_runner() {
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|first| first == RUNNER_SUBCOMMAND) {
        std::process::exit(main_with_args(args));
    }
}

/// `--memory-mb N LIBRARY` (either order).
fn parse_args(args: impl IntoIterator<Item = OsString>) -> Result<(PathBuf, u64), String> {
    const USAGE: &str = "usage: othello-runner [--memory-mb N] LIBRARY";
    let mut args = args.into_iter();
    let mut library = None;
    let mut memory_limit_mb = 0;
    while let Some(arg) = args.next() {
        if arg == "--memory-mb" {
            let value = args.next().ok_or_else(|| format!("--memory-mb needs a value; {USAGE}"))?;
            memory_limit_mb = value
                .to_str()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("--memory-mb takes a whole number of MiB, not {value:?}"))?;
        } else if library.is_none() {
            library = Some(PathBuf::from(arg));
        } else {
            return Err(format!("unexpected argument {arg:?}; {USAGE}"));
        }
    }
    Ok((library.ok_or_else(|| USAGE.to_owned())?, memory_limit_mb))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<(PathBuf, u64), String> {
        parse_args(args.iter().map(OsString::from))
    }

    #[test]
    fn reads_the_library_and_the_memory_limit_in_either_order() {
        assert_eq!(parse(&["--memory-mb", "64", "libx.so"]), Ok((PathBuf::from("libx.so"), 64)));
        assert_eq!(parse(&["libx.so", "--memory-mb", "8"]), Ok((PathBuf::from("libx.so"), 8)));
        assert_eq!(parse(&["libx.so"]), Ok((PathBuf::from("libx.so"), 0)));
    }

    #[test]
    fn rejects_what_it_does_not_understand() {
        assert!(parse(&[]).unwrap_err().contains("usage"));
        assert!(parse(&["--memory-mb"]).unwrap_err().contains("needs a value"));
        assert!(parse(&["--memory-mb", "lots", "libx.so"]).unwrap_err().contains("whole number"));
        assert!(parse(&["a.so", "b.so"]).unwrap_err().contains("unexpected"));
    }
}
