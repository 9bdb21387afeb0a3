//! Secrets `othello` is given through its environment (a worker's token, later a database URL)
//! are taken out of it first thing, before any bot, engine or thread starts: what the program
//! needs is kept here, and no child process (nor a bot loaded in process) can read them in the
//! environment it inherits. Every variable that looks like a secret goes
//! ([`othello_sandbox::environment::secret_reason`]), not only the ones `othello` reads.

use std::sync::OnceLock;

/// The secrets taken from the environment at start: name and value.
static TAKEN: OnceLock<Vec<(String, String)>> = OnceLock::new();

/// Takes every variable that looks like a secret out of this process's environment, keeping
/// those `othello` reads. Call it first thing in `main`, while the process has one thread.
pub fn take_from_environment() {
    let secrets: Vec<(std::ffi::OsString, std::ffi::OsString)> = std::env::vars_os()
        .filter(|(name, value)| {
            name.to_str().is_some_and(|name| othello_sandbox::environment::secret_reason(name, Some(value)).is_some())
        })
        .collect();
    let mut kept = Vec::new();
    for (name, value) in secrets {
        // SAFETY: `main` calls this before it starts any thread, so no other thread reads or
        // writes the environment at the same time.
        unsafe { std::env::remove_var(&name) };
        if let (Ok(name), Ok(value)) = (name.into_string(), value.into_string()) {
            kept.push((name, value));
        }
    }
    let _ = TAKEN.set(kept);
}

/// The value the variable `name` had at start, if it looked like a secret and was taken.
pub fn taken(name: &str) -> Option<&'static str> {
    TAKEN.get()?.iter().find(|(taken, _)| taken == name).map(|(_, value)| value.as_str())
}

/// A secret read from a file (`--token-file`): its first line, trimmed; an error that says
/// what is wrong with the file.
pub fn read_secret_file(path: &std::path::Path, what: &str) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {what} from {}: {e}", path.display()))?;
    let secret = text.lines().next().unwrap_or("").trim().to_owned();
    if secret.is_empty() {
        return Err(format!("{} is empty: it should hold {what} on its first line", path.display()));
    }
    Ok(secret)
}
