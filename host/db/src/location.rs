//! Where a ladder lives: an SQLite file, or a PostgreSQL database named by its URL.

use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Location {
    File(PathBuf),
    /// `postgres://user[:password]@host[:port]/database[?options]`.
    Postgres(String),
}

impl Location {
    /// A `postgres://` or `postgresql://` URL names a database; anything else is a file.
    pub fn parse(text: &str) -> Location {
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            Location::Postgres(text.to_owned())
        } else {
            Location::File(PathBuf::from(text))
        }
    }

    pub fn file(&self) -> Option<&std::path::Path> {
        match self {
            Location::File(path) => Some(path),
            Location::Postgres(_) => None,
        }
    }
}

impl From<PathBuf> for Location {
    fn from(path: PathBuf) -> Location {
        Location::File(path)
    }
}

impl From<&PathBuf> for Location {
    fn from(path: &PathBuf) -> Location {
        Location::File(path.clone())
    }
}

impl From<&Location> for Location {
    fn from(location: &Location) -> Location {
        location.clone()
    }
}

impl From<&std::path::Path> for Location {
    fn from(path: &std::path::Path) -> Location {
        Location::File(path.to_owned())
    }
}

/// Shown in messages and logs: a URL's password is never written out.
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::File(path) => write!(f, "{}", path.display()),
            Location::Postgres(url) => f.write_str(&without_password(url)),
        }
    }
}

fn without_password(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else { return url.to_owned() };
    let authority_end = url[scheme_end..].find(['/', '?']).map_or(url.len(), |i| scheme_end + i);
    let authority = &url[scheme_end..authority_end];
    match (authority.rfind('@'), authority.find(':')) {
        (Some(at), Some(colon)) if colon < at => {
            format!("{}{}:***{}", &url[..scheme_end], &authority[..colon], &url[scheme_end + at..])
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_databases_and_their_passwords_are_not_shown() {
        let url = Location::parse("postgres://arena:s3cret@db.example:5432/ladder?sslmode=require");
        assert!(matches!(url, Location::Postgres(_)));
        assert_eq!(url.to_string(), "postgres://arena:***@db.example:5432/ladder?sslmode=require");
        assert_eq!(Location::parse("postgresql://arena@db/ladder").to_string(), "postgresql://arena@db/ladder");
        assert_eq!(Location::parse("contest.sqlite3"), Location::File("contest.sqlite3".into()));
    }
}
