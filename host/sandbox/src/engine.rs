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
/// Folders never given whole to an engine, though one of its programs' installation seems to be
/// rooted there (a program in `/usr/bin` or `~/bin`): the system's and the user's home.
const NEVER_WHOLE: &[&str] = &["/", "/usr", "/usr/local", "/opt"];
/// How many interpreters deep a script's `#!` line is followed (a script run by a shim run by a
/// shell).
const SHEBANG_DEPTH: usize = 3;

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
        read: engine_folders(command).into_iter().chain(working).chain(options.read.iter().cloned()).collect(),
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

/// The engine's own folders: the program's (found on `PATH` when it has no slash) with its
/// installation and its interpreter's (see [`program_folders`]), that of every existing file among
/// its arguments, and `env`'s working folder (`env -C DIR PROGRAM …`, as the app stores engines
/// with a working folder) with the program found from there. System folders are left out (the
/// sandbox lets every engine run their programs), and so are the system's roots and the user's
/// home folder.
pub fn engine_folders(command: &[String]) -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from).and_then(|home| home.canonicalize().ok());
    let mut folders: Vec<PathBuf> = Vec::new();
    let mut add = |folder: PathBuf| {
        let folder = folder.canonicalize().unwrap_or(folder);
        let system = SYSTEM_FOLDERS.iter().chain(NEVER_WHOLE).any(|system| folder == Path::new(system));
        if !system && Some(&folder) != home.as_ref() && !folders.contains(&folder) {
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
        let path = if program.contains('/') { Some(within(&program)) } else { find_on_path(&program) };
        for folder in path.map(|path| program_folders(&path, SHEBANG_DEPTH)).unwrap_or_default() {
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

/// The first file named `program` in a folder of `PATH`.
fn find_on_path(program: &str) -> Option<PathBuf> {
    let search = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&search).map(|folder| folder.join(program)).find(|p| p.is_file())
}

/// The folders a program needs to run: its own, as found and as its links resolve; its
/// installation's root, the folder above a `bin` or `shims` folder (pyenv, conda, a venv or nvm
/// keep their libraries, versions and scripts beside: `~/.pyenv/shims/python3` runs
/// `~/.pyenv/libexec/pyenv`); and the same of the interpreter its `#!` line names (through
/// `env`, found on `PATH`), `depth` interpreters deep.
pub fn program_folders(path: &Path, depth: usize) -> Vec<PathBuf> {
    let canonical = path.canonicalize().ok();
    let mut folders = Vec::new();
    for found in [Some(path), canonical.as_deref()].into_iter().flatten() {
        if let Some(folder) = found.parent() {
            folders.push(folder.to_path_buf());
            if folder.file_name().is_some_and(|name| name == "bin" || name == "shims")
                && let Some(root) = folder.parent()
            {
                folders.push(root.to_path_buf());
            }
        }
    }
    if depth > 0
        && let Some(interpreter) = canonical.as_deref().and_then(shebang_interpreter)
    {
        folders.extend(program_folders(&interpreter, depth - 1));
    }
    folders
}

/// The program a script's `#!` line runs (for `#!/usr/bin/env NAME`, NAME found on `PATH`).
fn shebang_interpreter(script: &Path) -> Option<PathBuf> {
    let mut head = [0u8; 256];
    let read = std::io::Read::read(&mut std::fs::File::open(script).ok()?, &mut head).ok()?;
    let line = head[..read].strip_prefix(b"#!")?;
    let line = std::str::from_utf8(line.split(|&b| b == b'\n').next()?).ok()?;
    let mut words = line.split_whitespace();
    let interpreter = PathBuf::from(words.next()?);
    if interpreter.file_name().is_some_and(|name| name == "env") {
        // env [-S] [NAME=VALUE]… PROGRAM
        return words.find(|word| !word.starts_with('-') && !word.contains('=')).and_then(find_on_path);
    }
    Some(interpreter)
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
        // The program's folder, and its installation above `bin`.
        assert_eq!(engine_folders(&strings(&[&edax, "-nboard"])), vec![bin.clone(), dir_c.clone()]);
        let script = dir.join("engine.sh").to_string_lossy().into_owned();
        assert_eq!(engine_folders(&strings(&["sh", &script, "mode"])), vec![dir_c.clone()], "sh is a system program");
        let bin_text = bin.to_string_lossy().into_owned();
        let edax_folders = vec![bin.clone(), dir_c.clone()];
        assert_eq!(engine_folders(&strings(&["env", "-C", &bin_text, "./edax", "-q"])), edax_folders);
        assert_eq!(engine_folders(&strings(&["env", &format!("--chdir={bin_text}"), "./edax"])), edax_folders);
        assert!(engine_folders(&strings(&["no-such-engine", "-x"])).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A pyenv-like shim in a home-like folder: the shim's installation (`.pyenv`, above
    /// `shims`) is the engine's, and so is the installation of the interpreter a script's `#!`
    /// line names (an nvm-like `node`).
    #[test]
    fn a_shims_installation_and_a_scripts_interpreter_are_the_engines() {
        let home = std::env::temp_dir().join(format!("othello-home-{}", std::process::id()));
        let shims = home.join(".pyenv/shims");
        let node = home.join(".nvm/versions/node/v20/bin");
        std::fs::create_dir_all(&shims).unwrap();
        std::fs::create_dir_all(&node).unwrap();
        std::fs::write(shims.join("python3"), "#!/bin/sh\nexec \"$HOME/.pyenv/libexec/pyenv\" exec python3 \"$@\"\n")
            .unwrap();
        std::fs::write(node.join("node"), "").unwrap();
        let script = home.join("engine.js");
        std::fs::write(&script, format!("#!{}\n", node.join("node").display())).unwrap();
        let home_c = home.canonicalize().unwrap();
        let python = shims.join("python3").to_string_lossy().into_owned();
        let folders = engine_folders(&strings(&[&python, "engine.py"]));
        assert!(folders.contains(&home_c.join(".pyenv")), "{folders:?}");
        let folders = engine_folders(&strings(&[&script.to_string_lossy()]));
        assert!(folders.contains(&home_c.join(".nvm/versions/node/v20")), "{folders:?}");
        assert!(!folders.contains(&home_c.join(".nvm")), "only that installation: {folders:?}");
        // A program in /usr/bin gives neither /usr nor the system's folders.
        let sh = engine_folders(&strings(&["sh", "-c", "true"]));
        assert!(sh.iter().all(|f| !NEVER_WHOLE.iter().any(|n| f == Path::new(n))), "{sh:?}");
        std::fs::remove_dir_all(&home).unwrap();
    }
}
