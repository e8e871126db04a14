//! A synthetic urlset produced on the fly, never held in memory: the input
//! of the sitemap benchmark, the memory example and the cap tests.
//!
//! Each entry is a realistic heavy one (a page with `lastmod` and three
//! hreflang alternates, as in the sitemaps that approach the 50 MiB cap),
//! padded with a comment to a fixed length so that sizes are exact.

use std::io::{self, Read};

/// The bytes before the first entry.
pub const HEADER: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset \
    xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" \
    xmlns:xhtml=\"http://www.w3.org/1999/xhtml\">\n";

/// The bytes after the last entry.
pub const FOOTER: &str = "</urlset>\n";

/// `entries` entries of `entry_len` bytes each (or the unpadded length,
/// [`SyntheticSitemap::MIN_ENTRY_LEN`], if that is longer), between
/// [`HEADER`] and [`FOOTER`]. Entry `i` is
/// `https://www.example.com/catalogue/item-{i:010}.html`.
#[derive(Debug)]
pub struct SyntheticSitemap {
    entries: usize,
    entry_len: usize,
    /// Entries produced so far.
    next: usize,
    /// The piece being handed out, and how much of it is gone.
    piece: Vec<u8>,
    at: usize,
    /// 0: header next, 1: entries, 2: footer handed out.
    stage: u8,
}

impl SyntheticSitemap {
    /// The shortest entry made: 436 bytes of markup (a ten-digit item
    /// number, three alternates, the comment's ends) and 12 of padding.
    pub const MIN_ENTRY_LEN: usize = 448;

    pub fn new(entries: usize, entry_len: usize) -> Self {
        SyntheticSitemap {
            entries,
            entry_len: entry_len.max(Self::MIN_ENTRY_LEN),
            next: 0,
            piece: Vec::new(),
            at: 0,
            stage: 0,
        }
    }

    /// The length of the whole file, in bytes.
    pub fn total_bytes(&self) -> u64 {
        (HEADER.len() + FOOTER.len()) as u64 + (self.entries as u64) * (self.entry_len as u64)
    }

    /// The length of one entry, in bytes.
    pub fn entry_len(&self) -> usize {
        self.entry_len
    }

    fn refill(&mut self) {
        self.piece.clear();
        self.at = 0;
        if self.stage == 0 {
            self.stage = 1;
            self.piece.extend_from_slice(HEADER.as_bytes());
        } else if self.next < self.entries {
            let i = self.next;
            self.next += 1;
            let page = format!("catalogue/item-{i:010}.html");
            let mut entry = format!(
                "<url><loc>https://www.example.com/{page}</loc><lastmod>2024-06-01</lastmod>"
            );
            for lang in ["de", "fr", "es"] {
                entry.push_str(&format!(
                    "<xhtml:link rel=\"alternate\" hreflang=\"{lang}\" \
                     href=\"https://www.example.com/{lang}/{page}\"/>"
                ));
            }
            const CLOSE: &str = "--></url>";
            entry.push_str("<!--");
            let pad = self.entry_len.saturating_sub(entry.len() + CLOSE.len());
            entry.extend(std::iter::repeat_n(' ', pad));
            entry.push_str(CLOSE);
            self.piece = entry.into_bytes();
        } else if self.stage == 1 {
            self.stage = 2;
            self.piece.extend_from_slice(FOOTER.as_bytes());
        }
    }
}

impl Read for SyntheticSitemap {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.piece.len() {
            self.refill();
        }
        let n = buf.len().min(self.piece.len() - self.at);
        buf[..n].copy_from_slice(&self.piece[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
