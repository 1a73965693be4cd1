//! Latin-1 → UTF-8, UTF-8 → Latin-1 and the UTF-8 length of Latin-1: utf8kit against
//! simdutf (C++), encoding_rs and std, on the texts Latin-1 can represent
//! ([`RowKey::is_latin1`]: Latin lipsum, ASCII, and the generated Latin-1 text and random
//! Latin-1 families; for UTF-8 → Latin-1 their UTF-8 encodings).
//!
//! Every contender writes into an output buffer it owns (grown on the first, untimed,
//! call, and starting on a page boundary) and returns the number of bytes written, or [`INVALID`] if the input is not
//! valid UTF-8 or holds a character above U+00FF. Flavours that do not validate are speed
//! references ([`Role::Baseline`]), not peers.
//!
//! simdutf's conversions are `unsafe fn`s over raw pointers, so the wrappers at the end
//! are this module's only `unsafe` code.

use std::hint::black_box;

use super::{Contender, INVALID, Operation, Ratio, Role, RowKey, Shape, Summary, valid_flavour};
use crate::inputs::Encoding;

const UTF8KIT_L1TO8: &str = "utf8kit::transcode::latin1_to_utf8_into";
const SCALAR_L1TO8: &str = "utf8kit scalar latin1_to_utf8";
const AVX2_L1TO8: &str = "utf8kit avx2 latin1_to_utf8";
const SSE_L1TO8: &str = "utf8kit sse latin1_to_utf8";
const SIMDUTF_L1TO8: &str = "simdutf::convert_latin1_to_utf8";
const STD_L1TO8: &str = "std bytes.map(char::from).collect::<String>()";
const UTF8KIT_8TOL1: &str = "utf8kit::transcode::utf8_to_latin1_into";
const SCALAR_8TOL1: &str = "utf8kit scalar utf8_to_latin1";
const AVX2_8TOL1: &str = "utf8kit avx2 utf8_to_latin1";
const SSE_8TOL1: &str = "utf8kit sse utf8_to_latin1";
const SIMDUTF_8TOL1: &str = "simdutf::convert_utf8_to_latin1";
const SIMDUTF_8TOL1_VALID: &str = "simdutf::convert_valid_utf8_to_latin1";
const STD_8TOL1: &str = "std from_utf8 + chars";
const UTF8KIT_LEN: &str = "utf8kit::transcode::utf8_len_from_latin1";
const SIMDUTF_LEN: &str = "simdutf::utf8_length_from_latin1";
const STD_LEN: &str = "std iter count";
const MEMCPY: &str = "memcpy";

/// `len` bytes of `buf` from a page boundary, growing it on the first call per size.
///
/// Every contender's output starts at the same offset in a page, so all of them see the
/// same distance between input and output modulo 4 KiB: where the allocator happens to
/// put each contender's buffer otherwise decides a copy-speed row by 10–40 % (stores
/// split across cache lines, loads that alias recent stores 4 KiB apart), for one
/// contender and not another.
fn room(buf: &mut Vec<u8>, len: usize) -> &mut [u8] {
    let align = 4096;
    if buf.len() < len + align {
        buf.resize(len + align, 0);
    }
    let start = buf.as_ptr().align_offset(align).min(align);
    &mut buf[start..start + len]
}

/// A speed reference: copies the input into a buffer placed as the contenders' are. On
/// all-ASCII rows both conversions are this copy plus a test of the high bits, so
/// `÷memcpy` near 1 there means no conversion can be much faster.
fn memcpy_into(buf: &mut Vec<u8>, s: &[u8]) -> usize {
    room(buf, s.len()).copy_from_slice(s);
    black_box(buf);
    s.len()
}

/// [`memcpy_into`] on Latin-1 input.
fn memcpy_latin1() -> Contender {
    let mut buf = Vec::new();
    Contender::latin1(MEMCPY, "memcpy", Role::Baseline, move |s| {
        memcpy_into(&mut buf, s)
    })
}

/// [`memcpy_into`] on UTF-8 input.
fn memcpy_utf8() -> Contender {
    let mut buf = Vec::new();
    Contender::utf8(MEMCPY, "memcpy", Role::Baseline, move |s| {
        memcpy_into(&mut buf, s)
    })
}

/// The rows of the ÷simdutf geomean: every Latin-1 row.
fn every_latin1_row(k: &RowKey) -> bool {
    k.is_latin1()
}

/// The Latin-1 → UTF-8 operation.
pub fn latin1_to_utf8() -> Operation {
    let (mut a, mut b, mut c, mut d, mut e, mut g, mut h) = (
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        String::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
    );
    Operation::new("latin1→utf8", Encoding::Latin1, STD_L1TO8)
        .rows(RowKey::is_latin1)
        .contender(Contender::latin1(UTF8KIT_L1TO8, "utf8kit", Role::Ours, move |s| {
            let out = room(&mut a, 2 * s.len());
            utf8kit::transcode::latin1_to_utf8_into(s, out).unwrap_or(INVALID)
        }))
        .contender(Contender::latin1(SCALAR_L1TO8, "scalar", Role::Ours, move |s| {
            let out = room(&mut b, 2 * s.len());
            utf8kit::transcode::latin1_to_utf8_with(utf8kit::Kernel::Scalar, s, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
        }))
        .contender(Contender::latin1(AVX2_L1TO8, "avx2", Role::Ours, move |s| {
            let out = room(&mut g, 2 * s.len());
            utf8kit::transcode::latin1_to_utf8_with(utf8kit::Kernel::Avx2, s, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
        }))
        .contender(Contender::latin1(SSE_L1TO8, "sse", Role::Ours, move |s| {
            let out = room(&mut h, 2 * s.len());
            utf8kit::transcode::latin1_to_utf8_with(utf8kit::Kernel::Sse42, s, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
        }))
        .contender(Contender::latin1(SIMDUTF_L1TO8, "simdutf", Role::Peer, move |s| {
            let out = room(&mut c, 2 * s.len());
            simdutf_latin1_to_utf8(s, out)
        }))
        .contender(Contender::latin1(
            "encoding_rs::mem::convert_latin1_to_utf8",
            "enc_rs",
            Role::Peer,
            move |s| {
                let out = room(&mut e, 2 * s.len());
                encoding_rs::mem::convert_latin1_to_utf8(s, out)
            },
        ))
        .contender(memcpy_latin1())
        .contender(Contender::latin1(STD_L1TO8, "std", Role::Peer, move |s| {
            d.clear();
            d.extend(s.iter().map(|&b| char::from(b)));
            d.len()
        }))
        .ratio(Ratio::best_peer("÷best", UTF8KIT_L1TO8))
        .ratio(Ratio::of("÷simdutf", UTF8KIT_L1TO8, SIMDUTF_L1TO8))
        .ratio(Ratio::of("÷memcpy", UTF8KIT_L1TO8, MEMCPY))
        .ratio(Ratio::of("scalar÷std", SCALAR_L1TO8, STD_L1TO8))
        .ratio(Ratio::of("avx2÷scalar", AVX2_L1TO8, SCALAR_L1TO8))
        .ratio(Ratio::of("avx2÷simdutf", AVX2_L1TO8, SIMDUTF_L1TO8))
        .ratio(Ratio::of("sse÷scalar", SSE_L1TO8, SCALAR_L1TO8))
        .ratio(Ratio::of("sse÷simdutf", SSE_L1TO8, SIMDUTF_L1TO8))
        .summary(Summary {
            title: "utf8kit ÷ simdutf::convert_latin1_to_utf8, geomean over every Latin-1 row",
            ratio: "÷simdutf",
            rows: every_latin1_row,
            shape: Shape::GeomeanBySize,
        })
        .summary(Summary {
            title: "utf8kit ÷ simdutf, every Latin-1 input",
            ratio: "÷simdutf",
            rows: every_latin1_row,
            shape: Shape::Matrix,
        })
        .note("utf8kit = utf8kit::transcode::latin1_to_utf8_into (AVX-512 when present); scalar = latin1_to_utf8_with(Kernel::Scalar); avx2 = latin1_to_utf8_with(Kernel::Avx2); sse = latin1_to_utf8_with(Kernel::Sse42) (the SSE4.1 kernels)")
        .note("simdutf = simdutf::convert_latin1_to_utf8; enc_rs = encoding_rs::mem::convert_latin1_to_utf8; std = String::extend of char::from per byte; memcpy = a copy of the input into a buffer placed as the others (a reference, not a peer: on all-ASCII rows the conversion is this copy)")
        .note("inputs: Latin lipsum and ASCII (all ASCII), Latin-1 text (≈1 letter in 8 is U+00C0..=U+00FF), Latin-1 random (uniform 20..=FF)")
}

/// The UTF-8 → Latin-1 operation (validating).
pub fn utf8_to_latin1() -> Operation {
    let (mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h, mut k) = (
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
    );
    Operation::new("utf8→latin1", Encoding::Utf8, STD_8TOL1)
        .rows(RowKey::is_latin1)
        .contender(Contender::utf8(UTF8KIT_8TOL1, "utf8kit", Role::Ours, move |s| {
            let out = room(&mut a, s.len());
            utf8kit::transcode::utf8_to_latin1_into(s, out).unwrap_or(INVALID)
        }))
        .contender(Contender::utf8(SCALAR_8TOL1, "scalar", Role::Ours, move |s| {
            let out = room(&mut b, s.len());
            utf8kit::transcode::utf8_to_latin1_with(utf8kit::Kernel::Scalar, s, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
        }))
        .contender(Contender::utf8(AVX2_8TOL1, "avx2", Role::Ours, move |s| {
            let out = room(&mut h, s.len());
            utf8kit::transcode::utf8_to_latin1_with(utf8kit::Kernel::Avx2, s, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
        }))
        .contender(Contender::utf8(SSE_8TOL1, "sse", Role::Ours, move |s| {
            let out = room(&mut k, s.len());
            utf8kit::transcode::utf8_to_latin1_with(utf8kit::Kernel::Sse42, s, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
        }))
        .contender(valid_flavour(
            "utf8kit::transcode::valid_utf8_to_latin1_into",
            room,
            utf8kit::transcode::valid_utf8_to_latin1_into,
        ))
        .contender(Contender::utf8(SIMDUTF_8TOL1, "simdutf", Role::Peer, move |s| {
            let out = room(&mut c, s.len());
            match simdutf_utf8_to_latin1(s, out, Flavour::Validating) {
                0 if !s.is_empty() => INVALID,
                n => n,
            }
        }))
        .contender(Contender::utf8(
            "simdutf::convert_utf8_to_latin1_with_errors",
            "simdutf errors",
            Role::Peer,
            move |s| {
                let out = room(&mut g, s.len());
                simdutf_utf8_to_latin1(s, out, Flavour::WithErrors)
            },
        ))
        .contender(Contender::utf8(
            SIMDUTF_8TOL1_VALID,
            "simdutf valid",
            Role::Baseline,
            move |s| {
                let out = room(&mut d, s.len());
                black_box(simdutf_utf8_to_latin1(s, out, Flavour::Valid));
                s.len()
            },
        ))
        .contender(Contender::utf8(
            "encoding_rs::mem::utf8_latin1_up_to + convert_utf8_to_latin1_lossy",
            "enc_rs",
            Role::Peer,
            move |s| {
                if encoding_rs::mem::utf8_latin1_up_to(s) != s.len() {
                    return INVALID;
                }
                let out = room(&mut e, s.len());
                encoding_rs::mem::convert_utf8_to_latin1_lossy(s, out)
            },
        ))
        .contender(memcpy_utf8())
        .contender(Contender::utf8(STD_8TOL1, "std", Role::Peer, move |s| {
            let Ok(text) = std::str::from_utf8(s) else {
                return INVALID;
            };
            f.clear();
            for c in text.chars() {
                match u8::try_from(u32::from(c)) {
                    Ok(b) => f.push(b),
                    Err(_) => return INVALID,
                }
            }
            f.len()
        }))
        .ratio(Ratio::best_peer("÷best", UTF8KIT_8TOL1))
        .ratio(Ratio::of("÷simdutf", UTF8KIT_8TOL1, SIMDUTF_8TOL1))
        .ratio(Ratio::of("÷simdutf valid", UTF8KIT_8TOL1, SIMDUTF_8TOL1_VALID))
        .ratio(Ratio::of("valid÷simdutf valid", "utf8kit::transcode::valid_utf8_to_latin1_into", SIMDUTF_8TOL1_VALID))
        .ratio(Ratio::of("÷memcpy", UTF8KIT_8TOL1, MEMCPY))
        .ratio(Ratio::of("scalar÷std", SCALAR_8TOL1, STD_8TOL1))
        .ratio(Ratio::of("avx2÷scalar", AVX2_8TOL1, SCALAR_8TOL1))
        .ratio(Ratio::of("avx2÷simdutf", AVX2_8TOL1, SIMDUTF_8TOL1))
        .ratio(Ratio::of("sse÷scalar", SSE_8TOL1, SCALAR_8TOL1))
        .ratio(Ratio::of("sse÷simdutf", SSE_8TOL1, SIMDUTF_8TOL1))
        .summary(Summary {
            title: "utf8kit ÷ simdutf::convert_utf8_to_latin1, geomean over every Latin-1 row",
            ratio: "÷simdutf",
            rows: every_latin1_row,
            shape: Shape::GeomeanBySize,
        })
        .summary(Summary {
            title: "utf8kit ÷ simdutf, every Latin-1 input",
            ratio: "÷simdutf",
            rows: every_latin1_row,
            shape: Shape::Matrix,
        })
        .note("utf8kit = utf8kit::transcode::utf8_to_latin1_into (validating; AVX-512 when present); scalar = utf8_to_latin1_with(Kernel::Scalar); avx2 = utf8_to_latin1_with(Kernel::Avx2); sse = utf8_to_latin1_with(Kernel::Sse42) (the SSE4.1 kernels)")
        .note("simdutf = convert_utf8_to_latin1 (validating, 0 on error); simdutf errors = convert_utf8_to_latin1_with_errors; simdutf valid = convert_valid_utf8_to_latin1 (no validation, a reference); memcpy = a copy of the input into a buffer placed as the others (a reference: on all-ASCII rows the conversion is this copy)")
        .note("valid = utf8kit::transcode::valid_utf8_to_latin1_into (&str input: no UTF-8 validation; still stops at a character above U+00FF), against simdutf valid (convert_valid_utf8_to_latin1)")
        .note("enc_rs = encoding_rs::mem::utf8_latin1_up_to (validates) then convert_utf8_to_latin1_lossy; std = core::str::from_utf8 then chars, each ≤ U+00FF")
        .note("inputs: the UTF-8 encodings of the Latin-1 inputs of latin1→utf8")
}

/// The UTF-8 length of Latin-1 input.
pub fn utf8_len_from_latin1() -> Operation {
    Operation::new("latin1 utf8 length", Encoding::Latin1, STD_LEN)
        .rows(RowKey::is_latin1)
        .contender(Contender::latin1(
            UTF8KIT_LEN,
            "utf8kit",
            Role::Ours,
            utf8kit::transcode::utf8_len_from_latin1,
        ))
        .contender(Contender::latin1(
            "utf8kit scalar utf8_len_from_latin1",
            "scalar",
            Role::Ours,
            |s| {
                utf8kit::transcode::utf8_len_from_latin1_with(utf8kit::Kernel::Scalar, s)
                    .unwrap_or(INVALID)
            },
        ))
        .contender(Contender::latin1(
            SIMDUTF_LEN,
            "simdutf",
            Role::Peer,
            simdutf::utf8_length_from_latin1,
        ))
        .contender(Contender::latin1(STD_LEN, "std", Role::Peer, |s| {
            s.len() + s.iter().filter(|&&b| b >= 0x80).count()
        }))
        .ratio(Ratio::best_peer("÷best", UTF8KIT_LEN))
        .ratio(Ratio::of("÷simdutf", UTF8KIT_LEN, SIMDUTF_LEN))
        .summary(Summary {
            title: "utf8kit ÷ simdutf::utf8_length_from_latin1, geomean over every Latin-1 row",
            ratio: "÷simdutf",
            rows: every_latin1_row,
            shape: Shape::GeomeanBySize,
        })
        .note("std = len + filter(≥ 0x80).count() (auto-vectorised by rustc)")
}

/// Which simdutf UTF-8 → Latin-1 function to run.
#[derive(Clone, Copy)]
enum Flavour {
    /// `convert_utf8_to_latin1`: validates, 0 on error.
    Validating,
    /// `convert_utf8_to_latin1_with_errors`: validates, reports the error position.
    WithErrors,
    /// `convert_valid_utf8_to_latin1`: no validation.
    Valid,
}

/// Runs a simdutf UTF-8 → Latin-1 conversion into `out`; the `WithErrors` flavour
/// returns [`INVALID`] on error.
#[allow(
    unsafe_code,
    reason = "simdutf's conversions are unsafe fns over raw pointers"
)]
fn simdutf_utf8_to_latin1(s: &[u8], out: &mut [u8], flavour: Flavour) -> usize {
    // At most one Latin-1 byte per input byte, for any input.
    assert!(out.len() >= s.len());
    // SAFETY: `s` is `s.len()` readable bytes and `out` has room for one byte per input
    // byte, the most any input (valid or not) makes.
    unsafe {
        match flavour {
            Flavour::Validating => {
                simdutf::convert_utf8_to_latin1(s.as_ptr(), s.len(), out.as_mut_ptr())
            }
            Flavour::WithErrors => {
                let r = simdutf::convert_utf8_to_latin1_with_errors(
                    s.as_ptr(),
                    s.len(),
                    out.as_mut_ptr(),
                );
                if r.error == simdutf::ErrorCode::Success {
                    r.count
                } else {
                    INVALID
                }
            }
            Flavour::Valid => {
                simdutf::convert_valid_utf8_to_latin1(s.as_ptr(), s.len(), out.as_mut_ptr())
            }
        }
    }
}

/// Runs simdutf's Latin-1 → UTF-8 conversion into `out`.
#[allow(
    unsafe_code,
    reason = "simdutf's conversions are unsafe fns over raw pointers"
)]
fn simdutf_latin1_to_utf8(s: &[u8], out: &mut [u8]) -> usize {
    // Two bytes per input byte is the most any input makes.
    assert!(out.len() >= 2 * s.len());
    // SAFETY: `s` is `s.len()` readable bytes and `out` has room for 2 bytes per byte.
    unsafe { simdutf::convert_latin1_to_utf8(s.as_ptr(), s.len(), out.as_mut_ptr()) }
}
