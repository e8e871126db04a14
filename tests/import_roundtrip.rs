//! `crawlspace import` prints native TOML; this checks, for a sample file of
//! every dialect, that the printed TOML reads back to the same rules the
//! importer produced (source lines aside: they become `# line N` comments).

use crawlspace::rules::dialect::{Dialect, native, write};
use crawlspace::rules::model::{Rule, RuleSet};

/// One sample per dialect, using the features each importer maps.
const SAMPLES: [(Dialect, &str); 5] = [
    (
        Dialect::Wca,
        "# seed 003\n\
         allow domain *.ibm.com\n\
         forbid domain sales.ibm.com:443\n\
         allow address 9.0.0.0 255.0.0.0\n\
         forbid address 2001:db8::/32\n\
         allow prefix http://www.ibm.com/*\n\
         forbid http://www.ibm.com/private\n",
    ),
    (
        Dialect::Nutch,
        "# regex-urlfilter.txt\n\
         -^(file|ftp|mailto):\n\
         -\\.(gif|GIF|jpg|JPG|png|PNG)$\n\
         -[?*!@=]\n\
         -.*(/[^/]+)/[^/]+\\1/[^/]+\\1/\n\
         +^https?://([a-z0-9]*\\.)*example.com/\n",
    ),
    (
        Dialect::Funnelback,
        "include_patterns=/red,/green,/blue\n\
         exclude_patterns=regexp:/green/(olive|lime)'s\\d\n\
         crawler.ignore_robots_txt=true\n",
    ),
    (
        Dialect::Exalead,
        r#"<?xml version="1.0"?>
<Rules group="example" key="auto">
  <Rule name="a">
    <ar:Atom litteral="true" value="http://www.example.com/" norm="none" kind="prefix" field="url"/>
    <Index/><Follow/><Accept/>
  </Rule>
  <Rule>
    <Or><Domain val="foo.com"/><Not><Path val="/cgi-bin"/></Not><Length field="path" val="[30:]"/></Or>
    <NoIndex/><NoFollow/><Ignore/><Source name="s"/><AddMeta name="n" value="v"/><AddMeta name="n" value="w"/>
    <Priority shift="-1"/>
    <Rule><InQuery val="q=(foo|bar)"/><Index/></Rule>
  </Rule>
</Rules>
"#,
    ),
    (
        Dialect::Native,
        r#"[crawl]
disposition = "disallow-log"

[[rules]]
match = { any = [ { field = "extension", exact = "pdf" }, { not = { field = "port", range = 80 } } ] }
action = "download-no-scan"
meta = { b = "2", a = "1" }
  [[rules.rules]]
  name = "deeper"
  first_match = true
    [[rules.rules.rules]]
    match = { field = "address", cidr = "10.0.0.0 255.0.255.0" }
    stop = true
"#,
    ),
];

fn without_lines(mut set: RuleSet) -> RuleSet {
    fn clear(rules: &mut [Rule]) {
        for rule in rules {
            rule.origin.line = 0;
            clear(&mut rule.rules);
        }
    }
    clear(&mut set.rules);
    set
}

#[test]
fn every_dialect_imports_to_native_toml_that_reads_back_the_same() {
    for (dialect, text) in SAMPLES {
        let imported = match dialect.parse(text) {
            Ok(parsed) => parsed.rules,
            Err(e) => panic!("{dialect} sample does not import: {e:?}"),
        };
        let toml = write::to_toml(&imported, &format!("imported from sample ({dialect})"));
        let back = match native::parse(&toml) {
            Ok(parsed) => parsed.rules,
            Err(e) => panic!("{dialect}: printed TOML does not parse: {e:?}\n{toml}"),
        };
        assert_eq!(
            without_lines(back),
            without_lines(imported.clone()),
            "{dialect}\n{toml}"
        );
        // Every imported rule with a source line shows it.
        imported.walk(&mut |_, rule| {
            if rule.origin.line > 0 {
                let comment = format!("# line {}\n", rule.origin.line);
                assert!(toml.contains(&comment), "{dialect}: no `{comment}`\n{toml}");
            }
        });
    }
}

/// URLs that touch the patterns of the example files and miss them too.
const CORPUS: [&str; 24] = [
    "http://example.com/red",
    "http://example.com/green/emerald",
    "http://example.com/green/olive",
    "http://example.com/orange",
    "https://www.example.com/search?date=2020-01-01",
    "http://www.example.com/cgi-bin/x.pdf",
    "http://www.example.com/folder/products",
    "http://www.example.com/folder/products?sort=name&order=asc",
    "http://www.example.com/archive/2019/a.html",
    "http://www.example.com/logo.png",
    "http://foo.com/",
    "http://bar.foo.com/cgi-bin/run?q=foo",
    "http://barfoo.com/a/very/long/path/that/is/over/thirty/bytes",
    "http://www.ibm.com/",
    "http://server1.ibm.com/",
    "http://joe.user.ibm.com/x",
    "https://sales.ibm.com/public/a",
    "http://sales.ibm.com:8080/nfs/x",
    "http://sales.ibm.com/private/x",
    "ftp://files.example.com/a.gif",
    "http://example.com/a?b=c",
    "http://sub.example.com/x/y/x/y/x/y/",
    "http://www.anu.edu.au/",
    "http://www.wikipedia.org/wiki?q=foo",
];

/// Every example in `config/examples/` goes through the real `crawlspace
/// import`; the printed TOML must give the same verdict and the same trace
/// (rule by rule) as the original file, with and without DNS and headers.
#[test]
fn import_output_evaluates_identically_for_every_example() {
    use crawlspace::rules::dialect::{DialectChoice, load, parse_text};
    use crawlspace::rules::{CompiledRules, Known, TraceMode, UrlFacts, normalize};

    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/config/examples");
    // The robots.txt of the README's `explain --robots` example is no
    // rules file.
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("examples folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| !p.to_string_lossy().ends_with("robots.txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "one example per dialect at least");
    let knowns = [
        Known::default(),
        Known {
            address: Some("9.1.2.3".parse().expect("ip")),
            ..Known::default()
        }
        .with_content_type("text/html"),
        Known {
            address: Some("10.0.0.1".parse().expect("ip")),
            link_depth: 4,
            ..Known::default()
        }
        .with_content_type("application/epub+zip"),
    ];
    for file in files {
        let path = file.to_str().expect("utf-8 path");
        let original = load(path, DialectChoice::Auto).expect("example loads");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_crawlspace"))
            .args(["import", "--dialect", original.dialect.name(), path])
            .output()
            .expect("import runs");
        assert!(
            out.status.success(),
            "{path}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let printed = String::from_utf8(out.stdout).expect("utf-8 TOML");
        let imported = parse_text(
            "imported.toml",
            &printed,
            DialectChoice::Given(Dialect::Native),
        )
        .unwrap_or_else(|e| panic!("{path}: import output does not parse: {e}\n{printed}"));
        let (a, b) = (
            CompiledRules::new(&original.parsed.rules),
            CompiledRules::new(&imported.parsed.rules),
        );
        let numbers = |c: &CompiledRules| -> Vec<String> {
            c.rule_info().iter().map(|i| i.number.clone()).collect()
        };
        assert_eq!(numbers(&a), numbers(&b), "{path}: same rule tree");
        let (mut sa, mut sb) = (a.scratch(), b.scratch());
        for url in CORPUS {
            let url = normalize(url).expect("corpus URL");
            for known in &knowns {
                let facts = UrlFacts::new(&url, known);
                let va = a.evaluate(&facts, &mut sa, TraceMode::Full);
                let vb = b.evaluate(&facts, &mut sb, TraceMode::Full);
                assert_eq!(va, vb, "{path}: {url} with {known:?}");
            }
        }
    }
}
