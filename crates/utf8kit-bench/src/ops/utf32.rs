//! UTF-8 → UTF-32 and UTF-32 → UTF-8: utf8kit against simdutf (C++) and std.
//!
//! As in [`super::utf16`], every contender writes into an output buffer it owns (grown on
//! the first, untimed, call) and returns the number of values or bytes written, or
//! [`INVALID`] if the input is not valid. The `valid` flavours of simdutf skip validation:
//! they are speed references ([`Role::Baseline`]), not peers.

use std::hint::black_box;

use super::{Contender, INVALID, Operation, Ratio, Role, Summary, room, valid_flavour};
use crate::inputs::Encoding;

const UTF8KIT_8TO32: &str = "utf8kit::transcode::utf8_to_utf32_into";
const SCALAR_8TO32: &str = "utf8kit scalar utf8_to_utf32";
const AVX2_8TO32: &str = "utf8kit avx2 utf8_to_utf32";
const SSE_8TO32: &str = "utf8kit sse utf8_to_utf32";
const SIMDUTF_8TO32: &str = "simdutf::convert_utf8_to_utf32";
const SIMDUTF_VALID_8TO32: &str = "simdutf::convert_valid_utf8_to_utf32";
const STD_8TO32: &str = "std str::chars collect";
const UTF8KIT_32TO8: &str = "utf8kit::transcode::utf32_to_utf8_into";
const SCALAR_32TO8: &str = "utf8kit scalar utf32_to_utf8";
const AVX2_32TO8: &str = "utf8kit avx2 utf32_to_utf8";
const SSE_32TO8: &str = "utf8kit sse utf32_to_utf8";
const SIMDUTF_32TO8: &str = "simdutf::convert_utf32_to_utf8";
const SIMDUTF_VALID_32TO8: &str = "simdutf::convert_valid_utf32_to_utf8";
const STD_32TO8: &str = "std char::from_u32 into String";

/// The UTF-8 → UTF-32 operation.
pub fn utf8_to_utf32() -> Operation {
    let (mut a, mut b, mut c, mut d, mut f, mut g, mut h) = (
        Vec::<u32>::new(),
        Vec::<u32>::new(),
        Vec::<u32>::new(),
        Vec::<u32>::new(),
        Vec::<u32>::new(),
        Vec::<u32>::new(),
        Vec::<u32>::new(),
    );
    Operation::new("utf8→utf32", Encoding::Utf8, STD_8TO32)
        .contender(Contender::utf8(UTF8KIT_8TO32, "utf8kit", Role::Ours, move |s| {
            let out = room(&mut a, s.len());
            utf8kit::transcode::utf8_to_utf32_into(s, out).unwrap_or(INVALID)
        }))
        .contender(Contender::utf8(SCALAR_8TO32, "scalar", Role::Ours, move |s| {
            let out = room(&mut f, s.len());
            utf8kit::transcode::utf8_to_utf32_with(utf8kit::Kernel::Scalar, s, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
        }))
        .contender(Contender::utf8(AVX2_8TO32, "avx2", Role::Ours, move |s| {
            let out = room(&mut g, s.len());
            utf8kit::transcode::utf8_to_utf32_with(utf8kit::Kernel::Avx2, s, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
        }))
        .contender(Contender::utf8(SSE_8TO32, "sse", Role::Ours, move |s| {
            let out = room(&mut h, s.len());
            utf8kit::transcode::utf8_to_utf32_with(utf8kit::Kernel::Sse42, s, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
        }))
        .contender(valid_flavour(
            "utf8kit::transcode::valid_utf8_to_utf32_into",
            room,
            utf8kit::transcode::valid_utf8_to_utf32_into,
        ))
        .contender(Contender::utf8(SIMDUTF_8TO32, "simdutf", Role::Peer, move |s| {
            let out = room(&mut b, s.len() + 1);
            match simdutf_utf8_to_utf32(s, out, false) {
                0 if !s.is_empty() => INVALID,
                n => n,
            }
        }))
        .contender(Contender::utf8(
            SIMDUTF_VALID_8TO32,
            "simdutf valid",
            Role::Baseline,
            move |s| {
                // Invalid inputs (only under --check) make garbage, in a buffer with
                // room for one value per byte and then some.
                let out = room(&mut c, s.len() + 64);
                black_box(simdutf_utf8_to_utf32(s, out, true));
                s.len()
            },
        ))
        .contender(Contender::utf8(STD_8TO32, "std", Role::Peer, move |s| {
            match std::str::from_utf8(s) {
                Ok(text) => {
                    d.clear();
                    d.extend(text.chars().map(u32::from));
                    d.len()
                }
                Err(_) => INVALID,
            }
        }))
        .ratio(Ratio::best_peer("÷best", UTF8KIT_8TO32))
        .ratio(Ratio::of("÷simdutf", UTF8KIT_8TO32, SIMDUTF_8TO32))
        .ratio(Ratio::of("÷simdutf valid", UTF8KIT_8TO32, SIMDUTF_VALID_8TO32))
        .ratio(Ratio::of("valid÷simdutf valid", "utf8kit::transcode::valid_utf8_to_utf32_into", SIMDUTF_VALID_8TO32))
        .ratio(Ratio::of("scalar÷std", SCALAR_8TO32, STD_8TO32))
        .ratio(Ratio::of("avx2÷scalar", AVX2_8TO32, SCALAR_8TO32))
        .ratio(Ratio::of("avx2÷simdutf", AVX2_8TO32, SIMDUTF_8TO32))
        .ratio(Ratio::of("sse÷scalar", SSE_8TO32, SCALAR_8TO32))
        .ratio(Ratio::of("sse÷simdutf", SSE_8TO32, SIMDUTF_8TO32))
        .summary(Summary::non_latin_geomean(
            "utf8kit ÷ simdutf::convert_utf8_to_utf32, geomean over the non-Latin lipsum files",
            "÷simdutf",
        ))
        .summary(Summary::lipsum_matrix(
            "utf8kit ÷ simdutf, every lipsum file",
            "÷simdutf",
        ))
        .note("utf8kit = utf8kit::transcode::utf8_to_utf32_into (validates like utf8kit::validate, then converts); scalar = the same with the scalar kernel forced; avx2 = the same with Kernel::Avx2 forced; sse = the same with Kernel::Sse42 forced (the SSE4.2 validator, the SSE4.1 kernel)")
        .note("simdutf = simdutf::convert_utf8_to_utf32 (validating, bool error); simdutf valid = convert_valid_utf8_to_utf32 (no validation, a reference)")
        .note("valid = utf8kit::transcode::valid_utf8_to_utf32_into (&str input: no validation), against simdutf valid (convert_valid_utf8_to_utf32)")
        .note("std = core::str::from_utf8 + str::chars mapped to u32 into a Vec")
}

/// The UTF-32 → UTF-8 operation.
pub fn utf32_to_utf8() -> Operation {
    let (mut a, mut b, mut c, mut f, mut g, mut h) = (
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
    );
    let mut s = String::new();
    Operation::new("utf32→utf8", Encoding::Utf32, STD_32TO8)
        .contender(Contender::utf32(UTF8KIT_32TO8, "utf8kit", Role::Ours, move |u| {
            let out = room(&mut a, 4 * u.len());
            utf8kit::transcode::utf32_to_utf8_into(u, out).unwrap_or(INVALID)
        }))
        .contender(Contender::utf32(SCALAR_32TO8, "scalar", Role::Ours, move |u| {
            let out = room(&mut f, 4 * u.len());
            utf8kit::transcode::utf32_to_utf8_with(utf8kit::Kernel::Scalar, u, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
        }))
        .contender(Contender::utf32(AVX2_32TO8, "avx2", Role::Ours, move |u| {
            let out = room(&mut g, 4 * u.len());
            utf8kit::transcode::utf32_to_utf8_with(utf8kit::Kernel::Avx2, u, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
        }))
        .contender(Contender::utf32(SSE_32TO8, "sse", Role::Ours, move |u| {
            let out = room(&mut h, 4 * u.len());
            utf8kit::transcode::utf32_to_utf8_with(utf8kit::Kernel::Sse42, u, out)
                .and_then(Result::ok)
                .unwrap_or(INVALID)
        }))
        .contender(Contender::utf32(SIMDUTF_32TO8, "simdutf", Role::Peer, move |u| {
            let out = room(&mut b, 4 * u.len());
            match simdutf_utf32_to_utf8(u, out, false) {
                0 if !u.is_empty() => INVALID,
                n => n,
            }
        }))
        .contender(Contender::utf32(
            SIMDUTF_VALID_32TO8,
            "simdutf valid",
            Role::Baseline,
            move |u| {
                let out = room(&mut c, 4 * u.len() + 64);
                black_box(simdutf_utf32_to_utf8(u, out, true));
                u.len()
            },
        ))
        .contender(Contender::utf32(STD_32TO8, "std", Role::Peer, move |u| {
            s.clear();
            for &v in u {
                match char::from_u32(v) {
                    Some(ch) => s.push(ch),
                    None => return INVALID,
                }
            }
            s.len()
        }))
        .ratio(Ratio::best_peer("÷best", UTF8KIT_32TO8))
        .ratio(Ratio::of("÷simdutf", UTF8KIT_32TO8, SIMDUTF_32TO8))
        .ratio(Ratio::of("÷simdutf valid", UTF8KIT_32TO8, SIMDUTF_VALID_32TO8))
        .ratio(Ratio::of("scalar÷std", SCALAR_32TO8, STD_32TO8))
        .ratio(Ratio::of("avx2÷scalar", AVX2_32TO8, SCALAR_32TO8))
        .ratio(Ratio::of("avx2÷simdutf", AVX2_32TO8, SIMDUTF_32TO8))
        .ratio(Ratio::of("sse÷scalar", SSE_32TO8, SCALAR_32TO8))
        .ratio(Ratio::of("sse÷simdutf", SSE_32TO8, SIMDUTF_32TO8))
        .summary(Summary::non_latin_geomean(
            "utf8kit ÷ simdutf::convert_utf32_to_utf8, geomean over the non-Latin lipsum files",
            "÷simdutf",
        ))
        .summary(Summary::lipsum_matrix(
            "utf8kit ÷ simdutf, every lipsum file",
            "÷simdutf",
        ))
        .note("input sizes are UTF-32 bytes (4 per value); GB/s counts input bytes")
        .note("utf8kit = utf8kit::transcode::utf32_to_utf8_into (strict: surrogates and values above 10FFFF are errors); scalar = the same with the scalar kernel forced; avx2 = the same with Kernel::Avx2 forced; sse = the same with Kernel::Sse42 forced (the SSE4.1 kernel)")
        .note("simdutf = simdutf::convert_utf32_to_utf8 (validating); simdutf valid = convert_valid_utf32_to_utf8 (no validation, a reference)")
        .note("std = char::from_u32 for each value, pushed to a reused String")
}

/// Runs simdutf's UTF-8 → UTF-32 conversion (validating, or not if `valid`) into `out`.
#[allow(
    unsafe_code,
    reason = "simdutf's conversions are unsafe fns over raw pointers"
)]
fn simdutf_utf8_to_utf32(s: &[u8], out: &mut [u32], valid: bool) -> usize {
    // Enough room for any input: one value per byte at most.
    assert!(out.len() >= s.len());
    // SAFETY: `s` is `s.len()` readable bytes and `out` has room for one value per byte.
    unsafe {
        if valid {
            simdutf::convert_valid_utf8_to_utf32(s.as_ptr(), s.len(), out.as_mut_ptr())
        } else {
            simdutf::convert_utf8_to_utf32(s.as_ptr(), s.len(), out.as_mut_ptr())
        }
    }
}

/// Runs simdutf's UTF-32 → UTF-8 conversion (validating, or not if `valid`) into `out`.
#[allow(
    unsafe_code,
    reason = "simdutf's conversions are unsafe fns over raw pointers"
)]
fn simdutf_utf32_to_utf8(u: &[u32], out: &mut [u8], valid: bool) -> usize {
    // Four bytes per value is the most any input makes.
    assert!(out.len() >= 4 * u.len());
    // SAFETY: `u` is `u.len()` readable values and `out` has room for 4 bytes per value.
    unsafe {
        if valid {
            simdutf::convert_valid_utf32_to_utf8(u.as_ptr(), u.len(), out.as_mut_ptr())
        } else {
            simdutf::convert_utf32_to_utf8(u.as_ptr(), u.len(), out.as_mut_ptr())
        }
    }
}
