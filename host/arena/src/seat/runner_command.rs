//! How the arena starts a bot's runner process: an explicit program and arguments, never an
//! unstated assumption about which executable is running.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

/// File name of the standalone runner (`othello-runner`, `othello-runner.exe` on Windows).
pub const RUNNER_EXECUTABLE: &str = if cfg!(windows) { "othello-runner.exe" } else { "othello-runner" };

/// The command that starts a runner: `program args… --memory-mb N LIBRARY`.
///
/// ```
/// use othello_arena::seat::RunnerCommand;
///
/// // The standalone runner binary of the `othello-runner` crate …
/// let standalone = RunnerCommand::new("/opt/othello/othello-runner");
/// // … or a program that serves the runner itself under a subcommand
/// // (it calls `othello_runner::main_if_runner()` first thing in `main`).
/// let embedded = RunnerCommand::new("/usr/bin/othello").with_arg("runner");
/// assert_eq!(embedded.args(), ["runner"]);
/// # let _ = standalone;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunnerCommand {
    program: PathBuf,
    args: Vec<OsString>,
}

/// No runner executable where one was looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunnerNotFound {
    pub looked_at: PathBuf,
}

impl fmt::Display for RunnerNotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the bot runner was not found at {} (build it with `cargo build -p othello-runner`, or give the \
             runner command explicitly)",
            self.looked_at.display()
        )
    }
}

impl std::error::Error for RunnerNotFound {}

impl RunnerCommand {
    /// Runs `program` with no leading arguments.
    pub fn new(program: impl Into<PathBuf>) -> RunnerCommand {
        RunnerCommand { program: program.into(), args: Vec::new() }
    }

    /// The same command with one more leading argument (before the runner's own).
    pub fn with_arg(mut self, arg: impl Into<OsString>) -> RunnerCommand {
        self.args.push(arg.into());
        self
    }

    /// The default place: [`RUNNER_EXECUTABLE`] in the folder of the current executable.
    pub fn beside_current_exe() -> Result<RunnerCommand, RunnerNotFound> {
        let exe = std::env::current_exe().unwrap_or_default();
        let folder = exe.parent().unwrap_or(Path::new("."));
        RunnerCommand::in_folder(folder)
    }

    /// [`RUNNER_EXECUTABLE`] in `folder`, if it is there.
    pub fn in_folder(folder: &Path) -> Result<RunnerCommand, RunnerNotFound> {
        let path = folder.join(RUNNER_EXECUTABLE);
        if path.is_file() { Ok(RunnerCommand::new(path)) } else { Err(RunnerNotFound { looked_at: path }) }
    }

    pub fn program(&self) -> &Path {
        &self.program
    }

    pub fn args(&self) -> &[OsString] {
        &self.args
    }
}

impl fmt::Display for RunnerCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.program.display())?;
        for arg in &self.args {
            write!(f, " {}", arg.to_string_lossy())?;
        }
        Ok(())
    }
}
