//! The host's side of one runner child: spawning it, talking over the private
//! channel with deadlines, collecting its stderr, and reaping it with the
//! reason it died.

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use othello_runner::protocol::{HEADER, MAX_FRAME, Request, Response, body_length};
use othello_sandbox::RunnerArgs;
use othello_sandbox::jail::{CPU_SHARE_WATCH, Jail, KEEPER_EXIT_WAIT, wait_for_exit};

use super::super::runner_command::RunnerCommand;
use super::super::spec::SeatOptions;
use super::super::stderr_tail::StderrTail;
use super::stop::StopHandle;

/// Read size of the channel: answers are small.
const CHANNEL_READ_CHUNK: usize = 512;
/// How long a child that closed its channel gets to exit before it is killed.
const EXIT_WAIT: Duration = Duration::from_secs(2);
/// Poll step while waiting for a child to exit.
const EXIT_POLL_STEP: Duration = Duration::from_millis(1);

/// Why no answer came.
#[derive(Debug)]
pub enum ChannelError {
    /// The deadline passed.
    Timeout,
    /// The child closed the channel (it died, or closed the descriptor).
    Closed,
    /// The child sent something that is not a frame.
    Garbled(&'static str),
    /// The seat's [`StopHandle`] was stopped: the wait was abandoned.
    Stopped,
}

/// How a child ended: the wait status and its peak resident memory.
#[derive(Debug, Clone, Copy)]
pub struct Exit {
    pub status: libc::c_int,
    pub max_rss_bytes: u64,
}

/// A running runner child.
pub struct Runner {
    child: Child,
    /// Closed (`None`) to tell a sandboxed runner's keeper to end its jail and exit.
    requests: Option<ChildStdin>,
    responses: ChildStdout,
    buffer: Vec<u8>,
    stderr: Arc<StderrTail>,
    exit: Option<Exit>,
    /// Ends every wait for the child when stopped.
    stop: Option<StopHandle>,
    /// CPU time read by [`Runner::cpu_peek`] during the move under way, not yet returned by
    /// [`Runner::cpu_since_last`].
    cpu_this_move: Duration,
    /// The tree's CPU time from its processes' own clocks when last read, where the jail has no
    /// clock of its own (a sandboxed runner without a cgroup).
    tree_cpu_mark: Option<Duration>,
    /// The last read of the tree's CPU time gave a value (see [`Runner::cpu_readable`]).
    cpu_readable: bool,
    /// The sandbox around it (scratch folder, cgroup); declared after `child`, so dropped after
    /// the runner is killed and reaped in `drop`.
    jail: Jail,
}

impl Runner {
    /// Starts `COMMAND [SANDBOX OPTIONS] -- LIBRARY` (see [`RunnerArgs`]). Once `stop` is
    /// stopped, every wait for the child ends at once with [`ChannelError::Stopped`].
    pub fn spawn(
        command: &RunnerCommand,
        library: &Path,
        options: &SeatOptions,
        stop: Option<StopHandle>,
    ) -> std::io::Result<Runner> {
        let mut command_line = Command::new(command.program());
        command_line.args(command.args());
        // The runner's waits hold it to its CPU share (`receive`) when it may use more.
        let jail_options = othello_sandbox::jail::JailOptions { cpu_share_on_demand: true, ..options.jail() };
        let (mut jail, sandbox) = Jail::prepare(&mut command_line, &jail_options, true)?;
        let args = RunnerArgs::Serve(options.serve_args(library, sandbox));
        let mut child = command_line
            .args(args.to_args())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        jail.started(child.id());
        let requests = child.stdin.take().expect("piped stdin");
        let responses = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        let stderr = StderrTail::collect(stderr_pipe, "runner-stderr")?;
        Ok(Runner {
            child,
            requests: Some(requests),
            responses,
            buffer: Vec::with_capacity(256),
            stderr,
            exit: None,
            stop,
            cpu_this_move: Duration::ZERO,
            tree_cpu_mark: None,
            cpu_readable: false,
            jail,
        })
    }

    pub fn send(&mut self, request: &Request) -> Result<(), ChannelError> {
        let requests = self.requests.as_mut().ok_or(ChannelError::Closed)?;
        requests.write_all(&request.encode()).map_err(|_| ChannelError::Closed)
    }

    /// The next answer, if it arrives before `deadline`. A runner not in its CPU share yet is
    /// looked at while it is waited for ([`CPU_SHARE_WATCH`]), and moved into its share once it
    /// used more: a single-threaded bot never pays for the share.
    pub fn receive(&mut self, deadline: Instant) -> Result<Response, ChannelError> {
        let (mut step, longest) = CPU_SHARE_WATCH;
        while self.jail.cpu_share_pending() {
            let look = (Instant::now() + step).min(deadline);
            match self.receive_by(look) {
                Err(ChannelError::Timeout) if look < deadline => self.jail.watch_cpu_share(),
                answer => return answer,
            }
            step = (step * 2).min(longest);
        }
        self.receive_by(deadline)
    }

    fn receive_by(&mut self, deadline: Instant) -> Result<Response, ChannelError> {
        loop {
            if self.buffer.len() >= HEADER {
                let len = body_length(self.buffer[..HEADER].try_into().expect("header"));
                if len > MAX_FRAME {
                    return Err(ChannelError::Garbled("oversized frame"));
                }
                if self.buffer.len() >= HEADER + len {
                    let response = Response::decode(&self.buffer[HEADER..HEADER + len]);
                    self.buffer.drain(..HEADER + len);
                    return response.map_err(|e| ChannelError::Garbled(e.0));
                }
            }
            self.wait_readable(deadline)?;
            let mut chunk = [0u8; CHANNEL_READ_CHUNK];
            match self.responses.read(&mut chunk) {
                Ok(0) => return Err(ChannelError::Closed),
                Ok(n) => self.buffer.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Err(ChannelError::Closed),
            }
        }
    }

    fn wait_readable(&self, deadline: Instant) -> Result<(), ChannelError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ChannelError::Timeout);
            }
            let channel = libc::pollfd { fd: self.responses.as_raw_fd(), events: libc::POLLIN, revents: 0 };
            // Without a stop handle, the second entry is ignored (a negative fd).
            let stop_fd = self.stop.as_ref().map_or(-1, StopHandle::wake_fd);
            let stop = libc::pollfd { fd: stop_fd, events: libc::POLLIN, revents: 0 };
            let mut fds = [channel, stop];
            let timeout_ms = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
            // SAFETY: `fds` is a valid array of two pollfds for the duration of the call.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
            if fds[1].revents != 0 {
                return Err(ChannelError::Stopped);
            }
            if ready > 0 {
                return Ok(()); // readable, or hung up: the read says which
            }
            if ready < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return Err(ChannelError::Closed);
            }
        }
    }

    /// Kills the child (if still running) and reaps it.
    ///
    /// A sandboxed runner is asked to end first: its request pipe is closed, which its keeper
    /// takes as the host's end, so it kills its jail, reaps it and exits (a keeper killed outright
    /// could not reap the jail's init, which would stay behind as a zombie of PID 1). A keeper that
    /// does not exit within [`KEEPER_EXIT_WAIT`] is killed.
    pub fn kill(&mut self) -> Exit {
        if let Some(exit) = self.exit {
            return exit;
        }
        // Processes frozen by cgroup v1 do not die: thaw first.
        self.set_frozen(false);
        drop(self.requests.take());
        if self.jail.has_keeper() && wait_for_exit(self.pid(), KEEPER_EXIT_WAIT) {
            return self.reap(true).expect("an ended child can be reaped");
        }
        // The child is not reaped yet, so its pid is still ours.
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(self.pid()), nix::sys::signal::Signal::SIGKILL);
        self.reap(true).expect("a killed child can be reaped")
    }

    /// Waits (briefly) for a child that closed its channel, killing it if it lingers.
    pub fn wait_exit(&mut self) -> Exit {
        let deadline = Instant::now() + EXIT_WAIT;
        while Instant::now() < deadline {
            if let Some(exit) = self.reap(false) {
                return exit;
            }
            std::thread::sleep(EXIT_POLL_STEP);
        }
        self.kill()
    }

    /// Freezes (or thaws) the bot's processes, when the runner has a freezer: a seat not on move
    /// uses no CPU.
    pub fn set_frozen(&self, frozen: bool) {
        self.jail.set_frozen(frozen);
    }

    /// CPU time used by the runner's whole process tree since the last call (the first call
    /// starts the count and returns `None`): from its cgroup when sandboxed in one, else the
    /// runner process's own CPU clock, else (a sandboxed runner without a cgroup) the clocks of
    /// every process of its tree; `None` where none can be read. What [`Runner::cpu_peek`] read
    /// since the last call is included.
    pub fn cpu_since_last(&mut self) -> Option<Duration> {
        let peeked = std::mem::take(&mut self.cpu_this_move);
        self.read_cpu().map(|rest| peeked + rest)
    }

    /// The CPU time the tree used since the last [`Runner::cpu_since_last`], read now (while
    /// the bot thinks); `None` where it cannot be read.
    pub fn cpu_peek(&mut self) -> Option<Duration> {
        let since = self.read_cpu()?;
        self.cpu_this_move += since;
        Some(self.cpu_this_move)
    }

    /// How long the runner's tree has waited for a processor while it could run, in all (see
    /// [`tree_run_delay`]); `None` where the machine does not say.
    pub fn run_delay(&self) -> Option<Duration> {
        tree_run_delay(self.pid())
    }

    /// Whether the last read of the tree's CPU time gave a value: a move can be held to its CPU
    /// time (the first read of a runner only starts the count).
    pub fn cpu_readable(&self) -> bool {
        self.cpu_readable
    }

    fn read_cpu(&mut self) -> Option<Duration> {
        let pid = self.pid();
        let since = match self.jail.cpu_since_last(pid) {
            Some(since) => Some(since),
            None => {
                // No clock of the jail (or its first read): the tree's processes' own clocks.
                let now = tree_cpu_time(pid);
                let since = now.zip(self.tree_cpu_mark).map(|(now, mark)| now.saturating_sub(mark));
                self.tree_cpu_mark = now;
                since
            }
        };
        self.cpu_readable = since.is_some();
        since
    }

    /// Freezes the bot's processes a moment from now unless the seat is asked to move again
    /// first; nothing without a freezer or with pondering allowed.
    pub fn freeze_soon(&self) {
        self.jail.freeze_soon();
    }

    /// How long the runner's tree was held back by its CPU share since the last read, read at the
    /// end of a span (a move, a game's start) of `span` (`None` without a share, or for a span too
    /// short to read it: see [`Jail::throttled_since_last`]).
    pub fn throttled_since_last(&mut self, span: Duration) -> Option<Duration> {
        self.jail.throttled_since_last(span)
    }

    /// Whether the runner's tree hit the memory limit of its cgroup (false without one).
    pub fn hit_memory_limit(&self) -> bool {
        self.jail.hit_memory_limit()
    }

    /// The child's process id (it stays ours until the runner is reaped).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    fn pid(&self) -> libc::pid_t {
        self.child.id() as libc::pid_t
    }

    fn reap(&mut self, block: bool) -> Option<Exit> {
        if self.exit.is_some() {
            return self.exit;
        }
        let mut status: libc::c_int = 0;
        // SAFETY: an all-zero rusage is a valid value to be overwritten.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        loop {
            let flags = if block { 0 } else { libc::WNOHANG };
            // SAFETY: valid out-pointers; the pid is our unreaped child.
            let pid = unsafe { libc::wait4(self.pid(), &mut status, flags, &mut usage) };
            if pid == self.pid() {
                // ru_maxrss is in kilobytes on Linux.
                let max_rss_bytes = (usage.ru_maxrss.max(0) as u64) * 1024;
                self.exit = Some(Exit { status, max_rss_bytes });
                return self.exit;
            }
            if pid == 0 {
                return None; // still running
            }
            if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                // Not our child any more (should not happen): treat as gone.
                self.exit = Some(Exit { status: 0, max_rss_bytes: 0 });
                return self.exit;
            }
        }
    }

    /// The last stderr lines, after giving a dead child's last output time to arrive.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr.lines(self.exit.is_some())
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The CPU time of process `pid` and every process below it (their threads' clocks, and the
/// children they reaped), from /proc in clock ticks: the CPU clock of a sandboxed runner's tree
/// where no cgroup counts it. `None` when `pid` cannot be read.
fn tree_cpu_time(pid: libc::pid_t) -> Option<Duration> {
    // SAFETY: sysconf has no preconditions.
    let ticks_per_second = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).ok().filter(|&t| t > 0)?;
    let ticks = sum_over_tree(pid, process_ticks)?;
    Some(Duration::from_nanos(ticks.saturating_mul(1_000_000_000) / ticks_per_second))
}

/// How long the threads of process `pid` and every process below it waited for a processor
/// while they could run (the scheduler's run delay, `/proc/PID/task/TID/schedstat`): time the
/// machine's load held the bot back. `None` where it cannot be read.
pub(crate) fn tree_run_delay(pid: libc::pid_t) -> Option<Duration> {
    sum_over_tree(pid, |pid| {
        let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
        let mut waited = 0u64;
        for task in tasks.flatten() {
            let stat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
            waited += stat.split_whitespace().nth(1).and_then(|ns| ns.parse::<u64>().ok()).unwrap_or(0);
        }
        Some(waited)
    })
    .map(Duration::from_nanos)
}

/// The sum of `of(pid)` over process `pid` and every process below it; `None` when `pid` itself
/// cannot be read.
fn sum_over_tree(pid: libc::pid_t, mut of: impl FnMut(libc::pid_t) -> Option<u64>) -> Option<u64> {
    let mut total = 0u64;
    let mut pending = vec![pid];
    let mut first = true;
    // Bounded: a tree has at most the sandbox's process limit, a loop in /proc cannot happen.
    let mut seen = 0;
    while let Some(pid) = pending.pop() {
        seen += 1;
        if seen > MAX_TREE_PROCESSES {
            break;
        }
        let Some(own) = of(pid) else {
            if first {
                return None;
            }
            continue; // ended meanwhile
        };
        first = false;
        total = total.saturating_add(own);
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { continue };
        for task in tasks.flatten() {
            let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            pending.extend(children.split_whitespace().filter_map(|child| child.parse::<libc::pid_t>().ok()));
        }
    }
    Some(total)
}

/// Most processes [`tree_cpu_time`] looks at.
const MAX_TREE_PROCESSES: usize = 4096;

/// utime + stime + cutime + cstime of `/proc/PID/stat`, in clock ticks.
fn process_ticks(pid: libc::pid_t) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces: the fields follow the last `)`.
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    // After the name: state is field 3 of the man page, utime 14 … cstime 17.
    let tick = |field: usize| fields.get(field - 3).and_then(|v| v.parse::<i64>().ok()).map(|v| v.max(0) as u64);
    Some(tick(14)? + tick(15)? + tick(16)? + tick(17)?)
}

/// Signal names for crash reports.
pub fn signal_name(signal: libc::c_int) -> String {
    let (name, meaning) = match signal {
        libc::SIGSEGV => ("SIGSEGV", "segmentation fault"),
        libc::SIGABRT => ("SIGABRT", "abort"),
        libc::SIGBUS => ("SIGBUS", "bus error"),
        libc::SIGFPE => ("SIGFPE", "arithmetic exception"),
        libc::SIGILL => ("SIGILL", "illegal instruction"),
        libc::SIGKILL => ("SIGKILL", "killed"),
        libc::SIGTERM => ("SIGTERM", "terminated"),
        libc::SIGTRAP => ("SIGTRAP", "trap"),
        libc::SIGXCPU => ("SIGXCPU", "CPU time limit"),
        libc::SIGPIPE => ("SIGPIPE", "broken pipe"),
        _ => return format!("signal {signal}"),
    };
    format!("signal {name} ({meaning})")
}
