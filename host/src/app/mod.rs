//! The desktop app (built in its own issue); `othello` without a subcommand lands here.

/// Runs the desktop app.
pub fn run() -> Result<(), String> {
    println!("the desktop app is not built yet; see `othello --help`");
    Ok(())
}
