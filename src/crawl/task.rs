//! One fetch task: DNS and the address rules (phase 1b), the request and
//! the content-type rules when the headers arrive (phase 2), then the body,
//! its links, robots directives and saving. Also the fetch of a host's
//! robots.txt ([`fetch_robots`]); sitemaps are read by `sitemaps`. Tasks
//! run beside the coordinator and report an [`Outcome`]; they never touch
//! the URL log.

use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;

use super::engine::Item;
use super::fetch::{FetchError, Fetched, Fetcher, Head, Validators};
use super::links::{LinkOptions, Page, RobotsMeta};
use super::robots::{PARSE_LIMIT, RobotsStatus, product_token};
use super::robots_cache::RobotsFetch;
use super::sitemaps::SitemapRead;
use crate::rules::{CompiledRules, Known, TraceMode, UrlFacts, Verdict};

/// Redirects followed when fetching robots.txt (RFC 9309 §2.3.1.2).
pub(crate) const ROBOTS_REDIRECTS: u8 = 5;

/// What a fetch task reports.
#[derive(Debug)]
pub(crate) enum Outcome {
    Done {
        item: Item,
        host: u32,
        /// Where the request went (DNS's answer, which address rules saw).
        address: IpAddr,
        fetched: Fetched,
        verdict: Option<Verdict>,
        /// The rules that reached `verdict`: its rule numbers are theirs,
        /// and live rules may have replaced them while the page was fetched.
        rules: Arc<CompiledRules>,
        /// Boxed: the largest part, and most outcomes are pages.
        content: Box<Content>,
    },
    /// Address or content-type rules (phases 1b, 2) said no.
    Refused {
        item: Item,
        host: u32,
        /// The address the rules judged (DNS's answer).
        address: IpAddr,
        head: Option<Head>,
        verdict: Verdict,
        /// The rules that reached `verdict` (as in `Done`).
        rules: Arc<CompiledRules>,
    },
    Failed {
        item: Item,
        host: u32,
        /// Where the request went, when DNS answered before the failure.
        address: Option<IpAddr>,
        error: FetchError,
    },
    /// The host's robots.txt, or why it could not be had.
    Robots { host: u32, fetch: RobotsFetch },
    /// A sitemap file: its headers, and what it held when they said 2xx.
    Sitemap {
        item: Item,
        host: u32,
        /// Where the request went, and what the rules said with it
        /// (phase 1b), with the rules that said it.
        address: IpAddr,
        verdict: Verdict,
        rules: Arc<CompiledRules>,
        head: Head,
        read: Option<SitemapRead>,
    },
}

impl Outcome {
    /// A fetch that failed, after DNS answered with `address` or before.
    pub(crate) fn failed(
        item: Item,
        host: u32,
        address: Option<IpAddr>,
        error: FetchError,
    ) -> Outcome {
        Outcome::Failed {
            item,
            host,
            address,
            error,
        }
    }

    /// The host the outcome is from.
    pub(crate) fn host(&self) -> u32 {
        match self {
            Outcome::Done { host, .. }
            | Outcome::Refused { host, .. }
            | Outcome::Failed { host, .. }
            | Outcome::Robots { host, .. }
            | Outcome::Sitemap { host, .. } => *host,
        }
    }

    /// Whether a page's outcome may ask its host for a pause before the
    /// next request: a failed fetch (a backoff), or the server's 429 or
    /// 5xx (a `Retry-After`, or a retry). robots.txt and sitemap outcomes
    /// come from tasks that never go on to another URL.
    pub(crate) fn asks_host_to_pause(&self) -> bool {
        match self {
            Outcome::Done { fetched, .. } => {
                let status = fetched.head.status;
                status == 429 || status >= 500
            }
            Outcome::Failed { .. } => true,
            Outcome::Refused { .. } | Outcome::Robots { .. } | Outcome::Sitemap { .. } => false,
        }
    }
}

/// What the task made of a response body; the body itself stays here.
#[derive(Debug, Default)]
pub(crate) struct Content {
    /// Links, robots meta, title and excerpt of an HTML page that is
    /// followed or saved.
    pub page: Option<Page>,
    /// The response's `X-Robots-Tag` headers, as they apply to us.
    pub header_robots: RobotsMeta,
    /// Bytes of body read.
    pub size: Option<u64>,
    /// `None` when the rules do not save the page; else where it went, or
    /// why the mirror could not write it.
    pub saved: Option<Result<String, String>>,
}

/// Where a page task saves: the mirror folder, and the URL log, which says
/// which URL an earlier run saved at a mirror file.
#[derive(Debug, Clone)]
pub(crate) struct SaveTo {
    pub(crate) out: PathBuf,
    pub(crate) log: Arc<crate::store::UrlLog>,
}

impl SaveTo {
    /// Whether the copy at `path` is another URL's, as the log has it: one
    /// of the URLs that map to the same file, saved there. (Copies saved
    /// in this process the mirror knows itself.)
    fn taken(&self, url: &url::Url, path: &std::path::Path) -> bool {
        // As files, not as text: a run given `--out ./mirror` and one given
        // `--out mirror` name the same file differently. No file there, no
        // copy to keep.
        let Ok(here) = std::fs::canonicalize(path) else {
            return false;
        };
        super::mirror::same_file_urls(url).iter().any(|other| {
            let record = self
                .log
                .id_of(other.as_str())
                .ok()
                .flatten()
                .and_then(|id| self.log.get(id).ok().flatten());
            record
                .and_then(|r| r.saved_path)
                .and_then(|saved| std::fs::canonicalize(saved).ok())
                .is_some_and(|saved| saved == here)
        })
    }
}

/// Fetches one URL: address rules after DNS (phase 1b), content-type rules
/// after the headers (phase 2), then the body, links and saving. With
/// `validators` (a refresh) the request is conditional; a 304 comes back
/// as `Done` without a body.
pub(crate) async fn fetch_one(
    fetcher: Fetcher,
    rules: Arc<CompiledRules>,
    item: Item,
    host: u32,
    save_to: SaveTo,
    agent: String,
    validators: Option<Validators>,
) -> Outcome {
    let (address, phase1b) = match address_rules(&fetcher, &rules, &item).await {
        Ok(answer) => answer,
        Err(error) => return Outcome::failed(item, host, None, error),
    };
    if !phase1b.fetch {
        return Outcome::Refused {
            item,
            host,
            address,
            head: None,
            verdict: phase1b,
            rules,
        };
    }
    let known = Known {
        address: Some(address),
        link_depth: item.link_depth,
        content_type: None,
    };
    let mut scratch = rules.lend_scratch();
    let mut phase2: Option<Verdict> = None;
    let result = fetcher
        .get(&item.url, validators.as_ref(), |head| {
            if !(200..300).contains(&head.status) {
                return false;
            }
            // With the headers in, the type is known, if only to be none:
            // a rule on it decides now, rather than staying deferred.
            let known = known
                .clone()
                .with_content_type(head.content_type.as_deref().unwrap_or(""));
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
        Err(error) => return Outcome::failed(item, host, Some(address), error),
    };
    if let Some(verdict) = &phase2
        && !verdict.fetch
    {
        return Outcome::Refused {
            item,
            host,
            address,
            head: Some(fetched.head),
            verdict: phase2.unwrap_or(phase1b),
            rules: Arc::clone(&rules),
        };
    }
    let verdict = phase2.unwrap_or(phase1b);
    let content_type = fetched.head.content_type.as_deref();
    let is_html = content_type.is_none_or(|t| t == "text/html" || t == "application/xhtml+xml");
    let is_css = content_type == Some("text/css");
    let product = product_token(&agent);
    let mut header_robots = RobotsMeta::default();
    header_robots.apply_headers(
        fetched.head.x_robots_tag.iter().map(String::as_str),
        product,
    );
    let mut page = None;
    let mut saved = None;
    let body = fetched.body.take();
    let size = body.as_ref().map(|b| b.len() as u64);
    if let Some(body) = body {
        // Saved pages are read too, for their title, excerpt and robots
        // meta; their links are only followed when the verdict says so.
        if is_html && (verdict.follow || verdict.save) {
            let options = LinkOptions {
                resources: verdict.save,
                max_links: 100_000,
            };
            // Inline rather than on the blocking pool: a typical page takes
            // well under a millisecond, less than a hand-off to another
            // thread costs (a 5 MB page takes tens of milliseconds).
            page = Some(super::links::extract_in(
                &body,
                &item.url,
                &options,
                product,
                fetched.head.charset.as_deref(),
            ));
        } else if is_css && verdict.save {
            // What a saved stylesheet needs saved beside it: its images,
            // fonts and imports.
            page = Some(super::links::extract_css(
                &body,
                &item.url,
                100_000,
                fetched.head.charset.as_deref(),
            ));
        }
        let noindex = header_robots.noindex || page.as_ref().is_some_and(|p| p.robots.noindex);
        if verdict.save && !noindex {
            let url = item.url.clone();
            let result = tokio::task::spawn_blocking(move || {
                let taken = |path: &std::path::Path| save_to.taken(&url, path);
                super::mirror::save_unless_taken(&save_to.out, &url, &body, taken)
            })
            .await;
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
        address,
        fetched,
        verdict: Some(verdict),
        rules: Arc::clone(&rules),
        content: Box::new(Content {
            page,
            header_robots,
            size,
            saved,
        }),
    }
}

/// DNS, then the rules again with the address known (phase 1b).
pub(crate) async fn address_rules(
    fetcher: &Fetcher,
    rules: &CompiledRules,
    item: &Item,
) -> Result<(IpAddr, Verdict), FetchError> {
    let address = fetcher.resolve(&item.url).await?;
    let known = Known {
        address: Some(address),
        link_depth: item.link_depth,
        content_type: None,
    };
    let verdict = rules.evaluate(
        &UrlFacts::new(&item.url, &known),
        &mut rules.lend_scratch(),
        TraceMode::Decisive,
    );
    Ok((address, verdict))
}

/// Fetches the robots.txt of `page`'s host: redirects followed up to
/// [`ROBOTS_REDIRECTS`] hops (to any host), at most [`PARSE_LIMIT`] bytes
/// read (one more, so the parser knows it was cut and drops a half line).
///
/// Mapped as RFC 9309 §2.3.1 says: 2xx parsed; 4xx, and redirects that
/// run out or lead nowhere, "unavailable" (all allowed); 5xx, 429 and
/// network errors (refused, reset, timed out) "unreachable" (all
/// disallowed, retried). One exception: a host name that does not exist
/// counts as unavailable, so each of its URLs fails with the page fetch's
/// own "no such host" error instead of waiting for retries of a robots.txt
/// that cannot exist.
///
/// `page` is the URL that needs the answer. When the address rules (phase
/// 1b) refuse it, robots.txt is not fetched either (the point of those
/// rules is not to connect there): the host counts as unavailable, and the
/// page is then refused by the same rules in its own fetch.
pub(crate) async fn fetch_robots(
    fetcher: Fetcher,
    rules: Arc<CompiledRules>,
    host: u32,
    page: Item,
) -> Outcome {
    let first = page.url.join("/robots.txt").unwrap_or(page.url.clone());
    let refused = match address_rules(&fetcher, &rules, &page).await {
        Ok((address, verdict)) => (!verdict.fetch).then_some(address),
        Err(_) => None, // the fetch below meets the same error and says so
    };
    if let Some(address) = refused {
        return Outcome::Robots {
            host,
            fetch: RobotsFetch {
                status: RobotsStatus::AllowAll {
                    why: format!("not fetched: the address rules refuse {address}"),
                },
                source: first.to_string(),
                retry_after: None,
            },
        };
    }
    let mut url = first.clone();
    let mut retry_after = None;
    let mut hops = 0u8;
    let status = loop {
        let answer = match fetcher.resolve(&url).await {
            Ok(_) => {
                fetcher
                    .get_within(&url, None, PARSE_LIMIT as u64 + 1, |h| {
                        (200..300).contains(&h.status)
                    })
                    .await
            }
            Err(e) => Err(e),
        };
        let fetched = match answer {
            Ok(f) => f,
            Err(e @ FetchError::NoSuchHost(_)) => {
                break RobotsStatus::AllowAll { why: e.to_string() };
            }
            Err(e) => break RobotsStatus::DisallowAll { why: e.to_string() },
        };
        let code = fetched.head.status;
        if (300..400).contains(&code) && code != 304 {
            let next = fetched
                .head
                .location
                .as_deref()
                .and_then(|l| url.join(l).ok())
                .filter(|u| matches!(u.scheme(), "http" | "https"));
            match next {
                Some(_) if hops >= ROBOTS_REDIRECTS => {
                    break RobotsStatus::AllowAll {
                        why: format!("HTTP {code} after {ROBOTS_REDIRECTS} redirects"),
                    };
                }
                Some(next) => {
                    url = next;
                    hops += 1;
                    continue;
                }
                None => {
                    break RobotsStatus::AllowAll {
                        why: format!("HTTP {code} without a usable Location"),
                    };
                }
            }
        }
        if matches!(code, 429 | 503) {
            retry_after = fetched.head.retry_after;
        }
        break RobotsStatus::from_response(code, fetched.body.as_deref().unwrap_or_default());
    };
    let source = if url == first {
        first.to_string()
    } else {
        format!("{first} (redirected to {url})")
    };
    Outcome::Robots {
        host,
        fetch: RobotsFetch {
            status,
            source,
            retry_after,
        },
    }
}
