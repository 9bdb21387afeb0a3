//! Starting an NBoard engine inside the runner's sandbox: `RUNNER exec [sandbox options] --read
//! FOLDER… --end-fd N -- COMMAND…` (see [`ExecArgs`]). The engine may read (and run)
//! the system's libraries and programs and its own folders: the program's, that of every file
//! named on its command line (a script, an evaluation file), the folder given to `env -C`, and
//! the working folder it is started in (as NBoard GUIs start an engine in its folder), unless
//! that is `/` or the user's home folder, which are never an engine's own.

use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::args::{ExecArgs, RunnerArgs};
use crate::jail::{Jail, JailOptions};

/// Folders whose programs every sandboxed engine may run anyway: not worth a rule of their own.
const SYSTEM_FOLDERS: &[&str] = &["/bin", "/usr/bin", "/usr/local/bin", "/usr/libexec", "/sbin", "/usr/sbin"];

/// The runner command line that starts `command` sandboxed, the jail around it, and the write end
/// of the pipe whose closing tells the runner's keeper to end the engine.
pub fn sandboxed_command(
    runner_program: &Path,
    runner_args: &[OsString],
    command: &[String],
    folder: Option<&Path>,
    options: &JailOptions<'_>,
) -> std::io::Result<(Command, Jail, OwnedFd)> {
    let mut command_line = Command::new(runner_program);
    command_line.args(runner_args);
    let (jail, sandbox) = Jail::prepare(&mut command_line, options, false)?;
    let working = match folder {
        Some(folder) => own_folder(folder.to_path_buf()),
        None => std::env::current_dir().ok().and_then(own_folder),
    };
    let (end_read, end_write) = std::io::pipe()?;
    let end_read = OwnedFd::from(end_read);
    let exec = ExecArgs {
        sandbox,
        read: engine_folders(command).into_iter().chain(working).collect(),
        end_fd: Some(end_read.as_raw_fd()),
        command: command.iter().map(OsString::from).collect(),
    };
    command_line.args(RunnerArgs::Exec(exec).to_args());
    {
        use std::os::unix::process::CommandExt;
        let hold = end_read;
        // SAFETY: fcntl is async-signal-safe; the descriptor is open (held by the closure) and
        // keeps its number in the child, where only its close-on-exec flag is cleared.
        unsafe {
            command_line.pre_exec(move || {
                if libc::fcntl(hold.as_raw_fd(), libc::F_SETFD, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            })
        };
    }
    Ok((command_line, jail, OwnedFd::from(end_write)))
}

/// The folder the engine starts in (its engines-file working folder, else the host's), when it
/// may be the engine's own: not `/` and not the user's home folder.
fn own_folder(folder: PathBuf) -> Option<PathBuf> {
    let folder = folder.canonicalize().ok()?;
    let home = std::env::var_os("HOME").map(PathBuf::from).and_then(|home| home.canonicalize().ok());
    (folder != Path::new("/") && Some(&folder) != home.as_ref()).then_some(folder)
}

/// The engine's own folders: the program's (found on `PATH` when it has no slash), that of every
/// existing file among its arguments, and `env`'s working folder (`env -C DIR PROGRAM …`, as the
/// app stores engines with a working folder) with the program found from there. System folders
/// are left out (the sandbox lets every engine run their programs).
pub fn engine_folders(command: &[String]) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = Vec::new();
    let mut add = |folder: PathBuf| {
        let folder = folder.canonicalize().unwrap_or(folder);
        if !SYSTEM_FOLDERS.iter().any(|system| folder == Path::new(system)) && !folders.contains(&folder) {
            folders.push(folder);
        }
    };
    let Some((program, args)) = command.split_first() else { return Vec::new() };
    let mut base: Option<PathBuf> = None;
    let mut args: Vec<&String> = args.iter().collect();
    let program = if Path::new(program).file_name().is_some_and(|name| name == "env") {
        // env [-C DIR | --chdir=DIR | --chdir DIR | NAME=VALUE]… PROGRAM ARGS…
        let mut rest = args.into_iter().peekable();
        let mut found = None;
        while let Some(arg) = rest.next() {
            if arg == "-C" || arg == "--chdir" {
                base = rest.next().map(PathBuf::from);
            } else if let Some(dir) = arg.strip_prefix("--chdir=").or_else(|| arg.strip_prefix("-C")) {
                base = Some(PathBuf::from(dir));
            } else if arg.starts_with('-') || arg.contains('=') {
                continue;
            } else {
                found = Some(arg.clone());
                break;
            }
        }
        args = rest.collect();
        if let Some(dir) = &base {
            add(dir.clone());
        }
        found
    } else {
        Some(program.clone())
    };
    let within = |path: &str| match &base {
        Some(dir) if Path::new(path).is_relative() => dir.join(path),
        _ => PathBuf::from(path),
    };
    if let Some(program) = program {
        let path = if program.contains('/') {
            Some(within(&program))
        } else {
            let search = std::env::var_os("PATH").unwrap_or_default();
            std::env::split_paths(&search).map(|folder| folder.join(&program)).find(|p| p.is_file())
        };
        if let Some(folder) = path.and_then(|p| p.canonicalize().ok()).and_then(|p| p.parent().map(Path::to_path_buf)) {
            add(folder);
        }
    }
    for arg in args {
        let path = within(arg);
        if !arg.starts_with('-')
            && path.is_file()
            && let Some(folder) = path.canonicalize().ok().and_then(|p| p.parent().map(Path::to_path_buf))
        {
            add(folder);
        }
    }
    folders
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn the_engines_folders_are_its_programs_its_files_and_envs_working_folder() {
        let dir = std::env::temp_dir().join(format!("othello-engine-folders-{}", std::process::id()));
        let bin = dir.join("bin");
        std::fs::create_dir_all(bin.join("data")).unwrap();
        std::fs::write(bin.join("edax"), "").unwrap();
        std::fs::write(dir.join("engine.sh"), "").unwrap();
        let (bin, dir_c) = (bin.canonicalize().unwrap(), dir.canonicalize().unwrap());
        let edax = bin.join("edax").to_string_lossy().into_owned();
        assert_eq!(engine_folders(&strings(&[&edax, "-nboard"])), vec![bin.clone()]);
        let script = dir.join("engine.sh").to_string_lossy().into_owned();
        assert_eq!(engine_folders(&strings(&["sh", &script, "mode"])), vec![dir_c.clone()], "sh is a system program");
        let bin_text = bin.to_string_lossy().into_owned();
        assert_eq!(engine_folders(&strings(&["env", "-C", &bin_text, "./edax", "-q"])), vec![bin.clone()]);
        assert_eq!(engine_folders(&strings(&["env", &format!("--chdir={bin_text}"), "./edax"])), vec![bin.clone()]);
        assert!(engine_folders(&strings(&["no-such-engine", "-x"])).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
