//! AVX-512 output lengths: UTF-16 units for UTF-8 input, UTF-8 bytes for
//! UTF-16 input. Both count with mask registers and `popcnt`.

use core::arch::x86_64::*;

/// The number of UTF-16 units `bytes` converts to if valid: one per byte
/// that is not a continuation byte, one more per byte `F0..=FF` (the same
/// formula as the scalar [`utf16_len_from_utf8`](crate::transcode::utf16_len_from_utf8)).
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
pub(crate) unsafe fn utf16_len_from_utf8(bytes: &[u8]) -> usize {
    let count = |v: __m512i, present: u64| {
        // Continuation bytes are -128..=-65 as `i8`.
        let lead = _mm512_mask_cmpgt_epi8_mask(present, v, _mm512_set1_epi8(-65));
        let four = _mm512_mask_cmpge_epu8_mask(present, v, _mm512_set1_epi8(0xF0u8 as i8));
        (lead.count_ones() + four.count_ones()) as usize
    };
    let (blocks, tail) = bytes.as_chunks::<64>();
    let mut n = 0;
    for block in blocks {
        // SAFETY: `block` is 64 readable bytes.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        n += count(v, u64::MAX);
    }
    let present = !(u64::MAX << tail.len());
    // SAFETY: the mask enables the `tail.len() < 64` readable bytes only;
    // masked-off lanes are not read and cannot fault.
    let v = unsafe { _mm512_maskz_loadu_epi8(present, tail.as_ptr().cast()) };
    n + count(v, present)
}

/// The number of UTF-8 bytes the first `read` of `len` UTF-16 units at
/// `src` (little-endian, or big-endian if `BE`) convert to, unpaired
/// surrogates counting 3; returns `(read, bytes)`. The caller counts the
/// rest with the scalar function; a pair split between the two parts is
/// counted right (see the comment in the loop).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `src` is valid for reads of `2 * len` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt")]
pub(crate) unsafe fn utf8_len_from_utf16<const BE: bool>(
    src: *const u8,
    len: usize,
) -> (usize, usize) {
    let load = |at: usize| {
        // SAFETY: the loop reads units `at..at + 32` with `at + 32 <= len`.
        let v = unsafe { _mm512_loadu_si512(src.add(2 * at).cast()) };
        if BE { _mm512_shldi_epi16::<8>(v, v) } else { v }
    };
    let tag_mask = _mm512_set1_epi16(0xFC00u16 as i16);
    let mut i = 0;
    let mut n = 0;
    // Every unit counts 1 + (>= 80) + (>= 800): 3 for a surrogate, right for
    // an unpaired one; a pair (6) is 2 too many. The pair is counted at its
    // high unit, whose low unit may be the first of the next block or of
    // the scalar tail, which counts it 3 like everyone else.
    //
    // The low units one on are loaded and tested only where this block has
    // a high surrogate: three compares a block elsewhere instead of four
    // (each on port 5 on Intel), and no load one unit on, which splits a
    // cache line. Intel Xeon with AVX-512 FP16, 2026-11-27, ÷ simdutf at 1
    // MiB: 0.67 → 1.05–1.13 on the lipsum files without surrogates (Emoji,
    // with a pair in every block, stays at 0.67).
    while len - i >= 33 {
        let v = load(i);
        let wide = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(0x80));
        let three = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(0x800));
        let high = _mm512_cmpeq_epi16_mask(
            _mm512_and_si512(v, tag_mask),
            _mm512_set1_epi16(0xD800u16 as i16),
        );
        n += 32 + (wide.count_ones() + three.count_ones()) as usize;
        if high != 0 {
            let low_next = _mm512_cmpeq_epi16_mask(
                _mm512_and_si512(load(i + 1), tag_mask),
                _mm512_set1_epi16(0xDC00u16 as i16),
            );
            n -= 2 * (high & low_next).count_ones() as usize;
        }
        i += 32;
    }
    (i, n)
}
