use super::*;

#[test]
fn a_run_gives_back_what_was_pushed() {
    let entries = [
        (5, 0, "http://h/"),
        (6, 1, "http://h/a/b"),
        (7, 1, "http://h/a/c?x=1"),
        (9, 2, "http://other/ü"),
        (10, 70_000, ""),
    ];
    let mut writer = RunWriter::default();
    for (id, depth, url) in entries {
        writer.push(id, depth, url);
    }
    let (key, bytes) = writer.finish().expect("a run");
    assert_eq!(parse_run_key(&key), Some(5));
    let mut reader = RunReader::new(5, &bytes);
    let mut got = Vec::new();
    while let Some((id, depth, url)) = reader.next_entry() {
        got.push((id, depth, url.to_string()));
    }
    let want: Vec<_> = entries
        .iter()
        .map(|(i, d, u)| (*i, *d, u.to_string()))
        .collect();
    assert_eq!(got, want);
    assert!(RunWriter::default().finish().is_none());
}

#[test]
fn damaged_runs_end_early_without_panicking() {
    let mut writer = RunWriter::default();
    writer.push(1, 0, "http://h/a");
    writer.push(2, 0, "http://h/b");
    let (_, bytes) = writer.finish().expect("a run");
    for cut in 0..bytes.len() {
        let mut reader = RunReader::new(1, &bytes[..cut]);
        let mut n = 0;
        while reader.next_entry().is_some() {
            n += 1;
        }
        assert!(n <= 1, "cut at {cut}");
    }
    // Random bytes: any outcome but a panic.
    let mut seed = 7u64;
    for _ in 0..2000 {
        let noise: Vec<u8> = (0..40)
            .map(|_| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                (seed >> 33) as u8
            })
            .collect();
        let mut reader = RunReader::new(u64::MAX - 3, &noise);
        while reader.next_entry().is_some() {}
    }
}

#[test]
fn status_blocks_and_content_type_codes() {
    let mut block = empty_block();
    assert_eq!(get_status(&block, 300), None);
    assert!(set_status(&mut block, 300, State::Saved, 3));
    assert!(!set_status(&mut block, 300, State::Saved, 3), "no change");
    assert_eq!(get_status(&block, 300), Some((State::Saved, 3)));
    assert_eq!(get_status(&block, 301), None);
    assert_eq!(status_key(300), status_key(511));
    assert_ne!(status_key(300), status_key(512));
    let mut short = vec![1, 2];
    assert!(set_status(&mut short, 3, State::Queued, 0));
    assert_eq!(short.len(), 512);

    let mut table = Vec::new();
    assert_eq!(code_adding(&mut table, None), (0, false));
    assert_eq!(code_adding(&mut table, Some("text/html")), (1, true));
    assert_eq!(code_adding(&mut table, Some("text/html")), (1, false));
    assert_eq!(
        code_adding(&mut table, Some("a\nb")),
        (CODE_IN_RECORD, false)
    );
    let table = parse_table(&encode_table(&table));
    assert_eq!(type_of(&table, 1), Ok(Some("text/html")));
    assert_eq!(type_of(&table, 0), Ok(None));
    assert_eq!(type_of(&table, 2), Err(()));
    assert_eq!(type_of(&table, CODE_IN_RECORD), Err(()));
    let mut full: Vec<String> = (0..TABLE_MAX).map(|i| format!("t/{i}")).collect();
    assert_eq!(code_adding(&mut full, Some("t/253")), (254, false));
    assert_eq!(
        code_adding(&mut full, Some("new/one")),
        (CODE_IN_RECORD, false)
    );
}

/// A damaged content-type table read back longer than the codes allow
/// gives no code to its extra lines: line 255 would be `CODE_IN_RECORD`,
/// line 256 would wrap to 0 ("no content type").
#[test]
fn lines_past_the_table_limit_have_no_code() {
    let table: Vec<String> = (0..300).map(|i| format!("type/{i}")).collect();
    assert_eq!(known_code(&table, Some("type/0")), Some(1));
    assert_eq!(known_code(&table, Some("type/253")), Some(254));
    assert_eq!(known_code(&table, Some("type/254")), None);
    assert_eq!(known_code(&table, Some("type/255")), None);
}
