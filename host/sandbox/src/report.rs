//! The layer report: each layer of the sandbox, in force or missing and why. The runner fills
//! it as it applies the layers (and prints it for `--sandbox-report`); the host completes it with
//! the layers it makes itself (cgroup, freezer, Job Object) for `othello list`, the app's Plugins
//! panel and `--sandbox strict`.

use std::ffi::OsString;
use std::fmt;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::Mode;

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
    /// System V IPC and POSIX message queues of its own.
    pub const IPC_NAMESPACE: &str = "ipc-namespace";
    /// An empty root with only what the bot needs bound in (see `minimal_root`).
    pub const MINIMAL_ROOT: &str = "minimal-root";
    pub const PID_NAMESPACE: &str = "pid-namespace";
    /// The host gives each runner's tree a share of the CPUs (`--threads`).
    pub const CPU_SHARE: &str = "cpu-share";
    /// The scratch folder is a private tmpfs of a bounded size.
    pub const BOUNDED_SCRATCH: &str = "bounded-scratch";
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
    /// The host starts the runner with a minimal environment, none of its own secrets.
    pub const CLEAN_ENVIRONMENT: &str = "clean-environment";
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

/// Tries every layer of the sandbox in a runner started as `program leading_args…` (without a
/// bot) and says which are active on this machine and why any is missing.
pub fn host_report(program: &Path, leading_args: &[OsString]) -> Result<Vec<Layer>, String> {
    let runner = CommandLine(program, leading_args);
    let output = Command::new(program)
        .args(leading_args)
        .args(crate::RunnerArgs::SandboxReport.to_args())
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start the bot runner `{runner}`: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "the bot runner `{runner}` could not try the sandbox ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let layers: Vec<Layer> = String::from_utf8_lossy(&output.stdout).lines().filter_map(Layer::from_line).collect();
    if layers.is_empty() {
        return Err(format!("the bot runner `{runner}` reported no sandbox layer"));
    }
    // The cgroup and the environment are the host's to make: the runner alone cannot know.
    let mut layers = layers;
    let environment = if cfg!(unix) {
        Ok(crate::environment::describe())
    } else {
        Err("not on Windows: the bot inherits the host's environment".to_owned())
    };
    layers.push(Layer { name: layer::CLEAN_ENVIRONMENT.to_owned(), state: environment });
    #[cfg(target_os = "linux")]
    let cpu_share = crate::cgroup::cpu_share_availability();
    #[cfg(not(target_os = "linux"))]
    let cpu_share = Err(format!("not on {}: a bot's threads may take every CPU", std::env::consts::OS));
    layers.push(Layer { name: layer::CPU_SHARE.to_owned(), state: cpu_share });
    #[cfg(target_os = "linux")]
    for layer in &mut layers {
        use crate::layer::{CGROUP, FREEZER};
        if layer.name == CGROUP {
            layer.state = crate::cgroup::availability();
        } else if layer.name == FREEZER {
            // Without a freezer cgroup, the runner's own fallback (its init stops its PID
            // namespace) is what there is, if it has one.
            layer.state = match (crate::cgroup::freezer_availability(), &layer.state) {
                (Ok(cgroup), _) => Ok(cgroup),
                (Err(_), Ok(fallback)) => Ok(fallback.clone()),
                (Err(why), Err(_)) => Err(why),
            };
        }
    }
    #[cfg(windows)]
    for layer in &mut layers {
        if layer.name == crate::layer::JOB_OBJECT {
            layer.state = crate::job::availability(crate::DEFAULT_MEMORY_LIMIT_MB);
        }
    }
    Ok(layers)
}

/// With `--sandbox strict`: an error naming the first layer this machine lacks.
pub fn require_every_layer(program: &Path, leading_args: &[OsString]) -> Result<(), String> {
    match host_report(program, leading_args)?.into_iter().find(|layer| !layer.is_active()) {
        None => Ok(()),
        Some(layer) => Err(format!(
            "--sandbox strict: the sandbox layer `{}` is missing on this machine ({}); use --sandbox auto to \
             run without it",
            layer.name,
            layer.state.err().unwrap_or_default()
        )),
    }
}

/// What an engine that failed to start in the sandbox says on stderr when the sandbox blocked a
/// file it needs (`…: PATH: Permission denied`, as shells and interpreters print it): the error
/// naming the sandbox, the path and the fix, or `None` when nothing on stderr says so.
pub fn diagnose_blocked(stderr: &[String]) -> Option<String> {
    let (line, path) = stderr.iter().find_map(|line| {
        let path_before = |marker: &str| {
            let before = line.find(marker)?;
            line[..before].split([' ', ':', '\'', '"']).rfind(|word| word.starts_with('/') || word.starts_with('~'))
        };
        let blocked = path_before("Permission denied").or_else(|| path_before("Operation not permitted"));
        // Outside the engine's minimal root a path of the host's is missing, not forbidden.
        let missing = || path_before("No such file").filter(|path| Path::new(path).exists());
        Some((line.trim(), blocked.or_else(missing)?))
    })?;
    let folder = Path::new(path).parent().filter(|f| f != &Path::new("/")).unwrap_or(Path::new(path));
    Some(format!(
        "the sandbox blocked {path} (\"{line}\"): let the engine read it with `--read {}`, or run this \
         trusted engine with `--sandbox off`",
        folder.display()
    ))
}

/// A runner's command line, as messages show it.
struct CommandLine<'a>(&'a Path, &'a [OsString]);

impl fmt::Display for CommandLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.display())?;
        for arg in self.1 {
            write!(f, " {}", arg.to_string_lossy())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blocked_path_on_stderr_is_named_with_the_fix() {
        let pyenv = ["/root/.pyenv/shims/python3: line 12: /root/.pyenv/libexec/pyenv: Permission denied".to_owned()];
        let why = diagnose_blocked(&pyenv).unwrap();
        assert!(why.starts_with("the sandbox blocked /root/.pyenv/libexec/pyenv"), "{why}");
        assert!(why.contains("--read /root/.pyenv/libexec") && why.contains("--sandbox off"), "{why}");
        let dash = ["sh: 0: cannot open /home/u/engine.sh: Permission denied".to_owned()];
        assert!(diagnose_blocked(&dash).unwrap().starts_with("the sandbox blocked /home/u/engine.sh"));
        assert_eq!(diagnose_blocked(&["segmentation fault".to_owned()]), None);
        // Missing in the minimal root, there on the host.
        let host_file = std::env::current_exe().unwrap();
        let missing = [format!("sh: 0: cannot open {}: No such file", host_file.display())];
        assert!(
            diagnose_blocked(&missing).unwrap().starts_with(&format!("the sandbox blocked {}", host_file.display()))
        );
        assert_eq!(diagnose_blocked(&["sh: 0: cannot open /no/such/engine.sh: No such file".to_owned()]), None);
    }
}
