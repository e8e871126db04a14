//! A rules or config file's bytes as text. UTF-8 is the rule; a file with
//! a byte-order mark is read in the encoding the mark names (UTF-16 is what
//! Windows PowerShell's `>` writes, so `crawlspace import … > rules.toml`
//! there gives one), and an XML file (Exalead) in the encoding its
//! `<?xml … encoding="…"?>` declaration names (UTF-16 without a mark told
//! by its `<?`, as XML 1.0 Appendix F does). Anything else that is not
//! UTF-8 is refused at the line of its first bad byte: guessing a legacy
//! encoding would turn a pattern into one that matches other URLs.

use encoding_rs::{Encoding, UTF_8};

use crate::rules::error::{RuleFileError, line_of_offset};

/// The text of `bytes`, read from `file`, as described above.
pub fn decode(file: &str, bytes: &[u8]) -> Result<String, RuleFileError> {
    let refused = |line: usize, message: String| RuleFileError {
        file: file.to_string(),
        line,
        message,
    };
    // The whole of `body` in `encoding`; else `refusal`, at the line of
    // the first bad sequence.
    let whole = |encoding: &'static Encoding, body: &[u8], refusal: String| match encoding
        .decode_without_bom_handling_and_without_replacement(body)
    {
        Some(text) => Ok(text.into_owned()),
        None => {
            let (lossy, _) = encoding.decode_without_bom_handling(body);
            let at = lossy.find('\u{fffd}').unwrap_or(0);
            Err(refused(line_of_offset(&lossy, at), refusal))
        }
    };
    if let Some((encoding, mark)) = Encoding::for_bom(bytes) {
        let refusal = format!(
            "the file starts with a {} byte-order mark but is not valid {0} from this line",
            encoding.name()
        );
        return whole(encoding, &bytes[mark..], refusal);
    }
    // XML in UTF-16 without a mark (XML 1.0 Appendix F): `<?` in two-byte
    // units. Valid UTF-8 as it is (NUL bytes), and unreadable as such.
    let unmarked = match bytes {
        [0x3C, 0, 0x3F, 0, ..] => Some(encoding_rs::UTF_16LE),
        [0, 0x3C, 0, 0x3F, ..] => Some(encoding_rs::UTF_16BE),
        _ => None,
    };
    if let Some(encoding) = unmarked {
        let refusal = format!(
            "the file starts `<?` in {} but is not valid {0} from this line",
            encoding.name()
        );
        return whole(encoding, bytes, refusal);
    }
    let utf8_error = match std::str::from_utf8(bytes) {
        Ok(text) => return Ok(text.to_string()),
        Err(e) => e,
    };
    // An encoding the declaration itself could be read in: ASCII-based
    // (UTF-16 needs its mark; `replacement` decodes nothing).
    if let Some(label) = xml_declared_encoding(bytes)
        && let Some(encoding) = Encoding::for_label(label.as_bytes())
        && encoding != UTF_8
        && encoding.is_ascii_compatible()
        && encoding.name() != "replacement"
    {
        let refusal = format!(
            "not valid {} as its XML declaration says, from this line",
            encoding.name()
        );
        return whole(encoding, bytes, refusal);
    }
    let at = utf8_error.valid_up_to();
    let line = line_of_offset(&String::from_utf8_lossy(&bytes[..at]), at);
    let byte = bytes.get(at).copied().unwrap_or_default();
    Err(refused(
        line,
        format!(
            "the file is not valid UTF-8 (byte 0x{byte:02X} on this line): save it as UTF-8, \
             or as UTF-16 with a byte-order mark"
        ),
    ))
}

/// The `encoding` an XML declaration at the start of `bytes` names, if
/// the file starts with one (`<?xml version="1.0" encoding="ISO-8859-1"?>`).
fn xml_declared_encoding(bytes: &[u8]) -> Option<String> {
    // The declaration is ASCII in every encoding it may name but UTF-16's
    // (which needs its mark, above); 200 bytes hold any real one.
    let head = &bytes[..bytes.len().min(200)];
    let head: String = head.iter().map(|&b| char::from(b)).collect();
    let declaration = head.trim_start().strip_prefix("<?xml")?;
    let declaration = &declaration[..declaration.find("?>")?];
    let after = &declaration[declaration.find("encoding")? + "encoding".len()..];
    let after = after.trim_start().strip_prefix('=')?.trim_start();
    let quote = after.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = &after[1..];
    Some(value[..value.find(quote)?].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16le(text: &str) -> Vec<u8> {
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        bytes
    }

    #[test]
    fn utf8_and_marked_utf16_are_read() {
        assert_eq!(
            decode("f", "allow domain é.com\n".as_bytes()).unwrap(),
            "allow domain é.com\n"
        );
        assert_eq!(
            decode("f", b"\xEF\xBB\xBFforbid domain *\n").unwrap(),
            "forbid domain *\n"
        );
        assert_eq!(
            decode("f", &utf16le("[[rules]]\nname = \"é\"\n")).unwrap(),
            "[[rules]]\nname = \"é\"\n"
        );
        let mut big_endian = vec![0xFE, 0xFF];
        big_endian.extend("+^http\n".encode_utf16().flat_map(u16::to_be_bytes));
        assert_eq!(decode("f", &big_endian).unwrap(), "+^http\n");
    }

    /// XML in UTF-16 without a byte-order mark, either way round, as XML
    /// 1.0 Appendix F tells it by its `<?`.
    #[test]
    fn unmarked_utf16_xml_is_read() {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<Rules p=\"é\"/>\n";
        let little: Vec<u8> = xml.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let big: Vec<u8> = xml.encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert_eq!(decode("f.xml", &little).unwrap(), xml);
        assert_eq!(decode("f.xml", &big).unwrap(), xml);
        let mut broken = little.clone();
        broken.extend([0x00, 0xD8, 0x41, 0x00]);
        let err = decode("f.xml", &broken).unwrap_err();
        assert_eq!(err.line, 3);
        assert!(
            err.message
                .contains("starts `<?` in UTF-16LE but is not valid UTF-16LE"),
            "{}",
            err.message
        );
    }

    #[test]
    fn an_xml_file_is_read_in_the_encoding_it_declares() {
        let latin1 = b"<?xml version=\"1.0\" encoding='ISO-8859-1'?>\n<r p=\"caf\xE9\"/>\n";
        assert_eq!(
            decode("f.xml", latin1).unwrap(),
            "<?xml version=\"1.0\" encoding='ISO-8859-1'?>\n<r p=\"café\"/>\n"
        );
    }

    #[test]
    fn other_bytes_are_refused_at_their_line() {
        let err = decode(
            "rules.cfg",
            b"include_patterns=/a\nexclude_patterns=/caf\xE9\n",
        )
        .unwrap_err();
        assert_eq!(err.line, 2);
        assert!(
            err.message.contains("not valid UTF-8 (byte 0xE9"),
            "{}",
            err.message
        );
        // UTF-16 with a broken surrogate after its mark.
        let mut bytes = utf16le("a\nb\n");
        bytes.extend([0x00, 0xD8, 0x41, 0x00]);
        let err = decode("f", &bytes).unwrap_err();
        assert_eq!(err.line, 3);
        assert!(
            err.message.contains("UTF-16LE byte-order mark"),
            "{}",
            err.message
        );
        // An encoding the declaration names that the bytes are not.
        let err = decode(
            "f.xml",
            b"<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><r p=\"\x82\"/>",
        )
        .unwrap_err();
        assert!(
            err.message.contains("as its XML declaration says"),
            "{}",
            err.message
        );
        assert_eq!(err.line, 1);
        // A declaration of UTF-16 without its mark: not taken at its word.
        let err = decode(
            "f.xml",
            b"<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<r p=\"\xE9\"/>",
        )
        .unwrap_err();
        assert!(err.message.contains("not valid UTF-8"), "{}", err.message);
        assert_eq!(err.line, 2);
    }
}
