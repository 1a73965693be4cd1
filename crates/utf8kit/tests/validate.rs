//! Differential tests of `utf8kit::validate` against `core::str::from_utf8`.
//!
//! The oracle decides `valid_up_to` and `error_len`; the class of the error is
//! checked against the table of seed 002 (which first bytes make which kind).

use proptest::prelude::*;
use utf8kit::{Utf8Error, Utf8ErrorKind};

/// The class an invalid sequence must have, decided from its first two bytes
/// alone by the rules of seed 002. `seq` starts at `valid_up_to`.
fn expected_kind(seq: &[u8], error_len: Option<usize>) -> Utf8ErrorKind {
    let lead = seq[0];
    match lead {
        0x80..=0xBF => return Utf8ErrorKind::UnexpectedContinuation,
        0xC0 | 0xC1 => return Utf8ErrorKind::Overlong,
        0xF5..=0xF7 => return Utf8ErrorKind::OutOfRange,
        0xF8..=0xFF => return Utf8ErrorKind::InvalidByte,
        _ => {}
    }
    if error_len == Some(1)
        && let Some(&second) = seq.get(1)
    {
        match (lead, second) {
            (0xE0, 0x80..=0x9F) | (0xF0, 0x80..=0x8F) => return Utf8ErrorKind::Overlong,
            (0xED, 0xA0..=0xBF) => return Utf8ErrorKind::Surrogate,
            (0xF4, 0x90..=0xBF) => return Utf8ErrorKind::OutOfRange,
            _ => {}
        }
    }
    Utf8ErrorKind::Incomplete
}

/// Asserts that utf8kit and core agree on `input`, including the class.
#[track_caller]
fn check(input: &[u8]) {
    let ours = utf8kit::validate(input);
    match core::str::from_utf8(input) {
        Ok(_) => assert_eq!(ours, Ok(()), "input {input:02X?}"),
        Err(std_err) => {
            let err: Utf8Error = ours.expect_err("utf8kit accepted invalid input");
            assert_eq!(
                err.valid_up_to(),
                std_err.valid_up_to(),
                "valid_up_to for {input:02X?}"
            );
            assert_eq!(
                err.error_len(),
                std_err.error_len(),
                "error_len for {input:02X?}"
            );
            let kind = expected_kind(&input[err.valid_up_to()..], err.error_len());
            assert_eq!(err.kind(), kind, "kind for {input:02X?}");
        }
    }
    assert_eq!(
        utf8kit::is_valid(input),
        ours.is_ok(),
        "is_valid for {input:02X?}"
    );
}

#[test]
fn every_input_of_one_and_two_bytes() {
    for a in 0..=255u8 {
        check(&[a]);
        for b in 0..=255u8 {
            check(&[a, b]);
        }
    }
}

#[test]
fn every_input_of_three_bytes() {
    for n in 0..1u32 << 24 {
        let [a, b, c, _] = n.to_le_bytes();
        check(&[a, b, c]);
    }
}

/// Every 4-byte input whose first byte is one of the 4-byte leads F0..=F4:
/// 5 × 2^24 inputs.
#[test]
fn every_four_byte_input_with_a_four_byte_lead() {
    for lead in 0xF0..=0xF4u8 {
        for n in 0..1u32 << 24 {
            let [b, c, d, _] = n.to_le_bytes();
            check(&[lead, b, c, d]);
        }
    }
}

/// Hand table: (input, valid_up_to, error_len, kind). One comment per case.
const CASES: &[(&[u8], usize, Option<usize>, Utf8ErrorKind)] = {
    use Utf8ErrorKind::*;
    &[
        // A lone continuation byte.
        (b"\x80", 0, Some(1), UnexpectedContinuation),
        // Continuation after a complete 2-byte character.
        (b"\xC3\xA9\xA9", 2, Some(1), UnexpectedContinuation),
        // C0/C1 can only encode ASCII: always overlong (seed 000: C0 AF is '/').
        (b" BAD:\xC0\xAF", 5, Some(1), Overlong),
        (b"\xC1\xBF", 0, Some(1), Overlong),
        // E0 80..9F would encode below U+0800.
        (b"\xE0\x9F\xBF", 0, Some(1), Overlong),
        // F0 80..8F would encode below U+10000 (seed 000: F0 8F 98 80).
        (b"\xF0\x8F\x98\x80", 0, Some(1), Overlong),
        // ED A0..BF are the surrogates U+D800..U+DFFF (seed 000: ED A0 80).
        (b"\xED\xA0\x80", 0, Some(1), Surrogate),
        (b"\xED\xBF\xBF", 0, Some(1), Surrogate),
        // F4 90.. is above U+10FFFF; F5..F7 always are.
        (b"\xF4\x90\x80\x80", 0, Some(1), OutOfRange),
        (b"\xF5\x80\x80\x80", 0, Some(1), OutOfRange),
        (b"\xF7", 0, Some(1), OutOfRange),
        // F8..FF: the old 5/6-byte leads and the never-used FE/FF.
        (b"\xF8\x88\x80\x80\x80", 0, Some(1), InvalidByte),
        (b"\xFC\x84\x80\x80\x80\x80", 0, Some(1), InvalidByte),
        (b"\xFE", 0, Some(1), InvalidByte),
        (b"\xFF", 0, Some(1), InvalidByte),
        // Truncated at the end of input: error_len is None.
        (b"\xC3", 0, None, Incomplete),
        (b"a\xE4\xB8", 1, None, Incomplete),
        (b"ab\xF0\x9F\x98", 2, None, Incomplete),
        // Truncated by a byte that cannot continue: error_len counts the
        // bytes that were a valid prefix.
        (b"\xC3a", 0, Some(1), Incomplete),
        (b"\xE4\xB8a", 0, Some(2), Incomplete),
        (b"\xF0\x9F\x98a", 0, Some(3), Incomplete),
        (b"\xF0\x9F\xC3\xA9", 0, Some(2), Incomplete),
        // A surrogate-looking second byte after a non-ED lead is fine; after
        // ED a low second byte is fine (seed 000: 큀 ED 81 80).
        (b"\xED\x81\x80\xFF", 3, Some(1), InvalidByte),
    ]
};

#[test]
fn hand_table_of_errors() {
    for &(input, valid_up_to, error_len, kind) in CASES {
        let err = utf8kit::validate(input).unwrap_err();
        assert_eq!(err.valid_up_to(), valid_up_to, "{input:02X?}");
        assert_eq!(err.error_len(), error_len, "{input:02X?}");
        assert_eq!(err.kind(), kind, "{input:02X?}");
        check(input);
    }
}

#[test]
fn seed_examples_are_valid() {
    for s in [
        "Hello, 世界! ",
        "世",
        "😀",
        "큀",
        "吕",
        "",
        "\u{10FFFF}",
        "\u{7FF}\u{800}\u{FFFF}\u{10000}",
    ] {
        assert_eq!(utf8kit::from_utf8(s.as_bytes()), Ok(s));
    }
}

#[test]
fn every_scalar_value_is_valid_alone_and_between_ascii() {
    let mut buf = [0u8; 6];
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        let len = c.encode_utf8(&mut buf[1..]).len();
        buf[0] = b'x';
        buf[1 + len] = b'y';
        assert!(
            utf8kit::validate(&buf[1..1 + len]).is_ok(),
            "U+{:04X}",
            c as u32
        );
        assert!(
            utf8kit::validate(&buf[..2 + len]).is_ok(),
            "U+{:04X}",
            c as u32
        );
    }
}

#[test]
fn from_utf8_mut_reports_the_same_error() {
    let mut bytes = *b"abc\xE0\x80";
    let err = utf8kit::from_utf8_mut(&mut bytes).unwrap_err();
    assert_eq!(err, utf8kit::validate(b"abc\xE0\x80").unwrap_err());
}

/// Every error placed at every offset of a run of ASCII and of a run of
/// multi-byte text, so the ASCII fast path's block boundaries are crossed.
#[test]
fn errors_at_every_offset_in_text() {
    let texts = [
        "a".repeat(80),
        "é".repeat(40),
        "世".repeat(30),
        "😀".repeat(20),
        "aé世😀".repeat(8),
    ];
    let bad: &[&[u8]] = &[
        b"\xFF",
        b"\x80",
        b"\xC0\xAF",
        b"\xED\xA0\x80",
        b"\xF4\x90\x80\x80",
        b"\xE4\xB8",
        b"\xF0",
    ];
    for text in &texts {
        let bytes = text.as_bytes();
        for at in 0..=bytes.len() {
            for b in bad {
                let mut input = bytes[..at].to_vec();
                input.extend_from_slice(b);
                input.extend_from_slice(&bytes[at..]);
                check(&input);
                // And truncated right after the injected bytes.
                check(&input[..at + b.len()]);
            }
        }
    }
}

fn text_with_injections() -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::collection::vec(any::<char>(), 0..600),
        proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
    )
        .prop_map(|(chars, injections)| {
            let mut bytes = chars.into_iter().collect::<String>().into_bytes();
            for (index, byte) in injections {
                if !bytes.is_empty() {
                    let i = index.index(bytes.len());
                    bytes[i] = byte;
                }
            }
            bytes
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn agrees_with_core_on_text_with_injected_errors(input in text_with_injections()) {
        check(&input);
    }

    #[test]
    fn agrees_with_core_on_random_bytes(input in proptest::collection::vec(any::<u8>(), 0..300)) {
        check(&input);
    }

    #[test]
    fn agrees_with_core_on_mostly_ascii(input in proptest::collection::vec(prop_oneof![8 => 0u8..0x80, 1 => any::<u8>()], 0..4096)) {
        check(&input);
    }
}

/// The scalar kernel checks 8-byte words at a time; every short input must
/// also be judged right when it sits across a word boundary inside longer
/// ASCII or 2-byte text.
#[test]
fn every_two_byte_input_at_every_word_position() {
    for background in ["abcdefghijklmnopqrstuvwx", "абвгдежзийкл"] {
        let background = background.as_bytes();
        for at in 0..=16 {
            for n in 0..=u16::MAX {
                let mut input = background.to_vec();
                input.splice(at..at, n.to_le_bytes());
                check(&input);
            }
        }
    }
}

#[test]
fn every_three_byte_input_across_a_word_boundary() {
    let background = b"abcdefghijklmnopqrstuvwx";
    for at in [6, 7] {
        let mut input = background.to_vec();
        input.splice(at..at, [0, 0, 0]);
        for n in 0..1u32 << 24 {
            let [a, b, c, _] = n.to_le_bytes();
            input[at..at + 3].copy_from_slice(&[a, b, c]);
            check(&input);
        }
    }
}
