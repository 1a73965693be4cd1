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
    // The dispatched public function (which calls the fused kernel
    // directly on AVX-512) agrees with the detected kernel forced, into
    // buffers of every telling size, writing nothing past them.
    let need = want.as_ref().map_or(bytes.len(), Vec::len);
    for cap in [need, need.saturating_sub(1), need / 2, need + 3] {
        let mut a = vec![GUARD16; cap + 1];
        let mut b = vec![GUARD16; cap + 1];
        let got = t::utf8_to_utf16_into(bytes, &mut a[..cap]);
        let forced = t::utf8_to_utf16_with(Kernel::detected(), bytes, &mut b[..cap]);
        assert_eq!(
            Some(got),
            forced,
            "dispatch, {} bytes, cap {cap}",
            bytes.len()
        );
        assert_eq!(a[cap], GUARD16, "dispatch wrote past the end");
        if let Ok(n) = got {
            assert_eq!(a[..n], b[..n]);
        }
    }
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

/// A filler of each UTF-8 length, and 4-byte characters to mix into it.
const FILLERS: [char; 4] = ['a', 'é', '中', '😀'];
const SUPPLEMENTARY: [char; 3] = ['\u{10000}', '😀', '\u{10FFFF}'];

/// The 4-byte path of UTF-8 → UTF-16: one 4-byte character at every
/// character boundary of the first two blocks and a half (so at every lane
/// of a block, straddling block ends, and in the masked tail), in text of
/// each UTF-8 length; each input also cut to every length around the end
/// so the last character lands in a masked step.
#[test]
fn four_byte_character_at_every_position() {
    for filler in FILLERS {
        let base: String = core::iter::repeat_n(filler, 160 / filler.len_utf8()).collect();
        for (k, four) in SUPPLEMENTARY.iter().enumerate() {
            for at in (0..=base.len()).filter(|&i| base.is_char_boundary(i)) {
                let mut s = base.clone();
                s.insert(at, *four);
                // Cut the text after the inserted character at a few
                // lengths (rotating with `k` to keep the test short).
                let end = at + four.len_utf8();
                let cuts = [end, end + 1 + k, s.len()];
                for cut in cuts {
                    if let Some(prefix) = s.get(..cut) {
                        check_utf8(prefix.as_bytes());
                    }
                }
            }
        }
    }
}

/// Dense 4-byte text after every number of bytes of 1/2/3-byte characters
/// (so the 4-byte leads fall on every lane, runs straddle block ends and
/// blocks hold up to 16 of them), at every length to 200 bytes.
#[test]
fn four_byte_runs_after_every_prefix() {
    let run: String = "😀\u{10000}\u{10FFFF}𝄞".repeat(16);
    for prefix in ["a", "é", "中", "aé中"] {
        for count in 0..=24 {
            let mut s: String = prefix.repeat(count);
            s.push_str(&run);
            for len in (0..s.len().min(200)).filter(|&i| s.is_char_boundary(i)) {
                check_utf8(&s.as_bytes()[..len]);
            }
            check_utf8(s.as_bytes());
        }
    }
}

/// Every mix of character lengths in a repeating pattern, shifted to every
/// phase, long enough for several blocks and the masked tail.
#[test]
fn mixed_lengths_with_four_byte_characters() {
    let patterns: &[&[char]] = &[
        &['a', '😀'],
        &['é', '😀'],
        &['中', '😀'],
        &['a', 'é', '中', '😀'],
        &['😀', '😀', 'a'],
        &[
            '\u{10FFFF}',
            '\u{7F}',
            '\u{80}',
            '\u{7FF}',
            '\u{800}',
            '\u{FFFF}',
            '\u{10000}',
        ],
    ];
    for pattern in patterns {
        for phase in 0..pattern.len() {
            let s: String = pattern.iter().cycle().skip(phase).take(150).collect();
            check_utf8(s.as_bytes());
            for len in (s.len().saturating_sub(70)..s.len()).filter(|&i| s.is_char_boundary(i)) {
                check_utf8(&s.as_bytes()[..len]);
            }
        }
    }
}

/// Output buffers of every size short of the need, for text with 4-byte
/// characters: the exact need is reported and nothing is written past the
/// buffer (a guard unit after it survives).
#[test]
fn four_byte_text_into_every_short_buffer() {
    let s: String = ['a', 'é', '😀', '中', '😀', '😀', 'b']
        .iter()
        .cycle()
        .take(120)
        .collect();
    let want: Vec<u16> = s.encode_utf16().collect();
    let n = want.len();
    for kernel in Kernel::available() {
        for cap in 0..n {
            let mut out = vec![GUARD16; cap + 1];
            let got = t::utf8_to_utf16_with(kernel, s.as_bytes(), &mut out[..cap]);
            assert_eq!(
                got,
                Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                "{kernel}, cap {cap}"
            );
            assert_eq!(out[cap], GUARD16, "{kernel}, cap {cap}: wrote past the end");
            let mut bytes = vec![GUARD8; 2 * cap + 1];
            let got = t::utf8_to_utf16be_with(kernel, s.as_bytes(), &mut bytes[..2 * cap]);
            assert!(matches!(
                got,
                Some(Err(TranscodeError::BufferTooSmall { .. }))
            ));
            assert_eq!(
                bytes[2 * cap],
                GUARD8,
                "{kernel}, cap {cap}: wrote past the end"
            );
        }
    }
}

/// Invalid input heavy in 4-byte leads (runs of `F0`..`F4` without their
/// continuation bytes, and truncated 4-byte sequences) is rejected at
/// std's position by every kernel.
#[test]
fn invalid_runs_of_four_byte_leads() {
    for lead in [0xF0u8, 0xF4, 0xF5, 0xF8] {
        for len in [1usize, 15, 47, 48, 49, 63, 64, 65, 100, 130] {
            for prefix in 0..5 {
                let mut bytes = vec![b'a'; prefix];
                bytes.extend(core::iter::repeat_n(lead, len));
                check_utf8(&bytes);
                bytes.extend(core::iter::repeat_n(0x80u8, 20));
                check_utf8(&bytes);
            }
        }
    }
    let truncated = "😀".repeat(40);
    for cut in 1..4 {
        let mut bytes = truncated.as_bytes().to_vec();
        bytes.insert(4 * 17 + cut, b'a');
        check_utf8(&bytes);
    }
}

// The fused AVX-512 UTF-8 → UTF-16 kernel validates and converts in one
// loop over blocks that start where the previous conversion stopped (61 to
// 64 bytes on), skipping the check for all-ASCII blocks. These cases aim at
// its seams; `check_utf8` runs every kernel, exact buffers with guards.

/// Texts of 1-, 2-, 3- and 4-byte characters (and a mix), each at least
/// 400 bytes long.
fn fused_texts() -> Vec<String> {
    let mut texts: Vec<String> = ["abcdefgh", "абвгдежз", "日本語の文", "😀🎉👍🚀", "aé€😀"]
        .iter()
        .map(|s| s.repeat(420 / s.len() + 1))
        .collect();
    texts.push(mixed_text().to_string());
    texts
}

/// Bad bytes and sequences at and around every block boundary of the
/// first six blocks, in every kind of text: errors in the first, second
/// and later blocks, just before and just after a boundary, and as the
/// end of the input.
#[test]
fn fused_errors_around_block_boundaries() {
    let inserts: &[&[u8]] = &[
        b"\xFF",
        b"\x80",
        b"\xC1\xBF",
        b"\xE2\x82",
        b"\xE0\x80\x80",
        b"\xED\xBF\xBF",
        b"\xF4\x90\x80\x80",
        b"\xF0\x9F\x98",
        b"\xF8\x88\x80\x80\x80",
    ];
    for text in fused_texts() {
        for block in 0..6usize {
            for at in (64 * block).saturating_sub(4)..64 * block + 5 {
                for bad in [0xFFu8, 0x80, 0xBF, 0xC2, 0xE1, 0xF0, 0xF4] {
                    let mut bytes = text.as_bytes().to_vec();
                    bytes[at] = bad;
                    check_utf8(&bytes);
                    check_utf8(&bytes[..=at]);
                }
                let i = (0..=at)
                    .rev()
                    .find(|&i| text.is_char_boundary(i))
                    .unwrap_or(0);
                for insert in inserts {
                    let mut bytes = text.as_bytes().to_vec();
                    bytes.splice(i..i, insert.iter().copied());
                    check_utf8(&bytes);
                    check_utf8(&bytes[..i + insert.len()]);
                }
            }
        }
        // An error in the last block of a long input.
        let mut bytes = text.as_bytes().to_vec();
        let n = bytes.len();
        for back in 1..=70 {
            let saved = bytes[n - back];
            bytes[n - back] = 0xFF;
            check_utf8(&bytes);
            bytes[n - back] = saved;
        }
    }
}

/// A sequence cut short right before all-ASCII blocks (which the fused
/// kernel converts without a check), at every position around the first
/// boundaries, after a non-ASCII run and after an ASCII prefix.
#[test]
fn fused_unfinished_sequence_before_ascii_blocks() {
    let cuts: &[&[u8]] = &[
        b"\xC3",
        b"\xE2",
        b"\xE2\x82",
        b"\xF0",
        b"\xF0\x9F",
        b"\xF0\x9F\x98",
    ];
    for head in [
        "é".repeat(40),
        "a".repeat(80),
        "€".repeat(30),
        "😀".repeat(20),
    ] {
        for len in head.len().saturating_sub(70)..=head.len() {
            if !head.is_char_boundary(len) {
                continue;
            }
            for cut in cuts {
                for tail in [0usize, 1, 63, 64, 65, 200] {
                    let mut bytes = head.as_bytes()[..len].to_vec();
                    bytes.extend_from_slice(cut);
                    bytes.extend(std::iter::repeat_n(b'x', tail));
                    check_utf8(&bytes);
                    // Complete the sequence instead: valid.
                    let mut good = head.as_bytes()[..len].to_vec();
                    let full: &[u8] = match cut[0] {
                        0xC3 => "é".as_bytes(),
                        0xE2 => "€".as_bytes(),
                        _ => "😀".as_bytes(),
                    };
                    good.extend_from_slice(full);
                    good.extend(std::iter::repeat_n(b'x', tail));
                    check_utf8(&good);
                }
            }
        }
    }
}

/// A 4-byte (and a 3-byte) character at every position across the first
/// block boundaries, in ASCII and in 2-byte text, valid.
#[test]
fn fused_characters_straddling_blocks() {
    for fill in ["a", "é", "€"] {
        for ch in ["😀", "€", "é"] {
            for at in 50..200 {
                let mut text = fill.repeat(at / fill.len());
                text.push_str(ch);
                text.push_str(&fill.repeat(150 / fill.len()));
                check_utf8(text.as_bytes());
                check_utf8(&text.as_bytes()[..text.len() - 150 / fill.len() * fill.len()]);
            }
        }
    }
}

/// Buffers of every size too small for valid input: `BufferTooSmall` with
/// the exact need, the output a prefix of std's, nothing past the slice;
/// with an error later in the input, `Invalid` whatever the buffer.
#[test]
fn fused_small_buffers() {
    for text in fused_texts() {
        let text = &text[..t::floor_char_boundary(&text, 300)];
        let units: Vec<u16> = text.encode_utf16().collect();
        let n = units.len();
        let mut bad = text.as_bytes().to_vec();
        bad.extend_from_slice(b"ok\xE2\x28\xA1");
        let expected = utf8kit::validate(&bad).unwrap_err();
        for kernel in Kernel::available() {
            for cap in 0..n {
                let mut out = vec![GUARD16; cap + 1];
                let got = t::utf8_to_utf16_with(kernel, text.as_bytes(), &mut out[..cap]);
                assert_eq!(
                    got,
                    Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                    "{kernel}, cap {cap}"
                );
                assert_eq!(&out[..cap], &units[..cap], "{kernel}, cap {cap}");
                assert_eq!(out[cap], GUARD16, "{kernel}, cap {cap}: wrote past the end");
                let mut bytes = vec![GUARD8; 2 * cap + 1];
                let got = t::utf8_to_utf16be_with(kernel, text.as_bytes(), &mut bytes[..2 * cap]);
                assert_eq!(
                    got,
                    Some(Err(TranscodeError::BufferTooSmall { needed: 2 * n })),
                    "{kernel}, cap {cap} BE"
                );
                assert_eq!(
                    bytes[2 * cap],
                    GUARD8,
                    "{kernel}, cap {cap}: wrote past the end"
                );
                let got = t::utf8_to_utf16_with(kernel, &bad, &mut out[..cap]);
                assert_eq!(
                    got,
                    Some(Err(TranscodeError::Invalid(expected))),
                    "{kernel}, cap {cap}, error later"
                );
                assert_eq!(out[cap], GUARD16, "{kernel}, cap {cap}: wrote past the end");
            }
        }
    }
}

/// The AVX2 and SSE4.1 kernels' steps (16 or 32 bytes) against characters
/// of every length placed at every offset of the first blocks, with runs
/// of 1-, 2-, 3- and 4-byte text around them and short tails after.
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

/// The AVX2 and SSE4.1 UTF-16 → UTF-8 steps (8, 16 or 32 units): 1-, 2-
/// and 3-byte text of every length up to 40 units, then a character of each
/// kind (a pair or a lone surrogate among them, so blocks end inside a
/// pair), then text.
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

/// Inputs past the AVX-512 kernel's non-temporal threshold (8 MiB and
/// output room for as many units): ASCII widened at several output
/// alignments (aligned head, odd byte addresses that never align), then
/// a non-ASCII tail, an error after the ASCII, and a buffer one unit
/// short; every kernel, against std, with a guard after the output.
#[test]
fn large_ascii_outputs_at_several_alignments() {
    const BIG: usize = (8 << 20) + 200;
    let mut bytes: Vec<u8> = (0..BIG).map(|k| b'!' + (k % 93) as u8).collect();
    let tail = "é€😀 and more ASCII after it";
    bytes.extend_from_slice(tail.as_bytes());
    let units: Vec<u16> = std::str::from_utf8(&bytes)
        .unwrap()
        .encode_utf16()
        .collect();
    let n = units.len();
    for kernel in Kernel::available() {
        for shift in [0, 1, 7, 31] {
            let mut out = vec![GUARD16; shift + n + 1];
            let got = t::utf8_to_utf16_with(kernel, &bytes, &mut out[shift..shift + n]);
            assert_eq!(got, Some(Ok(n)), "{kernel} shift {shift}");
            assert!(out[shift..shift + n] == units[..], "{kernel} shift {shift}");
            assert!(out[..shift].iter().all(|&g| g == GUARD16));
            assert_eq!(out[shift + n], GUARD16, "{kernel}: wrote past the end");
            // The slot past the short slice holds the right unit from the
            // call above: put the guard back, or a write there goes unseen.
            out[shift + n - 1] = GUARD16;
            let got = t::utf8_to_utf16_with(kernel, &bytes, &mut out[shift..shift + n - 1]);
            assert_eq!(got, Some(Err(TranscodeError::BufferTooSmall { needed: n })));
            assert_eq!(out[shift + n - 1], GUARD16, "{kernel}: wrote past the end");
        }
        // UTF-16LE bytes at an odd address: the output never aligns.
        let le: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
        let mut out = vec![GUARD8; 2 * n + 2];
        let got = t::utf8_to_utf16le_with(kernel, &bytes, &mut out[1..2 * n + 1]);
        assert_eq!(got, Some(Ok(2 * n)), "{kernel} odd LE");
        assert!(out[1..2 * n + 1] == le[..], "{kernel} odd LE");
        assert_eq!(out[2 * n + 1], GUARD8, "{kernel}: wrote past the end");
        // An error just after the ASCII prefix.
        let mut bad = bytes.clone();
        bad[BIG + 3] = 0xFF;
        let expected = utf8kit::validate(&bad).unwrap_err();
        let mut out = vec![0u16; bad.len()];
        let got = t::utf8_to_utf16_with(kernel, &bad, &mut out);
        assert_eq!(
            got,
            Some(Err(TranscodeError::Invalid(expected))),
            "{kernel}"
        );
    }
}

/// ASCII inputs long enough for the AVX-512 kernel to align its output
/// first (512 bytes and more), at every output alignment, with and without
/// a non-ASCII character early (inside the aligning head) or later, into
/// exact buffers and one unit short, guard units around the output.
#[test]
fn ascii_outputs_at_every_alignment() {
    for len in [511, 512, 513, 700, 1024, 4096 + 33] {
        for bad in [None, Some(3), Some(40), Some(300)] {
            let mut s: String = (0..len)
                .map(|k| char::from(b'!' + (k % 93) as u8))
                .collect();
            if let Some(b) = bad {
                s.replace_range(b..b + 1, "é");
            }
            let bytes = s.as_bytes();
            let units: Vec<u16> = s.encode_utf16().collect();
            let n = units.len();
            for kernel in Kernel::available() {
                for shift in 0..32 {
                    let mut out = vec![GUARD16; shift + n + 1];
                    let got = t::utf8_to_utf16_with(kernel, bytes, &mut out[shift..shift + n]);
                    assert_eq!(got, Some(Ok(n)), "{kernel} {len} {bad:?} shift {shift}");
                    assert!(out[shift..shift + n] == units[..], "{kernel} shift {shift}");
                    assert!(out[..shift].iter().all(|&g| g == GUARD16));
                    assert_eq!(out[shift + n], GUARD16, "{kernel}: wrote past the end");
                    let mut out = vec![GUARD16; shift + n];
                    let got = t::utf8_to_utf16_with(kernel, bytes, &mut out[shift..shift + n - 1]);
                    assert_eq!(got, Some(Err(TranscodeError::BufferTooSmall { needed: n })));
                    assert_eq!(out[shift + n - 1], GUARD16, "{kernel}: wrote past the end");
                }
            }
            let mut bad_bytes = bytes.to_vec();
            bad_bytes[len / 2] = 0xFF;
            check_utf8(&bad_bytes);
        }
    }
}

/// UTF-16 → UTF-8 past the large-input threshold (8 Mi units: the ASCII
/// prefix narrowed with aligned non-temporal stores): the output at
/// several misalignments, a non-ASCII character (or an unpaired surrogate)
/// early, in the middle and late, exact buffers with guards on both sides,
/// and one short by a byte.
#[test]
fn large_utf16_to_utf8_stream() {
    const LEN: usize = (8 << 20) + 100;
    let ascii: Vec<u16> = (0..LEN as u32)
        .map(|k| u16::from(b' ') + (k % 90) as u16)
        .collect();
    for pos in [None, Some(10), Some(70), Some(LEN / 2 + 3), Some(LEN - 5)] {
        for bad in [0xE9u16, 0xD800] {
            let mut units = ascii.clone();
            if let Some(p) = pos {
                units[p] = bad;
            } else if bad != 0xE9 {
                continue;
            }
            let want = String::from_utf16(&units).ok();
            let n = String::from_utf16_lossy(&units).len();
            let be: Vec<u8> = units.iter().flat_map(|u| u.to_be_bytes()).collect();
            let mut scalar_out = vec![0u8; n];
            let scalar = t::utf16_to_utf8_with(Kernel::Scalar, &units, &mut scalar_out);
            for kernel in Kernel::available() {
                for mis in [0usize, 1, 7, 31] {
                    let ctx = || format!("{kernel}, {bad:04X} at {pos:?}, output at +{mis}");
                    let mut buf = vec![GUARD8; n + 64 + 1];
                    let shift = (mis + 64 - buf.as_ptr() as usize % 64) % 64;
                    let got = t::utf16_to_utf8_with(kernel, &units, &mut buf[shift..shift + n]);
                    assert_eq!(got, scalar, "{}", ctx());
                    if let Some(s) = &want {
                        assert_eq!(got, Some(Ok(n)), "{}", ctx());
                        assert!(&buf[shift..shift + n] == s.as_bytes(), "{}", ctx());
                    }
                    assert!(buf[..shift].iter().all(|&g| g == GUARD8), "{}", ctx());
                    assert!(buf[shift + n..].iter().all(|&g| g == GUARD8), "{}", ctx());
                    if mis == 7 {
                        buf.fill(GUARD8);
                        let got = t::utf16be_to_utf8_with(kernel, &be, &mut buf[shift..shift + n]);
                        assert_eq!(got, scalar, "{} BE", ctx());
                        if let Some(s) = &want {
                            assert!(&buf[shift..shift + n] == s.as_bytes(), "{} BE", ctx());
                        }
                        assert!(buf[shift + n..].iter().all(|&g| g == GUARD8), "{}", ctx());
                    }
                }
                if want.is_some() {
                    let mut small = vec![GUARD8; n];
                    assert_eq!(
                        t::utf16_to_utf8_with(kernel, &units, &mut small[..n - 1]),
                        Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                        "{kernel}, at {pos:?}"
                    );
                    assert_eq!(small[n - 1], GUARD8);
                }
            }
        }
    }
}

/// Three characters of UTF-8 length 1, 2 and 3 for lane `k` of a pattern
/// (different in every lane, so a value moved to the wrong lane shows).
fn pattern_char(len: u32, k: u32) -> char {
    let cp = match len {
        1 => 0x21 + 11 * k,
        2 => 0x80 + 0xDF * k,
        _ => 0x800 + 0x1F3F * k,
    };
    char::from_u32(cp).unwrap()
}

/// The `pshufb` packing steps of the SSE4.1 and AVX2 UTF-8 → UTF-16
/// kernels: every sequence of eight characters of 1, 2 and 3 bytes (every
/// lead-lane mask they make), at byte offsets 0 and 3 of a block and after
/// 13 bytes (so they straddle the 16-byte halves), with enough ASCII after
/// them for the lane steps to run.
#[test]
fn every_utf8_length_pattern_of_eight_characters() {
    for p in 0..3u32.pow(8) {
        let mut chars = String::new();
        let mut q = p;
        for k in 0..8 {
            chars.push(pattern_char(1 + q % 3, k));
            q /= 3;
        }
        for offset in [0, 3, 13] {
            let mut s = "x".repeat(offset);
            s.push_str(&chars);
            s.push_str(&"y".repeat(50));
            check_utf8(s.as_bytes());
        }
    }
}

/// The encoding steps of the SSE4.1 and AVX2 UTF-16 → UTF-8 kernels: every
/// pattern of eight units of 1, 2 and 3 UTF-8 bytes (every index of the
/// 2-byte table and of the 1-to-3-byte one), in the first and in the
/// second half of a 16-unit block, followed by enough text for the lane
/// steps to run.
#[test]
fn every_utf16_length_pattern_of_eight_units() {
    for p in 0..3u32.pow(8) {
        let mut units = Vec::new();
        let mut q = p;
        for k in 0..8 {
            units.push(pattern_char(1 + q % 3, k) as u16);
            q /= 3;
        }
        for (before, after) in [(0, 40), (8, 32)] {
            let mut v = vec![0xE9u16; before];
            v.extend_from_slice(&units);
            v.extend(std::iter::repeat_n(0x62, after));
            check_utf16(&v);
        }
    }
}

/// The length functions and the character count past the points where the
/// SIMD kernels flush their narrow counters (2032 bytes and 64 Ki units for
/// SSE4.1, 16 320 bytes for its count), on the inputs that grow the
/// counters fastest: bytes `F0..=FF` (2 units each, invalid but counted by
/// the same formula), ASCII units (2 bytes less each), surrogate pairs and
/// lone surrogates. Every kernel agrees with the scalar one and with std.
#[test]
fn length_counters_past_their_flush_points() {
    for len in [2031, 2032, 2033, 4100, 20_000] {
        let bytes = vec![0xFFu8; len];
        let scalar = t::utf16_len_from_utf8_with(Kernel::Scalar, &bytes);
        assert_eq!(scalar, Some(2 * len));
        for kernel in Kernel::available() {
            assert_eq!(
                t::utf16_len_from_utf8_with(kernel, &bytes),
                scalar,
                "{kernel} {len}"
            );
        }
    }
    for text in ["a", "é", "中", "😀", "a😀é中"] {
        let s = text.repeat(70_000 / text.len());
        let want = s.encode_utf16().count();
        for len in [16_319, 16_320, 16_321, 20_000, s.len()] {
            let mut end = len.min(s.len());
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            for kernel in Kernel::available() {
                let part = &s[..end];
                assert_eq!(
                    t::count_chars_with(kernel, part),
                    Some(part.chars().count()),
                    "{kernel} {text:?} {end}"
                );
            }
        }
        for kernel in Kernel::available() {
            assert_eq!(
                t::utf16_len_from_utf8_with(kernel, s.as_bytes()),
                Some(want),
                "{kernel} {text:?}"
            );
        }
    }
    let unit_runs: [&[u16]; 5] = [&[0x61], &[0x416], &[0x4E2D], &[0xD83D, 0xDE00], &[0xDE00]];
    for run in unit_runs {
        let units: Vec<u16> = run.repeat(140_000 / run.len());
        for len in [65_535, 65_536, 65_537, 65_544, units.len()] {
            let part = &units[..len];
            let want = String::from_utf16_lossy(part).len();
            for kernel in Kernel::available() {
                assert_eq!(
                    t::utf8_len_from_utf16_with(kernel, part),
                    Some(want),
                    "{kernel} {run:04X?} {len}"
                );
            }
        }
    }
}

/// The SSE4.1 kernels' steps for runs of 4-byte characters (16 bytes that
/// are four of them, in UTF-8) and of surrogate pairs (8 units that are
/// four of them, in UTF-16): runs of every length up to 12 characters after
/// every prefix up to 20 characters, then text of another kind, a lone
/// surrogate or the end.
#[test]
fn runs_of_supplementary_characters_at_every_offset() {
    let supplementary = ['😀', '\u{10000}', '\u{10FFFF}', '𝄞', '\u{1F3FD}'];
    for prefix in ['a', 'é', '中'] {
        for count in 0..=20 {
            for run in 0..=12 {
                let mut s: String = core::iter::repeat_n(prefix, count).collect();
                s.extend((0..run).map(|k| supplementary[k % supplementary.len()]));
                for suffix in ["", "a", "ab中é and more text after it, long", "😀x"] {
                    let mut s = s.clone();
                    s.push_str(suffix);
                    check_utf8(s.as_bytes());
                    let units: Vec<u16> = s.encode_utf16().collect();
                    check_utf16(&units);
                }
                let mut units: Vec<u16> = s.encode_utf16().collect();
                units.push(0xDC00);
                units.extend(std::iter::repeat_n(0x62, 20));
                check_utf16(&units);
                if run > 0 {
                    // The run's last low half replaced: its high half is
                    // lone.
                    let last = units.len() - 22;
                    units[last] = 0x63;
                    check_utf16(&units);
                }
            }
        }
    }
}

/// ASCII runs of every length up to 300 units, then a unit of every kind
/// and more ASCII: the AVX-512 kernel's 128-unit ASCII steps (after a
/// 32-unit step of ASCII) stop at every position, and end at every
/// distance from the input's end.
#[test]
fn ascii_runs_ending_at_every_position() {
    let tails: [&[u16]; 5] = [&[0xE9], &[0x20AC], &[0xD83D, 0xDE00], &[0xD800], &[0xDC00]];
    for n in 0..300u16 {
        let run: Vec<u16> = (0..n).map(|k| u16::from(b'a') + k % 26).collect();
        check_utf16(&run);
        for tail in tails {
            for after in [0, 1, 130] {
                let mut units = run.clone();
                units.extend_from_slice(tail);
                units.extend(std::iter::repeat_n(u16::from(b'z'), after));
                check_utf16(&units);
            }
        }
    }
}

/// Inputs of 64 to 262 bytes, alone and after 64 ASCII bytes (the fused
/// kernel first tries the 65 to 256 bytes after its ASCII prefix in blocks
/// at a fixed stride, each with a quick check, the continuation bytes that
/// a block's last leads ask for carried into the next): every length to
/// 130 and every fifth after it, in text of every character length, with a
/// bad byte written at every position and bad sequences inserted at every
/// character boundary.
#[test]
fn quick_block_inputs_with_an_error_at_every_position() {
    let inserts: &[&[u8]] = &[b"\xC0\xAF", b"\xE0\x80\x80", b"\xED\xA0\x80", b"\xE2\x82"];
    for (prefix, text) in [
        ("", "абвгдежз"),
        ("", "日本語の文"),
        ("", "aé€ü xyz"),
        ("", "xyzабв€😀"),
        (
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "éa€",
        ),
    ] {
        let long = prefix.to_string() + &text.repeat(300 / text.len() + 1);
        for len in (64..=130).chain((131..=262).step_by(5)) {
            let end = (0..=prefix.len() + len)
                .rev()
                .find(|&i| long.is_char_boundary(i))
                .unwrap_or(0);
            let base = &long.as_bytes()[..end];
            check_utf8(base);
            for at in prefix.len()..end {
                for bad in [0x80u8, 0xBF, 0xC1, 0xC2, 0xE0, 0xED, 0xF0, 0xFF] {
                    let mut bytes = base.to_vec();
                    bytes[at] = bad;
                    check_utf8(&bytes);
                }
                if long.is_char_boundary(at) {
                    for insert in inserts {
                        let mut bytes = base.to_vec();
                        bytes.splice(at..at, insert.iter().copied());
                        bytes.truncate(end);
                        check_utf8(&bytes);
                    }
                }
            }
        }
    }
}

/// UTF-8 → UTF-16 of an ASCII start of every length around the AVX-512
/// kernel's blocks, then a character of each length or an invalid byte, then
/// more text, in inputs from 512 bytes on (where that kernel first aligns
/// its output, then hands the first block that is not ASCII over at the
/// input's own 64-byte phase, widening some ASCII again), into exact
/// outputs at every 2-byte offset of a 64-byte line, guarded on both sides:
/// std's units or its error, for both flavours and both byte orders.
#[test]
fn ascii_starts_into_outputs_at_every_alignment() {
    for total in [512, 600, 1100] {
        for ascii in [
            0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200, 255, 256, 257, 400,
        ] {
            for next in [Some('é'), Some('世'), Some('😀'), None] {
                let bytes = common::ascii_start_then(ascii, next, total);
                let want = std_utf16(&bytes);
                let n = want.as_ref().map_or(bytes.len(), Vec::len);
                for kernel in Kernel::available() {
                    for shift in 0..32 {
                        let ctx = || {
                            format!(
                                "{kernel}, {ascii} ASCII then {next:?}, {} bytes, shift {shift}",
                                bytes.len()
                            )
                        };
                        let mut out = vec![GUARD16; n + 64];
                        let got = t::utf8_to_utf16_with(kernel, &bytes, &mut out[shift..shift + n]);
                        match &want {
                            Ok(units) => {
                                assert_eq!(got, Some(Ok(n)), "{}", ctx());
                                assert!(out[shift..shift + n] == units[..], "{}: units", ctx());
                                let text = std::str::from_utf8(&bytes).unwrap();
                                let mut again = vec![GUARD16; n + 64];
                                let got = (kernel == Kernel::detected()).then(|| {
                                    t::valid_utf8_to_utf16_into(text, &mut again[shift..shift + n])
                                });
                                if let Some(got) = got {
                                    assert_eq!(got, Ok(n), "{}, valid", ctx());
                                    assert!(
                                        again[shift..shift + n] == units[..],
                                        "{}: valid",
                                        ctx()
                                    );
                                }
                                assert!(
                                    again[..shift]
                                        .iter()
                                        .chain(&again[shift + n..])
                                        .all(|&g| g == GUARD16),
                                    "{}: valid wrote outside",
                                    ctx()
                                );
                                let be: Vec<u8> =
                                    units.iter().flat_map(|u| u.to_be_bytes()).collect();
                                let mut out_be = vec![GUARD8; 2 * n + 128];
                                let got = t::utf8_to_utf16be_with(
                                    kernel,
                                    &bytes,
                                    &mut out_be[2 * shift..2 * (shift + n)],
                                );
                                assert_eq!(got, Some(Ok(2 * n)), "{}, BE", ctx());
                                assert!(
                                    out_be[2 * shift..2 * (shift + n)] == be[..],
                                    "{}: BE",
                                    ctx()
                                );
                                assert!(
                                    out_be[..2 * shift]
                                        .iter()
                                        .chain(&out_be[2 * (shift + n)..])
                                        .all(|&g| g == GUARD8),
                                    "{}: BE wrote outside",
                                    ctx()
                                );
                            }
                            Err((valid_up_to, error_len)) => {
                                let got = got.map(|r| {
                                    r.map_err(|e| match e {
                                        TranscodeError::Invalid(e) => {
                                            (e.valid_up_to(), e.error_len())
                                        }
                                        other => panic!("{}: {other:?}", ctx()),
                                    })
                                });
                                assert_eq!(got, Some(Err((*valid_up_to, *error_len))), "{}", ctx());
                            }
                        }
                        assert!(
                            out[..shift].iter().all(|&g| g == GUARD16),
                            "{}: wrote before",
                            ctx()
                        );
                        assert!(
                            out[shift + n..].iter().all(|&g| g == GUARD16),
                            "{}: wrote past",
                            ctx()
                        );
                    }
                }
            }
        }
    }
}

/// ASCII text with one unit outside ASCII at every position of the first
/// blocks (the main loop's steps of 32 units take such a step apart:
/// narrowed as ASCII, the character's bytes put where it stands, the rest
/// shifted after them), of every UTF-8 length and a lone surrogate of each
/// half; alone, with a second one further on, and two in one step.
#[test]
fn one_unit_outside_ascii_at_every_position() {
    let kinds = [
        0x80u16, 0xE9, 0x7FF, 0x800, 0x2019, 0xFFFD, 0xFFFF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF,
    ];
    for kind in kinds {
        for at in 0..100 {
            let mut v: Vec<u16> = (0..140u16).map(|k| 0x20 + k % 90).collect();
            v[at] = kind;
            check_utf16(&v);
            v[at + 37] = 0x2014;
            check_utf16(&v);
            v[at + 37] = 0x61;
            v[at + 1] = 0x416;
            check_utf16(&v);
        }
    }
}
