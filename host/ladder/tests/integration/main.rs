//! The rating ladder's integration tests, one binary (each module a former test file).

mod fit;
mod store;
