//! The `crawlspace` binary: parse the command line, run, exit.

use clap::Parser;

fn main() -> std::process::ExitCode {
    crawlspace::cli::run(crawlspace::cli::Cli::parse())
}
