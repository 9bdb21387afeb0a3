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
pub mod exec;
#[cfg(windows)]
mod platform;
pub mod protocol;
pub mod sandbox;

use std::ffi::OsString;
use std::path::PathBuf;

pub use child::{Options, run as serve};
#[cfg(windows)]
pub use platform::windows::MEMORY_LIMIT_EXIT_CODE;
use sandbox::Mode;

/// The subcommand under which a program that embeds the runner serves it
/// (`othello runner …`).
pub const RUNNER_SUBCOMMAND: &str = "runner";

/// Exit code for a runner started with arguments it does not understand.
const EXIT_USAGE: i32 = 64;
/// Exit code when the runner cannot set itself up (limits, channel).
const EXIT_SETUP_FAILED: i32 = 71;

/// The runner's subcommand that starts a program (an NBoard engine) in the sandbox
/// ([`exec`]): `othello-runner exec [OPTIONS] -- PROGRAM [ARGS…]`.
pub const EXEC_SUBCOMMAND: &str = "exec";

/// Runs the runner with its arguments (`[--memory-mb N] [--sandbox MODE] [--scratch DIR]
/// LIBRARY`, `--sandbox-report`, or `exec …`; program name not included) and returns the process
/// exit code.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> i32 {
    let mut args = args.into_iter().peekable();
    if args.peek().is_some_and(|first| first == EXEC_SUBCOMMAND) {
        args.next();
        let why = match exec::parse_args(args) {
            Ok(options) => exec::run(&options),
            Err(usage) => {
                eprintln!("othello-runner exec: {usage}");
                return EXIT_USAGE;
            }
        };
        eprintln!("othello-runner exec: {why}");
        return EXIT_SETUP_FAILED;
    }
    let options = match parse_args(args) {
        Ok(Some(parsed)) => parsed,
        Ok(None) => return print_sandbox_report(),
        Err(usage) => {
            eprintln!("othello-runner: {usage}");
            return EXIT_USAGE;
        }
    };
    match serve(&options) {
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

/// `--sandbox-report`: tries every sandbox layer (in `auto` mode, with no bot) and prints one
/// line per layer on stdout (see [`sandbox::Layer::to_line`]).
#[cfg(target_os = "linux")]
fn print_sandbox_report() -> i32 {
    let mut report = sandbox::Report::default();
    if let Err(why) = sandbox::enter(Mode::Auto, &[], None, None, None, &mut report) {
        eprintln!("othello-runner: {why}");
        return EXIT_SETUP_FAILED;
    }
    let confinement = sandbox::Confinement {
        library: None,
        scratch: None,
        keep_fds: &[],
        memory_limit_mb: 0,
        cgroup: None,
        extra_read: &[],
        program: false,
    };
    let _ = sandbox::lock_down(Mode::Auto, &confinement, &mut report);
    let lines: Vec<String> = report.layers.iter().map(sandbox::Layer::to_line).collect();
    println!("{}", lines.join("\n"));
    0
}

#[cfg(windows)]
use platform::windows::print_sandbox_report;

#[cfg(not(any(target_os = "linux", windows)))]
fn print_sandbox_report() -> i32 {
    println!("{}", sandbox::Layer::unsupported().to_line());
    0
}

/// `[--memory-mb N] [--sandbox MODE] [--scratch DIR] LIBRARY` (any order), or `--sandbox-report`
/// (`None`).
fn parse_args(args: impl IntoIterator<Item = OsString>) -> Result<Option<Options>, String> {
    const USAGE: &str = "usage: othello-runner [--memory-mb N] [--sandbox auto|strict|off] [--scratch DIR] [--cgroup vN] [--freezer DIR] LIBRARY | --sandbox-report";
    let mut args = args.into_iter();
    let mut library = None;
    let mut memory_limit_mb = 0;
    let mut sandbox = Mode::Off;
    let mut scratch = None;
    let mut cgroup = None;
    let mut freezer = None;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value; {USAGE}"));
        if arg == "--memory-mb" {
            let value = value("--memory-mb")?;
            memory_limit_mb = value
                .to_str()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("--memory-mb takes a whole number of MiB, not {value:?}"))?;
        } else if arg == "--sandbox" {
            let value = value("--sandbox")?;
            sandbox = Mode::parse(&value.to_string_lossy())?;
        } else if arg == "--scratch" {
            scratch = Some(PathBuf::from(value("--scratch")?));
        } else if arg == "--freezer" {
            freezer = Some(PathBuf::from(value("--freezer")?));
        } else if arg == "--cgroup" {
            cgroup = Some(value("--cgroup")?.to_string_lossy().into_owned());
        } else if arg == "--sandbox-report" {
            return Ok(None);
        } else if library.is_none() {
            library = Some(PathBuf::from(arg));
        } else {
            return Err(format!("unexpected argument {arg:?}; {USAGE}"));
        }
    }
    let library = library.ok_or_else(|| USAGE.to_owned())?;
    Ok(Some(Options { library, memory_limit_mb, sandbox, scratch, cgroup, freezer }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<(PathBuf, u64), String> {
        parse_args(args.iter().map(OsString::from)).map(|o| {
            let o = o.expect("not a report");
            (o.library, o.memory_limit_mb)
        })
    }

    #[test]
    fn reads_the_sandbox_mode_and_scratch_folder() {
        let options =
            parse_args(["--sandbox", "strict", "--scratch", "/tmp/s", "libx.so"].map(OsString::from)).unwrap().unwrap();
        assert_eq!(options.sandbox, Mode::Strict);
        assert_eq!(options.scratch, Some(PathBuf::from("/tmp/s")));
        assert!(parse_args(["--sandbox-report"].map(OsString::from)).unwrap().is_none());
        assert!(
            parse_args(["--sandbox", "maybe", "x.so"].map(OsString::from)).unwrap_err().contains("auto, strict or off")
        );
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
