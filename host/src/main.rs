fn main() {
    println!("othello host: placeholder");
}
