fn main() {
    std::process::exit(othello_host::cli::main());
}
