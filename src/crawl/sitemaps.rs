//! Reading sitemaps during a crawl (SPEC §2.3): the fetch task that streams
//! one sitemap file into the parser of [`super::sitemap`], and the log text
//! for what it held. Which sitemaps are read, and what becomes of their
//! entries, is the engine's (`engine::web`): files named by robots.txt
//! `Sitemap:` lines and by `[crawl] sitemaps`, child sitemaps of an index up
//! to [`MAX_NESTING`] levels, each file once per crawl; every page entry is
//! met like a link (rules, dedupe, robots.txt at dispatch).
//!
//! The body is never held whole: chunks go from the network over a small
//! bounded channel to the parser on the blocking pool, which stops reading
//! at the caps (50,000 entries, 50 MiB uncompressed); the connection is
//! then dropped. Only the entries are collected (at most 50,000 URLs).

use std::io::{self, Read};
use std::sync::Arc;

use tokio::sync::mpsc;
use url::Url;

use super::engine::Item;
use super::fetch::Fetcher;
use super::sitemap::{
    MAX_NESTING, MAX_SITEMAP_BYTES, MAX_SITEMAP_URLS, SitemapCap, SitemapEntry, SitemapError,
    SitemapReport, parse_sitemap,
};
use super::task::{Outcome, address_rules};
use crate::rules::verdict::Pending;
use crate::rules::{CompiledRules, Known, TraceMode, UrlFacts};

/// Trace layer of a sitemap entry: `sitemap entry from URL`.
pub(crate) const ENTRY_LAYER: &str = "sitemap";
/// Trace layer of a sitemap file: where it was named. Also how a resumed
/// crawl tells a queued sitemap from a page.
pub(crate) const FILE_LAYER: &str = "sitemap-file";

/// Body chunks in flight between the network and the parser: enough to
/// keep both busy, few enough that memory stays small.
const CHUNKS_IN_FLIGHT: usize = 8;

/// What one sitemap file held.
#[derive(Debug)]
pub(crate) struct SitemapRead {
    pub report: SitemapReport,
    pub entries: Vec<SitemapEntry>,
    /// Bytes received (compressed, when the file was gzip).
    pub received: u64,
}

/// Fetches and parses one sitemap file. A 2xx body is parsed as it
/// arrives; other statuses come back with their head for the engine's
/// redirect and error handling. A network failure in the middle of the
/// body fails the whole file (retried when temporary; its entries are
/// deduplicated when read again).
pub(crate) async fn fetch_sitemap(
    fetcher: Fetcher,
    rules: Arc<CompiledRules>,
    item: Item,
    host: u32,
) -> Outcome {
    let (address, mut verdict) = match address_rules(&fetcher, &rules, &item).await {
        Ok((address, verdict)) if !verdict.fetch => {
            return Outcome::Refused {
                item,
                host,
                address,
                head: None,
                verdict,
                rules,
            };
        }
        Ok(judged) => judged,
        Err(error) => return Outcome::failed(item, host, None, error),
    };
    let mut body = match fetcher.open(&item.url).await {
        Ok(body) => body,
        Err(error) => return Outcome::failed(item, host, Some(address), error),
    };
    let head = body.head.clone();
    if !(200..300).contains(&head.status) {
        return Outcome::Sitemap {
            item,
            host,
            address,
            verdict,
            rules,
            head,
            read: None,
        };
    }
    // A verdict that waited for the type (phase 2, as for a page): one the
    // rules refuse with it is not read.
    if verdict.pending.contains(Pending::CONTENT_TYPE) {
        let known = Known {
            address: Some(address),
            link_depth: item.link_depth,
            content_type: None,
        }
        .with_content_type(head.content_type.as_deref().unwrap_or(""));
        verdict = rules.evaluate(
            &UrlFacts::new(&item.url, &known),
            &mut rules.lend_scratch(),
            TraceMode::Decisive,
        );
        if !verdict.fetch {
            return Outcome::Refused {
                item,
                host,
                address,
                head: Some(head),
                verdict,
                rules,
            };
        }
    }
    // Bounded: the network waits for the parser, never the reverse.
    let (tx, rx) = mpsc::channel(CHUNKS_IN_FLIGHT);
    let parser = tokio::task::spawn_blocking(move || {
        let mut entries = Vec::new();
        let report = parse_sitemap(ChannelReader::new(rx), |e| entries.push(e));
        (report, entries)
    });
    let mut received = 0u64;
    let mut failure = None;
    loop {
        match body.chunk().await {
            Ok(Some(chunk)) => {
                received += chunk.len() as u64;
                if tx.send(Ok(chunk)).await.is_err() {
                    break; // the parser stopped (a cap, an error): enough read
                }
            }
            Ok(None) => break,
            Err(e) => {
                let _ = tx.send(Err(e.to_string())).await;
                failure = Some(e);
                break;
            }
        }
    }
    drop(tx);
    drop(body);
    let (report, entries) = parser.await.unwrap_or_else(|e| {
        let report = SitemapReport {
            error: Some(SitemapError::Read {
                position: 0,
                message: format!("the sitemap parser failed: {e}"),
            }),
            ..SitemapReport::default()
        };
        (report, Vec::new())
    });
    if let Some(error) = failure {
        return Outcome::failed(item, host, Some(address), error);
    }
    Outcome::Sitemap {
        item,
        host,
        address,
        verdict,
        rules,
        head,
        read: Some(SitemapRead {
            report,
            entries,
            received,
        }),
    }
}

/// The parser's input: body chunks from the fetch task. Runs on the
/// blocking pool (it blocks on the channel); the end of the channel is
/// the end of the body, an error in it a read error.
struct ChannelReader {
    rx: mpsc::Receiver<Result<Vec<u8>, String>>,
    chunk: Vec<u8>,
    at: usize,
}

impl ChannelReader {
    fn new(rx: mpsc::Receiver<Result<Vec<u8>, String>>) -> ChannelReader {
        ChannelReader {
            rx,
            chunk: Vec::new(),
            at: 0,
        }
    }
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at >= self.chunk.len() {
            match self.rx.blocking_recv() {
                None => return Ok(0),
                Some(Ok(chunk)) => {
                    self.chunk = chunk;
                    self.at = 0;
                }
                Some(Err(message)) => return Err(io::Error::other(message)),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// How a sitemap file came to be read, for its trace line.
pub(crate) fn named_in_robots(robots_source: &str) -> String {
    format!("sitemap named in robots.txt {robots_source}")
}

pub(crate) fn named_in_config() -> String {
    "sitemap listed in [crawl] sitemaps".into()
}

pub(crate) fn listed_in_index(index: &Url, level: u8) -> String {
    format!("child sitemap (level {level}) listed in sitemap index {index}")
}

/// The one-line reason of a sitemap file's record: what it was, what it
/// held, the caps and errors, and child sitemaps too deep to read.
pub(crate) fn reason(read: &SitemapRead, too_deep: usize) -> String {
    let r = &read.report;
    let mut text = format!("sitemap read: {r}");
    match r.cap {
        Some(SitemapCap::Urls) => text.push_str(&format!(
            " (at most {MAX_SITEMAP_URLS} entries per file: the rest is not read)"
        )),
        Some(SitemapCap::Bytes) => text.push_str(&format!(
            " (at most {} MiB uncompressed per file: the rest is not read)",
            MAX_SITEMAP_BYTES >> 20
        )),
        None => {}
    }
    if too_deep > 0 {
        let children = crate::text::counted(too_deep as u64, "child sitemap", "child sitemaps");
        text.push_str(&format!(
            "; {children} not read: nested deeper than {MAX_NESTING} levels"
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reader_hands_chunks_over_in_order_and_reports_errors() {
        let (tx, rx) = mpsc::channel(4);
        tx.try_send(Ok(b"ab".to_vec())).unwrap();
        tx.try_send(Ok(Vec::new())).unwrap();
        tx.try_send(Ok(b"cde".to_vec())).unwrap();
        tx.try_send(Err("reset".into())).unwrap();
        drop(tx);
        let mut reader = ChannelReader::new(rx);
        let mut got = [0u8; 4];
        assert_eq!(reader.read(&mut got).unwrap(), 2);
        assert_eq!(reader.read(&mut got).unwrap(), 3);
        assert_eq!(&got[..3], b"cde");
        assert_eq!(reader.read(&mut got).unwrap_err().to_string(), "reset");
        assert_eq!(reader.read(&mut got).unwrap(), 0, "then the end");
    }

    #[test]
    fn the_reason_names_caps_and_depth() {
        let read = SitemapRead {
            report: SitemapReport {
                kind: super::super::sitemap::SitemapKind::Urlset,
                pages: MAX_SITEMAP_URLS,
                cap: Some(SitemapCap::Urls),
                ..SitemapReport::default()
            },
            entries: Vec::new(),
            received: 0,
        };
        assert_eq!(
            reason(&read, 2),
            "sitemap read: urlset: 50000 pages; stopped at the URL cap (at most 50000 entries per \
             file: the rest is not read); 2 child sitemaps not read: nested deeper than 3 levels"
        );
    }
}
