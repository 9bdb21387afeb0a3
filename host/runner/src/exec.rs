//! `othello-runner exec [OPTIONS] -- PROGRAM [ARGS…]`: starts a program — an NBoard engine —
//! inside the same sandbox a bot's runner gets, with stdin, stdout and stderr passed through.
//!
//! The keeper, the namespaces, the resource limits, no capabilities, no-new-privs and seccomp are
//! those of a bot's runner ([`crate::sandbox`]); Landlock lets the program read (and run) the
//! system's libraries and programs and its own folder(s) (`--read`), and write only its scratch
//! folder. The program stays in the working folder the host gave it (an engine reads its data
//! relative to it), and `HOME` and `TMPDIR` point at its scratch folder. With `--end-fd N` the
//! keeper ends the jail as soon as the host closes the other end of descriptor N (without it,
//! when the host dies).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::sandbox::Mode;

/// What `exec` was started with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecOptions {
    pub program: OsString,
    pub args: Vec<OsString>,
    /// Memory limit per process in MiB (0 = none); the cgroup limits the whole tree.
    pub memory_limit_mb: u64,
    pub sandbox: Mode,
    pub scratch: Option<PathBuf>,
    pub cgroup: Option<String>,
    pub freezer: Option<PathBuf>,
    /// Folders (or files) the program may read and run besides the system's.
    pub read: Vec<PathBuf>,
    /// The descriptor whose hang-up tells the keeper to end the jail.
    pub end_fd: Option<i32>,
}

const USAGE: &str = "usage: othello-runner exec [--memory-mb N] [--sandbox auto|strict|off] [--scratch DIR] \
                     [--cgroup vN] [--freezer DIR] [--read PATH]... [--end-fd N] -- PROGRAM [ARGS...]";

/// Parses the arguments after `exec`.
pub fn parse_args(args: impl IntoIterator<Item = OsString>) -> Result<ExecOptions, String> {
    let mut args = args.into_iter();
    let mut options = ExecOptions {
        program: OsString::new(),
        args: Vec::new(),
        memory_limit_mb: 0,
        sandbox: Mode::Off,
        scratch: None,
        cgroup: None,
        freezer: None,
        read: Vec::new(),
        end_fd: None,
    };
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value; {USAGE}"));
        let number = |name: &str, value: OsString| {
            value
                .to_str()
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| format!("{name} takes a number, not {value:?}"))
        };
        match arg.to_str() {
            Some("--memory-mb") => options.memory_limit_mb = number("--memory-mb", value("--memory-mb")?)?,
            Some("--sandbox") => options.sandbox = Mode::parse(&value("--sandbox")?.to_string_lossy())?,
            Some("--scratch") => options.scratch = Some(PathBuf::from(value("--scratch")?)),
            Some("--cgroup") => options.cgroup = Some(value("--cgroup")?.to_string_lossy().into_owned()),
            Some("--freezer") => options.freezer = Some(PathBuf::from(value("--freezer")?)),
            Some("--read") => options.read.push(PathBuf::from(value("--read")?)),
            Some("--end-fd") => {
                let fd = number("--end-fd", value("--end-fd")?)?;
                options.end_fd = Some(i32::try_from(fd).map_err(|_| format!("--end-fd {fd} is no descriptor"))?);
            }
            Some("--") => {
                options.program = args.next().ok_or_else(|| format!("no program after `--`; {USAGE}"))?;
                options.args = args.collect();
                return Ok(options);
            }
            _ => return Err(format!("unexpected argument {arg:?}; {USAGE}")),
        }
    }
    Err(format!("no `-- PROGRAM`; {USAGE}"))
}

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
pub fn run(options: &ExecOptions) -> String {
    let program = match resolve(Path::new(&options.program)) {
        Ok(program) => program,
        Err(why) => return why,
    };
    if options.sandbox != Mode::Off
        && let Err(why) = enter(options, &program)
    {
        return why;
    }
    let mut command = std::process::Command::new(&program);
    command.args(&options.args);
    if let Some(scratch) = options.scratch.as_ref().filter(|_| options.sandbox != Mode::Off) {
        command.env("HOME", scratch).env("TMPDIR", scratch);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Arg 0 as given, as a shell would run it.
        command.arg0(&options.program);
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
fn enter(options: &ExecOptions, program: &Path) -> Result<(), String> {
    use crate::sandbox;
    let mut report = sandbox::Report::default();
    let needs: Vec<&Path> = std::iter::once(program).chain(options.read.iter().map(PathBuf::as_path)).collect();
    sandbox::enter(
        options.sandbox,
        &needs,
        options.scratch.as_deref(),
        options.freezer.as_deref(),
        options.end_fd,
        &mut report,
    )?;
    let confinement = sandbox::Confinement {
        library: Some(program),
        scratch: options.scratch.as_deref(),
        keep_fds: &[],
        memory_limit_mb: options.memory_limit_mb,
        cgroup: options.cgroup.as_deref(),
        extra_read: &options.read,
        program: true,
    };
    sandbox::lock_down(options.sandbox, &confinement, &mut report)
}

#[cfg(not(target_os = "linux"))]
fn enter(options: &ExecOptions, _program: &Path) -> Result<(), String> {
    match options.sandbox {
        Mode::Strict => Err("--sandbox strict: the sandbox exists on Linux only".to_owned()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<ExecOptions, String> {
        parse_args(args.iter().map(OsString::from))
    }

    #[test]
    fn reads_the_options_and_the_command_after_the_separator() {
        let options =
            parse(&["--sandbox", "strict", "--read", "/opt/edax", "--end-fd", "3", "--", "edax", "-q", "--read"])
                .unwrap();
        assert_eq!(options.sandbox, Mode::Strict);
        assert_eq!(options.read, [PathBuf::from("/opt/edax")]);
        assert_eq!(options.end_fd, Some(3));
        assert_eq!(options.program, "edax");
        assert_eq!(options.args, ["-q", "--read"], "everything after `--` is the program's");
    }

    #[test]
    fn rejects_what_it_does_not_understand() {
        assert!(parse(&["edax"]).unwrap_err().contains("unexpected"));
        assert!(parse(&["--sandbox", "auto"]).unwrap_err().contains("no `-- PROGRAM`"));
        assert!(parse(&["--"]).unwrap_err().contains("no program"));
        assert!(parse(&["--end-fd", "x", "--", "e"]).unwrap_err().contains("number"));
    }

    #[test]
    fn a_bare_name_is_found_on_the_path() {
        assert!(resolve(Path::new("sh")).unwrap().is_absolute());
        assert_eq!(resolve(Path::new("./engine")).unwrap(), PathBuf::from("./engine"));
        assert!(resolve(Path::new("no-such-engine-here")).unwrap_err().contains("PATH"));
    }
}
