//! A cgroup per runner, created by the host before the runner starts and removed after it ended:
//! memory and process limits over the bot's whole process tree (shared memory and children
//! included). cgroup v2 is used when its hierarchy has the controllers, else v1
//! (`/sys/fs/cgroup/memory`, `/sys/fs/cgroup/pids`); where neither can be written (no root, no
//! delegation), runners go without, and [`availability`] says why.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Memory the runner itself and the loaded libraries may use on top of the bot's limit (the
/// per-process data limit hits first for plain allocations; the cgroup catches what it misses).
const MEMORY_SLACK: u64 = 64 * 1024 * 1024;
/// Processes and threads of one runner's tree (the runner's own keeper and init included).
const MAX_PIDS: u64 = 300;
/// How long the processes of an ended runner may take to die before the cgroup is removed.
const REMOVE_WAIT: Duration = Duration::from_secs(2);
const V1_ROOT: &str = "/sys/fs/cgroup";
const V2_ROOT: &str = "/sys/fs/cgroup";
const V2_UNIFIED: &str = "/sys/fs/cgroup/unified";

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// The cgroup of one runner: one folder per controller (v1) or one folder (v2).
#[derive(Debug)]
pub(crate) struct RunnerCgroup {
    folders: Vec<PathBuf>,
    /// The freezer cgroup (v1) of the bot's processes (the runner's keeper moves them in).
    freezer: Option<PathBuf>,
    version: u8,
    /// `cgroup.procs` of each folder, for the child to join itself before exec.
    join: Vec<CString>,
}

/// Which cgroup version this machine offers to runners, or why none.
pub fn availability() -> Result<String, String> {
    let probe = RunnerCgroup::create(1)?;
    Ok(format!("cgroup v{}: memory and process limits over each runner's whole process tree", probe.version))
}

/// Whether the bots of idle seats can be frozen here (a v1 freezer hierarchy), or why not.
pub fn freezer_availability() -> Result<String, String> {
    let probe = RunnerCgroup::create(1)?;
    match probe.freezer() {
        Some(_) => Ok("cgroup v1 freezer: a seat's processes are frozen while the opponent is on move".to_owned()),
        None => Err(format!(
            "no writable cgroup v1 freezer hierarchy (the cgroup v{} freezer is not supported yet)",
            probe.version
        )),
    }
}

/// This process's cgroup path for `controller` (v1) or the unified one (`""`), from /proc.
fn own_path(controller: &str) -> Option<String> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let matches = if controller.is_empty() {
            controllers.is_empty()
        } else {
            controllers.split(',').any(|c| c == controller)
        };
        matches.then(|| path.to_owned())
    })
}

impl RunnerCgroup {
    /// Creates the cgroup(s) with the limits (`memory_limit_mb` 0: processes only).
    pub(crate) fn create(memory_limit_mb: u64) -> Result<RunnerCgroup, String> {
        let name = format!("othello-runner-{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
        let memory = (memory_limit_mb > 0).then(|| memory_limit_mb.saturating_mul(1024 * 1024) + MEMORY_SLACK);
        match RunnerCgroup::create_v2(&name, memory) {
            Ok(cgroup) => Ok(cgroup),
            Err(v2) => RunnerCgroup::create_v1(&name, memory).map_err(|v1| format!("{v2}; {v1}")),
        }
    }

    fn create_v2(name: &str, memory: Option<u64>) -> Result<RunnerCgroup, String> {
        for root in [V2_ROOT, V2_UNIFIED] {
            let Some(own) = own_path("") else { continue };
            let parent = Path::new(root).join(own.trim_start_matches('/'));
            let controllers = std::fs::read_to_string(parent.join("cgroup.subtree_control")).unwrap_or_default();
            if controllers.split_whitespace().any(|c| c == "memory")
                && controllers.split_whitespace().any(|c| c == "pids")
            {
                let folder = parent.join(name);
                let mut cgroup = RunnerCgroup { folders: Vec::new(), freezer: None, version: 2, join: Vec::new() };
                cgroup.add(folder.clone())?;
                if let Some(bytes) = memory {
                    write(&folder.join("memory.max"), &bytes.to_string())?;
                    let _ = write(&folder.join("memory.swap.max"), "0");
                }
                write(&folder.join("pids.max"), &MAX_PIDS.to_string())?;
                return Ok(cgroup);
            }
        }
        Err("cgroup v2: no hierarchy here delegates the memory and pids controllers".to_owned())
    }

    fn create_v1(name: &str, memory: Option<u64>) -> Result<RunnerCgroup, String> {
        let mut cgroup = RunnerCgroup { folders: Vec::new(), freezer: None, version: 1, join: Vec::new() };
        for controller in ["memory", "pids"] {
            let own = own_path(controller).ok_or_else(|| format!("cgroup v1: no {controller} controller"))?;
            let folder = Path::new(V1_ROOT).join(controller).join(own.trim_start_matches('/')).join(name);
            cgroup.add(folder.clone())?;
            if controller == "memory" {
                if let Some(bytes) = memory {
                    write(&folder.join("memory.limit_in_bytes"), &bytes.to_string())?;
                    let _ = write(&folder.join("memory.memsw.limit_in_bytes"), &bytes.to_string());
                }
            } else {
                write(&folder.join("pids.max"), &MAX_PIDS.to_string())?;
            }
        }
        // The freezer is optional (the runner reports it missing): not joined before exec, as
        // the keeper must stay outside it; it moves the bot's processes in itself.
        if let Some(own) = own_path("freezer") {
            let folder = Path::new(V1_ROOT).join("freezer").join(own.trim_start_matches('/')).join(name);
            sweep_once(folder.parent().unwrap_or(&folder));
            if std::fs::create_dir(&folder).is_ok() {
                cgroup.freezer = Some(folder.clone());
                // SAFETY: geteuid has no preconditions.
                if unsafe { libc::geteuid() } == 0 {
                    let id = othello_runner::sandbox::UNPRIVILEGED_ID;
                    for file in ["cgroup.procs", "freezer.state"] {
                        let _ = std::os::unix::fs::chown(folder.join(file), Some(id), Some(id));
                    }
                }
            }
        }
        Ok(cgroup)
    }

    /// The freezer folder to give the runner (`--freezer`).
    pub(crate) fn freezer(&self) -> Option<&Path> {
        self.freezer.as_deref()
    }

    /// Freezes or thaws the bot's processes (the keeper is outside the freezer). Returns at once;
    /// a freeze completes as the processes reach a safe point.
    pub(crate) fn set_frozen(&self, frozen: bool) {
        if let Some(folder) = &self.freezer {
            let _ = std::fs::write(folder.join("freezer.state"), if frozen { "FROZEN" } else { "THAWED" });
        }
    }

    fn add(&mut self, folder: PathBuf) -> Result<(), String> {
        if let Some(parent) = folder.parent() {
            sweep_once(parent);
        }
        std::fs::create_dir(&folder)
            .map_err(|e| format!("cgroup v{}: cannot create {}: {e}", self.version, folder.display()))?;
        self.folders.push(folder.clone());
        let procs = CString::new(folder.join("cgroup.procs").into_os_string().into_encoded_bytes())
            .map_err(|_| "a cgroup path with a NUL byte".to_owned())?;
        self.join.push(procs);
        Ok(())
    }

    pub(crate) fn version(&self) -> u8 {
        self.version
    }

    /// What moves the calling process into the cgroup, for `pre_exec`.
    pub(crate) fn joiner(&self) -> impl Fn() -> std::io::Result<()> + Send + Sync + 'static {
        let join = self.join.clone();
        move || join_self(&join)
    }

    /// Whether the memory limit was hit (the kernel refused or reclaimed memory, or killed).
    pub(crate) fn hit_memory_limit(&self) -> bool {
        let read = |file: &str| {
            self.folders.iter().find_map(|folder| std::fs::read_to_string(folder.join(file)).ok()).unwrap_or_default()
        };
        if self.version == 1 {
            // `oom_kill N` (Linux 4.13+) counts only kills; the failure count also counts page
            // cache reclaimed at the limit, so it is the fallback only.
            let control = read("memory.oom_control");
            match control.lines().find_map(|l| l.strip_prefix("oom_kill ")) {
                Some(kills) => kills.trim().parse::<u64>().is_ok_and(|n| n > 0),
                None => read("memory.failcnt").trim().parse::<u64>().is_ok_and(|n| n > 0),
            }
        } else {
            read("memory.events").lines().any(|l| {
                let mut f = l.split_whitespace();
                matches!(f.next(), Some("oom" | "oom_kill")) && f.next().is_some_and(|n| n != "0")
            })
        }
    }

    /// Every process still in the cgroup.
    fn members(&self) -> Vec<libc::pid_t> {
        self.folders
            .iter()
            .chain(self.freezer.as_ref())
            .filter_map(|folder| std::fs::read_to_string(folder.join("cgroup.procs")).ok())
            .flat_map(|text| text.lines().filter_map(|l| l.trim().parse().ok()).collect::<Vec<_>>())
            .collect()
    }
}

impl Drop for RunnerCgroup {
    /// Kills whatever is left in it and removes it (the runner itself was killed and reaped).
    fn drop(&mut self) {
        let deadline = Instant::now() + REMOVE_WAIT;
        // Frozen processes do not die (v1): thaw first.
        self.set_frozen(false);
        let freezer = self.freezer.take();
        for folder in self.folders.iter().rev().chain(freezer.as_ref()) {
            loop {
                if std::fs::remove_dir(folder).is_ok() || !folder.exists() {
                    break;
                }
                for pid in self.members() {
                    // SAFETY: kill has no memory preconditions; the pids are read from this
                    // runner's own cgroup, which only its processes can be in.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
                if Instant::now() > deadline {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}

/// Moves the calling process into every folder's `cgroup.procs`. Called in the child between
/// fork and exec: only async-signal-safe calls (open, write, close) on paths prepared beforehand.
fn join_self(join: &[CString]) -> std::io::Result<()> {
    for procs in join {
        // SAFETY: open/write/close on a valid C string and a local buffer; all three are
        // async-signal-safe, as code between fork and exec must be.
        unsafe {
            let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            let written = libc::write(fd, b"0".as_ptr().cast(), 1);
            libc::close(fd);
            if written != 1 {
                return Err(std::io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

/// Removes, once per folder and host process, the empty cgroups left by killed hosts.
fn sweep_once(parent: &Path) {
    static SWEPT: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let mut swept = SWEPT.lock().unwrap_or_else(|p| p.into_inner());
    if !swept.iter().any(|p| p == parent) {
        swept.push(parent.to_path_buf());
        super::sandbox::sweep_stale(parent, "othello-runner-", |p| std::fs::remove_dir(p));
    }
}

fn write(path: &Path, value: &str) -> Result<(), String> {
    std::fs::write(path, value).map_err(|e| format!("cannot write {value} to {}: {e}", path.display()))
}
