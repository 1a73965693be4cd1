//! Every kernel the CPU supports, forced, against the oracle.
//!
//! `valid_up_to` and `error_len` must equal `core::str::from_utf8`'s and the
//! whole error (with its kind) must equal the scalar kernel's, on: every
//! input of 1–3 bytes, every 4-byte input with a 4-byte lead, those inputs
//! shifted across 16/32/64-byte register and block boundaries, errors at
//! every offset of real text in many scripts, sequences straddling block
//! boundaries and cut off at the end of input, and random inputs.
//!
//! Kernels the CPU lacks are printed as skipped (`--nocapture`).

mod common;
use common::corpus_dir;

use proptest::prelude::*;
use std::sync::OnceLock;
use utf8kit::{Kernel, Utf8Error};

/// The kernels to test, printed once.
fn kernels() -> &'static [Kernel] {
    static KERNELS: OnceLock<Vec<Kernel>> = OnceLock::new();
    KERNELS.get_or_init(|| {
        let available: Vec<Kernel> = Kernel::available().collect();
        for k in Kernel::ALL {
            if !available.contains(&k) {
                eprintln!("kernel {k}: not supported by this CPU, skipped");
            }
        }
        available
    })
}

#[test]
fn print_kernels() {
    let names: Vec<&str> = kernels().iter().map(|k| k.name()).collect();
    println!(
        "detected kernel: {}; testing: {}",
        Kernel::detected(),
        names.join(", ")
    );
    assert!(kernels().contains(&Kernel::detected()));
    assert_eq!(kernels()[0], Kernel::Scalar);
    for k in Kernel::ALL {
        assert_eq!(k.validate(b"").is_some(), k.is_available(), "{k}");
        assert_eq!(k.is_valid(b"").is_some(), k.is_available(), "{k}");
        assert_eq!(Kernel::from_name(k.name()), Some(k));
    }
}

/// Checks every kernel on `input` against `core::str::from_utf8` and the
/// scalar kernel, panicking with the kernel and the input on a mismatch.
fn check(input: &[u8]) {
    let oracle = core::str::from_utf8(input)
        .map(drop)
        .map_err(|e| (e.valid_up_to(), e.error_len()));
    let scalar: Result<(), Utf8Error> = Kernel::Scalar.validate(input).unwrap();
    assert_eq!(
        scalar.map_err(|e| (e.valid_up_to(), e.error_len())),
        oracle,
        "scalar vs core on {input:02X?}"
    );
    for &k in kernels() {
        let got = k.validate(input);
        if got != Some(scalar) {
            panic!(
                "{k} on {} bytes: got {got:?}, scalar says {scalar:?}\ninput: {input:02X?}",
                input.len()
            );
        }
        if k.is_valid(input) != Some(oracle.is_ok()) {
            panic!("{k}: is_valid wrong on {input:02X?}");
        }
    }
}

/// Also the public entry points, which pick a kernel (or the scalar path
/// for short inputs) themselves.
fn check_public(input: &[u8]) {
    check(input);
    let scalar = Kernel::Scalar.validate(input).unwrap();
    assert_eq!(utf8kit::validate(input), scalar, "validate on {input:02X?}");
    assert_eq!(utf8kit::is_valid(input), scalar.is_ok());
    assert_eq!(
        utf8kit::from_utf8(input).map(str::as_bytes),
        scalar.map(|()| input)
    );
}

/// Runs `f(n)` for every `n` in `0..count`, split over a few threads.
fn par_for(count: u32, f: impl Fn(u32) + Sync) {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4)) as u32;
    let per = count.div_ceil(threads);
    std::thread::scope(|s| {
        for t in 0..threads {
            let f = &f;
            s.spawn(move || {
                for n in t * per..((t + 1) * per).min(count) {
                    f(n);
                }
            });
        }
    });
}

/// Bytes where the grammar changes: ASCII and continuation edges, each lead
/// class edge, and bytes that are never valid.
const EDGES: [u8; 20] = [
    0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF,
    0xF0, 0xF4, 0xF5, 0xFF,
];

/// ASCII prefix lengths that put the input across the 16-, 32- and 64-byte
/// boundaries of the registers and blocks.
const SHIFTS: [usize; 6] = [13, 15, 29, 31, 61, 63];

/// `input` after `shift` bytes of ASCII, or of 2-byte text (then one more
/// ASCII byte if `shift` is odd), so that the block is not skipped as ASCII.
fn shifted(input: &[u8], shift: usize, two_byte: bool) -> Vec<u8> {
    let mut v = if two_byte {
        let mut v = "é".repeat(shift / 2).into_bytes();
        v.resize(shift, b'.');
        v
    } else {
        vec![b'a'; shift]
    };
    v.extend_from_slice(input);
    v
}

#[test]
fn every_input_of_one_and_two_bytes() {
    check(&[]);
    for a in 0..=255u8 {
        check(&[a]);
        for b in 0..=255u8 {
            check(&[a, b]);
            for shift in SHIFTS {
                for two_byte in [false, true] {
                    let mut v = shifted(&[a, b], shift, two_byte);
                    check(&v);
                    // And followed by text, so that a truncated lead is cut
                    // off by ASCII (maybe in the next block) rather than by
                    // the end of input.
                    v.extend_from_slice(&[b'z'; 70]);
                    check(&v);
                }
            }
        }
    }
}

#[test]
fn every_input_of_three_bytes() {
    par_for(1 << 24, |n| {
        let [a, b, c, _] = n.to_le_bytes();
        check(&[a, b, c]);
        // Shifted copies for a sample: every (a, b) with the edge third
        // bytes.
        if EDGES.contains(&c) {
            for shift in SHIFTS {
                check(&shifted(&[a, b, c], shift, (a ^ b) & 1 == 1));
            }
        }
    });
}

#[test]
fn every_four_byte_input_with_a_four_byte_lead() {
    par_for(5 << 24, |n| {
        let lead = 0xF0 + (n >> 24) as u8;
        let [b, c, d, _] = n.to_le_bytes();
        let input = [lead, b, c, d];
        check(&input);
        if EDGES.contains(&c) && EDGES.contains(&d) {
            for shift in SHIFTS {
                check(&shifted(&input, shift, b & 1 == 1));
            }
        }
    });
}

/// Sample texts in many scripts, built in, so the tests run without the
/// corpus too.
const TEXTS: &[&str] = &[
    "The quick brown fox jumps over the lazy dog, again and again.",
    "Съешь же ещё этих мягких французских булок, да выпей же чаю.",
    "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία. Τάχιστη αλώπηξ βαφής ψημένη γη.",
    "我能吞下玻璃而不伤身体。天地玄黄，宇宙洪荒。日月盈昃，辰宿列张。",
    "いろはにほへと ちりぬるを わかよたれそ つねならむ うゐのおくやま",
    "다람쥐 헌 쳇바퀴에 타고파. 키스의 고유조건은 입술끼리 만나야 하고",
    "ऋषियों को सताने वाले दुष्ट राक्षसों के राजा रावण का सर्वनाश करने वाले",
    "نص حكيم له سر قاطع وذو شأن عظيم مكتوب على ثوب أخضر ومغلف بجلد أزرق",
    "עטלף אבק נס דרך מזגן שהתפוצץ כי חם. דג סקרן שט בים מאוכזב ולפתע",
    "😀🎉👍🏽🇺🇦 emoji 🧑‍🚀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕞𝕒𝕥𝕙 ∮ E⋅da = Q, n → ∞",
    "mixed: é ß Ж 中 😀 a\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF} end",
];

/// The corpus files' texts (name, bytes), or none with a printed note.
fn corpus() -> &'static [(String, Vec<u8>)] {
    static CORPUS: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let Some(dir) = corpus_dir() else {
            eprintln!("note: shared/corpus/lipsum not found; corpus cases skipped");
            return Vec::new();
        };
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".utf8.txt"))
            .filter_map(|e| {
                let bytes = std::fs::read(e.path()).ok()?;
                Some((e.file_name().to_string_lossy().into_owned(), bytes))
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
    })
}

/// Windows of valid text of at least `len` bytes: from each built-in text
/// (repeated) and from each corpus file, starting at a few character
/// boundaries.
fn text_windows(len: usize) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for t in TEXTS {
        let s = t.repeat(len / t.len() + 2);
        out.push((t.chars().take(12).collect(), s.into_bytes()));
    }
    for (name, bytes) in corpus() {
        let text = std::str::from_utf8(bytes).expect("corpus file is valid UTF-8");
        for from in [0, 1001, 5003] {
            let start = (from..text.len())
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            let end = (start + len + 8..text.len())
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(text.len());
            out.push((
                format!("{name}@{start}"),
                text.as_bytes()[start..end].to_vec(),
            ));
        }
    }
    out
}

/// Invalid sequences of every class (seed 002) and truncated leads.
const BAD: &[&[u8]] = &[
    b"\x80",
    b"\xBF",
    b"\xC0\xAF",
    b"\xC1\xBF",
    b"\xC2",
    b"\xDF",
    b"\xE2\x82",
    b"\xE0\x80\xAF",
    b"\xE0\x9F\xBF",
    b"\xED\xA0\x80",
    b"\xED\xBF\xBF",
    b"\xF0\x9F\x98",
    b"\xF0\x80\x80\xAF",
    b"\xF0\x8F\xBF\xBF",
    b"\xF4\x90\x80\x80",
    b"\xF5\x80\x80\x80",
    b"\xF7\xBF\xBF\xBF",
    b"\xF8\x88\x80\x80\x80",
    b"\xFE",
    b"\xFF",
];

/// Bytes written over one byte of valid text.
const OVERWRITE: [u8; 8] = [0x80, 0xBF, 0xC0, 0xC2, 0xE1, 0xF0, 0xF5, 0xFF];

#[test]
fn an_error_at_every_offset_of_text_in_every_script() {
    for (name, text) in text_windows(264) {
        assert!(core::str::from_utf8(&text).is_ok(), "{name}");
        check_public(&text);
        for at in 0..=200 {
            // Overwrite one byte: an error at `at` or just before it.
            for b in OVERWRITE {
                let mut v = text.clone();
                v[at] = b;
                check_public(&v);
            }
            // Insert a bad sequence at `at` (maybe inside a character) and
            // at the character boundary at or before it.
            let boundary = (0..=at)
                .rev()
                .find(|&i| text[i] & 0xC0 != 0x80)
                .unwrap_or(0);
            for bad in BAD {
                for pos in [at, boundary] {
                    let mut v = text.clone();
                    v.splice(pos..pos, bad.iter().copied());
                    check_public(&v);
                }
            }
            // Cut the text at `at`: valid, or a truncated character.
            check_public(&text[..at]);
        }
    }
}

/// The short path (inputs up to 64 bytes, tested for ASCII inline with
/// overlapping words) and the ASCII prefix scan (four blocks per step) must
/// see a non-ASCII byte wherever it is: every length up to 300, every
/// position, every edge byte, in ASCII and after a 2-byte character.
#[test]
fn a_byte_of_every_class_at_every_position_of_every_short_length() {
    par_for(301, |len| {
        let len = len as usize;
        for at in 0..len {
            for &edge in &EDGES {
                let mut v = vec![b'a'; len];
                v[at] = edge;
                check_public(&v);
                if at >= 2 {
                    v[at - 2..at].copy_from_slice("é".as_bytes());
                    check_public(&v);
                }
            }
        }
    });
}

#[test]
fn sequences_straddling_block_boundaries_and_at_the_end() {
    let goods: [&[u8]; 4] = [b"a", "é".as_bytes(), "中".as_bytes(), "😀".as_bytes()];
    let mut seqs: Vec<&[u8]> = BAD.to_vec();
    seqs.extend(goods);
    let fillers: [&[u8]; 4] = goods;
    for boundary in [16, 32, 48, 64, 128, 192, 256] {
        for &seq in &seqs {
            for filler in fillers {
                // Start the sequence up to four bytes before the boundary.
                for back in 0..=4 {
                    let start = boundary - back;
                    let mut v = Vec::new();
                    while v.len() + filler.len() <= start {
                        v.extend_from_slice(filler);
                    }
                    v.resize(start, b'.');
                    v.extend_from_slice(seq);
                    // At the very end of the input…
                    check_public(&v);
                    // …followed by a full block of ASCII (which takes the
                    // ASCII fast path), and by more text.
                    let mut w = v.clone();
                    w.extend_from_slice(&[b'x'; 64]);
                    check_public(&w);
                    let mut w = v.clone();
                    for _ in 0..40 {
                        w.extend_from_slice(filler);
                    }
                    check_public(&w);
                }
            }
        }
    }
    // Every input length up to 300 ending in every truncated character.
    for len in 0..=300 {
        for seq in [
            &b"\xC3"[..],
            b"\xE4\xB8",
            b"\xE4",
            b"\xF0\x9F\x98",
            b"\xF0\x9F",
            b"\xF0",
        ] {
            for filler in fillers {
                let mut v = Vec::new();
                while v.len() + filler.len() <= len {
                    v.extend_from_slice(filler);
                }
                v.resize(len, b'.');
                check_public(&v);
                v.extend_from_slice(seq);
                check_public(&v);
            }
        }
    }
}

#[test]
fn whole_corpus_files_and_an_error_near_their_end() {
    for (name, bytes) in corpus() {
        for &k in kernels() {
            assert_eq!(k.validate(bytes), Some(Ok(())), "{k} on {name}");
            assert_eq!(k.is_valid(bytes), Some(true), "{k} on {name}");
        }
        // An error in each of the last 130 bytes, and one per 997 bytes.
        let n = bytes.len();
        let positions = (n.saturating_sub(130)..n).chain((0..n).step_by(997));
        for at in positions {
            let mut v = bytes.clone();
            v[at] = 0xFF;
            check(&v);
        }
    }
}

/// Errors past the first chunk (a KiB), around the chunk edges: a SIMD
/// kernel's check only tells in which chunk it failed, and the exact error
/// is then found by the kernel's fine check from that chunk's start (or by
/// the scalar rescan within the last 128 bytes). Lossy decoding and chunk
/// iteration start with the same check.
#[test]
fn an_error_around_every_chunk_edge_past_the_first() {
    let windows = text_windows(3200);
    par_for(windows.len() as u32, |w| {
        let (name, text) = &windows[w as usize];
        for edge in [1024, 2048, 3072] {
            for at in edge - 70..(edge + 70).min(text.len()) {
                let boundary = (0..=at)
                    .rev()
                    .find(|&i| text[i] & 0xC0 != 0x80)
                    .unwrap_or(0);
                let mut variants = Vec::new();
                for b in [0x80, 0xC2, 0xFF] {
                    let mut v = text.clone();
                    v[at] = b;
                    variants.push(v);
                }
                for bad in [
                    &b"\xE2\x82"[..],
                    b"\xED\xA0\x80",
                    b"\xF0\x9F\x98",
                    b"\xC0\xAF",
                ] {
                    let mut v = text.clone();
                    v.splice(boundary..boundary, bad.iter().copied());
                    variants.push(v);
                }
                for v in &variants {
                    check_public(v);
                    assert_eq!(
                        utf8kit::decode_lossy(v),
                        String::from_utf8_lossy(v),
                        "{name}, error at {at}"
                    );
                    let ours: Vec<_> = utf8kit::utf8_chunks(v)
                        .map(|c| (c.valid(), c.invalid()))
                        .collect();
                    let std: Vec<_> = v.utf8_chunks().map(|c| (c.valid(), c.invalid())).collect();
                    assert_eq!(ours, std, "{name}, error at {at}");
                }
            }
        }
    });
}

/// A piece of random input: mostly runs of one character class, so that
/// the ASCII fast path and the multi-byte paths both get long stretches.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    let ch = prop_oneof![
        4 => 0x20u32..0x7F,
        2 => 0x80u32..0x800,
        2 => 0x800u32..0x10000,
        1 => 0x10000u32..0x110000,
    ]
    .prop_filter_map("surrogate", char::from_u32);
    (ch, 1usize..80).prop_map(|(c, n)| c.to_string().repeat(n).into_bytes())
}

/// Random valid text cut to a random length below 4096, with a few bytes
/// replaced.
fn mutated_text() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(piece(), 0..60),
        any::<prop::sample::Index>(),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
    )
        .prop_map(|(pieces, cut, edits)| {
            let mut v = pieces.concat();
            v.truncate(4095);
            let len = cut.index(v.len() + 1);
            v.truncate(len);
            if !v.is_empty() {
                for (at, b) in edits {
                    let i = at.index(v.len());
                    v[i] = b;
                }
            }
            v
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_text_with_injected_errors(input in mutated_text()) {
        check_public(&input);
    }

    #[test]
    fn random_bytes(input in prop::collection::vec(any::<u8>(), 0..4096)) {
        check_public(&input);
    }

    /// A corpus window (or built-in text) with one byte replaced.
    #[test]
    fn corpus_with_one_byte_replaced(
        which in any::<prop::sample::Index>(),
        start in any::<prop::sample::Index>(),
        len in 0usize..4096,
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let owned;
        let source: &[u8] = if corpus().is_empty() {
            owned = TEXTS.concat().repeat(8).into_bytes();
            &owned
        } else {
            &corpus()[which.index(corpus().len())].1
        };
        let start = start.index(source.len());
        let mut v = source[start..(start + len).min(source.len())].to_vec();
        if !v.is_empty() {
            let i = at.index(v.len());
            v[i] = byte;
        }
        check_public(&v);
    }
}
