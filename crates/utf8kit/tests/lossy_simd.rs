//! Lossy decoding at SIMD speed, forced kernel by kernel, against std:
//! `decode_lossy`/`decode_lossy_into`, the chunk iterator, the streaming
//! lossy decoder and UTF-8 → UTF-16 with replacement must equal
//! `String::from_utf8_lossy` (and its `.encode_utf16()`) for every input.
//!
//! Layers: every 1- and 2-byte input and every 3-byte input that starts
//! with a non-ASCII byte, embedded around the 64-byte block edges; every
//! 4-byte lead with boundary continuations; an error at every offset
//! 0..=200 of every lipsum script; inputs made mostly of errors; random
//! text with injected errors (proptest); exact-size output buffers with a
//! guard unit after them; the stream decoder over every chunking.

mod common;
use common::corpus_dir;

use std::convert::Infallible;

use proptest::prelude::*;
use utf8kit::Kernel;
use utf8kit::stream::{LossyStreamDecoder, Piece, StreamScanner};
use utf8kit::transcode::{self as t, TranscodeError};

/// A value no kernel writes past the end of an exact-size buffer.
const GUARD16: u16 = 0xA5A5;
const GUARD8: u8 = 0xA5;

/// The kernels this CPU runs, printed once per test so that a log shows
/// whether the SIMD ones ran.
fn kernels() -> Vec<Kernel> {
    let available: Vec<Kernel> = Kernel::available().collect();
    for k in Kernel::ALL {
        if !available.contains(&k) {
            eprintln!("note: kernel {k} not available on this CPU: skipped");
        }
    }
    available
}

/// std's answers for one input.
struct Expected {
    text: String,
    units: Vec<u16>,
    replacements: usize,
}

impl Expected {
    fn of(input: &[u8]) -> Expected {
        let text = String::from_utf8_lossy(input).into_owned();
        let units = text.encode_utf16().collect();
        let replacements = input
            .utf8_chunks()
            .filter(|c| !c.invalid().is_empty())
            .count();
        Expected {
            text,
            units,
            replacements,
        }
    }
}

/// A forced UTF-8 → UTF-16LE/BE lossy conversion.
type BytesLossy = fn(Kernel, &[u8], &mut [u8]) -> Option<Result<usize, TranscodeError<Infallible>>>;

/// Reusable buffers, so that the exhaustive sweeps do not allocate per
/// input.
#[derive(Default)]
struct Checker {
    text: String,
    units: Vec<u16>,
}

impl Checker {
    /// The forced-kernel APIs on `input`, under every kernel in `kernels`.
    fn forced(&mut self, input: &[u8], want: &Expected, kernels: &[Kernel]) {
        for &k in kernels {
            self.text.clear();
            self.text.push('#');
            let n = utf8kit::decode_lossy_with(k, input, &mut self.text).unwrap();
            assert_eq!(self.text[1..], want.text, "{k}: {input:02X?}");
            assert_eq!(n, want.replacements, "{k}: {input:02X?}");

            // Exact-size buffer, then a guard unit.
            let len = want.units.len();
            self.units.clear();
            self.units.resize(len + 1, GUARD16);
            let got = t::utf8_to_utf16_lossy_with(k, input, &mut self.units[..len]).unwrap();
            assert_eq!(got, Ok(len), "{k}: {input:02X?}");
            assert_eq!(self.units[..len], want.units, "{k}: {input:02X?}");
            assert_eq!(self.units[len], GUARD16, "{k}: wrote past the end");
        }
    }

    /// Everything else: the chunk iterator per kernel, short buffers, the
    /// byte-order variants, and the dispatched APIs.
    fn full(&mut self, input: &[u8], kernels: &[Kernel]) {
        let want = Expected::of(input);
        self.forced(input, &want, kernels);
        let std_chunks: Vec<(&str, &[u8])> = input
            .utf8_chunks()
            .map(|c| (c.valid(), c.invalid()))
            .collect();
        let len = want.units.len();
        let le: Vec<u8> = want.units.iter().flat_map(|u| u.to_le_bytes()).collect();
        let be: Vec<u8> = want.units.iter().flat_map(|u| u.to_be_bytes()).collect();
        for &k in kernels {
            let ours: Vec<(&str, &[u8])> = utf8kit::utf8_chunks_with(k, input)
                .unwrap()
                .map(|c| (c.valid(), c.invalid()))
                .collect();
            assert_eq!(ours, std_chunks, "{k}: {input:02X?}");
            // Each chunk's error is the one `validate` gives from where the
            // chunk starts, in absolute offsets.
            let mut start = 0;
            for c in utf8kit::utf8_chunks_with(k, input).unwrap() {
                let want_err = utf8kit::validate(&input[start..])
                    .err()
                    .map(|e| (e.valid_up_to() + start, e.error_len(), e.kind()));
                let err = c
                    .error()
                    .map(|e| (e.valid_up_to(), e.error_len(), e.kind()));
                assert_eq!(err, want_err, "{k}: {input:02X?}");
                start += c.valid().len() + c.invalid().len();
            }

            // One unit short: the size needed, and nothing past the slice.
            if len > 0 {
                self.units.clear();
                self.units.resize(len, GUARD16);
                let got = t::utf8_to_utf16_lossy_with(k, input, &mut self.units[..len - 1]);
                assert_eq!(
                    got,
                    Some(Err(TranscodeError::BufferTooSmall { needed: len })),
                    "{k}: {input:02X?}"
                );
                assert_eq!(self.units[len - 1], GUARD16, "{k}: wrote past the end");
                assert_eq!(self.units[..len - 1], want.units[..len - 1], "{k}");
            }

            // UTF-16LE/BE bytes, exact size plus a guard byte.
            let variants: [(&Vec<u8>, BytesLossy); 2] = [
                (&le, t::utf8_to_utf16le_lossy_with),
                (&be, t::utf8_to_utf16be_lossy_with),
            ];
            for (bytes_want, f) in variants {
                let mut out = vec![GUARD8; 2 * len + 1];
                assert_eq!(
                    f(k, input, &mut out[..2 * len]),
                    Some(Ok(2 * len)),
                    "{k}: {input:02X?}"
                );
                assert_eq!(out[..2 * len], bytes_want[..], "{k}: {input:02X?}");
                assert_eq!(out[2 * len], GUARD8, "{k}: wrote past the end");
            }
        }

        // The dispatched APIs.
        assert_eq!(utf8kit::decode_lossy(input), want.text, "{input:02X?}");
        let mut s = String::from("> ");
        assert_eq!(utf8kit::decode_lossy_into(input, &mut s), want.replacements);
        assert_eq!(s[2..], want.text);
        assert_eq!(t::utf8_to_utf16_lossy(input), want.units, "{input:02X?}");
        let mut out = vec![GUARD16; len + 1];
        assert_eq!(t::utf8_to_utf16_lossy_into(input, &mut out[..len]), Ok(len));
        assert_eq!(out[..len], want.units);
        assert_eq!(out[len], GUARD16);
        assert_eq!(t::utf8_to_utf16le_lossy(input), le);
        assert_eq!(t::utf8_to_utf16be_lossy(input), be);
        let mut out = vec![GUARD8; 2 * len + 1];
        assert_eq!(t::utf8_to_utf16le_lossy_into(input, &mut out), Ok(2 * len));
        assert_eq!(out[..2 * len], le[..]);
        assert_eq!(t::utf8_to_utf16be_lossy_into(input, &mut out), Ok(2 * len));
        assert_eq!(out[..2 * len], be[..]);
    }
}

/// Offsets around the 64-byte block edges (and the 16/32-byte register
/// edges of SSE and AVX2).
const OFFSETS: [usize; 10] = [0, 1, 15, 31, 32, 61, 62, 63, 64, 127];

/// `seed` placed after `offset` bytes of ASCII padding and followed by more,
/// so that it sits inside whole blocks.
fn embed(buf: &mut Vec<u8>, offset: usize, seed: &[u8]) {
    buf.clear();
    buf.extend((0..offset).map(|i| b'a' + (i % 26) as u8));
    buf.extend_from_slice(seed);
    buf.extend((0..130).map(|i| b'A' + (i % 26) as u8));
}

#[test]
fn every_one_and_two_byte_input_around_block_edges() {
    let ks = kernels();
    let mut c = Checker::default();
    let mut buf = Vec::new();
    for a in 0..=255u8 {
        for offset in OFFSETS {
            embed(&mut buf, offset, &[a]);
            c.forced(&buf, &Expected::of(&buf), &ks);
            c.forced(&[a], &Expected::of(&[a]), &ks);
        }
        for b in 0..=255u8 {
            c.forced(&[a, b], &Expected::of(&[a, b]), &ks);
            for offset in OFFSETS {
                embed(&mut buf, offset, &[a, b]);
                c.forced(&buf, &Expected::of(&buf), &ks);
            }
        }
    }
}

/// Every 3-byte input whose first byte is not ASCII (an ASCII first byte
/// only adds the 2-byte cases after it), across the edge at 64 and alone.
#[test]
fn every_three_byte_input_across_a_block_edge() {
    let ks = kernels();
    let mut c = Checker::default();
    let mut buf = Vec::new();
    for a in 0x80..=255u8 {
        for b in 0..=255u8 {
            for d in 0..=255u8 {
                let seed = [a, b, d];
                embed(&mut buf, 62, &seed);
                c.forced(&buf, &Expected::of(&buf), &ks);
                c.forced(&seed, &Expected::of(&seed), &ks);
            }
        }
    }
}

/// Errors right after a character that is not ASCII: every input of up to
/// three bytes whose first byte is not ASCII (the third byte from the
/// boundary values), after a 2-, 3- and 4-byte character, across the block
/// edge at 64. The kernels rescan an error from the last lead among the
/// three bytes before the first lane the check flags; here that lead is
/// often the character before the error, which must be decoded, not
/// skipped or taken for part of the error.
#[test]
fn errors_right_after_a_character_that_is_not_ascii() {
    const EDGES: [u8; 13] = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC2, 0xE0, 0xF0, 0xFF,
    ];
    let ks = kernels();
    let mut c = Checker::default();
    let mut buf = Vec::new();
    for before in ["é", "中", "😀"] {
        for offset in [59, 61, 63] {
            for a in 0x80..=255u8 {
                for b in 0..=255u8 {
                    for d in EDGES {
                        embed(&mut buf, offset, &[before.as_bytes(), &[a, b, d]].concat());
                        c.forced(&buf, &Expected::of(&buf), &ks);
                    }
                }
            }
        }
    }
}

/// Every 4-byte lead with every second byte and the boundary values of the
/// third and fourth, at several offsets.
#[test]
fn four_byte_leads_with_boundary_continuations() {
    const EDGES: [u8; 12] = [
        0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xE0, 0xF0, 0xFF,
    ];
    let ks = kernels();
    let mut c = Checker::default();
    let mut buf = Vec::new();
    for a in 0xF0..=0xF4u8 {
        for b in 0..=255u8 {
            for x in EDGES {
                for y in EDGES {
                    let seed = [a, b, x, y];
                    for offset in [0, 60, 61, 62, 63] {
                        embed(&mut buf, offset, &seed);
                        c.forced(&buf, &Expected::of(&buf), &ks);
                    }
                }
            }
        }
    }
}

/// The UTF-8 lipsum files (name, text), or none with a note.
fn lipsum() -> Vec<(String, String)> {
    let Some(dir) = corpus_dir() else {
        eprintln!("note: shared/corpus/lipsum not found; corpus cases skipped");
        return Vec::new();
    };
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.ends_with(".utf8.txt").then_some(())?;
            let text = String::from_utf8(std::fs::read(e.path()).ok()?).ok()?;
            Some((name, text))
        })
        .collect();
    files.sort();
    files
}

/// The first `max` bytes of `text`, or fewer to end at a character
/// boundary.
fn head(text: &str, max: usize) -> &[u8] {
    &text.as_bytes()[..utf8kit::transcode::floor_char_boundary(text, max)]
}

/// The invalid sequences placed in valid text.
const DAMAGE: [&[u8]; 8] = [
    b"\xFF",
    b"\x80",
    b"\xC0\xAF",
    b"\xE2\x82",
    b"\xED\xA0\x80",
    b"\xF0\x9F\x98",
    b"\xF4\x90\x80\x80",
    b"\xE0\x80\xAF",
];

#[test]
fn an_error_at_every_offset_of_every_lipsum_script() {
    let ks = kernels();
    let mut c = Checker::default();
    for (name, text) in lipsum() {
        let valid = head(&text, 700);
        c.full(valid, &ks);
        let mut buf = Vec::new();
        for at in 0..=200.min(valid.len()) {
            // A byte replaced in place (mid-character when `at` is not a
            // boundary)...
            for bad in [0xFF, 0x80, 0xC3, 0xE4, 0xF0] {
                buf.clear();
                buf.extend_from_slice(valid);
                buf[at.min(valid.len() - 1)] = bad;
                c.forced(&buf, &Expected::of(&buf), &ks);
            }
            // ...and each invalid sequence inserted.
            for bad in DAMAGE {
                with_errors(&mut buf, b"", valid, at, &[bad]);
                c.forced(&buf, &Expected::of(&buf), &ks);
            }
        }
        // The whole file with an error every 97 bytes.
        let mut damaged = Vec::new();
        for (i, piece) in text.as_bytes().chunks(97).enumerate() {
            damaged.extend_from_slice(piece);
            damaged.extend_from_slice(DAMAGE[i % DAMAGE.len()]);
        }
        c.full(&damaged, &ks);
        eprintln!("{name}: ok");
    }
}

/// `buf` becomes `first`, then `valid` with the `bad` sequences inserted at
/// `at`.
fn with_errors(buf: &mut Vec<u8>, first: &[u8], valid: &[u8], at: usize, bad: &[&[u8]]) {
    buf.clear();
    buf.extend_from_slice(first);
    buf.extend_from_slice(&valid[..at]);
    for b in bad {
        buf.extend_from_slice(b);
    }
    buf.extend_from_slice(&valid[at..]);
}

/// The kernels' own lossy loop takes over after the first error, so a
/// second error is what exercises it: a first error at the start, then an
/// error at every offset of 0..=200 (alone, and two back to back) inside
/// valid text of each script. Offsets up to 200 put it in the first or the
/// second block of a pair that the AVX-512 loop checks with one test, and
/// on every block edge.
#[test]
fn a_second_error_at_every_offset_of_every_lipsum_script() {
    let ks = kernels();
    let mut c = Checker::default();
    let mut buf = Vec::new();
    for (name, text) in lipsum() {
        let valid = head(&text, 500);
        for first in [&b"\xFF"[..], b"\xE2\x82", b"\xED\xA0\x80"] {
            for at in 0..=200.min(valid.len()) {
                for (i, bad) in DAMAGE.iter().enumerate() {
                    for also in [&b""[..], DAMAGE[(i + 3) % DAMAGE.len()]] {
                        with_errors(&mut buf, first, valid, at, &[bad, also]);
                        c.forced(&buf, &Expected::of(&buf), &ks);
                    }
                }
            }
        }
        eprintln!("{name}: ok");
    }
}

/// The block after one that was not ASCII may start early, so that its
/// stores are aligned in the output (the SSE4.1 and AVX2 kernels): an
/// error at every offset of 0..=200 in each script, alone or after a
/// first error at the start (which hands the rest to the kernels' lossy
/// loop), decoded after 0 to 32 bytes already in the output, so that the
/// stores fall at every alignment.
#[test]
fn errors_with_the_output_at_every_alignment() {
    let ks = kernels();
    let mut buf = Vec::new();
    let mut out = String::new();
    for (name, text) in lipsum() {
        let valid = head(&text, 400);
        for first in [&b""[..], b"\xFF"] {
            for at in 0..=200.min(valid.len()) {
                for bad in DAMAGE {
                    with_errors(&mut buf, first, valid, at, &[bad]);
                    let want = String::from_utf8_lossy(&buf);
                    for before in 0..=32 {
                        for &k in &ks {
                            out.clear();
                            out.extend((0..before).map(|_| '#'));
                            utf8kit::decode_lossy_with(k, &buf, &mut out).unwrap();
                            assert_eq!(out[before..], want, "{k}, {before} before: {buf:02X?}");
                        }
                    }
                }
            }
        }
        eprintln!("{name}: ok");
    }
}

/// Damaged text appended to strings of every capacity around the size of
/// the result: the kernels stop when the room runs short and the buffer
/// grows, at every point of the text.
#[test]
fn output_near_the_end_of_capacity() {
    let ks = kernels();
    for (name, text) in lipsum() {
        let mut damaged = Vec::new();
        for (i, piece) in head(&text, 1200).chunks(37).enumerate() {
            damaged.extend_from_slice(piece);
            damaged.extend_from_slice(DAMAGE[i % DAMAGE.len()]);
        }
        let want = String::from_utf8_lossy(&damaged);
        let replacements = damaged
            .utf8_chunks()
            .filter(|c| !c.invalid().is_empty())
            .count();
        for &k in &ks {
            for cap in damaged.len() - 16..=want.len() + 16 {
                let mut s = String::with_capacity(cap);
                s.push('#');
                let n = utf8kit::decode_lossy_with(k, &damaged, &mut s).unwrap();
                assert_eq!(s[1..], want, "{name} {k} {cap}");
                assert_eq!(n, replacements, "{name} {k} {cap}");
            }
        }
    }
}

#[test]
fn inputs_made_mostly_of_errors() {
    let ks = kernels();
    let mut c = Checker::default();
    for len in [1, 2, 3, 63, 64, 65, 127, 128, 129, 300, 1000] {
        for pattern in [
            &b"a\xFF"[..],
            b"\xFF",
            b"\x80",
            b"\xE4\xB8",
            b"\xF0\x9F\x98",
            b"\xC3\xA9\xC3",
            b"\xED\xA0\x80x",
            b"\xE4\xB8\x96\xE4",
            b"\xC0\x80",
        ] {
            let input: Vec<u8> = pattern.iter().copied().cycle().take(len).collect();
            c.full(&input, &ks);
        }
        // Every other byte bad, after valid characters of every length.
        let input: Vec<u8> = "aé世😀"
            .bytes()
            .flat_map(|b| [b, 0xFF])
            .cycle()
            .take(len)
            .collect();
        c.full(&input, &ks);
    }
}

/// Random text in pieces of random scripts, with one of the invalid
/// sequences (or random bytes) after some pieces.
fn damaged_text() -> impl Strategy<Value = Vec<u8>> {
    let piece = (
        prop::collection::vec(any::<char>(), 0..64),
        prop::option::of(prop_oneof![
            (0..DAMAGE.len()).prop_map(|i| DAMAGE[i].to_vec()),
            prop::collection::vec(any::<u8>(), 1..4),
        ]),
    );
    prop::collection::vec(piece, 0..64).prop_map(|pieces| {
        let mut out = Vec::new();
        for (chars, bad) in pieces {
            out.extend(chars.iter().collect::<String>().bytes());
            if let Some(bad) = bad {
                out.extend(bad);
            }
        }
        out.truncate(4096);
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_text_with_errors(input in damaged_text()) {
        Checker::default().full(&input, &kernels());
    }

    #[test]
    fn random_bytes(input in prop::collection::vec(any::<u8>(), 0..4096)) {
        Checker::default().full(&input, &kernels());
    }

    #[test]
    fn mostly_ascii_with_random_bytes(
        input in prop::collection::vec(prop_oneof![9 => 0x20..0x7Fu8, 1 => any::<u8>()], 0..4096)
    ) {
        Checker::default().full(&input, &kernels());
    }
}

/// The lossy stream decoder and the scanner over `chunks`, against std on
/// their concatenation.
fn check_stream(input: &[u8], chunks: &[&[u8]]) {
    let want = Expected::of(input);
    let mut d = LossyStreamDecoder::new();
    let mut text = String::new();
    for chunk in chunks {
        d.feed(chunk, &mut text);
    }
    d.finish(&mut text);
    assert_eq!(text, want.text, "{chunks:02X?}");
    assert_eq!(d.replacements(), want.replacements as u64, "{chunks:02X?}");

    // The scanner's pieces, valid runs merged, are std's chunks.
    let mut pieces: Vec<(String, Vec<u8>)> = Vec::new();
    let mut valid = String::new();
    let mut visit = |p: Piece<'_>| match p {
        Piece::Valid(s) => valid.push_str(s),
        Piece::Invalid(_, bytes) => pieces.push((std::mem::take(&mut valid), bytes.to_vec())),
    };
    let mut scanner = StreamScanner::new();
    for chunk in chunks {
        scanner.feed(chunk, &mut visit);
    }
    scanner.finish(&mut visit);
    if !valid.is_empty() {
        pieces.push((valid, Vec::new()));
    }
    let std: Vec<(String, Vec<u8>)> = input
        .utf8_chunks()
        .map(|c| (c.valid().to_string(), c.invalid().to_vec()))
        .filter(|(v, i)| !v.is_empty() || !i.is_empty())
        .collect();
    assert_eq!(pieces, std, "{chunks:02X?}");
}

#[test]
fn stream_decoder_over_every_chunking() {
    let inputs: [&[u8]; 6] = [
        b"a\xF0\x9F\x98\x80\xFFb\xE4\xB8",
        b"\xED\xA0\x80\xC3\xA9\xC3",
        "é😀世".as_bytes(),
        b"\xF0\x9F\x98\xF0\x9F\x98\x80z",
        b"\x80\x80\xE2\x82\xACx\xE2\x82",
        b"ab\xF4\x90\x80\x80\xC0\xAFcd",
    ];
    for input in inputs {
        // Every composition of `input`: bit `i` of `cuts` cuts after byte `i`.
        let n = input.len();
        for cuts in 0..1u32 << (n - 1) {
            let mut chunks = Vec::new();
            let mut start = 0;
            for i in 0..n - 1 {
                if cuts & (1 << i) != 0 {
                    chunks.push(&input[start..=i]);
                    start = i + 1;
                }
            }
            chunks.push(&input[start..]);
            check_stream(input, &chunks);
        }
    }
}

#[test]
fn stream_decoder_over_fixed_chunk_sizes() {
    let mut texts: Vec<Vec<u8>> = lipsum()
        .into_iter()
        .map(|(_, text)| {
            let mut out = Vec::new();
            for (i, piece) in text.as_bytes()[..4000.min(text.len())]
                .chunks(61)
                .enumerate()
            {
                out.extend_from_slice(piece);
                out.extend_from_slice(DAMAGE[i % DAMAGE.len()]);
            }
            out
        })
        .collect();
    texts.push(b"a\xFF".repeat(700));
    for input in &texts {
        for size in [1, 2, 3, 36, 64, 99, 1024] {
            let chunks: Vec<&[u8]> = input.chunks(size).collect();
            check_stream(input, &chunks);
        }
    }
}
