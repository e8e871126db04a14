//! Fetching one URL: the only module that names reqwest.
//!
//! The crawler resolves host names itself ([`Fetcher::resolve`]) so that
//! address rules see the address, and the connection then goes to that same
//! address: the client's DNS resolver answers from the crawler's
//! [`AddressBook`]. Redirects are not followed here (each hop is a new URL
//! for the rules); the body is read in chunks and cut at the size cap; the
//! caller decides from the headers whether the body is wanted at all
//! (content-type rules, SPEC §1.3 phase 2). The read timeout is kept here
//! too ([`stall`]).

mod stall;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use bytes::{Bytes, BytesMut};
use url::Url;

use self::stall::Stall;

/// Host name → the address the crawler chose for it. Filled by
/// [`Fetcher::resolve`] before a request; read by the client's resolver.
#[derive(Debug, Default)]
pub struct AddressBook {
    /// Guards the map only while copying an address in or out.
    addresses: Mutex<HashMap<String, IpAddr>>,
}

impl AddressBook {
    fn get(&self, host: &str) -> Option<IpAddr> {
        self.addresses.lock().ok()?.get(host).copied()
    }

    fn set(&self, host: &str, ip: IpAddr) {
        if let Ok(mut map) = self.addresses.lock() {
            map.insert(host.to_string(), ip);
        }
    }
}

/// The client's resolver: the address the crawler chose, else the system's.
#[derive(Debug, Clone)]
struct BookResolver(Arc<AddressBook>);

impl reqwest::dns::Resolve for BookResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let book = self.0.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            if let Some(ip) = book.get(&host) {
                // Port 0: the connector puts in the URL's port.
                let addrs: reqwest::dns::Addrs = Box::new(std::iter::once(SocketAddr::new(ip, 0)));
                return Ok(addrs);
            }
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let addrs: reqwest::dns::Addrs = Box::new(found.into_iter());
            Ok(addrs)
        })
    }
}

/// Why a fetch failed, with the class SPEC §2.4 gives it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    #[error("DNS: no such host {0}")]
    NoSuchHost(String),
    #[error("DNS: no answer for {0} ({1})")]
    DnsNoAnswer(String, String),
    #[error("timed out: {0}")]
    Timeout(String),
    /// Refused, reset, or closed before the response or its body ended.
    #[error("connection refused, reset or closed early: {0}")]
    Refused(String),
    #[error("connection error: {0}")]
    Connection(String),
    /// The server's answer is not HTTP the parser accepts (a control
    /// character in a header value, a bad status line or length; the
    /// parser's words say which). Never retried: the same server sends the
    /// same bytes.
    #[error("the response is not valid HTTP: {0}")]
    Malformed(String),
    #[error("bad response body: {0}")]
    Body(String),
}

impl FetchError {
    /// Temporary errors are retried with backoff; permanent ones are not.
    pub fn is_temporary(&self) -> bool {
        matches!(
            self,
            FetchError::DnsNoAnswer(..) | FetchError::Timeout(_) | FetchError::Refused(_)
        )
    }
}

/// What the response headers say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Head {
    pub status: u16,
    /// Media type without parameters, lower-cased.
    pub content_type: Option<String>,
    /// The media type's `charset` parameter, as sent (decoding a page
    /// in it is link extraction's business).
    pub charset: Option<String>,
    /// The `Location` header's text ([`value_text`]).
    pub location: Option<String>,
    pub retry_after: Option<Duration>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Every `X-Robots-Tag` header value.
    pub x_robots_tag: Vec<String>,
}

/// A response: its head, and its body when the caller wanted it.
#[derive(Debug, Clone, Default)]
pub struct Fetched {
    pub head: Head,
    /// `Bytes`, not `Vec<u8>`: a body that arrives as one piece (over plain
    /// HTTP/1.1 when hyper has the whole body buffered, as in
    /// `crawl_bench`; gzip, HTTP/2 and slow links give several) is the
    /// piece hyper read, not a copy of it ([`Fetcher::get_within`]).
    pub body: Option<Bytes>,
    /// The body went past the cap and was cut there.
    pub truncated: bool,
}

/// Conditional request validators for a refresh crawl.
#[derive(Debug, Clone, Default)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

/// The longest a request may take in all unless the crawl says
/// (`max_fetch_s`, as Scrapy's `DOWNLOAD_TIMEOUT`).
pub const DEFAULT_MAX_FETCH: Duration = Duration::from_secs(180);

/// The HTTP client and its limits.
#[derive(Debug, Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    book: Arc<AddressBook>,
    max_body: u64,
    /// Each step of a request (the headers, each piece of the body) fails
    /// past this ([`Stall`]).
    read_timeout: Duration,
    /// And the whole request past this.
    total_timeout: Duration,
}

impl Fetcher {
    /// A client with the crawl's user agent and timeouts. Installs the ring
    /// crypto provider for rustls on first use (the build leaves it out of
    /// reqwest to keep clean builds short).
    pub fn new(user_agent: &str, timeout: Duration, max_body: u64) -> Result<Fetcher, FetchError> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let book = Arc::new(AddressBook::default());
        let client = reqwest::Client::builder()
            .user_agent(user_agent)
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(BookResolver(book.clone())))
            .build()
            .map_err(|e| FetchError::Connection(format!("cannot build the HTTP client: {e}")))?;
        Ok(Fetcher {
            client,
            book,
            max_body,
            read_timeout: timeout,
            total_timeout: DEFAULT_MAX_FETCH,
        })
    }

    /// The same client with each request's total limit set to `limit`
    /// (`max_fetch_s`; [`DEFAULT_MAX_FETCH`] otherwise).
    pub fn with_max_fetch(mut self, limit: Duration) -> Fetcher {
        self.total_timeout = limit;
        self
    }

    /// Resolves the URL's host, remembers the answer for the connection, and
    /// returns it for the address rules.
    pub async fn resolve(&self, url: &Url) -> Result<IpAddr, FetchError> {
        let host = match url.host() {
            Some(url::Host::Ipv4(ip)) => return Ok(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => return Ok(IpAddr::V6(ip)),
            Some(url::Host::Domain(d)) => d.to_string(),
            None => return Err(FetchError::NoSuchHost(url.to_string())),
        };
        if let Some(ip) = self.book.get(&host) {
            return Ok(ip);
        }
        let port = url.port_or_known_default().unwrap_or(80);
        let answer = tokio::net::lookup_host((host.as_str(), port))
            .await
            .map(|mut addrs| addrs.next());
        match answer {
            Ok(first) => match first {
                Some(addr) => {
                    self.book.set(&host, addr.ip());
                    Ok(addr.ip())
                }
                None => Err(FetchError::DnsNoAnswer(host, "no address records".into())),
            },
            Err(e) => {
                let message = e.to_string();
                // getaddrinfo: EAI_AGAIN ("temporary failure") is worth a
                // retry; EAI_NONAME ("not known") is not.
                if message.to_ascii_lowercase().contains("temporary") {
                    Err(FetchError::DnsNoAnswer(host, message))
                } else {
                    Err(FetchError::NoSuchHost(host))
                }
            }
        }
    }

    /// GETs `url`. After the headers, `want_body` decides whether to read
    /// the body (it is not downloaded when content-type rules exclude it).
    pub async fn get(
        &self,
        url: &Url,
        validators: Option<&Validators>,
        want_body: impl FnOnce(&Head) -> bool,
    ) -> Result<Fetched, FetchError> {
        self.get_within(url, validators, self.max_body, want_body)
            .await
    }

    /// [`Fetcher::get`] with the body cut at `max_body` bytes instead of the
    /// crawl's cap: robots.txt needs no more than its parse limit.
    pub async fn get_within(
        &self,
        url: &Url,
        validators: Option<&Validators>,
        max_body: u64,
        want_body: impl FnOnce(&Head) -> bool,
    ) -> Result<Fetched, FetchError> {
        // The parsed URL, not its text: reqwest would parse the text again.
        let mut request = self.client.get(url.clone());
        if let Some(v) = validators {
            if let Some(etag) = &v.etag {
                request = request.header(reqwest::header::IF_NONE_MATCH, etag);
            }
            if let Some(lm) = &v.last_modified {
                request = request.header(reqwest::header::IF_MODIFIED_SINCE, lm);
            }
        }
        let mut stall = Stall::start(self.read_timeout, self.total_timeout);
        let mut response = stall.headers(request.send()).await?.map_err(classify)?;
        let head = head_of(&response);
        if !want_body(&head) {
            return Ok(Fetched {
                head,
                body: None,
                truncated: false,
            });
        }
        let mut body = BodyBuffer::default();
        let mut truncated = false;
        while let Some(chunk) = stall.guard(response.chunk()).await?.map_err(body_error)? {
            let room = max_body.saturating_sub(body.len() as u64) as usize;
            if chunk.len() > room {
                body.push(chunk.slice(..room));
                truncated = true;
                break; // dropping the response closes the connection
            }
            body.push(chunk);
        }
        let body = body.finish();
        Ok(Fetched {
            head,
            body: Some(body),
            truncated,
        })
    }
}

/// A body being read: the first piece kept as it came, later pieces
/// appended to a buffer. A 28 KB page read over a keep-alive loopback
/// connection (`crawl_bench`) mostly arrives as one piece, which then costs
/// no copy and no allocation (before, every body was copied into a growing
/// `Vec`: a malloc and a memcpy of the whole page, about 11% of a fetch
/// task's instructions there). A piece kept whole holds hyper's read buffer
/// (up to about 400 KiB) until the page is scanned and saved: at most one
/// per fetch in flight.
#[derive(Debug, Default)]
enum BodyBuffer {
    #[default]
    Empty,
    One(Bytes),
    Many(BytesMut),
}

impl BodyBuffer {
    fn len(&self) -> usize {
        match self {
            BodyBuffer::Empty => 0,
            BodyBuffer::One(b) => b.len(),
            BodyBuffer::Many(b) => b.len(),
        }
    }

    fn push(&mut self, chunk: Bytes) {
        if chunk.is_empty() {
            return;
        }
        match self {
            BodyBuffer::Empty => *self = BodyBuffer::One(chunk),
            BodyBuffer::One(first) => {
                let mut joined = BytesMut::with_capacity(first.len() + chunk.len());
                joined.extend_from_slice(first);
                joined.extend_from_slice(&chunk);
                *self = BodyBuffer::Many(joined);
            }
            BodyBuffer::Many(joined) => joined.extend_from_slice(&chunk),
        }
    }

    fn finish(self) -> Bytes {
        match self {
            BodyBuffer::Empty => Bytes::new(),
            BodyBuffer::One(b) => b,
            BodyBuffer::Many(b) => b.freeze(),
        }
    }
}

/// A response whose body the caller reads chunk by chunk, for bodies that
/// are parsed as they arrive and may be larger than is worth holding whole
/// (sitemaps: up to 50 MiB). Dropping it closes the connection.
#[derive(Debug)]
pub struct BodyStream {
    pub head: Head,
    response: reqwest::Response,
    stall: Stall,
}

impl BodyStream {
    /// The next piece of the body; `None` at its end. No size cap here: the
    /// reader decides when it has had enough and drops the stream.
    pub async fn chunk(&mut self) -> Result<Option<Vec<u8>>, FetchError> {
        let chunk = self.stall.guard(self.response.chunk()).await?;
        Ok(chunk.map_err(body_error)?.map(|c| c.to_vec()))
    }
}

impl Fetcher {
    /// GETs `url` and returns as soon as the headers are in; the body is
    /// read through [`BodyStream::chunk`].
    pub async fn open(&self, url: &Url) -> Result<BodyStream, FetchError> {
        let mut stall = Stall::start(self.read_timeout, self.total_timeout);
        let response = stall
            .headers(self.client.get(url.clone()).send())
            .await?
            .map_err(classify)?;
        Ok(BodyStream {
            head: head_of(&response),
            response,
            stall,
        })
    }
}

/// How long a `Retry-After` asks to wait: seconds, or until an HTTP date
/// (none for one past); one that is neither reads as a minute, as the
/// header still asks for a pause. The engine bounds what it waits.
pub(crate) fn retry_after(value: &[u8], now: SystemTime) -> Duration {
    let text = std::str::from_utf8(value).unwrap_or("").trim();
    if let Ok(secs) = text.parse::<u64>() {
        return Duration::from_secs(secs);
    }
    match httpdate::parse_http_date(text) {
        Ok(when) => when.duration_since(now).unwrap_or(Duration::ZERO),
        Err(_) => Duration::from_secs(60),
    }
}

fn header_text(response: &reqwest::Response, name: reqwest::header::HeaderName) -> Option<String> {
    response.headers().get(name).map(value_text)
}

/// A validator (`ETag`, `Last-Modified`) or `Retry-After` as sent, when it
/// is visible ASCII: a validator goes back byte for byte in a conditional
/// request, which decoded text would not be; one that is not ASCII is not
/// used.
fn opaque_header(
    response: &reqwest::Response,
    name: reqwest::header::HeaderName,
) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(|s| s.trim().to_string())
}

/// A header's value as text, trimmed: UTF-8 when it is, else each byte as
/// the character of that code (the Fetch standard's isomorphic decoding).
/// `HeaderValue::to_str` takes visible ASCII only, so a Latin-1 `caf\xe9`
/// in a `Location`, or an `é` in an `X-Robots-Tag` date, made the whole
/// header look absent: a redirect without a target, a `noindex` not
/// obeyed. Decoded, the `Location` becomes `caf%C3%A9` in the URL.
fn value_text(value: &reqwest::header::HeaderValue) -> String {
    let bytes = value.as_bytes();
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => std::borrow::Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    };
    text.trim().to_owned()
}

fn head_of(response: &reqwest::Response) -> Head {
    use reqwest::header;
    let content_type_header = header_text(response, header::CONTENT_TYPE);
    let charset = content_type_header
        .as_deref()
        .and_then(crate::crawl::links::charset_of)
        .map(str::to_owned);
    let content_type = content_type_header
        .map(|t| {
            // Quoted in the record's reason: a control character a
            // server sent (a C1 byte, decoded) is kept escaped there.
            let mut media = crate::text::escape_control(t.split(';').next().unwrap_or("").trim());
            media.make_ascii_lowercase();
            media
        })
        .filter(|t| !t.is_empty());
    let retry_after = response
        .headers()
        .get(header::RETRY_AFTER)
        .map(|v| retry_after(v.as_bytes(), SystemTime::now()));
    Head {
        status: response.status().as_u16(),
        content_type,
        charset,
        location: header_text(response, header::LOCATION),
        retry_after,
        etag: opaque_header(response, header::ETAG),
        last_modified: opaque_header(response, header::LAST_MODIFIED),
        x_robots_tag: response
            .headers()
            .get_all("x-robots-tag")
            .iter()
            .map(value_text)
            .collect(),
    }
}

/// SPEC §2.4: timeouts, refused and reset connections are temporary; other
/// connection errors permanent.
fn classify(e: reqwest::Error) -> FetchError {
    let message = one_line(&e);
    if e.is_timeout() {
        return FetchError::Timeout(message);
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(&e);
    while let Some(s) = source {
        if let Some(hyper) = s.downcast_ref::<hyper::Error>() {
            if hyper.is_parse() {
                // Its own words: reqwest's wrapping ("error sending request
                // for url (…)") says nothing the record does not.
                return FetchError::Malformed(one_line(s));
            }
            // Closed with no answer, or mid-answer (a keep-alive connection
            // the server dropped, a server restarting): as a reset is.
            if hyper.is_incomplete_message() {
                return FetchError::Refused(one_line(s));
            }
        }
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind::*;
            match io.kind() {
                ConnectionRefused | ConnectionReset | ConnectionAborted | BrokenPipe
                | UnexpectedEof => {
                    return FetchError::Refused(message);
                }
                TimedOut => return FetchError::Timeout(message),
                _ => {}
            }
        }
        source = s.source();
    }
    if e.is_decode() || e.is_body() {
        return FetchError::Body(message);
    }
    FetchError::Connection(message)
}

/// An error while reading a body: a connection error there is the body's.
fn body_error(e: reqwest::Error) -> FetchError {
    match classify(e) {
        FetchError::Connection(m) => FetchError::Body(m),
        other => other,
    }
}

/// An error and its causes on one line.
fn one_line(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text.replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seconds as given; an HTTP date as the time left until it (none for
    /// one past); anything else, a minute.
    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").expect("a date");
        let wait = |v: &str| retry_after(v.as_bytes(), now);
        assert_eq!(wait("120"), Duration::from_secs(120));
        assert_eq!(wait(" 5 "), Duration::from_secs(5));
        assert_eq!(
            wait("Sun, 06 Nov 1994 09:49:37 GMT"),
            Duration::from_secs(3600)
        );
        assert_eq!(wait("Sun, 06 Nov 1994 07:49:37 GMT"), Duration::ZERO);
        assert_eq!(wait("soon-ish"), Duration::from_secs(60));
        assert_eq!(retry_after(b"\xc1\xff", now), Duration::from_secs(60));
    }

    #[test]
    fn one_piece_is_kept_as_it_came() {
        let piece = Bytes::from(vec![b'x'; 1000]);
        let at = piece.as_ptr();
        let mut body = BodyBuffer::default();
        body.push(Bytes::new());
        body.push(piece);
        body.push(Bytes::new());
        let body = body.finish();
        assert_eq!(body.len(), 1000);
        assert_eq!(body.as_ptr(), at, "not copied");
    }

    #[test]
    fn pieces_are_joined_in_order() {
        let body = BodyBuffer::default();
        assert!(body.finish().is_empty());
        let mut body = BodyBuffer::default();
        for piece in ["<html>", "", "<p>", "text", "</p>"] {
            body.push(Bytes::from(piece));
        }
        assert_eq!(body.len(), 17);
        assert_eq!(&body.finish()[..], b"<html><p>text</p>");
    }
}
