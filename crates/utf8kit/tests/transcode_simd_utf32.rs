//! The SIMD UTF-32 → UTF-8 and UTF-8 → UTF-32 transcoders, the UTF-8
//! length of UTF-32 and the character count, forced kernel by kernel, against std and the scalar
//! kernel: every scalar value and every kind of invalid value around the
//! SIMD block edges, an invalid value at every offset 0..=200 of every
//! lipsum text, random inputs, exact-size output buffers with a guard byte
//! after them, and buffers that are too small.

mod common;
use common::corpus_dir;

use proptest::prelude::*;
use utf8kit::Kernel;
use utf8kit::transcode::{self as t, TranscodeError};

/// A byte no kernel writes past the end of an exact-size buffer.
const GUARD: u8 = 0xA5;

/// Invalid UTF-32 values of every kind: surrogates at both ends and inside
/// each half, the first values past U+10FFFF, and the top of the range.
const INVALID: &[u32] = &[
    0xD800,
    0xDBFF,
    0xDC00,
    0xDFFF,
    0xDA7F,
    0x11_0000,
    0x11_0001,
    0x1F_FFFF,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_D800,
    0xFFFF_FFFE,
    u32::MAX,
];

/// What std makes of `units`: the first invalid value (index, value) or the
/// string, and the lossy string (U+FFFD for each invalid value).
fn oracle(units: &[u32]) -> (Result<String, (usize, u32)>, String) {
    let lossy: String = units
        .iter()
        .map(|&v| char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    let strict = match units.iter().position(|&v| char::from_u32(v).is_none()) {
        Some(i) => Err((i, units[i])),
        None => Ok(lossy.clone()),
    };
    (strict, lossy)
}

/// Checks UTF-32 → UTF-8 (strict and lossy) and the UTF-8 length under
/// every kernel on `units`, and the dispatched public functions.
fn check_utf32(units: &[u32]) {
    let (strict, lossy) = oracle(units);
    let need = lossy.len();
    for kernel in Kernel::available() {
        let ctx = || format!("{kernel}, {} values", units.len());
        assert_eq!(
            t::utf8_len_from_utf32_with(kernel, units),
            Some(need),
            "{} length",
            ctx()
        );

        // Strict, exact size, guard after.
        let mut out = vec![GUARD; need + 1];
        let got = t::utf32_to_utf8_with(kernel, units, &mut out[..need]);
        match &strict {
            Ok(s) => {
                assert_eq!(got, Some(Ok(need)), "{}", ctx());
                assert_eq!(&out[..need], s.as_bytes(), "{}", ctx());
            }
            Err((index, value)) => match got {
                Some(Err(TranscodeError::Invalid(e))) => {
                    assert_eq!((e.index(), e.value()), (*index, *value), "{}", ctx());
                }
                other => panic!("{}: expected error at {index}, got {other:?}", ctx()),
            },
        }
        assert_eq!(out[need], GUARD, "{}: wrote past the end", ctx());

        // Lossy, exact size, guard after.
        let mut out = vec![GUARD; need + 1];
        let got = t::utf32_to_utf8_lossy_with(kernel, units, &mut out[..need]);
        assert_eq!(got, Some(need), "{} lossy", ctx());
        assert_eq!(&out[..need], lossy.as_bytes(), "{} lossy", ctx());
        assert_eq!(out[need], GUARD, "{}: lossy wrote past the end", ctx());

        // Too small by one byte and by half: the exact need, the prefix
        // that fits, nothing past the slice.
        for short in [need.saturating_sub(1), need / 2] {
            if short >= need {
                continue;
            }
            let mut out = vec![GUARD; short + 1];
            let got = t::utf32_to_utf8_lossy_with(kernel, units, &mut out[..short]);
            assert_eq!(got, Some(need), "{} lossy into {short}", ctx());
            assert_eq!(&out[..short], &lossy.as_bytes()[..short], "{}", ctx());
            assert_eq!(out[short], GUARD, "{}: lossy wrote past the end", ctx());
            let mut out = vec![GUARD; short + 1];
            let got = t::utf32_to_utf8_with(kernel, units, &mut out[..short]);
            match &strict {
                Ok(s) => {
                    assert_eq!(
                        got,
                        Some(Err(TranscodeError::BufferTooSmall { needed: need })),
                        "{} into {short}",
                        ctx()
                    );
                    assert_eq!(&out[..short], &s.as_bytes()[..short], "{}", ctx());
                }
                Err((index, _)) => match got {
                    Some(Err(TranscodeError::Invalid(e))) => assert_eq!(e.index(), *index),
                    other => panic!("{}: expected error at {index}, got {other:?}", ctx()),
                },
            }
            assert_eq!(out[short], GUARD, "{}: wrote past the end", ctx());
        }
    }

    // The dispatched public functions.
    assert_eq!(t::utf8_len_from_utf32(units), need);
    assert_eq!(t::utf32_to_utf8_lossy(units), lossy);
    let mut out = vec![GUARD; need + 1];
    assert_eq!(
        t::utf32_to_utf8_lossy_into(units, &mut out[..need]),
        Ok(need)
    );
    assert_eq!(&out[..need], lossy.as_bytes());
    assert_eq!(out[need], GUARD);
    let mut out = vec![GUARD; need + 1];
    let into = t::utf32_to_utf8_into(units, &mut out[..need]);
    match (&strict, t::utf32_to_utf8(units)) {
        (Ok(s), Ok(got)) => {
            assert_eq!(&got, s);
            assert_eq!(into, Ok(need));
            assert_eq!(&out[..need], s.as_bytes());
        }
        (Err((index, value)), Err(e)) => {
            assert_eq!((e.index(), e.value()), (*index, *value));
            assert_eq!(into, Err(TranscodeError::Invalid(e)));
        }
        (want, got) => panic!("utf32_to_utf8: expected {want:?}, got {got:?}"),
    }
    assert_eq!(out[need], GUARD);
}

/// Checks UTF-8 → UTF-32 under every kernel on `bytes`: std's values into
/// exact, larger and too-small buffers, or exactly `validate`'s error.
fn check_utf8(bytes: &[u8]) {
    let want: Result<Vec<u32>, _> =
        std::str::from_utf8(bytes).map(|s| s.chars().map(u32::from).collect());
    for kernel in Kernel::available() {
        let ctx = || format!("{kernel}, {} bytes", bytes.len());
        match &want {
            Ok(values) => {
                let n = values.len();
                for extra in [0, 1, 70] {
                    let mut out = vec![0xA5A5_A5A5u32; n + extra + 1];
                    let got = t::utf8_to_utf32_with(kernel, bytes, &mut out[..n + extra]);
                    assert_eq!(got, Some(Ok(n)), "{}", ctx());
                    assert_eq!(&out[..n], &values[..], "{}", ctx());
                    assert!(
                        out[n..].iter().all(|&g| g == 0xA5A5_A5A5),
                        "{}: wrote past the output",
                        ctx()
                    );
                }
                for short in [n.saturating_sub(1), n / 2, n.saturating_sub(65)] {
                    if short >= n {
                        continue;
                    }
                    let mut out = vec![0xA5A5_A5A5u32; short + 1];
                    let got = t::utf8_to_utf32_with(kernel, bytes, &mut out[..short]);
                    assert_eq!(
                        got,
                        Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                        "{} into {short}",
                        ctx()
                    );
                    assert_eq!(&out[..short], &values[..short], "{}", ctx());
                    assert_eq!(out[short], 0xA5A5_A5A5, "{}: wrote past the end", ctx());
                }
            }
            Err(std) => {
                let expected = utf8kit::validate(bytes).unwrap_err();
                assert_eq!(
                    (expected.valid_up_to(), expected.error_len()),
                    (std.valid_up_to(), std.error_len()),
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
    match &want {
        Ok(values) => assert_eq!(t::utf8_to_utf32(bytes).as_ref(), Ok(values)),
        Err(_) => assert_eq!(
            t::utf8_to_utf32(bytes).unwrap_err(),
            utf8kit::validate(bytes).unwrap_err()
        ),
    }
}

/// Checks [`t::count_chars`] under every kernel on `text`.
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

/// The UTF-8 corpus files (name, text), or none with a note.
fn corpus() -> Vec<(String, String)> {
    let Some(dir) = corpus_dir() else {
        eprintln!("note: shared/corpus/lipsum not found; corpus cases skipped");
        return Vec::new();
    };
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".utf8.txt"))
        .filter_map(|e| {
            let text = std::fs::read_to_string(e.path()).ok()?;
            Some((e.file_name().to_string_lossy().into_owned(), text))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        eprintln!(
            "note: no *.utf8.txt in {}; corpus cases skipped",
            dir.display()
        );
    }
    files
}

/// Texts of every UTF-8 length, for when the corpus is missing and for the
/// block-edge sweeps.
const TEXTS: &[&str] = &[
    "The quick brown fox jumps over the lazy dog. ",
    "Größenwahn über Straße, çà et là, ñandú. ",
    "Съешь же ещё этих мягких французских булок. ",
    "春眠不覚暁，処処聞啼鳥。夜来風雨声，花落知多少。",
    "😀😃😄😁 𝄞𝄢 🀄🃏 𐍈𐌰 ",
    "a\u{7F}\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFF}\u{10000}\u{10FFFF}",
];

/// Every text of every script: the corpus files and the built-in texts.
fn scripts() -> Vec<(String, String)> {
    let mut out = corpus();
    out.extend(
        TEXTS
            .iter()
            .map(|s| (s.chars().take(8).collect(), s.repeat(40))),
    );
    out
}

fn values(s: &str) -> Vec<u32> {
    s.chars().map(u32::from).collect()
}

#[test]
fn every_scalar_value_at_block_edges() {
    let all: Vec<u32> = (0..=0x10_FFFFu32)
        .filter(|&v| char::from_u32(v).is_some())
        .collect();
    // Shifting the start moves every value through every lane of the
    // 16- and 32-value blocks.
    for pad in [0, 1, 2, 3, 7, 15, 16, 17, 31, 32, 33] {
        let mut units = vec![u32::from('x'); pad];
        units.extend_from_slice(&all);
        check_utf32(&units);
    }
    // Every value alone, in short inputs around the SIMD minimum.
    for chunk in all.chunks(61) {
        check_utf32(chunk);
    }
}

/// Every invalid kind, and every surrogate, at each position of the first
/// blocks, after ASCII and after 4-byte characters (so every fast path
/// meets it).
#[test]
fn invalid_values_around_block_edges() {
    let fills: [u32; 4] = [0x41, 0x3A9, 0x4E2D, 0x1F600];
    for fill in fills {
        let base = vec![fill; 100];
        for at in 0..=70 {
            for &bad in INVALID {
                let mut units = base.clone();
                units[at] = bad;
                check_utf32(&units);
                // A second invalid value later: the first one counts.
                units[90] = 0xDFFF;
                check_utf32(&units);
            }
        }
        for bad in 0xD800..=0xDFFFu32 {
            for at in [0, 15, 16, 31, 32, 33, 63, 64] {
                let mut units = base.clone();
                units[at] = bad;
                check_utf32(&units);
            }
        }
    }
}

#[test]
fn lipsum_files() {
    for (name, text) in corpus() {
        let units = values(&text);
        check_utf32(&units);
        // Every start offset in the first blocks.
        for start in 1..40 {
            check_utf32(units.get(start..).unwrap_or_default());
        }
        check_count(&text);
        assert_eq!(t::count_chars(&text), units.len(), "{name}");
        check_utf8(text.as_bytes());
        for start in 1..70 {
            check_utf8(text.as_bytes().get(start..).unwrap_or_default());
        }
    }
}

/// UTF-8 → UTF-32 of every prefix (0..=300 bytes) of every script, and an
/// invalid byte at every offset 0..=200.
#[test]
fn utf8_to_utf32_prefixes_and_errors() {
    for (_, text) in scripts() {
        let bytes = text.as_bytes();
        for len in 0..=300.min(bytes.len()) {
            check_utf8(&bytes[..len]);
        }
        for at in 0..=200.min(bytes.len() - 1) {
            for bad in [0xFFu8, 0x80, 0xC0, 0xED] {
                let mut b = bytes[..bytes.len().min(400)].to_vec();
                b[at] = bad;
                check_utf8(&b);
            }
        }
    }
    // Every scalar value, at shifted starts.
    let all: String = (0..=0x10_FFFFu32).filter_map(char::from_u32).collect();
    for pad in 0..4 {
        let s = "x".repeat(pad) + &all;
        check_utf8(s.as_bytes());
    }
}

/// Every character length at every byte offset of the first 16-byte steps
/// (of the SSE4.1 kernel, and of the halves of the AVX2 one), among
/// characters of every length, with the input ending right after it, a
/// byte or two later (the 18 bytes a step reads), and far after it (the
/// whole-register stores); and a 4-byte character cut short there.
#[test]
fn utf8_every_char_kind_at_every_step_offset() {
    let kinds = [
        'a',
        '\u{7F}',
        '\u{80}',
        'é',
        '\u{7FF}',
        '\u{800}',
        '€',
        '\u{FFFF}',
        '😀',
        '\u{10FFFF}',
    ];
    for fill in ['b', 'ß', '中', '😃'] {
        for at in 0..=40 {
            for kind in kinds {
                let mut text = String::new();
                while text.len() + fill.len_utf8() <= at {
                    text.push(fill);
                }
                while text.len() < at {
                    text.push('x');
                }
                text.push(kind);
                let head = text.len();
                for _ in 0..30 {
                    text.push(fill);
                }
                for end in [
                    head,
                    head + 1,
                    head + 2,
                    head + 3,
                    head + 17,
                    head + 40,
                    text.len(),
                ] {
                    let mut end = end.min(text.len());
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    check_utf8(&text.as_bytes()[..end]);
                }
                let mut bad = text.clone().into_bytes();
                bad.truncate(head);
                bad.extend_from_slice(&"😀".as_bytes()[..3]);
                bad.extend_from_slice(&text.as_bytes()[head..]);
                check_utf8(&bad);
            }
        }
    }
}

/// A character of every length, whole or cut short after each of its
/// bytes, ending at every offset around the first two 64-byte block edges
/// (where the one-pass AVX-512 kernel reads a last character past its
/// block, and must check the block after it even when that is all ASCII),
/// after ASCII or after 2-byte text, before the end, ASCII that ends the
/// input at several places, or 3-byte text.
#[test]
fn utf8_characters_across_block_edges() {
    let kinds = ['é', '\u{7FF}', '€', '\u{FFFF}', '😀', '\u{10FFFF}'];
    // Past the last byte: nothing, ASCII of lengths that end the input in
    // the block after, in the one after that or later, or 3-byte text.
    let mut afters: Vec<String> = [0, 1, 2, 3, 5, 62, 63, 64, 65, 66, 67, 150]
        .iter()
        .map(|&k| "x".repeat(k))
        .collect();
    afters.push("中".repeat(50));
    for fill in ['a', 'ж'] {
        for end in (56..=72).chain(120..=136) {
            for kind in kinds {
                let mut bytes = [0u8; 4];
                let whole = kind.encode_utf8(&mut bytes).as_bytes();
                for cut in 1..=whole.len() {
                    let at = end - cut;
                    let mut text = String::new();
                    while text.len() + fill.len_utf8() <= at {
                        text.push(fill);
                    }
                    while text.len() < at {
                        text.push('x');
                    }
                    let mut input = text.into_bytes();
                    input.extend_from_slice(&whole[..cut]);
                    for after in &afters {
                        let mut b = input.clone();
                        b.extend_from_slice(after.as_bytes());
                        check_utf8(&b);
                    }
                }
            }
        }
    }
}

/// UTF-8 → UTF-32 of text of every character length into buffers of every
/// capacity below what it needs: the values that fit, written exactly
/// (nothing past the buffer), and the length needed.
#[test]
fn utf8_to_utf32_into_every_short_buffer() {
    let text: String = TEXTS.concat().repeat(3);
    let want = values(&text);
    let n = want.len();
    for kernel in Kernel::available() {
        for cap in 0..n {
            let mut out = vec![0xA5A5_A5A5u32; cap + 1];
            let got = t::utf8_to_utf32_with(kernel, text.as_bytes(), &mut out[..cap]);
            assert_eq!(
                got,
                Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                "{kernel}, cap {cap}"
            );
            assert_eq!(&out[..cap], &want[..cap], "{kernel}, cap {cap}");
            assert_eq!(
                out[cap], 0xA5A5_A5A5,
                "{kernel}, cap {cap}: wrote past the end"
            );
        }
    }
}

/// An invalid value written over and inserted at every offset 0..=200 of
/// valid text of every script.
#[test]
fn invalid_value_at_every_offset() {
    for (name, text) in scripts() {
        let units: Vec<u32> = values(&text).into_iter().take(320).collect();
        assert!(units.len() > 200, "{name}");
        for at in 0..=200 {
            for bad in [0xD800, 0xDFFF, 0x11_0000, u32::MAX] {
                let mut u = units.clone();
                u[at] = bad;
                check_utf32(&u);
                let mut u = units.clone();
                u.insert(at, bad);
                check_utf32(&u);
                check_utf32(&u[..=at]);
            }
        }
    }
}

#[test]
fn count_chars_at_every_length() {
    for (name, text) in scripts() {
        let mut checked = 0;
        for len in 0..=300.min(text.len()) {
            if text.is_char_boundary(len) {
                check_count(&text[..len]);
                checked += 1;
            }
        }
        assert!(checked > 50, "{name}");
        // And from every start in the first block.
        for start in 0..70 {
            if text.is_char_boundary(start) {
                check_count(&text[start..]);
            }
        }
    }
}

/// Inputs long enough that the byte counters of the SIMD counts are
/// flushed several times, including by bytes that all count (each of the
/// AVX-512 count's four counters reaching 63 and their sum 252).
#[test]
fn count_chars_long() {
    for unit in ["a", "é", "€", "😀", "aé€😀"] {
        let text = unit.repeat((3 * 255 * 256 + 77) / unit.len());
        check_count(&text);
        check_count(&text[unit.len()..]);
        check_count(&text[..text.len() - unit.len()]);
    }
}

/// A value of any class, invalid ones included (weighted low in `rare`).
fn utf32_values(invalid_weight: u32) -> impl Strategy<Value = Vec<u32>> {
    let v = prop_oneof![
        40 => 0u32..0x80,
        20 => 0x80u32..0x800,
        20 => 0x800u32..0xD800,
        5 => 0xE000u32..0x1_0000,
        20 => 0x1_0000u32..0x11_0000,
        invalid_weight => 0xD800u32..0xE000,
        invalid_weight => 0x11_0000u32..=u32::MAX,
    ];
    proptest::collection::vec(v, 0..4096)
}

/// A character of each UTF-8 length, weighted.
fn text() -> impl Strategy<Value = String> {
    let ch = prop_oneof![
        4 => proptest::char::range('\0', '\u{7F}'),
        2 => proptest::char::range('\u{80}', '\u{7FF}'),
        2 => proptest::char::range('\u{800}', '\u{FFFF}'),
        2 => proptest::char::range('\u{10000}', '\u{10FFFF}'),
    ];
    proptest::collection::vec(ch, 0..4096).prop_map(|v| v.into_iter().collect())
}

/// Runs of one class, so that whole blocks take each fast path.
fn runs() -> impl Strategy<Value = Vec<u32>> {
    let run = (
        prop_oneof![
            Just(0u32..0x80),
            Just(0x80u32..0x800),
            Just(0x800u32..0xD800),
            Just(0x1_0000u32..0x11_0000),
        ],
        1usize..100,
    )
        .prop_flat_map(|(range, len)| proptest::collection::vec(range, len));
    proptest::collection::vec(run, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_valid(units in utf32_values(0)) {
        check_utf32(&units);
    }

    #[test]
    fn random_rare_invalid(units in utf32_values(1)) {
        check_utf32(&units);
    }

    #[test]
    fn random_many_invalid(units in utf32_values(30)) {
        check_utf32(&units);
    }

    #[test]
    fn random_runs(units in runs(), at in any::<prop::sample::Index>(), bad in 0usize..INVALID.len()) {
        check_utf32(&units);
        let mut units = units;
        if !units.is_empty() {
            let i = at.index(units.len());
            units[i] = INVALID[bad];
        }
        check_utf32(&units);
    }

    #[test]
    fn random_text_count(s in text()) {
        check_count(&s);
        check_utf32(&values(&s));
        check_utf8(s.as_bytes());
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
}

/// `valid_utf8_to_utf32` (no validation) under every kernel against
/// `str::chars`: every lipsum file and script, cut at every character
/// boundary of the first 300 bytes, into exact buffers with a guard,
/// larger buffers and buffers one value short.
#[test]
fn valid_utf8_to_utf32_matches_chars() {
    let mut texts: Vec<String> = corpus().into_iter().map(|(_, text)| text).collect();
    texts.extend(scripts().into_iter().map(|(_, text)| text));
    for text in &texts {
        let cuts = (0..=text.len().min(300))
            .filter(|&i| text.is_char_boundary(i))
            .chain([text.len()]);
        for cut in cuts {
            let s = &text[..cut];
            let want = values(s);
            let n = want.len();
            assert_eq!(t::valid_utf8_to_utf32(s), want, "{cut} bytes");
            for kernel in Kernel::available() {
                for extra in [0, 70] {
                    let mut out = vec![0xA5A5_A5A5u32; n + extra + 1];
                    let got = t::valid_utf8_to_utf32_with(kernel, s, &mut out[..n + extra]);
                    assert_eq!(got, Some(Ok(n)), "{kernel}, {cut} bytes");
                    assert_eq!(&out[..n], &want[..], "{kernel}, {cut} bytes");
                    assert_eq!(out[n + extra], 0xA5A5_A5A5, "{kernel}: wrote past the end");
                }
                if n > 0 {
                    let mut out = vec![0xA5A5_A5A5u32; n];
                    let got = t::valid_utf8_to_utf32_with(kernel, s, &mut out[..n - 1]);
                    assert_eq!(
                        got,
                        Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                        "{kernel}, {cut} bytes"
                    );
                    assert_eq!(out[n - 1], 0xA5A5_A5A5, "{kernel}: wrote past the end");
                }
            }
            let mut out = vec![0u32; n];
            assert_eq!(t::valid_utf8_to_utf32_into(s, &mut out), Ok(n));
            assert_eq!(out, want);
        }
    }
}

/// UTF-8 → UTF-32 of inputs of 20 to 40 KiB (past the AVX-512 kernel's output-alignment
/// threshold, 256 bytes, and the 32 KiB it was until 2026-11-28) into outputs at every 4-byte offset of a 64-byte line,
/// with guards on both sides: the masked head step that aligns the stores,
/// the aligned loop after it and the end all land where they should.
#[test]
fn large_outputs_at_every_alignment() {
    let ascii: String = "The quick brown fox jumps over the lazy dog. "
        .chars()
        .cycle()
        .take(40 << 10)
        .collect();
    let mixed: String = "Grüße, мир, 世界, 😀 and ASCII between. "
        .chars()
        .cycle()
        .take(20 << 10)
        .collect();
    let just_past = "a".repeat((32 << 10) - 1) + "é";
    for text in [&ascii, &mixed, &just_past] {
        let want = values(text);
        let n = want.len();
        for kernel in Kernel::available() {
            for shift in 0..16 {
                let mut buf = vec![0xA5A5_A5A5u32; n + 32];
                let got =
                    t::utf8_to_utf32_with(kernel, text.as_bytes(), &mut buf[shift..shift + n]);
                assert_eq!(got, Some(Ok(n)), "{kernel}, shift {shift}");
                assert!(
                    buf[..shift].iter().all(|&g| g == 0xA5A5_A5A5),
                    "{kernel}: wrote before"
                );
                assert!(
                    buf[shift..shift + n] == want[..],
                    "{kernel}, shift {shift}: values"
                );
                assert!(
                    buf[shift + n..].iter().all(|&g| g == 0xA5A5_A5A5),
                    "{kernel}: wrote past"
                );
                let got = t::valid_utf8_to_utf32_with(kernel, text, &mut buf[shift..shift + n]);
                assert_eq!(got, Some(Ok(n)), "{kernel}, shift {shift}, valid");
                assert!(
                    buf[shift..shift + n] == want[..],
                    "{kernel}, shift {shift}: valid values"
                );
            }
        }
    }
}

/// UTF-8 → UTF-32 of an ASCII start of every length around the AVX-512
/// kernel's blocks, then a character of each length or an invalid byte, then
/// more text, in inputs from 256 bytes on (where that kernel first aligns
/// its output, then hands the first block that is not ASCII over at the
/// input's own 64-byte phase, converting some ASCII again), into exact
/// outputs at every 4-byte offset of a 64-byte line, guarded on both sides:
/// std's values or `validate`'s error, for both flavours.
#[test]
fn ascii_starts_into_outputs_at_every_alignment() {
    for total in [256, 300, 700] {
        for ascii in [
            0, 1, 15, 16, 17, 48, 63, 64, 65, 100, 127, 128, 129, 191, 192, 193, 250,
        ] {
            for next in [Some('é'), Some('世'), Some('😀'), Some('\u{FFFF}'), None] {
                let bytes = common::ascii_start_then(ascii, next, total);
                let want = core::str::from_utf8(&bytes).map(values);
                let n = want.as_ref().map_or(bytes.len(), Vec::len);
                for kernel in Kernel::available() {
                    for shift in 0..16 {
                        let ctx = || {
                            format!(
                                "{kernel}, {ascii} ASCII then {next:?}, {} bytes, shift {shift}",
                                bytes.len()
                            )
                        };
                        let mut buf = vec![0xA5A5_A5A5u32; n + 32];
                        let got = t::utf8_to_utf32_with(kernel, &bytes, &mut buf[shift..shift + n]);
                        match &want {
                            Ok(v) => {
                                assert_eq!(got, Some(Ok(n)), "{}", ctx());
                                assert!(buf[shift..shift + n] == v[..], "{}: values", ctx());
                                let text = core::str::from_utf8(&bytes).unwrap();
                                let mut again = vec![0xA5A5_A5A5u32; n + 32];
                                let got = t::valid_utf8_to_utf32_with(
                                    kernel,
                                    text,
                                    &mut again[shift..shift + n],
                                );
                                assert_eq!(got, Some(Ok(n)), "{}, valid", ctx());
                                assert!(
                                    again[shift..shift + n] == v[..],
                                    "{}: valid values",
                                    ctx()
                                );
                                assert!(
                                    again[..shift]
                                        .iter()
                                        .chain(&again[shift + n..])
                                        .all(|&g| g == 0xA5A5_A5A5),
                                    "{}: valid wrote outside",
                                    ctx()
                                );
                            }
                            Err(e) => {
                                let got = got.map(|r| {
                                    r.map_err(|e| match e {
                                        TranscodeError::Invalid(e) => {
                                            (e.valid_up_to(), e.error_len())
                                        }
                                        other => panic!("{}: {other:?}", ctx()),
                                    })
                                });
                                assert_eq!(
                                    got,
                                    Some(Err((e.valid_up_to(), e.error_len()))),
                                    "{}",
                                    ctx()
                                );
                            }
                        }
                        assert!(
                            buf[..shift].iter().all(|&g| g == 0xA5A5_A5A5),
                            "{}: wrote before",
                            ctx()
                        );
                        assert!(
                            buf[shift + n..].iter().all(|&g| g == 0xA5A5_A5A5),
                            "{}: wrote past",
                            ctx()
                        );
                    }
                }
            }
        }
    }
}

/// Both directions on inputs past the AVX2 kernels' streaming threshold
/// (8 Mi bytes or values: the ASCII start converted with aligned
/// non-temporal stores), the output at 0, 1, 7 and 31 bytes (UTF-32 → UTF-8)
/// or values (UTF-8 → UTF-32) past a cache-line boundary, exact-size
/// buffers with guards on both sides and one short by one, with the first
/// non-ASCII character at the start, inside the aligning head, just after
/// it, in the middle and near the end, or an invalid value there.
#[test]
fn large_inputs_past_the_stream_threshold() {
    const LEN: usize = (8 << 20) + 77;
    let ascii: Vec<u32> = (0..LEN).map(|i| u32::from(b' ' + (i % 95) as u8)).collect();
    for pos in [
        None,
        Some(0),
        Some(5),
        Some(40),
        Some(64 + 3),
        Some(LEN / 2 + 1),
        Some(LEN - 9),
    ] {
        for with in [0xE9, 0x1F600, 0xD800] {
            let mut units = ascii.clone();
            if let Some(p) = pos {
                units[p] = with;
            }
            if with == 0xD800 && pos.is_none() {
                continue;
            }
            let (strict, _) = oracle(&units);
            for kernel in Kernel::available() {
                for mis in [0usize, 1, 7, 31] {
                    let ctx = || format!("{kernel}, {with:X} at {pos:?}, output at +{mis}");
                    match &strict {
                        Ok(s) => {
                            let n = s.len();
                            let mut buf = vec![GUARD; n + 64 + 1];
                            let shift = (mis + 64 - buf.as_ptr() as usize % 64) % 64;
                            let got =
                                t::utf32_to_utf8_with(kernel, &units, &mut buf[shift..shift + n]);
                            assert_eq!(got, Some(Ok(n)), "{}", ctx());
                            assert!(buf[shift..shift + n] == *s.as_bytes(), "{}", ctx());
                            assert!(buf[..shift].iter().all(|&b| b == GUARD), "{}", ctx());
                            assert!(buf[shift + n..].iter().all(|&b| b == GUARD), "{}", ctx());
                            buf.fill(GUARD);
                            let got = t::utf32_to_utf8_with(
                                kernel,
                                &units,
                                &mut buf[shift..shift + n - 1],
                            );
                            assert_eq!(
                                got,
                                Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                                "{}",
                                ctx()
                            );
                            assert!(
                                buf[shift + n - 1..].iter().all(|&b| b == GUARD),
                                "{}",
                                ctx()
                            );
                            // UTF-8 → UTF-32 of the same text.
                            let m = units.len();
                            let mut out = vec![0xA5A5_A5A5u32; m + 32 + 1];
                            let shift = (mis + 16 * 31 - out.as_ptr() as usize % 64 / 4) % 16
                                + mis / 16 * 16;
                            let got = t::utf8_to_utf32_with(
                                kernel,
                                s.as_bytes(),
                                &mut out[shift..shift + m],
                            );
                            assert_eq!(got, Some(Ok(m)), "{} (to UTF-32)", ctx());
                            assert!(out[shift..shift + m] == units[..], "{} (to UTF-32)", ctx());
                            assert!(out[..shift].iter().all(|&v| v == 0xA5A5_A5A5), "{}", ctx());
                            assert!(
                                out[shift + m..].iter().all(|&v| v == 0xA5A5_A5A5),
                                "{} (to UTF-32)",
                                ctx()
                            );
                            let got = t::utf8_to_utf32_with(
                                kernel,
                                s.as_bytes(),
                                &mut out[shift..shift + m - 1],
                            );
                            assert_eq!(
                                got,
                                Some(Err(TranscodeError::BufferTooSmall { needed: m })),
                                "{} (to UTF-32)",
                                ctx()
                            );
                        }
                        Err((i, v)) => {
                            let mut buf = vec![GUARD; 4 * LEN + 64];
                            let shift = (mis + 64 - buf.as_ptr() as usize % 64) % 64;
                            let got = t::utf32_to_utf8_with(kernel, &units, &mut buf[shift..]);
                            match got {
                                Some(Err(TranscodeError::Invalid(e))) => {
                                    assert_eq!((e.index(), e.value()), (*i, *v), "{}", ctx())
                                }
                                other => panic!("{}: {other:?}", ctx()),
                            }
                        }
                    }
                }
            }
        }
    }
}
