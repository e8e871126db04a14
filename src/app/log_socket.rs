//! Reading a URL log that a running crawl holds open.
//!
//! sled locks its folder for one process, so `crawlspace log` cannot open
//! the log of a crawl under way. The crawl (headless or in the console)
//! therefore listens on a Unix socket in the log's folder
//! ([`SOCKET_FILE`]); `log` finds it there, sends what it wants to list as
//! one JSON line ([`ListingRequest`]), and copies what comes back to its
//! output. The crawl writes the listing with the same code `log` uses on
//! a log it opens itself (`listing.rs`), so both print the same.
//!
//! The reply is the listing's lines, then one line that starts with a NUL
//! byte and says how it ended: `ok`, or `input` / `runtime` and the
//! error's message. No listing line can start with NUL: the table and the
//! JSON lines escape control characters. A reply that stops without that
//! line means the crawl ended during the listing.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;

use super::AppError;
use super::listing::{ListingRequest, write_listing};
use crate::cli::escape_control;
use crate::store::UrlLog;

/// The socket's name in the log's folder. sled leaves files it does not
/// know alone.
pub const SOCKET_FILE: &str = "log.sock";

/// Starts the reply's closing line.
const END: u8 = 0;

/// A crawl's answer to `log` readers: listens until dropped.
#[derive(Debug)]
pub struct LogServer {
    path: PathBuf,
    stop: Arc<AtomicBool>,
    accepting: Option<JoinHandle<()>>,
}

impl LogServer {
    /// Listens on [`SOCKET_FILE`] in `dir` for readers of `log`. A socket
    /// file left there by a crawl that was killed is replaced: the caller
    /// holds the log's lock, so no other crawl answers on it.
    pub fn start(dir: &Path, log: &Arc<UrlLog>) -> std::io::Result<LogServer> {
        let path = dir.join(SOCKET_FILE);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let listener = UnixListener::bind(&path)?;
        let stop = Arc::new(AtomicBool::new(false));
        let (stopped, log) = (stop.clone(), Arc::downgrade(log));
        let accepting = std::thread::Builder::new()
            .name("log-readers".into())
            .spawn(move || {
                for stream in listener.incoming() {
                    if stopped.load(Ordering::Acquire) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let log = log.clone();
                    // One thread a reader: readers are few, and a slow one
                    // (a pager) must not hold up the next.
                    let _ = std::thread::Builder::new()
                        .name("log-reader".into())
                        .spawn(move || answer(stream, &log));
                }
            })?;
        Ok(LogServer {
            path,
            stop,
            accepting: Some(accepting),
        })
    }

    /// Where it listens.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for LogServer {
    /// Stops accepting (a connection of its own wakes the accepting thread
    /// to see the stop) and removes the socket file. Listings under way end
    /// on their own: they hold the log only while reading a page.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        let woken = UnixStream::connect(&self.path).is_ok();
        if let Some(accepting) = self.accepting.take()
            && woken
        {
            let _ = accepting.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Reads one reader's request and writes it the listing and the closing line.
fn answer(stream: UnixStream, log: &Weak<UrlLog>) {
    let mut line = Vec::new();
    let mut reader = BufReader::new(&stream);
    if reader.read_until(b'\n', &mut line).is_err() {
        return;
    }
    let mut out = std::io::BufWriter::new(&stream);
    let result = serde_json::from_slice::<ListingRequest>(&line)
        .map_err(|e| AppError::Input(format!("a request that does not parse: {e}")))
        .and_then(|request| write_listing(log, &request, &mut out));
    let end = match result {
        Ok(()) => "ok".to_string(),
        Err(AppError::Input(m)) => format!("input {}", one_line(&m)),
        Err(AppError::Runtime(m)) => format!("runtime {}", one_line(&m)),
    };
    // The reader may have gone (its output closed): nothing to tell it.
    let _ = out
        .write_all(&[END])
        .and_then(|()| writeln!(out, "{end}"))
        .and_then(|()| out.flush());
}

fn one_line(message: &str) -> String {
    message.replace(['\n', '\r'], " ")
}

/// Lists the log in `dir` through the crawl that holds it, when one
/// answers on its socket: `Ok(false)` when none does (no socket, or one a
/// killed crawl left), and the caller opens the log itself.
pub fn ask(dir: &Path, request: &ListingRequest, out: &mut impl Write) -> Result<bool, AppError> {
    let path = dir.join(SOCKET_FILE);
    let Ok(stream) = UnixStream::connect(&path) else {
        return Ok(false);
    };
    let lost = |e: std::io::Error| {
        AppError::Runtime(format!(
            "{}: the crawl holding the URL log: {e}",
            path.display()
        ))
    };
    let mut line = serde_json::to_vec(request).map_err(|e| AppError::Runtime(e.to_string()))?;
    line.push(b'\n');
    (&stream).write_all(&line).map_err(lost)?;
    let mut reader = BufReader::new(&stream);
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).map_err(lost)? == 0 {
            return Err(AppError::Runtime(
                "the crawl holding the URL log ended during the listing".into(),
            ));
        }
        if line.first() == Some(&END) {
            break;
        }
        out.write_all(&line)
            .map_err(|e| AppError::Runtime(format!("cannot write: {e}")))?;
    }
    out.flush()
        .map_err(|e| AppError::Runtime(format!("cannot write: {e}")))?;
    let end = String::from_utf8_lossy(&line[1..]);
    let end = end.trim_end();
    // The crawl's messages reach this terminal: escaped like the listing.
    match end.split_once(' ') {
        _ if end == "ok" => Ok(true),
        Some(("input", m)) => Err(AppError::Input(escape_control(m))),
        Some(("runtime", m)) => Err(AppError::Runtime(escape_control(m))),
        _ => Err(AppError::Runtime(format!(
            "{}: an answer this build does not read: {}",
            path.display(),
            escape_control(end)
        ))),
    }
}
