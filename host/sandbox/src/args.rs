//! The runner's command line, written once: the host builds it with [`RunnerArgs::to_args`], the
//! runner reads it with [`RunnerArgs::parse`].
//!
//! - `othello-runner [SANDBOX OPTIONS] [--read PATH]… -- LIBRARY`: serve one bot library
//!   ([`ServeArgs`]);
//! - `othello-runner exec [SANDBOX OPTIONS] [--read PATH]… [--end-fd N] -- PROGRAM [ARGS…]`: start
//!   a program, an NBoard engine, in the same sandbox ([`ExecArgs`]);
//! - `othello-runner --sandbox-report`: try every layer and print one line per layer.
//!
//! The sandbox options ([`SandboxArgs`]) are those of both: `--memory-mb N --sandbox MODE
//! [--scratch DIR] [--scratch-mb N] [--cgroup vN] [--freezer DIR]`.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::Mode;

/// What the host set up around a runner and asks of it: the options a bot's runner and an
/// engine's share.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct SandboxArgs {
    /// Memory limit per process in MiB (0: none); the cgroup, if any, limits the whole tree.
    #[arg(long = "memory-mb", value_name = "MB", default_value_t = 0)]
    pub memory_limit_mb: u64,
    /// How much isolation: auto, strict or off.
    #[arg(long, value_name = "MODE", default_value = "off", value_parser = Mode::parse)]
    pub sandbox: Mode,
    /// The private folder the host made: the only place a sandboxed process may write.
    #[arg(long, value_name = "DIR")]
    pub scratch: Option<PathBuf>,
    /// Bound of the scratch folder in MiB: a private tmpfs of that size is mounted on it (0: a
    /// plain folder of the host's disk, unbounded).
    #[arg(long, value_name = "MB", default_value_t = 0)]
    pub scratch_mb: u64,
    /// The cgroup version (1 or 2) whose limits the host placed the runner under, if it did.
    #[arg(long, value_name = "vN", value_parser = parse_cgroup_version)]
    pub cgroup: Option<u8>,
    /// The freezer cgroup the host made for the jailed processes, if it did.
    #[arg(long, value_name = "DIR")]
    pub freezer: Option<PathBuf>,
}

impl SandboxArgs {
    /// No sandbox: only the memory limit (what a runner started without options gets).
    pub fn off(memory_limit_mb: u64) -> SandboxArgs {
        SandboxArgs { memory_limit_mb, sandbox: Mode::Off, scratch: None, scratch_mb: 0, cgroup: None, freezer: None }
    }

    /// `--memory-mb N --sandbox MODE [--scratch DIR] [--cgroup vN] [--freezer DIR]`.
    pub fn to_args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec![
            "--memory-mb".into(),
            self.memory_limit_mb.to_string().into(),
            "--sandbox".into(),
            self.sandbox.as_str().into(),
        ];
        if let Some(scratch) = &self.scratch {
            args.extend(["--scratch".into(), scratch.into()]);
        }
        if self.scratch_mb > 0 {
            args.extend(["--scratch-mb".into(), self.scratch_mb.to_string().into()]);
        }
        if let Some(version) = self.cgroup {
            args.extend(["--cgroup".into(), format!("v{version}").into()]);
        }
        if let Some(freezer) = &self.freezer {
            args.extend(["--freezer".into(), freezer.into()]);
        }
        args
    }
}

fn parse_cgroup_version(text: &str) -> Result<u8, String> {
    match text {
        "v1" => Ok(1),
        "v2" => Ok(2),
        _ => Err(format!("the cgroup version is v1 or v2, not {text:?}")),
    }
}

/// A bot's runner: serve one library.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub sandbox: SandboxArgs,
    /// A folder (or file) the bot may read besides its own library and the system's libraries
    /// (repeatable): the user's explicit grant (`othello --read DIR`), for a bot that embeds an
    /// interpreter or reads its data from a folder of its own.
    #[arg(long, value_name = "PATH")]
    pub read: Vec<PathBuf>,
    /// A WebAssembly bot's (`.wasm`) start and every call but its moves run on this many
    /// milliseconds of fuel (the host's load timeout; 0: the runner's default).
    #[arg(long = "wasm-load-ms", value_name = "MS", default_value_t = 0)]
    pub wasm_load_ms: u64,
    /// Where a WebAssembly bot's random numbers start from (the host's `OTHELLO_SEED`).
    #[arg(long = "wasm-seed", value_name = "N", default_value_t = 0)]
    pub wasm_seed: u64,
    /// A WebAssembly bot's code as the host compiled it (its cache's file, which the runner
    /// loads instead of compiling the module again; it must also be given with `--read`).
    #[arg(long = "wasm-compiled", value_name = "PATH")]
    pub wasm_compiled: Option<PathBuf>,
    /// The bot library (or WebAssembly module) to load.
    #[arg(value_name = "LIBRARY")]
    pub library: PathBuf,
}

/// `exec`: a program (an NBoard engine) started in the sandbox, its standard streams passed
/// through.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct ExecArgs {
    #[command(flatten)]
    pub sandbox: SandboxArgs,
    /// A folder (or file) the program may read and run besides the system's (repeatable).
    #[arg(long, value_name = "PATH")]
    pub read: Vec<PathBuf>,
    /// The descriptor whose hang-up tells the keeper to end the jail (default: the host's death).
    #[arg(long, value_name = "N")]
    pub end_fd: Option<i32>,
    /// The program and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "PROGRAM")]
    pub command: Vec<OsString>,
}

impl ExecArgs {
    /// The program to run (what `--` is followed by).
    pub fn program(&self) -> &OsString {
        &self.command[0]
    }

    /// The program's own arguments.
    pub fn program_args(&self) -> &[OsString] {
        &self.command[1..]
    }
}

/// Everything a runner can be started to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunnerArgs {
    /// Serve a bot library.
    Serve(ServeArgs),
    /// Start a program in the sandbox.
    Exec(ExecArgs),
    /// Try every layer and print the report.
    SandboxReport,
}

/// The name the runner's usage and errors go by.
const RUNNER_NAME: &str = "othello-runner";

/// The runner's command line as clap reads it.
#[derive(Debug, Parser)]
#[command(
    name = RUNNER_NAME,
    bin_name = RUNNER_NAME,
    about = "Serves one bot library to the arena that started it, or starts a program in the sandbox",
    no_binary_name = true,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    disable_help_subcommand = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Try every sandbox layer (no bot) and print one line per layer: NAME, active|missing, DETAIL.
    #[arg(long, exclusive = true)]
    sandbox_report: bool,
    #[command(flatten)]
    sandbox: SandboxArgs,
    /// A folder (or file) the bot may read besides its own library (repeatable).
    #[arg(long, value_name = "PATH")]
    read: Vec<PathBuf>,
    /// A WebAssembly bot's fuel for its start and every call but its moves, in milliseconds.
    #[arg(long = "wasm-load-ms", value_name = "MS", default_value_t = 0)]
    wasm_load_ms: u64,
    /// Where a WebAssembly bot's random numbers start from.
    #[arg(long = "wasm-seed", value_name = "N", default_value_t = 0)]
    wasm_seed: u64,
    /// A WebAssembly bot's code as the host compiled it.
    #[arg(long = "wasm-compiled", value_name = "PATH")]
    wasm_compiled: Option<PathBuf>,
    /// The bot library (or WebAssembly module) to load.
    #[arg(value_name = "LIBRARY", required_unless_present = "sandbox_report")]
    library: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Start a program (an NBoard engine) in the sandbox: exec [OPTIONS] -- PROGRAM [ARGS]...
    Exec(ExecArgs),
}

impl RunnerArgs {
    /// The subcommand of [`RunnerArgs::Exec`].
    pub const EXEC: &str = "exec";
    /// The flag of [`RunnerArgs::SandboxReport`].
    pub const SANDBOX_REPORT: &str = "--sandbox-report";

    /// The runner's arguments (after the program and its leading arguments).
    pub fn to_args(&self) -> Vec<OsString> {
        match self {
            RunnerArgs::Serve(serve) => {
                let mut args = serve.sandbox.to_args();
                for path in &serve.read {
                    args.extend(["--read".into(), path.into()]);
                }
                if serve.wasm_load_ms > 0 {
                    args.extend(["--wasm-load-ms".into(), serve.wasm_load_ms.to_string().into()]);
                }
                if serve.wasm_seed > 0 {
                    args.extend(["--wasm-seed".into(), serve.wasm_seed.to_string().into()]);
                }
                if let Some(compiled) = &serve.wasm_compiled {
                    args.extend(["--wasm-compiled".into(), compiled.into()]);
                }
                // After `--`: a library whose name starts with `-` (or is `exec`) stays a library.
                args.extend(["--".into(), serve.library.clone().into()]);
                args
            }
            RunnerArgs::Exec(exec) => {
                let mut args: Vec<OsString> = vec![Self::EXEC.into()];
                args.extend(exec.sandbox.to_args());
                for path in &exec.read {
                    args.extend(["--read".into(), path.into()]);
                }
                if let Some(fd) = exec.end_fd {
                    args.extend(["--end-fd".into(), fd.to_string().into()]);
                }
                args.push("--".into());
                args.extend(exec.command.iter().cloned());
                args
            }
            RunnerArgs::SandboxReport => vec![Self::SANDBOX_REPORT.into()],
        }
    }

    /// Reads the runner's arguments (program name not included). The error, when printed, says
    /// what is wrong and shows the usage.
    pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<RunnerArgs, clap::Error> {
        let cli = Cli::try_parse_from(args)?;
        Ok(match cli {
            Cli { command: Some(Command::Exec(exec)), .. } => RunnerArgs::Exec(exec),
            Cli { sandbox_report: true, .. } => RunnerArgs::SandboxReport,
            Cli { library: Some(library), sandbox, read, wasm_load_ms, wasm_seed, wasm_compiled, .. } => {
                RunnerArgs::Serve(ServeArgs { sandbox, read, wasm_load_ms, wasm_seed, wasm_compiled, library })
            }
            Cli { library: None, .. } => {
                return Err(clap::Error::raw(clap::error::ErrorKind::MissingRequiredArgument, "no LIBRARY given\n"));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<RunnerArgs, String> {
        RunnerArgs::parse(args.iter().map(OsString::from)).map_err(|e| e.to_string())
    }

    fn full_sandbox() -> SandboxArgs {
        SandboxArgs {
            memory_limit_mb: 64,
            sandbox: Mode::Strict,
            scratch: Some(PathBuf::from("/tmp/othello-scratch-1-0")),
            scratch_mb: 64,
            cgroup: Some(2),
            freezer: Some(PathBuf::from("/sys/fs/cgroup/othello-runner-1-0/bot")),
        }
    }

    #[test]
    fn what_the_host_writes_the_runner_reads_back() {
        let cases = [
            RunnerArgs::Serve(ServeArgs {
                sandbox: full_sandbox(),
                read: vec![PathBuf::from("/opt/bot data")],
                wasm_load_ms: 0,
                wasm_seed: 0,
                wasm_compiled: None,
                library: PathBuf::from("/bots/libx.so"),
            }),
            RunnerArgs::Serve(ServeArgs {
                sandbox: full_sandbox(),
                read: Vec::new(),
                wasm_load_ms: 5000,
                wasm_seed: 42,
                wasm_compiled: Some(PathBuf::from("/home/u/.cache/othello/wasm/ab12-34.cwasm")),
                library: PathBuf::from("/bots/searcher.wasm"),
            }),
            RunnerArgs::Serve(ServeArgs {
                sandbox: SandboxArgs::off(0),
                read: Vec::new(),
                wasm_load_ms: 0,
                wasm_seed: 0,
                wasm_compiled: None,
                library: PathBuf::from("-odd name.so"),
            }),
            RunnerArgs::Serve(ServeArgs {
                sandbox: SandboxArgs::off(8),
                read: Vec::new(),
                wasm_load_ms: 0,
                wasm_seed: 0,
                wasm_compiled: None,
                library: PathBuf::from("exec"),
            }),
            RunnerArgs::Exec(ExecArgs {
                sandbox: full_sandbox(),
                read: vec![PathBuf::from("/opt/edax"), PathBuf::from("/home/u/engine")],
                end_fd: Some(5),
                command: ["edax", "-q", "--read", "--", "x"].map(OsString::from).to_vec(),
            }),
            RunnerArgs::Exec(ExecArgs {
                sandbox: SandboxArgs { cgroup: Some(1), ..SandboxArgs::off(0) },
                read: Vec::new(),
                end_fd: None,
                command: vec![OsString::from("engine")],
            }),
            RunnerArgs::SandboxReport,
        ];
        for args in cases {
            assert_eq!(RunnerArgs::parse(args.to_args()).map_err(|e| e.to_string()), Ok(args.clone()), "{args:?}");
        }
    }

    #[test]
    fn reads_what_people_type_in_any_order() {
        let Ok(RunnerArgs::Serve(serve)) = parse(&["libx.so", "--memory-mb", "8", "--sandbox", "auto"]) else {
            panic!("not a runner")
        };
        assert_eq!((serve.library, serve.sandbox.memory_limit_mb), (PathBuf::from("libx.so"), 8));
        assert_eq!(serve.sandbox.sandbox, Mode::Auto);
        let Ok(RunnerArgs::Serve(plain)) = parse(&["libx.so"]) else { panic!("not a runner") };
        assert_eq!(plain.sandbox, SandboxArgs::off(0), "no options: no sandbox, no limit");
        let Ok(RunnerArgs::Exec(exec)) = parse(&["exec", "--sandbox", "strict", "--", "edax", "-q"]) else {
            panic!("not exec")
        };
        assert_eq!((exec.program(), exec.program_args()), (&OsString::from("edax"), &[OsString::from("-q")][..]));
    }

    #[test]
    fn rejects_bad_arguments_saying_what_is_wrong() {
        let error = |args: &[&str]| parse(args).expect_err(&format!("{args:?} was accepted"));
        assert!(error(&[]).contains("LIBRARY"), "{}", error(&[]));
        assert!(error(&["--memory-mb"]).contains("--memory-mb"));
        assert!(error(&["--memory-mb", "lots", "libx.so"]).contains("lots"));
        assert!(error(&["--sandbox", "maybe", "x.so"]).contains("auto, strict or off"));
        assert!(error(&["--cgroup", "v3", "x.so"]).contains("v1 or v2"));
        assert!(error(&["a.so", "b.so"]).contains("b.so"));
        assert!(error(&["--sandbox-report", "x.so"]).contains("--sandbox-report"));
        assert!(error(&["exec", "--sandbox", "auto"]).contains("PROGRAM"));
        assert!(error(&["exec", "--"]).contains("PROGRAM"));
        assert!(error(&["exec", "--end-fd", "x", "--", "e"]).contains("--end-fd"));
        assert!(error(&["exec", "edax"]).contains("edax"));
        assert!(error(&["--no-such-option", "x.so"]).contains("--no-such-option"));
    }
}
