//! `netcond-sim`: reproduces the seed experiments with the netcond crates.

fn main() {
    println!("netcond-sim: scenarios arrive with their issues");
}
