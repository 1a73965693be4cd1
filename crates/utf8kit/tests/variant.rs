//! CESU-8, Modified UTF-8 and WTF-8 against independent constructions from
//! std's UTF-16 encoder, and the seed's worked examples.

use proptest::prelude::*;
use utf8kit::Utf8ErrorKind;
use utf8kit::variant::{self, VariantError, VariantErrorKind};

/// A 16-bit unit as a 3-byte (or shorter) sequence, written out bit by bit.
fn unit_bytes(unit: u16) -> Vec<u8> {
    let u = u32::from(unit);
    match u {
        0..=0x7F => vec![u as u8],
        0x80..=0x7FF => vec![0b1100_0000 | (u >> 6) as u8, 0b1000_0000 | (u & 0x3F) as u8],
        _ => vec![
            0b1110_0000 | (u >> 12) as u8,
            0b1000_0000 | ((u >> 6) & 0x3F) as u8,
            0b1000_0000 | (u & 0x3F) as u8,
        ],
    }
}

fn cesu8_reference(c: char) -> Vec<u8> {
    c.encode_utf16(&mut [0; 2])
        .iter()
        .flat_map(|&u| unit_bytes(u))
        .collect()
}

fn all_chars() -> impl Iterator<Item = char> {
    (0..=0x10FFFFu32).filter_map(char::from_u32)
}

#[test]
fn seed_examples() {
    let mut buf = [0; 6];
    let n = variant::encode_mutf8_char('\u{1F600}', &mut buf);
    assert_eq!(&buf[..n], [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80]);
    let n = variant::encode_mutf8_char('\0', &mut buf);
    assert_eq!(&buf[..n], [0xC0, 0x80]);
    let n = variant::encode_cesu8_char('\0', &mut buf);
    assert_eq!(&buf[..n], [0x00]);
}

#[test]
fn every_scalar_encodes_like_the_reference_and_round_trips() {
    let mut buf = [0; 6];
    for c in all_chars() {
        let want = cesu8_reference(c);
        let n = variant::encode_cesu8_char(c, &mut buf);
        assert_eq!(&buf[..n], want, "{c:?}");
        let s = c.to_string();
        assert_eq!(&*variant::to_cesu8(&s), want);
        assert_eq!(variant::from_cesu8(&want).unwrap(), s);

        let n = variant::encode_mutf8_char(c, &mut buf);
        let want_java = if c == '\0' {
            vec![0xC0, 0x80]
        } else {
            want.clone()
        };
        assert_eq!(&buf[..n], want_java, "{c:?}");
        assert_eq!(&*variant::to_mutf8(&s), want_java);
        assert_eq!(variant::from_mutf8(&want_java).unwrap(), s);
        // Below U+10000 (except U+0000 for Java) the variants are UTF-8.
        if c != '\0' && (c as u32) < 0x10000 {
            assert_eq!(want, s.as_bytes());
        }
    }
}

#[test]
fn decoding_errors_name_the_offset_and_kind() {
    let cases: &[(&[u8], bool, usize, VariantErrorKind)] = &[
        (
            b"ab\xF0\x9F\x98\x80",
            false,
            2,
            VariantErrorKind::FourByteForm,
        ),
        (
            b"ab\xF0\x9F\x98\x80",
            true,
            2,
            VariantErrorKind::FourByteForm,
        ),
        (
            b"a\xED\xA0\xBDb",
            false,
            1,
            VariantErrorKind::UnpairedSurrogate,
        ),
        (
            b"a\xED\xB8\x80",
            false,
            1,
            VariantErrorKind::UnpairedSurrogate,
        ),
        (
            b"\xED\xA0\xBD\xED\xA0\xBD",
            false,
            0,
            VariantErrorKind::UnpairedSurrogate,
        ),
        (
            b"x\xED\xA0\xBD",
            true,
            1,
            VariantErrorKind::UnpairedSurrogate,
        ),
        (b"a\x00b", true, 1, VariantErrorKind::NulByte),
        (
            b"a\xC0\x80",
            false,
            1,
            VariantErrorKind::Malformed(Utf8ErrorKind::Overlong),
        ),
        (
            b"abc\xFF",
            true,
            3,
            VariantErrorKind::Malformed(Utf8ErrorKind::InvalidByte),
        ),
        (
            b"\xE4\xB8",
            false,
            0,
            VariantErrorKind::Malformed(Utf8ErrorKind::Incomplete),
        ),
        (
            b"\x80",
            true,
            0,
            VariantErrorKind::Malformed(Utf8ErrorKind::UnexpectedContinuation),
        ),
    ];
    for &(input, java, offset, kind) in cases {
        let got = if java {
            variant::from_mutf8(input)
        } else {
            variant::from_cesu8(input)
        };
        assert_eq!(
            got.unwrap_err(),
            VariantError { offset, kind },
            "{input:02X?} java={java}"
        );
    }
    // CESU-8 allows a raw zero byte; Modified UTF-8 does not.
    assert_eq!(variant::from_cesu8(b"a\0b").unwrap(), "a\0b");
}

#[test]
fn mutf8_utf16_round_trip_for_every_unit() {
    for unit in 0..=u16::MAX {
        let bytes = variant::utf16_to_mutf8(&[unit]);
        let want = if unit == 0 {
            vec![0xC0, 0x80]
        } else {
            unit_bytes(unit)
        };
        assert_eq!(bytes, want);
        assert_eq!(variant::mutf8_to_utf16(&bytes).unwrap(), [unit]);
    }
    assert_eq!(
        variant::mutf8_to_utf16(b"\xF0\x9F\x98\x80")
            .unwrap_err()
            .kind,
        VariantErrorKind::FourByteForm
    );
}

/// Valid WTF-8 of at most 3 bytes: valid UTF-8, or exactly one surrogate.
fn wtf8_reference(bytes: &[u8]) -> bool {
    core::str::from_utf8(bytes).is_ok() || matches!(bytes, [0xED, 0xA0..=0xBF, 0x80..=0xBF])
}

#[test]
fn is_valid_wtf8_on_every_short_input() {
    assert!(variant::is_valid_wtf8(b""));
    for a in 0..=255u8 {
        assert_eq!(variant::is_valid_wtf8(&[a]), wtf8_reference(&[a]));
        for b in 0..=255u8 {
            assert_eq!(variant::is_valid_wtf8(&[a, b]), wtf8_reference(&[a, b]));
            for c in 0..=255u8 {
                let input = [a, b, c];
                assert_eq!(
                    variant::is_valid_wtf8(&input),
                    wtf8_reference(&input),
                    "{input:02X?}"
                );
            }
        }
    }
}

#[test]
fn wtf8_pairs_must_be_four_bytes() {
    for high in (0xD800u16..0xDC00).step_by(7) {
        for low in (0xDC00u16..0xE000).step_by(11) {
            let halves: Vec<u8> = [high, low].iter().flat_map(|&u| unit_bytes(u)).collect();
            assert!(!variant::is_valid_wtf8(&halves));
            assert_eq!(
                variant::wtf8_to_utf16(&halves).unwrap_err(),
                VariantError {
                    offset: 0,
                    kind: VariantErrorKind::SurrogatePairAsHalves
                }
            );
            // Low then high is two lone surrogates: fine.
            let reversed: Vec<u8> = [low, high].iter().flat_map(|&u| unit_bytes(u)).collect();
            assert!(variant::is_valid_wtf8(&reversed));
            assert_eq!(
                variant::wtf8_from_utf16(&[high, low]),
                String::from_utf16(&[high, low]).unwrap().as_bytes()
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn wtf8_round_trips_any_utf16(units in proptest::collection::vec(
        prop_oneof![any::<u16>(), 0xD800u16..0xE000, 0u16..0x80], 0..64)) {
        let wtf8 = variant::wtf8_from_utf16(&units);
        prop_assert!(variant::is_valid_wtf8(&wtf8));
        prop_assert_eq!(variant::wtf8_to_utf16(&wtf8).unwrap(), units.clone());
        prop_assert_eq!(variant::wtf8_to_utf8_lossy(&wtf8), String::from_utf16_lossy(&units));
        if let Ok(s) = String::from_utf16(&units) {
            prop_assert_eq!(wtf8, s.into_bytes());
        }
    }

    #[test]
    fn mutf8_round_trips_any_utf16(units in proptest::collection::vec(
        prop_oneof![any::<u16>(), 0xD800u16..0xE000, Just(0u16)], 0..64)) {
        let bytes = variant::utf16_to_mutf8(&units);
        prop_assert!(!bytes.contains(&0));
        prop_assert_eq!(variant::mutf8_to_utf16(&bytes).unwrap(), units.clone());
        if let Ok(s) = String::from_utf16(&units) {
            prop_assert_eq!(&*variant::to_mutf8(&s), &bytes[..]);
            prop_assert_eq!(variant::from_mutf8(&bytes).unwrap(), s);
        }
    }

    #[test]
    fn cesu8_round_trips_any_text(s in "\\PC*") {
        let bytes = variant::to_cesu8(&s);
        prop_assert_eq!(variant::from_cesu8(&bytes).unwrap(), s.as_str());
        let want: Vec<u8> = s.chars().flat_map(cesu8_reference).collect();
        prop_assert_eq!(&*bytes, &want[..]);
    }

    #[test]
    fn lossy_wtf8_of_junk_matches_std_outside_surrogates(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let ours = variant::wtf8_to_utf8_lossy(&bytes);
        if !bytes.windows(2).any(|w| w[0] == 0xED && w[1] >= 0xA0) {
            prop_assert_eq!(ours, String::from_utf8_lossy(&bytes));
        }
    }
}
