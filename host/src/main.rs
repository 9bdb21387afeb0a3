fn main() -> std::process::ExitCode {
    match othello_host::app::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("othello: {why}");
            std::process::ExitCode::FAILURE
        }
    }
}
