//! New rules that allow what earlier rules filtered (SPEC §2.6's other
//! half): a URL logged as filtered by the rules is met again when rules
//! applied during the crawl would fetch it, and queued like a URL met for
//! the first time (depth limits and a known robots.txt still apply).
//! Without this, unblocking an area in the console would change nothing
//! for the URLs of it already met: the log knows them, so links to them
//! are never judged again.

use url::Url;

use super::Engine;
use crate::crawl::report::NOFOLLOW_LAYER;
use crate::crawl::sitemaps::FILE_LAYER;
use crate::rules::{Known, TraceMode, UrlFacts};
use crate::store::{State, UrlRecord};

/// Candidates met again, then written, at a time.
const CHUNK: usize = 1024;

/// Why a filtered URL is met again, in its trace.
const LIVE_RULES_WHY: &str =
    "filtered under earlier rules; queued when new rules were applied during the crawl";

impl Engine {
    /// Queues the filtered URLs the rules now in force would fetch; their
    /// records are written as newly met (with the `live-rules` layer first
    /// in the trace), and the queues take them once written. Returns how
    /// many.
    pub(super) fn unfilter(&mut self) -> u64 {
        let rules = self.rules.clone();
        let mut scratch = rules.scratch();
        // First the candidates, from the briefs packed many to an entry (a
        // log of a million URLs is walked without decoding its records):
        // filtered, and fetched by the rules now.
        let mut candidates = Vec::new();
        let walked = self.log.scan_briefs(None, None, |id, brief| {
            if brief.state != State::Filtered {
                return true;
            }
            let known = Known {
                link_depth: brief.link_depth,
                ..Known::default()
            };
            let parsed;
            let facts = match UrlFacts::from_normalized(brief.url, &known) {
                Some(facts) => facts,
                None => {
                    let Ok(url) = Url::parse(brief.url) else {
                        return true;
                    };
                    parsed = url;
                    UrlFacts::new(&parsed, &known)
                }
            };
            if rules.evaluate(&facts, &mut scratch, TraceMode::Off).fetch {
                candidates.push(id);
            }
            true
        });
        if let Err(e) = walked {
            eprintln!("crawlspace: URL log: {e}");
        }
        // Then each candidate's record, met again unless something other
        // than the rules refused it.
        let mut queued = 0;
        let log = self.log.clone();
        for chunk in candidates.chunks(CHUNK) {
            let mut records = log.reader();
            for &id in chunk {
                let record = match records.get(id) {
                    Ok(Some(record)) => record,
                    Ok(None) => continue,
                    Err(e) => {
                        eprintln!("crawlspace: URL log: id {id}: {e}");
                        continue;
                    }
                };
                if record.state != State::Filtered || !refused_by_rules(&record) {
                    continue;
                }
                let Ok(url) = Url::parse(&record.url) else {
                    continue;
                };
                if self.met_again(id, url, &record, LIVE_RULES_WHY) {
                    queued += 1;
                }
            }
            // Written (then queued) a chunk at a time.
            self.commit(&[]);
        }
        queued
    }
}

/// Filtered by the rules alone: not a link the page said not to follow, a
/// sitemap file (met again as a page it would be read as one), or a start
/// URL (the crawl refused those at startup).
fn refused_by_rules(record: &UrlRecord) -> bool {
    !record
        .trace
        .iter()
        .any(|t| t.rule == NOFOLLOW_LAYER || t.rule == FILE_LAYER || t.rule == "start")
}
