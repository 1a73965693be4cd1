//! Lossy decoding and the chunk iterator against std's
//! `String::from_utf8_lossy` and `<[u8]>::utf8_chunks`.

use proptest::prelude::*;
use std::borrow::Cow;

fn check(input: &[u8]) {
    let want = String::from_utf8_lossy(input);
    let got = utf8kit::decode_lossy(input);
    assert_eq!(got, want, "{input:02X?}");
    assert_eq!(
        matches!(got, Cow::Borrowed(_)),
        matches!(want, Cow::Borrowed(_))
    );

    let ours: Vec<(&str, &[u8])> = utf8kit::utf8_chunks(input)
        .map(|c| (c.valid(), c.invalid()))
        .collect();
    let std: Vec<(&str, &[u8])> = input
        .utf8_chunks()
        .map(|c| (c.valid(), c.invalid()))
        .collect();
    assert_eq!(ours, std, "{input:02X?}");

    // Each chunk's error is the one `validate` reports from where the chunk starts.
    let mut start = 0;
    for chunk in utf8kit::utf8_chunks(input) {
        let whole = utf8kit::validate(&input[start..])
            .err()
            .map(|e| (e.valid_up_to() + start, e.error_len(), e.kind()));
        let err = chunk
            .error()
            .map(|e| (e.valid_up_to(), e.error_len(), e.kind()));
        assert_eq!(err, whole, "{input:02X?}");
        start += chunk.valid().len() + chunk.invalid().len();
    }

    let mut appended = String::from("#");
    let n = utf8kit::decode_lossy_into(input, &mut appended);
    assert_eq!(appended[1..], *want);
    assert_eq!(
        n,
        utf8kit::utf8_chunks(input)
            .filter(|c| !c.invalid().is_empty())
            .count()
    );
}

#[test]
fn every_input_of_up_to_three_bytes() {
    check(b"");
    for a in 0..=255u8 {
        check(&[a]);
        for b in 0..=255u8 {
            check(&[a, b]);
            for c in 0..=255u8 {
                check(&[a, b, c]);
            }
        }
    }
}

/// Every 4-byte lead with every second byte and the boundary values of the
/// third and fourth (the exhaustive 4-byte sweep is in `validate.rs`).
#[test]
fn four_byte_leads_with_boundary_continuations() {
    const EDGES: [u8; 16] = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xF0, 0xF4, 0xF5,
        0xFF,
    ];
    for a in 0xF0..=0xF4u8 {
        for b in 0..=255u8 {
            for c in EDGES {
                for d in EDGES {
                    let input = [a, b, c, d];
                    if core::str::from_utf8(&input).is_ok() {
                        continue; // the interesting part is the errors
                    }
                    check(&input);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_bytes(input in proptest::collection::vec(any::<u8>(), 0..300)) {
        check(&input);
    }

    #[test]
    fn mostly_valid_text_with_injected_errors(
        text in "\\PC{0,200}",
        junk in proptest::collection::vec((any::<usize>(), proptest::collection::vec(0x80u8..=0xFF, 1..4)), 0..6),
    ) {
        let mut input = text.into_bytes();
        for (at, bytes) in junk {
            let at = at % (input.len() + 1);
            input.splice(at..at, bytes);
        }
        check(&input);
    }
}
