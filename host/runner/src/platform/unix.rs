//! The runner child on Unix: the memory limit, the channel moved to private descriptors, the
//! watchdog that ends it with the host, and the sandbox (Linux: `othello_sandbox`).

use std::fs::File;
#[cfg(target_os = "linux")]
use std::os::fd::AsRawFd;
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::fs::FileExt;
use std::time::Duration;

#[cfg(not(target_os = "linux"))]
use othello_sandbox::Mode;
use othello_sandbox::ServeArgs;
#[cfg(target_os = "linux")]
use othello_sandbox::{Report, lockdown, minimal_root::RootPlan, namespaces};

use crate::EXIT_CHANNEL_BROKEN;

/// How often the child checks that the host is still alive.
const PARENT_CHECK_INTERVAL: Duration = Duration::from_millis(250);
/// Stack of the watchdog thread (it only sleeps and compares two numbers).
const WATCHDOG_STACK: usize = 64 * 1024;
/// Field of /proc/self/statm with the data + stack size.
const STATM_DATA_FIELD: usize = 5;
/// Sandboxes the runner (see `othello_sandbox`): returns in the jailed process that loads the bot,
/// with its channel and an open /proc/self/statm.
#[cfg(target_os = "linux")]
pub(crate) fn enter_sandbox(options: &ServeArgs) -> Result<(File, File, Option<File>), String> {
    let sandbox = &options.sandbox;
    let mut report = Report::default();
    // The library alone, at the path the child loads it from (its folder may hold others' files).
    let read: Vec<std::path::PathBuf> =
        options.read.iter().map(|path| path.canonicalize().unwrap_or_else(|_| path.clone())).collect();
    let root = RootPlan {
        read_only: std::iter::once(options.library.clone()).chain(read.iter().cloned()).collect(),
        working_folder: sandbox.scratch.clone(),
        ..RootPlan::default()
    };
    let needs: Vec<&std::path::Path> =
        std::iter::once(options.library.as_path()).chain(read.iter().map(std::path::PathBuf::as_path)).collect();
    namespaces::enter(sandbox, &needs, &root, None, &mut report)?;
    let (requests, responses) = private_channel()?;
    let statm = File::open("/proc/self/statm").ok();
    let mut keep = vec![requests.as_raw_fd(), responses.as_raw_fd()];
    keep.extend(statm.as_ref().map(File::as_raw_fd));
    let confinement = lockdown::Confinement {
        library: Some(&options.library),
        scratch: sandbox.scratch.as_deref(),
        keep_fds: &keep,
        memory_limit_mb: sandbox.memory_limit_mb,
        cgroup: sandbox.cgroup,
        extra_read: &read,
        program: false,
    };
    lockdown::lock_down(sandbox.sandbox, &confinement, &mut report)?;
    Ok((requests, responses, statm))
}

#[cfg(all(unix, not(target_os = "linux")))]
pub(crate) fn enter_sandbox(options: &ServeArgs) -> Result<(File, File, Option<File>), String> {
    if options.sandbox.sandbox == Mode::Strict {
        return Err("--sandbox strict: the sandbox exists on Linux only".to_owned());
    }
    limit_resources(options.sandbox.memory_limit_mb)?;
    let (requests, responses) = private_channel()?;
    watch_parent();
    Ok((requests, responses, None))
}

/// The memory limit, and no core dumps from crashing bots.
///
/// The limit is on the data segment (RLIMIT_DATA: heap and private writable
/// mappings), which is what a bot allocates; unlike an address-space limit it
/// does not count code or the address ranges glibc reserves for each thread's
/// malloc arena, so bots with threads are not punished for reservations.
pub(crate) fn limit_resources(memory_limit_mb: u64) -> Result<(), String> {
    set_limit(libc::RLIMIT_CORE as libc::c_int, 0)?;
    if memory_limit_mb > 0 {
        set_limit(libc::RLIMIT_DATA as libc::c_int, memory_limit_mb.saturating_mul(1024 * 1024))?;
    }
    Ok(())
}

/// Sets a soft and hard limit (the resource type differs between libcs, hence `as _`).
fn set_limit(resource: libc::c_int, value: u64) -> Result<(), String> {
    let limit = libc::rlimit { rlim_cur: value as libc::rlim_t, rlim_max: value as libc::rlim_t };
    // SAFETY: setrlimit reads a valid rlimit struct; it only affects this process.
    if unsafe { libc::setrlimit(resource as _, &limit) } != 0 {
        return Err(format!("setrlimit failed: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

/// Moves the channel off fds 0 and 1: returns (requests, responses).
pub(crate) fn private_channel() -> Result<(File, File), String> {
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
pub(crate) fn data_size(statm: &File) -> u64 {
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
