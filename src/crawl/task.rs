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
        page: Option<Page>,
        saved: Option<String>,
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
    let fetched = match result {
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
    if let Some(body) = &fetched.body {
        if is_html && verdict.follow {
            let options = LinkOptions {
                resources: verdict.save,
                max_links: 100_000,
            };
            let product = agent.split('/').next().unwrap_or(&agent).to_string();
            // Inline, not on the blocking pool: a page takes well under a
            // millisecond, less than handing it to another thread costs.
            page = Some(super::links::extract(body, &item.url, &options, &product));
        }
        let noindex = page.as_ref().is_some_and(|p| p.robots.noindex);
        if verdict.save && !noindex {
            let url = item.url.clone();
            let body = body.clone();
            let result =
                tokio::task::spawn_blocking(move || super::mirror::save(&out, &url, &body)).await;
            if let Ok(Ok(path)) = result {
                saved = Some(path.to_string_lossy().into_owned());
            }
        }
    }
    Outcome::Done {
        item,
        host,
        fetched,
        verdict: Some(verdict),
        page,
        saved,
    }
}
