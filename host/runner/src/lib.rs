//! The bot runner: one bot library loaded in a process of its own, answering
//! the arena over a private binary channel ([`protocol`]) until the arena
//! closes it. A crash, hang, memory hog or stray print of the bot ends this
//! process, never the arena.
//!
//! The arena starts it as `othello-runner [SANDBOX OPTIONS] -- LIBRARY` (the
//! standalone binary of this crate; the command line is `othello_sandbox::RunnerArgs`), or
//! as `othello runner [SANDBOX OPTIONS] -- LIBRARY`: a program that embeds the runner calls
//! [`main_if_runner`] first thing in its `main`, so one executable can serve as both. This crate links
//! no terminal or GUI library.

mod child;
pub mod exec;
mod platform;
pub mod protocol;
mod wasm;

use std::ffi::OsString;

use othello_sandbox::RunnerArgs;

pub use child::run as serve;
#[cfg(windows)]
pub use platform::windows::MEMORY_LIMIT_EXIT_CODE;

/// The subcommand under which a program that embeds the runner serves it
/// (`othello runner …`).
pub const RUNNER_SUBCOMMAND: &str = "runner";

/// Exit code for a runner started with arguments it does not understand.
const EXIT_USAGE: i32 = 64;
/// Exit code when the runner cannot set itself up (limits, channel).
const EXIT_SETUP_FAILED: i32 = 71;
/// Exit code when the channel breaks (host gone or garbage received).
pub(crate) const EXIT_CHANNEL_BROKEN: i32 = 70;

/// Runs the runner with its arguments (see [`RunnerArgs`]: `[SANDBOX OPTIONS] LIBRARY`,
/// `--sandbox-report`, or `exec …`; program name not included) and returns the process exit code.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> i32 {
    let args = match RunnerArgs::parse(args) {
        Ok(args) => args,
        Err(help) if help.kind() == clap::error::ErrorKind::DisplayHelp => {
            println!("{}", help.render().to_string().trim_end());
            return 0;
        }
        Err(usage) => {
            eprintln!("othello-runner: {}", usage.render().to_string().trim_end());
            return EXIT_USAGE;
        }
    };
    let (context, why) = match args {
        RunnerArgs::SandboxReport => return print_sandbox_report(),
        RunnerArgs::Exec(options) => ("othello-runner exec", exec::run(&options)),
        RunnerArgs::Serve(options) => match serve(&options) {
            Ok(()) => return 0,
            Err(why) => ("othello-runner", why),
        },
    };
    eprintln!("{context}: {why}");
    EXIT_SETUP_FAILED
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
/// line per layer on stdout (see [`othello_sandbox::Layer::to_line`]).
#[cfg(target_os = "linux")]
fn print_sandbox_report() -> i32 {
    use othello_sandbox::minimal_root::RootPlan;
    use othello_sandbox::{DEFAULT_SCRATCH_MB, Mode, Report, SandboxArgs, lockdown, namespaces};
    let mut report = Report::default();
    let sandbox = SandboxArgs { sandbox: Mode::Auto, scratch_mb: DEFAULT_SCRATCH_MB, ..SandboxArgs::off(0) };
    if let Err(why) = namespaces::enter(&sandbox, &[], &RootPlan::default(), None, &mut report) {
        eprintln!("othello-runner: {why}");
        return EXIT_SETUP_FAILED;
    }
    let confinement = lockdown::Confinement {
        library: None,
        scratch: None,
        keep_fds: &[],
        memory_limit_mb: 0,
        cgroup: None,
        extra_read: &[],
        program: false,
    };
    let _ = lockdown::lock_down(Mode::Auto, &confinement, &mut report);
    print_layers(&report)
}

#[cfg(windows)]
fn print_sandbox_report() -> i32 {
    print_layers(&othello_sandbox::job::runner_report())
}

#[cfg(not(any(target_os = "linux", windows)))]
fn print_sandbox_report() -> i32 {
    print_layers(&othello_sandbox::Report { layers: vec![othello_sandbox::Layer::unsupported()] })
}

/// One line per layer on stdout.
fn print_layers(report: &othello_sandbox::Report) -> i32 {
    let lines: Vec<String> = report.layers.iter().map(othello_sandbox::Layer::to_line).collect();
    println!("{}", lines.join("\n"));
    0
}
