//! `export_bot!` and the runtime behind its `extern "C"` shims.

/// Exports a [`Bot`](crate::Bot) as a plugin library speaking ABI v1: every
/// symbol of `othello_bot.h`, each shim catching panics so that none unwinds
/// into the host. A panic makes `think` return
/// [`OTHELLO_MOVE_ERROR`](crate::abi::OTHELLO_MOVE_ERROR) and
/// `othello_last_error` return `panicked: <message>`. `othello_search_info`
/// writes only the fields within the host's `size` (see
/// [`OthelloSearchInfo`](crate::abi::OthelloSearchInfo)).
///
/// Use it once, at the root of a crate with `crate-type = ["cdylib"]`:
///
/// ```ignore
/// othello_sdk::export_bot!(MyBot);
/// ```
///
/// A bot that implements [`Bot::analyze`](crate::Bot::analyze) also exports the optional
/// `othello_analyze` (move evaluations for analysis) with `export_bot!(MyBot, analysis)`. Its
/// shim catches panics too (then it returns
/// [`OTHELLO_ANALYZE_ERROR`](crate::abi::OTHELLO_ANALYZE_ERROR) and `othello_last_error` says
/// why) and writes only within the host's `capacity` and element `size` (see
/// [`OthelloMoveValue`](crate::abi::OthelloMoveValue)).
///
/// The exports are global symbols (`init`, `think`, …): one binary can't link
/// two crates that use this macro. To pit your bot against another in tests,
/// load the other one as a plugin with the `loader` feature, as the host does.
#[macro_export]
macro_rules! export_bot {
    (@feature analysis $bot:ty) => {
        /// # Safety
        /// `board` is NULL or points to a valid `OthelloBoard`; `out` is NULL or points to
        /// `capacity` writable elements of `out->size` bytes each, the host's version of the struct.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn othello_analyze(
            board: *const $crate::abi::OthelloBoard,
            out: *mut $crate::abi::OthelloMoveValue,
            capacity: u32,
        ) -> u32 {
            // SAFETY: the host passes NULL or a pointer to a live board for the call's duration.
            let board = unsafe { board.as_ref() };
            // SAFETY: the host's array, as the ABI describes it (checked for NULL inside).
            unsafe { STATE.analyze(board, out, capacity) }
        }
    };
    (@feature $other:ident $bot:ty) => {
        compile_error!(concat!("export_bot!: unknown feature `", stringify!($other), "` (known: analysis)"));
    };
    ($bot:ty $(, $feature:ident)? $(,)?) => {
        // An anonymous const block keeps the shims out of the caller's namespace
        // while still seeing `$bot` wherever it is declared (even in a function).
        #[allow(unsafe_code)]
        const _: () = {
            static STATE: $crate::__private::BotState<$bot> = $crate::__private::BotState::new();

            #[unsafe(no_mangle)]
            pub extern "C" fn othello_abi_version() -> u32 {
                $crate::abi::OTHELLO_ABI_VERSION
            }

            #[unsafe(no_mangle)]
            pub extern "C" fn init() -> *const ::std::ffi::c_char {
                STATE.init()
            }

            /// # Safety
            /// `board` is NULL or points to a valid `OthelloBoard`.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn think(board: *const $crate::abi::OthelloBoard) -> u8 {
                // SAFETY: the host passes NULL or a pointer to a live board for
                // the duration of the call, as the ABI requires.
                let board = unsafe { board.as_ref() };
                STATE.think(board)
            }

            #[unsafe(no_mangle)]
            pub extern "C" fn othello_levels() -> u32 {
                <$bot as $crate::Bot>::LEVELS
            }

            #[unsafe(no_mangle)]
            pub extern "C" fn othello_set_level(level: u32) {
                STATE.set_level(level)
            }

            /// # Safety
            /// `info` is NULL or points to a writable `OthelloSearchInfo` of
            /// `info->size` bytes, the host's version of the struct.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn othello_search_info(info: *mut $crate::abi::OthelloSearchInfo) {
                if info.is_null() {
                    return;
                }
                if let Some(report) = STATE.search_info() {
                    // SAFETY: the host passes a pointer to its struct, valid and
                    // writable for `size` bytes (its first field) during the call.
                    unsafe { $crate::__private::write_search_info(info, &report) }
                }
            }

            #[unsafe(no_mangle)]
            pub extern "C" fn othello_last_error() -> *const ::std::ffi::c_char {
                STATE.last_error()
            }

            $($crate::export_bot!(@feature $feature $bot);)?
        };
    };
}

#[doc(hidden)]
pub mod __private {
    use std::ffi::{CString, c_char};
    use std::mem::{offset_of, size_of};
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::sync::{Mutex, MutexGuard, OnceLock};
    use std::time::Duration;

    use crate::abi::{
        OTHELLO_ANALYZE_ERROR, OTHELLO_MOVE_ERROR, OthelloBoard, OthelloMoveValue, OthelloSearchInfo, info_flags,
    };
    use crate::{Bot, ThinkRequest};

    /// Everything one exported bot keeps between calls.
    pub struct BotState<B> {
        inner: Mutex<Inner<B>>,
        name: OnceLock<Option<CString>>,
    }

    struct Inner<B> {
        bot: Option<B>,
        level: Option<u32>,
        last_error: Option<CString>,
    }

    impl<B: Bot> Default for BotState<B> {
        fn default() -> Self {
            Self::new()
        }
    }

    impl<B: Bot> BotState<B> {
        pub const fn new() -> Self {
            BotState { inner: Mutex::new(Inner { bot: None, level: None, last_error: None }), name: OnceLock::new() }
        }

        fn lock(&self) -> MutexGuard<'_, Inner<B>> {
            // A panic while locked poisons the mutex; the state is still usable
            // (the next `init` replaces the bot anyway).
            self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
        }

        /// Runs `f` on the bot (created if need be), catching any panic into `last_error`.
        fn call<R>(&self, f: impl FnOnce(&mut B, &mut Option<u32>) -> R) -> Option<R> {
            let mut inner = self.lock();
            let inner = &mut *inner;
            inner.last_error = None;
            let Inner { bot, level, .. } = inner;
            let result = catch_unwind(AssertUnwindSafe(|| f(bot.get_or_insert_with(B::default), level)));
            match result {
                Ok(value) => Some(value),
                Err(payload) => {
                    let message = payload
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "a panic with a non-text payload".to_owned());
                    inner.bot = None; // its state may be half-updated
                    let text = format!("panicked: {message}").replace('\0', " ");
                    inner.last_error = CString::new(text).ok();
                    None
                }
            }
        }

        pub fn init(&self) -> *const c_char {
            let started = self.call(|bot, level| {
                bot.new_game();
                if let Some(level) = *level {
                    bot.set_level(level);
                }
            });
            if started.is_none() {
                return std::ptr::null();
            }
            self.name.get_or_init(|| CString::new(B::NAME).ok()).as_ref().map_or(std::ptr::null(), |name| name.as_ptr())
        }

        pub fn think(&self, board: Option<&OthelloBoard>) -> u8 {
            let Some(board) = board else {
                self.lock().last_error = CString::new("think was called with a NULL board").ok();
                return OTHELLO_MOVE_ERROR;
            };
            let Some(position) = board.position() else {
                self.lock().last_error = CString::new("think was called with a malformed board").ok();
                return OTHELLO_MOVE_ERROR;
            };
            let time_limit = (board.time_limit_ms > 0).then(|| Duration::from_millis(board.time_limit_ms.into()));
            let request = ThinkRequest { position, time_limit };
            self.call(|bot, _| bot.think(&request).to_byte()).unwrap_or(OTHELLO_MOVE_ERROR)
        }

        pub fn set_level(&self, level: u32) {
            let level = level.clamp(1, B::LEVELS.max(1));
            self.call(|bot, stored| {
                *stored = Some(level);
                bot.set_level(level);
            });
        }

        /// The bot's report on its last search, in C layout.
        pub fn search_info(&self) -> Option<OthelloSearchInfo> {
            self.call(|bot, _| bot.search_info()).flatten().map(OthelloSearchInfo::from)
        }

        /// `othello_analyze`: the bot's values of the legal moves, written into the host's array.
        ///
        /// # Safety
        /// `out` is NULL or points to `capacity` writable elements, each `size` bytes long, the
        /// first element's `size` set by the host (see [`write_move_values`]).
        pub unsafe fn analyze(&self, board: Option<&OthelloBoard>, out: *mut OthelloMoveValue, capacity: u32) -> u32 {
            let Some(board) = board else {
                self.lock().last_error = CString::new("othello_analyze was called with a NULL board").ok();
                return OTHELLO_ANALYZE_ERROR;
            };
            let Some(position) = board.position() else {
                self.lock().last_error = CString::new("othello_analyze was called with a malformed board").ok();
                return OTHELLO_ANALYZE_ERROR;
            };
            let time_limit = (board.time_limit_ms > 0).then(|| Duration::from_millis(board.time_limit_ms.into()));
            let request = ThinkRequest { position, time_limit };
            match self.call(|bot, _| bot.analyze(&request)) {
                Some(Some(values)) => {
                    if out.is_null() {
                        return 0;
                    }
                    let raw: Vec<OthelloMoveValue> = values.into_iter().map(OthelloMoveValue::from).collect();
                    // SAFETY: the caller's contract.
                    unsafe { write_move_values(out, capacity, &raw) }
                }
                Some(None) => {
                    self.lock().last_error = CString::new("this bot does not analyse").ok();
                    OTHELLO_ANALYZE_ERROR
                }
                None => OTHELLO_ANALYZE_ERROR, // panicked: `last_error` says so
            }
        }

        pub fn last_error(&self) -> *const c_char {
            // The pointer stays valid until the next call into the bot: the
            // string lives in the static state and is only replaced by a call.
            self.lock().last_error.as_ref().map_or(std::ptr::null(), |e| e.as_ptr())
        }
    }

    /// Copies `report` into the host's `OthelloSearchInfo` at `out`, writing
    /// only the fields that lie entirely within the host's `size` bytes, and
    /// setting in `flags` only the bits of fields written.
    ///
    /// The host's struct may be shorter (an older or smaller host) or longer (a
    /// newer host: ABI v1 only appends fields) than this crate's: bytes past
    /// `size` are never read or written, and bytes past this crate's struct are
    /// left as the host set them. `size` itself is the host's and stays as is.
    /// A `size` too small for `flags` gets nothing written.
    ///
    /// # Safety
    /// `out` points to at least 4 readable bytes holding the host's `size`
    /// (native-endian `u32`), and to at least `size` writable bytes.
    pub unsafe fn write_search_info(out: *mut OthelloSearchInfo, report: &OthelloSearchInfo) {
        // SAFETY: `size` is the first field of every version of the struct and
        // the host has set it (the caller's contract). Read unaligned so that
        // nothing depends on the alignment of the host's pointer.
        let size = unsafe { out.cast::<u32>().read_unaligned() } as usize;
        if size < offset_of!(OthelloSearchInfo, flags) + size_of::<u32>() {
            return; // not even room to say which fields hold a value
        }
        let mut host = HostStruct { base: out.cast(), size };
        // The `flags` bits of the fields written. A field added to the ABI must
        // be written here too, or its flag is never claimed.
        let mut written = 0;
        if host.write(offset_of!(OthelloSearchInfo, eval), report.eval) {
            // EXACT qualifies `eval`: claimed only with it.
            written |= info_flags::EVAL | info_flags::EXACT;
        }
        if host.write(offset_of!(OthelloSearchInfo, win_rate), report.win_rate) {
            written |= info_flags::WIN_RATE;
        }
        if host.write(offset_of!(OthelloSearchInfo, nodes), report.nodes) {
            written |= info_flags::NODES;
        }
        if host.write(offset_of!(OthelloSearchInfo, depth), report.depth) {
            written |= info_flags::DEPTH;
        }
        host.write(offset_of!(OthelloSearchInfo, flags), report.flags & written);
    }

    /// Copies `values` into the host's array of `OthelloMoveValue` at `out` (at most `capacity`
    /// of them) and returns how many it wrote. Elements lie `size` bytes apart, `size` read from
    /// the first element; in each, only the fields that lie entirely within `size` are written,
    /// and only their `flags` bits set. A `size` without room for the move writes nothing.
    ///
    /// # Safety
    /// `out` points to `capacity` writable elements of `size` bytes each, the first one's `size`
    /// (native-endian `u32` at its start) set by the host.
    pub unsafe fn write_move_values(out: *mut OthelloMoveValue, capacity: u32, values: &[OthelloMoveValue]) -> u32 {
        if capacity == 0 {
            return 0;
        }
        // SAFETY: the first element exists (capacity > 0) and starts with the host's `size`.
        let size = unsafe { out.cast::<u32>().read_unaligned() } as usize;
        if size < offset_of!(OthelloMoveValue, mv) + size_of::<u8>() {
            return 0;
        }
        let count = values.len().min(capacity as usize);
        for (index, value) in values[..count].iter().enumerate() {
            // SAFETY: element `index` < capacity starts `index * size` bytes in (the contract).
            let base = unsafe { out.cast::<u8>().add(index * size) };
            let mut host = HostStruct { base, size };
            host.write(offset_of!(OthelloMoveValue, size), size as u32);
            host.write(offset_of!(OthelloMoveValue, mv), value.mv);
            let mut written = 0;
            if host.write(offset_of!(OthelloMoveValue, eval), value.eval) {
                written |= info_flags::EVAL | info_flags::EXACT;
            }
            if host.write(offset_of!(OthelloMoveValue, win_rate), value.win_rate) {
                written |= info_flags::WIN_RATE;
            }
            if host.write(offset_of!(OthelloMoveValue, depth), value.depth) {
                written |= info_flags::DEPTH;
            }
            host.write(offset_of!(OthelloMoveValue, flags), value.flags & written);
        }
        count as u32
    }

    /// The host's `OthelloSearchInfo` (or one `OthelloMoveValue`), as `size` writable bytes at
    /// `base`. Made only in [`write_search_info`] and [`write_move_values`], from the host's
    /// pointer and `size`.
    struct HostStruct {
        base: *mut u8,
        size: usize,
    }

    impl HostStruct {
        /// Writes `value` at byte `offset` if it lies entirely within the
        /// host's `size` bytes; returns whether it did.
        fn write<T: Copy>(&mut self, offset: usize, value: T) -> bool {
            if offset + size_of::<T>() > self.size {
                return false;
            }
            // SAFETY: `offset..offset + size_of::<T>()` lies within the `size`
            // writable bytes at `base` (checked above; `write_search_info`'s
            // contract). Unaligned, like the read of `size`.
            unsafe { self.base.add(offset).cast::<T>().write_unaligned(value) };
            true
        }
    }
}
