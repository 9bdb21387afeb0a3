//! The runner's sandbox (Linux): the layers a runner puts between a bot and the rest of the
//! machine before the bot's library is loaded. Each layer is tried at run time and reported
//! (active, or missing and why); in `auto` mode a missing layer is skipped, in `strict` mode
//! the runner refuses to load the bot.
//!
//! The runner process started by the host (the *keeper*) drops root for an unprivileged user,
//! enters new user, network, mount and PID namespaces and forks the *jailed* process, which
//! is PID 1 of the new PID namespace. The keeper only waits for it and ends the way it ended
//! (same exit code or signal), so the host sees one process as before. When the jailed process
//! ends, the kernel kills everything else in its PID namespace, so nothing a bot started
//! outlives its runner. The jailed process then locks itself down (no capabilities,
//! no-new-privs, Landlock, seccomp, resource limits, only the channel descriptors open) and
//! loads the bot.
//!
//! The layers are applied in the private `linux` module; elsewhere only the types exist.

use std::fmt;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub use linux::{CONTINUE_VALUE, Confinement, STOP_VALUE, UNPRIVILEGED_ID, enter, lock_down, stop_signal};

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

/// One layer of the sandbox and whether it is in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    pub name: String,
    /// `Ok(what it does here)` when active, `Err(why it is missing)`.
    pub state: Result<String, String>,
}

impl Layer {
    pub fn is_active(&self) -> bool {
        self.state.is_ok()
    }

    /// One line: `NAME<TAB>active|missing<TAB>DETAIL`, what `--sandbox-report` prints.
    pub fn to_line(&self) -> String {
        let (state, detail) = match &self.state {
            Ok(detail) => ("active", detail),
            Err(why) => ("missing", why),
        };
        format!("{}\t{state}\t{}", self.name, detail.replace(['\t', '\n'], " "))
    }

    pub fn from_line(line: &str) -> Option<Layer> {
        let mut fields = line.splitn(3, '\t');
        let (name, state, detail) = (fields.next()?, fields.next()?, fields.next().unwrap_or(""));
        let state = match state {
            "active" => Ok(detail.to_owned()),
            "missing" => Err(detail.to_owned()),
            _ => return None,
        };
        Some(Layer { name: name.to_owned(), state })
    }
}

/// Names of the layers, in the order they are applied.
pub mod layer {
    pub const UNPRIVILEGED_USER: &str = "unprivileged-user";
    pub const USER_NAMESPACE: &str = "user-namespace";
    pub const NETWORK_NAMESPACE: &str = "network-namespace";
    pub const MOUNT_NAMESPACE: &str = "mount-namespace";
    pub const PID_NAMESPACE: &str = "pid-namespace";
    pub const PRIVATE_PROC: &str = "private-proc";
    pub const PARENT_DEATH_SIGNAL: &str = "parent-death-signal";
    pub const RESOURCE_LIMITS: &str = "resource-limits";
    pub const CLOSED_DESCRIPTORS: &str = "closed-descriptors";
    pub const NO_CAPABILITIES: &str = "no-capabilities";
    pub const NO_NEW_PRIVS: &str = "no-new-privs";
    pub const LANDLOCK: &str = "landlock";
    pub const SECCOMP: &str = "seccomp";
    pub const CGROUP: &str = "cgroup";
    pub const FREEZER: &str = "freezer";
    /// Windows: the host's Job Object around each runner (memory and process limits, UI
    /// restrictions, everything killed with it).
    pub const JOB_OBJECT: &str = "job-object";
    /// Windows: the channel's handles cannot be inherited by the bot's child processes.
    pub const PRIVATE_HANDLES: &str = "private-handles";
    /// Windows: a crash ends the runner at once, without an error dialog waiting for a click.
    pub const NO_ERROR_DIALOGS: &str = "no-error-dialogs";
}

/// The outcome of every layer tried so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub layers: Vec<Layer>,
}

impl Report {
    #[cfg_attr(not(any(target_os = "linux", windows)), allow(dead_code))]
    pub(crate) fn record<E: fmt::Display>(&mut self, name: &str, state: Result<String, E>) -> bool {
        let state = state.map_err(|e| e.to_string());
        let active = state.is_ok();
        self.layers.push(Layer { name: name.to_owned(), state });
        active
    }

    pub fn missing(&self) -> impl Iterator<Item = &Layer> {
        self.layers.iter().filter(|l| !l.is_active())
    }

    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(crate) fn is_active(&self, name: &str) -> bool {
        self.layers.iter().any(|l| l.name == name && l.is_active())
    }

    /// In strict mode, the first missing layer as an error.
    pub fn check_strict(&self, mode: Mode) -> Result<(), String> {
        match self.missing().next() {
            Some(layer) if mode == Mode::Strict => Err(format!(
                "sandbox layer `{}` is missing ({}); --sandbox strict refuses to run bots without it",
                layer.name,
                layer.state.as_ref().err().map_or("", String::as_str)
            )),
            _ => Ok(()),
        }
    }
}

impl Layer {
    /// The one layer reported where the sandbox does not exist.
    pub fn unsupported() -> Layer {
        Layer {
            name: "sandbox".to_owned(),
            state: Err(format!("exists on Linux only, not on {}", std::env::consts::OS)),
        }
    }
}
