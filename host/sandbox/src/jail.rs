//! What the host sets up around one sandboxed process it starts through the runner — a bot's
//! runner (`othello-runner LIBRARY`) or an NBoard engine (`othello-runner exec -- COMMAND`): the
//! private scratch folder, the cgroup (limits over the whole tree, freezer, CPU clock), the
//! runner's arguments for them, its own process group, and the pipe whose closing tells the
//! runner's keeper to end its jail.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::Mode;
use crate::args::SandboxArgs;
#[cfg(target_os = "linux")]
use crate::cgroup::RunnerCgroup;
use crate::environment::clean_environment;
use crate::scratch::ScratchDir;

/// What the host asks of the sandbox around one process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JailOptions<'a> {
    pub mode: Mode,
    /// The host's variables passed on besides the minimal set (see [`crate::environment`]).
    pub env: &'a [String],
    /// More folders (or files) an engine may read and run besides its own (see
    /// [`crate::engine::sandboxed_command`]).
    pub read: &'a [PathBuf],
    /// Memory limit in MiB (0: none).
    pub memory_limit_mb: u64,
    /// Bound of the scratch folder in MiB (0: none; see [`SandboxArgs::scratch_mb`]).
    pub scratch_mb: u64,
    /// The CPUs the process tree may use at once, its CPU share (0: none; the share's cgroup costs
    /// about 0.1 µs per move round trip, see `cgroup::RunnerCgroup::limit_cpu`).
    pub threads: u32,
    /// The process may compute while its seat is not on move (never frozen).
    pub ponder: bool,
    /// The caller watches the tree's CPU use: [`Jail::watch_cpu_share`] every
    /// [`CPU_SHARE_WATCH`] while it waits for the tree (doubling up to the second value), and
    /// [`Jail::cpu_since_last`] after each move. Where the share is a cgroup of its own and the
    /// tree is frozen while idle, the runner then starts outside it and is moved in only once it
    /// used more than its share: a single-threaded bot never pays for the share's task group.
    pub cpu_share_on_demand: bool,
}

/// How often a caller with [`JailOptions::cpu_share_on_demand`] looks at a tree outside its
/// share while it waits for it: first after this, then at twice the step each time, up to the
/// second value (threads beyond the share run free for about that long, once per runner).
///
/// The first step is no shorter than the scheduler's tick (10 ms at the lowest common `HZ`, 100):
/// a wait's timeout that falls before the processor's next tick makes the kernel reprogram its
/// timer hardware when the wait starts and again when the answer cancels it, a VM exit each on
/// a virtual machine. With a 1 ms step that cost a bot answering in microseconds about 1 µs a
/// move, 25 % of its games/s (book: "What the CPU share costs").
pub const CPU_SHARE_WATCH: (Duration, Duration) = (Duration::from_millis(10), Duration::from_millis(16));
/// How much more CPU time than its share a tree outside it may have used, summed over the spans
/// between looks (never below zero: a quiet spell gives no credit), before it is moved in. More
/// than the clock can lag (the time of a running task is counted at the scheduler's ticks, up to
/// 10 ms apart) and than a runner's start-up uses on two processors at once (measured: up to
/// 1.6 ms), so that a single-threaded bot is never moved in.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub const OVERUSE_SLACK: Duration = Duration::from_millis(10);

/// How long a sandboxed runner's keeper gets to end its jail and exit when asked, before it is
/// killed (it needs about a millisecond).
pub const KEEPER_EXIT_WAIT: Duration = Duration::from_secs(2);
/// Spans (moves, a game's start) shorter than this do not read the CPU share's throttle counter:
/// a read costs about half a microsecond, which is what the share cost a µs-fast bot (two reads a
/// move made its `think` round trip 3.2 → 4.4 µs; the share's task group itself about 0.1 µs),
/// while a span cannot have been held back for longer than it lasted. What a shorter span was
/// held back for is counted by the next read.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub const THROTTLE_READ_AFTER: Duration = Duration::from_millis(1);
/// Poll step while waiting for a child to exit where no pidfd can be had.
#[cfg(target_os = "linux")]
const EXIT_POLL_STEP: Duration = Duration::from_millis(1);

/// The host's side of one sandboxed process: dropped after the process was reaped.
pub struct Jail {
    /// Freeze the process while its seat is not on move (not when pondering is allowed).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    freeze: bool,
    /// The process is the runner's keeper, which ends the jail when asked.
    has_keeper: bool,
    /// The tree's CPU time when last read (each move is charged what was used since).
    cpu_mark: Option<Duration>,
    /// The CPUs of the tree's share (`--threads`), and how far a tree not in it yet has used more.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    threads: u32,
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    overuse: Overuse,
    /// The CPU share's throttle counter as last read.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    throttled: ThrottleCount,
    /// The cgroup (memory and process limits over the whole tree); removed after the process,
    /// killing anything left in it.
    #[cfg(target_os = "linux")]
    cgroup: Option<RunnerCgroup>,
    /// The private folder, the only place the jailed process may write (removed when dropped,
    /// after the cgroup).
    scratch: Option<ScratchDir>,
    /// Where no freezer cgroup can be had: the runner's init, told to stop (and continue) every
    /// process of its PID namespace.
    #[cfg(target_os = "linux")]
    stopper: Option<crate::stop::NamespaceStopper>,
}

impl Jail {
    /// Prepares `command_line` (the runner's program and leading arguments) for the sandbox in
    /// `options`: the scratch folder and the cgroup made, the cgroup joined before exec, a clean
    /// environment ([`crate::environment`]), a process group of its own. Returns the jail and the
    /// runner's sandbox arguments for what it made (`--memory-mb N --sandbox MODE [--scratch DIR]
    /// [--cgroup vN] [--freezer DIR]`). With
    /// `enter_scratch` the process starts in its scratch folder (a bot's runner: a relative path
    /// never lands in the host's folder); an engine keeps the working folder it is given.
    pub fn prepare(
        command_line: &mut Command,
        options: &JailOptions<'_>,
        enter_scratch: bool,
    ) -> std::io::Result<(Jail, SandboxArgs)> {
        let scratch = if options.mode == Mode::Off { None } else { Some(ScratchDir::create()?) };
        let mut args = SandboxArgs::off(options.memory_limit_mb);
        args.sandbox = options.mode;
        // Even unsandboxed (`--sandbox off`), a runner gets no secret of the host's.
        command_line.env_clear().envs(clean_environment(scratch.as_ref().map(ScratchDir::path), options.env));
        if let Some(scratch) = &scratch {
            args.scratch = Some(scratch.path().to_path_buf());
            args.scratch_mb = options.scratch_mb;
            if enter_scratch {
                command_line.current_dir(scratch.path());
            }
        }
        #[cfg(target_os = "linux")]
        let cgroup = match options.mode {
            Mode::Off => None,
            Mode::Auto => RunnerCgroup::create(options.memory_limit_mb, None).ok().map(|mut cgroup| {
                // Without a share the bot's threads may take the machine (the report says why).
                if options.threads > 0 {
                    let _ = cgroup.limit_cpu(options.threads, on_demand(options, &cgroup));
                }
                cgroup
            }),
            Mode::Strict => {
                let strict = |layer: &str, why: &str| {
                    std::io::Error::other(format!(
                        "sandbox layer `{layer}` is missing ({why}); --sandbox strict refuses to run bots without it"
                    ))
                };
                let mut cgroup =
                    RunnerCgroup::create(options.memory_limit_mb, None).map_err(|why| strict("cgroup", &why))?;
                if let Some(why) = cgroup.limits_missing() {
                    return Err(strict("cgroup", why));
                }
                if options.threads > 0 {
                    let on_demand = on_demand(options, &cgroup);
                    cgroup
                        .limit_cpu(options.threads, on_demand)
                        .map_err(|why| strict(crate::layer::CPU_SHARE, &why))?;
                }
                Some(cgroup)
            }
        };
        #[cfg(target_os = "linux")]
        if let Some(cgroup) = &cgroup {
            use std::os::unix::process::CommandExt;
            args.cgroup = cgroup.limits_version();
            // With --ponder the processes stay where the runner is, never frozen.
            args.freezer = cgroup.freezer().filter(|_| !options.ponder).map(Path::to_path_buf);
            let join = cgroup.joiner();
            // SAFETY: the closure runs between fork and exec and only makes async-signal-safe
            // calls (open, write, close) on paths allocated before the fork.
            unsafe { command_line.pre_exec(join) };
        }
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // A process group of its own: a signal to the host's group (Ctrl-C in a terminal, or
            // an NBoard seat ending `othello nboard` with its group) does not reach the runner,
            // whose keeper then ends the jailed processes itself, thawed, when the host is gone.
            command_line.process_group(0);
        }
        #[cfg(target_os = "linux")]
        let stopper =
            (options.mode != Mode::Off && !options.ponder && cgroup.as_ref().is_none_or(|c| c.freezer().is_none()))
                .then(crate::stop::NamespaceStopper::default);
        let jail = Jail {
            freeze: !options.ponder,
            // Only the Linux runner has a keeper (elsewhere the runner is the bot's process).
            has_keeper: cfg!(target_os = "linux") && options.mode != Mode::Off,
            cpu_mark: None,
            threads: options.threads,
            overuse: Overuse::new(),
            throttled: ThrottleCount::default(),
            #[cfg(target_os = "linux")]
            cgroup,
            scratch,
            #[cfg(target_os = "linux")]
            stopper,
        };
        Ok((jail, args))
    }

    /// No sandbox (an engine started as a plain process): only the CPU clock of the process.
    pub fn unsandboxed(options: &JailOptions<'_>) -> Jail {
        Jail {
            freeze: !options.ponder,
            has_keeper: false,
            cpu_mark: None,
            threads: options.threads,
            overuse: Overuse::new(),
            throttled: ThrottleCount::default(),
            #[cfg(target_os = "linux")]
            cgroup: None,
            scratch: None,
            #[cfg(target_os = "linux")]
            stopper: None,
        }
    }

    /// The keeper process has started (its pid), for the fallback freezer to find its init.
    pub fn started(&mut self, keeper: u32) {
        #[cfg(target_os = "linux")]
        if let Some(stopper) = &mut self.stopper {
            stopper.started(keeper);
        }
        let _ = keeper;
    }

    /// The process is a sandboxed runner's keeper (it ends its jail when asked).
    pub fn has_keeper(&self) -> bool {
        self.has_keeper
    }

    /// The private scratch folder, if the process has one.
    pub fn scratch(&self) -> Option<&Path> {
        self.scratch.as_ref().map(ScratchDir::path)
    }

    /// Freezes (or thaws) the jailed processes, when there is a freezer: a seat not on move uses
    /// no CPU. Freezes are skipped when pondering is allowed.
    pub fn set_frozen(&self, frozen: bool) {
        #[cfg(target_os = "linux")]
        if let Some(cgroup) = self.cgroup.as_ref().filter(|_| self.freeze || !frozen) {
            cgroup.set_frozen(frozen);
        }
        #[cfg(target_os = "linux")]
        if let Some(stopper) = &self.stopper {
            stopper.set_stopped(frozen);
        }
        let _ = frozen;
    }

    /// Freezes the jailed processes a moment from now unless the seat is asked to move again
    /// first (see [`FREEZE_DELAY`](crate::FREEZE_DELAY)); nothing without a freezer or with
    /// pondering allowed.
    pub fn freeze_soon(&self) {
        #[cfg(target_os = "linux")]
        if let Some(cgroup) = self.cgroup.as_ref().filter(|_| self.freeze) {
            cgroup.freeze_soon();
        }
        // The fallback has no delayed freeze: it stops the namespace at once.
        #[cfg(target_os = "linux")]
        if let Some(stopper) = &self.stopper {
            stopper.set_stopped(true);
        }
    }

    /// CPU time used since the last call (the first call starts the count and returns `None`):
    /// of the whole jailed tree from its cgroup; without one, of the process `pid` itself (all
    /// its threads, from its CPU clock) when it is not a keeper (whose jail's time it would not
    /// include); else `None`. One read of the clock per move: what runs while the seat is idle
    /// (pondering) is charged to its next move.
    pub fn cpu_since_last(&mut self, pid: libc::pid_t) -> Option<Duration> {
        #[cfg(target_os = "linux")]
        let now = match &self.cgroup {
            Some(cgroup) => cgroup.cpu_time(),
            None if !self.has_keeper => process_cpu_time(pid),
            None => None,
        };
        #[cfg(not(target_os = "linux"))]
        let now = (!self.has_keeper).then(|| process_cpu_time(pid)).flatten();
        let since = now.zip(self.cpu_mark).map(|(now, mark)| now.saturating_sub(mark));
        self.cpu_mark = now;
        #[cfg(target_os = "linux")]
        if let Some(cpu) = now.filter(|_| self.cgroup.is_some()) {
            self.watch(cpu);
        }
        since
    }

    /// Moves a tree outside its CPU share into it once it used more than its share (see
    /// [`JailOptions::cpu_share_on_demand`]): one read of its CPU clock.
    pub fn watch_cpu_share(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(cpu) = self.cgroup.as_ref().filter(|c| c.cpu_share_pending()).and_then(RunnerCgroup::cpu_time) {
            self.watch(cpu);
        }
    }

    /// [`Jail::watch_cpu_share`] with the tree's CPU time `cpu`, read just now.
    #[cfg(target_os = "linux")]
    fn watch(&mut self, cpu: Duration) {
        if self.cgroup.as_ref().is_some_and(RunnerCgroup::cpu_share_pending)
            && self.overuse.exceeds(cpu, Instant::now(), self.threads)
        {
            self.hold_to_cpu_share();
        }
    }

    /// Whether the tree is not in its CPU share yet (see [`JailOptions::cpu_share_on_demand`]).
    pub fn cpu_share_pending(&self) -> bool {
        #[cfg(target_os = "linux")]
        if let Some(cgroup) = &self.cgroup {
            return cgroup.cpu_share_pending();
        }
        false
    }

    /// Moves the tree into its CPU share (nothing when it is there or has none); a tree that
    /// keeps starting processes outside it is killed.
    fn hold_to_cpu_share(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(cgroup) = &mut self.cgroup
            && cgroup.join_cpu_share().is_err()
        {
            cgroup.kill_all();
        }
    }

    /// How long the tree was held back by its CPU share (more threads than `--threads` wanted the
    /// CPU) since the last read, read at the end of a span (a move, a game's start) that lasted
    /// `span`. `None` without a share, and when the span was too short to read the counter
    /// ([`THROTTLE_READ_AFTER`]): what it was held back for is then counted by the next read.
    pub fn throttled_since_last(&mut self, span: Duration) -> Option<Duration> {
        #[cfg(target_os = "linux")]
        if let Some(cgroup) = &self.cgroup {
            return self.throttled.since_last(span, || cgroup.throttled());
        }
        let _ = span;
        None
    }

    /// Whether the tree hit the memory limit of its cgroup (false without one).
    pub fn hit_memory_limit(&self) -> bool {
        #[cfg(target_os = "linux")]
        if let Some(cgroup) = &self.cgroup {
            return cgroup.hit_memory_limit();
        }
        false
    }
}

/// Whether the tree's CPU share is joined on demand: when the caller asks for it and the tree is
/// frozen while idle (a pondering tree may compute at any time, unwatched).
#[cfg(target_os = "linux")]
fn on_demand(options: &JailOptions<'_>, cgroup: &RunnerCgroup) -> bool {
    options.cpu_share_on_demand && !options.ponder && cgroup.freezer().is_some()
}

/// How much more CPU time than its share a tree has used, summed over the spans between looks at
/// its CPU clock, never below zero (a quiet spell gives no credit for a later burst).
#[derive(Debug)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
struct Overuse {
    excess: Duration,
    /// The tree's CPU time at the last look, and when that was.
    cpu: Duration,
    looked_at: Instant,
}

#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
impl Overuse {
    /// From a clock that starts at zero now (a new cgroup's).
    fn new() -> Overuse {
        Overuse { excess: Duration::ZERO, cpu: Duration::ZERO, looked_at: Instant::now() }
    }

    /// Looks at the tree's CPU time `cpu` at `now`: whether it has used more than `threads` CPUs
    /// by more than [`OVERUSE_SLACK`].
    fn exceeds(&mut self, cpu: Duration, now: Instant, threads: u32) -> bool {
        let share = now.saturating_duration_since(self.looked_at) * threads.max(1);
        self.excess = (self.excess + cpu.saturating_sub(self.cpu)).saturating_sub(share);
        (self.cpu, self.looked_at) = (cpu.max(self.cpu), now);
        self.excess > OVERUSE_SLACK
    }
}

/// A CPU share's throttle counter (it starts at zero with the cgroup), read at the end of spans.
#[derive(Debug, Default)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
struct ThrottleCount {
    /// The counter when last read.
    mark: Duration,
}

#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
impl ThrottleCount {
    /// What the counter (`read`) gained since the last read, at the end of a span of `span`;
    /// `None` without a reading, and for a span too short to be worth one
    /// ([`THROTTLE_READ_AFTER`]), whose gain the next read counts.
    fn since_last(&mut self, span: Duration, read: impl FnOnce() -> Option<Duration>) -> Option<Duration> {
        if span < THROTTLE_READ_AFTER {
            return None;
        }
        let now = read()?;
        let since = now.saturating_sub(self.mark);
        self.mark = now;
        Some(since)
    }
}

/// The CPU time of process `pid` so far (every thread of it, ended ones too; not its children),
/// from its CPU clock; `None` when it cannot be read (the process is gone).
#[cfg(target_os = "linux")]
fn process_cpu_time(pid: libc::pid_t) -> Option<Duration> {
    let mut clock: libc::clockid_t = 0;
    // SAFETY: a valid out-pointer; the call only looks the process up.
    if unsafe { libc::clock_getcpuclockid(pid, &mut clock) } != 0 {
        return None;
    }
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid out-pointer and a clock id the kernel gave.
    if unsafe { libc::clock_gettime(clock, &mut time) } != 0 {
        return None;
    }
    Some(Duration::new(time.tv_sec.max(0) as u64, time.tv_nsec.clamp(0, 999_999_999) as u32))
}

/// Elsewhere another process's CPU clock is not read.
#[cfg(not(target_os = "linux"))]
fn process_cpu_time(_pid: libc::pid_t) -> Option<Duration> {
    None
}

/// Waits up to `limit` for the unreaped child `pid` (a keeper) to end, without reaping it; true
/// once it has.
#[cfg(target_os = "linux")]
pub fn wait_for_exit(pid: libc::pid_t, limit: Duration) -> bool {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    use std::time::Instant;

    use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};

    let deadline = Instant::now() + limit;
    // WNOWAIT leaves it unreaped; an error means there is no such child left to wait for.
    let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
    let ended = || !matches!(waitid(Id::Pid(nix::unistd::Pid::from_raw(pid)), flags), Ok(WaitStatus::StillAlive));
    // A pidfd becomes readable when the process ends (Linux 5.3+); without one, look every step.
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as libc::c_int;
    // SAFETY: a descriptor just returned by the kernel, owned by nobody else.
    let pidfd = (pidfd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(pidfd) });
    loop {
        if ended() {
            return true;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        match &pidfd {
            Some(pidfd) => {
                let mut fd = libc::pollfd { fd: pidfd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
                let timeout_ms = left.as_millis().clamp(1, i32::MAX as u128) as libc::c_int;
                // SAFETY: one valid pollfd for the duration of the call.
                unsafe { libc::poll(&mut fd, 1, timeout_ms) };
            }
            None => std::thread::sleep(EXIT_POLL_STEP.min(left)),
        }
    }
}

/// Elsewhere no runner has a keeper ([`Jail::has_keeper`] is false): nothing to wait for.
#[cfg(not(target_os = "linux"))]
pub fn wait_for_exit(_pid: libc::pid_t, _limit: Duration) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree outside its share is moved in once it has used more CPUs than its share by more than
    /// the slack, summed over looks; a single thread never gets there, however long it runs.
    #[test]
    fn overuse_sums_what_a_tree_used_beyond_its_share() {
        let ms = Duration::from_millis;
        let mut single = Overuse::new();
        let start = single.looked_at;
        for n in 1..=100 {
            assert!(!single.exceeds(ms(10) * n, start + ms(10) * n, 1), "one CPU for {n} × 10 ms");
        }
        // A clock that lags (counted at ticks) does not add up to an excess.
        let mut lagging = Overuse::new();
        let start = lagging.looked_at;
        for n in 1..=100 {
            let counted = ms(1) * (n / 10 * 10);
            assert!(!lagging.exceeds(counted, start + ms(1) * n, 1), "one CPU for {n} ms, counted {counted:?}");
        }
        // Two CPUs' worth in short spans: each is small, their sum is not.
        let mut burner = Overuse::new();
        let start = burner.looked_at;
        let looks: Vec<bool> = (1..=50).map(|n| burner.exceeds(ms(2) * n, start + ms(1) * n, 1)).collect();
        let slack = OVERUSE_SLACK.as_millis() as usize;
        assert_eq!(looks.iter().position(|&over| over), Some(slack), "{looks:?}");
        // A quiet spell gives no credit for a later burst.
        let mut bursty = Overuse::new();
        let start = bursty.looked_at;
        assert!(!bursty.exceeds(Duration::ZERO, start + ms(1000), 1));
        assert!(bursty.exceeds(OVERUSE_SLACK + ms(12), start + ms(1010), 1));
        // Two CPUs are the share of `--threads 2`.
        let mut two = Overuse::new();
        let start = two.looked_at;
        assert!(!two.exceeds(ms(20), start + ms(10), 2));
    }

    /// A µs-fast move costs no read of the throttle counter, and the time it was held back is not
    /// lost: the next move long enough to read counts it.
    #[test]
    fn short_moves_leave_the_throttle_count_to_the_next_read() {
        let mut count = ThrottleCount::default();
        let fast = Duration::from_micros(3);
        assert_eq!(count.since_last(fast, || panic!("a 3 µs move read the counter")), None);
        let slow = THROTTLE_READ_AFTER * 5;
        assert_eq!(count.since_last(slow, || Some(Duration::from_millis(4))), Some(Duration::from_millis(4)));
        assert_eq!(count.since_last(fast, || panic!("read")), None);
        assert_eq!(count.since_last(slow, || Some(Duration::from_millis(7))), Some(Duration::from_millis(3)));
        assert_eq!(count.since_last(slow, || Some(Duration::from_millis(7))), Some(Duration::ZERO));
        // An unreadable counter gives nothing and keeps the mark.
        assert_eq!(count.since_last(slow, || None), None);
        assert_eq!(count.since_last(slow, || Some(Duration::from_millis(9))), Some(Duration::from_millis(2)));
    }
}
