//! In-process seats (`--in-process`): the bot library is loaded into the host
//! itself. Fast, and no protection: a crash or hang of the bot is the host's.
//!
//! `dlopen` of a path already loaded returns the same handle (and the same
//! global state), so each seat loads its own private copy of the file.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use othello_sdk::Position;
use othello_sdk::abi::{OTHELLO_ANALYZE_ERROR, OTHELLO_MOVE_ERROR, OthelloBoard};
use othello_sdk::loader::BotLibrary;

use super::analysis::{Analysis, AnalysisError, validate};
use super::clock::{Clock, MoveBudget};
use super::failure::{Failure, Termination, move_error_failure, overran};
use super::player::{Reply, Seat};
use super::spec::{SeatOptions, SeatSpec, library_stem, sanitize_bot_name};

/// Copies made by this process so far (makes each copy's name unique).
static COPIES: AtomicU64 = AtomicU64::new(0);

/// A seat whose bot runs inside the host process.
pub struct InProcessSeat {
    bot: BotLibrary,
    name: String,
    levels: u32,
    /// The library has the optional analysis export.
    analysis: bool,
    level: Option<u32>,
    options: SeatOptions,
}

impl InProcessSeat {
    pub fn open(spec: &SeatSpec) -> Result<InProcessSeat, Failure> {
        let bot = load_private_copy(&spec.library)?;
        let features = bot.features();
        // `init` runs with the first `new_game`, which gives the seat the bot's own name.
        Ok(InProcessSeat {
            bot,
            name: library_stem(&spec.library),
            levels: features.levels,
            analysis: features.analysis,
            level: spec.level,
            options: spec.options,
        })
    }
}

/// Loads a fresh copy of `library` (deleted again once mapped).
fn load_private_copy(library: &Path) -> Result<BotLibrary, Failure> {
    let load_error = |detail: String| Failure::new(Termination::LoadError, detail);
    let file_name = library.file_name().ok_or_else(|| load_error(format!("{} is not a file", library.display())))?;
    let copy: PathBuf = std::env::temp_dir().join(format!(
        "othello-{}-{}-{}",
        std::process::id(),
        COPIES.fetch_add(1, Ordering::Relaxed),
        file_name.to_string_lossy()
    ));
    std::fs::copy(library, &copy).map_err(|e| load_error(format!("cannot read {}: {e}", library.display())))?;
    let bot = with_dll_directory(library.parent(), || BotLibrary::open(&copy));
    // The mapping outlives the file; nothing is left behind in the temp folder.
    let _ = std::fs::remove_file(&copy);
    // The original is diagnosed: the copy is gone, and its folder is not the one the user sees.
    bot.map_err(|e| load_error(crate::load_diagnosis::explain_load_failure(library, e.to_string())))
}

/// Runs `load` with the original bot's folder among the folders Windows searches for the DLLs a bot
/// imports: the copy is loaded from the temp folder, and a dependency put beside the bot is found
/// as when it plays isolated. The DLL directory is the process's: one load at a time sets it.
#[cfg(windows)]
fn with_dll_directory<T>(folder: Option<&Path>, load: impl FnOnce() -> T) -> T {
    use std::os::windows::ffi::OsStrExt;
    use std::sync::Mutex;
    use windows_sys::Win32::System::LibraryLoader::SetDllDirectoryW;
    static DLL_DIRECTORY: Mutex<()> = Mutex::new(());
    let Some(folder) = folder.and_then(|folder| std::path::absolute(folder).ok()) else { return load() };
    let wide: Vec<u16> = folder.as_os_str().encode_wide().chain(std::iter::once(0)).collect();
    let _one_at_a_time = DLL_DIRECTORY.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    // SAFETY: `wide` is a NUL-terminated UTF-16 path that outlives the call.
    unsafe { SetDllDirectoryW(wide.as_ptr()) };
    let loaded = load();
    // SAFETY: NULL restores the default search order.
    unsafe { SetDllDirectoryW(std::ptr::null()) };
    loaded
}

#[cfg(not(windows))]
fn with_dll_directory<T>(_folder: Option<&Path>, load: impl FnOnce() -> T) -> T {
    load()
}

impl Seat for InProcessSeat {
    fn name(&self) -> &str {
        &self.name
    }

    fn levels(&self) -> u32 {
        self.levels
    }

    fn new_game(&mut self) -> Result<(), Failure> {
        match self.bot.init() {
            Some(name) => {
                if let Some(name) = sanitize_bot_name(&name) {
                    self.name = name;
                }
            }
            None => {
                if let Some(why) = self.bot.last_error() {
                    return Err(Failure::new(Termination::LoadError, format!("init failed: {why}")));
                }
            }
        }
        if let Some(level) = self.level {
            self.bot.set_level(level);
        }
        Ok(())
    }

    fn think(&mut self, position: &Position, time_limit: Option<Duration>) -> Result<Reply, Failure> {
        let limit_ms = time_limit.map_or(0, |t| t.as_millis().clamp(1, u32::MAX as u128) as u32);
        let board = OthelloBoard::new(position, limit_ms);
        let started = Instant::now();
        let cpu_before = thread_cpu_time();
        let byte = self.bot.think(&board);
        let elapsed = started.elapsed();
        // The calling thread's clock: threads the bot starts itself are not counted.
        let cpu = thread_cpu_time().zip(cpu_before).map(|(after, before)| after.saturating_sub(before));
        if byte == OTHELLO_MOVE_ERROR {
            return Err(move_error_failure(self.bot.last_error()));
        }
        if let Some(limit) = time_limit
            && self.options.clock == Clock::Cpu
        {
            // The calling thread's CPU time (one thread: the limit once). No wall-clock cap: the
            // bot cannot be stopped in process anyway, and the time the machine held the thread
            // back is not read here (two reads a move would cost a fast bot most of its speed).
            let budget = MoveBudget::new(Clock::Cpu, limit, self.options.grace_for(limit), 1);
            let over_cpu = if cpu.is_some() { Duration::ZERO } else { elapsed };
            if let Some(why) = budget.overrun(cpu, over_cpu) {
                return Err(Failure::new(Termination::Timeout, why));
            }
        } else if let Some(failure) =
            overran(elapsed, time_limit, time_limit.map_or(Duration::ZERO, |t| self.options.grace_for(t)))
        {
            return Err(failure);
        }
        Ok(Reply { byte, elapsed, info: self.bot.search_info(), cpu, throttled: None })
    }

    fn analyzes(&self) -> bool {
        self.analysis
    }

    fn analyze(&mut self, position: &Position, time_limit: Option<Duration>) -> Result<Analysis, AnalysisError> {
        let limit_ms = time_limit.map_or(0, |t| t.as_millis().clamp(1, u32::MAX as u128) as u32);
        let board = OthelloBoard::new(position, limit_ms);
        let started = Instant::now();
        let raw = self.bot.analyze(&board).ok_or(AnalysisError::Unsupported)?;
        let elapsed = started.elapsed();
        if raw.returned == OTHELLO_ANALYZE_ERROR {
            return Err(AnalysisError::Refused(analysis_error_reason(self.bot.last_error())));
        }
        let grace = time_limit.map_or(Duration::ZERO, |t| self.options.grace_for(t));
        if let Some(failure) = overran(elapsed, time_limit, grace) {
            return Err(AnalysisError::Failed(failure));
        }
        let (values, rejected) = validate(position, raw.returned, &raw.values);
        Ok(Analysis { values, rejected, elapsed })
    }
}

/// The bot's reason for a failed analysis, or a note that it gave none.
pub(crate) fn analysis_error_reason(last_error: Option<String>) -> String {
    match last_error.map(|why| crate::text::one_line(&why, super::failure::MAX_DETAIL_CHARS)) {
        Some(why) if !why.is_empty() => why,
        _ => "othello_analyze returned OTHELLO_ANALYZE_ERROR without saying why".to_owned(),
    }
}

/// CPU time of the calling thread so far.
#[cfg(unix)]
fn thread_cpu_time() -> Option<Duration> {
    // SAFETY: an all-zero timespec is a valid value to be overwritten.
    let mut now: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } != 0 {
        return None;
    }
    Some(Duration::new(now.tv_sec.max(0) as u64, now.tv_nsec.clamp(0, 999_999_999) as u32))
}

#[cfg(not(unix))]
fn thread_cpu_time() -> Option<Duration> {
    None
}
