//! The SIMD UTF-8 ⇄ UTF-16 and UTF-8 → UTF-32 transcoders, forced kernel by
//! kernel, against std: every lipsum file, an error or unpaired surrogate at
//! every offset 0..=200 of valid text, random inputs, and exact-size output
//! buffers with a guard element after them.

mod common;
use common::corpus_dir;

use std::sync::OnceLock;

use proptest::prelude::*;
use utf8kit::Kernel;
use utf8kit::transcode::{self as t, TranscodeError, Utf16Error};

/// A value no kernel writes past the end of an exact-size buffer.
const GUARD16: u16 = 0xA5A5;
const GUARD8: u8 = 0xA5;

/// The UTF-16 std makes from valid UTF-8, or std's error numbers.
fn std_utf16(bytes: &[u8]) -> Result<Vec<u16>, (usize, Option<usize>)> {
    std::str::from_utf8(bytes)
        .map(|s| s.encode_utf16().collect())
        .map_err(|e| (e.valid_up_to(), e.error_len()))
}

/// Checks every UTF-8 → UTF-16/UTF-32 flavour under every kernel on `bytes`.
fn check_utf8(bytes: &[u8]) {
    let want = std_utf16(bytes);
    let chars: Option<Vec<u32>> = std::str::from_utf8(bytes)
        .ok()
        .map(|s| s.chars().map(u32::from).collect());
    for kernel in Kernel::available() {
        let ctx = || format!("{kernel}, {} bytes", bytes.len());
        match &want {
            Ok(units) => {
                let n = units.len();
                assert_eq!(
                    t::utf16_len_from_utf8_with(kernel, bytes),
                    Some(n),
                    "{}",
                    ctx()
                );
                // Native, exact size, guard after.
                let mut out = vec![GUARD16; n + 1];
                let got = t::utf8_to_utf16_with(kernel, bytes, &mut out[..n]);
                assert_eq!(got, Some(Ok(n)), "{}", ctx());
                assert_eq!(&out[..n], &units[..], "{}", ctx());
                assert_eq!(out[n], GUARD16, "{}: wrote past the end", ctx());
                // A larger buffer: nothing past the output is touched (the
                // AVX-512 kernels leave don't-care units there, inside the
                // slice, which they do not promise).
                let mut out = vec![GUARD16; n + 70];
                let got = t::utf8_to_utf16_with(kernel, bytes, &mut out);
                assert_eq!(got, Some(Ok(n)), "{}", ctx());
                assert!(
                    kernel == Kernel::Avx512 || out[n..].iter().all(|&g| g == GUARD16),
                    "{}: wrote past the output",
                    ctx()
                );
                // One unit short: the exact need, nothing past the slice.
                if n > 0 {
                    let mut short = vec![GUARD16; n];
                    let got = t::utf8_to_utf16_with(kernel, bytes, &mut short[..n - 1]);
                    assert_eq!(got, Some(Err(TranscodeError::BufferTooSmall { needed: n })));
                    assert_eq!(short[n - 1], GUARD16, "{}: wrote past the end", ctx());
                }
                // LE and BE bytes.
                let le: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
                let be: Vec<u8> = units.iter().flat_map(|u| u.to_be_bytes()).collect();
                let mut out = vec![GUARD8; 2 * n + 1];
                let got = t::utf8_to_utf16le_with(kernel, bytes, &mut out[..2 * n]);
                assert_eq!(got, Some(Ok(2 * n)), "{}", ctx());
                assert_eq!(&out[..2 * n], &le[..], "{} LE", ctx());
                assert_eq!(out[2 * n], GUARD8, "{}: wrote past the end", ctx());
                let got = t::utf8_to_utf16be_with(kernel, bytes, &mut out[..2 * n]);
                assert_eq!(got, Some(Ok(2 * n)), "{}", ctx());
                assert_eq!(&out[..2 * n], &be[..], "{} BE", ctx());
                assert_eq!(out[2 * n], GUARD8, "{}: wrote past the end", ctx());
                // UTF-32.
                let cps = chars.as_deref().unwrap_or_default();
                let mut out = vec![0xA5A5_A5A5u32; cps.len() + 1];
                let got = t::utf8_to_utf32_with(kernel, bytes, &mut out[..cps.len()]);
                assert_eq!(got, Some(Ok(cps.len())), "{}", ctx());
                assert_eq!(&out[..cps.len()], cps, "{} UTF-32", ctx());
                assert_eq!(out[cps.len()], 0xA5A5_A5A5, "{}: wrote past the end", ctx());
            }
            Err((valid_up_to, error_len)) => {
                let expected = utf8kit::validate(bytes).unwrap_err();
                assert_eq!(expected.valid_up_to(), *valid_up_to);
                assert_eq!(expected.error_len(), *error_len);
                let mut out = vec![0u16; bytes.len() + 1];
                let got = t::utf8_to_utf16_with(kernel, bytes, &mut out);
                assert_eq!(
                    got,
                    Some(Err(TranscodeError::Invalid(expected))),
                    "{}",
                    ctx()
                );
                let mut out = vec![0u8; 2 * bytes.len()];
                let got = t::utf8_to_utf16be_with(kernel, bytes, &mut out);
                assert_eq!(
                    got,
                    Some(Err(TranscodeError::Invalid(expected))),
                    "{}",
                    ctx()
                );
                let mut out = vec![0u32; bytes.len()];
                let got = t::utf8_to_utf32_with(kernel, bytes, &mut out);
                assert_eq!(
                    got,
                    Some(Err(TranscodeError::Invalid(expected))),
                    "{}",
                    ctx()
                );
            }
        }
    }
    // The dispatched public functions agree too.
    match &want {
        Ok(units) => {
            assert_eq!(t::utf8_to_utf16(bytes).as_ref(), Ok(units));
            let s = std::str::from_utf8(bytes).unwrap_or_default();
            assert_eq!(&t::valid_utf8_to_utf16(s), units);
            let le: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
            assert_eq!(t::utf8_to_utf16le(s), le);
        }
        Err(_) => assert_eq!(
            t::utf8_to_utf16(bytes).unwrap_err(),
            utf8kit::validate(bytes).unwrap_err()
        ),
    }
}

/// The index of the first unpaired surrogate, by std's decoder.
fn first_unpaired(units: &[u16]) -> Option<(usize, u16)> {
    let mut index = 0;
    for r in char::decode_utf16(units.iter().copied()) {
        match r {
            Ok(c) => index += c.len_utf16(),
            Err(e) => return Some((index, e.unpaired_surrogate())),
        }
    }
    None
}

/// Checks every UTF-16 → UTF-8 flavour under every kernel on `units`.
fn check_utf16(units: &[u16]) {
    let lossy = String::from_utf16_lossy(units);
    let strict = String::from_utf16(units).ok();
    let unpaired = first_unpaired(units);
    assert_eq!(strict.is_none(), unpaired.is_some());
    let n = lossy.len();
    let le: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
    let be: Vec<u8> = units.iter().flat_map(|u| u.to_be_bytes()).collect();
    for kernel in Kernel::available() {
        let ctx = || format!("{kernel}, {} units", units.len());
        assert_eq!(
            t::utf8_len_from_utf16_with(kernel, units),
            Some(n),
            "{}",
            ctx()
        );
        let mut out = vec![GUARD8; n + 1];
        let got = t::utf16_to_utf8_lossy_with(kernel, units, &mut out[..n]);
        assert_eq!(got, Some(n), "{}", ctx());
        assert_eq!(&out[..n], lossy.as_bytes(), "{} lossy", ctx());
        assert_eq!(out[n], GUARD8, "{}: wrote past the end {units:04X?}", ctx());
        // A larger buffer: nothing past the output is touched (but by the
        // AVX-512 kernel, as in `check_utf8`).
        let mut big = vec![GUARD8; n + 70];
        let got = t::utf16_to_utf8_lossy_with(kernel, units, &mut big);
        assert_eq!(got, Some(n), "{}", ctx());
        assert!(
            kernel == Kernel::Avx512 || big[n..].iter().all(|&g| g == GUARD8),
            "{}: lossy wrote past the output",
            ctx()
        );
        for (flavour, got) in [
            (
                "native",
                t::utf16_to_utf8_with(kernel, units, &mut out[..n]),
            ),
            ("LE", t::utf16le_to_utf8_with(kernel, &le, &mut out[..n])),
            ("BE", t::utf16be_to_utf8_with(kernel, &be, &mut out[..n])),
        ] {
            match (&strict, unpaired) {
                (Some(s), _) => {
                    assert_eq!(got, Some(Ok(n)), "{} {flavour}", ctx());
                    assert_eq!(&out[..n], s.as_bytes(), "{} {flavour}", ctx());
                }
                (None, Some((index, unit))) => assert_eq!(
                    got,
                    Some(Err(TranscodeError::Invalid(
                        Utf16Error::UnpairedSurrogate { index, unit }
                    ))),
                    "{} {flavour}",
                    ctx()
                ),
                (None, None) => unreachable!(),
            }
            assert_eq!(out[n], GUARD8, "{} {flavour}: wrote past the end", ctx());
        }
        if n > 0 {
            let mut short = vec![GUARD8; n];
            let got = t::utf16_to_utf8_lossy_with(kernel, units, &mut short[..n - 1]);
            assert_eq!(got, Some(n), "{}", ctx());
            assert_eq!(short[n - 1], GUARD8, "{}: wrote past the end", ctx());
        }
    }
    assert_eq!(t::utf16_to_utf8_lossy(units), lossy);
    assert_eq!(t::utf16_to_utf8(units).ok(), strict);
    assert_eq!(t::utf16be_to_utf8_lossy(&be), lossy);
}

/// Sample texts in many scripts, so the tests run without the corpus too.
const TEXTS: &[&str] = &[
    "The quick brown fox jumps over the lazy dog, again and again.",
    "Съешь же ещё этих мягких французских булок, да выпей же чаю.",
    "我能吞下玻璃而不伤身体。天地玄黄，宇宙洪荒。日月盈昃，辰宿列张。",
    "ऋषियों को सताने वाले दुष्ट राक्षसों के राजा रावण का सर्वनाश करने वाले",
    "😀🎉👍🏽🇺🇦 emoji 🧑‍🚀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕞𝕒𝕥𝕙 ∮ E⋅da = Q, n → ∞",
    "mixed: é ß Ж 中 😀 a\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF} end",
];

/// The corpus files ending in `suffix` (name, bytes), or none with a note.
fn corpus(suffix: &str) -> Vec<(String, Vec<u8>)> {
    let Some(dir) = corpus_dir() else {
        eprintln!("note: shared/corpus/lipsum not found; corpus cases skipped");
        return Vec::new();
    };
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(suffix))
        .filter_map(|e| {
            let bytes = std::fs::read(e.path()).ok()?;
            Some((e.file_name().to_string_lossy().into_owned(), bytes))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        eprintln!(
            "note: no *{suffix} in {}; corpus cases skipped",
            dir.display()
        );
    }
    files
}

/// A long valid text mixing every script (and every UTF-8 length).
fn mixed_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut s = String::new();
        for _ in 0..3 {
            for text in TEXTS {
                s.push_str(text);
            }
        }
        s
    })
}

#[test]
fn lipsum_utf8_files() {
    for (name, bytes) in corpus(".utf8.txt") {
        assert!(std::str::from_utf8(&bytes).is_ok(), "{name}");
        check_utf8(&bytes);
        // Every start offset in the first block, so blocks split characters
        // everywhere.
        for start in 1..70 {
            check_utf8(bytes.get(start..).unwrap_or_default());
        }
    }
}

#[test]
fn lipsum_utf16_files() {
    for (name, bytes) in corpus(".utf16.txt") {
        let (units, odd) = bytes.as_chunks::<2>();
        assert!(odd.is_empty(), "{name}");
        let units: Vec<u16> = units.iter().map(|&u| u16::from_le_bytes(u)).collect();
        assert!(String::from_utf16(&units).is_ok(), "{name}");
        check_utf16(&units);
        for start in 1..40 {
            check_utf16(units.get(start..).unwrap_or_default());
        }
    }
}

#[test]
fn built_in_texts() {
    for text in TEXTS {
        let long = text.repeat(20);
        for len in 0..long.len().min(300) {
            if long.is_char_boundary(len) {
                check_utf8(&long.as_bytes()[..len]);
            }
        }
        let units: Vec<u16> = long.encode_utf16().collect();
        for len in 0..units.len().min(200) {
            check_utf16(&units[..len]);
        }
    }
}

/// Bad bytes written over valid text and bad sequences inserted into it, at
/// every offset 0..=200.
#[test]
fn utf8_error_at_every_offset() {
    let text = mixed_text().as_bytes();
    assert!(text.len() > 400);
    let inserts: &[&[u8]] = &[
        b"\xFF",
        b"\x80",
        b"\xC0\xAF",
        b"\xE2\x82",
        b"\xED\xA0\x80",
        b"\xF4\x90\x80\x80",
        b"\xF0\x9F\x98",
    ];
    for at in 0..=200 {
        for bad in [0xFFu8, 0x80, 0xC2, 0xE0, 0xF0, 0xF5] {
            let mut bytes = text.to_vec();
            bytes[at] = bad;
            check_utf8(&bytes);
        }
        let boundary = (0..=at).rev().find(|&i| mixed_text().is_char_boundary(i));
        for insert in inserts {
            let mut bytes = text.to_vec();
            let i = boundary.unwrap_or(0);
            bytes.splice(i..i, insert.iter().copied());
            check_utf8(&bytes);
            // And as the end of the input.
            check_utf8(&bytes[..i + insert.len()]);
        }
    }
}

/// Unpaired surrogates written over valid UTF-16 and inserted into it, at
/// every offset 0..=200.
#[test]
fn unpaired_surrogate_at_every_offset() {
    let units: Vec<u16> = mixed_text().encode_utf16().collect();
    assert!(units.len() > 250);
    for at in 0..=200 {
        for bad in [0xD800u16, 0xDBFF, 0xDC00, 0xDFFF] {
            let mut u = units.clone();
            u[at] = bad;
            check_utf16(&u);
            let mut u = units.clone();
            u.insert(at, bad);
            check_utf16(&u);
            check_utf16(&u[..=at]);
        }
    }
}

/// A character of each UTF-8 length, weighted.
fn text() -> impl Strategy<Value = String> {
    let ch = prop_oneof![
        4 => proptest::char::range('\0', '\u{7F}'),
        2 => proptest::char::range('\u{80}', '\u{7FF}'),
        2 => proptest::char::range('\u{800}', '\u{FFFF}'),
        2 => proptest::char::range('\u{10000}', '\u{10FFFF}'),
    ];
    proptest::collection::vec(ch, 0..400).prop_map(|v| v.into_iter().collect())
}

/// Units with many surrogates, paired and not.
fn utf16_units() -> impl Strategy<Value = Vec<u16>> {
    let unit = prop_oneof![
        4 => 0u16..0x80,
        2 => 0x80u16..0x800,
        2 => 0x800u16..0xD800,
        3 => 0xD800u16..0xDC00,
        3 => 0xDC00u16..0xE000,
        1 => 0xE000u16..=0xFFFF,
    ];
    proptest::collection::vec(unit, 0..300)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_text(s in text()) {
        check_utf8(s.as_bytes());
        let units: Vec<u16> = s.encode_utf16().collect();
        check_utf16(&units);
    }

    #[test]
    fn random_text_one_corruption(s in text(), at in any::<prop::sample::Index>(), b in any::<u8>()) {
        let mut bytes = s.into_bytes();
        if !bytes.is_empty() {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        check_utf8(&bytes);
    }

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(
        prop_oneof![4 => 0u8..0x80, 2 => 0x80u8..0xC0, 2 => 0xC0u8..=0xFF], 0..300)) {
        check_utf8(&bytes);
    }

    #[test]
    fn random_utf16(units in utf16_units()) {
        check_utf16(&units);
    }

    #[test]
    fn random_valid_utf16(s in text()) {
        let units: Vec<u16> = s.encode_utf16().collect();
        check_utf16(&units);
    }
}

/// The masked last steps of the UTF-16 → UTF-8 kernel: every length up to
/// 80 units of each kind of text (1-, 2-, 3-byte, pairs), with a lone high
/// surrogate, a lone low one and a pair put at every position.
#[test]
fn every_short_length_with_a_surrogate_at_every_position() {
    for fill in [0x61u16, 0x416, 0x4E2D] {
        for len in 0..=80usize {
            let base = vec![fill; len];
            check_utf16(&base);
            for at in 0..len {
                for lone in [0xD83Du16, 0xDE00] {
                    let mut v = base.clone();
                    v[at] = lone;
                    check_utf16(&v);
                }
                if at + 1 < len {
                    let mut v = base.clone();
                    v[at] = 0xD83D;
                    v[at + 1] = 0xDE00;
                    check_utf16(&v);
                }
            }
        }
    }
}

/// The AVX2 kernel's steps (16 or 32 bytes) against characters of every
/// length placed at every offset of the first blocks, with runs of 1-, 2-,
/// 3- and 4-byte text around them and short tails after.
#[test]
fn every_character_length_at_every_block_offset() {
    for prefix in ["a", "é", "中"] {
        for count in 0..=40 {
            for ch in ['é', '中', '😀', 'a'] {
                for (suffix, reps) in [("a", 0), ("a", 1), ("ж", 9), ("中", 20), ("😀🎉", 3)]
                {
                    let mut s = prefix.repeat(count);
                    s.push(ch);
                    s.push_str(&suffix.repeat(reps));
                    check_utf8(s.as_bytes());
                }
            }
        }
    }
}

/// The AVX2 UTF-16 → UTF-8 steps (16 or 32 units): 1-, 2- and 3-byte text
/// of every length up to 40 units, then a character of each kind (a pair or
/// a lone surrogate among them, so blocks end inside a pair), then text.
#[test]
fn every_unit_kind_at_every_block_offset() {
    for prefix in [0x61u16, 0xE9, 0x4E2D] {
        for count in 0..=40 {
            let kinds: [&[u16]; 6] = [
                &[0x61],
                &[0x416],
                &[0xFFFD],
                &[0xD83D, 0xDE00],
                &[0xD83D],
                &[0xDE00],
            ];
            for kind in kinds {
                for (suffix, reps) in [(0x61u16, 0), (0x61, 1), (0x436, 9), (0x4E2D, 20)] {
                    let mut v = vec![prefix; count];
                    v.extend_from_slice(kind);
                    v.extend(std::iter::repeat_n(suffix, reps));
                    check_utf16(&v);
                }
            }
        }
    }
}
