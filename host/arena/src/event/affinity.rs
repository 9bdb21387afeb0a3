//! Pinning a worker thread, and the bot processes it starts, to one processor (fastchess's
//! `-use-affinity`).
//!
//! A move is a round trip between the worker and a runner process. When the two run on different
//! processors each message wakes an idle one, which on virtual machines costs tens of
//! microseconds; on one processor it is a plain context switch. Runners inherit the processor of
//! the thread that starts them, so pinning the worker before it opens its seats pins its games.
//! While a bot thinks, the worker waits and the opponent is frozen: the bot has the processor to
//! itself.

/// Pins the calling thread to the `worker`-th processor it may run on (counting round), and
/// returns that processor's number. Linux only; elsewhere an error says so.
pub fn pin_current_thread(worker: usize) -> Result<usize, String> {
    #[cfg(target_os = "linux")]
    {
        use nix::sched::{CpuSet, sched_getaffinity, sched_setaffinity};
        use nix::unistd::Pid;
        let allowed = sched_getaffinity(Pid::from_raw(0)).map_err(|e| format!("cannot read the processors: {e}"))?;
        let processors: Vec<usize> = (0..CpuSet::count()).filter(|&cpu| allowed.is_set(cpu).unwrap_or(false)).collect();
        let Some(&cpu) = processors.get(worker % processors.len().max(1)) else {
            return Err("no processor is allowed".to_owned());
        };
        let mut only = CpuSet::new();
        only.set(cpu).map_err(|e| format!("processor {cpu}: {e}"))?;
        // Pid 0: the calling thread alone.
        sched_setaffinity(Pid::from_raw(0), &only).map_err(|e| format!("cannot pin to processor {cpu}: {e}"))?;
        Ok(cpu)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = worker;
        Err("pinning to a processor is supported on Linux only".to_owned())
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use nix::sched::sched_getaffinity;
    use nix::unistd::Pid;

    #[test]
    fn a_pinned_thread_and_what_it_starts_run_on_one_processor() {
        std::thread::spawn(|| {
            let cpu = pin_current_thread(1).expect("pinned");
            let now = sched_getaffinity(Pid::from_raw(0)).unwrap();
            let allowed: Vec<usize> =
                (0..nix::sched::CpuSet::count()).filter(|&c| now.is_set(c).unwrap_or(false)).collect();
            assert_eq!(allowed, [cpu]);
            // A child process inherits it.
            let child = std::process::Command::new("sh")
                .args(["-c", "grep Cpus_allowed_list /proc/self/status"])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&child.stdout);
            assert_eq!(text.split_whitespace().nth(1), Some(cpu.to_string().as_str()), "{text}");
        })
        .join()
        .unwrap();
    }
}
