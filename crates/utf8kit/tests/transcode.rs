//! Differential tests of `utf8kit::transcode` against std.
//!
//! Oracles: `str::encode_utf16`, `char::decode_utf16`, `String::from_utf16`,
//! `String::from_utf16_lossy`, `char::from_u32`, `chars`/`char_indices`,
//! `str::is_char_boundary`, `core::str::from_utf8` and `<[u8]>::utf8_chunks`
//! (and `utf8kit::validate`, whose own tests check it against
//! `core::str::from_utf8`). Exhaustive where the input space is small, proptest
//! beyond; the byte dumps of the seeds are checked literally.

use core::convert::Infallible;
use core::fmt::Debug;

use proptest::prelude::*;
use utf8kit::transcode::{self as t, Latin1Error, TranscodeError, Utf16Error};
use utf8kit::{Utf8Error, Utf8ErrorKind};

// ---------------------------------------------------------------------------
// Oracles and helpers
// ---------------------------------------------------------------------------

/// What every `_into` function must do for an input whose output is
/// `expected`: fill an exact buffer and stop there, report the exact length
/// for any shorter buffer, and never write past the slice it is given. Each
/// check runs with two different guard values, so a stray write is caught
/// whatever value it writes.
#[track_caller]
fn check_into<T, E>(
    expected: &[T],
    guards: [T; 2],
    mut f: impl FnMut(&mut [T]) -> Result<usize, TranscodeError<E>>,
) where
    T: Copy + PartialEq + Debug,
    E: PartialEq + Debug,
{
    let n = expected.len();
    for guard in guards {
        // Exact size, one guard element after the slice.
        let mut buf = vec![guard; n + 1];
        assert_eq!(f(&mut buf[..n]), Ok(n), "exact buffer");
        assert_eq!(&buf[..n], expected);
        assert_eq!(buf[n], guard, "written past the output length");
        // Larger buffer: nothing past the output length.
        let mut buf = vec![guard; n + 3];
        assert_eq!(f(&mut buf), Ok(n), "larger buffer");
        assert_eq!(&buf[..n], expected);
        assert!(
            buf[n..].iter().all(|&g| g == guard),
            "written past the output length"
        );
        // One short: the exact need, and nothing written past the slice.
        if n > 0 {
            let mut buf = vec![guard; n];
            assert_eq!(
                f(&mut buf[..n - 1]),
                Err(TranscodeError::BufferTooSmall { needed: n }),
                "short buffer"
            );
            assert_eq!(buf[n - 1], guard, "written past a short buffer");
            assert_eq!(
                f(&mut []),
                Err(TranscodeError::BufferTooSmall { needed: n })
            );
        }
    }
}

/// The error an `_into` function must report for invalid input, whatever the
/// size of the buffer.
#[track_caller]
fn check_into_err<T, E>(
    expected: E,
    guard: T,
    mut f: impl FnMut(&mut [T]) -> Result<usize, TranscodeError<E>>,
) where
    T: Copy + PartialEq + Debug,
    E: PartialEq + Debug + Copy,
{
    for len in [0, 1, 3, 64] {
        let mut buf = vec![guard; len + 1];
        assert_eq!(
            f(&mut buf[..len]),
            Err(TranscodeError::Invalid(expected)),
            "buffer of {len}"
        );
        assert_eq!(buf[len], guard);
    }
}

/// UTF-16LE/BE bytes of `units`, built with std's `to_le_bytes`/`to_be_bytes`.
fn le_bytes(units: &[u16]) -> Vec<u8> {
    units.iter().flat_map(|u| u.to_le_bytes()).collect()
}
fn be_bytes(units: &[u16]) -> Vec<u8> {
    units.iter().flat_map(|u| u.to_be_bytes()).collect()
}

/// std's verdict on UTF-16: the string, or the index of the first unpaired
/// surrogate (from `char::decode_utf16`, counting units).
fn std_utf16(units: &[u16]) -> Result<String, (usize, u16)> {
    let mut index = 0;
    let mut out = String::new();
    for r in char::decode_utf16(units.iter().copied()) {
        match r {
            Ok(c) => {
                out.push(c);
                index += c.len_utf16();
            }
            Err(e) => return Err((index, e.unpaired_surrogate())),
        }
    }
    assert_eq!(Ok(&out), String::from_utf16(units).as_ref().map_err(|_| ()));
    Ok(out)
}

/// The lossy UTF-8 length std implies: the length of `from_utf16_lossy`.
fn std_lossy_len(units: &[u16]) -> usize {
    String::from_utf16_lossy(units).len()
}

/// Checks every UTF-16 → UTF-8 entry point on `units` against std.
#[track_caller]
fn check_utf16(units: &[u16]) {
    let lossy = String::from_utf16_lossy(units);
    assert_eq!(t::utf16_to_utf8_lossy(units), lossy, "lossy {units:04X?}");
    assert_eq!(
        t::utf8_len_from_utf16(units),
        lossy.len(),
        "len {units:04X?}"
    );
    assert_eq!(t::utf16le_to_utf8_lossy(&le_bytes(units)), lossy);
    assert_eq!(t::utf16be_to_utf8_lossy(&be_bytes(units)), lossy);
    let mut buf = vec![0xFFu8; lossy.len() + 1];
    assert_eq!(
        t::utf16_to_utf8_lossy_into(units, &mut buf[..lossy.len()]),
        Ok(lossy.len())
    );
    assert_eq!(&buf[..lossy.len()], lossy.as_bytes());
    assert_eq!(buf[lossy.len()], 0xFF);
    match std_utf16(units) {
        Ok(s) => {
            assert_eq!(t::utf16_to_utf8(units).as_deref(), Ok(&*s), "{units:04X?}");
            assert_eq!(t::utf16le_to_utf8(&le_bytes(units)).as_deref(), Ok(&*s));
            assert_eq!(t::utf16be_to_utf8(&be_bytes(units)).as_deref(), Ok(&*s));
            let mut buf = vec![0xFFu8; s.len() + 1];
            assert_eq!(
                t::utf16_to_utf8_into(units, &mut buf[..s.len()]),
                Ok(s.len())
            );
            assert_eq!(&buf[..s.len()], s.as_bytes());
            assert_eq!(buf[s.len()], 0xFF);
        }
        Err((index, unit)) => {
            let want = Utf16Error::UnpairedSurrogate { index, unit };
            assert_eq!(t::utf16_to_utf8(units), Err(want), "{units:04X?}");
            assert_eq!(want.index(), index);
            assert_eq!(t::utf16le_to_utf8(&le_bytes(units)), Err(want));
            assert_eq!(t::utf16be_to_utf8(&be_bytes(units)), Err(want));
            let mut buf = [0u8; 16];
            assert_eq!(
                t::utf16_to_utf8_into(units, &mut buf),
                Err(TranscodeError::Invalid(want))
            );
            assert_eq!(
                t::utf16_to_utf8_into(units, &mut []),
                Err(TranscodeError::Invalid(want))
            );
        }
    }
}

/// Checks every UTF-8 → X entry point on `bytes` against `validate` and std.
#[track_caller]
fn check_utf8_bytes(bytes: &[u8]) {
    let verdict = utf8kit::validate(bytes);
    match core::str::from_utf8(bytes) {
        Ok(s) => {
            assert_eq!(verdict, Ok(()));
            let units: Vec<u16> = s.encode_utf16().collect();
            let scalars: Vec<u32> = s.chars().map(u32::from).collect();
            assert_eq!(t::utf8_to_utf16(bytes).as_ref(), Ok(&units), "{bytes:02X?}");
            assert_eq!(
                t::utf8_to_utf32(bytes).as_ref(),
                Ok(&scalars),
                "{bytes:02X?}"
            );
            assert_eq!(t::utf16_len_from_utf8(bytes), units.len());
            assert_eq!(t::count_chars(s), scalars.len());
            let latin1: Option<Vec<u8>> = s.chars().map(|c| u8::try_from(c).ok()).collect();
            match latin1 {
                Some(l) => assert_eq!(t::utf8_to_latin1(bytes), Ok(l)),
                None => {
                    let (offset, ch) = s
                        .char_indices()
                        .find(|&(_, c)| u32::from(c) > 0xFF)
                        .unwrap();
                    assert_eq!(
                        t::utf8_to_latin1(bytes),
                        Err(Latin1Error::Unrepresentable { offset, ch })
                    );
                }
            }
        }
        Err(std_err) => {
            let err: Utf8Error = verdict.expect_err("validate accepted invalid input");
            assert_eq!(err.valid_up_to(), std_err.valid_up_to());
            assert_eq!(err.error_len(), std_err.error_len());
            assert_eq!(t::utf8_to_utf16(bytes), Err(err), "{bytes:02X?}");
            assert_eq!(t::utf8_to_utf32(bytes), Err(err), "{bytes:02X?}");
            check_into_err(err, 0xAAAAu16, |b| t::utf8_to_utf16_into(bytes, b));
            check_into_err(err, 0xAAAA_AAAAu32, |b| t::utf8_to_utf32_into(bytes, b));
            check_into_err(err, 0xAAu8, |b| t::utf8_to_utf16le_into(bytes, b));
            check_into_err(err, 0xAAu8, |b| t::utf8_to_utf16be_into(bytes, b));
            // Latin-1 reports the first problem: an unrepresentable character
            // in the valid prefix, or else the UTF-8 error.
            let prefix = core::str::from_utf8(&bytes[..err.valid_up_to()]).unwrap();
            let want = match prefix.char_indices().find(|&(_, c)| u32::from(c) > 0xFF) {
                Some((offset, ch)) => Latin1Error::Unrepresentable { offset, ch },
                None => Latin1Error::InvalidUtf8(err),
            };
            assert_eq!(t::utf8_to_latin1(bytes), Err(want), "{bytes:02X?}");
            check_into_err(want, 0xAAu8, |b| t::utf8_to_latin1_into(bytes, b));
        }
    }
}

/// Checks every entry point that takes valid text, with the `_into` buffer
/// contract, against std.
#[track_caller]
fn check_str(s: &str) {
    let bytes = s.as_bytes();
    check_utf8_bytes(bytes);
    let units: Vec<u16> = s.encode_utf16().collect();
    let scalars: Vec<u32> = s.chars().map(u32::from).collect();
    check_into(&units, [0xAAAA, 0x5555], |b| {
        t::utf8_to_utf16_into(bytes, b)
    });
    check_into(&scalars, [0xAAAA_AAAA, 0x5555_5555], |b| {
        t::utf8_to_utf32_into(bytes, b)
    });
    let le = le_bytes(&units);
    let be = be_bytes(&units);
    assert_eq!(t::utf8_to_utf16le(s), le);
    assert_eq!(t::utf8_to_utf16be(s), be);
    check_into(&le, [0xAA, 0x55], |b| t::utf8_to_utf16le_into(bytes, b));
    check_into(&be, [0xAA, 0x55], |b| t::utf8_to_utf16be_into(bytes, b));
    // Back again.
    check_utf16(&units);
    check_into(bytes, [0xAA, 0x55], |b| t::utf16_to_utf8_into(&units, b));
    check_into(bytes, [0xAA, 0x55], |b| {
        t::utf16_to_utf8_lossy_into(&units, b)
    });
    check_into(bytes, [0xAA, 0x55], |b| t::utf16le_to_utf8_into(&le, b));
    check_into(bytes, [0xAA, 0x55], |b| t::utf16be_to_utf8_into(&be, b));
    assert_eq!(t::utf32_to_utf8(&scalars).as_deref(), Ok(s));
    assert_eq!(t::utf32_to_utf8_lossy(&scalars), s);
    assert_eq!(t::utf8_len_from_utf32(&scalars), s.len());
    check_into(bytes, [0xAA, 0x55], |b| t::utf32_to_utf8_into(&scalars, b));
    check_into(bytes, [0xAA, 0x55], |b| {
        t::utf32_to_utf8_lossy_into(&scalars, b)
    });
    // Latin-1, where representable.
    assert_eq!(t::latin1_len_from_utf8(s), s.chars().count());
    if let Some(latin1) = s
        .chars()
        .map(|c| u8::try_from(c).ok())
        .collect::<Option<Vec<u8>>>()
    {
        check_into(&latin1, [0xAA, 0x55], |b| t::utf8_to_latin1_into(bytes, b));
        check_latin1(&latin1);
    }
}

/// Checks Latin-1 → UTF-8 against `char::from(u8)`.
#[track_caller]
fn check_latin1(latin1: &[u8]) {
    let want: String = latin1.iter().map(|&b| char::from(b)).collect();
    assert_eq!(t::latin1_to_utf8(latin1), want);
    assert_eq!(t::utf8_len_from_latin1(latin1), want.len());
    let mut appended = String::from("prefix é ");
    t::latin1_to_utf8_into_string(latin1, &mut appended);
    assert_eq!(appended, format!("prefix é {want}"));
    check_into(
        want.as_bytes(),
        [0xAA, 0x55],
        |b| -> Result<usize, TranscodeError<Infallible>> { t::latin1_to_utf8_into(latin1, b) },
    );
}

/// Multilingual text: the seeds' examples (Chinese, Russian, Tatar, Hessian's
/// emoji), plus ASCII runs long enough for the word-at-a-time paths.
const SAMPLES: &[&str] = &[
    "",
    "a",
    "D瓜哥",
    "https://www.diguage.com",
    "👍👍👍,老李卖瓜,自卖自夸,😂😂😂",
    "世界 😀 큀",
    "Переход с CP1251 на UTF-8: кодировка, файлы, базы данных",
    "Татарча: әйе, ңа, өй, үз, җир, һава",
    "Grüße, café, naïve, £5, ÿ",
    "mixed ascii run of more than sixteen bytes then é and 𝄞 then more ascii text",
    "\u{7F}\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFD}\u{FFFF}\u{10000}\u{10FFFF}",
    "abcdefgh\u{80}abcdefg\u{800}abcdef\u{10000}abcde",
];

// ---------------------------------------------------------------------------
// Seeds
// ---------------------------------------------------------------------------

/// The Java `getBytes` dumps of seed 004 and the worked examples of seed 000.
#[test]
fn seed_byte_dumps() {
    // (text, UTF-8, UTF-16BE, UTF-16LE), seed 004.
    type Dump<'a> = (&'a str, &'a [u8], &'a [u8], &'a [u8]);
    let dumps: &[Dump] = &[
        ("D", &[0x44], &[0x00, 0x44], &[0x44, 0x00]),
        ("Å", &[0xC3, 0x85], &[0x00, 0xC5], &[0xC5, 0x00]),
        ("瓜", &[0xE7, 0x93, 0x9C], &[0x74, 0xDC], &[0xDC, 0x74]),
        (
            "😂",
            &[0xF0, 0x9F, 0x98, 0x82],
            &[0xD8, 0x3D, 0xDE, 0x02],
            &[0x3D, 0xD8, 0x02, 0xDE],
        ),
        (
            "👍",
            &[0xF0, 0x9F, 0x91, 0x8D],
            &[0xD8, 0x3D, 0xDC, 0x4D],
            &[0x3D, 0xD8, 0x4D, 0xDC],
        ),
    ];
    for &(text, utf8, be, le) in dumps {
        assert_eq!(text.as_bytes(), utf8);
        assert_eq!(t::utf8_to_utf16be(text), be, "{text}");
        assert_eq!(t::utf8_to_utf16le(text), le, "{text}");
        assert_eq!(t::utf16be_to_utf8(be).as_deref(), Ok(text));
        assert_eq!(t::utf16le_to_utf8(le).as_deref(), Ok(text));
        assert_eq!(t::utf16_len_from_utf8(utf8), be.len() / 2);
        check_str(text);
    }
    // Seed 004: U+1F602 is the pair D83D DE02.
    assert_eq!(t::utf8_to_utf16("😂".as_bytes()).unwrap(), [0xD83D, 0xDE02]);

    // Seed 000: 世 E4 B8 96, 😀 F0 9F 98 80, 큀 ED 81 80 decode; ED A0 80 and
    // C0 AF must be rejected.
    assert_eq!(t::utf8_to_utf32(b"\xE4\xB8\x96").unwrap(), [0x4E16]);
    assert_eq!(t::utf8_to_utf32(b"\xF0\x9F\x98\x80").unwrap(), [0x1F600]);
    assert_eq!(t::utf8_to_utf32(b"\xED\x81\x80").unwrap(), [0xD040]);
    let err = t::utf8_to_utf16(b"\xED\xA0\x80").unwrap_err();
    assert_eq!(
        (err.valid_up_to(), err.error_len(), err.kind()),
        (0, Some(1), Utf8ErrorKind::Surrogate)
    );
    let err = t::utf8_to_utf16(b"\xC0\xAF").unwrap_err();
    assert_eq!(
        (err.valid_up_to(), err.error_len(), err.kind()),
        (0, Some(1), Utf8ErrorKind::Overlong)
    );
    for s in SAMPLES {
        check_str(s);
    }
}

// ---------------------------------------------------------------------------
// Exhaustive
// ---------------------------------------------------------------------------

/// Every scalar value, alone and between ASCII runs that make the kernels
/// leave and re-enter their word-at-a-time paths.
#[test]
fn every_scalar_value() {
    let mut all = String::new();
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        let mut b8 = [0u8; 4];
        let s = c.encode_utf8(&mut b8);
        let mut b16 = [0u16; 2];
        let units = c.encode_utf16(&mut b16);
        let n = units.len();
        let mut out16 = [0xAAAAu16; 3];
        assert_eq!(t::utf8_to_utf16_into(s.as_bytes(), &mut out16[..n]), Ok(n));
        assert_eq!((&out16[..n], out16[n]), (&*units, 0xAAAA), "{c:?}");
        let mut out32 = [0u32; 1];
        assert_eq!(t::utf8_to_utf32_into(s.as_bytes(), &mut out32), Ok(1));
        assert_eq!(out32[0], u32::from(c));
        let mut out8 = [0xAAu8; 5];
        let len = s.len();
        assert_eq!(t::utf16_to_utf8_into(units, &mut out8[..len]), Ok(len));
        assert_eq!((&out8[..len], out8[len]), (s.as_bytes(), 0xAA), "{c:?}");
        let mut out8 = [0xAAu8; 5];
        assert_eq!(
            t::utf32_to_utf8_into(&[u32::from(c)], &mut out8[..len]),
            Ok(len)
        );
        assert_eq!((&out8[..len], out8[len]), (s.as_bytes(), 0xAA), "{c:?}");
        assert_eq!(t::utf16_len_from_utf8(s.as_bytes()), n);
        assert_eq!(t::utf8_len_from_utf16(units), len);
        assert_eq!(t::utf8_len_from_utf32(&[u32::from(c)]), len);
        assert_eq!(t::count_chars(s), 1);
        if u32::from(c) < 0x100 {
            let mut l = [0u8; 1];
            assert_eq!(t::utf8_to_latin1_into(s.as_bytes(), &mut l), Ok(1));
            assert_eq!(u32::from(l[0]), u32::from(c));
        } else {
            assert_eq!(
                t::utf8_to_latin1_into(s.as_bytes(), &mut [0u8; 4]),
                Err(TranscodeError::Invalid(Latin1Error::Unrepresentable {
                    offset: 0,
                    ch: c
                }))
            );
        }
        all.push(c);
        if u32::from(c) % 61 == 0 {
            all.push_str("0123456789abcdef");
        }
    }
    // The whole of Unicode at once, through the allocating functions.
    let units: Vec<u16> = all.encode_utf16().collect();
    assert_eq!(t::utf8_to_utf16(all.as_bytes()).unwrap(), units);
    assert_eq!(t::utf16_to_utf8(&units).unwrap(), all);
    assert_eq!(t::utf16_to_utf8_lossy(&units), all);
    let scalars: Vec<u32> = all.chars().map(u32::from).collect();
    assert_eq!(t::utf8_to_utf32(all.as_bytes()).unwrap(), scalars);
    assert_eq!(t::utf32_to_utf8(&scalars).unwrap(), all);
    assert_eq!(t::utf8_to_utf16le(&all), le_bytes(&units));
    assert_eq!(t::utf16be_to_utf8(&be_bytes(&units)).unwrap(), all);
    assert_eq!(t::count_chars(&all), scalars.len());
    assert_eq!(t::utf16_len_from_utf8(all.as_bytes()), units.len());
    assert_eq!(t::utf8_len_from_utf16(&units), all.len());
}

/// Every input of one, two and three bytes, compared with `validate` (the
/// error must be the same value) and with std.
#[test]
fn every_short_utf8_input() {
    let mut out16 = [0u16; 4];
    let mut out32 = [0u32; 4];
    let mut check = |input: &[u8]| {
        let verdict = utf8kit::validate(input);
        let r16 = t::utf8_to_utf16_into(input, &mut out16);
        let r32 = t::utf8_to_utf32_into(input, &mut out32);
        match core::str::from_utf8(input) {
            Ok(s) => {
                assert!(verdict.is_ok());
                let n = r16.unwrap();
                assert!(
                    s.encode_utf16().eq(out16[..n].iter().copied()),
                    "{input:02X?}"
                );
                let n = r32.unwrap();
                assert!(
                    s.chars().map(u32::from).eq(out32[..n].iter().copied()),
                    "{input:02X?}"
                );
                assert_eq!(t::utf16_len_from_utf8(input), s.encode_utf16().count());
            }
            Err(e) => {
                let err = verdict.unwrap_err();
                assert_eq!(
                    (err.valid_up_to(), err.error_len()),
                    (e.valid_up_to(), e.error_len())
                );
                assert_eq!(r16, Err(TranscodeError::Invalid(err)), "{input:02X?}");
                assert_eq!(r32, Err(TranscodeError::Invalid(err)), "{input:02X?}");
            }
        }
    };
    for a in 0..=255u8 {
        check(&[a]);
        for b in 0..=255u8 {
            check(&[a, b]);
            for c in 0..=255u8 {
                check(&[a, b, c]);
            }
        }
    }
    // The allocating function agrees with validate on a sample of them
    // (every first byte × every second byte × a few third bytes).
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            for c in [0x00, 0x7F, 0x80, 0xBF, 0xC2, 0xFF] {
                let input = [a, b, c];
                match utf8kit::validate(&input) {
                    Ok(()) => assert!(t::utf8_to_utf16(&input).is_ok()),
                    Err(e) => assert_eq!(t::utf8_to_utf16(&input), Err(e)),
                }
            }
        }
    }
}

/// Four-byte inputs: every lead from C0 up, every second and fourth byte, and
/// third bytes at every class boundary.
#[test]
fn four_byte_utf8_inputs() {
    let mut out16 = [0u16; 8];
    for a in 0xC0..=0xFFu8 {
        for b in 0..=255u8 {
            for c in [0x41, 0x7F, 0x80, 0x8F, 0x90, 0xA0, 0xBF, 0xC2, 0xF0] {
                for d in 0..=255u8 {
                    let input = [a, b, c, d];
                    let r = t::utf8_to_utf16_into(&input, &mut out16);
                    match core::str::from_utf8(&input) {
                        Ok(s) => {
                            let n = r.unwrap();
                            assert!(
                                s.encode_utf16().eq(out16[..n].iter().copied()),
                                "{input:02X?}"
                            );
                        }
                        Err(_) => {
                            let err = utf8kit::validate(&input).unwrap_err();
                            assert_eq!(r, Err(TranscodeError::Invalid(err)), "{input:02X?}");
                        }
                    }
                }
            }
        }
    }
}

/// Every single UTF-16 code unit, alone and inside ASCII.
#[test]
fn every_utf16_unit() {
    for u in 0..=u16::MAX {
        check_utf16(&[u]);
        check_utf16(&[0x41, 0x42, 0x43, 0x44, u, 0x45, 0x46, 0x47, 0x48]);
        // Next to NULs, so that a unit is the only non-zero one of the
        // four the ASCII fast path tests together.
        check_utf16(&[u, 0, 0, 0]);
        check_utf16(&[0, 0, 0, u, 0]);
    }
}

/// Every byte and every 2-byte input at every position of a word of NULs
/// and of a word of ASCII letters: the word-at-a-time paths must hand over
/// to the per-character path at exactly the right byte.
#[test]
fn every_byte_pair_at_every_word_position() {
    for fill in [0u8, b'a'] {
        for pos in 0..9 {
            for a in 0..=255u8 {
                let mut v = vec![fill; 17];
                v[pos] = a;
                check_utf8_bytes(&v);
                for b in [0x00, 0x41, 0x80, 0x9F, 0xA0, 0xBF, 0xC0] {
                    v[pos + 1] = b;
                    check_utf8_bytes(&v);
                }
            }
        }
    }
}

/// Every high surrogate followed by every low surrogate (all valid pairs), and
/// every surrogate next to the values at the boundaries of each class.
#[test]
fn surrogate_pairs() {
    let mut out = [0u8; 4];
    for hi in 0xD800..=0xDBFFu16 {
        for lo in 0xDC00..=0xDFFFu16 {
            let c = char::decode_utf16([hi, lo]).next().unwrap().unwrap();
            assert_eq!(t::utf16_to_utf8_into(&[hi, lo], &mut out), Ok(4));
            assert_eq!(out, *c.to_string().as_bytes(), "{hi:04X} {lo:04X}");
        }
    }
    let boundary = [
        0x0000, 0x0041, 0x007F, 0x0080, 0x07FF, 0x0800, 0xD7FF, 0xD800, 0xDB7F, 0xDB80, 0xDBFF,
        0xDC00, 0xDFFF, 0xE000, 0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF,
    ];
    for s in 0xD800..=0xDFFFu16 {
        for &v in &boundary {
            check_utf16(&[s, v]);
            check_utf16(&[v, s]);
            check_utf16(&[s, v, s]);
            check_utf16(&[0x61, 0x62, 0x63, 0x64, s, v]);
        }
    }
}

/// UTF-16 bytes: odd lengths are an error before anything else, and a final
/// odd byte becomes U+FFFD in the lossy functions.
#[test]
fn utf16_byte_framing() {
    for len in 0..8 {
        let bytes: Vec<u8> = (0..len)
            .map(|i| if i % 2 == 0 { 0x41 } else { 0 })
            .collect();
        let le = t::utf16le_to_utf8(&bytes);
        if len % 2 == 1 {
            assert_eq!(le, Err(Utf16Error::OddLength { len }));
            assert_eq!(
                t::utf16be_to_utf8(&bytes),
                Err(Utf16Error::OddLength { len })
            );
            assert_eq!(Utf16Error::OddLength { len }.index(), len / 2);
            let mut buf = [0u8; 16];
            assert_eq!(
                t::utf16le_to_utf8_into(&bytes, &mut buf),
                Err(TranscodeError::Invalid(Utf16Error::OddLength { len }))
            );
            let mut want = String::from_utf16_lossy(&vec![0x41; len / 2]);
            want.push('\u{FFFD}');
            assert_eq!(t::utf16le_to_utf8_lossy(&bytes), want);
        } else {
            assert_eq!(le.unwrap(), "A".repeat(len / 2));
        }
    }
    // Odd length wins over an unpaired surrogate before it.
    assert_eq!(
        t::utf16le_to_utf8(b"\x00\xD8a"),
        Err(Utf16Error::OddLength { len: 3 })
    );
}

/// Every UTF-32 value up to past U+10FFFF, and the largest ones.
#[test]
fn utf32_values() {
    let values = (0..=0x11_0100u32).chain([0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, u32::MAX]);
    for v in values {
        let mut out = [0xAAu8; 5];
        match char::from_u32(v) {
            Some(c) => {
                let len = c.len_utf8();
                assert_eq!(t::utf32_to_utf8_into(&[v], &mut out[..len]), Ok(len));
                assert_eq!(&out[..len], c.to_string().as_bytes());
                assert_eq!(out[len], 0xAA);
            }
            None => {
                let r = t::utf32_to_utf8(&[0x41, 0x42, v, 0x43]);
                let err = r.unwrap_err();
                assert_eq!((err.index(), err.value()), (2, v));
                assert_eq!(t::utf32_to_utf8_lossy(&[0x41, v, 0x43]), "A\u{FFFD}C");
                assert_eq!(t::utf8_len_from_utf32(&[v]), 3);
                assert!(matches!(
                    t::utf32_to_utf8_into(&[v], &mut out),
                    Err(TranscodeError::Invalid(e)) if e.index() == 0
                ));
            }
        }
    }
}

/// Every Latin-1 byte, and Latin-1 ⇄ UTF-8 round trips.
#[test]
fn latin1_every_byte() {
    let all: Vec<u8> = (0..=255u8).collect();
    check_latin1(&all);
    for b in 0..=255u8 {
        check_latin1(&[b]);
        check_latin1(&[b'a', b'b', b'c', b'd', b'e', b'f', b'g', b, b'h']);
        let utf8 = t::latin1_to_utf8(&[b]);
        assert_eq!(utf8.chars().next().map(u32::from), Some(u32::from(b)));
        assert_eq!(t::utf8_to_latin1(utf8.as_bytes()).unwrap(), [b]);
    }
    assert_eq!(
        t::utf8_to_latin1(t::latin1_to_utf8(&all).as_bytes()).unwrap(),
        all
    );
    assert_eq!(
        Latin1Error::Unrepresentable {
            offset: 3, ch: 'Ā'
        }
        .to_string(),
        "character U+0100 'Ā' at byte 3 is not in Latin-1"
    );
}

// ---------------------------------------------------------------------------
// Boundaries
// ---------------------------------------------------------------------------

/// Naive references over a `&str`, from `is_char_boundary` and `char_indices`.
fn naive_floor(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    (0..=i).rev().find(|&j| s.is_char_boundary(j)).unwrap()
}
fn naive_ceil(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    (i..=s.len()).find(|&j| s.is_char_boundary(j)).unwrap()
}

/// The reference for `truncate_bytes`: walk the input as std decodes it
/// (`utf8_chunks`) and move the cut to the start of the valid character that
/// contains it, if any.
fn naive_truncate_bytes(bytes: &[u8], max: usize) -> &[u8] {
    let mut pos = 0;
    for chunk in bytes.utf8_chunks() {
        for (i, c) in chunk.valid().char_indices() {
            let start = pos + i;
            if start < max && max < start + c.len_utf8() {
                return &bytes[..start];
            }
        }
        pos += chunk.valid().len() + chunk.invalid().len();
    }
    &bytes[..max.min(bytes.len())]
}

/// Checks every boundary function at every offset of `s` (and past its end).
#[track_caller]
fn check_boundaries(s: &str) {
    let bytes = s.as_bytes();
    let starts: Vec<(usize, char)> = s.char_indices().collect();
    for offset in 0..=s.len() + 5 {
        assert_eq!(
            t::floor_char_boundary(s, offset),
            naive_floor(s, offset),
            "{s:?} {offset}"
        );
        assert_eq!(
            t::ceil_char_boundary(s, offset),
            naive_ceil(s, offset),
            "{s:?} {offset}"
        );
        let cut = t::truncate_str(s, offset);
        assert_eq!(cut, &s[..naive_floor(s, offset)]);
        assert_eq!(
            t::truncate_bytes(bytes, offset),
            cut.as_bytes(),
            "{s:?} {offset}"
        );
        // next: the first boundary after offset; prev: the last one before.
        let next = (offset + 1..=s.len())
            .find(|&j| s.is_char_boundary(j))
            .unwrap_or(s.len());
        assert_eq!(t::next_char_start(bytes, offset), next, "{s:?} {offset}");
        let prev = (0..offset.min(s.len()))
            .rev()
            .find(|&j| s.is_char_boundary(j))
            .unwrap_or(0);
        assert_eq!(t::prev_char_start(bytes, offset), prev, "{s:?} {offset}");
        // chars_from: the char_indices from the char containing offset.
        let from: Vec<(usize, char)> = starts
            .iter()
            .copied()
            .filter(|&(i, c)| i + c.len_utf8() > offset)
            .collect();
        assert_eq!(
            t::chars_from(s, offset).collect::<Vec<_>>(),
            from,
            "{s:?} {offset}"
        );
        assert_eq!(
            t::chars_from(s, offset).rev().collect::<Vec<_>>(),
            from.iter().copied().rev().collect::<Vec<_>>()
        );
        // chars_rev_from: backwards from the char containing offset (or from
        // the last char when offset is past the end).
        let rev: Vec<(usize, char)> = starts
            .iter()
            .copied()
            .filter(|&(i, _)| i <= offset)
            .rev()
            .collect();
        assert_eq!(
            t::chars_rev_from(s, offset).collect::<Vec<_>>(),
            rev,
            "{s:?} {offset}"
        );
    }
}

#[test]
fn boundaries_of_multilingual_text() {
    for s in SAMPLES {
        check_boundaries(s);
    }
    let every_length: String = ['a', 'é', '€', '😀', 'b', '😀', '€', 'é'].iter().collect();
    check_boundaries(&every_length);
}

/// `truncate_bytes`, `next_char_start` and `prev_char_start` on broken
/// text: every offset of each sample with bytes removed, flipped or inserted.
#[test]
fn boundaries_of_broken_bytes() {
    for s in SAMPLES {
        let b = s.as_bytes();
        for cut in 0..b.len() {
            let mut variants: Vec<Vec<u8>> = vec![[&b[..cut], &b[cut + 1..]].concat()];
            for bad in [0x80, 0xBF, 0xC3, 0xE4, 0xF0, 0xFF] {
                let mut v = b.to_vec();
                v[cut] = bad;
                variants.push(v);
                variants.push([&b[..cut], &[bad], &b[cut..]].concat());
            }
            for v in &variants {
                check_broken_boundaries(v);
            }
        }
    }
    check_broken_boundaries(&[0x80; 9]);
    check_broken_boundaries(b"\xE4\xB8\xE4\xB8\x96\xF0\x9F\x98");
}

#[track_caller]
fn check_broken_boundaries(v: &[u8]) {
    let is_cont = |b: u8| (0x80..=0xBF).contains(&b);
    for max in 0..=v.len() + 2 {
        assert_eq!(
            t::truncate_bytes(v, max),
            naive_truncate_bytes(v, max),
            "{v:02X?} {max}"
        );
        // Self-synchronisation: skip continuation bytes, at most three.
        let next = t::next_char_start(v, max);
        if max >= v.len() {
            assert_eq!(next, v.len());
        } else {
            let want = (max + 1..=v.len())
                .find(|&j| j == v.len() || j == max + 4 || !is_cont(v[j]))
                .unwrap();
            assert_eq!(next, want, "next {v:02X?} {max}");
        }
        let end = max.min(v.len());
        let prev = t::prev_char_start(v, max);
        if end == 0 {
            assert_eq!(prev, 0);
        } else {
            let want = (0..end)
                .rev()
                .find(|&j| j == 0 || j + 4 == end || !is_cont(v[j]))
                .unwrap();
            assert_eq!(prev, want, "prev {v:02X?} {max}");
        }
    }
}

// ---------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------

/// Strings biased towards every encoded length, with ASCII runs.
fn text() -> impl Strategy<Value = String> {
    let ch = prop_oneof![
        4 => proptest::char::range('\0', '\u{7F}'),
        1 => proptest::char::range('\u{80}', '\u{7FF}'),
        1 => proptest::char::range('\u{800}', '\u{FFFF}'),
        1 => proptest::char::range('\u{10000}', '\u{10FFFF}'),
        1 => any::<char>(),
    ];
    proptest::collection::vec(ch, 0..200).prop_map(|v| v.into_iter().collect())
}

/// UTF-16 biased towards surrogates.
fn utf16_units() -> impl Strategy<Value = Vec<u16>> {
    let unit = prop_oneof![
        3 => 0u16..0x80,
        2 => 0xD800u16..0xDC00,
        2 => 0xDC00u16..0xE000,
        2 => any::<u16>(),
    ];
    proptest::collection::vec(unit, 0..200)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn random_text(s in text()) {
        check_str(&s);
        check_boundaries(&s);
    }

    #[test]
    fn random_std_strings(s in any::<String>()) {
        check_str(&s);
    }

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(
        prop_oneof![4 => 0u8..0x80, 2 => 0x80u8..0xC0, 2 => 0xC0u8..=0xFF], 0..200)) {
        check_utf8_bytes(&bytes);
        check_broken_boundaries(&bytes);
    }

    #[test]
    fn text_with_one_corruption(s in text(), at in any::<prop::sample::Index>(), b in any::<u8>()) {
        let mut bytes = s.into_bytes();
        if !bytes.is_empty() {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        check_utf8_bytes(&bytes);
        check_broken_boundaries(&bytes);
    }

    #[test]
    fn random_utf16(units in utf16_units()) {
        check_utf16(&units);
        // Bytes of UTF-16 with a trailing odd byte.
        let mut le = le_bytes(&units);
        le.push(0x41);
        prop_assert_eq!(t::utf16le_to_utf8(&le), Err(Utf16Error::OddLength { len: le.len() }));
        let mut want = String::from_utf16_lossy(&units);
        want.push('\u{FFFD}');
        prop_assert_eq!(t::utf16le_to_utf8_lossy(&le), want);
        prop_assert_eq!(std_lossy_len(&units), t::utf8_len_from_utf16(&units));
    }

    #[test]
    fn random_utf32(units in proptest::collection::vec(prop_oneof![
        4 => 0u32..0x80, 2 => 0u32..0x11_0000, 1 => 0xD800u32..0xE000, 1 => any::<u32>()], 0..200)) {
        let lossy: String = units.iter().map(|&v| char::from_u32(v).unwrap_or('\u{FFFD}')).collect();
        prop_assert_eq!(t::utf32_to_utf8_lossy(&units), lossy.clone());
        prop_assert_eq!(t::utf8_len_from_utf32(&units), lossy.len());
        match units.iter().position(|&v| char::from_u32(v).is_none()) {
            None => {
                prop_assert_eq!(t::utf32_to_utf8(&units).unwrap(), lossy.clone());
                check_into(lossy.as_bytes(), [0xAA, 0x55], |b| t::utf32_to_utf8_into(&units, b));
            }
            Some(i) => {
                let err = t::utf32_to_utf8(&units).unwrap_err();
                prop_assert_eq!((err.index(), err.value()), (i, units[i]));
                check_into_err(err, 0xAAu8, |b| t::utf32_to_utf8_into(&units, b));
            }
        }
        check_into(lossy.as_bytes(), [0xAA, 0x55], |b| t::utf32_to_utf8_lossy_into(&units, b));
    }

    #[test]
    fn random_latin1(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        check_latin1(&bytes);
    }
}
