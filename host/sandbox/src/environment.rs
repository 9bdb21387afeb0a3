//! The clean-environment layer (host side): a bot's runner or an engine does not inherit the
//! host's environment, where a worker's token, a database URL or a CI secret may live and from
//! where a bot could copy it into its name, its stderr or its evaluations (and so into game files
//! and ladder pages). It gets an allow-list of exact names, [`ALLOWED`]:
//!
//! - `PATH` (the system folders when the host has none), `LANG`, `LC_ALL` and `TZ` as the host
//!   has them;
//! - `OTHELLO_SEED`, the one variable of the project's own that bots read (`OTHELLO_SEED=42
//!   othello match …` replays the same games);
//! - `HOME` and `TMPDIR`: its scratch folder, the only place it may write (the host's own where
//!   there is no scratch folder, `--sandbox off`);
//! - every variable named with `--env NAME` that the host has, unless its name or its value looks
//!   like a secret ([`secret_reason`]): a token, a password, a key or a URL with credentials
//!   never passes, whatever the user names.
//!
//! The programs that hold secrets (`othello worker`, `othello serve`) also take them out of their
//! own environment before any bot starts (`othello`'s `secrets` module).

use std::ffi::{OsStr, OsString};
use std::path::Path;

/// The variables passed on as the host has them: the whole list, exact names.
pub const ALLOWED: [&str; 5] = ["PATH", "LANG", "LC_ALL", "TZ", "OTHELLO_SEED"];
/// `PATH` when the host has none.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";
/// Parts of a variable's name that mark it as a secret (compared in upper case).
const SECRET_NAME_PARTS: [&str; 8] =
    ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "PRIVATE", "API_KEY"];
/// Whole names (or endings) that carry secrets without saying so.
/// (`XAUTHORITY` is no secret of this kind: the app needs it to open its window.)
const SECRET_NAMES: [&str; 7] =
    ["DATABASE_URL", "PGPASSFILE", "PGSERVICEFILE", "_KEY", "_PASS", "_AUTH", "SSH_AUTH_SOCK"];

/// Why the variable `name` (with `value`) is never passed to a bot, or `None` when it may be:
/// a name that says it holds a token, a password, a key or credentials, or a value that is a URL
/// with a user's password in it (`postgres://user:password@host/db`).
pub fn secret_reason(name: &str, value: Option<&OsStr>) -> Option<String> {
    let upper = name.to_ascii_uppercase();
    if let Some(part) = SECRET_NAME_PARTS.iter().find(|part| upper.contains(*part)) {
        return Some(format!("{name} looks like a secret (its name has {part}): it is never passed to a bot"));
    }
    if let Some(secret) = SECRET_NAMES.iter().find(|secret| upper == **secret || upper.ends_with(*secret)) {
        return Some(format!("{name} looks like a secret (like {secret}): it is never passed to a bot"));
    }
    let value = value?.to_string_lossy();
    let has_credentials = value.split_once("://").is_some_and(|(_, rest)| {
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        authority.rsplit_once('@').is_some_and(|(user, _)| user.contains(':'))
    });
    has_credentials.then(|| format!("{name} holds a URL with a password: it is never passed to a bot"))
}

/// The whole environment of a runner or engine whose scratch folder is `scratch` (`None`: no
/// sandbox, `HOME` and `TMPDIR` stay the host's), with the host's variables `named` passed on
/// too unless they look like secrets.
pub fn clean_environment(scratch: Option<&Path>, named: &[String]) -> Vec<(OsString, OsString)> {
    let mut environment: Vec<(OsString, OsString)> = Vec::new();
    let mut set = |name: OsString, value: OsString| {
        environment.retain(|(existing, _)| *existing != name);
        environment.push((name, value));
    };
    set("PATH".into(), DEFAULT_PATH.into());
    let home_and_tmp = ["HOME", "TMPDIR"];
    for (name, value) in std::env::vars_os() {
        let Some(text) = name.to_str() else { continue };
        let passed = ALLOWED.contains(&text)
            || (scratch.is_none() && home_and_tmp.contains(&text))
            || (named.iter().any(|n| n == text) && secret_reason(text, Some(&value)).is_none());
        if passed {
            set(name, value);
        }
    }
    if let Some(scratch) = scratch {
        set("HOME".into(), scratch.into());
        set("TMPDIR".into(), scratch.into());
    }
    environment
}

/// What the layer report says of it.
pub fn describe() -> String {
    format!(
        "only {}, HOME and TMPDIR (its scratch folder) and the variables named with --env (never a token, \
         password, key or URL with credentials)",
        ALLOWED.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(environment: &[(OsString, OsString)]) -> Vec<String> {
        environment.iter().map(|(name, _)| name.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn only_the_allowed_names_and_the_named_variables_pass() {
        // A variable every test run has (cargo sets CARGO_*), and one it names.
        let host: Vec<String> = std::env::vars_os().filter_map(|(name, _)| name.into_string().ok()).collect();
        let other = host.iter().find(|name| {
            !ALLOWED.contains(&name.as_str()) && secret_reason(name, std::env::var_os(name).as_deref()).is_none()
        });
        let scratch = Path::new("/tmp/othello-scratch-test");
        let clean = clean_environment(Some(scratch), &[]);
        for (name, value) in &clean {
            let name = name.to_str().unwrap();
            assert!(ALLOWED.contains(&name) || name == "HOME" || name == "TMPDIR", "{name} passed");
            if name == "HOME" || name == "TMPDIR" {
                assert_eq!(value, scratch.as_os_str());
            }
        }
        assert!(names(&clean).contains(&"PATH".to_owned()));
        if let Some(other) = other {
            assert!(!names(&clean).contains(other), "{other} passed without being named");
            let named = clean_environment(Some(scratch), std::slice::from_ref(other));
            let value = named.iter().find(|(name, _)| name == other.as_str()).map(|(_, value)| value);
            assert_eq!(value, std::env::var_os(other).as_ref(), "the named {other} passes as it is");
        }
    }

    #[test]
    fn secrets_are_recognised_by_name_and_by_value() {
        for name in [
            "OTHELLO_WORKER_TOKEN",
            "GITHUB_TOKEN",
            "PGPASSWORD",
            "AWS_SECRET_ACCESS_KEY",
            "DATABASE_URL",
            "SSH_AUTH_SOCK",
            "OPENAI_API_KEY",
            "SIGNING_KEY",
            "npm_config__auth",
        ] {
            assert!(secret_reason(name, None).is_some(), "{name}");
        }
        for name in ["ALPHABETA_THREADS", "OTHELLO_SEED", "CARGO_PKG_NAME", "KEYBOARD_LAYOUT", "XAUTHORITY"] {
            assert_eq!(secret_reason(name, None), None, "{name}");
        }
        let url = |value: &str| secret_reason("ENGINE_DB", Some(OsStr::new(value)));
        assert!(url("postgres://arena:hunter2@db.example:5432/contest").is_some());
        assert!(url("https://user:pass@example.org/").is_some());
        assert_eq!(url("postgres://arena@localhost/contest"), None);
        assert_eq!(url("https://example.org/a@b:c"), None);
    }
}
