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
/// The exports are global symbols (`init`, `think`, …): one binary can't link
/// two crates that use this macro. To pit your bot against another in tests,
/// load the other one as a plugin with the `loader` feature, as the host does.
#[macro_export]
macro_rules! export_bot {
    ($bot:ty) => {
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

    use crate::abi::{OTHELLO_MOVE_ERROR, OthelloBoard, OthelloSearchInfo, info_flags};
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

    /// The host's `OthelloSearchInfo`, as `size` writable bytes at `base`.
    /// Made only in [`write_search_info`], from the host's pointer and `size`.
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
