//! The host's side of the runner sandbox: which layers this machine offers (for `othello list`,
//! the app's Plugins panel and `--sandbox strict`), and the private scratch folder of a runner.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

pub use othello_runner::sandbox::Layer as SandboxLayer;

use super::runner_command::RunnerCommand;

/// Tries every layer of the sandbox in a runner started by `runner` (without a bot) and says
/// which are active on this machine and why any is missing.
pub fn sandbox_report(runner: &RunnerCommand) -> Result<Vec<SandboxLayer>, String> {
    let output = Command::new(runner.program())
        .args(runner.args())
        .arg("--sandbox-report")
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
    let layers: Vec<SandboxLayer> =
        String::from_utf8_lossy(&output.stdout).lines().filter_map(SandboxLayer::from_line).collect();
    if layers.is_empty() {
        return Err(format!("the bot runner `{runner}` reported no sandbox layer"));
    }
    // The cgroup is the host's to make: the runner alone cannot know.
    #[cfg_attr(not(any(target_os = "linux", windows)), allow(unused_mut))]
    let mut layers = layers;
    #[cfg(target_os = "linux")]
    for layer in &mut layers {
        use othello_runner::sandbox::layer::{CGROUP, FREEZER};
        if layer.name == CGROUP {
            layer.state = super::cgroup::availability();
        } else if layer.name == FREEZER {
            // Without a freezer cgroup, the runner's own fallback (its init stops its PID
            // namespace) is what there is, if it has one.
            layer.state = match (super::cgroup::freezer_availability(), &layer.state) {
                (Ok(cgroup), _) => Ok(cgroup),
                (Err(_), Ok(fallback)) => Ok(fallback.clone()),
                (Err(why), Err(_)) => Err(why),
            };
        }
    }
    #[cfg(windows)]
    for layer in &mut layers {
        if layer.name == othello_runner::sandbox::layer::JOB_OBJECT {
            layer.state = super::isolated::job_availability(super::DEFAULT_MEMORY_LIMIT_MB);
        }
    }
    Ok(layers)
}

/// With `--sandbox strict`: an error naming the first layer this machine lacks.
pub fn require_every_layer(runner: &RunnerCommand) -> Result<(), String> {
    match sandbox_report(runner)?.into_iter().find(|layer| !layer.is_active()) {
        None => Ok(()),
        Some(layer) => Err(format!(
            "--sandbox strict: the sandbox layer `{}` is missing on this machine ({}); use --sandbox auto to \
             run without it",
            layer.name,
            layer.state.err().unwrap_or_default()
        )),
    }
}

/// A runner's private folder, the only place its bot may write: empty at start, removed with
/// everything in it when dropped (after the runner was reaped).
#[derive(Debug)]
pub(crate) struct ScratchDir {
    path: PathBuf,
}

/// Tells apart the scratch folders of one host process.
static SCRATCH_COUNTER: AtomicU64 = AtomicU64::new(0);

impl ScratchDir {
    /// Creates it in the system's temporary folder, readable and writable by the runner's user
    /// only (when the host is root, that is the unprivileged user the runner becomes).
    pub(crate) fn create() -> std::io::Result<ScratchDir> {
        let n = SCRATCH_COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("othello-scratch-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path); // a leftover of a crashed host with the same pid
        static SWEPT: std::sync::Once = std::sync::Once::new();
        SWEPT.call_once(|| sweep_stale(&std::env::temp_dir(), "othello-scratch-", |p| std::fs::remove_dir_all(p)));
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700).create(&path)?;
        #[cfg(not(unix))]
        std::fs::create_dir(&path)?;
        let scratch = ScratchDir { path };
        #[cfg(target_os = "linux")]
        if nix_is_root() {
            let id = othello_runner::sandbox::UNPRIVILEGED_ID;
            std::os::unix::fs::chown(&scratch.path, Some(id), Some(id))?;
        }
        Ok(scratch)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(target_os = "linux")]
fn nix_is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Removes what hosts that were killed left in `folder`: entries named `PREFIX<PID>-…` whose host
/// process no longer exists.
pub(crate) fn sweep_stale(folder: &Path, prefix: &str, remove: impl Fn(&Path) -> std::io::Result<()>) {
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else { continue };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else { continue };
        if !process_exists(pid) {
            let _ = remove(&entry.path());
        }
    }
}

/// Whether a process `pid` exists (a zombie counts).
#[cfg(unix)]
fn process_exists(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

#[cfg(windows)]
use super::isolated::process_exists;
