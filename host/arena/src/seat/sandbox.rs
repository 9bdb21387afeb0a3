//! The sandbox as the arena's users see it (`othello list`, the app's Plugins panel, `--sandbox
//! strict`): the layer report of the runner a [`RunnerCommand`] starts, completed by the host's
//! own layers (see `othello_sandbox::report`).

pub use othello_sandbox::Layer as SandboxLayer;
pub use othello_sandbox::diagnose_blocked;

use super::runner_command::RunnerCommand;

/// Tries every layer of the sandbox in a runner started by `runner` (without a bot) and says
/// which are active on this machine and why any is missing.
pub fn sandbox_report(runner: &RunnerCommand) -> Result<Vec<SandboxLayer>, String> {
    othello_sandbox::host_report(runner.program(), runner.args())
}

/// With `--sandbox strict`: an error naming the first layer this machine lacks.
pub fn require_every_layer(runner: &RunnerCommand) -> Result<(), String> {
    othello_sandbox::require_every_layer(runner.program(), runner.args())
}
