//! How many threads the bot searches with: one unless asked.
//!
//! Arena games stay fair by default (every bot one core). A user who wants
//! the bot to use more cores sets [`THREADS_ENV_VAR`] in the environment of
//! the process that loads the plugin, e.g. `ALPHABETA_THREADS=2 othello match
//! alphabeta edax…`. No ABI change: the bot reads it when it is created.

/// The environment variable naming the search threads (a whole number ≥ 1).
pub const THREADS_ENV_VAR: &str = "ALPHABETA_THREADS";

/// The thread count `value` asks for: `None` when it is not a whole number
/// of at least 1 (then the default, one thread, stays).
pub fn parse_threads(value: &str) -> Option<usize> {
    value.trim().parse::<usize>().ok().filter(|&threads| threads >= 1)
}

/// The thread count from [`THREADS_ENV_VAR`], 1 if unset or invalid.
pub fn threads_from_env() -> usize {
    std::env::var(THREADS_ENV_VAR).ok().as_deref().and_then(parse_threads).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_numbers_from_one_count() {
        assert_eq!(parse_threads("2"), Some(2));
        assert_eq!(parse_threads(" 4\n"), Some(4));
        assert_eq!(parse_threads("0"), None);
        assert_eq!(parse_threads("-1"), None);
        assert_eq!(parse_threads("two"), None);
        assert_eq!(parse_threads(""), None);
    }
}
