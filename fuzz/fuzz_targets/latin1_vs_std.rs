//! Latin-1 ⇄ UTF-8 and character counting agree with std: Latin-1 bytes are
//! the chars U+0000..=U+00FF; UTF-8 → Latin-1 fails at the first problem in
//! input order (invalid UTF-8 or a character above U+00FF). Every engine the
//! CPU has is also forced (`_with(kernel, ..)`) and compared with std, with
//! exact-size buffers and a guard byte, on the input itself, on the UTF-8 of
//! the input read as Latin-1 (valid, so the SIMD fast paths run far), and on
//! that text with one byte overwritten.
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8kit::Kernel;
use utf8kit::transcode::{self, Latin1Error, TranscodeError};

const GUARD: u8 = 0xA5;

/// std's UTF-8 → Latin-1: the first problem in input order.
fn std_utf8_to_latin1(data: &[u8]) -> Result<Vec<u8>, Latin1Error> {
    let (valid, error) = match core::str::from_utf8(data) {
        Ok(s) => (s, None),
        Err(e) => (
            core::str::from_utf8(&data[..e.valid_up_to()]).expect("valid prefix"),
            Some(e),
        ),
    };
    if let Some((offset, ch)) = valid.char_indices().find(|&(_, c)| u32::from(c) > 0xFF) {
        return Err(Latin1Error::Unrepresentable { offset, ch });
    }
    match error {
        None => Ok(valid.chars().map(|c| u32::from(c) as u8).collect()),
        Some(e) => {
            let ours = utf8kit::validate(data).expect_err("std says invalid");
            assert_eq!(
                (ours.valid_up_to(), ours.error_len()),
                (e.valid_up_to(), e.error_len())
            );
            Err(Latin1Error::InvalidUtf8(ours))
        }
    }
}

/// Every forced engine on `data` as Latin-1 and as UTF-8, against std.
fn check_engines(data: &[u8]) {
    let utf8: String = data.iter().map(|&b| char::from(b)).collect();
    let want = std_utf8_to_latin1(data);
    for kernel in Kernel::available() {
        // Latin-1 → UTF-8, exact size with a guard, then one byte short.
        let n = utf8.len();
        assert_eq!(transcode::utf8_len_from_latin1_with(kernel, data), Some(n));
        let mut out = vec![GUARD; n + 1];
        let got = transcode::latin1_to_utf8_with(kernel, data, &mut out[..n]);
        assert_eq!(got, Some(Ok(n)), "{kernel:?}");
        assert_eq!(&out[..n], utf8.as_bytes(), "{kernel:?}");
        assert_eq!(out[n], GUARD, "{kernel:?} wrote past the output");
        // A larger buffer: nothing written past the output either.
        let mut big = vec![GUARD; n + 130];
        let got = transcode::latin1_to_utf8_with(kernel, data, &mut big);
        assert_eq!(got, Some(Ok(n)), "{kernel:?}");
        assert!(
            big[n..].iter().all(|&b| b == GUARD),
            "{kernel:?} wrote past the output"
        );
        if n > 0 {
            out.fill(GUARD);
            let got = transcode::latin1_to_utf8_with(kernel, data, &mut out[..n - 1]);
            assert_eq!(got, Some(Err(TranscodeError::BufferTooSmall { needed: n })));
            assert_eq!(out[n - 1], GUARD, "{kernel:?} wrote past the output");
        }

        // UTF-8 → Latin-1.
        match &want {
            Ok(latin1) => {
                let n = latin1.len();
                let text = core::str::from_utf8(data).expect("valid");
                assert_eq!(transcode::latin1_len_from_utf8_with(kernel, text), Some(n));
                let mut out = vec![GUARD; n + 1];
                let got = transcode::utf8_to_latin1_with(kernel, data, &mut out[..n]);
                assert_eq!(got, Some(Ok(n)), "{kernel:?}");
                assert_eq!(&out[..n], &latin1[..], "{kernel:?}");
                assert_eq!(out[n], GUARD, "{kernel:?} wrote past the output");
                let mut big = vec![GUARD; n + 130];
                let got = transcode::utf8_to_latin1_with(kernel, data, &mut big);
                assert_eq!(got, Some(Ok(n)), "{kernel:?}");
                assert!(
                    big[n..].iter().all(|&b| b == GUARD),
                    "{kernel:?} wrote past the output"
                );
                let got = transcode::valid_utf8_to_latin1_with(kernel, text, &mut big);
                assert_eq!(got, Some(Ok(n)), "{kernel:?}");
                assert_eq!(&big[..n], &latin1[..], "{kernel:?}");
                assert!(
                    big[n..].iter().all(|&b| b == GUARD),
                    "{kernel:?} wrote past the output"
                );
                if n > 0 {
                    out.fill(GUARD);
                    let got = transcode::utf8_to_latin1_with(kernel, data, &mut out[..n - 1]);
                    assert_eq!(got, Some(Err(TranscodeError::BufferTooSmall { needed: n })));
                    assert_eq!(out[n - 1], GUARD, "{kernel:?} wrote past the output");
                }
            }
            Err(e) => {
                let mut out = vec![GUARD; data.len() + 1];
                let got = transcode::utf8_to_latin1_with(kernel, data, &mut out[..data.len()]);
                assert_eq!(got, Some(Err(TranscodeError::Invalid(*e))), "{kernel:?}");
                assert_eq!(out[data.len()], GUARD, "{kernel:?} wrote past the output");
                if let Ok(text) = core::str::from_utf8(data) {
                    let got =
                        transcode::valid_utf8_to_latin1_with(kernel, text, &mut out[..data.len()]);
                    assert_eq!(got, Some(Err(TranscodeError::Invalid(*e))), "{kernel:?}");
                    assert_eq!(out[data.len()], GUARD, "{kernel:?} wrote past the output");
                }
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check_engines(data);
    let mut text: Vec<u8> = data
        .iter()
        .map(|&b| char::from(b))
        .collect::<String>()
        .into_bytes();
    check_engines(&text);
    if let [a, b, c, ..] = *data
        && !text.is_empty()
    {
        let at = (usize::from(a) << 8 | usize::from(b)) % text.len();
        text[at] = c;
        check_engines(&text);
    }

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

    // UTF-8 → Latin-1, dispatched.
    let want = std_utf8_to_latin1(data);
    assert_eq!(transcode::utf8_to_latin1(data), want);
    if let (Ok(latin1), Ok(text)) = (&want, core::str::from_utf8(data)) {
        assert_eq!(transcode::latin1_len_from_utf8(text), latin1.len());
    }

    // Counting.
    if let Ok(s) = core::str::from_utf8(data) {
        assert_eq!(transcode::count_chars(s), s.chars().count());
    }
});
