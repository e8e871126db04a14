//! The command line of SPEC §5 (clap derive) and the rule commands.
//!
//! `main` parses [`Cli`], calls [`run`], and turns the outcome into an exit
//! status: 0 on success, 2 for bad input (unreadable or malformed rules,
//! unparsable URLs), never a panic.

mod commands;
mod output;

pub use output::{DepthLimits, PENDING_HINT, crawler_refusal, priority_name, verdict_text};
pub use output::{disabled_warnings, escape_control, write_json};

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::rules::dialect::DialectChoice;

/// A terminal crawl console: ordered crawl rules, explained rule by rule.
#[derive(Debug, Parser)]
#[command(name = "crawlspace", version, about, long_about = None)]
pub struct Cli {
    /// The crawl configuration for the console (default command).
    #[arg(long, value_name = "FILE", global = false)]
    pub config: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the built-in demo site on 127.0.0.1 and crawl it.
    Demo {
        /// Print progress and a summary instead of opening the console.
        #[arg(long)]
        headless: bool,
    },
    /// Crawl as a configuration file says.
    Crawl {
        /// The crawl configuration: start URLs, settings and rules
        /// (config/default.toml documents every setting).
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// Print progress and a summary instead of opening the console.
        #[arg(long)]
        headless: bool,
        /// The URL log (a sled folder); the same one again resumes the
        /// crawl. Default: the config's `db`.
        #[arg(long, value_name = "DIR")]
        db: Option<PathBuf>,
        /// Where saved pages go, as a browsable mirror. Default: the
        /// config's `out`.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Re-fetch the URLs already in the log, with conditional requests,
        /// through the `refresh` queue; pages gone are marked deleted.
        #[arg(long)]
        refresh: bool,
    },
    /// Show the verdict for each URL and the trace of every rule visited.
    Explain {
        #[command(flatten)]
        rules: RulesArgs,
        /// Evaluate content-type rules as if the response had this type.
        #[arg(long, value_name = "T")]
        content_type: Option<String>,
        /// Evaluate address rules as if DNS had answered this address.
        #[arg(long, value_name = "IP")]
        address: Option<std::net::IpAddr>,
        /// Hops from a start URL (default 1: a link found on a start page).
        #[arg(long, value_name = "N", default_value_t = 1)]
        link_depth: u32,
        /// One JSON object per URL instead of text.
        #[arg(long)]
        json: bool,
        /// Also decide each URL by this robots.txt, as the configured
        /// `user_agent` (from a full config given to --rules, else the default).
        #[arg(long, value_name = "FILE")]
        robots: Option<PathBuf>,
        /// The URLs to decide, each as a link found on a page.
        #[arg(value_name = "URL", required = true)]
        urls: Vec<String>,
    },
    /// Read URLs on stdin, write one JSON verdict per line on stdout.
    Check {
        #[command(flatten)]
        rules: RulesArgs,
    },
    /// Print a rules file of any dialect as native TOML.
    Import {
        /// auto, native, funnelback, wca, exalead or nutch.
        #[arg(long, value_name = "D", value_parser = parse_dialect_choice, default_value = "auto")]
        dialect: DialectChoice,
        /// The rules file to convert.
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
    /// Print the resolved rule list: numbers, lines, state and lint warnings.
    Rules {
        #[command(flatten)]
        rules: RulesArgs,
    },
    /// List the URL log of a crawl, also while the crawl runs.
    Log {
        /// The URL log a crawl wrote (its `--db`, or the config's `db`).
        #[arg(long, value_name = "DIR")]
        db: PathBuf,
        /// Only URLs in this state: queued, in-flight, fetched, saved,
        /// filtered, error or deleted.
        #[arg(long, value_name = "S")]
        state: Option<String>,
        /// Only URLs whose URL or reason matches this regex.
        #[arg(long, value_name = "REGEX")]
        grep: Option<String>,
        /// One JSON object per URL, with every field, instead of a table.
        #[arg(long)]
        json: bool,
        /// Everything the log holds for this URL (repeatable): why it is
        /// in its state, rule by rule, and the links that led to it.
        #[arg(long, value_name = "URL", conflicts_with_all = ["state", "grep"])]
        why: Vec<String>,
    },
    /// Make a crawl's mirror browsable offline: point the saved pages'
    /// links at the saved copies (run where the crawl ran).
    ConvertLinks {
        /// The URL log of the crawl that saved the mirror (not while it runs).
        #[arg(long, value_name = "DIR")]
        db: PathBuf,
    },
}

/// Where the rules come from: a full config or a rules-only file.
#[derive(Debug, clap::Args)]
pub struct RulesArgs {
    /// A config file or a rules file of any dialect.
    #[arg(long, value_name = "FILE")]
    pub rules: PathBuf,
    /// auto, native, funnelback, wca, exalead or nutch.
    #[arg(long, value_name = "D", value_parser = parse_dialect_choice, default_value = "auto")]
    pub dialect: DialectChoice,
}

fn parse_dialect_choice(s: &str) -> Result<DialectChoice, String> {
    s.parse()
}

/// Runs one command and returns the process exit status.
pub fn run(cli: Cli) -> ExitCode {
    let result = match cli.command {
        Some(Command::Explain {
            rules,
            content_type,
            address,
            link_depth,
            json,
            robots,
            urls,
        }) => {
            let known = crate::rules::Known {
                content_type: None,
                address,
                link_depth,
            };
            let known = match content_type {
                Some(t) => known.with_content_type(&t),
                None => known,
            };
            commands::explain(&rules, &known, json, robots.as_deref(), &urls)
        }
        Some(Command::Check { rules }) => commands::check(&rules),
        Some(Command::Import { dialect, file }) => commands::import(dialect, &file),
        Some(Command::Rules { rules }) => commands::rules(&rules),
        Some(Command::Demo { headless }) => app_result(crate::app::demo(headless).map(|_| ())),
        Some(Command::Crawl {
            config,
            headless,
            db,
            out,
            refresh,
        }) => crawl(&config, headless, db, out, refresh),
        Some(Command::Log {
            db,
            state,
            grep,
            json,
            why,
        }) => app_result(crate::app::log(
            &db,
            crate::app::ListingRequest {
                state,
                grep,
                json,
                why,
            },
        )),
        Some(Command::ConvertLinks { db }) => app_result(crate::app::convert_links(&db)),
        None => match cli.config {
            Some(config) => crawl(&config, false, None, None, false),
            None => Err(commands::Failure::Usage(
                "give a crawl to watch with --config FILE, or try `crawlspace demo`".into(),
            )),
        },
    };
    match result {
        Ok(code) => code,
        Err(failure) => {
            // Errors quote the files and URLs they are about; each is one
            // line, so a line break in a quoted value is escaped too.
            eprintln!("crawlspace: {}", escape_control(&failure.to_string()));
            ExitCode::from(failure.status())
        }
    }
}

fn app_result(result: Result<(), crate::app::AppError>) -> Result<ExitCode, commands::Failure> {
    result
        .map(|()| ExitCode::SUCCESS)
        .map_err(commands::Failure::App)
}

fn crawl(
    config: &std::path::Path,
    headless: bool,
    db: Option<PathBuf>,
    out: Option<PathBuf>,
    refresh: bool,
) -> Result<ExitCode, commands::Failure> {
    let file = config.to_string_lossy().into_owned();
    let bytes = std::fs::read(config).map_err(|e| {
        commands::Failure::Usage(format!("{file}: cannot read the config file: {e}"))
    })?;
    let text = crate::rules::dialect::decode(&file, &bytes)
        .map_err(|e| commands::Failure::Usage(e.to_string()))?;
    let request = crate::app::CrawlRequest {
        config_file: file,
        config_text: text,
        db,
        out,
        headless,
        watch: true,
        refresh,
        resumable: true,
    };
    app_result(crate::app::crawl(request).map(|_| ()))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    /// `--help` explains every option and argument of every command: one
    /// added without a doc comment shows up as a bare flag.
    #[test]
    fn every_option_has_a_help_line() {
        let cli = Cli::command();
        let mut bare = Vec::new();
        let commands = std::iter::once(&cli).chain(cli.get_subcommands());
        for command in commands {
            // clap adds `--help` and `--version`, with their help, only
            // when the command is built: not here.
            for arg in command.get_arguments() {
                if arg.get_help().is_none() {
                    bare.push(format!("{} {}", command.get_name(), arg.get_id()));
                }
            }
        }
        assert!(bare.is_empty(), "options without help: {bare:?}");
    }
}
