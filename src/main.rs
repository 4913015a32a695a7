use clap::Parser;
use order_exception_agent::CommandLine;
use std::process::ExitCode;

/// jemalloc instead of glibc's malloc: the request path allocates many
/// short-lived buffers, and glibc spent a quarter of the service's time in
/// `malloc`/`free` under load (bench/README.md). Options: `.cargo/config.toml`.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Parses the command line and runs it: `serve` (the default) or a client
/// command (`src/cli/command_line.rs`).
#[tokio::main]
async fn main() -> ExitCode {
    CommandLine::parse().run().await
}
