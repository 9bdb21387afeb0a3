//! The runner child (`othello-runner --memory-mb N LIBRARY`): loads one bot library and
//! answers the host's requests until its channel closes.
//!
//! Before the bot's code runs, the child moves the channel to private file
//! descriptors and points its stdout at stderr and its stdin at /dev/null, so
//! whatever the bot prints or reads never touches the channel.

use std::fs::File;
use std::io::{BufReader, Read, Write};
#[cfg(target_os = "linux")]
use std::os::fd::AsRawFd;
#[cfg(unix)]
use std::os::fd::{FromRawFd, RawFd};
#[cfg(unix)]
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
#[cfg(unix)]
use std::time::Duration;

use othello_sdk::abi::{OTHELLO_ANALYZE_ERROR, OTHELLO_MOVE_ERROR};
use othello_sdk::loader::BotLibrary;

#[cfg(windows)]
use crate::platform::windows::{data_size, enter_sandbox, limit_resources, private_channel, watch_parent};
use crate::protocol::{HEADER, MAX_FRAME, Request, Response, body_length};
#[cfg(target_os = "linux")]
use crate::sandbox;
use crate::sandbox::Mode;

/// How often the child checks that the host is still alive.
#[cfg(unix)]
const PARENT_CHECK_INTERVAL: Duration = Duration::from_millis(250);
/// Stack of the watchdog thread (it only sleeps and compares two numbers).
#[cfg(unix)]
const WATCHDOG_STACK: usize = 64 * 1024;
/// Field of /proc/self/statm with the data + stack size.
#[cfg(unix)]
const STATM_DATA_FIELD: usize = 5;
/// Exit code when the channel breaks (host gone or garbage received).
const EXIT_CHANNEL_BROKEN: i32 = 70;

/// What a runner was started with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub library: PathBuf,
    /// Memory limit in MiB (0 = none).
    pub memory_limit_mb: u64,
    pub sandbox: Mode,
    /// The private folder the host made for this runner: the only place a sandboxed bot may write.
    pub scratch: Option<PathBuf>,
    /// The cgroup version the host placed this runner in (`v1`, `v2`), if it did.
    pub cgroup: Option<String>,
    /// The freezer cgroup (v1) the host made for the bot's processes, if it did.
    pub freezer: Option<PathBuf>,
}

/// Runs the child; returns only when the host closes the channel.
pub fn run(options: &Options) -> Result<(), String> {
    let (requests, responses, statm) = if options.sandbox == Mode::Off {
        limit_resources(options.memory_limit_mb)?;
        let (requests, responses) = private_channel()?;
        watch_parent();
        (requests, responses, File::open("/proc/self/statm").ok())
    } else {
        enter_sandbox(options)?
    };
    let library = options.library.as_path();
    let mut requests = BufReader::new(requests);
    let mut responses = responses;
    let send = |out: &mut File, response: Response| {
        if out.write_all(&response.encode()).is_err() {
            std::process::exit(EXIT_CHANNEL_BROKEN);
        }
    };

    let bot = match BotLibrary::open(library) {
        Ok(bot) => bot,
        Err(error) => {
            send(&mut responses, Response::LoadFailed { reason: error.to_string() });
            return Ok(());
        }
    };
    let features = bot.features();
    send(
        &mut responses,
        Response::Loaded {
            abi_version: bot.abi_version(),
            levels: features.levels,
            search_info: features.search_info,
            last_error: features.last_error,
            memory_after_load: statm.as_ref().map_or(0, data_size),
            analysis: features.analysis,
        },
    );

    let mut body = Vec::with_capacity(64);
    while read_frame(&mut requests, &mut body) {
        let response = match Request::decode(&body) {
            Err(_) => std::process::exit(EXIT_CHANNEL_BROKEN),
            Ok(Request::NewGame { level }) => {
                let name = bot.init();
                let error = if name.is_none() { bot.last_error() } else { None };
                if let (Some(level), None) = (level, &error) {
                    bot.set_level(level);
                }
                Response::Started { name, error }
            }
            Ok(Request::Think { board }) => {
                let byte = bot.think(&board);
                let error = if byte == OTHELLO_MOVE_ERROR { bot.last_error() } else { None };
                let info = if features.search_info && byte != OTHELLO_MOVE_ERROR {
                    bot.search_info().map(Into::into)
                } else {
                    None
                };
                Response::Moved { byte, info, error }
            }
            Ok(Request::Analyze { board }) => match bot.analyze(&board) {
                Some(raw) => {
                    let error = if raw.returned == OTHELLO_ANALYZE_ERROR { bot.last_error() } else { None };
                    Response::Analyzed { returned: raw.returned, values: raw.values, error }
                }
                None => Response::Analyzed {
                    returned: OTHELLO_ANALYZE_ERROR,
                    values: Vec::new(),
                    error: Some("the bot has no othello_analyze export".to_owned()),
                },
            },
        };
        send(&mut responses, response);
    }
    Ok(())
}

/// Sandboxes the runner (see [`sandbox`]): returns in the jailed process that loads the bot,
/// with its channel and an open /proc/self/statm.
#[cfg(target_os = "linux")]
fn enter_sandbox(options: &Options) -> Result<(File, File, Option<File>), String> {
    let mut report = sandbox::Report::default();
    sandbox::enter(
        options.sandbox,
        &[options.library.as_path()],
        options.scratch.as_deref(),
        options.freezer.as_deref(),
        None,
        &mut report,
    )?;
    let (requests, responses) = private_channel()?;
    let statm = File::open("/proc/self/statm").ok();
    let mut keep = vec![requests.as_raw_fd(), responses.as_raw_fd()];
    keep.extend(statm.as_ref().map(File::as_raw_fd));
    let confinement = sandbox::Confinement {
        library: Some(&options.library),
        scratch: options.scratch.as_deref(),
        keep_fds: &keep,
        memory_limit_mb: options.memory_limit_mb,
        cgroup: options.cgroup.as_deref(),
        extra_read: &[],
        program: false,
    };
    sandbox::lock_down(options.sandbox, &confinement, &mut report)?;
    Ok((requests, responses, statm))
}

#[cfg(all(unix, not(target_os = "linux")))]
fn enter_sandbox(options: &Options) -> Result<(File, File, Option<File>), String> {
    if options.sandbox == Mode::Strict {
        return Err("--sandbox strict: the sandbox exists on Linux only".to_owned());
    }
    limit_resources(options.memory_limit_mb)?;
    let (requests, responses) = private_channel()?;
    watch_parent();
    Ok((requests, responses, None))
}

/// Reads one frame body into `body`; false when the host closed the channel.
fn read_frame(input: &mut impl Read, body: &mut Vec<u8>) -> bool {
    let mut header = [0; HEADER];
    if input.read_exact(&mut header).is_err() {
        return false;
    }
    let len = body_length(header);
    if len > MAX_FRAME {
        std::process::exit(EXIT_CHANNEL_BROKEN);
    }
    body.resize(len, 0);
    input.read_exact(body).is_ok()
}

/// The memory limit, and no core dumps from crashing bots.
///
/// The limit is on the data segment (RLIMIT_DATA: heap and private writable
/// mappings), which is what a bot allocates; unlike an address-space limit it
/// does not count code or the address ranges glibc reserves for each thread's
/// malloc arena, so bots with threads are not punished for reservations.
#[cfg(unix)]
fn limit_resources(memory_limit_mb: u64) -> Result<(), String> {
    set_limit(libc::RLIMIT_CORE as libc::c_int, 0)?;
    if memory_limit_mb > 0 {
        set_limit(libc::RLIMIT_DATA as libc::c_int, memory_limit_mb.saturating_mul(1024 * 1024))?;
    }
    Ok(())
}

/// Sets a soft and hard limit (the resource type differs between libcs, hence `as _`).
#[cfg(unix)]
fn set_limit(resource: libc::c_int, value: u64) -> Result<(), String> {
    let limit = libc::rlimit { rlim_cur: value as libc::rlim_t, rlim_max: value as libc::rlim_t };
    // SAFETY: setrlimit reads a valid rlimit struct; it only affects this process.
    if unsafe { libc::setrlimit(resource as _, &limit) } != 0 {
        return Err(format!("setrlimit failed: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

/// Moves the channel off fds 0 and 1: returns (requests, responses).
#[cfg(unix)]
fn private_channel() -> Result<(File, File), String> {
    let requests = duplicate(libc::STDIN_FILENO)?;
    let responses = duplicate(libc::STDOUT_FILENO)?;
    let os_error = |what: &str| format!("{what}: {}", std::io::Error::last_os_error());
    // SAFETY: plain fd syscalls on fds this process owns; the path is a valid C string.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if null < 0 || libc::dup2(null, libc::STDIN_FILENO) < 0 {
            return Err(os_error("redirecting stdin"));
        }
        libc::close(null);
        if libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) < 0 {
            return Err(os_error("redirecting stdout"));
        }
    }
    // SAFETY: both fds were just created by `duplicate` and are owned by nobody else.
    Ok(unsafe { (File::from_raw_fd(requests), File::from_raw_fd(responses)) })
}

/// A close-on-exec duplicate of `fd` above the standard descriptors.
#[cfg(unix)]
fn duplicate(fd: RawFd) -> Result<RawFd, String> {
    // SAFETY: F_DUPFD_CLOEXEC on an open fd returns a new fd or -1.
    let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
    if copy < 0 {
        return Err(format!("dup of fd {fd} failed: {}", std::io::Error::last_os_error()));
    }
    Ok(copy)
}

/// Exits when the host dies, even while the bot hangs in `think`.
///
/// A raw pthread that never allocates, so it adds nothing to the memory the
/// bot is measured by.
#[cfg(unix)]
pub(crate) fn watch_parent() {
    // SAFETY: getppid has no preconditions.
    let parent = unsafe { libc::getppid() };
    extern "C" fn watchdog(parent: *mut libc::c_void) -> *mut libc::c_void {
        let parent = parent as usize as libc::pid_t;
        let interval = libc::timespec { tv_sec: 0, tv_nsec: PARENT_CHECK_INTERVAL.as_nanos() as libc::c_long };
        loop {
            // SAFETY: nanosleep reads a valid timespec; getppid has no preconditions;
            // _exit ends the process at once without running the bot's destructors,
            // which may be in any state while the main thread is inside the bot.
            unsafe {
                libc::nanosleep(&interval, std::ptr::null_mut());
                if libc::getppid() != parent {
                    libc::_exit(EXIT_CHANNEL_BROKEN);
                }
            }
        }
    }
    // SAFETY: the attribute is initialised before use and destroyed after; the
    // thread gets a plain integer as its argument and runs a function that
    // touches no Rust state. If creation fails the child still exits when the
    // channel closes.
    unsafe {
        let mut attributes: libc::pthread_attr_t = std::mem::zeroed();
        libc::pthread_attr_init(&mut attributes);
        libc::pthread_attr_setstacksize(&mut attributes, WATCHDOG_STACK);
        libc::pthread_attr_setdetachstate(&mut attributes, libc::PTHREAD_CREATE_DETACHED);
        let mut thread: libc::pthread_t = std::mem::zeroed();
        libc::pthread_create(&mut thread, &attributes, watchdog, parent as usize as *mut libc::c_void);
        libc::pthread_attr_destroy(&mut attributes);
    }
}

/// This process's data size (what the memory limit counts) in bytes, 0 if unknown, from its
/// open /proc/self/statm (opened before a sandbox hides /proc).
#[cfg(unix)]
fn data_size(statm: &File) -> u64 {
    // statm: size resident shared text lib data dt, in pages.
    let mut text = [0u8; 128];
    let read = statm.read_at(&mut text, 0).unwrap_or(0);
    let pages = std::str::from_utf8(&text[..read])
        .ok()
        .and_then(|statm| statm.split_whitespace().nth(STATM_DATA_FIELD)?.parse::<u64>().ok())
        .unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let page_size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages * page_size.max(0) as u64
}
