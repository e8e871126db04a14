//! Where a saved body goes (SPEC §2.5): a browsable mirror laid out as
//! `out/host[_port]/path`, and the write itself.
//!
//! The mapping is a pure function of the URL, chosen so that:
//!
//! * **it never leaves `out`**: every path segment is percent-decoded and
//!   then re-encoded so that `/`, `\`, `:`, `*`, `?`, `"`, `<`, `>`, `|`,
//!   `%`, `@`, control, invisible and bidi characters cannot appear raw, and `.`/`..` cannot
//!   be a component (`%2e%2e` decodes to `..`, which is then encoded back);
//!   as a last guard each component is checked to be one plain file name.
//! * **a file never collides with a directory**. File names always contain
//!   a `.` and directory names never do: a directory URL (`/a/`) is saved as
//!   `a/index.html`, a last segment without a dot (`/a`, common for pages)
//!   also becomes a directory with `index.html` in it (so `/a` and `/a/b`
//!   coexist, and `/a` is browsable the way servers serve it), and a dot in
//!   a directory segment is written `%2E` (`/v1.2/x.html` →
//!   `v1%2E2/x.html`), so `/a.html` and `/a.html/b` cannot clash either.
//! * **queries are kept**, before the extension so that the copy opens as
//!   what it is: `page.html?a=1&b=2` → `page@a=1&b=2.html`; `@` in a path
//!   segment is written `%40`, so the first `@` always starts the query.
//!   The query is not decoded (`%26` and `&` mean different things there),
//!   only made file-safe.
//! * **names fit**: a component longer than 255 bytes is cut and given a
//!   `~` and a 64-bit FNV-1a hash of the full name (stable across runs and
//!   Rust versions, so a refresh overwrites the same file); files keep a
//!   short extension after the hash.
//!
//! Two URLs map to one name only when they are equal after
//! percent-decoding (`/%41` and `/A`), differ only in scheme (http and
//! https share a host folder, as in wget), or are the same directory page
//! (`/a`, `/a/` and `/a/index.html` all map to `a/index.html`); empty
//! segments are skipped (`/a//b` is `/a/b`). Most sites serve such URLs
//! one page, but not all: a second URL of a name goes beside the copy
//! there (`a/index~HASH.html`, the hash of its URL), and its record names
//! that file. Copies saved in this process are known from [`OWNERS`];
//! those of an earlier run, for the directory-page forms and the scheme
//! twin ([`same_file_urls`]), from the URL log. A host `h` on a non-default
//! port `p` goes to `h_p` (an `_` inside a host name is written `%5F` to
//! keep that unambiguous).
//! Very deep URLs can still exceed the platform's whole-path limit; `save`
//! then fails for that URL only.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use url::Url;

mod convert;
pub use convert::{Converted, ORIGINAL_PREFIX, convert_links};

/// Longest component most file systems accept, in bytes.
const MAX_COMPONENT: usize = 255;

/// Bytes of the original name kept before the hash in a shortened name.
const SHORT_PREFIX: usize = 200;

/// The file name for a directory URL (and for last segments without a dot).
const INDEX: &str = "index.html";

/// Where `url` is saved under `out`. Always a path strictly inside `out`.
pub fn path_for(out: &Path, url: &Url) -> PathBuf {
    let mut path = out.to_path_buf();
    push(&mut path, host_dir(url), Role::Dir);

    let full = url.path();
    let segments: Vec<&str> = full.strip_prefix('/').unwrap_or(full).split('/').collect();
    let (last, dirs) = segments.split_last().unwrap_or((&"", &[]));
    for segment in dirs.iter().filter(|s| !s.is_empty()) {
        push(&mut path, segment_name(segment, Role::Dir), Role::Dir);
    }

    let mut file = segment_name(last, Role::File);
    if file.is_empty() {
        file = INDEX.to_string();
    } else if !file.contains('.') {
        // A page like `/about`: a directory of its own, so that `/about/team`
        // can be saved beside it.
        push(&mut path, file, Role::Dir);
        file = INDEX.to_string();
    }
    if let Some(query) = url.query() {
        // Before the extension, so that the copy still opens as what it is
        // (`page@a=1.html`, not `page.html@a=1`).
        let (stem, extension) = file.rsplit_once('.').unwrap_or((file.as_str(), ""));
        let mut named = format!("{stem}@");
        encode_raw(query, &mut named);
        named.push('.');
        named.push_str(extension);
        file = named;
    }
    push(&mut path, file, Role::File);
    path
}

/// Saves `body` at [`path_for`], creating folders as needed, and returns the
/// path. The body goes to a temporary file first and is renamed into place,
/// so a crash never leaves a half-written page where a complete one was.
pub fn save(out: &Path, url: &Url, body: &[u8]) -> std::io::Result<PathBuf> {
    save_unless_taken(out, url, body, |_| false)
}

/// [`save`], where `taken(path)` says whether another URL's copy is at
/// `path` already (one saved in an earlier run, as the URL log has it):
/// this one then goes beside it, as it does beside a copy saved earlier in
/// this process.
pub fn save_unless_taken(
    out: &Path,
    url: &Url,
    body: &[u8],
    taken: impl FnOnce(&Path) -> bool,
) -> std::io::Result<PathBuf> {
    let mut path = path_for(out, url);
    // Another URL's copy at the same place (`/a` after `/a/`): this one goes
    // beside it instead of over it. The log is asked first, so that a copy
    // an earlier run saved is not claimed here either (its owner may be
    // saved again in this run).
    let url_hash = fnv1a(url.as_str().as_bytes());
    if taken(&path) || !OWNERS.claim(fnv1a(path.as_os_str().as_encoded_bytes()), url_hash) {
        path = beside(&path, url_hash);
        // Claimed too: a URL whose own name is this one (`~` is a plain
        // character in URLs) then goes beside it in turn.
        OWNERS.claim(fnv1a(path.as_os_str().as_encoded_bytes()), url_hash);
    }
    let Some(parent) = path.parent() else {
        return Err(std::io::Error::other("mirror path has no parent"));
    };
    // The path in the message: "File exists" alone says nothing of where.
    let at = |place: &Path, e: std::io::Error| {
        std::io::Error::new(e.kind(), format!("{}: {e}", place.display()))
    };
    std::fs::create_dir_all(parent).map_err(|e| at(parent, e))?;
    match replace(&path, body) {
        Ok(()) => Ok(path),
        Err(e) => Err(at(&path, e)),
    }
}

/// Writes `body` to a temporary file beside `path` and renames it into
/// place: a crash leaves the old file or the new one, never half of one.
pub(crate) fn replace(path: &Path, body: &[u8]) -> std::io::Result<()> {
    let temp = temp_for(path);
    let written = std::fs::File::create(&temp).and_then(|mut file| {
        file.write_all(body)?;
        file.flush()
    });
    written
        .and_then(|()| std::fs::rename(&temp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&temp);
        })
}

/// Where a copy of `path` is written before it is renamed into place.
/// `%p` never occurs in a mirror name (every `%` there starts a hex
/// escape), so it cannot be another URL's file. It is named after the file
/// it becomes (a hash keeps the name short) and this process: a process
/// never writes one file twice at once, while two crawls writing into one
/// mirror must not share a temporary file. A `kill -9` can leave one
/// behind, under a name no page has.
fn temp_for(path: &Path) -> PathBuf {
    let target = path.file_name().unwrap_or_default().as_encoded_bytes();
    path.with_file_name(format!(
        "%part-{:016x}-{}",
        fnv1a(target),
        std::process::id()
    ))
}

/// The other URLs [`path_for`] maps to the same file as `url`: the forms
/// of one directory page (`/a`, `/a/`, `/a/index.html`, the query kept)
/// and the other scheme of each (http and https share a host folder).
/// Those are the ones a saved copy may belong to instead.
pub fn same_file_urls(url: &Url) -> Vec<Url> {
    let path = url.path();
    let mut paths = Vec::new();
    if let Some(dir) = path.strip_suffix("/index.html") {
        paths.push(format!("{dir}/"));
        paths.push(dir.to_string());
    } else if path.ends_with('/') {
        paths.push(format!("{path}index.html"));
        paths.push(path.trim_end_matches('/').to_string());
    } else if !path.rsplit('/').next().unwrap_or("").contains('.') {
        paths.push(format!("{path}/"));
        paths.push(format!("{path}/index.html"));
    }
    let mut urls = Vec::new();
    let twin = match url.scheme() {
        "http" => Some("https"),
        "https" => Some("http"),
        _ => None,
    };
    let forms = paths
        .iter()
        .filter(|p| p.starts_with('/'))
        .map(Some)
        .chain([None]);
    for form in forms {
        let mut other = url.clone();
        if let Some(p) = form {
            other.set_path(p);
        }
        if other != *url {
            urls.push(other.clone());
        }
        if let Some(twin) = twin
            && other.set_scheme(twin).is_ok()
            && other != *url
        {
            urls.push(other);
        }
    }
    urls
}

/// Slots of [`OWNERS`]: 65,536 pairs of hashes, 1 MiB, made on the first
/// save.
const OWNER_SLOTS: usize = 1 << 16;

/// Which URL saved each mirror file in this process, as (path hash, URL
/// hash) pairs in a table that keeps the latest per slot: two URLs that map
/// to one file (`/a`, `/a/` and `/a/index.html`; `/%41` and `/A`; http and
/// https) must not overwrite each other's copy, and the memory stays the
/// same however many pages are saved. A pair pushed out of its slot by
/// another file's is forgotten; a save of the same URL again (a refresh)
/// is never a clash. Copies saved before this process are the URL log's
/// to tell ([`save_unless_taken`]).
static OWNERS: Owners = Owners(std::sync::Mutex::new(Vec::new()));

struct Owners(std::sync::Mutex<Vec<(u64, u64)>>);

impl Owners {
    /// Records `url` as the writer of `path` (both hashed); false when
    /// another URL wrote it, which then keeps it.
    fn claim(&self, path: u64, url: u64) -> bool {
        // A poisoned lock only means a save panicked meanwhile: the table
        // itself is always whole.
        let mut slots = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if slots.is_empty() {
            slots.resize(OWNER_SLOTS, (0, 0));
        }
        let Some(slot) = slots.get_mut(path as usize % OWNER_SLOTS) else {
            return true;
        };
        if slot.0 == path && slot.1 != url {
            return false;
        }
        *slot = (path, url);
        true
    }
}

/// The file beside `path` for the URL hashed `url_hash`: its name with
/// `~hash` before the extension (`index.html` → `index~…html`), the query
/// part after `@` kept. A URL can spell the same name (`~` is a plain
/// character in a path); within a run the claim on it keeps the first.
fn beside(path: &Path, url_hash: u64) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The hash goes after the stem: before the query (`p~HASH@a=1.html`),
    // or before the extension.
    let mut named = match name.split_once('@') {
        Some((stem, query_and_extension)) => {
            format!("{stem}~{url_hash:016x}@{query_and_extension}")
        }
        None => match name.rsplit_once('.') {
            Some((stem, ext)) => format!("{stem}~{url_hash:016x}.{ext}"),
            None => format!("{name}~{url_hash:016x}"),
        },
    };
    if named.len() > MAX_COMPONENT {
        named = shorten(&named, Role::File);
    }
    path.with_file_name(named)
}

/// What [`remove`] found at a URL's place in the mirror.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Removal {
    /// The saved file was there and is gone now.
    Removed(PathBuf),
    /// Nothing was there: removed by hand.
    Missing(PathBuf),
    /// The record's file lies outside `out` (saved by a run with another
    /// `--out`): not this run's to remove, so left in place.
    Elsewhere(PathBuf),
}

/// Removes the saved copy of `url` under `out`: a page that a refresh found
/// gone from the site (SPEC §2.4). With `saved` (the file its record
/// names, beside another URL's maybe), that file only, and only when it
/// lies strictly inside `out` (else nothing: `Elsewhere`, or `Missing` when
/// no file is there at all); without, the file
/// [`path_for`] names. A directory or a symbolic link in its place is not
/// something the mirror wrote, so it is left alone (an error). Folders
/// emptied by the removal stay.
pub fn remove(out: &Path, url: &Url, saved: Option<&str>) -> std::io::Result<Removal> {
    let path = match saved {
        // The record's file, and only it: falling back to where the URL
        // maps could take another URL's copy (one this URL was saved
        // beside). Compared as files, so that `./mirror` and `mirror` (or
        // an absolute path) are the same folder.
        Some(saved) => {
            let saved = Path::new(saved);
            let within = std::fs::canonicalize(out)
                .and_then(|out| Ok((out, std::fs::canonicalize(saved)?)))
                .is_ok_and(|(out, file)| file.starts_with(&out) && file != out);
            if !within {
                let there = std::fs::symlink_metadata(saved).is_ok();
                let path = saved.to_path_buf();
                return Ok(match there {
                    true => Removal::Elsewhere(path),
                    false => Removal::Missing(path),
                });
            }
            saved.to_path_buf()
        }
        None => path_for(out, url),
    };
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Removal::Missing(path)),
        Err(e) => Err(e),
        Ok(meta) if meta.is_file() => {
            std::fs::remove_file(&path)?;
            Ok(Removal::Removed(path))
        }
        Ok(_) => Err(std::io::Error::other(format!(
            "{} is not a file the mirror wrote",
            path.display()
        ))),
    }
}

/// Whether a component is a directory or the file itself: directory names
/// never contain a `.`, file names always do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Dir,
    File,
}

/// `host` or `host_port`, file-safe.
fn host_dir(url: &Url) -> String {
    let Some(host) = url.host_str().filter(|h| !h.is_empty()) else {
        // Only non-http URLs lack a host; `_` alone cannot be a host folder
        // because `_` in hosts is escaped.
        return "_".to_string();
    };
    let mut name = String::with_capacity(host.len() + 6);
    for c in host.chars() {
        if c == '_' {
            name.push_str("%5F");
        } else {
            push_char(c, &mut name);
        }
    }
    if name == "." || name == ".." {
        name = name.replace('.', "%2E");
    }
    if let Some(port) = url.port() {
        name.push('_');
        name.push_str(&port.to_string());
    }
    name
}

/// One path segment as a file or directory name.
fn segment_name(segment: &str, role: Role) -> String {
    let mut name = String::with_capacity(segment.len());
    let bytes: Vec<u8> = percent_encoding_decode(segment);
    match String::from_utf8(bytes) {
        // Decoded: readable names (`caf%C3%A9` → `café`), with everything
        // unsafe, and `%` itself, escaped again.
        Ok(decoded) => {
            for c in decoded.chars() {
                push_char(c, &mut name);
            }
        }
        // Not UTF-8 once decoded (`%FF`): keep the escapes as they are.
        Err(_) => encode_raw(segment, &mut name),
    }
    if role == Role::Dir || name.chars().all(|c| c == '.') {
        name = name.replace('.', "%2E");
    }
    name
}

/// Decodes `%XX` escapes, leaving malformed ones as they are.
fn percent_encoding_decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).and_then(|b| hex_value(*b)),
                bytes.get(i + 2).and_then(|b| hex_value(*b)),
            )
        {
            out.push(h << 4 | l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

fn hex_value(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Appends a decoded character, escaped when it is unsafe in a file name
/// or would be ambiguous in ours (`%` starts our escapes, `@` the query).
fn push_char(c: char, out: &mut String) {
    if is_unsafe(c) || c == '%' || c == '@' {
        push_escaped(c, out);
    } else {
        out.push(c);
    }
}

/// Appends text that keeps its own escapes (a query, a segment that is not
/// UTF-8): valid `%XX` stay, a stray `%` and unsafe characters are escaped.
fn encode_raw(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let escape_start = c == '%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        if escape_start {
            out.push('%');
        } else if is_unsafe(c) || c == '%' || c == '@' {
            push_escaped(c, out);
        } else {
            out.push(c);
        }
    }
}

/// Characters no common file system takes in a name (Windows' list, which
/// includes Unix's `/` and NUL), control characters, and the invisible and
/// bidi ones a name could hide behind (`bidi\u{202e}exe.gnp`, which `ls`
/// shows as `bidignp.exe`).
fn is_unsafe(c: char) -> bool {
    matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|')
        || c.is_control()
        || crate::rules::is_invisible(c)
}

fn push_escaped(c: char, out: &mut String) {
    let mut buf = [0u8; 4];
    for b in c.encode_utf8(&mut buf).bytes() {
        out.push_str(&format!("%{b:02X}"));
    }
}

/// Appends one component, shortened if too long, and refuses anything that
/// is not a single plain name (which the encoding above already rules out).
fn push(path: &mut PathBuf, name: String, role: Role) {
    let name = if name.len() > MAX_COMPONENT {
        shorten(&name, role)
    } else {
        name
    };
    let mut components = Path::new(&name).components();
    let plain = matches!(components.next(), Some(Component::Normal(n)) if n == name.as_str())
        && components.next().is_none();
    if plain {
        path.push(name);
    } else {
        path.push(format!("~{:016x}", fnv1a(name.as_bytes())));
    }
}

/// `prefix~hash` for directories; files keep a short extension after the
/// hash so a browser still knows what they are (and keep their `.`).
fn shorten(name: &str, role: Role) -> String {
    let mut cut = SHORT_PREFIX;
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut short = format!("{}~{:016x}", &name[..cut], fnv1a(name.as_bytes()));
    if role == Role::File {
        // The extension ends the name, after any query (`p@a=1.html`).
        let ext = name
            .rsplit_once('.')
            .map(|(_, ext)| ext)
            .filter(|ext| (1..=10).contains(&ext.len()))
            .filter(|ext| ext.bytes().all(|b| b.is_ascii_alphanumeric()))
            .unwrap_or("bin");
        short.push('.');
        short.push_str(ext);
    }
    short
}

/// FNV-1a, 64 bits: tiny, and unlike `DefaultHasher` fixed forever.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(url: &str) -> String {
        let url = Url::parse(url).unwrap();
        let path = path_for(Path::new("/out"), &url);
        let rest = path.strip_prefix("/out").expect("inside out");
        rest.to_str().unwrap().to_string()
    }

    #[test]
    fn url_to_path() {
        let long = "x".repeat(300);
        let long_url = format!("http://ex.com/{long}.html");
        let long_dir_url = format!("http://ex.com/{long}/a.html");
        let long_query_url = format!("http://ex.com/list.php?q={long}");
        #[rustfmt::skip]
        let cases: &[(&str, &str)] = &[
            ("http://ex.com/",                            "ex.com/index.html"),
            ("http://ex.com",                             "ex.com/index.html"),
            ("http://ex.com/a/b/",                        "ex.com/a/b/index.html"),
            ("http://ex.com/a/page.html",                 "ex.com/a/page.html"),
            ("https://ex.com/a/page.html#frag",           "ex.com/a/page.html"),
            // Extensionless pages are directories, so /about/team fits beside.
            ("http://ex.com/about",                       "ex.com/about/index.html"),
            ("http://ex.com/about/team",                  "ex.com/about/team/index.html"),
            // Dots in directory names are escaped: files always have one.
            ("http://ex.com/v1.2/x.html",                 "ex.com/v1%2E2/x.html"),
            ("http://ex.com/a.html/b.html",               "ex.com/a%2Ehtml/b.html"),
            ("http://ex.com/.well-known/x.txt",           "ex.com/%2Ewell-known/x.txt"),
            // Queries.
            ("http://ex.com/page.html?a=1&b=2",           "ex.com/page@a=1&b=2.html"),
            ("http://ex.com/?a=1",                        "ex.com/index@a=1.html"),
            ("http://ex.com/list?p=2",                    "ex.com/list/index@p=2.html"),
            ("http://ex.com/p.html?",                     "ex.com/p@.html"),
            ("http://ex.com/p.html?u=/x:*?\"<>|", "ex.com/p@u=%2Fx%3A%2A%3F%22%3C%3E%7C.html"),
            ("http://ex.com/p.html?q=a%20b&r=%2F",        "ex.com/p@q=a%20b&r=%2F.html"),
            ("http://ex.com/p.html?q=100%",               "ex.com/p@q=100%25.html"),
            ("http://ex.com/p.html?a@b",                  "ex.com/p@a%40b.html"),
            ("http://ex.com/a@b.html",                    "ex.com/a%40b.html"),
            // Ports.
            ("http://ex.com:8080/a.html",                 "ex.com_8080/a.html"),
            ("https://ex.com:443/a.html",                 "ex.com/a.html"),
            ("http://my_host.ex.com/a.html",              "my%5Fhost.ex.com/a.html"),
            ("http://[::1]:8080/a.html",                  "[%3A%3A1]_8080/a.html"),
            ("http://127.0.0.1/a.html",                   "127.0.0.1/a.html"),
            // The URL parser accepts `.` and `..` as host names.
            ("http://../x.html",                          "%2E%2E/x.html"),
            ("http://%2e/x.html",                         "%2E/x.html"),
            // Percent-decoding where safe.
            ("http://ex.com/caf%C3%A9.html",              "ex.com/café.html"),
            ("http://ex.com/a%20b.html",                  "ex.com/a b.html"),
            ("http://ex.com/%41.html",                    "ex.com/A.html"),
            ("http://ex.com/a%2Fb.html",                  "ex.com/a%2Fb.html"),
            ("http://ex.com/a%2fb/c.html",                "ex.com/a%2Fb/c.html"),
            ("http://ex.com/a%5Cb.html",                  "ex.com/a%5Cb.html"),
            ("http://ex.com/a%00b.html",                  "ex.com/a%00b.html"),
            ("http://ex.com/a%252F.html",                 "ex.com/a%252F.html"),
            ("http://ex.com/100%.html",                   "ex.com/100%25.html"),
            ("http://ex.com/%FF%FE.html",                 "ex.com/%FF%FE.html"),
            ("http://ex.com/%FF:%zz.html",                "ex.com/%FF%3A%25zz.html"),
            ("http://ex.com/a:b*c|d.html",                "ex.com/a%3Ab%2Ac%7Cd.html"),
            // Invisible and bidi characters, in a path and a query.
            ("http://ex.com/bidi%E2%80%AEexe.gnp",        "ex.com/bidi%E2%80%AEexe.gnp"),
            ("http://ex.com/a%E2%80%8Bb.html",            "ex.com/a%E2%80%8Bb.html"),
            ("http://ex.com/p.html?\u{2066}x",            "ex.com/p@%E2%81%A6x.html"),
            // Dot segments: resolved by the URL parser, or escaped.
            ("http://ex.com/a/../../../etc/passwd",       "ex.com/etc/passwd/index.html"),
            ("http://ex.com/%2e%2e/%2E%2e/x.html",        "ex.com/x.html"),
            ("http://ex.com/%2e%2e%2fetc%2fpasswd",       "ex.com/..%2Fetc%2Fpasswd"),
            ("http://ex.com/..%2f..%2fx.html",            "ex.com/..%2F..%2Fx.html"),
            ("http://ex.com/...",                         "ex.com/%2E%2E%2E/index.html"),
            ("http://ex.com/a/.%2e%2F/b",                 "ex.com/a/%2E%2E%2F/b/index.html"),
            // Empty segments collapse.
            ("http://ex.com/a//b.html",                   "ex.com/a/b.html"),
            // Unicode.
            ("http://ex.com/日本/語.html",                   "ex.com/日本/語.html"),
            ("http://bücher.de/ü.html",                   "xn--bcher-kva.de/ü.html"),
            // Long names are cut and hashed.
            (&long_url,                                   "ex.com/LONG.html"),
            (&long_dir_url,                               "ex.com/LONG/a.html"),
            (&long_query_url,                             "ex.com/LONG.php"),
        ];
        let mut bad = Vec::new();
        for (url, want) in cases {
            let got = rel(url);
            if want.contains("LONG") {
                for part in Path::new(&got).components() {
                    let part = part.as_os_str().len();
                    assert!(part <= MAX_COMPONENT, "{url}: {got}");
                }
                let (head, tail) = want.split_once("LONG").unwrap();
                assert!(got.starts_with(head) && got.ends_with(tail), "{url}: {got}");
                assert!(got.contains('~'), "{url}: {got}");
            } else if got != *want {
                bad.push(format!("{url}: got {got}, want {want}"));
            }
        }
        assert!(bad.is_empty(), "{bad:#?}");
    }

    #[test]
    fn shortened_names_stay_distinct() {
        let a = format!("http://ex.com/{}a.html", "x".repeat(300));
        let b = format!("http://ex.com/{}b.html", "x".repeat(300));
        assert_ne!(rel(&a), rel(&b));
        assert_eq!(rel(&a), rel(&a), "stable");
        // A long name of 3-byte characters is cut on a char boundary.
        let c = format!("http://ex.com/{}.html", "語".repeat(100));
        let name = rel(&c);
        assert!(
            name.starts_with("ex.com/語語") && name.ends_with(".html"),
            "{name}"
        );
        assert!(name.len() < "ex.com/".len() + MAX_COMPONENT, "{name}");
    }

    /// Deterministic noise: xorshift64*.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    /// Thousands of hostile paths: the result is always a plain path inside
    /// `out`, and no file path is ever another one's directory.
    #[test]
    fn hostile_paths_never_escape() {
        let mut pieces: Vec<String> = "/ .. . %2e %2E %2f %2F %5c \\ %00 % %% %zz : * ? # @ %40 a \
             b.html ~ %FF %C3%A9 é | < > \" %20 %0a %0d C: con _"
            .split(' ')
            .map(String::from)
            .collect();
        pieces.extend([" ".into(), "\t".into(), "x".repeat(130)]);
        let out = Path::new("/srv/mirror");
        let mut rng = XorShift(0x1234_5678_9abc_def1);
        let mut files = std::collections::HashSet::new();
        let mut dirs = std::collections::HashSet::new();
        for _ in 0..20_000 {
            let mut text = String::from("http://");
            text.push_str(
                ["ex.com", "..", "a_b.org:8080", "[::1]", "1.2.3.4"][(rng.next() % 5) as usize],
            );
            text.push('/');
            for _ in 0..rng.next() % 12 {
                text.push_str(&pieces[(rng.next() % pieces.len() as u64) as usize]);
            }
            let Ok(url) = Url::parse(&text) else {
                continue;
            };
            let path = path_for(out, &url);
            let rest = path.strip_prefix(out).expect("inside out");
            let parts: Vec<_> = rest.components().collect();
            assert!(parts.len() >= 2, "{url} → {path:?}");
            for part in &parts {
                let Component::Normal(name) = part else {
                    panic!("{url} → {path:?}");
                };
                assert!(name.len() <= MAX_COMPONENT, "{url} → {path:?}");
            }
            let mut dir = out.to_path_buf();
            for part in &parts[..parts.len() - 1] {
                dir.push(part);
                dirs.insert(dir.clone());
            }
            files.insert(path);
        }
        assert!(files.len() > 5_000, "the generator made varied URLs");
        let clash = files.intersection(&dirs).next();
        assert_eq!(clash, None, "a file path is also a directory");
    }

    #[test]
    fn a_save_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let url = Url::parse("http://h/a/page.html").unwrap();
        let path = path_for(dir.path(), &url);
        // One this process left (a failed write, say) is written over.
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(temp_for(&path), b"half a pa").unwrap();
        assert_eq!(save(dir.path(), &url, b"whole").unwrap(), path);
        let left: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("page.html")]);
        assert_eq!(std::fs::read(&path).unwrap(), b"whole");
    }

    #[test]
    fn save_writes_and_overwrites() {
        let out = tempfile::tempdir().unwrap();
        let page = Url::parse("http://ex.com/a").unwrap();
        let child = Url::parse("http://ex.com/a/b.html?x=1").unwrap();
        let hostile = Url::parse("http://ex.com/%2e%2e/%2e%2e%2f%2e%2e%2fescape").unwrap();
        let p1 = save(out.path(), &page, b"first").unwrap();
        let p2 = save(out.path(), &child, b"child").unwrap();
        let p3 = save(out.path(), &hostile, b"hostile").unwrap();
        assert_eq!(p1, out.path().join("ex.com/a/index.html"));
        assert_eq!(p2, out.path().join("ex.com/a/b@x=1.html"));
        assert!(p3.starts_with(out.path().join("ex.com")));
        save(out.path(), &page, b"second").unwrap();
        assert_eq!(std::fs::read(&p1).unwrap(), b"second");
        assert_eq!(std::fs::read(&p2).unwrap(), b"child");
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(out.path().join("ex.com/a"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(names.iter().all(|n| !n.starts_with("%part")), "{names:?}");
    }

    #[test]
    fn remove_takes_only_the_saved_file() {
        let out = tempfile::tempdir().unwrap();
        let page = Url::parse("http://ex.com/a").unwrap();
        let child = Url::parse("http://ex.com/a/b.html").unwrap();
        let path = save(out.path(), &page, b"page").unwrap();
        save(out.path(), &child, b"child").unwrap();
        assert_eq!(
            remove(out.path(), &page, None).unwrap(),
            Removal::Removed(path.clone())
        );
        assert!(!path.exists());
        assert_eq!(
            remove(out.path(), &page, None).unwrap(),
            Removal::Missing(path)
        );
        // The page's folder and the other page in it stay.
        assert_eq!(
            std::fs::read(out.path().join("ex.com/a/b.html")).unwrap(),
            b"child"
        );
        // A folder where the file would be is not the mirror's: left alone.
        let dir_page = Url::parse("http://ex.com/c.html").unwrap();
        std::fs::create_dir_all(out.path().join("ex.com/c.html")).unwrap();
        assert!(remove(out.path(), &dir_page, None).is_err());
        assert!(out.path().join("ex.com/c.html").is_dir());
    }

    /// Two URLs of one file (`/a` and `/a/`) keep both copies: the second
    /// goes beside the first, and its removal takes its own file.
    #[test]
    fn urls_sharing_a_file_keep_both_copies() {
        let out = tempfile::tempdir().unwrap();
        let slash = Url::parse("http://ex.com/dir/").unwrap();
        let bare = Url::parse("http://ex.com/dir").unwrap();
        let first = save(out.path(), &slash, b"SLASH").unwrap();
        let second = save(out.path(), &bare, b"BARE").unwrap();
        assert_ne!(first, second);
        assert_eq!(std::fs::read(&first).unwrap(), b"SLASH");
        assert_eq!(std::fs::read(&second).unwrap(), b"BARE");
        let name = second.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("index~") && name.ends_with(".html"),
            "{name}"
        );
        assert_eq!(second.parent(), first.parent());
        // Saved again (a refresh), each keeps its own file.
        assert_eq!(save(out.path(), &slash, b"SLASH 2").unwrap(), first);
        assert_eq!(save(out.path(), &bare, b"BARE 2").unwrap(), second);
        // A query keeps its place after `@`.
        let q = beside(Path::new("/o/h/p@a=1.html"), 0xab);
        assert_eq!(q, Path::new("/o/h/p~00000000000000ab@a=1.html"));
        // Removing the second takes its own file, as its record names it.
        let saved = second.to_string_lossy().into_owned();
        assert_eq!(
            remove(out.path(), &bare, Some(&saved)).unwrap(),
            Removal::Removed(second.clone())
        );
        assert!(first.exists());
        // A record's path outside `out` is not followed, nor does the
        // removal fall back to where the URL maps (another URL's copy).
        let outside = tempfile::NamedTempFile::new().unwrap();
        let elsewhere = outside.path().to_string_lossy().into_owned();
        assert_eq!(
            remove(out.path(), &slash, Some(&elsewhere)).unwrap(),
            Removal::Elsewhere(outside.path().to_path_buf())
        );
        assert!(outside.path().exists() && first.exists());
        let sneaky = format!("{}/ex.com/../../x", out.path().display());
        assert!(matches!(
            remove(out.path(), &slash, Some(&sneaky)).unwrap(),
            Removal::Missing(_)
        ));
        // The same folder spelled another way is the same file.
        let spelled = format!("{}/./ex.com/dir/index.html", out.path().display());
        assert_eq!(
            remove(out.path(), &slash, Some(&spelled)).unwrap(),
            Removal::Removed(PathBuf::from(&spelled))
        );
        assert!(!first.exists());
    }

    /// The URLs that share a file with one: the directory page's forms and
    /// the other scheme of each.
    #[test]
    fn the_urls_of_one_file() {
        let of = |u: &str| -> Vec<String> {
            let mut v: Vec<String> = same_file_urls(&Url::parse(u).unwrap())
                .iter()
                .map(|u| u.to_string())
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            of("http://h/a/"),
            [
                "http://h/a",
                "http://h/a/index.html",
                "https://h/a",
                "https://h/a/",
                "https://h/a/index.html"
            ]
        );
        assert_eq!(of("http://h/a/index.html?q=1")[0], "http://h/a/?q=1");
        assert_eq!(of("https://h/a.html"), ["http://h/a.html"]);
        assert_eq!(of("http://h/")[0], "http://h/index.html");
        assert_eq!(of("http://h/index.html")[0], "http://h/");
        for u in [
            "http://h/a",
            "http://h/a/",
            "http://h/a/index.html",
            "http://h/",
            "http://h/index.html",
        ] {
            let url = Url::parse(u).unwrap();
            for other in same_file_urls(&url) {
                assert_eq!(
                    path_for(Path::new("/o"), &other)
                        .strip_prefix("/o")
                        .unwrap(),
                    path_for(Path::new("/o"), &url).strip_prefix("/o").unwrap(),
                    "{other} and {url}"
                );
            }
        }
    }

    /// A copy an earlier run saved (the log says so) keeps its file: the
    /// other URL goes beside it, and does not take the file's place here,
    /// so the owner saved again later keeps it.
    #[test]
    fn a_copy_an_earlier_run_saved_keeps_its_file() {
        let out = tempfile::tempdir().unwrap();
        let owner = Url::parse("http://ex.com/run/").unwrap();
        let other = Url::parse("http://ex.com/run/index.html").unwrap();
        let canonical = path_for(out.path(), &owner);
        let second = save_unless_taken(out.path(), &other, b"OTHER", |p| p == canonical).unwrap();
        assert_ne!(second, canonical);
        let first = save_unless_taken(out.path(), &owner, b"OWNER", |_| false).unwrap();
        assert_eq!(first, canonical);
        assert_eq!(std::fs::read(&first).unwrap(), b"OWNER");
        assert_eq!(std::fs::read(&second).unwrap(), b"OTHER");
    }
}
