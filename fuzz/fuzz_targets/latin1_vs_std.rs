//! Latin-1 ⇄ UTF-8 and character counting agree with std: Latin-1 bytes are
//! the chars U+0000..=U+00FF; UTF-8 → Latin-1 fails at the first problem in
//! input order (invalid UTF-8 or a character above U+00FF).
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8kit::transcode::{self, Latin1Error, TranscodeError};

fuzz_target!(|data: &[u8]| {
    // Latin-1 → UTF-8: every byte is a char.
    let expected: String = data.iter().map(|&b| char::from(b)).collect();
    assert_eq!(transcode::latin1_to_utf8(data), expected);
    assert_eq!(transcode::utf8_len_from_latin1(data), expected.len());
    let mut out = vec![0xA5_u8; expected.len() + 1];
    assert_eq!(
        transcode::latin1_to_utf8_into(data, &mut out[..expected.len()]),
        Ok(expected.len())
    );
    assert_eq!(&out[..expected.len()], expected.as_bytes());
    assert_eq!(out[expected.len()], 0xA5, "wrote past the output");
    if !expected.is_empty() {
        let short = expected.len() - 1;
        assert_eq!(
            transcode::latin1_to_utf8_into(data, &mut out[..short]),
            Err(TranscodeError::BufferTooSmall {
                needed: expected.len()
            })
        );
    }

    // UTF-8 → Latin-1.
    let (valid, utf8_error) = match core::str::from_utf8(data) {
        Ok(s) => (s, None),
        Err(e) => (
            core::str::from_utf8(&data[..e.valid_up_to()]).expect("valid prefix"),
            Some(e),
        ),
    };
    let unrepresentable = valid.char_indices().find(|&(_, c)| u32::from(c) > 0xFF);
    match (transcode::utf8_to_latin1(data), unrepresentable, utf8_error) {
        (Err(Latin1Error::Unrepresentable { offset, ch }), Some((at, c)), _) => {
            assert_eq!((offset, ch), (at, c));
        }
        (Err(Latin1Error::InvalidUtf8(err)), None, Some(e)) => {
            assert_eq!(
                (err.valid_up_to(), err.error_len()),
                (e.valid_up_to(), e.error_len())
            );
        }
        (Ok(bytes), None, None) => {
            let expected: Vec<u8> = valid.chars().map(|c| u32::from(c) as u8).collect();
            assert_eq!(bytes, expected);
            assert_eq!(transcode::latin1_len_from_utf8(valid), expected.len());
        }
        (got, u, e) => panic!("got {got:?}, expected unrepresentable {u:?} / utf-8 error {e:?}"),
    }

    // Counting.
    if let Ok(s) = core::str::from_utf8(data) {
        assert_eq!(transcode::count_chars(s), s.chars().count());
    }
});
