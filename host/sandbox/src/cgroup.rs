//! A cgroup per runner, created by the host before the runner starts and removed after it ended.
//!
//! Three jobs, each done by whichever cgroup version this machine offers for it (detected at run
//! time, reported by [`availability`] and [`freezer_availability`]):
//! - **limits**: memory and process limits over the bot's whole process tree (shared memory and
//!   children included): cgroup v2 when its hierarchy delegates the `memory` and `pids`
//!   controllers, else v1 (`/sys/fs/cgroup/memory`, `/sys/fs/cgroup/pids`);
//! - **freezer**: the bot's processes are frozen while its seat is not on move;
//! - **CPU clock and kill**: the CPU time of the whole tree, and killing all of it at once.
//!
//! The freezer, the CPU clock and the kill need no controller in cgroup v2 (`cgroup.freeze`,
//! `cpu.stat`, `cgroup.kill` are core files), so a writable v2 hierarchy is used for them even
//! when the controllers are on v1 (a hybrid machine: v2 at `/sys/fs/cgroup/unified`). Without
//! one, the v1 `freezer` and `cpuacct` controllers do it. Where nothing can be written (no root,
//! no delegation), runners go without, and the reports say why.
//!
//! The runner's keeper must stay outside the freezer (it acts when the host dies): the runner
//! joins the limits and clock cgroups before it executes, and its keeper moves the jailed
//! processes into the freezer cgroup (in v2, a `bot` child of the runner's cgroup).

use std::ffi::CString;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::idle_freezer::{BATCH, FREEZE_DELAY, Freezable, register};
use std::time::{Duration, Instant};

/// Memory the runner itself and the loaded libraries may use on top of the bot's limit (the
/// per-process data limit hits first for plain allocations; the cgroup catches what it misses).
const MEMORY_SLACK: u64 = 64 * 1024 * 1024;
/// The period of a CPU share's quota (the kernel's default).
const CPU_PERIOD_US: u64 = 100_000;
/// Rounds of moving a tree's processes into its CPU share before giving up on one that keeps
/// starting processes outside it.
const JOIN_ROUNDS: usize = 50;
/// Processes and threads of one runner's tree (the runner's own keeper and init included).
const MAX_PIDS: u64 = 300;
/// How long the processes of an ended runner may take to die before the cgroup is removed.
const REMOVE_WAIT: Duration = Duration::from_secs(2);
/// Where cgroup v1 controllers are mounted, one folder each.
const V1_ROOT: &str = "/sys/fs/cgroup";
/// Where a v2 hierarchy may be mounted: alone (a v2-only machine) or beside v1 (hybrid).
const V2_ROOTS: [&str; 2] = ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"];
/// The v2 child cgroup of a runner that holds the bot's processes (frozen as one).
const V2_BOT_FOLDER: &str = "bot";
/// Prefix of every cgroup a host makes (with its pid, so leftovers of killed hosts are swept).
const NAME_PREFIX: &str = "othello-runner-";

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Which cgroup version does a job; the v2 interface is preferred where both exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    V1,
    V2,
}

impl Version {
    fn number(self) -> u8 {
        match self {
            Version::V1 => 1,
            Version::V2 => 2,
        }
    }
}

/// The freezer of the bot's processes: its control file, kept open (a write per move).
#[derive(Debug)]
struct Freezer {
    folder: PathBuf,
    version: Version,
    control: File,
    state: Mutex<FreezerState>,
}

#[derive(Debug, Default)]
struct FreezerState {
    /// What was last written, so a seat that stays frozen (or thawed) costs nothing.
    frozen: Option<bool>,
    /// Since when the seat is idle and waits for a delayed freeze (`None`: on move, or frozen).
    idle_since: Option<Instant>,
    /// On the idle-freezer thread's list (registered once per idle spell, not per move).
    registered: bool,
}

impl Freezer {
    fn new(folder: PathBuf, version: Version, control: File) -> Arc<Freezer> {
        Arc::new(Freezer { folder, version, control, state: Mutex::new(FreezerState::default()) })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, FreezerState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes the state under the lock (so a thaw and a late freeze never cross).
    fn write(&self, state: &mut FreezerState, frozen: bool) {
        if state.frozen == Some(frozen) {
            return;
        }
        let value: &[u8] = match (self.version, frozen) {
            (Version::V1, true) => b"FROZEN",
            (Version::V1, false) => b"THAWED",
            (Version::V2, true) => b"1",
            (Version::V2, false) => b"0",
        };
        // Unknown after a failed write: the next call writes again.
        let written = self.control.write_at(value, 0).is_ok_and(|n| n == value.len());
        state.frozen = written.then_some(frozen);
    }
}

impl Freezable for Freezer {
    fn look(&self, now: Instant) -> Option<Instant> {
        let mut state = self.state();
        let due = state.idle_since.map(|since| since + FREEZE_DELAY);
        match due {
            Some(due) if due > now + BATCH => return Some(due),
            Some(_) => {
                state.idle_since = None;
                self.write(&mut state, true);
            }
            None => {}
        }
        state.registered = false;
        None
    }
}

/// The CPU time of the runner's whole tree: a counter file, kept open.
#[derive(Debug)]
struct CpuClock {
    version: Version,
    counter: File,
}

/// The CPU share of the runner's tree: a quota of some CPUs per period, and its `cpu.stat`,
/// kept open, which counts the time the tree was throttled.
#[derive(Debug)]
struct CpuShare {
    version: Version,
    stat: File,
}

/// The cgroups of one runner.
#[derive(Debug)]
pub(crate) struct RunnerCgroup {
    /// The folders' name (the same in every hierarchy).
    name: String,
    /// Every folder made, parents before children (removed in reverse).
    folders: Vec<PathBuf>,
    /// The version that holds the memory and process limits, or why there are none (a plain
    /// user on a v2-only desktop may still have the freezer, clock and kill of v2's core files).
    limits: Result<Version, String>,
    /// `cgroup.procs` of each folder the runner joins before exec.
    join: Vec<CString>,
    freezer: Option<Arc<Freezer>>,
    cpu: Option<CpuClock>,
    cpu_share: Option<CpuShare>,
    /// The share's folder, while the tree is not in it yet ([`RunnerCgroup::join_cpu_share`]).
    cpu_share_pending: Option<PathBuf>,
    /// The runner's v2 folder (its `cgroup.kill` ends the whole tree at once).
    v2_folder: Option<PathBuf>,
}

/// Which cgroup version limits each runner's tree here, and what does the freezer and CPU clock.
pub fn availability() -> Result<String, String> {
    let probe = RunnerCgroup::create(1, None)?;
    let version = probe.limits.clone()?;
    let (cpu, kill) = (
        probe
            .cpu
            .as_ref()
            .map_or("no CPU clock".to_owned(), |c| format!("CPU time from cgroup v{}", c.version.number())),
        if probe.v2_folder.is_some() { ", cgroup v2 kill" } else { "" },
    );
    Ok(format!(
        "cgroup v{}: memory and process limits over each runner's whole process tree; {cpu}{kill}",
        version.number()
    ))
}

/// Whether each runner's tree can be given a CPU share here (and by which cgroup version), or why
/// not.
pub fn cpu_share_availability() -> Result<String, String> {
    let mut probe = RunnerCgroup::create(1, None)?;
    let version = probe.limit_cpu(1, false)?;
    Ok(format!(
        "cgroup v{}: each runner's tree gets --threads CPUs (default 1): more threads slow only their own bot",
        version.number()
    ))
}

/// Whether the bots of idle seats can be frozen here (and with which cgroup version), or why not.
pub fn freezer_availability() -> Result<String, String> {
    let probe = RunnerCgroup::create(1, None)?;
    match &probe.freezer {
        Some(freezer) => Ok(format!(
            "cgroup v{} freezer: a seat's processes are frozen while the opponent is on move",
            freezer.version.number()
        )),
        None => Err("no writable freezer: neither a cgroup v2 hierarchy nor a v1 freezer hierarchy can be written \
                     here"
            .to_owned()),
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

/// The folder of this process's own v2 cgroup, where a v2 hierarchy is mounted.
fn v2_parent() -> Option<PathBuf> {
    let own = own_path("")?;
    V2_ROOTS
        .iter()
        .map(Path::new)
        .find(|root| root.join("cgroup.controllers").exists())
        .map(|root| root.join(own.trim_start_matches('/')))
}

impl RunnerCgroup {
    /// Creates the cgroup(s) with the limits (`memory_limit_mb` 0: processes only). `freezer`
    /// forces the freezer's version (tests); `None` prefers v2.
    pub(crate) fn create(memory_limit_mb: u64, freezer: Option<Version>) -> Result<RunnerCgroup, String> {
        RunnerCgroup::create_with(memory_limit_mb, freezer, true)
    }

    /// [`RunnerCgroup::create`]; without `limits`, as where no limits can be written (a plain user
    /// on a v2-only desktop), for the tests.
    fn create_with(memory_limit_mb: u64, freezer: Option<Version>, limits: bool) -> Result<RunnerCgroup, String> {
        let name = format!("{NAME_PREFIX}{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
        let memory = (memory_limit_mb > 0).then(|| memory_limit_mb.saturating_mul(1024 * 1024) + MEMORY_SLACK);
        let mut cgroup = RunnerCgroup {
            name: name.clone(),
            folders: Vec::new(),
            limits: Ok(Version::V2),
            join: Vec::new(),
            freezer: None,
            cpu: None,
            cpu_share: None,
            cpu_share_pending: None,
            v2_folder: None,
        };
        // A failure part-way drops `cgroup`, which removes what was made.
        let limits_v2 = if limits { cgroup.limits_v2(&name, memory) } else { Err("not asked".to_owned()) };
        if let Err(v2) = limits_v2 {
            cgroup.limits = match limits {
                true => cgroup.limits_v1(&name, memory).map(|()| Version::V1).map_err(|v1| format!("{v2}; {v1}")),
                false => Err(v2),
            };
            // The core v2 interface (freezer, clock, kill) needs no controller: used when writable.
            if let (Err(core), Err(limits)) = (cgroup.core_v2(&name), &cgroup.limits) {
                return Err(format!("{limits}; {core}"));
            }
        }
        if freezer != Some(Version::V1) && cgroup.v2_folder.is_some() {
            cgroup.freezer_v2();
        }
        if cgroup.freezer.is_none() && freezer != Some(Version::V2) {
            cgroup.freezer_v1(&name);
        }
        cgroup.cpu_clock(&name);
        Ok(cgroup)
    }

    /// v2 with the `memory` and `pids` controllers delegated: one folder does everything.
    fn limits_v2(&mut self, name: &str, memory: Option<u64>) -> Result<(), String> {
        let parent = v2_parent().ok_or("cgroup v2: no hierarchy mounted")?;
        let controllers = std::fs::read_to_string(parent.join("cgroup.subtree_control")).unwrap_or_default();
        let has = |wanted: &str| controllers.split_whitespace().any(|c| c == wanted);
        if !(has("memory") && has("pids")) {
            return Err("cgroup v2: no hierarchy here delegates the memory and pids controllers".to_owned());
        }
        let folder = parent.join(name);
        self.add(folder.clone(), true)?;
        self.v2_folder = Some(folder.clone());
        if let Some(bytes) = memory {
            write(&folder.join("memory.max"), &bytes.to_string())?;
            let _ = write(&folder.join("memory.swap.max"), "0");
        }
        write(&folder.join("pids.max"), &MAX_PIDS.to_string())
    }

    fn limits_v1(&mut self, name: &str, memory: Option<u64>) -> Result<(), String> {
        for controller in ["memory", "pids"] {
            let own = own_path(controller).ok_or_else(|| format!("cgroup v1: no {controller} controller"))?;
            let folder = Path::new(V1_ROOT).join(controller).join(own.trim_start_matches('/')).join(name);
            self.add(folder.clone(), true)?;
            if controller == "memory" {
                if let Some(bytes) = memory {
                    write(&folder.join("memory.limit_in_bytes"), &bytes.to_string())?;
                    let _ = write(&folder.join("memory.memsw.limit_in_bytes"), &bytes.to_string());
                }
            } else {
                write(&folder.join("pids.max"), &MAX_PIDS.to_string())?;
            }
        }
        Ok(())
    }

    /// A v2 folder without controllers (the runner joins it): freezer, CPU clock and kill.
    fn core_v2(&mut self, name: &str) -> Result<(), String> {
        let folder = v2_parent().ok_or("cgroup v2: no hierarchy mounted")?.join(name);
        self.add(folder.clone(), true)?;
        self.v2_folder = Some(folder);
        Ok(())
    }

    /// v2: the bot's processes go into a `bot` child of the runner's folder.
    fn freezer_v2(&mut self) {
        let Some(runner) = self.v2_folder.clone() else { return };
        let folder = runner.join(V2_BOT_FOLDER);
        if self.add(folder.clone(), false).is_err() {
            return;
        }
        // The keeper (no longer root) moves the init from the runner's folder into this one:
        // v2 asks for write access to both `cgroup.procs` (the common ancestor's too).
        give_to_runner(&[runner.join("cgroup.procs"), folder.join("cgroup.procs"), folder.join("cgroup.freeze")]);
        if let Ok(control) = std::fs::OpenOptions::new().write(true).open(folder.join("cgroup.freeze")) {
            self.freezer = Some(Freezer::new(folder, Version::V2, control));
        }
    }

    /// v1: a folder in the `freezer` hierarchy, not joined before exec.
    fn freezer_v1(&mut self, name: &str) {
        let Some(own) = own_path("freezer") else { return };
        let folder = Path::new(V1_ROOT).join("freezer").join(own.trim_start_matches('/')).join(name);
        if self.add(folder.clone(), false).is_err() {
            return;
        }
        give_to_runner(&[folder.join("cgroup.procs"), folder.join("freezer.state")]);
        if let Ok(control) = std::fs::OpenOptions::new().write(true).open(folder.join("freezer.state")) {
            self.freezer = Some(Freezer::new(folder, Version::V1, control));
        }
    }

    /// A v1 `cpuacct` folder where that controller is mounted, else v2's `cpu.stat` (core, no
    /// controller needed). v1 first: it is read once per move, and its counter is a plain sum of
    /// per-CPU counters, while reading `cpu.stat` first flushes the statistics of the whole
    /// hierarchy under a machine-wide lock (measured: 0.7 against 1.3 µs a read here, and the
    /// flushes of concurrent games contend).
    fn cpu_clock(&mut self, name: &str) {
        if self.cpu_clock_v1(name) {
            return;
        }
        if let Some(folder) = &self.v2_folder
            && let Ok(counter) = File::open(folder.join("cpu.stat"))
        {
            self.cpu = Some(CpuClock { version: Version::V2, counter });
        }
    }

    fn cpu_clock_v1(&mut self, name: &str) -> bool {
        let Some(own) = own_path("cpuacct") else { return false };
        // `cpu,cpuacct` is one hierarchy on many machines, `cpuacct` alone on others.
        let Some(root) = ["cpuacct", "cpu,cpuacct"].iter().map(|c| Path::new(V1_ROOT).join(c)).find(|p| p.exists())
        else {
            return false;
        };
        let folder = root.join(own.trim_start_matches('/')).join(name);
        if self.add(folder.clone(), true).is_err() {
            return false;
        }
        match File::open(folder.join("cpuacct.usage")) {
            Ok(counter) => {
                self.cpu = Some(CpuClock { version: Version::V1, counter });
                true
            }
            Err(_) => false,
        }
    }

    /// Gives the tree a CPU share of `threads` CPUs: a quota of `threads` periods of CPU time per
    /// period, so that threads beyond them slow only this bot, never a bot in another match. In
    /// cgroup v2 where the `cpu` controller is delegated (`cpu.max`), else in v1's `cpu`
    /// hierarchy (`cpu.cfs_quota_us`). Call it before the runner starts (it joins the folder).
    ///
    /// Its cost is the task group, not the quota: the scheduler's wake-ups of the runner go through
    /// one more level (measured with the `throughput` example on a 2-core machine, pinned: the
    /// `think` round trip 3.2 → 3.3 µs idle, → 3.7 µs while other work shares the processor; the
    /// same with the group and no quota), more when other work shares the processor; hence
    /// `on_demand`. Where `cpu` and `cpuacct` share a v1 hierarchy, and in v2 once the `cpu`
    /// controller is delegated, the runner's cgroup is such a task group anyway. Reading
    /// `cpu.stat` costs about half a microsecond: the seats read it only after moves that took
    /// long enough to matter (`Jail::throttled_since_last`).
    ///
    /// `on_demand`: where the share's folder is a folder of its own (v1, `cpu` mounted apart from
    /// `cpuacct`), the runner does not join it before exec: the caller moves the tree in with
    /// [`RunnerCgroup::join_cpu_share`] once it may use more than its share, so that a bot that
    /// answers in microseconds never pays for the task group.
    pub(crate) fn limit_cpu(&mut self, threads: u32, on_demand: bool) -> Result<Version, String> {
        let quota = u64::from(threads.max(1)) * CPU_PERIOD_US;
        let v2 = self.v2_folder.clone().filter(|folder| {
            let parent = folder.parent().map(|p| p.join("cgroup.subtree_control"));
            parent
                .and_then(|control| std::fs::read_to_string(control).ok())
                .is_some_and(|controllers| controllers.split_whitespace().any(|c| c == "cpu"))
        });
        let (version, folder) = match v2 {
            Some(folder) => {
                write(&folder.join("cpu.max"), &format!("{quota} {CPU_PERIOD_US}"))?;
                (Version::V2, folder)
            }
            None => {
                let no_v1 = "no cgroup v2 hierarchy here delegates the cpu controller, and cgroup v1 has no cpu \
                             controller";
                let own = own_path("cpu").ok_or(no_v1)?;
                // `cpu,cpuacct` is one hierarchy on many machines (its folder may exist already).
                let root = ["cpu", "cpu,cpuacct"]
                    .iter()
                    .map(|c| Path::new(V1_ROOT).join(c))
                    .find(|p| p.join("cpu.cfs_quota_us").exists())
                    .ok_or(no_v1)?;
                let folder = root.join(own.trim_start_matches('/')).join(&self.name);
                if !self.folders.contains(&folder) {
                    self.add(folder.clone(), !on_demand)?;
                    if on_demand {
                        self.cpu_share_pending = Some(folder.clone());
                    }
                }
                write(&folder.join("cpu.cfs_period_us"), &CPU_PERIOD_US.to_string())?;
                write(&folder.join("cpu.cfs_quota_us"), &quota.to_string())?;
                (Version::V1, folder)
            }
        };
        let stat = File::open(folder.join("cpu.stat")).map_err(|e| format!("cgroup: cannot open cpu.stat: {e}"))?;
        self.cpu_share = Some(CpuShare { version, stat });
        Ok(version)
    }

    /// Whether the tree is not in its CPU share's folder yet (see [`RunnerCgroup::limit_cpu`]).
    pub(crate) fn cpu_share_pending(&self) -> bool {
        self.cpu_share_pending.is_some()
    }

    /// Moves every process of the tree into its CPU share's folder (nothing once it is there).
    /// Processes started meanwhile by one not moved yet are caught by the next round; an error
    /// when a tree keeps starting processes faster than that.
    pub(crate) fn join_cpu_share(&mut self) -> Result<(), String> {
        let Some(folder) = self.cpu_share_pending.take() else { return Ok(()) };
        let procs = |folder: &Path| -> Vec<libc::pid_t> {
            let text = std::fs::read_to_string(folder.join("cgroup.procs")).unwrap_or_default();
            text.lines().filter_map(|l| l.trim().parse().ok()).collect()
        };
        for _ in 0..JOIN_ROUNDS {
            let inside = procs(&folder);
            let outside: Vec<libc::pid_t> = self
                .folders
                .iter()
                .filter(|f| **f != folder)
                .flat_map(|f| procs(f))
                .filter(|pid| !inside.contains(pid))
                .collect();
            if outside.is_empty() {
                return Ok(());
            }
            for pid in outside {
                // A process that ended meanwhile cannot be moved (and need not be).
                let _ = std::fs::write(folder.join("cgroup.procs"), pid.to_string());
            }
        }
        self.cpu_share_pending = Some(folder);
        Err(format!("the bot kept starting processes outside its CPU share ({JOIN_ROUNDS} rounds)"))
    }

    /// How long the tree was held back by its CPU share so far (`None` without one).
    pub(crate) fn throttled(&self) -> Option<Duration> {
        let share = self.cpu_share.as_ref()?;
        let mut text = [0u8; 512];
        let read = share.stat.read_at(&mut text, 0).ok()?;
        let text = std::str::from_utf8(&text[..read]).ok()?;
        let field =
            |name: &str| text.lines().find_map(|l| l.strip_prefix(name)).and_then(|n| n.trim().parse::<u64>().ok());
        match share.version {
            Version::V1 => field("throttled_time ").map(Duration::from_nanos),
            Version::V2 => field("throttled_usec ").map(Duration::from_micros),
        }
    }

    /// The freezer folder to give the runner (`--freezer`).
    pub(crate) fn freezer(&self) -> Option<&Path> {
        self.freezer.as_ref().map(|f| f.folder.as_path())
    }

    /// Freezes or thaws the bot's processes (the keeper is outside the freezer). Returns at once;
    /// a freeze completes as the processes reach a safe point.
    pub(crate) fn set_frozen(&self, frozen: bool) {
        let Some(freezer) = &self.freezer else { return };
        let mut state = freezer.state();
        state.idle_since = None;
        freezer.write(&mut state, frozen);
    }

    /// Freezes the bot's processes a moment from now ([`FREEZE_DELAY`]), unless they are thawed
    /// before: a seat asked to move again at once is never frozen.
    pub(crate) fn freeze_soon(&self) {
        let Some(freezer) = &self.freezer else { return };
        let mut state = freezer.state();
        if state.frozen == Some(true) {
            return;
        }
        state.idle_since = Some(Instant::now());
        let first = !std::mem::replace(&mut state.registered, true);
        drop(state);
        if first {
            let target: Arc<dyn Freezable> = freezer.clone();
            if !register(Arc::downgrade(&target)) {
                freezer.state().registered = false;
                self.set_frozen(true);
            }
        }
    }

    /// CPU time used so far by the runner's whole tree (`None` without a clock).
    pub(crate) fn cpu_time(&self) -> Option<Duration> {
        let clock = self.cpu.as_ref()?;
        let mut text = [0u8; 512];
        let read = clock.counter.read_at(&mut text, 0).ok()?;
        let text = std::str::from_utf8(&text[..read]).ok()?;
        match clock.version {
            Version::V1 => text.trim().parse().ok().map(Duration::from_nanos),
            Version::V2 => text
                .lines()
                .find_map(|l| l.strip_prefix("usage_usec "))
                .and_then(|us| us.trim().parse().ok())
                .map(Duration::from_micros),
        }
    }

    fn add(&mut self, folder: PathBuf, joined: bool) -> Result<(), String> {
        if let Some(parent) = folder.parent() {
            sweep_once(parent);
        }
        std::fs::create_dir(&folder).map_err(|e| format!("cgroup: cannot create {}: {e}", folder.display()))?;
        self.folders.push(folder.clone());
        if joined {
            let procs = CString::new(folder.join("cgroup.procs").into_os_string().into_encoded_bytes())
                .map_err(|_| "a cgroup path with a NUL byte".to_owned())?;
            self.join.push(procs);
        }
        Ok(())
    }

    /// The cgroup version of the memory and process limits (`None`: the cgroup has none).
    pub(crate) fn limits_version(&self) -> Option<u8> {
        self.limits.as_ref().ok().map(|v| v.number())
    }

    /// Why the cgroup has no memory and process limits (`None` when it has them).
    pub(crate) fn limits_missing(&self) -> Option<&str> {
        self.limits.as_ref().err().map(String::as_str)
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
        let Ok(version) = self.limits else { return false };
        if version == Version::V1 {
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

    /// Kills every process of the tree: at once through v2's `cgroup.kill` (Linux 5.14+, frozen
    /// processes too), else one by one. True when `cgroup.kill` did it.
    pub(crate) fn kill_all(&self) -> bool {
        // Processes frozen by v1 do not die: thaw first (v2's frozen ones do).
        if self.freezer.as_ref().is_some_and(|f| f.version == Version::V1) {
            self.set_frozen(false);
        }
        if let Some(folder) = &self.v2_folder
            && std::fs::write(folder.join("cgroup.kill"), "1").is_ok()
        {
            return true;
        }
        for pid in self.members() {
            // The pids are read from this runner's own cgroup, which only its processes can be in.
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL);
        }
        false
    }

    /// Every process still in the cgroup.
    fn members(&self) -> Vec<libc::pid_t> {
        self.folders
            .iter()
            .filter_map(|folder| std::fs::read_to_string(folder.join("cgroup.procs")).ok())
            .flat_map(|text| text.lines().filter_map(|l| l.trim().parse().ok()).collect::<Vec<_>>())
            .collect()
    }
}

impl Drop for RunnerCgroup {
    /// Kills whatever is left in it and removes it (the runner itself was killed and reaped).
    fn drop(&mut self) {
        let deadline = Instant::now() + REMOVE_WAIT;
        self.set_frozen(false);
        for folder in self.folders.clone().iter().rev() {
            loop {
                if std::fs::remove_dir(folder).is_ok() || !folder.exists() {
                    break;
                }
                self.kill_all();
                if Instant::now() > deadline {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}

/// Root hands the files the runner's keeper writes to the unprivileged user it becomes.
fn give_to_runner(files: &[PathBuf]) {
    if nix::unistd::geteuid().is_root() {
        let id = crate::namespaces::UNPRIVILEGED_ID;
        for file in files {
            let _ = std::os::unix::fs::chown(file, Some(id), Some(id));
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

/// Removes, once per folder and host process, the empty cgroups left by killed hosts (their
/// `bot` children first).
fn sweep_once(parent: &Path) {
    static SWEPT: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let mut swept = SWEPT.lock().unwrap_or_else(|p| p.into_inner());
    if !swept.iter().any(|p| p == parent) {
        swept.push(parent.to_path_buf());
        crate::scratch::sweep_stale(parent, NAME_PREFIX, |p| {
            let _ = std::fs::remove_dir(p.join(V2_BOT_FOLDER));
            std::fs::remove_dir(p)
        });
    }
}

fn write(path: &Path, value: &str) -> Result<(), String> {
    std::fs::write(path, value).map_err(|e| format!("cannot write {value} to {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    //! The freezer, the CPU clock and the kill of each cgroup version this machine offers, on a
    //! spinning process (each test says so and passes where its version cannot be written).

    use super::*;
    use std::process::{Child, Command};

    /// A generous guard for things that happen at once, never a pause.
    const GUARD: Duration = Duration::from_secs(10);

    fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
        let started = Instant::now();
        while !done() {
            assert!(started.elapsed() < GUARD, "{what} did not happen within {GUARD:?}");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// A shell spinning forever, joined to the cgroup's limits and clock, and moved into its
    /// freezer as the runner's keeper would.
    fn spinner(cgroup: &RunnerCgroup) -> Child {
        running(cgroup, "while :; do :; done")
    }

    /// A shell running `script`, joined and moved like [`spinner`].
    fn running(cgroup: &RunnerCgroup, script: &str) -> Child {
        use std::os::unix::process::CommandExt;
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        // SAFETY: the joiner only makes async-signal-safe calls (see `join_self`).
        unsafe { command.pre_exec(cgroup.joiner()) };
        let child = command.spawn().expect("sh starts");
        if let Some(folder) = cgroup.freezer() {
            std::fs::write(folder.join("cgroup.procs"), child.id().to_string()).expect("joins the freezer");
        }
        child
    }

    fn is_frozen(cgroup: &RunnerCgroup) -> bool {
        let freezer = cgroup.freezer.as_ref().unwrap();
        match freezer.version {
            Version::V1 => std::fs::read_to_string(freezer.folder.join("freezer.state")).unwrap().trim() == "FROZEN",
            Version::V2 => std::fs::read_to_string(freezer.folder.join("cgroup.events")).unwrap().contains("frozen 1"),
        }
    }

    /// The process's own CPU time (utime + stime, in clock ticks) from /proc.
    fn ticks(pid: u32) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    }

    fn freeze_count_and_kill(version: Version, limits: bool) {
        let cgroup = match RunnerCgroup::create_with(64, Some(version), limits) {
            Ok(cgroup) if cgroup.freezer.as_ref().is_some_and(|f| f.version == version) => cgroup,
            other => {
                eprintln!("not tested: no writable cgroup {version:?} freezer here ({:?})", other.err());
                return;
            }
        };
        let mut child = spinner(&cgroup);
        let pid = child.id();
        if cgroup.cpu.is_some() {
            wait_for("the clock counting the spinner's CPU time", || {
                cgroup.cpu_time().is_some_and(|t| t >= Duration::from_millis(20))
            });
        }
        cgroup.set_frozen(true);
        wait_for("the spinner being frozen", || is_frozen(&cgroup));
        let (frozen_ticks, frozen_clock) = (ticks(pid), cgroup.cpu_time());
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(ticks(pid), frozen_ticks, "a frozen process ran");
        assert_eq!(cgroup.cpu_time(), frozen_clock, "the clock of a frozen tree moved");
        cgroup.set_frozen(false);
        wait_for("the spinner running again", || ticks(pid) > frozen_ticks);
        cgroup.set_frozen(true);
        wait_for("the spinner being frozen again", || is_frozen(&cgroup));
        // Killing the frozen tree works (v2 at once, v1 after a thaw).
        assert_eq!(cgroup.kill_all(), cgroup.v2_folder.is_some());
        let status = child.wait().unwrap();
        assert!(!status.success(), "{status:?}");
        let folders = cgroup.folders.clone();
        drop(cgroup);
        assert!(folders.iter().all(|f| !f.exists()), "the cgroups were removed");
    }

    /// An idle seat is frozen a moment after `freeze_soon` by the idle-freezer thread, and again
    /// after each thaw, whichever version freezes.
    #[test]
    fn a_delayed_freeze_comes_after_every_idle_spell() {
        let cgroup = match RunnerCgroup::create(64, None) {
            Ok(cgroup) if cgroup.freezer.is_some() => cgroup,
            other => {
                eprintln!("not tested: no writable freezer here ({:?})", other.err());
                return;
            }
        };
        let mut child = spinner(&cgroup);
        for _ in 0..3 {
            cgroup.freeze_soon();
            wait_for("the idle spinner being frozen", || is_frozen(&cgroup));
            cgroup.set_frozen(false);
            wait_for("the spinner thawed", || !is_frozen(&cgroup));
        }
        cgroup.kill_all();
        let _ = child.wait();
    }

    /// The CPU share holds the tree back, and the time it did is counted: a spinner under a quota
    /// made tiny for the test (1 % of a CPU) is throttled at once, however loaded the machine.
    #[test]
    fn the_cpu_share_throttles_the_tree_and_counts_it() {
        let mut cgroup = match RunnerCgroup::create(64, None) {
            Ok(cgroup) => cgroup,
            Err(why) => return eprintln!("not tested: no writable cgroup here ({why})"),
        };
        let version = match cgroup.limit_cpu(1, false) {
            Ok(version) => version,
            Err(why) => return eprintln!("not tested: no cpu controller here ({why})"),
        };
        assert_eq!(cgroup.throttled(), Some(Duration::ZERO), "nothing ran yet");
        let folder = cgroup.folders.iter().rev().find(|f| f.join("cpu.stat").exists()).unwrap().clone();
        match version {
            Version::V1 => write(&folder.join("cpu.cfs_quota_us"), "1000").unwrap(),
            Version::V2 => write(&folder.join("cpu.max"), "1000 100000").unwrap(),
        }
        let mut child = spinner(&cgroup);
        wait_for("the spinner being throttled", || cgroup.throttled().is_some_and(|t| !t.is_zero()));
        cgroup.kill_all();
        let _ = child.wait();
    }

    /// A share made on demand holds nothing until the tree is moved in: then every process of the
    /// running tree is in it (a child the shell started too), and the quota holds them back.
    #[test]
    fn an_on_demand_cpu_share_takes_in_the_whole_running_tree() {
        let mut cgroup = match RunnerCgroup::create(64, None) {
            Ok(cgroup) => cgroup,
            Err(why) => return eprintln!("not tested: no writable cgroup here ({why})"),
        };
        if let Err(why) = cgroup.limit_cpu(1, true) {
            return eprintln!("not tested: no cpu controller here ({why})");
        }
        if !cgroup.cpu_share_pending() {
            return eprintln!("not tested: the share's cgroup is the runner's own here (joined before exec)");
        }
        let share = cgroup.folders.iter().find(|f| f.join("cpu.cfs_quota_us").exists()).unwrap().clone();
        let in_share = || std::fs::read_to_string(share.join("cgroup.procs")).unwrap();
        let mut child = running(&cgroup, "sh -c 'while :; do :; done' & while :; do :; done");
        wait_for("the shell's child", || cgroup.members().iter().collect::<std::collections::BTreeSet<_>>().len() >= 2);
        assert_eq!(in_share(), "", "the tree joined its share before it was asked to");
        cgroup.join_cpu_share().expect("the tree moves in");
        assert!(!cgroup.cpu_share_pending());
        let joined: Vec<libc::pid_t> = in_share().lines().map(|l| l.parse().unwrap()).collect();
        for pid in cgroup.members() {
            assert!(joined.contains(&pid), "process {pid} of the tree is not in its share ({joined:?})");
        }
        write(&share.join("cpu.cfs_quota_us"), "1000").unwrap();
        wait_for("the tree being throttled", || cgroup.throttled().is_some_and(|t| !t.is_zero()));
        cgroup.kill_all();
        let _ = child.wait();
    }

    #[test]
    fn the_v2_freezer_freezes_counts_and_kills_the_tree() {
        freeze_count_and_kill(Version::V2, true);
    }

    /// A plain user on a v2-only desktop: no limits can be written, but v2's core files freeze,
    /// count and kill all the same.
    #[test]
    fn without_limits_the_v2_core_still_freezes_counts_and_kills() {
        freeze_count_and_kill(Version::V2, false);
    }

    #[test]
    fn the_v1_freezer_freezes_counts_and_kills_the_tree() {
        freeze_count_and_kill(Version::V1, true);
    }
}
