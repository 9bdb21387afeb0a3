//! Isolated seats: each runs its bot in a runner child process of its own
//! (started by a [`RunnerCommand`]: the `othello-runner` binary, or `othello runner`). A crash, hang, memory
//! hog or stray print of the bot costs it the game, never the host.
//!
//! One child serves a seat for many games (`init` is called before each);
//! after any failure the child is killed and the next game gets a fresh one.

#[cfg(unix)]
mod process;
#[cfg(unix)]
mod stop;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(crate) use othello_sandbox::job::{Job, engine_job};
#[cfg(windows)]
pub(crate) use windows::has_ended;
#[cfg(windows)]
use windows::{process, stop};

use std::time::{Duration, Instant};

use othello_sdk::abi::{OTHELLO_ANALYZE_ERROR, OTHELLO_MOVE_ERROR, OthelloBoard};
use othello_sdk::{Position, SearchInfo};

use othello_runner::protocol::{LOSS_LOAD_ERROR, LOSS_OUT_OF_MEMORY, LOSS_TIMEOUT, Request, Response};
#[cfg(unix)]
use process::signal_name;
use process::{ChannelError, Exit, Runner};
pub use stop::StopHandle;

use super::analysis::{Analysis, AnalysisError, validate};
use super::clock::{Clock, MoveBudget};
use super::failure::{Failure, Termination, move_error_failure};
use super::in_process::analysis_error_reason;
use super::player::{Reply, Seat};
use super::runner_command::RunnerCommand;
use super::spec::{SeatSpec, library_stem, sanitize_bot_name};
use super::wasm::is_wasm_file;

/// Deadline for a `think` without time limit (the host never waits forever).
pub const UNLIMITED_THINK_DEADLINE: Duration = Duration::from_secs(24 * 60 * 60);
/// A dead runner whose peak resident memory reached this share of the memory
/// left to the bot died of the limit.
const OUT_OF_MEMORY_PEAK_SHARE: f64 = 0.75;
/// What Rust's allocator prints before aborting when an allocation fails.
const RUST_ALLOCATION_FAILURE: &str = "memory allocation of";
/// A WebAssembly bot's move ends when its fuel does (the runner says so); the host holds the
/// runner only to this many times the limit in CPU time (and the CPU-time clock's wall cap of
/// that), a backstop for a machine far slower than the fuel rate assumes or a runtime fault.
const WASM_BACKSTOP_FACTOR: u32 = 10;

/// What a library told about itself when it loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    pub abi_version: u32,
    pub levels: u32,
    pub search_info: bool,
    pub last_error: bool,
    /// The library has the optional analysis export.
    pub analysis: bool,
    /// The runner's data size once loaded, in bytes: the memory limit minus
    /// this is what the bot can allocate.
    pub memory_after_load: u64,
}

/// A seat whose bot runs in a runner child.
pub struct IsolatedSeat {
    spec: SeatSpec,
    runner_command: RunnerCommand,
    runner: Option<Runner>,
    loaded: Loaded,
    name: String,
    /// Stops the runner from another thread, if the seat was opened with one.
    stop: Option<StopHandle>,
}

impl IsolatedSeat {
    /// Starts a runner and loads the library. Any failure is a `load-error`. The bot's `init` runs
    /// with the first [`Seat::new_game`] (which gives the seat the bot's own name).
    pub fn open(spec: &SeatSpec, runner_command: &RunnerCommand) -> Result<IsolatedSeat, Failure> {
        IsolatedSeat::open_stoppable(spec, runner_command, None)
    }

    /// Like [`IsolatedSeat::open`], with a handle that stops the seat from another thread: its
    /// runner is killed and reaped at once (while loading, in `init` or in `think`), the call
    /// under way fails, and no new runner is started.
    pub fn open_stoppable(
        spec: &SeatSpec,
        runner_command: &RunnerCommand,
        stop: Option<StopHandle>,
    ) -> Result<IsolatedSeat, Failure> {
        let (runner, loaded) = start_runner(spec, runner_command, stop.as_ref())?;
        Ok(IsolatedSeat {
            spec: spec.clone(),
            runner_command: runner_command.clone(),
            runner: Some(runner),
            loaded,
            name: library_stem(&spec.library),
            stop,
        })
    }

    /// What the library reported when it loaded.
    pub fn loaded(&self) -> &Loaded {
        &self.loaded
    }

    /// The process id of the current runner (`None` after a failure, until the next game).
    pub fn runner_id(&self) -> Option<u32> {
        self.runner.as_ref().map(Runner::id)
    }

    /// Calls `init` (and sets the level) in the current runner.
    fn start_game(&mut self) -> Result<(), Failure> {
        let budget = self.memory_budget();
        let runner = self.runner.as_mut().expect("a runner is running");
        let started = Instant::now();
        let deadline = started + self.spec.options.load_timeout;
        // The request waits in the pipe while the bot is thawed: it wakes once, to read it.
        let sent = runner.send(&Request::NewGame { level: self.spec.level });
        runner.set_frozen(false);
        let answer = sent.and_then(|()| runner.receive(deadline));
        if answer.is_ok() {
            runner.freeze_soon();
            // The first move's CPU time (and time held back) counts from here, not from the
            // library's loading; the second read says whether the tree's CPU time can be read.
            runner.cpu_since_last();
            runner.cpu_peek();
            runner.throttled_since_last(started.elapsed());
        }
        let result = match answer {
            Ok(Response::Started { name: Some(name), .. }) => {
                if let Some(name) = sanitize_bot_name(&name) {
                    self.name = name;
                }
                return Ok(());
            }
            Ok(Response::Started { name: None, error: None }) => return Ok(()), // NULL: keep the file name
            Ok(Response::Started { name: None, error: Some(why) }) => {
                Failure::new(Termination::LoadError, format!("init failed: {why}"))
            }
            Ok(Response::Failed { loss, detail, output }) => return Err(self.fail_wasm(loss, detail, output)),
            Ok(other) => protocol_failure(&other),
            Err(error) => {
                let (mut failure, _) = channel_failure(runner, error, "init", self.spec.options.load_timeout, budget);
                if failure.termination != Termination::OutOfMemory {
                    failure.termination = Termination::LoadError;
                }
                failure
            }
        };
        Err(self.fail(result))
    }

    fn memory_budget(&self) -> MemoryBudget {
        MemoryBudget {
            limit_mb: self.spec.options.memory_limit_mb,
            used_by_runner: self.loaded.memory_after_load,
            cgroup_limit_hit: false,
        }
    }

    /// A WebAssembly bot's failure as its runner told it, with the module's own output. The
    /// runner stays: the failed instance is gone, the next game gets a fresh one from the
    /// module it compiled.
    fn fail_wasm(&mut self, loss: u8, detail: String, output: Vec<String>) -> Failure {
        let termination = match loss {
            LOSS_TIMEOUT => Termination::Timeout,
            LOSS_OUT_OF_MEMORY => Termination::OutOfMemory,
            LOSS_LOAD_ERROR => Termination::LoadError,
            _ => Termination::Crash,
        };
        Failure::new(termination, detail).with_output(output)
    }

    /// Ends the current runner and attaches its stderr tail to `failure`.
    fn fail(&mut self, mut failure: Failure) -> Failure {
        if let Some(mut runner) = self.runner.take() {
            runner.kill();
            failure = failure.with_output(runner.stderr_tail());
        }
        failure
    }
}

impl Seat for IsolatedSeat {
    fn name(&self) -> &str {
        &self.name
    }

    fn levels(&self) -> u32 {
        self.loaded.levels
    }

    fn new_game(&mut self) -> Result<(), Failure> {
        if self.runner.is_none() {
            let (runner, loaded) = start_runner(&self.spec, &self.runner_command, self.stop.as_ref())?;
            self.runner = Some(runner);
            self.loaded = loaded;
        }
        self.start_game()
    }

    fn think(&mut self, position: &Position, time_limit: Option<Duration>) -> Result<Reply, Failure> {
        let budget_memory = self.memory_budget();
        let Some(runner) = self.runner.as_mut() else {
            return Err(Failure::new(Termination::Crash, "the bot's runner is gone (a new game was not started)"));
        };
        let limit_ms = time_limit.map_or(0, |t| t.as_millis().clamp(1, u32::MAX as u128) as u32);
        let board = OthelloBoard::new(position, limit_ms);
        let grace = time_limit.map_or(Duration::ZERO, |t| self.spec.options.grace_for(t));
        let options = &self.spec.options;
        let wasm = is_wasm_file(&self.spec.library);
        let budget = time_limit.map(|t| match wasm {
            true => MoveBudget::new(Clock::Cpu, t * WASM_BACKSTOP_FACTOR, grace, 1),
            false => MoveBudget::new(options.clock, t, grace, options.threads),
        });
        // The seat's processes run only while it is on move (a freezer, where the machine has
        // one). The request is written first, so the thawed bot wakes once, to read it.
        let started = Instant::now();
        let sent = runner.send(&Request::Think { board });
        runner.set_frozen(false);
        let mut waited = Duration::ZERO;
        let answer = sent.and_then(|()| receive_within(runner, started, budget, &mut waited));
        let elapsed = started.elapsed();
        // What the cap is held to: the move's wall-clock time less what the machine held it back.
        let own_time = elapsed.saturating_sub(waited);
        if answer.is_ok() {
            // With a clock the opponent's time is at stake: frozen at once. Without one, a
            // moment later (a fast game then never pays for the freezer).
            if time_limit.is_some() {
                runner.set_frozen(true);
            } else {
                runner.freeze_soon();
            }
        }
        let cpu = runner.cpu_since_last();
        // Its own threads competing for its CPU share: recorded with the move, and said in a
        // loss on time, since it is the user's to raise.
        let throttled = runner.throttled_since_last(elapsed).filter(|time| !time.is_zero());
        let held_back = match throttled {
            Some(time) => format!(
                "; its CPU share of {} CPU(s) held it back for {} ms of it (more threads than --threads)",
                self.spec.options.threads.max(1),
                time.as_millis()
            ),
            None => String::new(),
        };
        let failure = match answer {
            // An answer that came before the deadline is judged again only on its CPU time: the
            // host itself may have been slow to read it on a busy machine.
            // A module's move: on its fuel, which the runner held it to; its time is its virtual time.
            Ok(Response::Moved { byte, info, error, fuel: Some(fuel) }) => match byte {
                OTHELLO_MOVE_ERROR => move_error_failure(error),
                _ => {
                    let cpu = Some(othello_wasm::virtual_time(fuel));
                    return Ok(Reply { byte, elapsed, info: info.map(SearchInfo::from), cpu, throttled });
                }
            },
            Ok(Response::Failed { loss, detail, output }) => return Err(self.fail_wasm(loss, detail, output)),
            Ok(Response::Moved { byte, info, error, fuel: None }) => {
                match budget.filter(|b| b.cpu.is_some() && cpu.is_some()).and_then(|b| b.overrun(cpu, Duration::ZERO)) {
                    Some(why) => Failure::new(Termination::Timeout, format!("{why}{held_back}")),
                    None if byte != OTHELLO_MOVE_ERROR => {
                        return Ok(Reply { byte, elapsed, info: info.map(SearchInfo::from), cpu, throttled });
                    }
                    None => move_error_failure(error),
                }
            }
            Ok(other) => protocol_failure(&other),
            Err(ChannelError::Timeout) => {
                let why = budget.and_then(|b| b.overrun(cpu, own_time)).unwrap_or_else(|| {
                    let allowed = budget.map_or(UNLIMITED_THINK_DEADLINE, |b| b.wall);
                    format!("no move within {} ms (no limit)", allowed.as_millis())
                });
                let not_counted = match waited.as_millis() {
                    0 => String::new(),
                    ms => format!(" (not counting {ms} ms it waited for a processor)"),
                };
                Failure::new(Termination::Timeout, format!("{why}{not_counted}; the bot was stopped{held_back}"))
            }
            Err(error) => {
                let allowed = budget.map_or(UNLIMITED_THINK_DEADLINE, |b| b.wall);
                channel_failure(runner, error, "think", allowed, budget_memory).0
            }
        };
        Err(self.fail(failure))
    }

    fn analyzes(&self) -> bool {
        self.loaded.analysis
    }

    fn analyze(&mut self, position: &Position, time_limit: Option<Duration>) -> Result<Analysis, AnalysisError> {
        if !self.loaded.analysis {
            return Err(AnalysisError::Unsupported);
        }
        let budget = self.memory_budget();
        let Some(runner) = self.runner.as_mut() else {
            let gone = Failure::new(Termination::Crash, "the bot's runner is gone (a new game was not started)");
            return Err(AnalysisError::Failed(gone));
        };
        let limit_ms = time_limit.map_or(0, |t| t.as_millis().clamp(1, u32::MAX as u128) as u32);
        let board = OthelloBoard::new(position, limit_ms);
        // A module's analysis ends with its fuel: the host's deadline is only a backstop.
        let factor = if is_wasm_file(&self.spec.library) { WASM_BACKSTOP_FACTOR } else { 1 };
        let allowed = time_limit.map_or(UNLIMITED_THINK_DEADLINE, |t| t * factor + self.spec.options.grace);
        // Held to its time like a move: the same deadline, the same kill on a hang.
        runner.set_frozen(false);
        let started = Instant::now();
        let answer = runner.send(&Request::Analyze { board }).and_then(|()| runner.receive(started + allowed));
        let elapsed = started.elapsed();
        if answer.is_ok() {
            runner.set_frozen(true);
        }
        let failure = match answer {
            Ok(Response::Analyzed { returned, values, error }) => {
                if returned == OTHELLO_ANALYZE_ERROR {
                    return Err(AnalysisError::Refused(analysis_error_reason(error)));
                }
                let (values, rejected) = validate(position, returned, &values);
                return Ok(Analysis { values, rejected, elapsed });
            }
            Ok(Response::Failed { loss, detail, output }) => {
                return Err(AnalysisError::Failed(self.fail_wasm(loss, detail, output)));
            }
            Ok(other) => protocol_failure(&other),
            Err(ChannelError::Timeout) => {
                let limit = time_limit.map_or("no limit".to_owned(), |t| format!("limit {} ms", t.as_millis()));
                Failure::new(
                    Termination::Timeout,
                    format!(
                        "no analysis within {} ms ({limit} + grace {} ms); the bot was stopped",
                        allowed.as_millis(),
                        self.spec.options.grace.as_millis()
                    ),
                )
            }
            Err(error) => channel_failure(runner, error, "othello_analyze", allowed, budget).0,
        };
        Err(AnalysisError::Failed(self.fail(failure)))
    }
}

/// Shortest wait between two looks at a thinking bot's CPU time on the CPU-time clock.
const SHORTEST_CPU_LOOK: Duration = Duration::from_millis(2);

/// Waits for the answer to a request sent at `started`. On the wall clock (or without a limit)
/// until the deadline; on the CPU-time clock, looking at the tree's CPU time as it goes: it ends
/// with [`ChannelError::Timeout`] once the tree used its CPU allowance, or at the wall-clock cap.
/// The looks are few: the tree cannot use what is left of its allowance faster than on every
/// processor of the machine at once, so the next look waits that long (a single-threaded bot on
/// an idle two-processor machine is looked at after half its allowance, a quarter, …). Where its
/// CPU time cannot be read, the move is on the wall clock.
///
/// The cap is for a bot that sleeps or blocks, not for one the machine's load holds back: the
/// time its threads waited for a processor since the first look (the scheduler's run delay,
/// where the machine tells it) is added to the cap, and returned in `waited`.
fn receive_within(
    runner: &mut Runner,
    started: Instant,
    budget: Option<MoveBudget>,
    waited: &mut Duration,
) -> Result<Response, ChannelError> {
    let Some(budget) = budget else { return runner.receive(started + UNLIMITED_THINK_DEADLINE) };
    // No read at the start: the tree was frozen since its last move ended (or, pondering, what it
    // used since is charged to this move at the first look), so a fast move pays for no read.
    let (Some(allowed), true) = (budget.cpu, runner.cpu_readable()) else {
        return runner.receive(started + budget.wall_clock());
    };
    let mut used = Duration::ZERO;
    // Asked once: the standard library reads the process's cgroup files for it each time.
    static PROCESSORS: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    let processors = *PROCESSORS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u32));
    let mut waited_mark = None;
    loop {
        if used > allowed {
            return Err(ChannelError::Timeout);
        }
        let wall_deadline = started + budget.wall + *waited;
        let step = ((allowed - used) / processors).max(SHORTEST_CPU_LOOK);
        let look = (Instant::now() + step).min(wall_deadline);
        match runner.receive(look) {
            Err(ChannelError::Timeout) if look < wall_deadline => {}
            Err(ChannelError::Timeout) => {
                // At the cap: extended by what the machine held the bot back since the first look.
                let now_waited = runner.run_delay();
                let waited_now =
                    now_waited.zip(waited_mark).map_or(Duration::ZERO, |(now, mark)| now.saturating_sub(mark));
                if waited_now <= *waited + SHORTEST_CPU_LOOK {
                    return Err(ChannelError::Timeout);
                }
                *waited = waited_now;
            }
            answer => return answer,
        }
        if waited_mark.is_none() {
            waited_mark = runner.run_delay();
        }
        match runner.cpu_peek() {
            Some(now) => used = now,
            None => return runner.receive(started + budget.wall_clock()),
        }
    }
}

/// Spawns a runner for `spec.library` and waits for the load report.
fn start_runner(
    spec: &SeatSpec,
    runner_command: &RunnerCommand,
    stop: Option<&StopHandle>,
) -> Result<(Runner, Loaded), Failure> {
    let options = &spec.options.runner_options(&spec.library);
    if stop.is_some_and(StopHandle::is_stopped) {
        return Err(stopped_failure("loading"));
    }
    // A module is compiled and checked here, once (the runner loads the compiled code): one that
    // is no bot is refused before any runner starts.
    if is_wasm_file(&spec.library) {
        othello_wasm::WasmModule::load_file(&spec.library).map_err(|why| Failure::new(Termination::LoadError, why))?;
    }
    let mut runner = Runner::spawn(runner_command, &spec.library, options, stop.cloned()).map_err(|e| {
        Failure::new(Termination::LoadError, format!("cannot start the bot runner `{runner_command}`: {e}"))
    })?;
    let deadline = Instant::now() + options.load_timeout;
    let failure = match runner.receive(deadline) {
        Ok(Response::Loaded { abi_version, levels, search_info, last_error, memory_after_load, analysis }) => {
            runner.freeze_soon();
            return Ok((runner, Loaded { abi_version, levels, search_info, last_error, analysis, memory_after_load }));
        }
        Ok(Response::LoadFailed { reason }) => {
            Failure::new(Termination::LoadError, crate::load_diagnosis::explain_load_failure(&spec.library, reason))
        }
        Ok(other) => protocol_failure(&other),
        Err(ChannelError::Timeout) => Failure::new(
            Termination::LoadError,
            format!("did not finish loading within {} ms", options.load_timeout.as_millis()),
        ),
        Err(error) => {
            let no_budget = MemoryBudget { limit_mb: 0, used_by_runner: 0, cgroup_limit_hit: false };
            let (failure, _) = channel_failure(&mut runner, error, "loading", options.load_timeout, no_budget);
            Failure::new(Termination::LoadError, failure.detail)
        }
    };
    runner.kill();
    Err(failure.with_output(runner.stderr_tail()))
}

fn protocol_failure(response: &Response) -> Failure {
    Failure::new(Termination::Crash, format!("the runner answered out of turn: {response:?}"))
}

/// Describes a broken channel: the child died (how?) or garbled it, or timed out.
fn channel_failure(
    runner: &mut Runner,
    error: ChannelError,
    phase: &str,
    allowed: Duration,
    budget: MemoryBudget,
) -> (Failure, Exit) {
    match error {
        ChannelError::Timeout => {
            let exit = runner.kill();
            let failure =
                Failure::new(Termination::Timeout, format!("{phase} did not return within {} ms", allowed.as_millis()));
            (failure, exit)
        }
        ChannelError::Garbled(why) => {
            let exit = runner.kill();
            (
                Failure::new(
                    Termination::Crash,
                    format!("the runner's channel was corrupted {}: {why}", during(phase)),
                ),
                exit,
            )
        }
        ChannelError::Closed => {
            let exit = runner.wait_exit();
            let tail = runner.stderr_tail();
            let budget = MemoryBudget { cgroup_limit_hit: runner.hit_memory_limit(), ..budget };
            (classify_exit(exit, phase, budget, &tail), exit)
        }
        ChannelError::Stopped => (stopped_failure(phase), runner.kill()),
    }
}

/// A call abandoned through the seat's [`StopHandle`]: not the bot's fault, and its game is over.
fn stopped_failure(phase: &str) -> Failure {
    Failure::new(Termination::Crash, format!("stopped by the host {}: the bot's runner was ended", during(phase)))
}

/// The memory limit of a runner and what the runner itself took of it.
#[derive(Debug, Clone, Copy)]
struct MemoryBudget {
    limit_mb: u64,
    used_by_runner: u64,
    /// The runner's cgroup counted its whole tree over the limit (shared memory, children).
    cgroup_limit_hit: bool,
}

/// Crash or out-of-memory, with the signal or exit code. A process that dies
/// after filling most of the memory left to the bot died of the limit
/// (C's malloc returns NULL there, Rust's allocator aborts).
fn classify_exit(exit: Exit, phase: &str, budget: MemoryBudget, stderr_tail: &[String]) -> Failure {
    let memory_limit_mb = budget.limit_mb;
    #[cfg(unix)]
    let status = exit.status;
    #[cfg(windows)]
    let how = exit.describe();
    #[cfg(unix)]
    let how = if libc::WIFSIGNALED(status) {
        format!("killed by {}", signal_name(libc::WTERMSIG(status)))
    } else if libc::WIFEXITED(status) {
        format!("exited with code {}", libc::WEXITSTATUS(status))
    } else {
        format!("ended with wait status {status:#x}")
    };
    let left_to_bot = memory_limit_mb.saturating_mul(1024 * 1024).saturating_sub(budget.used_by_runner);
    let allocation_failed = stderr_tail.iter().any(|line| line.contains(RUST_ALLOCATION_FAILURE));
    let at_limit = left_to_bot > 0 && exit.max_rss_bytes as f64 >= left_to_bot as f64 * OUT_OF_MEMORY_PEAK_SHARE;
    if memory_limit_mb > 0 && (allocation_failed || at_limit || budget.cgroup_limit_hit) {
        return Failure::new(
            Termination::OutOfMemory,
            format!(
                "went over the memory limit of {memory_limit_mb} MB {} (peak {} MB); {how}",
                during(phase),
                exit.max_rss_bytes / (1024 * 1024)
            ),
        );
    }
    Failure::new(Termination::Crash, format!("{how} {}", during(phase)))
}

/// "while loading", "in init", "in think".
fn during(phase: &str) -> String {
    if phase == "loading" { "while loading".to_owned() } else { format!("in {phase}") }
}
