//! The rule commands: `explain`, `check`, `import`, `rules`.
//!
//! Each loads the rules once, reports disabled rules and lint warnings on
//! stderr, and writes its answer on stdout. Per-URL problems in `check` are
//! data (an `"error"` line) and the run goes on.

use std::fmt;
use std::io::{self, BufRead, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use super::RulesArgs;
use super::output::{
    DepthLimits, RobotsView, TraceCache, VerdictJson, crawler_refusal, disabled_warnings,
    escape_control, verdict_robots_text, write_json,
};
use crate::config::Config;
use crate::crawl::robots::Robots;
use crate::rules::dialect::{self, Dialect, DialectChoice, Loaded, write::to_toml};
use crate::rules::error::RuleFileError;
use crate::rules::lint::lint_rules;
use crate::rules::{CompiledRules, Known, TraceMode, UrlFacts, normalize};

/// Why a command failed; each maps to an exit status.
#[derive(Debug)]
pub enum Failure {
    Rules(RuleFileError),
    /// Some URLs given on the command line could not be parsed.
    BadUrls(usize),
    Output(io::Error),
    /// A command line that cannot be carried out as given.
    Usage(String),
    /// A crawl or log failure.
    App(crate::app::AppError),
}

impl Failure {
    pub fn status(&self) -> u8 {
        match self {
            Failure::Rules(_) | Failure::BadUrls(_) | Failure::Usage(_) => 2,
            Failure::Output(_) => 1,
            Failure::App(e) => e.status(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Rules(e) => write!(f, "{e}"),
            Failure::BadUrls(n) => write!(
                f,
                "{} could not be judged (see above)",
                crate::text::counted(*n as u64, "URL", "URLs")
            ),
            Failure::Output(e) => write!(f, "cannot write the output: {e}"),
            Failure::Usage(m) => write!(f, "{m}"),
            Failure::App(e) => write!(f, "{e}"),
        }
    }
}

impl From<RuleFileError> for Failure {
    fn from(e: RuleFileError) -> Failure {
        Failure::Rules(e)
    }
}

/// Writing into a closed pipe (`check … | head`) is a normal way to stop.
fn output_error(e: io::Error) -> Failure {
    Failure::Output(e)
}

fn finish_output(result: io::Result<()>) -> Result<ExitCode, Failure> {
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(output_error(e)),
    }
}

/// Loads and compiles the rules, telling stderr about importer notes,
/// disabled rules and lint warnings.
fn load(args: &RulesArgs) -> Result<(Loaded, CompiledRules), Failure> {
    load_with_config(args).map(|(loaded, compiled, _)| (loaded, compiled))
}

/// [`load`], with the crawl settings when the file is a crawl's config
/// ([`crawl_config`]).
fn load_with_config(args: &RulesArgs) -> Result<(Loaded, CompiledRules, Option<Config>), Failure> {
    let path = args.rules.to_string_lossy();
    let loaded = dialect::load(&path, args.dialect)?;
    // A config is checked as `crawl` checks it: a typo in `[queues]` is an
    // error here too, not found only when the crawl starts.
    let config = crawl_config(&loaded)?;
    let compiled = CompiledRules::new(&loaded.parsed.rules);
    if let Some(config) = &config {
        warn_refused_start_urls(&loaded, config, &compiled);
    }
    report(&loaded, &compiled);
    Ok((loaded, compiled, config))
}

/// A config's start URLs, checked as `crawl` checks them before it starts
/// (fully qualified, allowed by the rules), but without resolving host
/// names for address rules: each refusal a warning on stderr, which
/// `crawl` would stop at. Not an error: `explain` is how to find out why.
fn warn_refused_start_urls(loaded: &Loaded, config: &Config, compiled: &CompiledRules) {
    let text = &loaded.text;
    let refusals: Vec<String> = config
        .crawl
        .start
        .iter()
        .filter_map(|url| {
            let e = crate::crawl::engine::check_start_offline(compiled, std::slice::from_ref(url))
                .err()?;
            let at = crate::app::start_line(text, url);
            Some(format!("{}{at}: {e}", loaded.file))
        })
        .collect();
    for refusal in refusals {
        eprintln!(
            "warning: {} (crawl would not start)",
            escape_control(&refusal)
        );
    }
}

/// The crawl settings of a native file that is a crawl's config, read as
/// `crawl` reads them; `None` for a rules file (SPEC 5: `[crawl]
/// disposition` and rules only), whose defaults say nothing about the
/// crawl it will be used in, and for other dialects. Any other `[crawl]`
/// key or a `[queues]` table makes a config, with or without start URLs
/// (`config/demo.toml` gets its start URL when the demo runs).
fn crawl_config(loaded: &Loaded) -> Result<Option<Config>, Failure> {
    if loaded.dialect != Dialect::Native {
        return Ok(None);
    }
    let text = &loaded.text;
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return Ok(None);
    };
    let crawl = table.get("crawl").and_then(toml::Value::as_table);
    let settings = crawl.is_some_and(|crawl| crawl.keys().any(|key| key != "disposition"));
    if !settings && !table.contains_key("queues") {
        return Ok(None);
    }
    Config::from_toml(&loaded.file, text)
        .map(Some)
        .map_err(|e| Failure::App(crate::app::AppError::Input(e.to_string())))
}

fn report(loaded: &Loaded, compiled: &CompiledRules) {
    let file = &escape_control(&loaded.file);
    // An empty or cut file reads as no rules, which fetches what the
    // disposition says: worth a word, since it may be all of the web.
    if loaded.parsed.rules.rules.is_empty() {
        eprintln!(
            "note: {file}: no rules: every URL gets the disposition `{}`",
            loaded.parsed.rules.disposition.name()
        );
    }
    for note in &loaded.parsed.notes {
        // Line 0: about the whole file (an empty one, say).
        let at = match note.line {
            0 => String::new(),
            line => format!(":{line}"),
        };
        eprintln!("note: {file}{at}: {}", escape_control(&note.message));
    }
    for warning in disabled_warnings(&loaded.file, compiled) {
        eprintln!("{warning}");
    }
    for lint in lint_rules(&loaded.parsed.rules) {
        eprintln!(
            "warning: {file}:{}: rule {}: {}",
            lint.line,
            crate::rules::model::rule_number(&lint.path),
            escape_control(&lint.message)
        );
    }
}

/// The robots.txt of `explain --robots`, read and parsed, with the user
/// agent whose groups apply.
struct RobotsFile {
    name: String,
    robots: Robots,
    user_agent: String,
}

impl RobotsFile {
    /// Reads `path`; the user agent is `[crawl] user_agent` when the rules
    /// file is a native config that sets it, else the shipped default.
    fn load(path: &Path, rules: &Loaded) -> Result<RobotsFile, Failure> {
        let name = path.to_string_lossy().into_owned();
        let bytes = std::fs::read(path).map_err(|e| {
            Failure::Usage(format!(
                "{}: cannot read the robots.txt file: {e}",
                escape_control(&name)
            ))
        })?;
        let robots = Robots::parse(&bytes);
        if robots.truncated() {
            eprintln!(
                "note: {}: longer than {} KiB; the rest is ignored (RFC 9309)",
                escape_control(&name),
                crate::crawl::robots::PARSE_LIMIT / 1024
            );
        }
        if robots.ignored_lines() > 0 {
            eprintln!(
                "note: {}: {} line(s) ignored (not a directive robots.txt defines)",
                escape_control(&name),
                robots.ignored_lines()
            );
        }
        let configured = (rules.dialect == Dialect::Native)
            .then(|| rules.text.parse::<toml::Table>().ok())
            .flatten()
            .and_then(|doc| {
                doc.get("crawl")?
                    .get("user_agent")?
                    .as_str()
                    .map(str::to_string)
            });
        let user_agent =
            configured.unwrap_or_else(|| crate::config::Config::defaults().crawl.user_agent);
        Ok(RobotsFile {
            name,
            robots,
            user_agent,
        })
    }

    fn decide(&self, url: &url::Url) -> RobotsView {
        let path = match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_string(),
        };
        let decision = self.robots.check(&self.user_agent, &path);
        let text = decision.describe(&self.name);
        RobotsView { decision, text }
    }
}

pub fn explain(
    args: &RulesArgs,
    known: &Known,
    json: bool,
    robots: Option<&Path>,
    urls: &[String],
) -> Result<ExitCode, Failure> {
    let (loaded, compiled, config) = load_with_config(args)?;
    let robots = robots
        .map(|path| RobotsFile::load(path, &loaded))
        .transpose()?;
    let limits = config.map(|config| DepthLimits {
        link: config.crawl.max_link_depth,
        path: config.crawl.max_path_depth,
    });
    let mut scratch = compiled.scratch();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut bad = 0;
    let result = (|| -> io::Result<()> {
        for text in urls {
            let url = match normalize(text) {
                Ok(url) => url,
                Err(e) => {
                    bad += 1;
                    eprintln!("crawlspace: {}: {e}", escape_control(text));
                    if json {
                        write_json(
                            &mut out,
                            &serde_json::json!({"url": text, "error": e.to_string()}),
                        )?;
                        writeln!(out)?;
                    }
                    continue;
                }
            };
            let facts = UrlFacts::new(&url, known).with_host_address();
            let verdict = compiled.evaluate(&facts, &mut scratch, TraceMode::Full);
            let robots = robots.as_ref().map(|r| r.decide(&url));
            if json {
                let mut answer = VerdictJson::new(url.as_str(), &verdict, &compiled);
                if let Some(robots) = &robots {
                    answer = answer.with_robots(robots);
                }
                write_json(&mut out, &answer)?;
                writeln!(out)?;
            } else {
                let text = verdict_robots_text(url.as_str(), &verdict, &compiled, robots.as_ref());
                write!(out, "{text}")?;
                if verdict.fetch
                    && let Some(why) = crawler_refusal(&url, known.link_depth, limits)
                {
                    writeln!(out, "  crawler: {why}")?;
                }
            }
        }
        out.flush()
    })();
    finish_output(result)?;
    if bad > 0 {
        Err(Failure::BadUrls(bad))
    } else {
        Ok(ExitCode::SUCCESS)
    }
}

/// Streams stdin to stdout one line at a time: memory stays flat however
/// many URLs come through.
pub fn check(args: &RulesArgs) -> Result<ExitCode, Failure> {
    let (_, compiled) = load(args)?;
    let mut scratch = compiled.scratch();
    let known = Known::default();
    let stdin = io::stdin();
    // Our own buffer, to tell when the input read so far is used up.
    let mut input = io::BufReader::with_capacity(1 << 16, stdin.lock());
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut traces = TraceCache::default();
    let mut bytes = Vec::new();
    let result = (|| -> io::Result<()> {
        loop {
            bytes.clear();
            if input.read_until(b'\n', &mut bytes)? == 0 {
                break;
            }
            // Invalid UTF-8 is not fatal: a stray byte in a URL list costs
            // one error line (the line shown with U+FFFD), not the run.
            let line = String::from_utf8_lossy(&bytes);
            let text = line.trim();
            if text.is_empty() {
                continue;
            }
            let read = match &line {
                std::borrow::Cow::Borrowed(_) => normalize(text).map_err(|e| e.to_string()),
                std::borrow::Cow::Owned(_) => Err("not valid UTF-8".to_string()),
            };
            match read {
                Ok(url) => {
                    let facts = UrlFacts::new(&url, &known).with_host_address();
                    let verdict = compiled.evaluate(&facts, &mut scratch, TraceMode::Decisive);
                    let trace = traces.entries(&verdict, &compiled);
                    write_json(
                        &mut out,
                        &VerdictJson::with_trace(url.as_str(), &verdict, trace),
                    )?;
                }
                Err(e) => {
                    write_json(&mut out, &serde_json::json!({"url": text, "error": e}))?;
                }
            }
            out.write_all(b"\n")?;
            // Nothing more to hand: whoever feeds the URLs one at a time
            // (a script holding `check` open) gets each answer now.
            if input.buffer().is_empty() {
                out.flush()?;
            }
        }
        out.flush()
    })();
    finish_output(result)
}

pub fn import(choice: DialectChoice, file: &Path) -> Result<ExitCode, Failure> {
    let path = file.to_string_lossy();
    let loaded = dialect::load(&path, choice)?;
    // As the other rule commands do: notes, and the rules that will be off
    // (a regex the engine refuses) or never match, before they are copied.
    let compiled = CompiledRules::new(&loaded.parsed.rules);
    report(&loaded, &compiled);
    // A crawl's config: its settings are not rules, and are not copied.
    if loaded.dialect == Dialect::Native
        && let Ok(table) = toml::from_str::<toml::Table>(&loaded.text)
    {
        let crawl = table.get("crawl").and_then(toml::Value::as_table);
        let mut left: Vec<String> = crawl
            .into_iter()
            .flat_map(|c| c.keys())
            .filter(|key| *key != "disposition")
            .map(|key| format!("crawl.{key}"))
            .collect();
        left.extend(
            table
                .keys()
                .filter(|key| !matches!(key.as_str(), "crawl" | "rules"))
                .map(|key| format!("[{key}]")),
        );
        if !left.is_empty() {
            eprintln!(
                "note: {}: import writes the rules and the disposition only; not copied: {}",
                escape_control(&path),
                escape_control(&left.join(", "))
            );
        }
    }
    let mut header = format!(
        "imported from {path} ({} dialect) by crawlspace import",
        loaded.dialect
    );
    // Said in the file too, not only on stderr: a reader of the TOML alone
    // would take a rule the crawl switches off (a look-ahead, say) for one
    // in force.
    for warning in disabled_warnings(&path, &compiled) {
        header.push('\n');
        header.push_str(warning.trim_start_matches("warning: "));
    }
    let text = to_toml(&loaded.parsed.rules, &header);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    finish_output(out.write_all(text.as_bytes()).and_then(|()| out.flush()))
}

pub fn rules(args: &RulesArgs) -> Result<ExitCode, Failure> {
    let (loaded, compiled) = load(args)?;
    let lints = lint_rules(&loaded.parsed.rules);
    let info = compiled.rule_info();
    // Rule health (SPEC §4), in the same walk order as `info`: rules an
    // earlier `stop` or filter keeps from ever taking effect.
    let shadows = crate::rules::health::shadowed(&loaded.parsed.rules);
    // Blocks counted apart: the WCA and Nutch importers add block rules
    // of their own, and "5 rules" for a three-line file reads as a miscount.
    let blocks = info
        .iter()
        .filter_map(|rule| rule.parent)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let counts = match blocks {
        0 => crate::text::counted(info.len() as u64, "rule", "rules"),
        _ => format!(
            "{} and {} holding them",
            crate::text::counted((info.len() - blocks) as u64, "rule", "rules"),
            crate::text::counted(blocks as u64, "block", "blocks")
        ),
    };
    let mut text = format!(
        "{} ({} dialect): {counts}, disposition {}\n",
        escape_control(&loaded.file),
        loaded.dialect,
        compiled.disposition().name()
    );
    let width = info
        .iter()
        .map(|i| i.number.len() + 2 * i.depth)
        .max()
        .unwrap_or(1);
    for (i, rule) in info.iter().enumerate() {
        let number = format!("{}{}", "  ".repeat(rule.depth), rule.number);
        let state = if rule.disabled.is_some() {
            "disabled"
        } else {
            "enabled "
        };
        text.push_str(&format!(
            "#{number:<width$}  {:<10} {state}  {}\n",
            match rule.line {
                0 => "no line".to_string(),
                n => format!("line {n}"),
            },
            escape_control(&rule.name),
        ));
        let pad = " ".repeat(width + 3);
        text.push_str(&format!("{pad}when {}\n", escape_control(&rule.condition)));
        text.push_str(&format!("{pad}then {}\n", escape_control(&rule.effects)));
        if let Some(reason) = &rule.disabled {
            text.push_str(&format!(
                "{pad}DISABLED: {}\n",
                escape_control(reason.text())
            ));
        }
        if let Some(Some(why)) = shadows.get(i) {
            text.push_str(&format!("{pad}shadowed: {}\n", escape_control(why)));
        }
        for lint in lints
            .iter()
            .filter(|l| crate::rules::model::rule_number(&l.path) == rule.number)
        {
            text.push_str(&format!("{pad}lint: {}\n", escape_control(&lint.message)));
        }
    }
    let stdout = io::stdout();
    let mut out = stdout.lock();
    finish_output(out.write_all(text.as_bytes()).and_then(|()| out.flush()))
}
