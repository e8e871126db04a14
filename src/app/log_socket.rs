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
//! The reply is made of the listing's lines and of control lines, which
//! start with a NUL byte: `started` as soon as the request is read (until
//! then `log` waits at most [`ANSWER_WITHIN`]: a crawl that is stopped,
//! say with Ctrl-Z, does not leave it hanging), `note` and a message for
//! the reader's standard error, and one closing line: `ok`, or `input` /
//! `runtime` and the error's message. No listing line can start with NUL:
//! the table and the JSON lines escape control characters. A reply that
//! stops before its closing line means the crawl ended during the listing.
//!
//! A request is read with a size cap and a time limit, so that a peer
//! that sends endless bytes or nothing at all costs the crawl nothing but
//! a thread for [`ANSWER_WITHIN`].

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

use super::AppError;
use super::listing::{ListingRequest, Source, WRITE_FAILED, write_listing};
use crate::cli::escape_control;
use crate::rules::compile::one_line;
use crate::store::UrlLog;

/// The socket's name in the log's folder. sled leaves files it does not
/// know alone.
pub const SOCKET_FILE: &str = "log.sock";

/// Starts a control line of the reply.
const CONTROL: u8 = 0;

/// The most a request line may hold: its options and `--why` URLs.
const MAX_REQUEST: u64 = 1 << 20;

/// How long either side waits for the other to begin: the crawl for a
/// request, `log` for the crawl's `started`.
const ANSWER_WITHIN: Duration = Duration::from_secs(10);

/// After a failed accept (out of file descriptors, say), the pause before
/// the next: an error that persists must not spin a core.
const AFTER_A_FAILED_ACCEPT: Duration = Duration::from_millis(100);

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
        let listener = UnixListener::bind(&path).map_err(|e| {
            // The standard library's own words for it ("path must be
            // shorter than SUN_LEN") name a C constant, not the cause.
            if e.kind() == std::io::ErrorKind::InvalidInput {
                std::io::Error::new(
                    e.kind(),
                    format!(
                        "the folder's path is too long for a socket address \
                         ({} bytes with the socket's name; the system takes about 100)",
                        path.as_os_str().len()
                    ),
                )
            } else {
                e
            }
        })?;
        // The listing is the crawl's own data: its user's alone, whatever
        // the umask (connecting takes write permission on the socket).
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        let stop = Arc::new(AtomicBool::new(false));
        let (stopped, log, dir) = (stop.clone(), Arc::downgrade(log), dir.to_path_buf());
        let accepting = std::thread::Builder::new()
            .name("log-readers".into())
            .spawn(move || {
                for stream in listener.incoming() {
                    if stopped.load(Ordering::Acquire) {
                        break;
                    }
                    let Ok(stream) = stream else {
                        std::thread::sleep(AFTER_A_FAILED_ACCEPT);
                        continue;
                    };
                    let (log, dir) = (log.clone(), dir.clone());
                    // One thread a reader: readers are few, and a slow one
                    // (a pager) must not hold up the next.
                    let _ = std::thread::Builder::new()
                        .name("log-reader".into())
                        .spawn(move || answer(stream, log, &dir));
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

/// Writes a control line: `what`, and `message` on one line when there is one.
fn control(out: &mut impl Write, what: &str, message: &str) -> std::io::Result<()> {
    out.write_all(&[CONTROL])?;
    if message.is_empty() {
        writeln!(out, "{what}")
    } else {
        writeln!(out, "{what} {}", one_line(message))
    }
}

/// Reads one reader's request and writes it the listing, its notes and
/// the closing line. The reader may go at any time (its output closed):
/// then there is nobody to tell, and the listing stops at its next write.
fn answer(stream: UnixStream, log: Weak<UrlLog>, dir: &Path) {
    let _ = stream.set_read_timeout(Some(ANSWER_WITHIN));
    let mut line = Vec::new();
    let read = BufReader::new(&stream)
        .take(MAX_REQUEST)
        .read_until(b'\n', &mut line);
    let mut out = std::io::BufWriter::new(&stream);
    let result = match read {
        Err(e) => Err(AppError::Input(format!("the request did not come: {e}"))),
        Ok(_) if line.last() != Some(&b'\n') => Err(AppError::Input(format!(
            "a request of more than {MAX_REQUEST} bytes, or one not ended by a line break"
        ))),
        Ok(_) => serde_json::from_slice::<ListingRequest>(&line)
            .map_err(|e| AppError::Input(format!("a request this build does not read: {e}"))),
    };
    let result = result.and_then(|request| {
        control(&mut out, "started", "")
            .and_then(|()| out.flush())
            .map_err(|e| AppError::Runtime(e.to_string()))?;
        let source = Source { log, dir };
        // Sent after the listing, before its closing line; a note that
        // cannot be written is lost with the reader.
        let mut notes = Vec::new();
        let listed = write_listing(&source, &request, &mut out, &mut |note| {
            notes.push(note.to_string());
        });
        for note in &notes {
            let _ = control(&mut out, "note", note);
        }
        listed
    });
    let end = match &result {
        Ok(()) => control(&mut out, "ok", ""),
        Err(AppError::Input(m)) => control(&mut out, "input", m),
        Err(AppError::Runtime(m)) => control(&mut out, "runtime", m),
    };
    let _ = end.and_then(|()| out.flush());
}

/// Whether a crawl listed the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// The crawl holding the log listed it.
    Listed,
    /// No crawl answered (no socket, one a killed crawl left, or a crawl
    /// that ended before it began): the caller opens the log itself.
    NobodyAnswered,
}

/// Lists the log in `dir` through the crawl that holds it, when one
/// answers on its socket; its notes go to standard error.
pub fn ask(dir: &Path, request: &ListingRequest, out: &mut impl Write) -> Result<Asked, AppError> {
    let path = dir.join(SOCKET_FILE);
    let Ok(stream) = UnixStream::connect(&path) else {
        return Ok(Asked::NobodyAnswered);
    };
    let mut line = serde_json::to_vec(request).map_err(|e| AppError::Runtime(e.to_string()))?;
    line.push(b'\n');
    if (&stream).write_all(&line).is_err() {
        return Ok(Asked::NobodyAnswered);
    }
    let lost = |e: std::io::Error| {
        AppError::Runtime(format!(
            "{}: the crawl holding the URL log stopped answering: {e}",
            path.display()
        ))
    };
    let _ = stream.set_read_timeout(Some(ANSWER_WITHIN));
    let mut reader = BufReader::new(&stream);
    let mut line = Vec::new();
    match reader.read_until(b'\n', &mut line) {
        // Closed before a word: a crawl on its way out.
        Ok(0) => return Ok(Asked::NobodyAnswered),
        Ok(_) => {}
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            return Err(AppError::Runtime(format!(
                "{}: the crawl holding the URL log does not answer (is it stopped?)",
                path.display()
            )));
        }
        Err(_) => return Ok(Asked::NobodyAnswered),
    }
    // Begun: a listing may take its time between lines (a rare --grep).
    let _ = stream.set_read_timeout(None);
    let write = |e: std::io::Error| AppError::Runtime(format!("{WRITE_FAILED} {e}"));
    loop {
        if line.first() == Some(&CONTROL) {
            let text = String::from_utf8_lossy(&line[1..]);
            let (what, message) = text
                .trim_end()
                .split_once(' ')
                .unwrap_or((text.trim_end(), ""));
            // The crawl's messages reach this terminal: escaped like the listing.
            let message = escape_control(message);
            match what {
                "started" => {}
                "note" => eprintln!("crawlspace: {message}"),
                "ok" => break,
                "input" => return Err(AppError::Input(message)),
                "runtime" => return Err(AppError::Runtime(message)),
                other => {
                    return Err(AppError::Runtime(format!(
                        "{}: an answer this build does not read: {}",
                        path.display(),
                        escape_control(other)
                    )));
                }
            }
        } else {
            out.write_all(&line).map_err(write)?;
        }
        line.clear();
        if reader.read_until(b'\n', &mut line).map_err(lost)? == 0 {
            return Err(AppError::Runtime(format!(
                "{}: the crawl holding the URL log ended during the listing; run `log` again",
                dir.display()
            )));
        }
    }
    out.flush().map_err(write)?;
    Ok(Asked::Listed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log deep enough that its socket's path passes what a socket
    /// address holds: the reason says so in words, not `SUN_LEN`.
    #[test]
    fn a_path_too_long_for_a_socket_says_so() {
        let top = tempfile::tempdir().expect("temp dir");
        let dir = top.path().join("d".repeat(120));
        let log = Arc::new(UrlLog::open(&dir, 1 << 20).expect("log"));
        let err = LogServer::start(&dir, &log).expect_err("too long");
        let said = err.to_string();
        assert!(
            said.contains("the folder's path is too long for a socket address"),
            "{said}"
        );
    }
}
