//! The `othello` program run as a user would, one binary (each module a former test file).
//! `no_zombies` stays a binary of its own: it reaps every child of its process.

mod cli;
mod ladder;
mod nboard;
mod nboard_hint;
mod nboard_sample_bots;
mod replicas;
mod scale;
mod serve;
mod serving;
mod workers;
