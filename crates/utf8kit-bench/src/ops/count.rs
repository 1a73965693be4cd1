//! Counting the characters of UTF-8 text: utf8kit against simdutf (C++), the `bytecount`
//! crate and std.
//!
//! Every contender counts the bytes that are not continuation bytes; for valid UTF-8 that
//! is `str::chars().count()`. The operation is defined on text only, so `--check` runs it
//! on the valid inputs alone ([`Operation::valid_only`]), and the contenders that take a
//! `&str` view the input as text without checking it again (see [`text`]).

use super::{Contender, Operation, Ratio, Role, Summary};
use crate::inputs::Encoding;

const UTF8KIT: &str = "utf8kit::transcode::count_chars";
const SCALAR: &str = "utf8kit scalar count_chars";
const AVX2: &str = "utf8kit avx2 count_chars";
const SSE: &str = "utf8kit sse count_chars";
const SIMDUTF: &str = "simdutf::count_utf8";
const BYTECOUNT: &str = "bytecount::num_chars";
const STD: &str = "std str::chars().count()";

/// The benchmark input as text.
///
/// Every input the harness builds is valid UTF-8 ([`crate::inputs`] checks the corpus
/// files and generates whole characters, cutting at character boundaries), and `--check`
/// runs a [`valid_only`](Operation::valid_only) operation on the valid inputs alone. The
/// debug assertion re-checks that in debug builds.
#[allow(
    unsafe_code,
    reason = "the timed contenders must not validate the input they count"
)]
pub(super) fn text(s: &[u8]) -> &str {
    debug_assert!(std::str::from_utf8(s).is_ok());
    // SAFETY: `s` is valid UTF-8: this operation only ever sees the harness's inputs,
    // which are all valid (see above).
    unsafe { std::str::from_utf8_unchecked(s) }
}

/// The character-count operation.
pub fn operation() -> Operation {
    Operation::new("count", Encoding::Utf8, STD)
        .valid_only()
        .contender(Contender::utf8(UTF8KIT, "utf8kit", Role::Ours, |s| {
            utf8kit::transcode::count_chars(text(s))
        }))
        .contender(Contender::utf8(SCALAR, "scalar", Role::Ours, |s| {
            utf8kit::transcode::count_chars_with(utf8kit::Kernel::Scalar, text(s))
                .unwrap_or_default()
        }))
        .contender(Contender::utf8(AVX2, "avx2", Role::Ours, |s| {
            utf8kit::transcode::count_chars_with(utf8kit::Kernel::Avx2, text(s)).unwrap_or_default()
        }))
        .contender(Contender::utf8(SSE, "sse", Role::Ours, |s| {
            utf8kit::transcode::count_chars_with(utf8kit::Kernel::Sse42, text(s)).unwrap_or_default()
        }))
        .contender(Contender::utf8(SIMDUTF, "simdutf", Role::Peer, |s| {
            simdutf::count_utf8(s)
        }))
        .contender(Contender::utf8(BYTECOUNT, "bytecount", Role::Peer, |s| {
            bytecount::num_chars(s)
        }))
        .contender(Contender::utf8(STD, "std", Role::Peer, |s| {
            text(s).chars().count()
        }))
        .ratio(Ratio::best_peer("÷best", UTF8KIT))
        .ratio(Ratio::of("÷simdutf", UTF8KIT, SIMDUTF))
        .ratio(Ratio::of("÷bytecount", UTF8KIT, BYTECOUNT))
        .ratio(Ratio::of("scalar÷std", SCALAR, STD))
        .ratio(Ratio::of("avx2÷scalar", AVX2, SCALAR))
        .ratio(Ratio::of("avx2÷simdutf", AVX2, SIMDUTF))
        .ratio(Ratio::of("sse÷scalar", SSE, SCALAR))
        .ratio(Ratio::of("sse÷simdutf", SSE, SIMDUTF))
        .summary(Summary::non_latin_geomean(
            "utf8kit ÷ the faster of simdutf and bytecount (÷best), geomean over the non-Latin lipsum files",
            "÷best",
        ))
        .summary(Summary::lipsum_matrix(
            "utf8kit ÷ best peer, every lipsum file",
            "÷best",
        ))
        .note("utf8kit = utf8kit::transcode::count_chars (the detected kernel); scalar = count_chars_with(Kernel::Scalar); avx2 = count_chars_with(Kernel::Avx2); sse = count_chars_with(Kernel::Sse42) (the SSE4.1 count)")
        .note("simdutf = simdutf::count_utf8; bytecount = bytecount::num_chars (feature runtime-dispatch-simd); std = str::chars().count()")
}
