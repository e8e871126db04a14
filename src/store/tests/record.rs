//! State names, frontier slots, the `log --json` export and the record
//! formats read.

use super::*;

#[test]
fn state_names_round_trip() {
    for state in State::ALL {
        assert_eq!(state.name().parse::<State>(), Ok(state));
        assert_eq!(State::from_byte(state.byte()), Some(state));
    }
    assert_eq!("IN_FLIGHT".parse::<State>(), Ok(State::InFlight));
    assert!("fetching".parse::<State>().is_err());
    assert_eq!(State::from_byte(7), None);
    assert_eq!(ErrorClass::Temporary.name(), "temporary");
    assert_eq!(ErrorClass::Permanent.name(), "permanent");
}

#[test]
fn frontier_slots_follow_spec_order() {
    let cases = [
        (-2, "user", (0, 0)),
        (-5, "redirect", (0, 1)),
        (0, "index", (2, 2)),
        (1, "index_follow", (3, 3)),
        (2, "follow", (4, 4)),
        (9, "refresh", (4, 5)),
        (0, "none", (2, 4)),
        (0, "", (2, 4)),
    ];
    for (priority, queue, slot) in cases {
        assert_eq!(frontier_slot(priority, queue), slot, "{priority} {queue}");
    }
}

#[test]
fn export_json_has_the_log_keys() {
    let value = export_json(&rich("http://j/"), 12);
    assert_eq!(value["id"], 12);
    assert_eq!(value["url"], "http://j/");
    assert_eq!(value["state"], "error");
    assert_eq!(value["status"], 503);
    assert_eq!(value["reason"], "HTTP 503, retry 2 of 3");
    assert_eq!(value["error"]["class"], "temporary");
    assert_eq!(value["error"]["count"], 2);
    assert_eq!(value["trace"][0]["rule"], "3.2");
    assert_eq!(value["trace"][1]["line"], 4);
    // An entry no file line holds (a crawler layer) has a null line.
    let mut record = rich("http://j/");
    record.trace.push(TraceLine {
        rule: "start".into(),
        name: "start".into(),
        line: 0,
        step: "matched".into(),
        detail: "a start URL".into(),
    });
    let layered = export_json(&record, 12);
    assert!(layered["trace"][2]["line"].is_null(), "{layered}");
    assert_eq!(value["meta"][1]["value"], "fr");
    assert_eq!(value["priority"], -2);
    assert_eq!(value["referrer"], 42);
    assert!(value["redirect_to"].is_null());
    assert_eq!(value["title"], "Staff pages");
    assert!(
        value["excerpt"]
            .as_str()
            .is_some_and(|e| e.contains("noindex"))
    );
    let mut bare = rec("http://j/2", State::InFlight);
    bare.status = None;
    let value = export_json(&bare, 1);
    assert_eq!(value["state"], "in-flight");
    assert!(value["status"].is_null());
    assert!(value["error"].is_null());
    // Every record field is exported.
    let fields = serde_json::to_value(UrlRecord::default()).unwrap();
    for key in fields.as_object().unwrap().keys() {
        assert!(value.get(key).is_some(), "missing {key}");
    }
}

/// A record of format 2 (written before `address`: the same bytes without
/// the last field's) reads as the record with no address; format 3 keeps
/// an address of either family; other formats are refused.
#[test]
fn format_2_records_read_without_an_address() {
    use crate::store::record::{FORMAT, FORMAT_WITHOUT_ADDRESS, decode, encode};
    let record = rich("http://h/older");
    let bytes = encode(&record).expect("encode");
    assert_eq!((bytes[0], bytes.last()), (FORMAT, Some(&0)), "None last");
    let mut older = bytes[..bytes.len() - 1].to_vec();
    older[0] = FORMAT_WITHOUT_ADDRESS;
    assert_eq!(decode(&older), Ok(record.clone()));
    // What an address costs a record: `None` is one byte; an IPv4
    // address five more (the `Some`, the variant and its four bytes).
    let with_v4 = encode(&UrlRecord {
        address: Some([10, 1, 2, 3].into()),
        ..record.clone()
    })
    .expect("encode");
    assert_eq!(with_v4.len(), bytes.len() + 5);
    for address in ["10.1.2.3", "fe80::1"] {
        let with = UrlRecord {
            address: Some(address.parse().expect("an address")),
            ..record.clone()
        };
        assert_eq!(decode(&encode(&with).expect("encode")), Ok(with));
    }
    // Format 2 bytes with an address on the end are not a format 2 record.
    let mut trailing = encode(&UrlRecord {
        address: Some("10.1.2.3".parse().expect("an address")),
        ..record.clone()
    })
    .expect("encode");
    trailing[0] = FORMAT_WITHOUT_ADDRESS;
    assert!(decode(&trailing).is_err());
    let mut newer = bytes.clone();
    newer[0] = FORMAT + 1;
    assert_eq!(decode(&newer), Err(DecodeError::Format(FORMAT + 1)));
    let value = export_json(
        &UrlRecord {
            address: Some("10.1.2.3".parse().expect("an address")),
            ..record
        },
        1,
    );
    assert_eq!(value["address"], "10.1.2.3");
}

/// `update` checks a record keeps its URL from the stored body's leading
/// URL: read without decoding, for URLs of any length, and `None` (so the
/// URL index decides) when the bytes are cut short.
#[test]
fn the_stored_url_is_read_from_the_front_of_the_body() {
    use crate::store::record::{encode, stored_url};
    for len in [0, 1, 127, 128, 300, 20_000] {
        let url = format!("http://h/{}", "a".repeat(len));
        let record = UrlRecord {
            url: url.clone(),
            reason: "r".into(),
            ..UrlRecord::default()
        };
        let bytes = encode(&record).expect("encode");
        assert_eq!(stored_url(&bytes), Some(url.as_bytes()));
        assert_eq!(stored_url(&bytes[..2 + url.len()]), None, "cut at {len}");
    }
    assert_eq!(stored_url(&[]), None);
    assert_eq!(stored_url(&[2, 0]), None);
    assert_eq!(stored_url(&[2, 0, 0xff, 0xff]), None);
}

/// A record's size in memory counts the text it holds: a rich record
/// (title, excerpt, meta, a long trace) weighs more than a bare one, by
/// at least its text.
#[test]
fn approx_size_counts_the_text() {
    let bare = rec("http://a/", State::Queued);
    let full = rich("http://a/");
    assert!(bare.approx_size() >= std::mem::size_of::<UrlRecord>() + "http://a/".len());
    let text: usize = [&full.title, &full.excerpt]
        .into_iter()
        .map(|t| t.as_ref().map_or(0, String::len))
        .sum();
    assert!(text > 0, "the rich record has a title or an excerpt");
    assert!(full.approx_size() >= bare.approx_size() + text);
}
