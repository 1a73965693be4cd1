//! Streaming validation and decoding give the one-shot result for every
//! way of cutting the input.

use proptest::prelude::*;
use utf8kit::Utf8Error;
use utf8kit::stream::{LossyStreamDecoder, Piece, StreamDecoder, StreamScanner, StreamValidator};

type Found = (usize, Option<usize>, utf8kit::Utf8ErrorKind);

fn key(e: Utf8Error) -> Found {
    (e.valid_up_to(), e.error_len(), e.kind())
}

/// Runs all four streaming types over `chunks` and compares with one-shot.
fn check(chunks: &[&[u8]]) {
    check_scanner(chunks);
    let whole: Vec<u8> = chunks.concat();
    let one_shot = utf8kit::validate(&whole).map_err(key);

    let mut v = StreamValidator::new();
    let mut result = Ok(());
    for chunk in chunks {
        if let Err(e) = v.feed(chunk) {
            result = Err(key(e));
            break;
        }
    }
    let result = result.and_then(|()| v.finish().map(|n| assert_eq!(n, whole.len())).map_err(key));
    assert_eq!(result, one_shot, "validator over {chunks:02X?}");
    if one_shot.is_err() {
        // Sticky.
        assert_eq!(v.feed(b"x").map_err(key), one_shot);
        assert_eq!(v.finish().map(|_| ()).map_err(key), one_shot);
    }

    let mut d = StreamDecoder::new();
    let mut text = String::new();
    let mut result = Ok(());
    for chunk in chunks {
        if let Err(e) = d.feed(chunk, &mut text) {
            result = Err(key(e));
            break;
        }
    }
    let result = result.and_then(|()| d.finish(&mut text).map(|_| ()).map_err(key));
    assert_eq!(result, one_shot, "decoder over {chunks:02X?}");
    let valid_prefix = one_shot.map_or_else(|e| e.0, |()| whole.len());
    assert_eq!(
        text.as_bytes(),
        &whole[..valid_prefix],
        "decoded text over {chunks:02X?}"
    );

    let mut l = LossyStreamDecoder::new();
    let mut text = String::new();
    for chunk in chunks {
        l.feed(chunk, &mut text);
    }
    l.finish(&mut text);
    let want = String::from_utf8_lossy(&whole);
    assert_eq!(text, want, "lossy over {chunks:02X?}");
    assert_eq!(
        l.replacements() as usize,
        whole
            .utf8_chunks()
            .filter(|c| !c.invalid().is_empty())
            .count()
    );
}

/// Owned pieces, adjacent valid runs merged.
#[derive(Debug, PartialEq)]
enum Owned {
    Valid(String),
    Invalid(Found, Vec<u8>),
}

fn push(pieces: &mut Vec<Owned>, piece: Piece<'_>) {
    match (piece, pieces.last_mut()) {
        (Piece::Valid(text), Some(Owned::Valid(run))) => run.push_str(text),
        (Piece::Valid(text), _) => pieces.push(Owned::Valid(text.to_owned())),
        (Piece::Invalid(e, bytes), _) => pieces.push(Owned::Invalid(key(e), bytes.to_vec())),
    }
}

/// The scanner's pieces over `chunks` are std's chunks of the whole input,
/// with each error as `utf8_chunks` reports it.
fn check_scanner(chunks: &[&[u8]]) {
    let whole: Vec<u8> = chunks.concat();
    let mut expected = Vec::new();
    for chunk in utf8kit::utf8_chunks(&whole) {
        if !chunk.valid().is_empty() {
            expected.push(Owned::Valid(chunk.valid().to_owned()));
        }
        if let Some(e) = chunk.error() {
            expected.push(Owned::Invalid(key(e), chunk.invalid().to_vec()));
        }
    }
    let mut scanner = StreamScanner::new();
    let mut got = Vec::new();
    for chunk in chunks {
        scanner.feed(chunk, |p| push(&mut got, p));
    }
    scanner.finish(|p| push(&mut got, p));
    assert_eq!(got, expected, "scanner over {chunks:02X?}");
    assert_eq!(scanner.position(), whole.len());
}

fn every_split_in_two_and_one_byte_chunks(input: &[u8]) {
    check(&[input]);
    for cut in 0..=input.len() {
        check(&[&input[..cut], &input[cut..]]);
    }
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    check(&bytes);
}

#[test]
fn every_short_input_cut_everywhere() {
    for a in 0..=255u8 {
        every_split_in_two_and_one_byte_chunks(&[a]);
        for b in 0..=255u8 {
            every_split_in_two_and_one_byte_chunks(&[a, b]);
        }
    }
    // All 3-byte inputs whose lead starts a multi-byte sequence, cut anywhere.
    for a in 0xC0..=0xFFu8 {
        for b in 0..=255u8 {
            for c in [
                0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xE0, 0xF0, 0xFF,
            ] {
                every_split_in_two_and_one_byte_chunks(&[a, b, c]);
            }
        }
    }
}

#[test]
fn documented_cases() {
    check(&[b"\xF0\x9F", b"\x98", b"A"]);
    check(&[b"\xE0", b"\x80"]);
    check(&[b"ab", b"", b"\xE4", b"", b"\xB8", b"\x96"]);
    check(&[b"\xF0\x9F\x98"]);
    check(&[]);
}

#[test]
fn absolute_offsets_across_many_chunks() {
    let mut v = StreamValidator::new();
    for _ in 0..1000 {
        v.feed("жж".as_bytes()).unwrap();
    }
    assert_eq!(v.valid_up_to(), 4000);
    v.feed(b"\xD0").unwrap();
    assert_eq!((v.bytes_seen(), v.valid_up_to()), (4001, 4000));
    let err = v.feed(b"x").unwrap_err();
    assert_eq!(
        key(err),
        (4000, Some(1), utf8kit::Utf8ErrorKind::Incomplete)
    );
}

/// `text` with the `junk` bytes inserted (each at its offset modulo the
/// length), cut at the `cuts` (modulo the length) into chunks, checked.
fn check_with_junk(text: String, junk: Vec<(usize, Vec<u8>)>, cuts: Vec<usize>) {
    let mut input = text.into_bytes();
    for (at, bytes) in junk {
        let at = at % (input.len() + 1);
        input.splice(at..at, bytes);
    }
    let mut points: Vec<usize> = cuts.into_iter().map(|c| c % (input.len() + 1)).collect();
    points.push(0);
    points.push(input.len());
    points.sort_unstable();
    let chunks: Vec<&[u8]> = points.windows(2).map(|w| &input[w[0]..w[1]]).collect();
    check(&chunks);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn any_split_of_text_with_errors(
        text in "\\PC{0,120}",
        junk in proptest::collection::vec((any::<usize>(), proptest::collection::vec(0x80u8..=0xFF, 1..4)), 0..4),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
    ) {
        check_with_junk(text, junk, cuts);
    }

    /// Long chunks (the lossy decoder hands each chunk but a cut character
    /// to the one-pass SIMD lossy kernel, which only runs on 256 bytes and
    /// more): text of every script with errors, cut anywhere, including
    /// inside characters and invalid sequences.
    #[test]
    fn long_chunks_of_text_with_errors(
        text in "\\PC{200,3000}",
        junk in proptest::collection::vec((any::<usize>(), proptest::collection::vec(0x80u8..=0xFF, 1..4)), 0..24),
        cuts in proptest::collection::vec(any::<usize>(), 0..6),
    ) {
        check_with_junk(text, junk, cuts);
    }

    #[test]
    fn random_bytes_in_one_byte_chunks(input in proptest::collection::vec(any::<u8>(), 0..64)) {
        let chunks: Vec<&[u8]> = input.chunks(1).collect();
        check(&chunks);
    }
}
