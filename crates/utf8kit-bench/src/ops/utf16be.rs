//! UTF-8 → UTF-16BE and UTF-16BE → UTF-8: utf8kit against simdutf (C++) and std.
//!
//! The big-endian twins of [`super::utf16`]: the same texts, with the UTF-16 side stored
//! as big-endian bytes (what a file or a network protocol holds). utf8kit's byte-order
//! functions take and give bytes; simdutf's take and give `char16_t` units holding
//! big-endian bytes, so its wrappers view the same bytes as units. Results are counted in
//! units (UTF-16) or bytes (UTF-8), as in the little-endian operations.
//!
//! simdutf's conversions are `unsafe fn`s over raw pointers, so the two wrappers at the
//! end are this module's only `unsafe` code.

use super::{Contender, INVALID, Operation, Ratio, Role, Summary, room};
use crate::inputs::Encoding;

const UTF8KIT_8TO16BE: &str = "utf8kit::transcode::utf8_to_utf16be_into";
const SIMDUTF_8TO16BE: &str = "simdutf::convert_utf8_to_utf16be";
const STD_8TO16BE: &str = "std str::encode_utf16 + u16::to_be";
const UTF8KIT_16BETO8: &str = "utf8kit::transcode::utf16be_to_utf8_into";
const SIMDUTF_16BETO8: &str = "simdutf::convert_utf16be_to_utf8";
const STD_16BETO8: &str = "std u16::from_be_bytes + String::from_utf16";

/// The UTF-8 → UTF-16BE operation.
pub fn utf8_to_utf16be() -> Operation {
    let (mut a, mut b, mut c, mut d) = (
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u16>::new(),
        Vec::<u16>::new(),
    );
    Operation::new("utf8→utf16be", Encoding::Utf8, STD_8TO16BE)
        .contender(Contender::utf8(UTF8KIT_8TO16BE, "utf8kit", Role::Ours, move |s| {
            let out = room(&mut a, 2 * s.len());
            utf8kit::transcode::utf8_to_utf16be_into(s, out).map_or(INVALID, |n| n / 2)
        }))
        .contender(Contender::utf8(
            "utf8kit avx2 utf8_to_utf16be",
            "avx2",
            Role::Ours,
            move |s| {
                let out = room(&mut b, 2 * s.len());
                utf8kit::transcode::utf8_to_utf16be_with(utf8kit::Kernel::Avx2, s, out)
                    .and_then(Result::ok)
                    .map_or(INVALID, |n| n / 2)
            },
        ))
        .contender(Contender::utf8(SIMDUTF_8TO16BE, "simdutf", Role::Peer, move |s| {
            let out = room(&mut c, s.len() + 1);
            match simdutf_utf8_to_utf16be(s, out) {
                0 if !s.is_empty() => INVALID,
                n => n,
            }
        }))
        .contender(Contender::utf8(STD_8TO16BE, "std", Role::Peer, move |s| {
            match std::str::from_utf8(s) {
                Ok(text) => {
                    d.clear();
                    d.extend(text.encode_utf16().map(u16::to_be));
                    d.len()
                }
                Err(_) => INVALID,
            }
        }))
        .ratio(Ratio::best_peer("÷best", UTF8KIT_8TO16BE))
        .ratio(Ratio::of("÷simdutf", UTF8KIT_8TO16BE, SIMDUTF_8TO16BE))
        .ratio(Ratio::of(
            "avx2÷simdutf",
            "utf8kit avx2 utf8_to_utf16be",
            SIMDUTF_8TO16BE,
        ))
        .summary(Summary::non_latin_geomean(
            "utf8kit ÷ simdutf::convert_utf8_to_utf16be, geomean over the non-Latin lipsum files",
            "÷simdutf",
        ))
        .summary(Summary::lipsum_matrix(
            "utf8kit ÷ simdutf, every lipsum file",
            "÷simdutf",
        ))
        .note("utf8kit = utf8kit::transcode::utf8_to_utf16be_into (validating; writes big-endian bytes); avx2 = utf8_to_utf16be_with(Kernel::Avx2)")
        .note("simdutf = simdutf::convert_utf8_to_utf16be (validating, bool error); std = core::str::from_utf8 + str::encode_utf16 mapped through u16::to_be into a Vec")
}

/// The UTF-16BE → UTF-8 operation.
pub fn utf16be_to_utf8() -> Operation {
    let (mut a, mut b, mut c, mut d) = (
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u8>::new(),
        Vec::<u16>::new(),
    );
    Operation::new("utf16be→utf8", Encoding::Utf16Be, STD_16BETO8)
        .contender(Contender::utf16be(UTF8KIT_16BETO8, "utf8kit", Role::Ours, move |u| {
            let out = room(&mut a, 3 * u.len() / 2);
            utf8kit::transcode::utf16be_to_utf8_into(u, out).unwrap_or(INVALID)
        }))
        .contender(Contender::utf16be(
            "utf8kit avx2 utf16be_to_utf8",
            "avx2",
            Role::Ours,
            move |u| {
                let out = room(&mut b, 3 * u.len() / 2);
                utf8kit::transcode::utf16be_to_utf8_with(utf8kit::Kernel::Avx2, u, out)
                    .and_then(Result::ok)
                    .unwrap_or(INVALID)
            },
        ))
        .contender(Contender::utf16be(SIMDUTF_16BETO8, "simdutf", Role::Peer, move |u| {
            let out = room(&mut c, 3 * u.len() / 2);
            match simdutf_utf16be_to_utf8(u, out) {
                0 if !u.is_empty() => INVALID,
                n => n,
            }
        }))
        .contender(Contender::utf16be(STD_16BETO8, "std", Role::Peer, move |u| {
            d.clear();
            d.extend(
                u.chunks_exact(2)
                    .map(|p| u16::from_be_bytes([p[0], p[1]])),
            );
            match String::from_utf16(&d) {
                Ok(s) => s.len(),
                Err(_) => INVALID,
            }
        }))
        .ratio(Ratio::best_peer("÷best", UTF8KIT_16BETO8))
        .ratio(Ratio::of("÷simdutf", UTF8KIT_16BETO8, SIMDUTF_16BETO8))
        .ratio(Ratio::of(
            "avx2÷simdutf",
            "utf8kit avx2 utf16be_to_utf8",
            SIMDUTF_16BETO8,
        ))
        .summary(Summary::non_latin_geomean(
            "utf8kit ÷ simdutf::convert_utf16be_to_utf8, geomean over the non-Latin lipsum files",
            "÷simdutf",
        ))
        .summary(Summary::lipsum_matrix(
            "utf8kit ÷ simdutf, every lipsum file",
            "÷simdutf",
        ))
        .note("inputs: the UTF-16 texts of utf16le→utf8 stored as big-endian bytes; GB/s counts those bytes")
        .note("utf8kit = utf8kit::transcode::utf16be_to_utf8_into (strict); avx2 = utf16be_to_utf8_with(Kernel::Avx2)")
        .note("simdutf = simdutf::convert_utf16be_to_utf8 (validating); std = u16::from_be_bytes per unit into a Vec, then String::from_utf16 (allocates)")
}

/// Runs simdutf's validating UTF-8 → UTF-16BE conversion into `out`.
#[allow(
    unsafe_code,
    reason = "simdutf's conversions are unsafe fns over raw pointers"
)]
fn simdutf_utf8_to_utf16be(s: &[u8], out: &mut [u16]) -> usize {
    // Enough room for any valid input: one unit per byte at most.
    assert!(out.len() >= s.len());
    // SAFETY: `s` is `s.len()` readable bytes and `out` has room for the output of any
    // valid input (simdutf writes nothing it cannot fit in one unit per byte).
    unsafe { simdutf::convert_utf8_to_utf16be(s.as_ptr(), s.len(), out.as_mut_ptr()) }
}

/// Runs simdutf's validating UTF-16BE → UTF-8 conversion of the big-endian bytes `u`.
#[allow(
    unsafe_code,
    reason = "simdutf's conversions are unsafe fns over raw pointers"
)]
fn simdutf_utf16be_to_utf8(u: &[u8], out: &mut [u8]) -> usize {
    // Whole units, 2-aligned (the inputs start on a 64-byte boundary), and room for three
    // bytes per unit, the most any input makes.
    assert!(u.len().is_multiple_of(2) && u.as_ptr().align_offset(2) == 0);
    assert!(out.len() >= 3 * (u.len() / 2));
    // SAFETY: `u` is `u.len() / 2` readable, aligned 16-bit units (checked above), and
    // `out` has room for 3 bytes per unit.
    unsafe { simdutf::convert_utf16be_to_utf8(u.as_ptr().cast(), u.len() / 2, out.as_mut_ptr()) }
}
