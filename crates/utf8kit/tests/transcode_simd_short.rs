//! The one-block short paths of the SIMD transcoders and counts, forced
//! kernel by kernel, against std: UTF-16 → UTF-8 (up to 32 units in one
//! step), UTF-8 → UTF-32 (an ASCII input up to 64 bytes in one step) and
//! `count_chars` (one `popcnt` per 64 bytes up to 2 KiB), at every length
//! 0..=130 with a non-ASCII character, an unpaired surrogate or an invalid
//! byte at every position; and the large-output ASCII path of UTF-8 →
//! UTF-32 (output aligned, then non-temporal stores) at several output
//! alignments. Output buffers are exact, with a guard element after them,
//! or one element short.

use utf8kit::Kernel;
use utf8kit::transcode::{self as t, TranscodeError, Utf16Error};

const GUARD8: u8 = 0xA5;
const GUARD32: u32 = 0xA5A5_A5A5;

/// The longest inputs checked at every position.
const MAX_LEN: usize = 130;

/// Checks UTF-16 → UTF-8 (native, LE, BE, lossy) under every kernel on
/// `units` against std.
fn check_utf16(units: &[u16]) {
    let want = String::from_utf16(units);
    let lossy = String::from_utf16_lossy(units);
    let le: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
    let be: Vec<u8> = units.iter().flat_map(|u| u.to_be_bytes()).collect();
    for kernel in Kernel::available() {
        let ctx = || format!("{kernel}, {units:04X?}");
        match &want {
            Ok(s) => {
                let n = s.len();
                let mut out = vec![GUARD8; n + 1];
                for name in ["native", "LE", "BE"] {
                    let got = match name {
                        "native" => t::utf16_to_utf8_with(kernel, units, &mut out[..n]),
                        "LE" => t::utf16le_to_utf8_with(kernel, &le, &mut out[..n]),
                        _ => t::utf16be_to_utf8_with(kernel, &be, &mut out[..n]),
                    };
                    assert_eq!(got, Some(Ok(n)), "{name} {}", ctx());
                    assert_eq!(&out[..n], s.as_bytes(), "{name} {}", ctx());
                    assert_eq!(out[n], GUARD8, "{name} {}: wrote past the end", ctx());
                    out.fill(GUARD8);
                }
                if n > 0 {
                    let mut short = vec![GUARD8; n];
                    let got = t::utf16_to_utf8_with(kernel, units, &mut short[..n - 1]);
                    assert_eq!(
                        got,
                        Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                        "{}",
                        ctx()
                    );
                    assert_eq!(short[n - 1], GUARD8, "{}: wrote past the end", ctx());
                    let got = t::utf16le_to_utf8_with(kernel, &le, &mut short[..n - 1]);
                    assert_eq!(
                        got,
                        Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                        "LE {}",
                        ctx()
                    );
                    assert_eq!(short[n - 1], GUARD8, "LE {}: wrote past the end", ctx());
                }
            }
            Err(_) => {
                // The first unpaired surrogate, as the scalar scan finds it.
                let index = first_unpaired(units).expect("std says there is one");
                let want = Err(TranscodeError::Invalid(Utf16Error::UnpairedSurrogate {
                    index,
                    unit: units[index],
                }));
                let mut out = vec![GUARD8; 3 * units.len() + 1];
                let got = t::utf16_to_utf8_with(kernel, units, &mut out);
                assert_eq!(got, Some(want), "{}", ctx());
                let got = t::utf16le_to_utf8_with(kernel, &le, &mut out);
                assert_eq!(got, Some(want), "LE {}", ctx());
                let got = t::utf16be_to_utf8_with(kernel, &be, &mut out);
                assert_eq!(got, Some(want), "BE {}", ctx());
            }
        }
        let n = lossy.len();
        let mut out = vec![GUARD8; n + 1];
        let got = t::utf16_to_utf8_lossy_with(kernel, units, &mut out[..n]);
        assert_eq!(got, Some(n), "lossy {}", ctx());
        assert_eq!(&out[..n], lossy.as_bytes(), "lossy {}", ctx());
        assert_eq!(out[n], GUARD8, "lossy {}: wrote past the end", ctx());
    }
    let mut out = vec![GUARD8; 3 * units.len()];
    match &want {
        Ok(s) => assert_eq!(t::utf16_to_utf8_into(units, &mut out), Ok(s.len())),
        Err(_) => assert!(t::utf16_to_utf8_into(units, &mut out).is_err()),
    }
}

/// The index of the first unpaired surrogate of `units`.
fn first_unpaired(units: &[u16]) -> Option<usize> {
    let mut i = 0;
    while let Some(&u) = units.get(i) {
        match u {
            0xD800..=0xDBFF if matches!(units.get(i + 1), Some(0xDC00..=0xDFFF)) => i += 2,
            0xD800..=0xDFFF => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Every length 0..=130 of ASCII units, with each of a 2-byte, a 3-byte
/// and a 4-byte character (a pair), an unpaired high and an unpaired low
/// surrogate at every position.
#[test]
fn utf16_to_utf8_every_length_and_position() {
    for len in 0..=MAX_LEN {
        let base: Vec<u16> = (0..len).map(|i| u16::from(b'a' + (i % 26) as u8)).collect();
        check_utf16(&base);
        for at in 0..len {
            for special in [
                &[0xE9][..],
                &[0x20AC],
                &[0xD83D, 0xDE00],
                &[0xD800],
                &[0xDFFF],
            ] {
                let mut u = base.clone();
                u.truncate(at);
                u.extend_from_slice(special);
                u.extend(base.iter().skip(at + special.len()));
                check_utf16(&u);
            }
        }
    }
}

/// Short inputs of only non-ASCII characters (every step class), and an
/// unpaired surrogate right after them.
#[test]
fn utf16_to_utf8_short_non_ascii() {
    for len in 0..=40 {
        for c in ['é', '€', '😀'] {
            let s: String = std::iter::repeat_n(c, len).collect();
            let mut u: Vec<u16> = s.encode_utf16().collect();
            check_utf16(&u);
            u.push(0xDBFF);
            check_utf16(&u);
        }
    }
}

/// Inputs of up to 130 units made of runs of one class each (ASCII,
/// 2-byte, 3-byte, pairs) in every order, so that the masked path meets
/// every class after every other at block boundaries and inside blocks,
/// with a character of another class or an unpaired surrogate at every
/// third position; the valid ones also into buffers 2 to 8 bytes short (the
/// room runs out in a run of any class).
#[test]
fn utf16_to_utf8_short_runs_of_each_class() {
    const CLASSES: [char; 4] = ['a', 'Ж', '中', '😀'];
    for first in 0..4 {
        for second in 0..4 {
            for run in [5usize, 20, 31, 33, 47] {
                let mut s = String::new();
                let mut k = 0;
                while s.encode_utf16().count() < 130 {
                    let c = CLASSES[[first, second][k % 2]];
                    s.extend(std::iter::repeat_n(c, run));
                    k += 1;
                }
                let units: Vec<u16> = s.encode_utf16().take(130).collect();
                for end in (33..=130).step_by(7).chain([130]) {
                    // A cut through a pair leaves an unpaired high
                    // surrogate at the end: an error case of its own.
                    let u = &units[..end];
                    check_utf16(u);
                    if String::from_utf16(u).is_ok() {
                        check_short_by(u);
                    }
                    for at in (0..end).step_by(3) {
                        for special in [&[0x20AC][..], &[0xE9], &[0xDC00], &[0xD83D, 0xDE00]] {
                            let mut v = u.to_vec();
                            v.splice(at..(at + special.len()).min(end), special.iter().copied());
                            check_utf16(&v);
                        }
                    }
                }
            }
        }
    }
}

/// Checks that every kernel reports `BufferTooSmall` for valid `units` into
/// buffers 2 to 8 bytes short, writing nothing past them.
fn check_short_by(units: &[u16]) {
    let n = String::from_utf16(units).expect("valid").len();
    for kernel in Kernel::available() {
        for short in 2..=8.min(n) {
            let mut out = vec![GUARD8; n];
            let got = t::utf16_to_utf8_with(kernel, units, &mut out[..n - short]);
            assert_eq!(
                got,
                Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                "{kernel}, {short} short, {units:04X?}"
            );
            assert!(
                out[n - short..].iter().all(|&b| b == GUARD8),
                "{kernel}, {short} short: wrote past the end, {units:04X?}"
            );
        }
    }
}

/// `validate`'s error for invalid `bytes`, checked against std's numbers
/// (so the expected error does not come from utf8kit alone).
fn std_checked_error(bytes: &[u8]) -> utf8kit::Utf8Error {
    let std = std::str::from_utf8(bytes).unwrap_err();
    let ours = utf8kit::validate(bytes).unwrap_err();
    assert_eq!(
        (ours.valid_up_to(), ours.error_len()),
        (std.valid_up_to(), std.error_len()),
        "{bytes:02X?}"
    );
    ours
}

/// Checks UTF-8 → UTF-32 under every kernel on `bytes`: std's values into
/// an exact buffer and one value short, or exactly `validate`'s error
/// (checked against std's).
fn check_utf8_to_utf32(bytes: &[u8]) {
    let want: Result<Vec<u32>, _> =
        std::str::from_utf8(bytes).map(|s| s.chars().map(u32::from).collect());
    for kernel in Kernel::available() {
        let ctx = || format!("{kernel}, {bytes:02X?}");
        match &want {
            Ok(values) => {
                let n = values.len();
                let mut out = vec![GUARD32; n + 1];
                let got = t::utf8_to_utf32_with(kernel, bytes, &mut out[..n]);
                assert_eq!(got, Some(Ok(n)), "{}", ctx());
                assert_eq!(&out[..n], &values[..], "{}", ctx());
                assert_eq!(out[n], GUARD32, "{}: wrote past the end", ctx());
                if n > 0 {
                    let mut short = vec![GUARD32; n];
                    let got = t::utf8_to_utf32_with(kernel, bytes, &mut short[..n - 1]);
                    assert_eq!(
                        got,
                        Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                        "{}",
                        ctx()
                    );
                    assert_eq!(&short[..n - 1], &values[..n - 1], "{}", ctx());
                    assert_eq!(short[n - 1], GUARD32, "{}: wrote past the end", ctx());
                }
            }
            Err(_) => {
                let expected = std_checked_error(bytes);
                let mut out = vec![GUARD32; bytes.len() + 1];
                let got = t::utf8_to_utf32_with(kernel, bytes, &mut out[..bytes.len()]);
                assert_eq!(
                    got,
                    Some(Err(TranscodeError::Invalid(expected))),
                    "{}",
                    ctx()
                );
                assert_eq!(out[bytes.len()], GUARD32, "{}: wrote past the end", ctx());
            }
        }
    }
    let mut out = vec![0; bytes.len()];
    match &want {
        Ok(values) => assert_eq!(t::utf8_to_utf32_into(bytes, &mut out), Ok(values.len())),
        Err(_) => assert_eq!(
            t::utf8_to_utf32_into(bytes, &mut out),
            Err(TranscodeError::Invalid(std_checked_error(bytes)))
        ),
    }
}

/// Every length 0..=130 of ASCII, with a 2-, 3- and 4-byte character, a
/// stray continuation byte, an invalid byte, a truncated sequence and a
/// surrogate encoding at every position.
#[test]
fn utf8_to_utf32_every_length_and_position() {
    for len in 0..=MAX_LEN {
        let base: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
        check_utf8_to_utf32(&base);
        for at in 0..len {
            for special in [
                "é".as_bytes(),
                "€".as_bytes(),
                "😀".as_bytes(),
                b"\x80",
                b"\xFF",
                b"\xE2\x82",
                b"\xED\xA0\x80",
            ] {
                let mut b = base.clone();
                b.truncate(at);
                b.extend_from_slice(special);
                b.extend(base.iter().skip(at + special.len()));
                check_utf8_to_utf32(&b);
            }
        }
    }
}

/// Checks `count_chars` under every kernel on `text`.
fn check_count(text: &str) {
    let want = text.chars().count();
    for kernel in Kernel::available() {
        assert_eq!(
            t::count_chars_with(kernel, text),
            Some(want),
            "{kernel}, {} bytes",
            text.len()
        );
    }
    assert_eq!(t::count_chars(text), want);
}

/// Every length 0..=130 of ASCII with a 2-, 3- and 4-byte character at
/// every position; and every length around the end of the `popcnt` path
/// (2 KiB), in every UTF-8 length class.
#[test]
fn count_chars_every_length_and_position() {
    for len in 0..=MAX_LEN {
        let base: String = (0..len)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        check_count(&base);
        for at in 0..=len {
            for c in ["é", "€", "😀"] {
                let text = format!("{}{c}{}", &base[..at], &base[at..]);
                check_count(&text);
            }
        }
    }
    for unit in ["a", "é", "€", "😀", "aé€😀"] {
        let long = unit.repeat(2200 / unit.len() + 1);
        for len in 1900..=2200 {
            if long.is_char_boundary(len) {
                check_count(&long[..len]);
            }
        }
    }
}

/// UTF-8 → UTF-32 of a large ASCII input (its output aligned first, then
/// stored with non-temporal stores) into buffers at every 4-byte offset
/// of a cache line, with a non-ASCII character at the start (before the
/// alignment), just after it, in the middle and near the end, and an
/// invalid byte near the end.
#[test]
fn utf8_to_utf32_large_ascii() {
    let len = (8 << 20) + 300;
    let base: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
    let mut cases = vec![base.clone()];
    for at in [3, 20, 4 << 20, len - 70] {
        let mut b = base.clone();
        b[at..at + 2].copy_from_slice("é".as_bytes());
        cases.push(b);
    }
    let mut bad = base.clone();
    bad[len - 100] = 0xFF;
    cases.push(bad);
    for (k, bytes) in cases.iter().enumerate() {
        let want: Result<Vec<u32>, _> =
            std::str::from_utf8(bytes).map(|s| s.chars().map(u32::from).collect());
        for kernel in Kernel::available() {
            // Offsets 0, 1 and 15 values into a buffer, and one more for
            // the next case: the output starts at several alignments.
            for offset in [0, 1, 15, 3 + k] {
                let ctx = format!("{kernel}, case {k}, offset {offset}");
                match &want {
                    Ok(values) => {
                        let n = values.len();
                        let mut out = vec![GUARD32; offset + n + 1];
                        let got =
                            t::utf8_to_utf32_with(kernel, bytes, &mut out[offset..offset + n]);
                        assert_eq!(got, Some(Ok(n)), "{ctx}");
                        assert!(out[offset..offset + n] == values[..], "{ctx}");
                        assert_eq!(out[offset + n], GUARD32, "{ctx}: wrote past the end");
                        assert!(out[..offset].iter().all(|&g| g == GUARD32), "{ctx}");
                        let got =
                            t::utf8_to_utf32_with(kernel, bytes, &mut out[offset..offset + n - 1]);
                        assert_eq!(
                            got,
                            Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                            "{ctx}"
                        );
                    }
                    Err(_) => {
                        let expected = std_checked_error(bytes);
                        let mut out = vec![GUARD32; offset + bytes.len()];
                        let got = t::utf8_to_utf32_with(kernel, bytes, &mut out[offset..]);
                        assert_eq!(got, Some(Err(TranscodeError::Invalid(expected))), "{ctx}");
                    }
                }
            }
        }
    }
}
