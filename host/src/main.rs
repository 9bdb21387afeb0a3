fn main() -> eframe::Result {
    othello_host::app::run()
}
