//! The bot sandbox, both halves, one layer a file (as nsjail splits it):
//!
//! | layer | runner side (applied before the bot loads) | host side (around each runner) |
//! |---|---|---|
//! | namespaces | `namespaces`: `nobody`, user, network, mount, IPC, PID; the scratch folder a private tmpfs | |
//! | minimal root | `minimal_root`: an empty root with read-only binds of what the bot needs | |
//! | process tree and stop | `process_tree`: keeper, init, bot process; `stop`: the init's stop handler | `stop::NamespaceStopper`, `jail`: waiting for the keeper |
//! | resource limits | `limits`: rlimits, closed descriptors | |
//! | lock-down | `lockdown`: capabilities, no-new-privs, Landlock, seccomp | |
//! | cgroups | joining the freezer | `cgroup`: limits, freezer, CPU clock, kill (`idle_freezer`) |
//! | Windows job | `job::runner_report` | `job::Job` around each runner |
//! | scratch folder | the only place it writes | [`scratch`]: made, swept, removed |
//! | clean environment | | [`environment`]: the minimal set and the named variables |
//!
//! [`args`] is the runner's command line as one typed contract: the host writes it
//! ([`args::RunnerArgs::to_args`]), the runner reads it ([`args::RunnerArgs::parse`]).
//! [`report`] is the layer report (`othello-runner --sandbox-report`, `othello list`).
//!
//! The runner process started by the host (the *keeper*) drops root for an unprivileged user,
//! enters new user, network, mount and PID namespaces and forks the *jailed* process tree; the
//! jailed process then locks itself down (no capabilities, no-new-privs, Landlock, seccomp,
//! resource limits, only the channel descriptors open) and loads the bot. Each layer is tried at
//! run time and reported (active, or missing and why); in `auto` mode a missing layer is skipped,
//! in `strict` mode the runner refuses to load the bot.

use std::fmt;

pub mod args;
#[cfg(target_os = "linux")]
mod cgroup;
#[cfg(unix)]
pub mod engine;
pub mod environment;
#[cfg(target_os = "linux")]
mod idle_freezer;
#[cfg(unix)]
pub mod jail;
#[cfg(windows)]
pub mod job;
#[cfg(target_os = "linux")]
mod limits;
#[cfg(target_os = "linux")]
pub mod lockdown;
#[cfg(target_os = "linux")]
pub mod minimal_root;
#[cfg(target_os = "linux")]
pub mod namespaces;
#[cfg(target_os = "linux")]
mod process_tree;
pub mod report;
pub mod scratch;
#[cfg(target_os = "linux")]
pub mod stop;

pub use args::{ExecArgs, RunnerArgs, SandboxArgs, ServeArgs};
#[cfg(target_os = "linux")]
pub use idle_freezer::FREEZE_DELAY;
pub use report::{Layer, Report, diagnose_blocked, host_report, layer, require_every_layer};

/// The memory limit of a seat's bot unless the user sets another, in MiB.
pub const DEFAULT_MEMORY_LIMIT_MB: u64 = 1024;
/// The bound of a sandboxed process's scratch folder unless the user sets another, in MiB.
pub const DEFAULT_SCRATCH_MB: u64 = 64;

/// How much isolation a runner applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Every layer the machine offers; missing ones are skipped (and reported).
    #[default]
    Auto,
    /// Every layer, or the runner refuses to load the bot and names the missing layer.
    Strict,
    /// No sandbox: the plain runner (a separate process with a memory limit).
    Off,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Strict => "strict",
            Mode::Off => "off",
        }
    }

    pub fn parse(text: &str) -> Result<Mode, String> {
        match text {
            "auto" => Ok(Mode::Auto),
            "strict" => Ok(Mode::Strict),
            "off" => Ok(Mode::Off),
            _ => Err(format!("the sandbox mode is auto, strict or off, not {text:?}")),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
