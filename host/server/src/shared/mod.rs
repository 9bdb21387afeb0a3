//! What the web side and the workers share while the server runs.

pub mod live;
