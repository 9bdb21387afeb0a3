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

#[cfg(target_os = "linux")]
use super::super::cgroup::RunnerCgroup;
use super::super::runner_command::RunnerCommand;
use super::super::sandbox::ScratchDir;
use super::super::spec::{SandboxMode, SeatOptions};
use super::super::stderr_tail::StderrTail;
use super::stop::StopHandle;

/// Read size of the channel: answers are small.
const CHANNEL_READ_CHUNK: usize = 512;
/// How long a child that closed its channel gets to exit before it is killed.
const EXIT_WAIT: Duration = Duration::from_secs(2);
/// Poll step while waiting for a child to exit.
const EXIT_POLL_STEP: Duration = Duration::from_millis(1);
/// How long a sandboxed runner's keeper gets to end its jail and exit when asked, before it is
/// killed (it needs about a millisecond).
const KEEPER_EXIT_WAIT: Duration = Duration::from_secs(2);

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
    /// Freeze the bot while its seat is not on move (not when pondering is allowed).
    freeze: bool,
    /// The runner is sandboxed: its process is a keeper that ends the jail when asked.
    has_keeper: bool,
    /// The tree's CPU time when last read (each move is charged what was used since).
    cpu_mark: Option<Duration>,
    /// The sandboxed bot's private folder; removed after the runner (declared after `child`, so
    /// dropped after the runner is killed and reaped in `drop`).
    _scratch: Option<ScratchDir>,
    /// The runner's cgroup (memory and process limits over its whole tree); removed after the
    /// runner, killing anything left in it.
    #[cfg(target_os = "linux")]
    cgroup: Option<RunnerCgroup>,
}

impl Runner {
    /// Starts `COMMAND --memory-mb N --sandbox MODE [--scratch DIR] LIBRARY`. Once `stop` is
    /// stopped, every wait for the child ends at once with [`ChannelError::Stopped`].
    pub fn spawn(
        command: &RunnerCommand,
        library: &Path,
        options: &SeatOptions,
        stop: Option<StopHandle>,
    ) -> std::io::Result<Runner> {
        let scratch = if options.sandbox == SandboxMode::Off { None } else { Some(ScratchDir::create()?) };
        let mut command_line = Command::new(command.program());
        command_line
            .args(command.args())
            .arg("--memory-mb")
            .arg(options.memory_limit_mb.to_string())
            .arg("--sandbox")
            .arg(options.sandbox.as_str());
        if let Some(scratch) = &scratch {
            // Its working folder from the start: a relative path never lands in the host's.
            command_line.arg("--scratch").arg(scratch.path()).current_dir(scratch.path());
        }
        #[cfg(target_os = "linux")]
        let cgroup = match options.sandbox {
            SandboxMode::Off => None,
            SandboxMode::Auto => RunnerCgroup::create(options.memory_limit_mb, None).ok(),
            SandboxMode::Strict => {
                let cgroup = RunnerCgroup::create(options.memory_limit_mb, None);
                let missing = match &cgroup {
                    Ok(cgroup) => cgroup.limits_missing().map(str::to_owned),
                    Err(why) => Some(why.clone()),
                };
                if let Some(why) = missing {
                    return Err(std::io::Error::other(format!(
                        "sandbox layer `cgroup` is missing ({why}); --sandbox strict refuses to run bots without it"
                    )));
                }
                cgroup.ok()
            }
        };
        #[cfg(target_os = "linux")]
        if let Some(cgroup) = &cgroup {
            use std::os::unix::process::CommandExt;
            if let Some(version) = cgroup.limits_version() {
                command_line.arg("--cgroup").arg(format!("v{version}"));
            }
            // With --ponder the bot's processes stay where the runner is, never frozen.
            if let Some(freezer) = cgroup.freezer().filter(|_| !options.ponder) {
                command_line.arg("--freezer").arg(freezer);
            }
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
            // whose keeper then ends the bot's processes itself, thawed, when the host is gone.
            command_line.process_group(0);
        }
        let mut child =
            command_line.arg(library).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
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
            freeze: !options.ponder,
            has_keeper: options.sandbox != SandboxMode::Off,
            cpu_mark: None,
            _scratch: scratch,
            #[cfg(target_os = "linux")]
            cgroup,
        })
    }

    pub fn send(&mut self, request: &Request) -> Result<(), ChannelError> {
        let requests = self.requests.as_mut().ok_or(ChannelError::Closed)?;
        requests.write_all(&request.encode()).map_err(|_| ChannelError::Closed)
    }

    /// The next answer, if it arrives before `deadline`.
    pub fn receive(&mut self, deadline: Instant) -> Result<Response, ChannelError> {
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
        if self.has_keeper && wait_for_exit(self.pid(), KEEPER_EXIT_WAIT) {
            return self.reap(true).expect("an ended child can be reaped");
        }
        // SAFETY: the child is not reaped yet, so its pid is still ours.
        unsafe { libc::kill(self.pid(), libc::SIGKILL) };
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
        #[cfg(target_os = "linux")]
        if let Some(cgroup) = self.cgroup.as_ref().filter(|_| self.freeze || !frozen) {
            cgroup.set_frozen(frozen);
        }
        let _ = frozen;
    }

    /// CPU time used by the runner's whole process tree since the last call (the first call
    /// starts the count and returns `None`), from its cgroup; `None` without one (sandbox off, or
    /// no writable CPU clock here). One read of the clock per move: what a bot uses while idle
    /// (pondering) is charged to its next move.
    pub fn cpu_since_last(&mut self) -> Option<Duration> {
        #[cfg(target_os = "linux")]
        if let Some(cgroup) = &self.cgroup {
            let now = cgroup.cpu_time();
            let since = now.zip(self.cpu_mark).map(|(now, mark)| now.saturating_sub(mark));
            self.cpu_mark = now;
            return since;
        }
        None
    }

    /// Freezes the bot's processes a moment from now unless the seat is asked to move again
    /// first (see [`FREEZE_DELAY`](crate::seat::FREEZE_DELAY)); nothing without a freezer or with
    /// pondering allowed.
    pub fn freeze_soon(&self) {
        #[cfg(target_os = "linux")]
        if let Some(cgroup) = self.cgroup.as_ref().filter(|_| self.freeze) {
            cgroup.freeze_soon();
        }
    }

    /// Whether the runner's tree hit the memory limit of its cgroup (false without one).
    pub fn hit_memory_limit(&self) -> bool {
        #[cfg(target_os = "linux")]
        if let Some(cgroup) = &self.cgroup {
            return cgroup.hit_memory_limit();
        }
        false
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

/// Waits up to `limit` for the unreaped child `pid` to end (without reaping it); true once it has.
fn wait_for_exit(pid: libc::pid_t, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    let ended = || {
        // SAFETY: an all-zero siginfo_t is a valid value to be overwritten.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        // SAFETY: a valid out-pointer; the pid is our unreaped child; WNOWAIT leaves it unreaped.
        let found = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) };
        // SAFETY: waitid filled `info` (si_pid stays 0 while the child runs).
        found != 0 || unsafe { info.si_pid() } != 0
    };
    // A pidfd becomes readable when the process ends (Linux 5.3+); without one, look every step.
    #[cfg(target_os = "linux")]
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as libc::c_int;
    #[cfg(not(target_os = "linux"))]
    let pidfd = -1;
    let result = loop {
        if ended() {
            break true;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break false;
        }
        if pidfd >= 0 {
            let mut fd = libc::pollfd { fd: pidfd, events: libc::POLLIN, revents: 0 };
            let timeout_ms = left.as_millis().clamp(1, i32::MAX as u128) as libc::c_int;
            // SAFETY: one valid pollfd for the duration of the call.
            unsafe { libc::poll(&mut fd, 1, timeout_ms) };
        } else {
            std::thread::sleep(EXIT_POLL_STEP.min(left));
        }
    };
    if pidfd >= 0 {
        // SAFETY: the descriptor was opened above and is closed once.
        unsafe { libc::close(pidfd) };
    }
    result
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
