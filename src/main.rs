//! The `crawlspace` binary: parse the command line, run, exit.

use clap::Parser;

/// jemalloc rather than the system's allocator: a crawl moves much of what
/// one thread allocates to another that frees it, which glibc's malloc
/// serializes on its arena locks (Cargo.toml says more).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    crawlspace::cli::run(crawlspace::cli::Cli::parse())
}
