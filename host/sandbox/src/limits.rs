//! The resource-limits layer (Linux, runner side): no core dumps, the data size per process, a
//! process count (inside its own user namespace), and no descriptor but the channel's.

use std::os::fd::RawFd;

use crate::{Report, layer};

/// Processes and threads one sandboxed runner may have (its own user namespace counts them).
const MAX_PROCESSES: u64 = 256;

pub(crate) fn resource_limits(memory_limit_mb: u64, report: &Report) -> Result<String, String> {
    use nix::sys::resource::{Resource, setrlimit};
    let set = |resource, value: u64, what: &str| {
        setrlimit(resource, value as _, value as _).map_err(|e| format!("setrlimit({what}) failed: {e}"))
    };
    set(Resource::RLIMIT_CORE, 0, "CORE")?;
    let mut detail = "no core dumps".to_owned();
    if memory_limit_mb > 0 {
        set(Resource::RLIMIT_DATA, memory_limit_mb.saturating_mul(1024 * 1024), "DATA")?;
        detail.push_str(&format!(", data {memory_limit_mb} MiB per process"));
    }
    // Without its own user namespace the count would be shared with every process of the user.
    if report.is_active(layer::USER_NAMESPACE) {
        set(Resource::RLIMIT_NPROC, MAX_PROCESSES, "NPROC")?;
        detail.push_str(&format!(", at most {MAX_PROCESSES} processes and threads"));
    }
    Ok(detail)
}

/// Closes every descriptor above stderr except `keep`.
pub(crate) fn close_others(keep: &[RawFd], program: bool) -> Result<String, String> {
    let mut keep: Vec<u32> = keep.iter().map(|&fd| fd as u32).filter(|&fd| fd > 2).collect();
    keep.sort_unstable();
    let mut first = 3u32;
    for fd in keep.iter().copied().chain([u32::MAX]) {
        if fd > first {
            let last = if fd == u32::MAX { u32::MAX } else { fd - 1 };
            // SAFETY: close_range only closes descriptors; the ones Rust objects own here
            // (the channel) are outside the ranges.
            if unsafe { libc::syscall(libc::SYS_close_range, first, last, 0) } != 0 {
                return Err(format!("close_range failed: {}", std::io::Error::last_os_error()));
            }
        }
        first = fd.saturating_add(1);
    }
    Ok(if program {
        "only stdin, stdout and stderr (the host's pipes) are open".to_owned()
    } else {
        "only stdin (/dev/null), stderr and the channel are open".to_owned()
    })
}
