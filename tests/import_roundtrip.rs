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
