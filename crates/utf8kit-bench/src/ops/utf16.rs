//! UTF-8 → UTF-16LE and UTF-16LE → UTF-8: utf8kit against simdutf (C++), std and
//! encoding_rs.
//!
//! Every contender writes into an output buffer it owns (grown on the first, untimed,
//! call) and returns the number of units or bytes written, or [`INVALID`] if the input is
//! not valid. The `valid` flavours of simdutf skip validation: they are speed references
//! ([`Role::Baseline`]), not peers, and `--check` only requires them to finish.
//!
//! simdutf's conversions are `unsafe fn`s over raw pointers, so the two wrappers below are
//! the crate's only `unsafe` code.

use std::hint::black_box;

use super::{Contender, INVALID, Operation, Ratio, Role, Summary, room, valid_flavour};
use crate::inputs::Encoding;

const UTF8KIT_8TO16: &str = "utf8kit::transcode::utf8_to_utf16_into";
const SIMDUTF_8TO16: &str = "simdutf::convert_utf8_to_utf16le";
const STD_8TO16: &str = "std str::encode_utf16";
const UTF8KIT_16TO8: &str = "utf8kit::transcode::utf16_to_utf8_into";
const SIMDUTF_16TO8: &str = "simdutf::convert_utf16le_to_utf8";
const STD_16TO8: &str = "std String::from_utf16";

/// The UTF-8 → UTF-16LE operation.
pub fn utf8_to_utf16() -> Operation {
    let (mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h) = (
        Vec::<u16>::new(),
        Vec::<u16>::new(),
        Vec::<u16>::new(),
        Vec::<u16>::new(),
        Vec::<u16>::new(),
        Vec::<u16>::new(),
        Vec::<u16>::new(),
        Vec::<u16>::new(),
    );
    Operation::new("utf8→utf16le", Encoding::Utf8, STD_8TO16)
        .contender(Contender::utf8(UTF8KIT_8TO16, "utf8kit", Role::Ours, move |s| {
            let out = room(&mut a, s.len());
            utf8kit::transcode::utf8_to_utf16_into(s, out).unwrap_or(INVALID)
        }))
        .contender(Contender::utf8(
            "utf8kit scalar utf8_to_utf16",
            "scalar",
            Role::Ours,
            move |s| {
                let out = room(&mut f, s.len());
                utf8kit::transcode::utf8_to_utf16_with(utf8kit::Kernel::Scalar, s, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
            },
        ))
        .contender(Contender::utf8(
            "utf8kit avx2 utf8_to_utf16",
            "avx2",
            Role::Ours,
            move |s| {
                let out = room(&mut g, s.len());
                utf8kit::transcode::utf8_to_utf16_with(utf8kit::Kernel::Avx2, s, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
            },
        ))
        .contender(Contender::utf8(
            "utf8kit sse utf8_to_utf16",
            "sse",
            Role::Ours,
            move |s| {
                let out = room(&mut h, s.len());
                utf8kit::transcode::utf8_to_utf16_with(utf8kit::Kernel::Sse42, s, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
            },
        ))
        .contender(valid_flavour(
            "utf8kit::transcode::valid_utf8_to_utf16_into",
            room,
            utf8kit::transcode::valid_utf8_to_utf16_into,
        ))
        .contender(Contender::utf8(SIMDUTF_8TO16, "simdutf", Role::Peer, move |s| {
            let out = room(&mut b, s.len() + 1);
            match simdutf_utf8_to_utf16le(s, out, false) {
                0 if !s.is_empty() => INVALID,
                n => n,
            }
        }))
        .contender(Contender::utf8(
            "simdutf::convert_valid_utf8_to_utf16le",
            "simdutf valid",
            Role::Baseline,
            move |s| {
                // Invalid inputs (only under --check) make garbage, in a buffer with
                // room for two units per byte.
                let out = room(&mut c, 2 * s.len() + 64);
                black_box(simdutf_utf8_to_utf16le(s, out, true));
                s.len()
            },
        ))
        .contender(Contender::utf8(STD_8TO16, "std", Role::Peer, move |s| {
            match std::str::from_utf8(s) {
                Ok(text) => {
                    d.clear();
                    d.extend(text.encode_utf16());
                    d.len()
                }
                Err(_) => INVALID,
            }
        }))
        .contender(Contender::utf8(
            "encoding_rs UTF_8 decode_to_utf16_without_replacement",
            "enc_rs",
            Role::Peer,
            move |s| {
                let out = room(&mut e, s.len() + 1);
                let mut decoder = encoding_rs::UTF_8.new_decoder_without_bom_handling();
                match decoder.decode_to_utf16_without_replacement(s, out, true) {
                    (encoding_rs::DecoderResult::InputEmpty, _, written) => written,
                    _ => INVALID,
                }
            },
        ))
        .ratio(Ratio::best_peer("÷best", UTF8KIT_8TO16))
        .ratio(Ratio::of("÷simdutf", UTF8KIT_8TO16, SIMDUTF_8TO16))
        .ratio(Ratio::of("÷simdutf valid", UTF8KIT_8TO16, "simdutf::convert_valid_utf8_to_utf16le"))
        .ratio(Ratio::of("valid÷simdutf valid", "utf8kit::transcode::valid_utf8_to_utf16_into", "simdutf::convert_valid_utf8_to_utf16le"))
        .ratio(Ratio::of("scalar÷std", "utf8kit scalar utf8_to_utf16", STD_8TO16))
        .ratio(Ratio::of("avx2÷scalar", "utf8kit avx2 utf8_to_utf16", "utf8kit scalar utf8_to_utf16"))
        .ratio(Ratio::of("avx2÷simdutf", "utf8kit avx2 utf8_to_utf16", SIMDUTF_8TO16))
        .ratio(Ratio::of("sse÷scalar", "utf8kit sse utf8_to_utf16", "utf8kit scalar utf8_to_utf16"))
        .ratio(Ratio::of("sse÷simdutf", "utf8kit sse utf8_to_utf16", SIMDUTF_8TO16))
        .summary(Summary::non_latin_geomean(
            "utf8kit ÷ simdutf::convert_utf8_to_utf16le, geomean over the non-Latin lipsum files",
            "÷simdutf",
        ))
        .summary(Summary::lipsum_matrix(
            "utf8kit ÷ simdutf, every lipsum file",
            "÷simdutf",
        ))
        .note("utf8kit = utf8kit::transcode::utf8_to_utf16_into (with AVX-512: validates and converts in one pass, errors exactly as utf8kit::validate); scalar = the same with the scalar kernel forced; avx2 = the same with Kernel::Avx2 forced (AVX2 validation and conversion in one pass); sse = the same with Kernel::Sse42 forced (SSE4.2 validation, then SSE4.1 conversion)")
        .note("simdutf = simdutf::convert_utf8_to_utf16le (validating, bool error); simdutf valid = convert_valid_utf8_to_utf16le (no validation, a reference)")
        .note("valid = utf8kit::transcode::valid_utf8_to_utf16_into (&str input: no validation), against simdutf valid (convert_valid_utf8_to_utf16le)")
        .note("std = core::str::from_utf8 + str::encode_utf16 into a Vec; enc_rs = encoding_rs UTF-8 decoder, decode_to_utf16_without_replacement")
}

/// The UTF-16LE → UTF-8 operation.
pub fn utf16_to_utf8() -> Operation {
    let (mut a, mut b, mut c, mut e, mut f, mut g, mut h) = (
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
    );
    Operation::new("utf16le→utf8", Encoding::Utf16, STD_16TO8)
        .contender(Contender::utf16(UTF8KIT_16TO8, "utf8kit", Role::Ours, move |u| {
            let out = room(&mut a, 3 * u.len());
            utf8kit::transcode::utf16_to_utf8_into(u, out).unwrap_or(INVALID)
        }))
        .contender(Contender::utf16(
            "utf8kit scalar utf16_to_utf8",
            "scalar",
            Role::Ours,
            move |u| {
                let out = room(&mut f, 3 * u.len());
                utf8kit::transcode::utf16_to_utf8_with(utf8kit::Kernel::Scalar, u, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
            },
        ))
        .contender(Contender::utf16(
            "utf8kit avx2 utf16_to_utf8",
            "avx2",
            Role::Ours,
            move |u| {
                let out = room(&mut g, 3 * u.len());
                utf8kit::transcode::utf16_to_utf8_with(utf8kit::Kernel::Avx2, u, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
            },
        ))
        .contender(Contender::utf16(
            "utf8kit sse utf16_to_utf8",
            "sse",
            Role::Ours,
            move |u| {
                let out = room(&mut h, 3 * u.len());
                utf8kit::transcode::utf16_to_utf8_with(utf8kit::Kernel::Sse42, u, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
            },
        ))
        .contender(Contender::utf16(SIMDUTF_16TO8, "simdutf", Role::Peer, move |u| {
            let out = room(&mut b, 3 * u.len());
            match simdutf_utf16le_to_utf8(u, out, false) {
                0 if !u.is_empty() => INVALID,
                n => n,
            }
        }))
        .contender(Contender::utf16(
            "simdutf::convert_valid_utf16le_to_utf8",
            "simdutf valid",
            Role::Baseline,
            move |u| {
                let out = room(&mut c, 3 * u.len() + 64);
                black_box(simdutf_utf16le_to_utf8(u, out, true));
                u.len()
            },
        ))
        .contender(Contender::utf16(STD_16TO8, "std", Role::Peer, |u| {
            match String::from_utf16(u) {
                Ok(s) => s.len(),
                Err(_) => INVALID,
            }
        }))
        .contender(Contender::utf16(
            "encoding_rs::mem::convert_utf16_to_utf8 (after utf16_valid_up_to)",
            "enc_rs",
            Role::Peer,
            move |u| {
                if encoding_rs::mem::utf16_valid_up_to(u) != u.len() {
                    return INVALID;
                }
                let out = room(&mut e, 3 * u.len());
                encoding_rs::mem::convert_utf16_to_utf8(u, out)
            },
        ))
        .ratio(Ratio::best_peer("÷best", UTF8KIT_16TO8))
        .ratio(Ratio::of("÷simdutf", UTF8KIT_16TO8, SIMDUTF_16TO8))
        .ratio(Ratio::of("÷simdutf valid", UTF8KIT_16TO8, "simdutf::convert_valid_utf16le_to_utf8"))
        .ratio(Ratio::of("scalar÷std", "utf8kit scalar utf16_to_utf8", STD_16TO8))
        .ratio(Ratio::of("avx2÷scalar", "utf8kit avx2 utf16_to_utf8", "utf8kit scalar utf16_to_utf8"))
        .ratio(Ratio::of("avx2÷simdutf", "utf8kit avx2 utf16_to_utf8", SIMDUTF_16TO8))
        .ratio(Ratio::of("sse÷scalar", "utf8kit sse utf16_to_utf8", "utf8kit scalar utf16_to_utf8"))
        .ratio(Ratio::of("sse÷simdutf", "utf8kit sse utf16_to_utf8", SIMDUTF_16TO8))
        .summary(Summary::non_latin_geomean(
            "utf8kit ÷ simdutf::convert_utf16le_to_utf8, geomean over the non-Latin lipsum files",
            "÷simdutf",
        ))
        .summary(Summary::lipsum_matrix(
            "utf8kit ÷ simdutf, every lipsum file",
            "÷simdutf",
        ))
        .note("utf8kit = utf8kit::transcode::utf16_to_utf8_into (strict: unpaired surrogates are errors); scalar = the same with the scalar kernel forced; avx2 = the same with Kernel::Avx2 forced; sse = the same with Kernel::Sse42 forced (the SSE4.1 kernel)")
        .note("simdutf = simdutf::convert_utf16le_to_utf8 (validating); simdutf valid = convert_valid_utf16le_to_utf8 (no validation, a reference)")
        .note("std = String::from_utf16 (allocates); enc_rs = encoding_rs::mem::utf16_valid_up_to then convert_utf16_to_utf8")
}

/// Runs simdutf's UTF-8 → UTF-16LE conversion (validating, or not if `valid`) into `out`.
#[allow(
    unsafe_code,
    reason = "simdutf's conversions are unsafe fns over raw pointers"
)]
fn simdutf_utf8_to_utf16le(s: &[u8], out: &mut [u16], valid: bool) -> usize {
    // Enough room for any valid input: one unit per byte at most.
    assert!(out.len() >= s.len());
    // SAFETY: `s` is `s.len()` readable bytes and `out` has room for the output of any
    // valid input (the callers give `valid` conversions twice that for invalid ones).
    unsafe {
        if valid {
            simdutf::convert_valid_utf8_to_utf16le(s.as_ptr(), s.len(), out.as_mut_ptr())
        } else {
            simdutf::convert_utf8_to_utf16le(s.as_ptr(), s.len(), out.as_mut_ptr())
        }
    }
}

/// Runs simdutf's UTF-16LE → UTF-8 conversion (validating, or not if `valid`) into `out`.
#[allow(
    unsafe_code,
    reason = "simdutf's conversions are unsafe fns over raw pointers"
)]
fn simdutf_utf16le_to_utf8(u: &[u16], out: &mut [u8], valid: bool) -> usize {
    // Three bytes per unit is the most any input makes.
    assert!(out.len() >= 3 * u.len());
    // SAFETY: `u` is `u.len()` readable units and `out` has room for 3 bytes per unit.
    unsafe {
        if valid {
            simdutf::convert_valid_utf16le_to_utf8(u.as_ptr(), u.len(), out.as_mut_ptr())
        } else {
            simdutf::convert_utf16le_to_utf8(u.as_ptr(), u.len(), out.as_mut_ptr())
        }
    }
}
