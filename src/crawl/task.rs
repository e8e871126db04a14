//! One fetch task: DNS and the address rules (phase 1b), the request and
//! the content-type rules when the headers arrive (phase 2), then the body,
//! its links and saving. Runs beside the coordinator and reports an
//! [`Outcome`]; it never touches the URL log.

use std::path::PathBuf;
use std::sync::Arc;

use super::engine::Item;
use super::fetch::{FetchError, Fetched, Fetcher, Head};
use super::links::{LinkOptions, Page};
use crate::rules::{CompiledRules, Known, TraceMode, UrlFacts, Verdict};

/// What a fetch task reports.
#[derive(Debug)]
pub(crate) enum Outcome {
    Done {
        item: Item,
        host: u32,
        fetched: Fetched,
        verdict: Option<Verdict>,
        content: Content,
    },
    /// Address or content-type rules (phases 1b, 2) said no.
    Refused {
        item: Item,
        host: u32,
        head: Option<Head>,
        verdict: Verdict,
    },
    Failed {
        item: Item,
        host: u32,
        error: FetchError,
    },
}

/// What the task made of a response body; the body itself stays here.
#[derive(Debug, Default)]
pub(crate) struct Content {
    /// Links, robots meta and title of an HTML page that is followed.
    pub page: Option<Page>,
    /// Bytes of body read.
    pub size: Option<u64>,
    /// `None` when the rules do not save the page; else where it went, or
    /// why the mirror could not write it.
    pub saved: Option<Result<String, String>>,
}

/// Fetches one URL: address rules after DNS (phase 1b), content-type rules
/// after the headers (phase 2), then the body, links and saving.
pub(crate) async fn fetch_one(
    fetcher: Fetcher,
    rules: Arc<CompiledRules>,
    item: Item,
    host: u32,
    out: PathBuf,
    agent: String,
) -> Outcome {
    let address = match fetcher.resolve(&item.url).await {
        Ok(ip) => ip,
        Err(error) => return Outcome::Failed { item, host, error },
    };
    let known = Known {
        address: Some(address),
        link_depth: item.link_depth,
        content_type: None,
    };
    let mut scratch = rules.scratch();
    let phase1b = rules.evaluate(
        &UrlFacts::new(&item.url, &known),
        &mut scratch,
        TraceMode::Decisive,
    );
    if !phase1b.fetch {
        return Outcome::Refused {
            item,
            host,
            head: None,
            verdict: phase1b,
        };
    }
    let mut phase2: Option<Verdict> = None;
    let result = fetcher
        .get(&item.url, None, |head| {
            if !(200..300).contains(&head.status) {
                return false;
            }
            let known = match &head.content_type {
                Some(t) => known.clone().with_content_type(t),
                None => known.clone(),
            };
            let verdict = rules.evaluate(
                &UrlFacts::new(&item.url, &known),
                &mut scratch,
                TraceMode::Decisive,
            );
            let wanted = verdict.fetch;
            phase2 = Some(verdict);
            wanted
        })
        .await;
    let mut fetched = match result {
        Ok(f) => f,
        Err(error) => return Outcome::Failed { item, host, error },
    };
    if let Some(verdict) = &phase2
        && !verdict.fetch
    {
        return Outcome::Refused {
            item,
            host,
            head: Some(fetched.head),
            verdict: phase2.unwrap_or(phase1b),
        };
    }
    let verdict = phase2.unwrap_or(phase1b);
    let is_html = fetched
        .head
        .content_type
        .as_deref()
        .is_none_or(|t| t == "text/html" || t == "application/xhtml+xml");
    let mut page = None;
    let mut saved = None;
    let body = fetched.body.take();
    let size = body.as_ref().map(|b| b.len() as u64);
    if let Some(body) = body {
        if is_html && verdict.follow {
            let options = LinkOptions {
                resources: verdict.save,
                max_links: 100_000,
            };
            let product = agent.split('/').next().unwrap_or(&agent).to_string();
            // Inline rather than on the blocking pool: a typical page takes
            // well under a millisecond, less than a hand-off to another
            // thread costs (a 5 MB page takes tens of milliseconds).
            page = Some(super::links::extract(&body, &item.url, &options, &product));
        }
        let noindex = page.as_ref().is_some_and(|p| p.robots.noindex);
        if verdict.save && !noindex {
            let url = item.url.clone();
            let result =
                tokio::task::spawn_blocking(move || super::mirror::save(&out, &url, &body)).await;
            saved = Some(match result {
                Ok(Ok(path)) => Ok(path.to_string_lossy().into_owned()),
                Ok(Err(e)) => Err(e.to_string()),
                Err(e) => Err(e.to_string()),
            });
        }
    }
    Outcome::Done {
        item,
        host,
        fetched,
        verdict: Some(verdict),
        content: Content { page, size, saved },
    }
}
