//! `othello-runner exec [OPTIONS] -- PROGRAM [ARGS…]`: starts a program — an NBoard engine —
//! inside the same sandbox a bot's runner gets, with stdin, stdout and stderr passed through.
//!
//! The keeper, the namespaces, the resource limits, no capabilities, no-new-privs and seccomp are
//! those of a bot's runner (`othello_sandbox`); Landlock lets the program read (and run) the
//! system's libraries and programs and its own folder(s) (`--read`), and write only its scratch
//! folder. The program stays in the working folder the host gave it (an engine reads its data
//! relative to it), and `HOME` and `TMPDIR` point at its scratch folder. With `--end-fd N` the
//! keeper ends the jail as soon as the host closes the other end of descriptor N (without it,
//! when the host dies).

use std::path::{Path, PathBuf};

use othello_sandbox::{ExecArgs, Mode};

/// The program's path: as given when it has a slash, else the first match on `PATH`.
fn resolve(program: &Path) -> Result<PathBuf, String> {
    if program.components().count() > 1 {
        return Ok(program.to_path_buf());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|folder| folder.join(program))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| format!("{} was not found on PATH", program.display()))
}

/// Sandboxes this process and executes the program; returns only on failure (the reason).
pub fn run(options: &ExecArgs) -> String {
    let program = match resolve(Path::new(options.program())) {
        Ok(program) => program,
        Err(why) => return why,
    };
    if options.sandbox.sandbox != Mode::Off
        && let Err(why) = enter(options, &program)
    {
        return why;
    }
    let mut command = std::process::Command::new(&program);
    command.args(options.program_args());
    if let Some(scratch) = options.sandbox.scratch.as_ref().filter(|_| options.sandbox.sandbox != Mode::Off) {
        command.env("HOME", scratch).env("TMPDIR", scratch);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Arg 0 as given, as a shell would run it.
        command.arg0(options.program());
        format!("cannot run {}: {}", program.display(), command.exec())
    }
    #[cfg(not(unix))]
    {
        let _ = command;
        "exec exists on Unix only".to_owned()
    }
}

/// Applies the sandbox; returns in the jailed process that becomes the program.
#[cfg(target_os = "linux")]
fn enter(options: &ExecArgs, program: &Path) -> Result<(), String> {
    use othello_sandbox::{Report, lockdown, minimal_root::RootPlan, namespaces};
    let sandbox = &options.sandbox;
    let mut report = Report::default();
    let needs: Vec<&Path> = std::iter::once(program).chain(options.read.iter().map(PathBuf::as_path)).collect();
    // The engine's program and its folder (an engine reads its data beside it), and what it was
    // given to read, each at its own path; the working folder stays the one the host gave.
    let program = program.canonicalize().unwrap_or_else(|_| program.to_path_buf());
    let own_folder = program.parent().map(Path::to_path_buf);
    let read = options.read.iter().map(|path| path.canonicalize().unwrap_or_else(|_| path.clone()));
    let root = RootPlan {
        read_only: own_folder.into_iter().chain([program.clone()]).chain(read).collect(),
        programs: true,
        working_folder: std::env::current_dir().ok(),
        ..RootPlan::default()
    };
    namespaces::enter(sandbox, &needs, &root, options.end_fd, &mut report)?;
    let program = program.as_path();
    let confinement = lockdown::Confinement {
        library: Some(program),
        scratch: sandbox.scratch.as_deref(),
        keep_fds: &[],
        memory_limit_mb: sandbox.memory_limit_mb,
        cgroup: sandbox.cgroup,
        extra_read: &options.read,
        program: true,
    };
    lockdown::lock_down(sandbox.sandbox, &confinement, &mut report)
}

#[cfg(not(target_os = "linux"))]
fn enter(options: &ExecArgs, _program: &Path) -> Result<(), String> {
    match options.sandbox.sandbox {
        Mode::Strict => Err("--sandbox strict: the sandbox exists on Linux only".to_owned()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_name_is_found_on_the_path() {
        assert!(resolve(Path::new("sh")).unwrap().is_absolute());
        assert_eq!(resolve(Path::new("./engine")).unwrap(), PathBuf::from("./engine"));
        assert!(resolve(Path::new("no-such-engine-here")).unwrap_err().contains("PATH"));
    }
}
