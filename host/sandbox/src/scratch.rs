//! The runner's private scratch folder, the only place its bot may write, and the sweep of what
//! killed hosts left behind (scratch folders, cgroups).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A runner's private folder, the only place its bot may write: empty at start, removed with
/// everything in it when dropped (after the runner was reaped).
#[derive(Debug)]
pub struct ScratchDir {
    path: PathBuf,
}

/// Tells apart the scratch folders of one host process.
static SCRATCH_COUNTER: AtomicU64 = AtomicU64::new(0);

impl ScratchDir {
    /// Creates it in the system's temporary folder, readable and writable by the runner's user
    /// only (when the host is root, that is the unprivileged user the runner becomes).
    pub fn create() -> std::io::Result<ScratchDir> {
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
        if nix::unistd::geteuid().is_root() {
            let id = crate::namespaces::UNPRIVILEGED_ID;
            std::os::unix::fs::chown(&scratch.path, Some(id), Some(id))?;
        }
        Ok(scratch)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Removes what hosts that were killed left in `folder`: entries named `PREFIX<PID>-…` whose host
/// process no longer exists.
pub fn sweep_stale(folder: &Path, prefix: &str, remove: impl Fn(&Path) -> std::io::Result<()>) {
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
use crate::job::process_exists;
