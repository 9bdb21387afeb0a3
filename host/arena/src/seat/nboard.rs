//! NBoard seats: an external engine (Edax, a student's engine, `othello nboard BOT`) that speaks
//! the NBoard protocol on its stdin and stdout plays in the arena like any bot.
//!
//! The engine runs in a process group of its own, so everything it starts is ended with it: on a
//! failure, on drop, and before a fresh engine is started for the next game. Every read has a
//! deadline; a crash, hang, garbage reply or exit is a named loss with the engine's stderr tail.
//!
//! A game's first `think` sends `set game` with the position to move from; later ones send the
//! moves played since (`move F5`, `move PA`), found from the positions the referee shows, as
//! NBoard does, so the engine keeps its game (and its hash tables); a position that no short run
//! of moves reaches gets a `set game` again. Then `go`, and lines are read up to the `===` reply.
//! Nothing else is sent until the reply comes: some engines stop searching on `ping`. Engines do
//! not play their own reply on their board (Edax's `go` leaves it): it is sent back with `move`.

use std::io::{BufRead, BufReader, Write};
#[cfg(unix)]
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use othello_sdk::{Bitboard, Move, Position, SearchInfo};

use super::failure::{Failure, Termination};
use super::isolated::{StopHandle, UNLIMITED_THINK_DEADLINE};
use super::player::{Reply, Seat};
use super::runner_command::RunnerCommand;
use super::spec::SandboxMode;
use super::spec::SeatOptions;
use super::spec::sanitize_bot_name;
use super::stderr_tail::StderrTail;
use crate::nboard::EngineSpec;
use crate::nboard::protocol::{
    EngineLine, MAX_DEPTH, PROTOCOL_VERSION, format_move, format_set_game, parse_engine_line,
};
#[cfg(unix)]
use othello_sandbox::jail::{Jail, KEEPER_EXIT_WAIT, wait_for_exit};

/// Longest line kept of the engine's output (the rest of the line is dropped): a runaway engine
/// printing without newlines cannot fill the host's memory.
const MAX_LINE_BYTES: usize = 4096;
/// Output lines held for the seat before the reader stops reading: an engine that floods its
/// output while the seat is not waiting for it (the opponent's turn) is held up by the full pipe
/// instead of filling the host's memory.
const MAX_QUEUED_LINES: usize = 1024;
/// How long an engine whose output closed gets to exit on its own before it is killed (its exit
/// code goes into the failure).
const EXIT_WAIT: Duration = Duration::from_secs(2);
/// Poll step while waiting for an exit, and for a stop request while waiting for output.
const POLL_STEP: Duration = Duration::from_millis(5);

/// A seat whose player is an NBoard engine process.
pub struct NboardSeat {
    spec: EngineSpec,
    level: Option<u32>,
    options: SeatOptions,
    name: String,
    engine: Option<Engine>,
    /// The number of the last `ping` sent (each new game syncs with a fresh one).
    last_ping: u64,
    /// The position the engine holds (`None` before a game's first `set game`).
    engine_position: Option<Position>,
    stop: Option<StopHandle>,
    /// Starts the engine in the runner's sandbox (`RUNNER exec … -- COMMAND`) when given.
    runner: Option<RunnerCommand>,
}

impl NboardSeat {
    /// Starts the engine `spec` in its working folder, announces the protocol, sets the depth
    /// `level` if given and sends the spec's init lines. Fails with a `load-error` if the engine
    /// cannot be started or does not answer a `ping` within the load timeout. The seat is named
    /// by the spec's name, else by the engine's own `set myname`, else by its command.
    pub fn open(
        spec: &EngineSpec,
        level: Option<u32>,
        options: SeatOptions,
        stop: Option<StopHandle>,
    ) -> Result<NboardSeat, Failure> {
        NboardSeat::open_with_runner(spec, level, options, stop, None)
    }

    /// [`NboardSeat::open`], with the engine started in the sandbox of `runner` (`RUNNER exec …
    /// -- COMMAND`, see `othello_sandbox::ExecArgs`) unless `options.sandbox` is `off`: namespaces,
    /// cgroup limits and freezer, Landlock (its own folders readable, its scratch folder
    /// writable), seccomp. Without a runner the engine is a plain process (`strict` refuses).
    pub fn open_with_runner(
        spec: &EngineSpec,
        level: Option<u32>,
        options: SeatOptions,
        stop: Option<StopHandle>,
        runner: Option<RunnerCommand>,
    ) -> Result<NboardSeat, Failure> {
        let name = spec.display_name();
        let spec = spec.clone();
        let runner = runner.filter(|_| options.sandbox != SandboxMode::Off);
        // (Windows runs every engine in a Job Object of its own instead.)
        if cfg!(unix) && runner.is_none() && options.sandbox == SandboxMode::Strict {
            return Err(Failure::new(
                Termination::LoadError,
                "--sandbox strict: this engine would run without the sandbox (no runner to start it in)",
            ));
        }
        let sandboxed = runner.is_some();
        let mut seat =
            NboardSeat { spec, level, options, name, engine: None, last_ping: 0, engine_position: None, stop, runner };
        if let Err(failure) = seat.new_game() {
            // Before the first game: say what the sandbox blocked, if the engine's stderr tells.
            if let Some(why) = othello_sandbox::diagnose_blocked(&failure.stderr_tail).filter(|_| sandboxed) {
                let detail = format!("{}; {why}", failure.detail);
                return Err(failure.with_detail(detail));
            }
            return Err(failure);
        }
        Ok(seat)
    }

    /// The engine's process id (`None` after a failure, until the next game starts a new one).
    pub fn engine_id(&self) -> Option<u32> {
        self.engine.as_ref().map(|engine| engine.child.id())
    }

    fn start_engine(&mut self) -> Result<(), Failure> {
        if self.stop.as_ref().is_some_and(StopHandle::is_stopped) {
            return Err(Failure::new(Termination::LoadError, "stopped by the host before the engine started"));
        }
        let mut engine = Engine::spawn(&self.spec, self.runner.as_ref(), &self.options).map_err(|why| {
            Failure::new(Termination::LoadError, format!("cannot start the engine `{}`: {why}", self.spec.command))
        })?;
        let mut hello = vec![format!("nboard {PROTOCOL_VERSION}")];
        if let Some(level) = self.level {
            hello.push(format!("set depth {}", level.clamp(1, MAX_DEPTH)));
        }
        hello.extend(self.spec.init_strings.iter().cloned());
        for line in hello {
            if let Err(failure) = engine.send(&line) {
                self.engine = Some(engine);
                return Err(self.fail(Failure { termination: Termination::LoadError, ..failure }));
            }
        }
        self.engine = Some(engine);
        Ok(())
    }

    /// Sends `ping N` and reads up to `pong N`: whatever the engine still had to say (a late
    /// reply, status lines) is read and dropped, and a `set myname` renames the seat.
    fn synchronise(&mut self) -> Result<(), Failure> {
        self.last_ping += 1;
        let ping = self.last_ping;
        let deadline = Instant::now() + self.options.load_timeout;
        let engine = self.engine.as_mut().expect("an engine is running");
        let result = engine.send(&format!("ping {ping}")).and_then(|()| {
            loop {
                match engine.read_line(deadline, self.stop.as_ref()) {
                    Ok(line) => match parse_engine_line(&line) {
                        EngineLine::Pong(n) if n == ping => break Ok(()),
                        // A name given in the engines file is the user's choice and stays.
                        EngineLine::MyName(name) if self.spec.name.is_empty() => {
                            if let Some(name) = sanitize_bot_name(&name) {
                                self.name = name;
                            }
                        }
                        _ => {}
                    },
                    Err(ReadError::Timeout) => {
                        break Err(Failure::new(
                            Termination::LoadError,
                            format!(
                                "no `pong {ping}` within {} ms of `ping {ping}`",
                                self.options.load_timeout.as_millis()
                            ),
                        ));
                    }
                    Err(ReadError::Closed) => break Err(engine.exit_failure("while starting a game")),
                    Err(ReadError::Stopped) => break Err(stopped_failure()),
                }
            }
        });
        result.map_err(|failure| {
            let termination =
                if failure.termination == Termination::Crash { Termination::LoadError } else { failure.termination };
            self.fail(Failure { termination, ..failure })
        })
    }

    /// Ends the engine and attaches its stderr tail to `failure`.
    fn fail(&mut self, mut failure: Failure) -> Failure {
        self.engine_position = None;
        if let Some(mut engine) = self.engine.take() {
            engine.kill();
            failure = failure.with_output(engine.stderr_tail());
        }
        failure
    }

    /// Reads lines up to the `===` reply, gathering the search report on the way.
    fn await_move(&mut self, deadline: Instant) -> Result<(Move, SearchInfo), Failure> {
        let engine = self.engine.as_mut().expect("an engine is running");
        let mut info = SearchInfo::default();
        loop {
            let line = match engine.read_line(deadline, self.stop.as_ref()) {
                Ok(line) => line,
                Err(ReadError::Timeout) => return Err(Failure::new(Termination::Timeout, String::new())),
                Err(ReadError::Closed) => return Err(engine.exit_failure("in think")),
                Err(ReadError::Stopped) => return Err(stopped_failure()),
            };
            match parse_engine_line(&line) {
                EngineLine::Move(reply) => {
                    info.eval = reply.eval.or(info.eval);
                    return Ok((reply.mv, info));
                }
                EngineLine::UnreadableMove(line) => {
                    return Err(Failure::new(Termination::Crash, format!("unparseable reply to `go`: `{line}`")));
                }
                EngineLine::NodeStats { nodes } => info.nodes = Some(nodes),
                EngineLine::Search { eval, depth, exact, .. } => {
                    info.eval = eval.or(info.eval);
                    info.depth = depth.or(info.depth);
                    info.exact = exact;
                }
                // Status and debug lines are not the answer (NBoard ignores them too).
                _ => {}
            }
        }
    }
}

impl Seat for NboardSeat {
    fn name(&self) -> &str {
        &self.name
    }

    /// `set depth` takes 1..=60: each depth is a level.
    fn levels(&self) -> u32 {
        MAX_DEPTH
    }

    fn new_game(&mut self) -> Result<(), Failure> {
        let started = Instant::now();
        self.engine_position = None;
        if self.engine.is_none() {
            self.start_engine()?;
        }
        self.synchronise()?;
        // Idle until its first move: frozen a moment from now (unless pondering is allowed). Its
        // first move's time held back by its CPU share counts from here.
        let engine = self.engine.as_mut().expect("an engine is running");
        engine.idle(None);
        engine.throttled_since_last(started.elapsed());
        Ok(())
    }

    fn think(&mut self, position: &Position, time_limit: Option<Duration>) -> Result<Reply, Failure> {
        // NBoard never asks an engine to pass: the host answers forced passes itself.
        if position.must_pass() {
            return Ok(Reply {
                byte: Move::PASS_BYTE,
                elapsed: Duration::ZERO,
                info: None,
                cpu: None,
                throttled: None,
            });
        }
        let Some(engine) = self.engine.as_mut() else {
            return Err(Failure::new(Termination::Crash, "the engine is gone (a new game was not started)"));
        };
        let grace = time_limit.map_or(Duration::ZERO, |t| self.options.grace_for(t));
        let allowed = time_limit.map_or(UNLIMITED_THINK_DEADLINE, |t| t + grace);
        let started = Instant::now();
        let commands = match self.engine_position.and_then(|from| moves_between(from, *position)) {
            Some(moves) => moves.into_iter().map(|mv| format!("move {}", format_move(mv))).collect(),
            None => vec![format_set_game(position, "black", "white", time_limit)],
        };
        let sent = commands.iter().chain([&"go".to_owned()]).try_for_each(|line| engine.send(line));
        let answer = match sent {
            Ok(()) => self.await_move(started + allowed),
            Err(failure) => Err(failure),
        };
        let elapsed = started.elapsed();
        match answer {
            Ok((mv, info)) => {
                // The engine holds the position it answered in, and gets its reply back as a
                // `move` with the opponent's; an illegal reply ends the game anyway.
                self.engine_position = Some(*position);
                let info = (info != SearchInfo::default()).then_some(info);
                let engine = self.engine.as_mut().expect("an engine is running");
                let cpu = engine.idle(time_limit);
                let throttled = engine.throttled_since_last(elapsed).filter(|time| !time.is_zero());
                Ok(Reply { byte: mv.to_byte(), elapsed, info, cpu, throttled })
            }
            Err(failure) if failure.termination == Termination::Timeout => {
                let limit = time_limit.map_or("no limit".to_owned(), |t| format!("limit {} ms", t.as_millis()));
                let detail = format!(
                    "no move within {} ms ({limit} + grace {} ms); the engine was stopped",
                    allowed.as_millis(),
                    grace.as_millis()
                );
                Err(self.fail(failure.with_detail(detail)))
            }
            Err(failure) => Err(self.fail(failure)),
        }
    }
}

/// Most plies looked through for the moves from the engine's position to the next one it is
/// asked about: its own reply and the opponent's moves, with the forced passes between them (a
/// side that passes again and again near the end makes the run long).
const MAX_PLIES_BETWEEN: usize = 24;
/// Most squares filled between the two positions for a run to be looked for: the search tries
/// their orders, so it stays small; a longer gap gets a fresh `set game`.
const MAX_SQUARES_FILLED_BETWEEN: u32 = 10;

/// The moves (forced passes included) that lead from `from` to `to`, if a short run does. Only
/// the squares filled between the two positions are tried, so even a long run of moves and
/// passes is found at once; a position no run reaches gets a fresh `set game`.
fn moves_between(from: Position, to: Position) -> Option<Vec<Move>> {
    fn search(position: Position, to: Position, filled: Bitboard, plies_left: usize, path: &mut Vec<Move>) -> bool {
        if position == to {
            return true;
        }
        if plies_left == 0 || position.is_game_over() {
            return false;
        }
        let moves: Vec<Move> = if position.must_pass() {
            vec![Move::Pass]
        } else {
            (position.legal_moves() & filled & position.empty()).into_iter().map(Move::Play).collect()
        };
        for mv in moves {
            let mut next = position;
            next.play_unchecked(mv);
            path.push(mv);
            if search(next, to, filled, plies_left - 1, path) {
                return true;
            }
            path.pop();
        }
        false
    }
    // Every move fills one square: the run fills exactly the squares empty before and not after.
    let filled = from.empty() & !to.empty();
    if to.empty() & !from.empty() != Bitboard::EMPTY || filled.count() > MAX_SQUARES_FILLED_BETWEEN {
        return None;
    }
    let mut path = Vec::new();
    search(from, to, filled, MAX_PLIES_BETWEEN, &mut path).then_some(path)
}

fn stopped_failure() -> Failure {
    Failure::new(Termination::Crash, "stopped by the host: the engine was ended")
}

/// Why no line came.
enum ReadError {
    Timeout,
    /// The engine closed its output (it exited, most likely).
    Closed,
    Stopped,
}

/// A running engine process with a thread per pipe: the host never blocks on the engine, not even
/// writing to an engine that stopped reading its input.
struct Engine {
    child: Child,
    /// Lines for the writer thread; closed once it could not write.
    commands: Sender<String>,
    lines: Receiver<String>,
    stderr: Arc<StderrTail>,
    reaped: Option<std::process::ExitStatus>,
    /// Everything the engine started, killed with it.
    #[cfg(windows)]
    job: super::isolated::Job,
    /// Its sandbox (scratch folder, cgroup with freezer and CPU clock), or only the CPU clock of
    /// a plain engine process.
    #[cfg(unix)]
    jail: Jail,
    /// Closing it tells a sandboxed engine's keeper to end the engine (and everything it
    /// started) and exit.
    #[cfg(unix)]
    end: Option<std::os::fd::OwnedFd>,
}

impl Engine {
    fn spawn(spec: &EngineSpec, runner: Option<&RunnerCommand>, options: &SeatOptions) -> Result<Engine, String> {
        let mut command = spec.words()?;
        // The program as found from the working folder (`./edax` in Edax's `bin/`).
        command[0] = spec.program().to_string_lossy().into_owned();
        let folder = spec.working_directory.as_deref();
        if let Some(folder) = folder
            && !folder.is_dir()
        {
            return Err(format!("its working folder {} is not a folder", folder.display()));
        }
        // The entry's own `read` and `env` add to those of the options, for this engine alone.
        let read: Vec<PathBuf> = options.read.iter().chain(&spec.read).cloned().collect();
        let env: Vec<String> = options.env.iter().chain(&spec.env).cloned().collect();
        Engine::start(&command, folder, runner, options, &read, &env).map_err(|e| e.to_string())
    }

    fn start(
        command: &[String],
        folder: Option<&std::path::Path>,
        runner: Option<&RunnerCommand>,
        options: &SeatOptions,
        read: &[PathBuf],
        env: &[String],
    ) -> std::io::Result<Engine> {
        // Windows' sandbox has no read list and no clean environment for engines (the layer
        // report says so).
        #[cfg(windows)]
        let _ = (read, env);
        #[cfg(unix)]
        let (mut command_line, jail, end) = match runner {
            Some(runner) => {
                let (command_line, jail, end) = othello_sandbox::engine::sandboxed_command(
                    runner.program(),
                    runner.args(),
                    command,
                    folder,
                    &othello_sandbox::jail::JailOptions { read, env, ..options.jail() },
                )?;
                (command_line, jail, Some(end))
            }
            None => {
                let mut command_line = Command::new(&command[0]);
                // A group of its own: killing the group ends whatever the engine started too.
                command_line.args(&command[1..]).process_group(0);
                (command_line, Jail::unsandboxed(&options.jail()), None)
            }
        };
        #[cfg(not(unix))]
        let mut command_line = {
            let _ = (runner, options);
            let mut command_line = Command::new(&command[0]);
            command_line.args(&command[1..]);
            command_line
        };
        command_line.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        if let Some(folder) = folder {
            command_line.current_dir(folder);
        }
        let mut child = command_line.spawn()?;
        #[cfg(unix)]
        drop(command_line); // closes the host's copy of the end pipe's read end
        #[cfg(unix)]
        let mut jail = jail;
        #[cfg(unix)]
        jail.started(child.id());
        // Windows: a job of its own, for the same reason.
        #[cfg(windows)]
        let job = super::isolated::engine_job(&child)?;
        let input = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        let (sender, lines) = mpsc::sync_channel(MAX_QUEUED_LINES);
        let (commands, to_write) = mpsc::channel::<String>();
        let collected = StderrTail::collect(stderr_pipe, "nboard-stderr");
        let spawned = std::thread::Builder::new()
            .name("nboard-stdin".into())
            .spawn(move || write_commands(input, &to_write))
            .and_then(|_| {
                std::thread::Builder::new().name("nboard-stdout".into()).spawn(move || {
                    let mut reader = BufReader::new(stdout);
                    while let Some(line) = read_bounded_line(&mut reader) {
                        if sender.send(line).is_err() {
                            break; // the seat is gone
                        }
                    }
                })
            })
            .map(|_| ());
        let (stderr, spawned) = match collected {
            Ok(stderr) => (stderr, spawned),
            Err(e) => (Arc::new(StderrTail::default()), Err(e)),
        };
        let mut engine = Engine {
            child,
            commands,
            lines,
            stderr,
            reaped: None,
            #[cfg(windows)]
            job,
            #[cfg(unix)]
            jail,
            #[cfg(unix)]
            end,
        };
        if let Err(e) = spawned {
            engine.kill();
            return Err(e);
        }
        Ok(engine)
    }

    /// Time the engine's CPU share has held it back since the last read, at the end of a span
    /// (a move, a game's start) of `span`, where it has one (see `Jail::throttled_since_last`).
    fn throttled_since_last(&mut self, span: Duration) -> Option<Duration> {
        #[cfg(unix)]
        {
            self.jail.throttled_since_last(span)
        }
        #[cfg(not(unix))]
        {
            let _ = span;
            None
        }
    }

    /// The engine answered: it is frozen at once with a clock running (`time_limit`), else a
    /// moment later (unless pondering is allowed). Returns the CPU time it used since it was last
    /// idle, where it can be read.
    fn idle(&mut self, time_limit: Option<Duration>) -> Option<Duration> {
        #[cfg(unix)]
        {
            if time_limit.is_some() {
                self.jail.set_frozen(true);
            } else {
                self.jail.freeze_soon();
            }
            self.jail.cpu_since_last(self.child.id() as libc::pid_t)
        }
        #[cfg(not(unix))]
        {
            let _ = time_limit;
            None
        }
    }

    /// Queues a line for the engine (thawed to read it); fails once the engine's input is closed
    /// (it exited).
    fn send(&mut self, line: &str) -> Result<(), Failure> {
        #[cfg(unix)]
        self.jail.set_frozen(false);
        self.commands.send(format!("{line}\n")).map_err(|_| self.exit_failure("while being sent a command"))
    }

    /// The next line of output, if one comes before `deadline`.
    fn read_line(&mut self, deadline: Instant, stop: Option<&StopHandle>) -> Result<String, ReadError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ReadError::Timeout);
            }
            // With a stop handle, wake up now and then to look at it.
            let wait = if stop.is_some() { left.min(POLL_STEP) } else { left };
            match self.lines.recv_timeout(wait) {
                Ok(line) => return Ok(line),
                Err(RecvTimeoutError::Disconnected) => return Err(ReadError::Closed),
                Err(RecvTimeoutError::Timeout) => {
                    if stop.is_some_and(StopHandle::is_stopped) {
                        return Err(ReadError::Stopped);
                    }
                }
            }
        }
    }

    /// The failure of an engine that closed its output or input: how it ended, once it has.
    fn exit_failure(&mut self, phase: &str) -> Failure {
        let status = self.wait_exit();
        #[cfg(unix)]
        let signal = std::os::unix::process::ExitStatusExt::signal(&status);
        #[cfg(not(unix))]
        let signal: Option<i32> = None;
        let how = match (status.code(), signal) {
            (Some(code), _) => format!("the engine exited with code {code}"),
            (None, Some(signal)) => format!("the engine was killed by signal {signal}"),
            (None, None) => format!("the engine ended ({status})"),
        };
        Failure::new(Termination::Crash, format!("{how} {phase}"))
    }

    /// Waits briefly for an engine that closed its output to exit, killing it if it lingers.
    fn wait_exit(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + EXIT_WAIT;
        while Instant::now() < deadline && !self.has_exited() {
            std::thread::sleep(POLL_STEP);
        }
        // Exited or not, the rest of its group goes with it.
        self.kill()
    }

    /// The engine has ended (it is left unreaped, so its process group id stays reserved).
    #[cfg(unix)]
    fn has_exited(&self) -> bool {
        if self.reaped.is_some() {
            return true;
        }
        // Raw waitid: nix has it on Linux only, and this runs on macOS too.
        // SAFETY: an all-zero siginfo_t is a valid value to be overwritten.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        // SAFETY: valid out-pointer; the pid is our unreaped child; WNOWAIT leaves it unreaped.
        let found = unsafe { libc::waitid(libc::P_PID, self.child.id() as libc::id_t, &mut info, flags) };
        // SAFETY: waitid filled `info` (si_pid stays 0 when the child is still running).
        found == 0 && unsafe { info.si_pid() } != 0
    }

    /// The engine has ended.
    #[cfg(windows)]
    fn has_exited(&self) -> bool {
        self.reaped.is_some() || super::isolated::has_ended(&self.child)
    }

    /// Kills the engine and everything it started (its job), and reaps the engine.
    #[cfg(windows)]
    fn kill(&mut self) -> std::process::ExitStatus {
        if let Some(status) = self.reaped {
            return status;
        }
        self.job.terminate();
        let status = self.child.wait().expect("a killed child can be reaped");
        self.reaped = Some(status);
        status
    }

    /// Kills the engine's whole process group and reaps the engine. A sandboxed engine's keeper is
    /// asked first (its end pipe closed): it ends the jail, reaps it and exits.
    #[cfg(unix)]
    fn kill(&mut self) -> std::process::ExitStatus {
        if let Some(status) = self.reaped {
            return status;
        }
        self.jail.set_frozen(false);
        if self.end.take().is_some()
            && wait_for_exit(self.child.id() as libc::pid_t, KEEPER_EXIT_WAIT)
            && let Ok(status) = self.child.wait()
        {
            self.reaped = Some(status);
            return status;
        }
        // The group id is the engine's pid, reserved while the engine is unreaped: the signal
        // cannot reach a stranger's group.
        let group = nix::unistd::Pid::from_raw(self.child.id() as libc::pid_t);
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        let status = self.child.wait().expect("a killed child can be reaped");
        self.reaped = Some(status);
        status
    }

    fn stderr_tail(&self) -> Vec<String> {
        self.stderr.lines(true)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Writes the queued lines to the engine until the seat is gone or the engine's input is closed.
fn write_commands(mut input: ChildStdin, lines: &Receiver<String>) {
    for line in lines {
        if input.write_all(line.as_bytes()).and_then(|()| input.flush()).is_err() {
            break; // the engine closed its input: the next send fails
        }
    }
}

/// One line without its end (`\n` or `\r\n`), at most [`MAX_LINE_BYTES`] of it kept; `None` at
/// the end of the stream.
fn read_bounded_line(reader: &mut impl BufRead) -> Option<String> {
    let mut line = Vec::new();
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        if buffer.is_empty() {
            return (!line.is_empty()).then(|| String::from_utf8_lossy(&line).into_owned());
        }
        let (used, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (end + 1, true),
            None => (buffer.len(), false),
        };
        let room = MAX_LINE_BYTES.saturating_sub(line.len());
        line.extend_from_slice(&buffer[..used.min(room)]);
        reader.consume(used);
        if done {
            let text = String::from_utf8_lossy(&line);
            return Some(text.trim_end_matches(['\n', '\r']).to_owned());
        }
    }
}

/// The name an engine plays under: its engines-file name, else the name it gives itself with
/// `set myname` when started — as `seating` runs it, in the sandbox unless that is off — and
/// ended.
pub fn engine_name(spec: &EngineSpec, seating: &super::Seating) -> Result<String, Failure> {
    if !spec.name.is_empty() {
        return Ok(spec.name.clone());
    }
    super::open_seat(&seating.spec(spec.bot_name(), None)).map(|seat| seat.name().to_owned())
}

/// The engine a seat's library path names, if it is an NBoard engine (`nboard:…`); an error
/// when the engine description cannot be read.
pub fn engine_spec_of(library: &std::path::Path) -> Option<Result<EngineSpec, String>> {
    EngineSpec::from_bot_name(library.to_str()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_moves_since_the_engines_position_are_found_passes_included() {
        let play = |position: &mut Position, text: &str| position.play(text.parse::<Move>().unwrap());
        let start = Position::start();
        let mut after_two = start;
        play(&mut after_two, "f5");
        play(&mut after_two, "d6");
        assert_eq!(moves_between(start, after_two), Some(vec!["f5".parse().unwrap(), "d6".parse().unwrap()]));
        assert_eq!(moves_between(start, start), Some(vec![]));
        assert_eq!(moves_between(after_two, start), None, "moves are never taken back");
        // Black (b1) must pass; white plays c1: the pass is sent too.
        let must_pass = Position::from_board_string(&format!("OX{} X", "-".repeat(62))).unwrap();
        let mut after = must_pass;
        play(&mut after, "pa");
        play(&mut after, "c1");
        assert_eq!(moves_between(must_pass, after), Some(vec![Move::Pass, "c1".parse().unwrap()]));
    }

    #[test]
    fn long_lines_are_cut_and_line_ends_dropped() {
        let long = "x".repeat(MAX_LINE_BYTES * 2);
        let text = format!("=== f5\r\n{long}\nlast");
        let mut reader = BufReader::new(text.as_bytes());
        assert_eq!(read_bounded_line(&mut reader).as_deref(), Some("=== f5"));
        assert_eq!(read_bounded_line(&mut reader).map(|l| l.len()), Some(MAX_LINE_BYTES));
        assert_eq!(read_bounded_line(&mut reader).as_deref(), Some("last"));
        assert_eq!(read_bounded_line(&mut reader), None);
    }
}
