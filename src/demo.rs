//! The built-in demo site: what `crawlspace demo` serves on 127.0.0.1 and
//! crawls with `config/demo.toml`.
//!
//! Two halves. The static half is `assets/site/`, a few hundred pages
//! generated once by `assets/generate.py` and embedded in the binary, so the
//! demo needs no files at run time. The dynamic half holds what a folder of
//! files cannot: the calendar trap, redirects, errors, a slow page and a page
//! that echoes terminal escapes. Every route is linked from some page, so a
//! crawler meets them all.
//!
//! | path | answer |
//! |---|---|
//! | `/`, `/dir/`, `/file.ext` | the file (`/dir/` → `/dir/index.html`), typed by extension, with an `ETag` (304 on `If-None-Match`) |
//! | `/dir` | 301 → `/dir/` when `/dir/index.html` exists |
//! | `/old/` | 301 → `/docs/` |
//! | `/chain/1` … `/chain/4` | 301, 302, 307 (absolute `Location`), 308: four hops to `/docs/` |
//! | `/loop/a`, `/loop/b` | 302 to each other, forever |
//! | `/calendar/YYYY/MM/` | a month linking to the previous and next month, forever, and two events |
//! | `/slow` | 200 after [`SLOW_DELAY`] |
//! | `/error/500`, `/error/503` | 500; 503 with `Retry-After: 1` |
//! | `/weird?x=…` | a page whose title is `x`, control characters and all |
//! | anything else | 404 with a small HTML page |
//!
//! Text files (HTML, robots.txt, sitemap.xml, CSS) have `{{ORIGIN}}` replaced
//! by `http://127.0.0.1:PORT` as they are served, because sitemaps and
//! robots.txt `Sitemap:` lines need absolute URLs and the port is only known
//! once the listener is bound.
//!
//! Following mini-redis, [`serve`] takes its listener and its shutdown
//! signal, so the caller picks the port and decides when it stops; [`start`]
//! binds a free loopback port and runs it on a task.

use std::borrow::Cow;
use std::collections::HashMap;
use std::future::Future;
use std::hash::{Hash, Hasher};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use include_dir::{Dir, File, include_dir};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The generated site, embedded at build time.
static SITE: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/assets/site");

/// Site files by URL path without the leading slash (`docs/index.html`).
/// Built on first use because `Dir::get_file` walks the whole tree per call.
static FILES: LazyLock<HashMap<String, &'static File<'static>>> = LazyLock::new(|| {
    let mut files = HashMap::new();
    let mut dirs = vec![&SITE];
    while let Some(dir) = dirs.pop() {
        for file in dir.files() {
            let key = file
                .path()
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            files.insert(key, file);
        }
        dirs.extend(dir.dirs());
    }
    files
});

/// Replaced by the server's origin in text files (see the module doc).
const ORIGIN_PLACEHOLDER: &str = "{{ORIGIN}}";

/// How long `/slow` takes: long enough to show in the console's in-flight
/// count, short enough not to drag out the demo or the tests.
pub const SLOW_DELAY: Duration = Duration::from_millis(150);

/// Headers that some static pages are served with, for what a page's HTML
/// cannot say itself.
const EXTRA_HEADERS: &[(&str, &str, &str)] = &[(
    "/hidden/x-robots-tag.html",
    "x-robots-tag",
    "noindex, nofollow",
)];

/// Where a running demo site listens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DemoSite {
    pub addr: SocketAddr,
}

impl DemoSite {
    /// `http://127.0.0.1:PORT`, what `{{ORIGIN}}` becomes in served files.
    pub fn origin(&self) -> String {
        origin_of(self.addr)
    }

    /// The absolute URL of `path` (which starts with `/`) on this site; the
    /// demo crawl starts at `url("/")`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin())
    }
}

fn origin_of(addr: SocketAddr) -> String {
    format!("http://{addr}")
}

/// Serves the demo site on `listener` until `shutdown` completes, then
/// finishes the requests in progress and returns.
///
/// The origin substituted into files is the listener's own address, so bind
/// it to a loopback address (not `0.0.0.0`) for the links to work.
pub async fn serve(
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let origin = origin_of(listener.local_addr()?);
    axum::serve(listener, router(origin))
        .with_graceful_shutdown(shutdown)
        .await
}

/// Binds 127.0.0.1 on a free port and serves the site on a new task.
///
/// Sending on the returned sender stops the server, and so does dropping it
/// (keep it alive as long as the site is needed: `let (site, task, _) = …`
/// would stop it at once). The task ends once the server has stopped.
pub async fn start() -> std::io::Result<(DemoSite, JoinHandle<()>, oneshot::Sender<()>)> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
    let site = DemoSite {
        addr: listener.local_addr()?,
    };
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        // axum's serve future never fails (it retries accept errors itself),
        // so there is nothing to report here.
        let _ = serve(listener, async {
            // Ok (sent) and Err (sender dropped) both mean stop.
            let _ = stopped.await;
        })
        .await;
    });
    Ok((site, task, stop))
}

/// What every handler may need.
#[derive(Debug)]
struct Site {
    /// `http://127.0.0.1:PORT`: replaces `{{ORIGIN}}`, and makes the one
    /// absolute redirect of the chain.
    origin: String,
}

fn router(origin: String) -> Router {
    Router::new()
        .route("/old/", get(moved))
        .route("/chain/{hop}", get(chain))
        .route("/loop/{side}", get(redirect_loop))
        .route("/slow", get(slow))
        .route("/error/500", get(server_error))
        .route("/error/503", get(unavailable))
        .route("/weird", get(weird))
        .route("/calendar/{year}/{month}/", get(calendar_month))
        .route("/calendar/{year}/{month}/{event}", get(calendar_event))
        .fallback(static_file)
        .with_state(Arc::new(Site { origin }))
}

// ------------------------------------------------------------ static files

/// What a request path names in the embedded site.
#[derive(Debug)]
enum Lookup {
    File(&'static File<'static>),
    /// A directory asked for without its trailing slash.
    AddSlash,
    Missing,
}

/// Looks `path` up as given: no percent-decoding and no dot-segment
/// resolution, so `..` can only ever miss (keys never contain it).
fn lookup(path: &str) -> Lookup {
    let Some(rel) = path.strip_prefix('/') else {
        return Lookup::Missing;
    };
    let key = if rel.is_empty() || rel.ends_with('/') {
        Cow::Owned(format!("{rel}index.html"))
    } else {
        Cow::Borrowed(rel)
    };
    if let Some(file) = FILES.get(key.as_ref()) {
        Lookup::File(file)
    } else if !rel.is_empty()
        && !rel.ends_with('/')
        && FILES.contains_key(&format!("{rel}/index.html"))
    {
        Lookup::AddSlash
    } else {
        Lookup::Missing
    }
}

/// The Content-Type for a file extension, and whether the file is text
/// (and so gets `{{ORIGIN}}` replaced).
fn media_type(extension: &str) -> (&'static str, bool) {
    match extension {
        "html" => ("text/html; charset=utf-8", true),
        "txt" => ("text/plain; charset=utf-8", true),
        "xml" => ("application/xml", true),
        "css" => ("text/css; charset=utf-8", true),
        "png" => ("image/png", false),
        "gif" => ("image/gif", false),
        "pdf" => ("application/pdf", false),
        _ => ("application/octet-stream", false),
    }
}

async fn static_file(
    State(site): State<Arc<Site>>,
    method: Method,
    request: HeaderMap,
    uri: Uri,
) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            [(header::ALLOW, "GET, HEAD")],
        )
            .into_response();
    }
    match lookup(uri.path()) {
        Lookup::Missing => not_found(),
        Lookup::AddSlash => {
            let mut to = format!("{}/", uri.path());
            if let Some(query) = uri.query() {
                to.push('?');
                to.push_str(query);
            }
            redirect(StatusCode::MOVED_PERMANENTLY, &to)
        }
        Lookup::File(file) => file_response(&site, uri.path(), file, &request),
    }
}

fn file_response(
    site: &Site,
    path: &str,
    file: &'static File<'static>,
    request: &HeaderMap,
) -> Response {
    let extension = file
        .path()
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    let (media, text) = media_type(extension);
    let body: Cow<'static, [u8]> = match file.contents_utf8() {
        Some(t) if text && t.contains(ORIGIN_PLACEHOLDER) => {
            Cow::Owned(t.replace(ORIGIN_PLACEHOLDER, &site.origin).into_bytes())
        }
        _ => Cow::Borrowed(file.contents()),
    };
    // A content hash, so a refresh crawl's conditional requests get 304s.
    let etag = {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        body.hash(&mut hasher);
        format!("\"{:016x}\"", hasher.finish())
    };
    let unchanged = request
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|tag| matches!(tag.trim(), "*") || tag.trim() == etag);
    let mut response = if unchanged {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        Response::new(Body::from(body))
    };
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(media));
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, etag);
    }
    for (_, name, value) in EXTRA_HEADERS.iter().filter(|(p, _, _)| *p == path) {
        headers.insert(*name, HeaderValue::from_static(value));
    }
    response
}

// ------------------------------------------------------------ dynamic routes

/// A minimal page in the look of the generated ones. `title` is HTML already.
fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{title}</title>\n<link rel=\"stylesheet\" href=\"/style.css\">\n</head>\n<body>\n\
         <nav><a href=\"/\">Home</a> | <a href=\"/links/\">Test pages</a></nav>\n\
         <main>\n<h1>{title}</h1>\n{body}\n</main>\n</body>\n</html>\n"
    )
}

fn html(status: StatusCode, page: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        page,
    )
        .into_response()
}

fn not_found() -> Response {
    html(
        StatusCode::NOT_FOUND,
        page(
            "Not found",
            "<p>There is no such page on the demo site. <a href=\"/\">Home</a></p>",
        ),
    )
}

fn redirect(status: StatusCode, location: &str) -> Response {
    match HeaderValue::from_str(location) {
        Ok(location) => (status, [(header::LOCATION, location)]).into_response(),
        Err(_) => not_found(),
    }
}

/// Escapes the HTML metacharacters only: control characters pass through,
/// which is the point of `/weird`.
fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

async fn moved() -> Response {
    redirect(StatusCode::MOVED_PERMANENTLY, "/docs/")
}

/// Four hops with the four redirect statuses, one with an absolute
/// `Location` as many servers send.
async fn chain(State(site): State<Arc<Site>>, Path(hop): Path<String>) -> Response {
    match hop.as_str() {
        "1" => redirect(StatusCode::MOVED_PERMANENTLY, "/chain/2"),
        "2" => redirect(StatusCode::FOUND, "/chain/3"),
        "3" => redirect(
            StatusCode::TEMPORARY_REDIRECT,
            &format!("{}/chain/4", site.origin),
        ),
        "4" => redirect(StatusCode::PERMANENT_REDIRECT, "/docs/"),
        _ => not_found(),
    }
}

async fn redirect_loop(Path(side): Path<String>) -> Response {
    match side.as_str() {
        "a" => redirect(StatusCode::FOUND, "/loop/b"),
        "b" => redirect(StatusCode::FOUND, "/loop/a"),
        _ => not_found(),
    }
}

async fn slow() -> Response {
    tokio::time::sleep(SLOW_DELAY).await;
    html(
        StatusCode::OK,
        page("A slow page", "<p>This page took its time.</p>"),
    )
}

async fn server_error() -> Response {
    html(
        StatusCode::INTERNAL_SERVER_ERROR,
        page(
            "Internal server error",
            "<p>A permanent error: not retried.</p>",
        ),
    )
}

async fn unavailable() -> Response {
    let mut response = html(
        StatusCode::SERVICE_UNAVAILABLE,
        page(
            "Service unavailable",
            "<p>A temporary error: try again in a second (and again: it never recovers).</p>",
        ),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// A page titled with the `x` parameter, control characters kept. It links
/// to a fixed set of weird URLs, so it is no trap.
async fn weird(uri: Uri) -> Response {
    let x: String = url::form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
        .find(|(key, _)| key == "x")
        .map(|(_, value)| value.chars().take(200).collect())
        .unwrap_or_default();
    let body = "<ul>\n\
        <li><a href=\"/weird?x=%1B%5B31mred\">red</a></li>\n\
        <li><a href=\"/weird?x=%1B%5D0%3Bpwned%07\">window title</a></li>\n\
        <li><a href=\"/weird?x=%0D%0Aforged%20line\">CR LF</a></li>\n\
        <li><a href=\"/links/escapes.html\">more escapes</a></li>\n</ul>";
    html(
        StatusCode::OK,
        page(&format!("Weird: {}", escape_html(&x)), body),
    )
}

/// A month of the calendar trap. Months are canonical (`2025/06`, not
/// `2025/6`), so each has exactly one URL and the trap is the chain of
/// months itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Month {
    year: u16,
    month: u8,
}

const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

const EVENT_NAMES: [&str; 6] = [
    "Crawl clinic",
    "Rules workshop",
    "Robots.txt office hours",
    "Sitemap sprint",
    "Trap hunt",
    "Queue tuning",
];

/// The event pages each month links to.
const EVENT_FILES: [&str; 2] = ["event-1.html", "event-2.html"];

impl Month {
    fn parse(year: &str, month: &str) -> Option<Month> {
        let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(year, 4) || !digits(month, 2) {
            return None;
        }
        let (year, month): (u16, u8) = (year.parse().ok()?, month.parse().ok()?);
        ((1..=9999).contains(&year) && (1..=12).contains(&month)).then_some(Month { year, month })
    }

    fn next(self) -> Option<Month> {
        match self.month {
            12 if self.year < 9999 => Some(Month {
                year: self.year + 1,
                month: 1,
            }),
            12 => None,
            m => Some(Month {
                month: m + 1,
                ..self
            }),
        }
    }

    fn prev(self) -> Option<Month> {
        match self.month {
            1 if self.year > 1 => Some(Month {
                year: self.year - 1,
                month: 12,
            }),
            1 => None,
            m => Some(Month {
                month: m - 1,
                ..self
            }),
        }
    }

    fn path(self) -> String {
        format!("/calendar/{:04}/{:02}/", self.year, self.month)
    }

    fn label(self) -> String {
        format!("{} {}", MONTH_NAMES[usize::from(self.month - 1)], self.year)
    }

    fn event_name(self, index: usize) -> &'static str {
        let n = usize::from(self.year) * 12 + usize::from(self.month) + index;
        EVENT_NAMES[n % EVENT_NAMES.len()]
    }
}

async fn calendar_month(Path((year, month)): Path<(String, String)>) -> Response {
    let Some(month) = Month::parse(&year, &month) else {
        return not_found();
    };
    let mut body = String::from("<p>");
    if let Some(prev) = month.prev() {
        body += &format!("<a href=\"{}\">&laquo; {}</a> ", prev.path(), prev.label());
    }
    if let Some(next) = month.next() {
        body += &format!("<a href=\"{}\">{} &raquo;</a>", next.path(), next.label());
    }
    body += "</p>\n<ul>\n";
    for (i, file) in EVENT_FILES.iter().enumerate() {
        body += &format!("<li><a href=\"{file}\">{}</a></li>\n", month.event_name(i));
    }
    body += "</ul>";
    html(
        StatusCode::OK,
        page(&format!("Events, {}", month.label()), &body),
    )
}

async fn calendar_event(Path((year, month, event)): Path<(String, String, String)>) -> Response {
    let Some(month) = Month::parse(&year, &month) else {
        return not_found();
    };
    let Some(index) = EVENT_FILES.iter().position(|f| *f == event) else {
        return not_found();
    };
    let body = format!(
        "<p>Once a month, all year round.</p>\n<p><a href=\"./\">All events of {}</a></p>",
        month.label()
    );
    html(
        StatusCode::OK,
        page(
            &format!("{}, {}", month.event_name(index), month.label()),
            &body,
        ),
    )
}

#[cfg(test)]
mod tests;
