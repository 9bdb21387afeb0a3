//! The host's side of one runner child on Windows: spawning it suspended into a Job Object of its
//! own, talking over the private channel with deadlines, collecting its stderr, and reaping it
//! with the reason it died (exit code or exception code).

use std::io::Write;
use std::os::windows::io::AsRawHandle;
use std::os::windows::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use othello_runner::protocol::{HEADER, MAX_FRAME, Request, Response, body_length};
use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, INVALID_HANDLE_VALUE, WAIT_OBJECT_0};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, TH32CS_SNAPTHREAD, THREADENTRY32, Thread32First, Thread32Next,
};
use windows_sys::Win32::System::Threading::{
    CREATE_NO_WINDOW, CREATE_SUSPENDED, OpenThread, ResumeThread, THREAD_SUSPEND_RESUME, WaitForSingleObject,
};

use super::super::super::runner_command::RunnerCommand;
use super::super::super::spec::{SandboxMode, SeatOptions};
use super::super::super::stderr_tail::StderrTail;
use super::event::{Woken, wait_any};
use super::exception::exception_name;
use super::reader::{ChannelReader, Taken};
use super::stop::StopHandle;
use othello_sandbox::job::{Job, KILLED_EXIT_CODE};
use othello_sandbox::scratch::ScratchDir;
use othello_sandbox::{RunnerArgs, SandboxArgs};

/// How long a child that closed its channel gets to exit before it is killed.
const EXIT_WAIT: Duration = Duration::from_secs(2);

/// Why no answer came.
#[derive(Debug)]
pub enum ChannelError {
    /// The deadline passed.
    Timeout,
    /// The child closed the channel (it died, or closed the handle).
    Closed,
    /// The child sent something that is not a frame.
    Garbled(&'static str),
    /// The seat's [`StopHandle`] was stopped: the wait was abandoned.
    Stopped,
}

/// How a child ended: its exit code (an exception code after a crash) and the most memory it
/// committed.
#[derive(Debug, Clone, Copy)]
pub struct Exit {
    pub status: u32,
    /// The host ended the runner's job (a timeout, a stop, the seat dropped).
    pub killed: bool,
    pub max_rss_bytes: u64,
}

impl Exit {
    /// "crashed with exception 0xC0000005 (access violation)", "exited with code 3".
    pub fn describe(&self) -> String {
        if self.killed {
            return "was ended by the host".to_owned();
        }
        if self.status == othello_runner::MEMORY_LIMIT_EXIT_CODE {
            return "was ended by the runner's memory guard".to_owned();
        }
        match exception_name(self.status) {
            Some(exception) => format!("crashed with exception {exception}"),
            None => format!("exited with code {}", self.status),
        }
    }
}

/// A running runner child.
pub struct Runner {
    child: Child,
    requests: ChildStdin,
    responses: ChannelReader,
    buffer: Vec<u8>,
    stderr: Arc<StderrTail>,
    exit: Option<Exit>,
    /// Ends every wait for the child when stopped.
    stop: Option<StopHandle>,
    /// The job the runner and whatever it starts live in: limits, CPU time, and killed all
    /// together.
    job: Job,
    /// The job's CPU time at the last read (`None`: not read yet, or unreadable).
    cpu_mark: Option<Duration>,
    /// What [`Runner::cpu_peek`] read during the move under way.
    cpu_this_move: Duration,
    /// The sandboxed bot's private folder (its working folder and TEMP); removed after the
    /// runner (declared after `child` and `job`, so dropped after the runner is killed).
    _scratch: Option<ScratchDir>,
}

impl Runner {
    /// Starts `COMMAND [SANDBOX OPTIONS] -- LIBRARY` (see [`RunnerArgs`]) suspended, puts it in
    /// its job, then lets it run: the bot's code never runs outside the job. Once `stop` is
    /// stopped, every wait for the child ends at once with [`ChannelError::Stopped`].
    pub fn spawn(
        command: &RunnerCommand,
        library: &Path,
        options: &SeatOptions,
        stop: Option<StopHandle>,
    ) -> std::io::Result<Runner> {
        let scratch = if options.sandbox == SandboxMode::Off { None } else { Some(ScratchDir::create()?) };
        let job = Job::create(options.memory_limit_mb)?;
        let sandbox = SandboxArgs {
            sandbox: options.sandbox,
            scratch: scratch.as_ref().map(|s| s.path().to_path_buf()),
            ..SandboxArgs::off(options.memory_limit_mb)
        };
        let args = RunnerArgs::Serve(options.serve_args(library, sandbox));
        let mut command_line = Command::new(command.program());
        command_line.args(command.args()).args(args.to_args());
        // The standard library gives the child exactly its three standard handles (made
        // inheritable only while it starts this child); the runner then hides the channel's.
        let mut child = command_line
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .creation_flags(CREATE_SUSPENDED | CREATE_NO_WINDOW)
            .spawn()?;
        if let Err(error) = job.assign(&child).and_then(|()| resume(child.id())) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(error);
        }
        let requests = child.stdin.take().expect("piped stdin");
        let responses = ChannelReader::start(child.stdout.take().expect("piped stdout"))?;
        let stderr = StderrTail::collect(child.stderr.take().expect("piped stderr"), "runner-stderr")?;
        Ok(Runner {
            child,
            requests,
            responses,
            buffer: Vec::with_capacity(256),
            stderr,
            exit: None,
            stop,
            job,
            cpu_mark: None,
            cpu_this_move: Duration::ZERO,
            _scratch: scratch,
        })
    }

    pub fn send(&mut self, request: &Request) -> Result<(), ChannelError> {
        self.requests.write_all(&request.encode()).map_err(|_| ChannelError::Closed)
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
            match self.responses.take(&mut self.buffer) {
                Taken::Bytes => continue,
                Taken::Closed => return Err(ChannelError::Closed),
                Taken::Overflowed => return Err(ChannelError::Garbled("unasked data flooded the channel")),
                Taken::Nothing => self.wait_readable(deadline)?,
            }
        }
    }

    fn wait_readable(&self, deadline: Instant) -> Result<(), ChannelError> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ChannelError::Timeout);
        }
        let timeout_ms = left.as_micros().div_ceil(1000).min(u128::from(u32::MAX - 1)) as u32;
        let ready = self.responses.ready_handle();
        let woken = match &self.stop {
            Some(stop) => wait_any(&[ready, stop.wake_handle()], timeout_ms),
            None => wait_any(&[ready], timeout_ms),
        };
        match woken {
            Woken::Signalled(1) => Err(ChannelError::Stopped),
            // Data, or a timed-out slice: the caller looks again (and at the clock).
            Woken::Signalled(_) | Woken::TimedOut => Ok(()),
            Woken::Failed => Err(ChannelError::Closed),
        }
    }

    /// Ends the runner's job (the runner and everything it started) and reaps the runner.
    pub fn kill(&mut self) -> Exit {
        if let Some(exit) = self.exit {
            return exit;
        }
        // A runner that already ended keeps its own exit code; the job still goes, with whatever
        // the bot may have left running.
        let ended_by_itself = matches!(self.child.try_wait(), Ok(Some(_)));
        self.job.terminate();
        let status = self.child.wait().ok().and_then(|s| s.code()).map_or(KILLED_EXIT_CODE, |c| c as u32);
        self.exit = Some(Exit {
            status,
            killed: !ended_by_itself && status == KILLED_EXIT_CODE,
            max_rss_bytes: self.job.peak_process_memory(),
        });
        self.exit.expect("just set")
    }

    /// Waits (briefly) for a child that closed its channel, killing it if it lingers.
    pub fn wait_exit(&mut self) -> Exit {
        // SAFETY: the process handle stays open as long as `self.child`.
        let waited = unsafe { WaitForSingleObject(self.child.as_raw_handle() as HANDLE, EXIT_WAIT.as_millis() as u32) };
        let _ = waited == WAIT_OBJECT_0; // exited or not, `kill` reaps it (and keeps its own code)
        self.kill()
    }

    /// A seat not on move is not suspended on Windows (no freezer): nothing to do.
    pub fn set_frozen(&self, frozen: bool) {
        let _ = frozen;
    }

    /// As [`set_frozen`](Runner::set_frozen): no freezer on Windows, nothing to do.
    pub fn freeze_soon(&self) {}

    /// No CPU share on Windows: never held back.
    pub fn throttled_since_last(&mut self, _span: Duration) -> Option<Duration> {
        None
    }

    /// CPU time used by the runner's job (every process it started, those that ended included)
    /// since the last call, from the job's accounting; the first call starts the count and
    /// returns `None`. What [`Runner::cpu_peek`] read since the last call is included.
    pub fn cpu_since_last(&mut self) -> Option<Duration> {
        let peeked = std::mem::take(&mut self.cpu_this_move);
        self.read_cpu().map(|rest| peeked + rest)
    }

    /// The CPU time the job used since the last [`Runner::cpu_since_last`], read now (while the
    /// bot thinks).
    pub fn cpu_peek(&mut self) -> Option<Duration> {
        let since = self.read_cpu()?;
        self.cpu_this_move += since;
        Some(self.cpu_this_move)
    }

    /// Whether the last read of the job's CPU time gave a value.
    pub fn cpu_readable(&self) -> bool {
        self.cpu_mark.is_some()
    }

    fn read_cpu(&mut self) -> Option<Duration> {
        let now = self.job.cpu_time();
        let since = now.zip(self.cpu_mark).map(|(now, mark)| now.saturating_sub(mark));
        self.cpu_mark = now;
        since
    }

    /// Not read on Windows: the wall-clock cap is not extended by the time the bot waited.
    pub fn run_delay(&self) -> Option<Duration> {
        None
    }

    /// Whether a process of the runner's job was refused memory by the job's limit.
    pub fn hit_memory_limit(&mut self) -> bool {
        let guard_ended_it = self.exit.is_some_and(|exit| exit.status == othello_runner::MEMORY_LIMIT_EXIT_CODE);
        self.job.hit_memory_limit() || guard_ended_it
    }

    /// The child's process id (it stays ours until the runner is reaped).
    pub fn id(&self) -> u32 {
        self.child.id()
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

/// Resumes the main thread of a process started suspended (its only thread).
fn resume(process_id: u32) -> std::io::Result<()> {
    // SAFETY: a snapshot of the system's threads, closed below; THREADENTRY32 is plain data with
    // its size set as the API requires; the thread handle is closed after use.
    unsafe {
        let snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
        if snapshot == INVALID_HANDLE_VALUE {
            return Err(std::io::Error::last_os_error());
        }
        let mut entry = THREADENTRY32 { dwSize: size_of::<THREADENTRY32>() as u32, ..Default::default() };
        let mut more = Thread32First(snapshot, &mut entry) != 0;
        let mut resumed = false;
        while more {
            if entry.th32OwnerProcessID == process_id {
                let thread = OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID);
                if !thread.is_null() {
                    resumed |= ResumeThread(thread) != u32::MAX;
                    CloseHandle(thread);
                }
            }
            more = Thread32Next(snapshot, &mut entry) != 0;
        }
        CloseHandle(snapshot);
        if resumed { Ok(()) } else { Err(std::io::Error::other("could not resume the runner's main thread")) }
    }
}
