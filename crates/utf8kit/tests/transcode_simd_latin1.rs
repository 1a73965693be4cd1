//! The Latin-1 ⇄ UTF-8 transcoders (and the `&str` flavour of UTF-8 →
//! Latin-1), forced kernel by kernel (the scalar, AVX-512, AVX2 and SSE4.1
//! engines, as the CPU has them),
//! against std and the scalar engine: every byte at
//! every position, every short UTF-8 sequence around the 64-byte block
//! edges, an error at every offset 0..=200 of valid text, the lipsum files,
//! random inputs, one whole 64-byte block with every count of high bytes
//! per half, exact-size output buffers with a guard byte after them,
//! larger buffers (nothing written past the output) and buffers too short.

mod common;
use common::corpus_dir;

use proptest::prelude::*;
use utf8kit::Kernel;
use utf8kit::transcode::{self as t, Latin1Error, TranscodeError};

/// A value no kernel writes past the end of an exact-size buffer.
const GUARD: u8 = 0xA5;
/// The filler of larger buffers, whose bytes past the output must stay.
const GUARD2: u8 = 0x5A;

/// Whether every byte of `rest` is `guard`.
fn past_is_guard(rest: &[u8], guard: u8) -> bool {
    rest.iter().all(|&b| b == guard)
}

/// std's Latin-1 → UTF-8: every byte is the char of the same value.
fn std_latin1_to_utf8(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| b as char).collect()
}

/// std's UTF-8 → Latin-1: the first problem in input order, a char above
/// U+00FF in the valid prefix or else the UTF-8 error (with std's numbers,
/// checked against `utf8kit::validate`).
fn std_utf8_to_latin1(bytes: &[u8]) -> Result<Vec<u8>, Latin1Error> {
    let (valid, error) = match std::str::from_utf8(bytes) {
        Ok(s) => (s, None),
        Err(e) => (
            std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap(),
            Some(e),
        ),
    };
    if let Some((offset, ch)) = valid.char_indices().find(|&(_, c)| u32::from(c) > 0xFF) {
        return Err(Latin1Error::Unrepresentable { offset, ch });
    }
    match error {
        None => Ok(valid.chars().map(|c| u32::from(c) as u8).collect()),
        Some(e) => {
            let ours = utf8kit::validate(bytes).unwrap_err();
            assert_eq!(
                (ours.valid_up_to(), ours.error_len()),
                (e.valid_up_to(), e.error_len())
            );
            Err(Latin1Error::InvalidUtf8(ours))
        }
    }
}

/// Checks Latin-1 → UTF-8 under every kernel on `bytes`.
fn check_latin1(bytes: &[u8]) {
    let want = std_latin1_to_utf8(bytes);
    let n = want.len();
    for kernel in Kernel::available() {
        let ctx = || format!("{kernel}, {} bytes {:02X?}", bytes.len(), short(bytes));
        assert_eq!(
            t::utf8_len_from_latin1_with(kernel, bytes),
            Some(n),
            "{}",
            ctx()
        );
        // Exact size, guard after.
        let mut out = vec![GUARD; n + 1];
        let got = t::latin1_to_utf8_with(kernel, bytes, &mut out[..n]);
        assert_eq!(got, Some(Ok(n)), "{}", ctx());
        assert_eq!(&out[..n], want.as_bytes(), "{}", ctx());
        assert_eq!(out[n], GUARD, "{}: wrote past the end", ctx());
        // Larger: nothing written past the output.
        let mut out = vec![GUARD2; n + 130];
        let got = t::latin1_to_utf8_with(kernel, bytes, &mut out);
        assert_eq!(got, Some(Ok(n)), "{}", ctx());
        assert_eq!(&out[..n], want.as_bytes(), "{}", ctx());
        assert!(
            past_is_guard(&out[n..], GUARD2),
            "{}: wrote past the output",
            ctx()
        );
        // Too small: the exact need, nothing written past the slice.
        for cut in [1, 2, 65, n / 2 + 1] {
            if cut <= n {
                let mut small = vec![GUARD; n];
                let got = t::latin1_to_utf8_with(kernel, bytes, &mut small[..n - cut]);
                assert_eq!(
                    got,
                    Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                    "{} short by {cut}",
                    ctx()
                );
                assert!(
                    small[n - cut..].iter().all(|&b| b == GUARD),
                    "{}: wrote past the end",
                    ctx()
                );
            }
        }
    }
    // The dispatched public functions.
    assert_eq!(t::latin1_to_utf8(bytes), want);
    assert_eq!(t::utf8_len_from_latin1(bytes), n);
    let mut s = String::from("prefix ");
    t::latin1_to_utf8_into_string(bytes, &mut s);
    assert_eq!(s, format!("prefix {want}"));
    let mut out = vec![GUARD; n + 1];
    assert_eq!(t::latin1_to_utf8_into(bytes, &mut out[..n]), Ok(n));
    assert_eq!(&out[..n], want.as_bytes());
    assert_eq!(out[n], GUARD);
}

/// Checks UTF-8 → Latin-1 under every kernel on `bytes`, against std and the
/// scalar engine.
fn check_utf8(bytes: &[u8]) {
    let want = std_utf8_to_latin1(bytes);
    for kernel in Kernel::available() {
        let ctx = || format!("{kernel}, {} bytes {:02X?}", bytes.len(), short(bytes));
        match &want {
            Ok(latin1) => {
                let n = latin1.len();
                let text = std::str::from_utf8(bytes).unwrap();
                assert_eq!(
                    t::latin1_len_from_utf8_with(kernel, text),
                    Some(n),
                    "{}",
                    ctx()
                );
                let mut out = vec![GUARD; n + 1];
                let got = t::utf8_to_latin1_with(kernel, bytes, &mut out[..n]);
                assert_eq!(got, Some(Ok(n)), "{}", ctx());
                assert_eq!(&out[..n], &latin1[..], "{}", ctx());
                assert_eq!(out[n], GUARD, "{}: wrote past the end", ctx());
                let mut out = vec![GUARD2; n + 130];
                let got = t::utf8_to_latin1_with(kernel, bytes, &mut out);
                assert_eq!(got, Some(Ok(n)), "{}", ctx());
                assert_eq!(&out[..n], &latin1[..], "{}", ctx());
                assert!(
                    past_is_guard(&out[n..], GUARD2),
                    "{}: wrote past the output",
                    ctx()
                );
                for cut in [1, 2, 65, n / 2 + 1] {
                    if cut <= n {
                        let mut small = vec![GUARD; n];
                        let got = t::utf8_to_latin1_with(kernel, bytes, &mut small[..n - cut]);
                        assert_eq!(
                            got,
                            Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                            "{} short by {cut}",
                            ctx()
                        );
                        assert!(
                            small[n - cut..].iter().all(|&b| b == GUARD),
                            "{}: wrote past the end",
                            ctx()
                        );
                    }
                }
            }
            Err(e) => {
                // Exact need of a valid input or not: the error wins over
                // any buffer size.
                for len in [bytes.len(), bytes.len() / 2, 0] {
                    let mut out = vec![GUARD; len + 1];
                    let got = t::utf8_to_latin1_with(kernel, bytes, &mut out[..len]);
                    assert_eq!(
                        got,
                        Some(Err(TranscodeError::Invalid(*e))),
                        "{} room {len}",
                        ctx()
                    );
                    assert_eq!(out[len], GUARD, "{}: wrote past the end", ctx());
                }
            }
        }
    }
    // The scalar engine into a buffer of the input's size (once, not per
    // kernel).
    let mut scalar_out = vec![0u8; bytes.len()];
    let scalar = t::utf8_to_latin1_with(Kernel::Scalar, bytes, &mut scalar_out).unwrap();
    match &want {
        Ok(latin1) => {
            assert_eq!(scalar, Ok(latin1.len()), "scalar, {:02X?}", short(bytes));
            assert_eq!(&scalar_out[..latin1.len()], &latin1[..], "scalar");
        }
        Err(e) => assert_eq!(
            scalar,
            Err(TranscodeError::Invalid(*e)),
            "scalar, {:02X?}",
            short(bytes)
        ),
    }
    assert_eq!(t::utf8_to_latin1(bytes), want);
    if let Ok(text) = std::str::from_utf8(bytes) {
        assert_eq!(t::latin1_len_from_utf8(text), text.chars().count());
        check_valid(text, &want);
    }
}

/// Checks the `&str` flavour (no validation) under every kernel: the same
/// result as the validating one, `want`.
fn check_valid(text: &str, want: &Result<Vec<u8>, Latin1Error>) {
    for kernel in Kernel::available() {
        let ctx = || {
            format!(
                "{kernel}, {} bytes {:02X?}",
                text.len(),
                short(text.as_bytes())
            )
        };
        match want {
            Ok(latin1) => {
                let n = latin1.len();
                let mut out = vec![GUARD; n + 1];
                let got = t::valid_utf8_to_latin1_with(kernel, text, &mut out[..n]);
                assert_eq!(got, Some(Ok(n)), "{}", ctx());
                assert_eq!(&out[..n], &latin1[..], "{}", ctx());
                assert_eq!(out[n], GUARD, "{}: wrote past the end", ctx());
                let mut out = vec![GUARD2; n + 130];
                let got = t::valid_utf8_to_latin1_with(kernel, text, &mut out);
                assert_eq!(got, Some(Ok(n)), "{}", ctx());
                assert_eq!(&out[..n], &latin1[..], "{}", ctx());
                assert!(
                    past_is_guard(&out[n..], GUARD2),
                    "{}: wrote past the output",
                    ctx()
                );
                if n > 0 {
                    let mut small = vec![GUARD; n];
                    let got = t::valid_utf8_to_latin1_with(kernel, text, &mut small[..n - 1]);
                    assert_eq!(
                        got,
                        Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                        "{}",
                        ctx()
                    );
                    assert_eq!(small[n - 1], GUARD, "{}: wrote past the end", ctx());
                }
            }
            Err(e) => {
                for len in [text.len(), text.len() / 2] {
                    let mut out = vec![GUARD; len + 1];
                    let got = t::valid_utf8_to_latin1_with(kernel, text, &mut out[..len]);
                    assert_eq!(got, Some(Err(TranscodeError::Invalid(*e))), "{}", ctx());
                    assert_eq!(out[len], GUARD, "{}: wrote past the end", ctx());
                }
            }
        }
    }
    assert_eq!(&t::valid_utf8_to_latin1(text), want);
    let mut out = vec![0u8; text.len()];
    let got = t::valid_utf8_to_latin1_into(text, &mut out);
    match want {
        Ok(latin1) => assert_eq!(got, Ok(latin1.len())),
        Err(e) => assert_eq!(got, Err(TranscodeError::Invalid(*e))),
    }
}

/// At most the first 80 bytes, for messages.
fn short(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.len().min(80)]
}

/// Latin-1 text: French/German-like, about one accented letter in eight.
fn latin1_text(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 16 {
                0 | 1 => 0xC0 + (x >> 8) as u8 % 0x40,
                2 => b' ',
                _ => b'a' + (x >> 8) as u8 % 26,
            }
        })
        .collect()
}

/// ASCII text.
fn ascii_text(len: usize) -> Vec<u8> {
    b"Lorem ipsum dolor sit amet, consectetur adipiscing elit. "
        .iter()
        .copied()
        .cycle()
        .take(len)
        .collect()
}

/// Valid UTF-8 of exactly `len` bytes, all of it Latin-1 (ASCII and `é`),
/// with two-byte characters crossing as many positions as it can.
fn utf8_latin1_prefix(len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    let mut k = 0;
    while out.len() < len {
        if len - out.len() >= 2 && k % 3 != 0 {
            out.extend_from_slice("é".as_bytes());
        } else {
            out.push(b'a' + (k % 26) as u8);
        }
        k += 1;
    }
    out
}

#[test]
fn latin1_every_byte_at_every_position() {
    for base in [ascii_text(260), latin1_text(260, 7)] {
        for pos in 0..=200 {
            for b in 0..=255u8 {
                let mut v = base.clone();
                v[pos] = b;
                check_latin1(&v[..pos + 1]);
                check_latin1(&v);
                // And back: the UTF-8 of it converts to the same bytes.
                let utf8 = std_latin1_to_utf8(&v);
                if pos % 8 == 0 {
                    check_utf8(utf8.as_bytes());
                } else {
                    assert_eq!(t::utf8_to_latin1(utf8.as_bytes()), Ok(v));
                }
            }
        }
    }
}

#[test]
fn latin1_short_inputs_and_sizes() {
    for len in 0..=300 {
        check_latin1(&ascii_text(len));
        check_latin1(&latin1_text(len, len as u64));
        let all_high: Vec<u8> = (0..len).map(|i| 0x80 | i as u8).collect();
        check_latin1(&all_high);
        check_utf8(std_latin1_to_utf8(&all_high).as_bytes());
        check_utf8(std_latin1_to_utf8(&latin1_text(len, 3)).as_bytes());
    }
}

/// One whole 64-byte block of Latin-1 (a path of its own, with its masks
/// known at compile time): every number of bytes `80..=FF` in each half
/// (which sets where the two halves' outputs meet and how long the second
/// is), the leads C2 and C3 mixed, every byte value at every position, and
/// buffers too short by every amount.
#[test]
fn latin1_one_whole_block() {
    for lo in 0..=32 {
        for hi in 0..=32 {
            let block: Vec<u8> = (0..64)
                .map(|i| {
                    let (k, half) = if i < 32 { (lo, i) } else { (hi, i - 32) };
                    match (half < k, i % 3) {
                        (true, 0) => 0x80 + i as u8,
                        (true, _) => 0xC0 + i as u8,
                        (false, _) => b'a' + (i % 26) as u8,
                    }
                })
                .collect();
            check_latin1(&block);
            // Reversed: the high bytes at the end of each half.
            let mut rev = block.clone();
            rev[..32].reverse();
            rev[32..].reverse();
            check_latin1(&rev);
        }
    }
    for base in [ascii_text(64), latin1_text(64, 11), vec![0xFF; 64]] {
        for pos in 0..64 {
            for b in [0x00, 0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xFF] {
                let mut v = base.clone();
                v[pos] = b;
                check_latin1(&v);
            }
        }
    }
    let block = latin1_text(64, 5);
    let want = std_latin1_to_utf8(&block);
    let n = want.len();
    for kernel in Kernel::available() {
        for len in 0..n {
            let mut small = vec![GUARD; n];
            let got = t::latin1_to_utf8_with(kernel, &block, &mut small[..len]);
            assert_eq!(
                got,
                Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                "{kernel}, room {len}"
            );
            assert!(
                small[len..].iter().all(|&b| b == GUARD),
                "{kernel}, room {len}: wrote past the end"
            );
        }
    }
}

/// The 16-byte steps of the SSE4.1 kernels (and of the AVX2 ones' halves):
/// Latin-1 → UTF-8 with every high-bit mask of each 8-byte half (beside a
/// few masks of the other half), and UTF-8 → Latin-1 with every layout of
/// one- and two-byte characters over a step's 16 bytes (a lead at byte 15
/// takes byte 16 along), each with and without input after the step (the
/// whole-register stores and the exact ones) and after an ASCII step.
#[test]
fn sixteen_byte_step_layouts() {
    let other = [0x00u32, 0x01, 0x80, 0xFF, 0x5A];
    for mask in 0..256u32 {
        for &o in &other {
            for m in [mask | o << 8, o | mask << 8] {
                let step: Vec<u8> = (0..16)
                    .map(|k| {
                        if m >> k & 1 != 0 {
                            0x80 + (k as u8) * 7
                        } else {
                            b'a' + k as u8
                        }
                    })
                    .collect();
                for (prefix, suffix) in [(0, 0), (0, 7), (0, 8), (0, 40), (16, 9)] {
                    let mut v = ascii_text(prefix);
                    v.extend_from_slice(&step);
                    v.extend_from_slice(&latin1_text(suffix, u64::from(m)));
                    check_latin1(&v);
                }
            }
        }
    }
    // Layouts: sequences of character widths 1 and 2 filling 16 or 17
    // bytes (17 only when the last character starts at byte 15).
    fn layouts(at: usize, cur: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if at >= 16 {
            out.push(cur.clone());
            return;
        }
        cur.push(1);
        layouts(at + 1, cur, out);
        cur.pop();
        cur.push(2);
        layouts(at + 2, cur, out);
        cur.pop();
    }
    let mut all = Vec::new();
    layouts(0, &mut Vec::new(), &mut all);
    assert_eq!(all.len(), 2584);
    for (n, widths) in all.iter().enumerate() {
        let step: Vec<u8> = widths
            .iter()
            .enumerate()
            .flat_map(|(k, &w)| {
                let c = if w == 1 {
                    char::from(b'a' + (k % 26) as u8)
                } else {
                    char::from(0x80 + ((k * 13 + n) % 0x80) as u8)
                };
                c.to_string().into_bytes()
            })
            .collect();
        for (prefix, suffix) in [(0, 0), (0, 8), (0, 40), (16, 3)] {
            let mut v = ascii_text(prefix);
            v.extend_from_slice(&step);
            v.extend_from_slice(&utf8_latin1_prefix(suffix));
            check_utf8(&v);
        }
        // A character above U+00FF, and a stray continuation, after it.
        if n % 5 == 0 {
            let mut v = step.clone();
            v.extend_from_slice("Ā".as_bytes());
            v.extend_from_slice(&ascii_text(20));
            check_utf8(&v);
            let mut v = step;
            v.push(0x80);
            v.extend_from_slice(&ascii_text(20));
            check_utf8(&v);
        }
    }
}

/// Offsets around the 64-byte block edges.
const OFFSETS: &[usize] = &[0, 1, 31, 32, 33, 61, 62, 63, 64, 65, 126, 127, 128];

#[test]
fn utf8_every_short_sequence_at_block_edges() {
    let suffix = utf8_latin1_prefix(70);
    let mut sequences: Vec<Vec<u8>> = Vec::new();
    for a in 0..=255u8 {
        sequences.push(vec![a]);
        for b in 0..=255u8 {
            sequences.push(vec![a, b]);
        }
    }
    // Three bytes: every lead and second byte with edge third bytes.
    const EDGES: &[u8] = &[
        0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC3, 0xFF,
    ];
    for a in 0x80..=0xFFu8 {
        for b in 0..=255u8 {
            for &c in &[0x41, 0x80, 0xBF, 0xC0] {
                sequences.push(vec![a, b, c]);
            }
        }
    }
    // Four bytes: every 4-byte lead (and the bytes above) with edge
    // continuations.
    for a in 0xF0..=0xFFu8 {
        for &b in EDGES {
            for &c in EDGES {
                for &d in EDGES {
                    sequences.push(vec![a, b, c, d]);
                }
            }
        }
    }
    for (k, seq) in sequences.iter().enumerate() {
        // Every sequence at a few offsets; a rotating subset at all.
        let offsets: &[usize] = if seq.len() <= 1 || k % 7 == 0 {
            OFFSETS
        } else {
            &OFFSETS[k % OFFSETS.len()..][..1]
        };
        for &off in offsets {
            let mut v = utf8_latin1_prefix(off);
            v.extend_from_slice(seq);
            check_utf8(&v);
            v.extend_from_slice(&suffix);
            check_utf8(&v);
        }
    }
}

/// Problems inserted into valid text: invalid UTF-8 and characters above
/// U+00FF, and pairs of them in both orders.
const PROBLEMS: &[&[u8]] = &[
    b"\xFF",
    b"\x80",
    b"\xC3",
    b"\xC3a",
    b"\xC0\xAF",
    b"\xC1\xBF",
    b"\xC4\x80",         // U+0100
    b"\xDF\xBF",         // U+07FF
    b"\xE2\x82",         // truncated €
    b"\xE2\x82\xAC",     // €
    b"\xED\xA0\x80",     // surrogate
    b"\xE0\x80\x80",     // overlong
    b"\xF0\x9F\x98\x80", // 😀
    b"\xF4\x90\x80\x80", // above U+10FFFF
    b"\xF0\x9F\x98",     // truncated
    b"\xE2\x82\xAC\xFF", // € then invalid: €
    b"\xFF\xE2\x82\xAC", // invalid then €: invalid
    b"\xC3\xA9\xC2",     // é then a lone lead
    b"\xC3\xA9\xE2\x82\xAC",
];

#[test]
fn utf8_problem_at_every_offset() {
    let suffix = utf8_latin1_prefix(150);
    for &problem in PROBLEMS {
        for off in 0..=200 {
            let mut v = utf8_latin1_prefix(off);
            v.extend_from_slice(problem);
            check_utf8(&v);
            v.extend_from_slice(&suffix);
            check_utf8(&v);
            // In ASCII text too (the all-ASCII block path).
            let mut a = ascii_text(off);
            a.extend_from_slice(problem);
            a.extend_from_slice(&ascii_text(100));
            check_utf8(&a);
        }
    }
}

#[test]
fn every_alignment() {
    // The kernels align their loads to the input's 64-byte boundaries: the
    // same text from every start address, with lengths around the edges.
    let latin1 = latin1_text(400, 5);
    let utf8 = std_latin1_to_utf8(&latin1).into_bytes();
    let mut buf = vec![0u8; 64 + utf8.len()];
    for start in 0..64 {
        for len in [0, 1, 2, 47, 63, 64, 65, 100, 127, 128, 129, 200, 300, 400] {
            buf[start..start + len].copy_from_slice(&latin1[..len]);
            check_latin1(&buf[start..start + len]);
            let mut end = len.min(utf8.len());
            while end > 0 && (utf8[end] as i8) < -64 {
                end -= 1;
            }
            buf[start..start + end].copy_from_slice(&utf8[..end]);
            check_utf8(&buf[start..start + end]);
            // A lone lead at the end, and a problem after it.
            buf[start + end] = 0xC3;
            check_utf8(&buf[start..start + end + 1]);
        }
    }
}

/// Runs of ASCII and mixed 64-byte blocks in every pattern of seven blocks
/// (the AVX-512 Latin-1 → UTF-8 kernel copies an ASCII start two blocks a
/// step, reads the high-byte masks two blocks ahead in long runs of mixed
/// text and returns to its ASCII copy after two ASCII blocks; UTF-8 →
/// Latin-1 runs mixed blocks after a mixed block in a loop of their own
/// until an ASCII one), then either nothing or 1100 bytes of mixed text (so
/// that the long-run loops start inside the pattern), from two start
/// offsets (the kernels align their loads first), with tails of several
/// lengths; each also as UTF-8 for the other direction.
#[test]
fn ascii_and_mixed_block_patterns() {
    let mixed = latin1_text(64 * 7, 21);
    let long = latin1_text(1100, 22);
    let ascii = ascii_text(64 * 7);
    let ends = [
        (0, 0),
        (31, 0),
        (32, 0),
        (33, 0),
        (95, 0),
        (0, 1100),
        (33, 1100),
    ];
    for pattern in 0u32..128 {
        for (tail, after) in ends {
            for start in [0, 13] {
                let mut bytes: Vec<u8> = ascii[..start].to_vec();
                for k in 0..7 {
                    let from = if pattern >> k & 1 == 1 {
                        &mixed
                    } else {
                        &ascii
                    };
                    bytes.extend_from_slice(&from[64 * k..64 * k + 64]);
                }
                bytes.extend_from_slice(&long[..after]);
                bytes.extend_from_slice(&mixed[..tail]);
                check_latin1(&bytes);
                check_utf8(std_latin1_to_utf8(&bytes).as_bytes());
            }
        }
    }
}

#[test]
fn utf8_latin1_text_long() {
    for len in [1000, 4096, 65_537] {
        let text = std_latin1_to_utf8(&latin1_text(len, 11));
        check_utf8(text.as_bytes());
        check_latin1(&latin1_text(len, 13));
        let high: Vec<u8> = (0..len).map(|i| (i * 7 + 0x80) as u8 | 0x80).collect();
        check_latin1(&high);
        check_utf8(std_latin1_to_utf8(&high).as_bytes());
    }
}

/// UTF-8 → Latin-1 past 4 MiB, where the AVX-512 kernel runs a copy of its
/// loop of its own (the one that asks for its output ahead): mixed text,
/// valid, with a character above U+00FF near the end, and with an invalid
/// byte there.
#[test]
fn utf8_latin1_text_far() {
    let text = std_latin1_to_utf8(&latin1_text((4 << 20) + 1000, 17));
    check_utf8(text.as_bytes());
    let mut at = text.len() - 300;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let mut euro = text.clone().into_bytes();
    euro.splice(at..at, "€".bytes());
    check_utf8(&euro);
    let mut invalid = text.into_bytes();
    invalid[at] = 0xFF;
    check_utf8(&invalid);
}

#[test]
fn lipsum_files() {
    let Some(dir) = corpus_dir() else {
        eprintln!("skipped: no shared/corpus/lipsum");
        return;
    };
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().ends_with(".utf8.txt") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        check_utf8(&bytes);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("Latin") {
            // Latin lipsum is representable: it converts, and so does its
            // Latin-1 form back.
            let latin1 = t::utf8_to_latin1(&bytes).unwrap();
            check_latin1(&latin1);
        }
        if name.starts_with("Russian") {
            assert!(matches!(
                t::utf8_to_latin1(&bytes),
                Err(Latin1Error::Unrepresentable { .. })
            ));
        }
        // Every file's Latin-1 bytes read as Latin-1 too.
        check_latin1(&bytes);
        seen += 1;
    }
    assert!(seen > 0);
}

/// A character that is mostly Latin-1, sometimes not.
fn latin1ish_char() -> impl Strategy<Value = char> {
    prop_oneof![
        8 => (0x20u32..0x7F).prop_map(|c| char::from_u32(c).unwrap()),
        4 => (0x80u32..0x100).prop_map(|c| char::from_u32(c).unwrap()),
        1 => any::<char>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_latin1(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        check_latin1(&bytes);
        check_utf8(&bytes);
    }

    #[test]
    fn random_latin1ish_text(chars in proptest::collection::vec(latin1ish_char(), 0..2048)) {
        let s: String = chars.into_iter().collect();
        check_utf8(s.as_bytes());
    }

    #[test]
    fn random_latin1_text_with_a_flip(
        bytes in proptest::collection::vec(0x20u8..=0xFF, 0..4096),
        at in any::<usize>(),
        with in any::<u8>(),
    ) {
        let mut utf8 = std_latin1_to_utf8(&bytes).into_bytes();
        check_utf8(&utf8);
        if !utf8.is_empty() {
            let i = at % utf8.len();
            utf8[i] = with;
            check_utf8(&utf8);
        }
    }
}

/// The large-input path (8 MiB and more: the ASCII prefix copied with
/// aligned non-temporal stores): inputs just past the threshold, the
/// output at several misalignments, a non-ASCII character early, in the
/// middle and late, exact buffers with a guard after them, and one short.
#[test]
fn large_inputs_stream() {
    const LEN: usize = (8 << 20) + 100;
    let ascii = ascii_text(LEN);
    for pos in [None, Some(10), Some(70), Some(LEN / 2 + 3), Some(LEN - 5)] {
        // Latin-1 → UTF-8: `é` (E9) at `pos`.
        let mut latin1 = ascii.clone();
        let mut want = ascii.clone();
        if let Some(p) = pos {
            latin1[p] = 0xE9;
            want.splice(p..p + 1, [0xC3, 0xA9]);
        }
        let n = want.len();
        // UTF-8 → Latin-1: the same `é`, and `€` (not Latin-1) instead.
        let mut euro = ascii.clone();
        if let Some(p) = pos {
            euro.splice(p..p + 1, "€".bytes());
        }
        for kernel in Kernel::available() {
            for mis in [0usize, 1, 7, 31] {
                let mut buf = vec![GUARD; n + 64 + 1];
                let shift = (mis + 64 - buf.as_ptr() as usize % 64) % 64;
                let ctx = || format!("{kernel}, non-ASCII at {pos:?}, output at +{mis}");
                let out = &mut buf[shift..shift + n];
                assert_eq!(
                    t::latin1_to_utf8_with(kernel, &latin1, out),
                    Some(Ok(n)),
                    "{}",
                    ctx()
                );
                assert!(buf[shift..shift + n] == want[..], "{}", ctx());
                assert!(past_is_guard(&buf[..shift], GUARD), "{}", ctx());
                assert!(past_is_guard(&buf[shift + n..], GUARD), "{}", ctx());
                buf.fill(GUARD2);
                let m = latin1.len();
                let out = &mut buf[shift..shift + m];
                assert_eq!(
                    t::utf8_to_latin1_with(kernel, &want, out),
                    Some(Ok(m)),
                    "{}",
                    ctx()
                );
                assert!(buf[shift..shift + m] == latin1[..], "{}", ctx());
                assert!(past_is_guard(&buf[..shift], GUARD2), "{}", ctx());
                assert!(past_is_guard(&buf[shift + m..], GUARD2), "{}", ctx());
                if let Some(p) = pos {
                    let out = &mut buf[shift..shift + euro.len()];
                    let got = t::utf8_to_latin1_with(kernel, &euro, out);
                    assert_eq!(
                        got,
                        Some(Err(TranscodeError::Invalid(Latin1Error::Unrepresentable {
                            offset: p,
                            ch: '€'
                        }))),
                        "{}",
                        ctx()
                    );
                }
            }
            // Short by one: the exact need, nothing written past the slice.
            let mut small = vec![GUARD; n];
            assert_eq!(
                t::latin1_to_utf8_with(kernel, &latin1, &mut small[..n - 1]),
                Some(Err(TranscodeError::BufferTooSmall { needed: n })),
                "{kernel}, non-ASCII at {pos:?}"
            );
            assert_eq!(small[n - 1], GUARD);
            let m = latin1.len();
            let mut small = vec![GUARD; m];
            assert_eq!(
                t::utf8_to_latin1_with(kernel, &want, &mut small[..m - 1]),
                Some(Err(TranscodeError::BufferTooSmall { needed: m })),
                "{kernel}, non-ASCII at {pos:?}"
            );
            assert_eq!(small[m - 1], GUARD);
        }
    }
}
