//! The `crawlspace` binary: parse the command line, run, exit.

use clap::Parser;

/// jemalloc rather than the system's allocator: a crawl moves much of what
/// one thread allocates to another that frees it, which glibc's malloc
/// serializes on its arena locks (Cargo.toml says more).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    // A panic in sled while it opens a damaged log is caught and reported
    // as a clear error; its own message would only come first.
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !crawlspace::store::panic_is_expected() {
            report(info);
        }
    }));
    crawlspace::cli::run(crawlspace::cli::Cli::parse())
}
