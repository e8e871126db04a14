//! The `crawlspace` binary: parse the command line, run, exit.

fn main() {}
