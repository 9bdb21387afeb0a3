//! The host side of the ABI: opening a bot library and calling it.
//!
//! Loading a library runs its code, and every call runs foreign code: a bot
//! can crash or hang the calling process whatever this module does. Hosts that
//! must survive misbehaving bots call this from an isolated child process.

use std::ffi::{CStr, c_char};
use std::fmt;
use std::path::{Path, PathBuf};

use libloading::{Library, Symbol};

use crate::abi::{
    OTHELLO_ABI_VERSION, OTHELLO_ANALYZE_CAPACITY, OTHELLO_ANALYZE_ERROR, OthelloBoard, OthelloMoveValue,
    OthelloSearchInfo, symbol,
};
use crate::{SUPPORTED_ABI_VERSIONS, SearchInfo};

type AbiVersionFn = unsafe extern "C" fn() -> u32;
type InitFn = unsafe extern "C" fn() -> *const c_char;
type ThinkFn = unsafe extern "C" fn(*const OthelloBoard) -> u8;
type LevelsFn = unsafe extern "C" fn() -> u32;
type SetLevelFn = unsafe extern "C" fn(u32);
type SearchInfoFn = unsafe extern "C" fn(*mut OthelloSearchInfo);
type LastErrorFn = unsafe extern "C" fn() -> *const c_char;
type AnalyzeFn = unsafe extern "C" fn(*const OthelloBoard, *mut OthelloMoveValue, u32) -> u32;

/// How [`LoadError::NotALibrary`] starts when shown: a host that gets the text back (from an
/// isolated runner) can tell a library the system could not load from one that loaded.
pub const NOT_LOADABLE: &str = "not a loadable library";

/// Why a library is not a usable bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// `dlopen` failed: not a shared library, wrong architecture, missing dependency.
    NotALibrary(String),
    /// A required export is missing.
    MissingSymbol(&'static str),
    /// The bot speaks an ABI version this host does not.
    UnsupportedAbi(u32),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotALibrary(why) => write!(f, "{NOT_LOADABLE}: {why}"),
            LoadError::MissingSymbol(name) => write!(f, "missing symbol `{name}`"),
            LoadError::UnsupportedAbi(version) => write!(
                f,
                "ABI version {version} not supported (this host supports {})",
                SUPPORTED_ABI_VERSIONS.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

impl std::error::Error for LoadError {}

/// A loaded bot library with its entry points resolved.
pub struct BotLibrary {
    path: PathBuf,
    abi_version: u32,
    init: InitFn,
    think: ThinkFn,
    levels: Option<LevelsFn>,
    set_level: Option<SetLevelFn>,
    search_info: Option<SearchInfoFn>,
    last_error: Option<LastErrorFn>,
    analyze: Option<AnalyzeFn>,
    // Declared last so the function pointers above are dropped before it.
    _library: Library,
}

/// The optional exports a library has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Features {
    /// Number of strength levels (0 = no level knob).
    pub levels: u32,
    pub search_info: bool,
    pub last_error: bool,
    /// `othello_analyze`: the bot reports the value of every legal move.
    pub analysis: bool,
}

/// What `othello_analyze` gave back, unchecked: the host validates it against the position
/// (`othello_arena::analysis`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawAnalysis {
    /// The count the bot returned ([`OTHELLO_ANALYZE_ERROR`] for a failure), as it returned it:
    /// it may exceed the capacity.
    pub returned: u32,
    /// The elements within both the count and the capacity, as the bot left them.
    pub values: Vec<OthelloMoveValue>,
}

impl BotLibrary {
    /// Opens `path` and checks its exports and ABI version.
    pub fn open(path: &Path) -> Result<BotLibrary, LoadError> {
        let library = load(path).map_err(|e| LoadError::NotALibrary(with_causes(&e)))?;

        fn required<T: Copy>(library: &Library, name: &'static [u8]) -> Result<T, LoadError> {
            // SAFETY: T is the function pointer type the ABI declares for `name`.
            let symbol: Result<Symbol<T>, _> = unsafe { library.get(name) };
            symbol.map(|s| *s).map_err(|_| LoadError::MissingSymbol(display_name(name)))
        }
        fn optional<T: Copy>(library: &Library, name: &'static [u8]) -> Option<T> {
            // SAFETY: as above.
            unsafe { library.get::<T>(name) }.ok().map(|s| *s)
        }

        let abi_version: AbiVersionFn = required(&library, symbol::ABI_VERSION)?;
        // SAFETY: a required ABI function taking no arguments.
        let abi_version = unsafe { abi_version() };
        if !SUPPORTED_ABI_VERSIONS.contains(&abi_version) {
            return Err(LoadError::UnsupportedAbi(abi_version));
        }
        Ok(BotLibrary {
            path: path.to_owned(),
            abi_version,
            init: required(&library, symbol::INIT)?,
            think: required(&library, symbol::THINK)?,
            levels: optional(&library, symbol::LEVELS),
            set_level: optional(&library, symbol::SET_LEVEL),
            search_info: optional(&library, symbol::SEARCH_INFO),
            last_error: optional(&library, symbol::LAST_ERROR),
            analyze: optional(&library, symbol::ANALYZE),
            _library: library,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn abi_version(&self) -> u32 {
        self.abi_version
    }

    /// Which optional exports the library has (calls `othello_levels`).
    pub fn features(&self) -> Features {
        Features {
            // SAFETY: an ABI function taking no arguments.
            levels: self.levels.map_or(0, |levels| unsafe { levels() }),
            search_info: self.search_info.is_some(),
            last_error: self.last_error.is_some(),
            analysis: self.analyze.is_some(),
        }
    }

    /// Calls `init`: starts a game and returns the bot's name (`None` if it
    /// returned NULL or a name that is not UTF-8).
    pub fn init(&self) -> Option<String> {
        // SAFETY: `init` takes no arguments and returns NULL or a NUL-terminated string.
        let name = unsafe { (self.init)() };
        // SAFETY: non-NULL: the ABI promises a NUL-terminated static string.
        (!name.is_null()).then(|| unsafe { CStr::from_ptr(name) }.to_str().ok().map(str::to_owned)).flatten()
    }

    /// Calls `think` and returns the raw move byte.
    pub fn think(&self, board: &OthelloBoard) -> u8 {
        // SAFETY: `board` is valid for the duration of the call.
        unsafe { (self.think)(board) }
    }

    /// Calls `othello_set_level` if the bot has it.
    pub fn set_level(&self, level: u32) {
        if let Some(set_level) = self.set_level {
            // SAFETY: an ABI function taking a u32.
            unsafe { set_level(level) }
        }
    }

    /// The bot's report on its last search, if it has one.
    pub fn search_info(&self) -> Option<SearchInfo> {
        let search_info = self.search_info?;
        let mut raw = OthelloSearchInfo { size: std::mem::size_of::<OthelloSearchInfo>() as u32, ..Default::default() };
        // SAFETY: `raw` is a valid, writable struct for the duration of the call.
        unsafe { search_info(&mut raw) };
        (raw.flags != 0).then(|| raw.into())
    }

    /// Calls `othello_analyze` if the bot has it, with room for [`OTHELLO_ANALYZE_CAPACITY`]
    /// values. Reads no element past the capacity whatever count the bot returns.
    pub fn analyze(&self, board: &OthelloBoard) -> Option<RawAnalysis> {
        let analyze = self.analyze?;
        let empty = OthelloMoveValue { size: std::mem::size_of::<OthelloMoveValue>() as u32, ..Default::default() };
        let mut values = vec![empty; OTHELLO_ANALYZE_CAPACITY as usize];
        // SAFETY: `board` is valid and `values` holds `capacity` writable elements of the `size`
        // each one states, for the duration of the call.
        let returned = unsafe { analyze(board, values.as_mut_ptr(), OTHELLO_ANALYZE_CAPACITY) };
        let kept = if returned == OTHELLO_ANALYZE_ERROR { 0 } else { returned.min(OTHELLO_ANALYZE_CAPACITY) };
        values.truncate(kept as usize);
        Some(RawAnalysis { returned, values })
    }

    /// The bot's explanation of its last failure (e.g. `panicked: …`), if any.
    pub fn last_error(&self) -> Option<String> {
        let last_error = self.last_error?;
        // SAFETY: takes no arguments; returns NULL or a NUL-terminated string.
        let text = unsafe { last_error() };
        // SAFETY: non-NULL and NUL-terminated per the ABI.
        (!text.is_null()).then(|| unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned())
    }
}

impl fmt::Debug for BotLibrary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BotLibrary").field("path", &self.path).field("abi_version", &self.abi_version).finish()
    }
}

/// Opens the library. On Windows the DLLs it imports are looked up in its own folder first (then
/// the system folders and `PATH`), as for a program's DLLs: a dependency put beside the bot is
/// found (plain `LoadLibraryExW` looks beside the host's executable instead).
fn load(path: &Path) -> Result<Library, libloading::Error> {
    // The flag needs an absolute path (`C:\bots\x.dll`; `/bots/x.dll` is not one to Windows).
    #[cfg(windows)]
    if let Ok(absolute) = std::path::absolute(path) {
        use libloading::os::windows::{LOAD_WITH_ALTERED_SEARCH_PATH, Library as WindowsLibrary};
        // SAFETY: as below; the flag only changes where the DLL's dependencies are looked up.
        return unsafe { WindowsLibrary::load_with_flags(&absolute, LOAD_WITH_ALTERED_SEARCH_PATH) }.map(Library::from);
    }
    // SAFETY: loading runs the library's initialisers, which is inherent in
    // hosting native plugins; the caller isolates untrusted libraries.
    unsafe { Library::new(path) }
}

/// An error and its chain of causes: libloading keeps `dlerror()`'s text (the
/// useful part, e.g. "file too short") in the error's source.
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

fn display_name(symbol: &'static [u8]) -> &'static str {
    std::str::from_utf8(symbol.strip_suffix(b"\0").unwrap_or(symbol)).unwrap_or("?")
}

const _: () = assert!(OTHELLO_ABI_VERSION == 1);
