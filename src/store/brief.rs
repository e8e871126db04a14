//! A record's leading fields without the rest: what a walk over every URL
//! needs (the console's what-if) at a fraction of the cost of decoding
//! whole records with their traces. It reads the same bytes as
//! [`super::record::decode`], stopping after `content_type`; postcard writes
//! fields in declaration order, so [`Brief`]'s layout must stay the prefix
//! of `UrlRecord`'s (a test below checks it against real records).

use serde::Deserialize;

use super::record::{DecodeError, State, header_state};

/// The leading fields of a record, borrowed from the stored bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Brief<'a> {
    pub url: &'a str,
    pub state: State,
    pub link_depth: u32,
    pub content_type: Option<&'a str>,
}

/// `UrlRecord`'s fields up to `content_type`, in its order.
#[derive(Deserialize)]
#[allow(dead_code)] // fields read only to move past them
struct Prefix<'a> {
    url: &'a str,
    state: State,
    reason: &'a str,
    fetch: bool,
    save: bool,
    follow: bool,
    filtered: bool,
    queue: &'a str,
    priority: i8,
    link_depth: u32,
    referrer: Option<u64>,
    discovered_ms: u64,
    fetched_ms: Option<u64>,
    status: Option<u16>,
    content_type: Option<&'a str>,
}

/// The brief of a stored record.
pub(crate) fn decode_brief(bytes: &[u8]) -> Result<Brief<'_>, DecodeError> {
    header_state(bytes)?;
    let (p, _rest) = postcard::take_from_bytes::<Prefix<'_>>(bytes.get(2..).unwrap_or_default())
        .map_err(|e| DecodeError::Body(e.to_string()))?;
    Ok(Brief {
        url: p.url,
        state: p.state,
        link_depth: p.link_depth,
        content_type: p.content_type,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::record::encode;
    use crate::store::{ErrorClass, ErrorInfo, TraceLine, UrlRecord};

    #[test]
    fn a_brief_is_the_prefix_of_the_whole_record() {
        let full = UrlRecord {
            url: "http://h/a?b=1".into(),
            state: State::Saved,
            reason: "saved".into(),
            fetch: true,
            queue: "index".into(),
            priority: -2,
            link_depth: 7,
            referrer: Some(3),
            discovered_ms: 12,
            fetched_ms: Some(13),
            status: Some(200),
            content_type: Some("text/html".into()),
            size: Some(10),
            error: Some(ErrorInfo {
                class: ErrorClass::Temporary,
                count: 1,
                message: "x".into(),
            }),
            trace: vec![TraceLine::default()],
            ..UrlRecord::default()
        };
        let bare = UrlRecord {
            url: "http://h/".into(),
            ..UrlRecord::default()
        };
        for record in [full, bare] {
            let bytes = encode(&record).expect("encode");
            let brief = decode_brief(&bytes).expect("brief");
            assert_eq!(brief.url, record.url);
            assert_eq!(brief.state, record.state);
            assert_eq!(brief.link_depth, record.link_depth);
            assert_eq!(brief.content_type, record.content_type.as_deref());
        }
        assert!(decode_brief(&[]).is_err());
        assert!(decode_brief(&[99, 0, 1]).is_err());
    }
}
