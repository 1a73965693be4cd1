//! Output-length functions: how long a conversion's output will be, without converting.
//! utf8kit against simdutf (C++) and std.
//!
//! The UTF-16 length of UTF-8 (`utf16_len_from_utf8`), the UTF-8 length of UTF-16
//! (`utf8_len_from_utf16`) and of UTF-32 (`utf8_len_from_utf32`). The libraries disagree
//! on invalid input (utf8kit counts an unpaired surrogate or an invalid UTF-32 value as the
//! 3 bytes of U+FFFD, simdutf as 2), so the operations are defined on valid input only
//! ([`Operation::valid_only`]); the UTF-8 length of Latin-1 is in [`super::latin1`].

use super::count::text;
use super::{Contender, Operation, Ratio, Role, Summary};
use crate::inputs::Encoding;

const UTF8KIT_16OF8: &str = "utf8kit::transcode::utf16_len_from_utf8";
const AVX2_16OF8: &str = "utf8kit avx2 utf16_len_from_utf8";
const SIMDUTF_16OF8: &str = "simdutf::utf16_length_from_utf8";
const STD_16OF8: &str = "std str::encode_utf16().count()";
const UTF8KIT_8OF16: &str = "utf8kit::transcode::utf8_len_from_utf16";
const AVX2_8OF16: &str = "utf8kit avx2 utf8_len_from_utf16";
const SIMDUTF_8OF16: &str = "simdutf::utf8_length_from_utf16le";
const STD_8OF16: &str = "std char::decode_utf16 + len_utf8";
const UTF8KIT_8OF32: &str = "utf8kit::transcode::utf8_len_from_utf32";
const AVX2_8OF32: &str = "utf8kit avx2 utf8_len_from_utf32";
const SIMDUTF_8OF32: &str = "simdutf::utf8_length_from_utf32";
const STD_8OF32: &str = "std char::from_u32 + len_utf8";

/// The summaries every length operation prints for its `÷simdutf` column.
fn summaries(op: Operation, title: &'static str) -> Operation {
    op.summary(Summary::non_latin_geomean(title, "÷simdutf"))
        .summary(Summary::lipsum_matrix(
            "utf8kit ÷ simdutf, every lipsum file",
            "÷simdutf",
        ))
}

/// The UTF-16 length of UTF-8.
pub fn utf16_len_from_utf8() -> Operation {
    let op = Operation::new("utf16 length of utf8", Encoding::Utf8, STD_16OF8)
        .valid_only()
        .contender(Contender::utf8(UTF8KIT_16OF8, "utf8kit", Role::Ours, |s| {
            utf8kit::transcode::utf16_len_from_utf8(s)
        }))
        .contender(Contender::utf8(AVX2_16OF8, "avx2", Role::Ours, |s| {
            utf8kit::transcode::utf16_len_from_utf8_with(utf8kit::Kernel::Avx2, s)
                .unwrap_or_default()
        }))
        .contender(Contender::utf8(SIMDUTF_16OF8, "simdutf", Role::Peer, |s| {
            simdutf::utf16_length_from_utf8(s)
        }))
        .contender(Contender::utf8(STD_16OF8, "std", Role::Peer, |s| {
            text(s).encode_utf16().count()
        }))
        .ratio(Ratio::best_peer("÷best", UTF8KIT_16OF8))
        .ratio(Ratio::of("÷simdutf", UTF8KIT_16OF8, SIMDUTF_16OF8))
        .ratio(Ratio::of("avx2÷simdutf", AVX2_16OF8, SIMDUTF_16OF8))
        .note("utf8kit = utf8kit::transcode::utf16_len_from_utf8 (the detected kernel); avx2 = utf16_len_from_utf8_with(Kernel::Avx2)")
        .note("simdutf = simdutf::utf16_length_from_utf8; std = str::encode_utf16().count() (the input viewed as text without a check)");
    summaries(
        op,
        "utf8kit ÷ simdutf::utf16_length_from_utf8, geomean over the non-Latin lipsum files",
    )
}

/// The UTF-8 length of UTF-16 (native byte order).
pub fn utf8_len_from_utf16() -> Operation {
    let op = Operation::new("utf8 length of utf16le", Encoding::Utf16, STD_8OF16)
        .valid_only()
        .contender(Contender::utf16(UTF8KIT_8OF16, "utf8kit", Role::Ours, |u| {
            utf8kit::transcode::utf8_len_from_utf16(u)
        }))
        .contender(Contender::utf16(AVX2_8OF16, "avx2", Role::Ours, |u| {
            utf8kit::transcode::utf8_len_from_utf16_with(utf8kit::Kernel::Avx2, u)
                .unwrap_or_default()
        }))
        .contender(Contender::utf16(SIMDUTF_8OF16, "simdutf", Role::Peer, |u| {
            simdutf::utf8_length_from_utf16le(u)
        }))
        .contender(Contender::utf16(STD_8OF16, "std", Role::Peer, |u| {
            char::decode_utf16(u.iter().copied())
                .map(|c| c.map_or(3, char::len_utf8))
                .sum()
        }))
        .ratio(Ratio::best_peer("÷best", UTF8KIT_8OF16))
        .ratio(Ratio::of("÷simdutf", UTF8KIT_8OF16, SIMDUTF_8OF16))
        .ratio(Ratio::of("avx2÷simdutf", AVX2_8OF16, SIMDUTF_8OF16))
        .note("utf8kit = utf8kit::transcode::utf8_len_from_utf16 (the detected kernel); avx2 = utf8_len_from_utf16_with(Kernel::Avx2)")
        .note("simdutf = simdutf::utf8_length_from_utf16le; std = char::decode_utf16, len_utf8 of each character summed");
    summaries(
        op,
        "utf8kit ÷ simdutf::utf8_length_from_utf16le, geomean over the non-Latin lipsum files",
    )
}

/// The UTF-8 length of UTF-32.
pub fn utf8_len_from_utf32() -> Operation {
    let op = Operation::new("utf8 length of utf32", Encoding::Utf32, STD_8OF32)
        .valid_only()
        .contender(Contender::utf32(UTF8KIT_8OF32, "utf8kit", Role::Ours, |u| {
            utf8kit::transcode::utf8_len_from_utf32(u)
        }))
        .contender(Contender::utf32(AVX2_8OF32, "avx2", Role::Ours, |u| {
            utf8kit::transcode::utf8_len_from_utf32_with(utf8kit::Kernel::Avx2, u)
                .unwrap_or_default()
        }))
        .contender(Contender::utf32(SIMDUTF_8OF32, "simdutf", Role::Peer, |u| {
            simdutf::utf8_length_from_utf32(u)
        }))
        .contender(Contender::utf32(STD_8OF32, "std", Role::Peer, |u| {
            u.iter()
                .map(|&v| char::from_u32(v).map_or(3, char::len_utf8))
                .sum()
        }))
        .ratio(Ratio::best_peer("÷best", UTF8KIT_8OF32))
        .ratio(Ratio::of("÷simdutf", UTF8KIT_8OF32, SIMDUTF_8OF32))
        .ratio(Ratio::of("avx2÷simdutf", AVX2_8OF32, SIMDUTF_8OF32))
        .note("utf8kit = utf8kit::transcode::utf8_len_from_utf32 (the detected kernel); avx2 = utf8_len_from_utf32_with(Kernel::Avx2)")
        .note("simdutf = simdutf::utf8_length_from_utf32; std = char::from_u32, len_utf8 of each character summed");
    summaries(
        op,
        "utf8kit ÷ simdutf::utf8_length_from_utf32, geomean over the non-Latin lipsum files",
    )
}
