//! The command-line contract of SPEC §5, run against the built binary:
//! JSON keys, exit statuses, error messages naming file and line, `check`
//! streaming past bad lines, and no panic on random input.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_crawlspace"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("binary runs")
}

fn run_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().expect("binary finishes");
    writer.join().expect("writer thread");
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A temporary rules file that lives as long as the returned guard.
fn rules_file(name: &str, content: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    std::fs::write(&path, content).expect("write rules");
    (dir, path)
}

/// `crawl --headless` of `config` into the log `db`.
fn crawl_headless(config: &Path, db: &Path) -> Output {
    run(&headless_args(config, db))
}

/// The arguments of `crawl --headless` of `config` into the log `db`.
fn headless_args<'a>(config: &'a Path, db: &'a Path) -> Vec<&'a str> {
    vec![
        "crawl",
        "--config",
        path_str(config),
        "--headless",
        "--db",
        path_str(db),
    ]
}

/// `crawl --headless` with `--db` and `--out`, and `more` arguments
/// (`--refresh`): the exit status and stderr.
fn crawl_into(config: &Path, db: &Path, out: &Path, more: &[&str]) -> (Option<i32>, String) {
    let mut args = headless_args(config, db);
    args.extend(["--out", path_str(out)]);
    args.extend(more);
    let said = run(&args);
    (said.status.code(), text(&said.stderr))
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

const FUNNELBACK: &str = "include_patterns=/red,/green,/blue\nexclude_patterns=/green/olive\n";

#[test]
fn explain_json_has_the_contract_keys() {
    let (_dir, rules) = rules_file("collection.cfg", FUNNELBACK);
    let out = run(&[
        "explain",
        "--rules",
        path_str(&rules),
        "--json",
        "http://example.com/green/olive#frag",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    for key in [
        "url", "fetch", "save", "follow", "filtered", "priority", "queue", "log", "trace",
    ] {
        assert!(v.get(key).is_some(), "missing key {key} in {v}");
    }
    assert_eq!(v["url"], "http://example.com/green/olive");
    assert_eq!(v["filtered"], true);
    assert_eq!(v["fetch"], false);
    assert_eq!(v["queue"], "none");
    assert_eq!(v["priority"], 0);
    let trace = v["trace"].as_array().expect("trace array");
    assert_eq!(trace.len(), 2, "explain shows every rule visited: {v}");
    assert_eq!(trace[1]["line"], 2);
    assert_eq!(trace[1]["filtered"], true);
    assert_eq!(trace[1]["step"], "matched");
}

#[test]
fn explain_text_names_the_deciding_rule() {
    let (_dir, rules) = rules_file("collection.cfg", FUNNELBACK);
    let out = run(&[
        "explain",
        "--rules",
        path_str(&rules),
        "http://example.com/orange",
        "http://example.com/green/emerald",
    ]);
    assert!(out.status.success());
    let s = text(&out.stdout);
    assert!(
        s.contains("http://example.com/orange\n  verdict: FILTERED"),
        "{s}"
    );
    assert!(
        s.contains("filtered by rule 1 \"include_patterns\" (line 1)"),
        "{s}"
    );
    assert!(
        s.contains(
            "http://example.com/green/emerald\n  verdict: fetch + save + follow; queue index_follow"
        ),
        "{s}"
    );
}

/// A rule named by its regex (each Nutch line is) is quoted as the file
/// has it: one backslash, not the two of a debug string.
#[test]
fn explain_quotes_a_rule_name_as_written() {
    let (_dir, rules) = rules_file("regex-urlfilter.txt", "-\\.gif$\n+.\n");
    let out = run(&["explain", "--rules", path_str(&rules), "http://h/a.gif"]);
    assert!(out.status.success());
    let s = text(&out.stdout);
    assert!(
        s.contains("filtered by rule 1.1 \"-\\.gif$\" (line 1)"),
        "{s}"
    );
    assert!(s.contains("#1.1 \"-\\.gif$\" (line 1)"), "{s}");
    // A control character in a name is escaped, and so is a quote.
    let toml = "[[rules]]\nname = \"red\\u001b[31m \\\"x\\\"\"\nfilter = \"may-not-have\"\n\
                match = { field = \"path\", prefix = \"/a\" }\n";
    let (_dir, rules) = rules_file("c.toml", toml);
    let out = run(&["explain", "--rules", path_str(&rules), "http://h/a"]);
    let s = text(&out.stdout);
    assert!(!s.contains('\u{1b}'), "{s:?}");
    assert!(
        s.contains("filtered by rule 1 \"red\\u{1b}[31m \\\"x\\\"\" (line 1)"),
        "{s}"
    );
}

/// A URL whose fetch waits for a deferred rule says so, and names the
/// rules that wait with it; given the field, the verdict is settled.
#[test]
fn explain_says_what_waits_for_a_deferred_rule() {
    let (_dir, rules) = rules_file(
        "c.toml",
        "[crawl]\ndisposition = \"disallow\"\n\n[[rules]]\nname = \"html: download, stop\"\n\
         match = { field = \"content_type\", exact = \"text/html\" }\naction = \"download\"\nstop = true\n\n\
         [[rules]]\nname = \"not b\"\nmatch = { field = \"path\", exact = \"/b\" }\nfilter = \"may-not-have\"\n",
    );
    let out = run(&["explain", "--rules", path_str(&rules), "http://h/b"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    for said in [
        "verdict: fetch;",
        "fetch waits for rule 1 \"html: download, stop\" (line 4), deferred: fetched as far as its field",
        "#2 \"not b\" (line 10)",
        "waits for deferred",
        "pending: rules on content_type are deferred until it is known (use --content-type)",
    ] {
        assert!(s.contains(said), "{said} in {s}");
    }
    let out = run(&[
        "explain",
        "--rules",
        path_str(&rules),
        "--content-type",
        "image/png",
        "http://h/b",
    ]);
    let s = text(&out.stdout);
    assert!(s.contains("verdict: FILTERED"), "{s}");
}

/// A URL with no host or path (`mailto:`) is said to be one the crawler
/// skips; the others are still explained, and the command exits 2.
#[test]
fn explain_says_a_mailto_link_is_skipped_and_explains_the_rest() {
    let (_dir, rules) = rules_file("collection.cfg", FUNNELBACK);
    let out = run(&[
        "explain",
        "--rules",
        path_str(&rules),
        "mailto:someone@example.com",
        "http://example.com/orange",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("mailto:someone@example.com: no host or path to judge")
            && err.contains("the crawler skips such links")
            && err.contains("1 URL could not be judged"),
        "{err}"
    );
    assert!(
        text(&out.stdout).contains("http://example.com/orange\n  verdict: FILTERED"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn explain_uses_content_type_address_and_link_depth() {
    let rules_text = r#"
[[rules]]
name = "pdf is saved, not scanned"
match = { field = "content_type", exact = "application/pdf" }
action = "download-no-scan"
[[rules]]
name = "lan only"
match = { field = "address", cidr = "10.0.0.0 255.0.0.0" }
filter = "must-have"
[[rules]]
name = "shallow"
match = { field = "link_depth", range = "[3:]" }
action = "exclude"
"#;
    let (_dir, rules) = rules_file("r.toml", rules_text);
    let r = path_str(&rules);
    let json = |args: &[&str]| -> serde_json::Value {
        let out = run(args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_slice(&out.stdout).expect("json")
    };
    let v = json(&["explain", "--rules", r, "--json", "http://h/a"]);
    assert_eq!(v["pending"], serde_json::json!(["address", "content_type"]));
    let v = json(&[
        "explain",
        "--rules",
        r,
        "--json",
        "--content-type",
        "application/pdf; charset=x",
        "--address",
        "10.9.9.9",
        "http://h/a",
    ]);
    assert_eq!(
        (v["fetch"].clone(), v["follow"].clone(), v["queue"].clone()),
        (true.into(), false.into(), "index".into())
    );
    assert_eq!(v["pending"], serde_json::json!([]));
    let v = json(&[
        "explain",
        "--rules",
        r,
        "--json",
        "--address",
        "192.0.2.1",
        "http://h/a",
    ]);
    assert_eq!(v["filtered"], true);
    let v = json(&[
        "explain",
        "--rules",
        r,
        "--json",
        "--link-depth",
        "3",
        "--address",
        "10.0.0.1",
        "http://h/a",
    ]);
    assert_eq!(v["fetch"], false);
    // A host that is an IP address is its own address, as in the crawl:
    // nothing waits for DNS; `--address` still wins.
    let v = json(&["explain", "--rules", r, "--json", "http://192.0.2.1/a"]);
    assert_eq!(v["filtered"], true);
    assert_eq!(v["pending"], serde_json::json!(["content_type"]));
    let v = json(&["explain", "--rules", r, "--json", "http://[::1]/a"]);
    assert_eq!(v["filtered"], true);
    let v = json(&[
        "explain",
        "--rules",
        r,
        "--json",
        "--address",
        "10.1.1.1",
        "http://192.0.2.1/a",
    ]);
    assert_eq!(v["filtered"], false);
}

/// With a config, the text says when the crawl's own depth limits would
/// refuse a URL the rules let through.
#[test]
fn explain_text_names_the_configs_depth_limits() {
    let (_dir, config) = rules_file(
        "c.toml",
        "[crawl]\nstart = [\"http://a.test/\"]\nmax_link_depth = 2\nmax_path_depth = 1\n",
    );
    let said = |args: &[&str]| {
        let mut all = vec!["explain", "--rules", path_str(&config)];
        all.extend(args);
        let out = run(&all);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let deep = said(&["--link-depth", "5", "http://a.test/x"]);
    assert!(
        deep.contains("crawler: beyond max_link_depth 2 (link depth 5)"),
        "{deep}"
    );
    let long = said(&["http://a.test/a/b/c"]);
    assert!(
        long.contains("crawler: beyond max_path_depth 1 (path depth 3)"),
        "{long}"
    );
    // Past both, both are named: raising one alone would not do.
    let both = said(&["--link-depth", "5", "http://a.test/a/b/c"]);
    assert!(
        both.contains(
            "crawler: beyond max_link_depth 2 (link depth 5) and max_path_depth 1 (path depth 3)"
        ),
        "{both}"
    );
    let fine = said(&["http://a.test/a"]);
    assert!(!fine.contains("crawler:"), "{fine}");
    // A rules file is no crawl's config: no depth limits of its own, also
    // when its `[crawl]` holds the disposition (all a rules file may hold).
    for rules_only in [
        "[[rules]]\nname = \"a\"\nset = { save = true }\n",
        "[crawl]\ndisposition = \"allow\"\n",
    ] {
        let (_dir, rules_only) = rules_file("r.toml", rules_only);
        let out = run(&[
            "explain",
            "--rules",
            path_str(&rules_only),
            "--link-depth",
            "100",
            "http://a.test/x",
        ]);
        assert!(
            !text(&out.stdout).contains("crawler:"),
            "{}",
            text(&out.stdout)
        );
    }
    let ftp = said(&["ftp://a.test/x"]);
    assert!(
        ftp.contains("crawler: scheme `ftp`: the crawler fetches only http and https"),
        "{ftp}"
    );
    // A config without start URLs (the demo's: it gets its start URL when
    // it runs) is still a crawl's config, and so is one with only a depth.
    for settings in ["start = []\nmax_path_depth = 1", "max_path_depth = 1"] {
        let (_dir, config) = rules_file("c.toml", &format!("[crawl]\n{settings}\n"));
        let out = run(&["explain", "--rules", path_str(&config), "http://a.test/a/b"]);
        assert!(
            text(&out.stdout).contains("crawler: beyond max_path_depth 1 (path depth 2)"),
            "{settings}: {}",
            text(&out.stdout)
        );
    }
}

/// The console without a terminal is refused before anything starts: the
/// demo serves no site and makes no folder.
#[test]
fn the_console_needs_a_terminal() {
    let child = bin()
        .arg("demo")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let pid = child.id();
    let out = child.wait_with_output().expect("exits");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(
            "the console needs a terminal: `crawlspace demo --headless` crawls without it"
        ),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(text(&out.stdout), "", "no site announced");
    let folder = std::env::temp_dir().join(format!("crawlspace-demo-{pid}"));
    assert!(!folder.exists(), "{}", folder.display());
    // The default command has no --headless: the hint names the one that does.
    let (_dir, config) = rules_file(
        "my crawl.toml",
        "[crawl]\nstart = [\"http://127.0.0.1:9/\"]\n",
    );
    let out = run(&["--config", path_str(&config)]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "`crawlspace crawl --config '{}' --headless` crawls without it",
            path_str(&config)
        )),
        "{err}"
    );
    // `crawl` without --headless: the hint keeps its other options.
    let out = run(&[
        "crawl",
        "--config",
        path_str(&config),
        "--db",
        "my log",
        "--refresh",
    ]);
    let err = text(&out.stderr);
    assert!(
        err.contains("--headless --db 'my log' --refresh` crawls without it"),
        "{err}"
    );
}

/// A file no dialect claims is read as native TOML, and its error says
/// so (not a TOML typo only); a `.toml` file's error stays as it is.
#[test]
fn an_unrecognised_rules_file_says_how_it_was_read() {
    for (name, told) in [("rules.txt", true), ("rules.toml", false)] {
        let (_dir, rules) = rules_file(name, "hello world\n");
        let out = run(&["rules", "--rules", path_str(&rules)]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(&format!("{name}:1: bad TOML")), "{err}");
        assert_eq!(
            err.contains("read as native TOML: no other dialect's lines were recognised"),
            told,
            "{err}"
        );
    }
    // A whole Funnelback collection.cfg: other settings first, its
    // pattern lines further down.
    let (_dir, rules) = rules_file(
        "collection.cfg",
        "service_name=My Site\nstart_url=http://x.com/\ncrawler.num_crawlers=4\ninclude_patterns=/a\n",
    );
    let out = run(&["rules", "--rules", path_str(&rules)]);
    let said = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(said.contains("(funnelback dialect)"), "{said}");
}

/// A rule the importer adds (Nutch's final reject) has no line in the
/// file, and says so rather than "line 0".
#[test]
fn an_added_rule_says_it_is_not_in_the_file() {
    let (_dir, rules) = rules_file("regex-urlfilter.txt", "+^https?://a\\.test/\n");
    let listed = text(&run(&["rules", "--rules", path_str(&rules)]).stdout);
    assert!(listed.contains("no line    enabled"), "{listed}");
    assert!(!listed.contains("line 0"), "{listed}");
    let out = run(&["explain", "--rules", path_str(&rules), "http://b.test/"]);
    let said = text(&out.stdout);
    assert!(said.contains("(not in the file)"), "{said}");
    assert!(!said.contains("line 0"), "{said}");
}

#[test]
fn check_streams_and_reports_bad_urls() {
    let (_dir, rules) = rules_file("collection.cfg", FUNNELBACK);
    let input = b"http://example.com/red\nnot a url\n\nhttp://example.com/orange\r\nhttp://exa\xffmple.com/blue\n";
    let out = run_with_stdin(&["check", "--rules", path_str(&rules)], input);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(
        lines.len(),
        4,
        "blank lines are skipped, every other line answers"
    );
    assert_eq!(lines[0]["filtered"], false);
    assert_eq!(lines[0]["queue"], "index_follow");
    assert_eq!(lines[1]["url"], "not a url");
    assert!(lines[1]["error"].as_str().is_some_and(|e| !e.is_empty()));
    assert_eq!(lines[2]["url"], "http://example.com/orange");
    assert_eq!(lines[2]["filtered"], true);
    // A byte that is not UTF-8: an error line, not a URL with U+FFFD in it.
    assert_eq!(lines[3]["error"], "not valid UTF-8", "{}", lines[3]);
}

/// Fed one URL at a time (a script holding `check` open), it answers each
/// as it comes, not when its input ends.
#[test]
fn check_answers_each_url_as_it_comes() {
    use std::io::BufRead;
    let (_dir, rules) = rules_file("collection.cfg", FUNNELBACK);
    let mut child = bin()
        .args(["check", "--rules", path_str(&rules)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (lines, answers) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let _ = lines.send(line.expect("reads"));
        }
    });
    // A guard against hanging for ever, not a wait for anything.
    let next = || answers.recv_timeout(std::time::Duration::from_secs(60));
    for url in ["http://example.com/red", "http://example.com/orange"] {
        writeln!(stdin, "{url}").expect("writes");
        stdin.flush().expect("flushes");
        let answer = next().expect("answered while the input is still open");
        assert!(answer.contains(url), "{answer}");
    }
    drop(stdin);
    assert!(child.wait().expect("exits").success());
}

#[test]
fn malformed_rules_exit_2_naming_file_and_line() {
    let cases: [(&str, &str, &str); 7] = [
        (
            "bad.toml",
            "[[rules]]\nmatch = { field = \"path\", regex = \"x\" }\nactoin = \"exclude\"\n",
            "bad.toml:3:",
        ),
        (
            "bad.toml",
            "[[rules]]\nmatch = { field = \"colour\", exact = \"x\" }\n",
            "bad.toml:2:",
        ),
        (
            "bad.toml",
            "[[rules]]\nmatch = { field = \"path\", range = \"[9:1]\" }\n",
            "bad.toml:2:",
        ),
        (
            "bad.txt",
            "allow domain ok.example\nallow address 9.0.0.0 255.0.0\n",
            "bad.txt:2:",
        ),
        (
            "bad.xml",
            "<Rules>\n<Rule>\n<Path val=\"/x\">\n</Rule>\n</Rules>\n",
            "bad.xml:",
        ),
        (
            "bad.cfg",
            "include_patterns=/a\nthis line is not a setting\n",
            "bad.cfg:2:",
        ),
        ("bad.txt", "+^http://\n*oops\n", "bad.txt:2:"),
    ];
    for (name, content, needle) in cases {
        let (_dir, rules) = rules_file(name, content);
        for command in ["explain", "rules", "check"] {
            let mut args = vec![command, "--rules", path_str(&rules)];
            if command == "explain" {
                args.push("http://h/");
            }
            let out = run_with_stdin(&args, b"");
            assert_eq!(
                out.status.code(),
                Some(2),
                "{command} {name}: {}",
                text(&out.stderr)
            );
            let err = text(&out.stderr);
            assert!(
                err.contains(needle),
                "{command}: {err:?} should contain {needle:?}"
            );
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    let out = run(&["rules", "--rules", "/no/such/file.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/no/such/file.toml"));
}

/// A start URL the crawl cannot begin with is a startup error naming the
/// config's line that holds it, and for a blocked one the rule too.
#[test]
fn start_url_errors_name_the_config_line() {
    let cases = [
        (
            "[crawl]\nuser_agent = \"x\"\nstart = [\n  \"http://ok.test/\",\n  \"ok.test/x\",\n]\n",
            ":5: start URL ok.test/x: not a fully qualified",
        ),
        (
            "[crawl]\nstart = ['http://blocked.test/']\n\n[[rules]]\nname = \"no\"\naction = \"exclude\"\n",
            ":2: start URL http://blocked.test/: the rules do not allow it: rule 1 \"no\" (line 4)",
        ),
        ("[crawl]\nstart = []\n", ":2: [crawl] start lists no URL"),
        // An address rule decides after DNS: the start host is resolved
        // for it (an IP literal here, so no lookup leaves the machine).
        (
            "[crawl]\nstart = [\"http://127.0.0.1:9/\"]\n\n[[rules]]\nname = \"intranet only\"\n\
             match = { field = \"address\", cidr = \"10.0.0.0/8\" }\nfilter = \"must-have\"\n",
            ":2: start URL http://127.0.0.1:9/: the rules do not allow it at its address 127.0.0.1: \
             rule 1 \"intranet only\" (line 4)",
        ),
    ];
    for (config_text, said) in cases {
        let (dir, config) = rules_file("c.toml", config_text);
        let out = crawl_headless(&config, &dir.path().join("db"));
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(&format!("c.toml{said}")), "{err}");
    }
    // Every refused start URL is named in one run, each with its line.
    let (dir, config) = rules_file(
        "c.toml",
        "[crawl]\nstart = [\n  \"ftp://a.test/\",\n  \"http://ok.test/\",\n  \"b.test\",\n  \"http://c.test:99999/\",\n]\n",
    );
    let out = crawl_headless(&config, &dir.path().join("db"));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for said in [
        "c.toml:3: start URL ftp://a.test/: not a fully qualified",
        "c.toml:5: start URL b.test: not a fully qualified",
        // What is wrong, when the URL parser can say.
        "c.toml:6: start URL http://c.test:99999/: not a URL: invalid port number",
    ] {
        assert!(err.contains(said), "{said} in {err}");
    }
    assert!(!err.contains("ok.test"), "{err}");
}

/// Settings a crawl cannot start with are refused before it starts, with
/// exit status 2 and the file, line or folder named, and leave no log: a
/// sitemap that is not an http(s) URL, a `--db` that is a file or a folder
/// of other files, an `--out` that cannot be a folder, a mirror inside the log's folder or the other
/// way round. The rule tools check a config's settings as
/// the crawl does.
#[test]
fn settings_a_crawl_cannot_use_are_refused_before_it_starts() {
    let ok = "[crawl]\nstart = [\"http://127.0.0.1:9/\"]\n";
    let (dir, config) = rules_file("c.toml", &format!("{ok}sitemaps = [\"nope\"]\n"));
    let db = dir.path().join("db");
    let out = crawl_headless(&config, &db);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("c.toml:3: sitemaps: \"nope\" is not an absolute http(s) URL"),
        "{err}"
    );
    assert!(!db.exists(), "no log made");

    let (dir, config) = rules_file("c.toml", ok);
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").expect("write");
    let out = crawl_headless(&config, &file);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("a-file: not a folder"), "{err}");
    let db = dir.path().join("db");
    let (code, err) = crawl_into(&config, &db, &file, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("a-file: the mirror's folder (--out or [crawl] out) cannot be written"),
        "{err}"
    );
    assert!(!db.exists(), "no log made");
    for (db, out) in [
        (db.clone(), db.join("mirror")),
        (db.join("log"), db.clone()),
    ] {
        let (code, err) = crawl_into(&config, &db, &out, &[]);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains("must be apart, neither inside the other"),
            "{err}"
        );
        assert!(!db.exists() && !out.exists(), "nothing made");
    }
    // A folder of other files: sled would write its `db` over the user's.
    let busy = dir.path().join("busy");
    std::fs::create_dir(&busy).expect("mkdir");
    std::fs::write(busy.join("db"), "the user's").expect("write");
    let (code, err) = crawl_into(&config, &busy, &dir.path().join("o2"), &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("busy: this folder holds other files and no URL log"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(busy.join("db")).expect("read"),
        "the user's"
    );
    // What a file manager leaves in a folder it showed does not make it
    // busy: the check goes on to the mirror's folder (a file here).
    let shown = dir.path().join("shown");
    std::fs::create_dir(&shown).expect("mkdir");
    std::fs::write(shown.join(".DS_Store"), "finder").expect("write");
    let (code, err) = crawl_into(&config, &shown, &file, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("a-file: the mirror's folder (--out or [crawl] out) cannot be written"),
        "{err}"
    );
    // `--refresh` where no crawl logged anything: said, not a first crawl.
    let out_dir = dir.path().join("out");
    let (code, err) = crawl_into(&config, &db, &out_dir, &["--refresh"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no URL log here to refresh"), "{err}");
    assert!(!db.exists() && !out_dir.exists(), "nothing made");

    let (_dir, config) = rules_file("c.toml", "[crawl]\nstart = []\n\n[queues]\nuserr = 3\n");
    for command in ["rules", "explain", "check"] {
        let mut args = vec![command, "--rules", path_str(&config)];
        if command == "explain" {
            args.push("http://h/x");
        }
        let out = run_with_stdin(&args, b"http://h/x\n");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command}: {err}");
        assert!(
            err.contains("c.toml:5: unknown key `userr` in [queues]"),
            "{command}: {err}"
        );
    }
}

/// Warnings escape what they quote once (the file's name too), and a rule
/// switched off on purpose is not warned about on every run.
#[test]
fn warnings_escape_once_and_skip_rules_switched_off() {
    let (_dir, rules) = rules_file(
        "r\u{1b}[31m.toml",
        "[[rules]]\nname = \"red\\u001b[31m\"\nmatch = { field = \"path\", regex = '(' }\naction = \"exclude\"\n\n[[rules]]\nname = \"off\"\nenabled = false\naction = \"exclude\"\n  [[rules.rules]]\n  name = \"inside\"\n  action = \"exclude\"\n",
    );
    for command in ["rules", "explain"] {
        let mut args = vec![command, "--rules", path_str(&rules)];
        if command == "explain" {
            args.push("http://h/x");
        }
        let out = run(&args);
        let err = text(&out.stderr);
        assert!(out.status.success(), "{command}: {err}");
        assert!(
            err.contains("r\\u{1b}[31m.toml:1: rule 1 \"red\\u{1b}[31m\" is disabled: regex `(` does not compile"),
            "{command}: {err}"
        );
        assert!(!err.contains('\u{1b}'), "{command}: {err}");
        assert!(
            !err.contains("switched off") && !err.contains("enclosing"),
            "{command}: {err}"
        );
    }
}

/// A trace entry that no line of the file holds (Nutch's implied "reject
/// what no pattern matched") has a null `line` in JSON, as the text says
/// "(not in the file)".
#[test]
fn an_implied_rule_has_no_line_in_json() {
    let (_dir, rules) = rules_file("regex-urlfilter.txt", "+^http://ok/\n");
    let out = run(&[
        "explain",
        "--rules",
        path_str(&rules),
        "--json",
        "http://other/",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let trace = v["trace"].as_array().expect("trace");
    let last = trace.last().expect("an entry");
    assert!(last["line"].is_null(), "{v}");
    assert_eq!(trace[1]["line"], 1, "{v}");
}

#[test]
fn bad_url_on_the_command_line_exits_2() {
    let (_dir, rules) = rules_file("collection.cfg", FUNNELBACK);
    let out = run(&[
        "explain",
        "--rules",
        path_str(&rules),
        "www.ibm.com",
        "http://example.com/red",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("www.ibm.com"));
    assert!(
        text(&out.stdout).contains("http://example.com/red"),
        "the good URL is still explained"
    );
}

#[test]
fn broken_regex_is_reported_on_stderr_and_the_rest_applies() {
    let (_dir, rules) = rules_file(
        "r.toml",
        "[[rules]]\nname = \"bad\"\nmatch = { field = \"path\", regex = '(' }\naction = \"exclude\"\n[[rules]]\nname = \"good\"\nmatch = { field = \"path\", suffix = \".gif\" }\naction = \"exclude\"\n",
    );
    for command in ["explain", "rules", "check"] {
        let mut args = vec![command, "--rules", path_str(&rules)];
        if command == "explain" {
            args.push("http://h/x.gif");
        }
        let out = run_with_stdin(&args, b"http://h/x.gif\n");
        assert!(out.status.success(), "{command}");
        let err = text(&out.stderr);
        assert!(
            err.contains("r.toml:1: rule 1 \"bad\" is disabled: regex `(` does not compile"),
            "{command}: {err}"
        );
    }
    let out = run_with_stdin(&["check", "--rules", path_str(&rules)], b"http://h/x.gif\n");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["fetch"], false, "the good rule still applies");
}

/// An empty (or cut) rules file holds no rules, so the disposition
/// decides every URL: said on stderr, not an error.
#[test]
fn an_empty_rules_file_is_said_to_hold_no_rules() {
    for (name, content) in [("empty.xml", ""), ("blank.cfg", "\n\n")] {
        let (_dir, rules) = rules_file(name, content);
        let out = run(&["rules", "--rules", path_str(&rules)]);
        assert!(out.status.success(), "{name}");
        let err = text(&out.stderr);
        assert!(
            err.contains(&format!(
                "{name}: no rules: every URL gets the disposition `allow`"
            )),
            "{name}: {err}"
        );
    }
    let (_dir, rules) = rules_file(
        "one.toml",
        "[[rules]]\nname = \"a\"\naction = \"exclude\"\n",
    );
    let out = run(&["rules", "--rules", path_str(&rules)]);
    assert!(!text(&out.stderr).contains("no rules"));
}

/// `rules` shows rule health as the console does: a rule an earlier
/// `stop` keeps from ever taking effect is marked under it.
#[test]
fn rules_marks_a_shadowed_rule() {
    let (_dir, rules) = rules_file(
        "s.toml",
        "[[rules]]\nname = \"a stops\"\nmatch = { field = \"path\", prefix = \"/a/\" }\nstop = true\n\n\
         [[rules]]\nname = \"never\"\nmatch = { field = \"path\", prefix = \"/a/b/\" }\naction = \"exclude\"\n",
    );
    let out = run(&["rules", "--rules", path_str(&rules)]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    let never = stdout
        .find("enabled   never")
        .map_or("", |at| &stdout[at..]);
    assert!(
        never.contains("shadowed: never takes effect: rule 1"),
        "{stdout}"
    );
    let first = &stdout[..stdout.find("#2").unwrap_or(stdout.len())];
    assert!(!first.contains("shadowed"), "{stdout}");
}

#[test]
fn rules_lists_numbers_lines_state_and_lints() {
    let (_dir, rules) = rules_file(
        "r.toml",
        r#"[[rules]]
name = "hosts"
match = { field = "url", regex = 'example.com' }
action = "exclude"
[[rules]]
name = "off"
enabled = false
match = { field = "path", prefix = "/x" }
  [[rules.rules]]
  name = "child"
  match = { field = "path", regex = '^http' }
"#,
    );
    let out = run(&["rules", "--rules", path_str(&rules)]);
    assert!(out.status.success());
    let s = text(&out.stdout);
    assert!(
        s.contains("(native dialect): 2 rules and 1 block holding them, disposition allow"),
        "{s}"
    );
    assert!(
        s.contains("#1") && s.contains("line 1") && s.contains("enabled"),
        "{s}"
    );
    assert!(
        s.contains("#2") && s.contains("line 5") && s.contains("disabled"),
        "{s}"
    );
    assert!(s.contains("2.1"), "nested rules are numbered: {s}");
    assert!(
        s.contains("DISABLED: switched off (`enabled = false`)"),
        "{s}"
    );
    assert!(s.contains("lint:") && s.contains("example\\.com"), "{s}");
}

/// A filtered URL: the flags the rules set are said to be overruled by
/// the filter, and rules still waiting for the address cannot change it.
#[test]
fn explain_says_a_filter_overrules_the_flags_and_pending_rules() {
    let (_dir, rules) = rules_file(
        "r.toml",
        "[[rules]]\nname = \"home\"\nmatch = { field = \"host\", exact = \"h.test\" }\nfilter = \"must-have\"\n\n\
         [[rules]]\nname = \"lan\"\nmatch = { field = \"address\", cidr = \"10.0.0.0/8\" }\nfilter = \"must-have\"\n\n\
         [[rules]]\nname = \"pages\"\nmatch = { field = \"path\", prefix = \"/\" }\naction = \"download\"\n",
    );
    let out = run(&[
        "explain",
        "--rules",
        path_str(&rules),
        "http://other.test/a",
    ]);
    let s = text(&out.stdout);
    assert!(
        s.contains("fetch set by rule 3 \"pages\" (line 11), overruled by the filter"),
        "{s}"
    );
    assert!(
        s.contains("pending: rules on address are deferred until it is known (filtered already: it cannot change that)"),
        "{s}"
    );
    let out = run(&["explain", "--rules", path_str(&rules), "http://h.test/a"]);
    let s = text(&out.stdout);
    assert!(s.contains("(use --address"), "{s}");
}

/// The WCA importer puts each group of lines in a block of its own: the
/// header counts the file's rules apart from those blocks.
#[test]
fn rules_counts_a_dialect_s_blocks_apart() {
    let (_dir, rules) = rules_file(
        "rules.txt",
        "forbid domain bad.example.com\nallow domain *.example.com\nforbid prefix http://*private*\n",
    );
    let out = run(&["rules", "--rules", path_str(&rules), "--dialect", "wca"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(
        s.contains("(wca dialect): 3 rules and 2 blocks holding them, disposition allow"),
        "{s}"
    );
}

/// A file written as UTF-16 with its mark (Windows PowerShell's `>`) is
/// read; one in a legacy encoding is refused at the line of its first bad
/// byte, by the rule tools and by `crawl` alike.
#[test]
fn rule_and_config_files_in_other_encodings() {
    let dir = tempfile::tempdir().expect("temp dir");
    let utf16 = dir.path().join("rules.txt");
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(
        "allow domain www.ibm.com\nforbid domain *\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes),
    );
    std::fs::write(&utf16, bytes).expect("write");
    let out = run(&["rules", "--rules", path_str(&utf16)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("(wca dialect): 2 rules and 1 block holding them"),
        "{}",
        text(&out.stdout)
    );
    let latin1 = dir.path().join("c.toml");
    std::fs::write(
        &latin1,
        b"[crawl]\nstart = [\"http://127.0.0.1:9/\"]\n\n[[rules]]\nname = \"caf\xE9\"\n",
    )
    .expect("write");
    for out in [
        run(&["rules", "--rules", path_str(&latin1)]),
        crawl_headless(&latin1, &dir.path().join("db")),
    ] {
        assert_eq!(out.status.code(), Some(2));
        let err = text(&out.stderr);
        assert!(
            err.contains("c.toml:5: the file is not valid UTF-8 (byte 0xE9 on this line)"),
            "{err}"
        );
    }
}

#[test]
fn import_prints_native_toml_that_parses_back() {
    let (dir, rules) = rules_file("rules.txt", "allow domain www.ibm.com\nforbid domain *\n");
    let out = run(&["import", "--dialect", "wca", path_str(&rules)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let toml = text(&out.stdout);
    assert!(
        toml.contains("[[rules]]") && toml.contains("first_match = true"),
        "{toml}"
    );
    let native = dir.path().join("native.toml");
    std::fs::write(&native, &toml).expect("write");
    let out = run(&[
        "explain",
        "--rules",
        path_str(&native),
        "--json",
        "http://www.ibm.com/",
        "http://other.com/",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(lines[0]["filtered"], false);
    assert_eq!(lines[1]["filtered"], true);

    // A regex the engine refuses (Perl's look-ahead) is said on import, as
    // the other rule commands say it: the rule copied will be off.
    let (_dir, perl) = rules_file("f.cfg", "exclude_patterns=regexp:/green/(?!emerald)\n");
    let out = run(&["import", path_str(&perl)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("f.cfg:1: rule 1 \"exclude_patterns\" is disabled: regex"),
        "{err}"
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["explain"][..],
        &["check"],
        &["import"],
        &[
            "explain",
            "--rules",
            "x",
            "--dialect",
            "klingon",
            "http://h/",
        ],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// Random bytes on stdin never make `check` panic or stop early.
#[test]
fn check_survives_random_input() {
    let (_dir, rules) = rules_file("collection.cfg", FUNNELBACK);
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut input = Vec::new();
    let mut lines = 0;
    for _ in 0..2000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let len = (state % 80) as usize;
        let prefix: &[u8] = match state % 4 {
            0 => b"http://",
            1 => b"https://h/",
            _ => b"",
        };
        input.extend_from_slice(prefix);
        for i in 0..len {
            let b = (state >> (i % 56)) as u8;
            if b != b'\n' {
                input.push(b);
            }
        }
        input.push(b'\n');
        lines += 1;
    }
    let out = run_with_stdin(&["check", "--rules", path_str(&rules)], &input);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let answered = text(&out.stdout).lines().count();
    assert!(answered > 0 && answered <= lines);
    for line in text(&out.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("each line is JSON");
        assert!(v.get("error").is_some() || v.get("queue").is_some());
    }
}

const ROBOTS: &str = "\
# robots.txt for the explain --robots tests
User-agent: *
Disallow: /private/
Allow: /private/press/

User-agent: testbot
Disallow: /beta/
";

#[test]
fn explain_robots_names_the_deciding_line() {
    let (_dir, rules) = rules_file("collection.cfg", "include_patterns=/\n");
    let robots_path = rules.with_file_name("robots.txt");
    std::fs::write(&robots_path, ROBOTS).expect("write robots.txt");
    let robots = path_str(&robots_path);
    let out = run(&[
        "explain",
        "--rules",
        path_str(&rules),
        "--robots",
        robots,
        "http://example.com/private/report.pdf",
        "http://example.com/private/press/a.html",
        "http://example.com/beta/",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(
        s.contains("http://example.com/private/report.pdf\n  verdict: not fetched; queue none"),
        "{s}"
    );
    assert!(
        s.contains(&format!(
            "  robots: disallowed by robots.txt {robots} line 3 \"Disallow: /private/\" (group *)\n"
        )),
        "{s}"
    );
    assert!(
        s.contains(&format!(
            "  robots: allowed by robots.txt {robots} line 4 \"Allow: /private/press/\" (group *)\n"
        )),
        "{s}"
    );
    // The default user agent (crawlspace/0.1) is not testbot.
    assert!(
        s.contains(&format!(
            "http://example.com/beta/\n  verdict: fetch + save + follow; queue index_follow, priority normal, logged\n  robots: allowed: robots.txt {robots}: no rule matches (group *)\n"
        )),
        "{s}"
    );
}

#[test]
fn explain_robots_json_uses_the_configured_user_agent() {
    let config = "[crawl]\nuser_agent = \"TestBot/2.0 (+http://example.com/bot)\"\n\n[[rules]]\nname = \"all\"\nmatch = { field = \"host\", domain = \"example.com\" }\naction = \"download\"\n";
    let (_dir, rules) = rules_file("crawl.toml", config);
    let robots_path = rules.with_file_name("robots.txt");
    std::fs::write(&robots_path, ROBOTS).expect("write robots.txt");
    let out = run(&[
        "explain",
        "--rules",
        path_str(&rules),
        "--robots",
        path_str(&robots_path),
        "--json",
        "http://example.com/beta/x?y=1",
        "http://example.com/private/x",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(lines.len(), 2);
    let beta = &lines[0];
    assert_eq!(
        beta["robots"],
        serde_json::json!({"allowed": false, "line": 7, "rule": "Disallow: /beta/", "group": "testbot"})
    );
    for key in ["fetch", "save", "follow"] {
        assert_eq!(beta[key], false, "{key} in {beta}");
    }
    assert_eq!(beta["queue"], "none");
    let trace = beta["trace"].as_array().expect("trace");
    let last = trace.last().expect("a robots entry");
    assert_eq!(last["rule"], "robots");
    assert_eq!(last["line"], 7);
    assert_eq!(last["step"], "matched");
    assert!(
        trace[0].get("rule").is_some() && trace[0]["rule"] == "1",
        "the rules' own trace is kept: {beta}"
    );
    // testbot's group applies, so the * group's /private/ rule does not.
    let private = &lines[1];
    assert_eq!(
        private["robots"],
        serde_json::json!({"allowed": true, "line": null, "rule": null, "group": "testbot"})
    );
    assert_eq!(private["fetch"], true);
    assert_eq!(private["queue"], "index_follow");
}

#[test]
fn explain_robots_unreadable_file_exits_2_naming_it() {
    let (dir, rules) = rules_file("collection.cfg", "include_patterns=/\n");
    let missing = dir.path().join("no-such-robots.txt");
    let out = run(&[
        "explain",
        "--rules",
        path_str(&rules),
        "--robots",
        path_str(&missing),
        "http://example.com/",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("no-such-robots.txt"), "{err}");
    assert!(err.contains("cannot read the robots.txt file"), "{err}");
    assert!(out.stdout.is_empty());
}

/// `crawlspace log --state` over a damaged state block: the block is
/// rebuilt from the records (said once on stderr) and the state's records
/// are listed.
#[test]
fn log_repairs_a_damaged_state_block() {
    use crawlspace::store::{State, UrlLog, UrlRecord};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    {
        let log = UrlLog::open(&db, 16 << 20).unwrap();
        for i in 0..12 {
            let state = [State::Queued, State::Fetched, State::Error][i % 3];
            let record = UrlRecord {
                url: format!("http://cli.test/{i}"),
                state,
                ..UrlRecord::default()
            };
            log.discover(&record).unwrap();
        }
        log.flush().unwrap();
    }
    // The state block of `fetched` (state byte 2), block 0, damaged, with
    // sled alone (the handle just dropped may hold the lock a moment).
    let mut tries = 0;
    let sled_db = loop {
        match sled::Config::new().path(&db).open() {
            Ok(sled_db) => break sled_db,
            Err(_) if tries < 40 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(e) => panic!("{e}"),
        }
    };
    let mut key = vec![State::Fetched as u8];
    key.extend_from_slice(&0u64.to_be_bytes());
    sled_db
        .open_tree("state_blocks")
        .unwrap()
        .insert(key, &b"junk"[..])
        .unwrap();
    sled_db.flush().unwrap();
    drop(sled_db);
    let out = run(&["log", "--db", path_str(&db), "--state", "fetched"]);
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let listed: Vec<&str> = stdout
        .lines()
        .filter(|line| line.contains("http://cli.test/"))
        .collect();
    assert_eq!(listed.len(), 4, "{stdout}");
    for i in [1, 4, 7, 10] {
        let url = format!("http://cli.test/{i} ");
        assert!(listed.iter().any(|line| line.contains(&url)), "{stdout}");
    }
    assert_eq!(
        stderr.matches("rebuilt it from the records").count(),
        1,
        "{stderr}"
    );
}

/// `crawlspace log` pointed at a folder that holds no URL log (or at a
/// file, or at nothing) says so, exit status 2, and leaves the folder as
/// it was: opening would have made a sled database of it.
#[test]
fn log_refuses_a_folder_without_a_log_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    std::fs::write(plain.join("notes.txt"), "kept").unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a log").unwrap();
    let missing = dir.path().join("missing");
    for db in [&plain, &file, &missing] {
        let out = run(&["log", "--db", path_str(db)]);
        assert_eq!(out.status.code(), Some(2), "{}", db.display());
        let err = text(&out.stderr);
        assert!(err.contains(path_str(db)), "{err}");
        assert!(err.contains("no URL log here"), "{err}");
        assert!(out.stdout.is_empty());
    }
    let left: Vec<_> = std::fs::read_dir(&plain)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["notes.txt"]);
    assert!(!missing.exists());
    // A folder whose `db` holds a log (as the demo's does) says so.
    let demo = dir.path().join("demo");
    drop(crawlspace::store::UrlLog::open(&demo.join("db"), 16 << 20).unwrap());
    let out = run(&["log", "--db", path_str(&demo)]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    let inside = demo.join("db");
    assert!(
        err.contains(&format!("there is one in {}", path_str(&inside))),
        "{err}"
    );
}

/// Nothing a rules file, a config file or a crawled page holds reaches the
/// terminal as a raw control or invisible character: not in errors on
/// stderr, not in `explain`'s text, not in `log --json` (where serde_json
/// alone would leave DEL, the C1 controls and bidi overrides raw).
#[test]
fn no_raw_control_characters_reach_the_terminal() {
    // Controls other than the line break, and the bidi and zero-width
    // characters the escaping knows.
    let raw = |s: &str| {
        s.chars().find(|&c| {
            c.is_control() && c != '\n'
                || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
    };
    // A start URL in a config, quoted by the startup error.
    let (_dir, config) = rules_file(
        "c.toml",
        "[crawl]\nstart = [\"ftp://x/\\u001b]0;pwned\\u0007\\u202e\"]\n",
    );
    let out = crawl_headless(&config, &config.with_file_name("db"));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(raw(&err), None, "{err:?}");
    assert!(err.contains("\\u{1b}]0;pwned\\u{7}"), "{err}");
    // A rules file's unknown value, quoted by the parse error.
    let (_dir, rules) = rules_file(
        "r.toml",
        "[[rules]]\nmatch = { field = \"path\", exact = \"x\", case = \"\\u001b[2J\" }\n",
    );
    let out = run(&["rules", "--rules", path_str(&rules)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(raw(&err), None, "{err:?}");
    assert!(err.contains("\\u{1b}[2J"), "{err}");
    // `explain`'s trace: a meta name and a broken pattern.
    let (_dir, rules) = rules_file(
        "r.toml",
        "[[rules]]\nname = \"m\"\nmeta = [ { name = \"\\u001b[2J\", value = \"v\" } ]\n\
         [[rules]]\nname = \"bad\"\nmatch = { field = \"path\", regex = \"\\u001b]2;x\\u0007(\" }\naction = \"exclude\"\n",
    );
    let out = run(&["explain", "--rules", path_str(&rules), "http://h/x"]);
    let (stdout, err) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{err}");
    assert_eq!(raw(&stdout), None, "{stdout:?}");
    assert_eq!(raw(&err), None, "{err:?}");
    assert!(stdout.contains("\\u{1b}[2J"), "{stdout}");
    // A page title with an 8-bit CSI and a right-to-left override, in the
    // log's JSON lines: escaped, and the same title when read back.
    use crawlspace::store::{State, UrlLog, UrlRecord};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let title = "a\u{9b}2J\u{202e}gnp.exe\u{7f}";
    {
        let log = UrlLog::open(&db, 16 << 20).unwrap();
        let record = UrlRecord {
            url: "http://cli.test/".into(),
            state: State::Fetched,
            title: Some(title.into()),
            ..UrlRecord::default()
        };
        log.discover(&record).unwrap();
        log.flush().unwrap();
    }
    let out = run(&["log", "--db", path_str(&db), "--json"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(raw(&stdout), None, "{stdout:?}");
    let line: serde_json::Value = serde_json::from_str(stdout.trim()).expect("json");
    assert_eq!(line["title"], title, "{stdout}");
    // The same title in `log --why`'s text.
    let out = run(&["log", "--db", path_str(&db), "--why", "http://cli.test/"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(raw(&stdout), None, "{stdout:?}");
    assert!(stdout.contains("\\u{9b}2J"), "{stdout}");
    // A bad --grep: the regex crate's message of several lines, as its
    // reason and where.
    let out = run(&["log", "--db", path_str(&db), "--grep", "a("]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(
        err.trim_end(),
        "crawlspace: --grep: regex `a(` does not compile: unclosed group (at character 2)"
    );
}

/// `log --why URL`: everything the log holds for each URL, as the
/// console's why pane has it (state and reason, verdict, referrers nearest
/// first, the trace rule by rule), the URL normalized first; a URL the log
/// lacks is said so and fails the command; `--json` gives the record's
/// line; a text that is no URL, or `--why` with a filter, is an input error.
#[test]
fn log_shows_no_password_but_json_gives_the_url_whole() {
    use crawlspace::store::{State, UrlLog, UrlRecord};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let url = "http://ann:hunter2@intra.test/a";
    {
        let log = UrlLog::open(&db, 16 << 20).unwrap();
        let record = UrlRecord {
            url: url.into(),
            state: State::Saved,
            reason: "saved; redirected from http://ann:hunter2@intra.test/old".into(),
            ..UrlRecord::default()
        };
        log.discover(&record).unwrap().expect("new");
        log.flush().unwrap();
    }
    for args in [vec![], vec!["--why", url]] {
        let mut all = vec!["log", "--db", path_str(&db)];
        all.extend(args);
        let out = run(&all);
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(stdout.contains("http://ann:***@intra.test/a"), "{stdout}");
        assert!(
            stdout.contains("redirected from http://ann:***@intra.test/old"),
            "{stdout}"
        );
        assert!(!stdout.contains("hunter2"), "{stdout}");
    }
    let out = run(&["log", "--db", path_str(&db), "--json"]);
    assert!(text(&out.stdout).contains(url), "{}", text(&out.stdout));
}

#[test]
fn log_why_tells_everything_about_a_url() {
    use crawlspace::store::{State, TraceLine, UrlLog, UrlRecord};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    {
        let log = UrlLog::open(&db, 16 << 20).unwrap();
        let start = UrlRecord {
            url: "http://why.test/".into(),
            state: State::Saved,
            ..UrlRecord::default()
        };
        let start_id = log.discover(&start).unwrap().expect("new");
        let filtered = UrlRecord {
            url: "http://why.test/private/a.html".into(),
            state: State::Filtered,
            filtered: true,
            referrer: Some(start_id),
            link_depth: 1,
            reason: "excluded by rule 2 \"staff area\" (line 9)".into(),
            trace: vec![TraceLine {
                rule: "2".into(),
                name: "staff area".into(),
                line: 9,
                step: "matched".into(),
                detail: "exclude, log, stop".into(),
            }],
            ..UrlRecord::default()
        };
        log.discover(&filtered).unwrap().expect("new");
        log.flush().unwrap();
    }
    let why = |args: &[&str]| {
        let mut all = vec!["log", "--db", path_str(&db)];
        all.extend_from_slice(args);
        run(&all)
    };
    // Upper-case host and a default port: the same URL, normalized.
    let out = why(&["--why", "HTTP://WHY.test:80/private/a.html"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "id         2", "{stdout}");
    assert_eq!(lines[1], "url        http://why.test/private/a.html");
    assert_eq!(
        lines[2],
        "state      filtered — excluded by rule 2 \"staff area\" (line 9)"
    );
    assert!(
        lines[3].starts_with("verdict    filtered · queue"),
        "{stdout}"
    );
    assert!(
        stdout.contains("referrer   ← #1 http://why.test/\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("trace\n  2       staff area line 9 matched — exclude, log, stop\n"),
        "{stdout}"
    );

    let out = why(&[
        "--why",
        "http://why.test/",
        "--why",
        "http://why.test/nowhere",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "a URL not in the log fails");
    assert!(stdout.starts_with("id         1\n"), "{stdout}");
    assert!(
        stdout.contains("referrer   none (a start URL, or found in a sitemap or robots.txt)"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("nowhere") && !stdout.ends_with("\n\n"),
        "a URL not in the log is said on stderr only: {stdout}"
    );
    assert!(
        text(&out.stderr).contains("http://why.test/nowhere is not in the log in")
            && text(&out.stderr).contains("the crawl has not met it (`crawlspace explain`"),
        "{}",
        text(&out.stderr)
    );

    let out = why(&[
        "--why",
        "http://why.test/nowhere",
        "--why",
        "http://why.test/",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).starts_with("id         1\n"),
        "no blank line for the URL not in the log: {}",
        text(&out.stdout)
    );

    let out = why(&[
        "--why",
        "http://why.test/private/a.html",
        "--json",
        "--why",
        "http://why.test/x",
    ]);
    let stdout = text(&out.stdout);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(lines[0]["state"], "filtered");
    assert_eq!(lines[0]["trace"][0]["name"], "staff area");
    assert_eq!(lines[1]["url"], "http://why.test/x");
    assert_eq!(lines[1]["error"], "not in the log");
    assert_eq!(out.status.code(), Some(1));

    let out = why(&["--why", "http://why.test/a", "--why", "http://why.test/b"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("2 URLs asked are not in the log in")
            && text(&out.stderr).contains(": http://why.test/a, http://why.test/b"),
        "{}",
        text(&out.stderr)
    );

    let out = why(&["--why", "not a url"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--why not a url: not a URL"),
        "{}",
        text(&out.stderr)
    );
    let out = why(&["--why", "http://why.test/", "--state", "saved"]);
    assert_eq!(out.status.code(), Some(2), "--why lists no states");
}

/// The rule tools check a config's start URLs as `crawl` does before it
/// starts: fully qualified, and allowed by the rules (a host that is an IP
/// address at that address), each a warning naming file and line, and the
/// tool goes on (explain is how to find out why).
#[test]
fn the_rule_tools_check_start_urls() {
    let (_dir, config) = rules_file(
        "s.toml",
        "[crawl]\nstart = [\n  \"www.ibm.com\",\n  \"http://other.example/\",\n  \"http://10.0.0.1/\",\n]\n\
         [[rules]]\nname = \"ok only\"\nmatch = { field = \"host\", exact = \"ok.example\" }\n\
         filter = \"must-have\"\n\
         [[rules]]\nname = \"no 10/8\"\nmatch = { field = \"address\", cidr = \"10.0.0.0/8\" }\n\
         filter = \"may-not-have\"\n",
    );
    let c = path_str(&config);
    for command in ["rules", "explain"] {
        let mut args = vec![command, "--rules", c];
        if command == "explain" {
            args.push("http://ok.example/");
        }
        let out = run(&args);
        assert!(out.status.success(), "{command}");
        let err = text(&out.stderr);
        assert!(
            err.contains("s.toml:3: start URL www.ibm.com: not a fully qualified http(s) URL"),
            "{err}"
        );
        assert!(
            err.contains("s.toml:4: start URL http://other.example/: the rules do not allow it: rule 1 \"ok only\""),
            "{err}"
        );
        assert!(
            err.contains("s.toml:5: start URL http://10.0.0.1/: the rules do not allow it at its address 10.0.0.1"),
            "{err}"
        );
    }
    let (_dir, fine) = rules_file("f.toml", "[crawl]\nconcurrency = 2\n");
    assert!(run(&["rules", "--rules", path_str(&fine)]).status.success());
}

/// `import` of a crawl's config says which settings it leaves out (it
/// writes rules and the disposition only); a rules file gets no note.
#[test]
fn import_says_in_the_file_which_rules_the_crawl_switches_off() {
    let (_dir, config) = rules_file("collection.cfg", "include_patterns=regexp:/a(?!b)\n");
    let out = run(&["import", "--dialect", "funnelback", path_str(&config)]);
    assert!(out.status.success());
    let toml = text(&out.stdout);
    let header: Vec<&str> = toml.lines().take_while(|l| l.starts_with('#')).collect();
    assert!(
        header.iter().any(|l| l.contains(
            "collection.cfg:1: rule 1 \"include_patterns\" is disabled: regex `/a(?!b)` does not compile"
        )),
        "{toml}"
    );
    assert!(text(&out.stderr).contains("is disabled"), "still warned");
}

#[test]
fn import_names_the_settings_it_does_not_copy() {
    let (_dir, config) = rules_file(
        "c.toml",
        "[crawl]\ndisposition = \"allow\"\nconcurrency = 2\n[queues]\nuser = 5\n\
         [[rules]]\nname = \"x\"\nmatch = { field = \"path\", prefix = \"/x\" }\naction = \"exclude\"\n",
    );
    let out = run(&["import", path_str(&config)]);
    assert!(out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("import writes the rules and the disposition only; not copied: crawl.concurrency, [queues]"),
        "{err}"
    );
    assert!(text(&out.stdout).contains("name = \"x\""));
    let (_dir, rules) = rules_file(
        "r.toml",
        "[crawl]\ndisposition = \"allow\"\n[[rules]]\nname = \"x\"\n",
    );
    let out = run(&["import", path_str(&rules)]);
    assert!(
        !text(&out.stderr).contains("not copied"),
        "{}",
        text(&out.stderr)
    );
}
