//! The work done beside the requests: the in-process rating workers, the final, the test games,
//! the remote workers' leases and the re-play checks of their games.

pub mod final_round;
pub mod library;
pub mod remote;
pub mod replay_check;
pub mod replicas;
pub mod test_games;
pub mod worker;
