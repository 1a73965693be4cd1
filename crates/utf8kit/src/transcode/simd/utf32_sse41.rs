//! SSE4.1 UTF-8 ⇄ UTF-32, for the CPUs before AVX2 and BMI: 128-bit
//! registers, `pshufb` (SSSE3), `pblendvb`, `pmovzx*`, `pminud` and
//! `packusdw` (SSE4.1) and `popcnt`, nothing else.
//!
//! # UTF-8 → UTF-32 (input known to be valid)
//!
//! 16 bytes a step. An all-ASCII block widens to 16 values with four
//! `pmovzxbd`. Otherwise the characters that start in the block are
//! decoded as in [`super::utf16_sse41`], each *at its lead byte's 16-bit
//! lane*, one half of 8 bytes at a time: the half's bytes, the bytes one on
//! and two on are widened to 16-bit lanes (`pmovzxbw`), and each lane
//! computes its 1-, 2- and 3-byte value and keeps (`pblendvb`) the one its
//! lead byte asks for. A `pshufb` from [`PACK`], indexed by the half's lead
//! mask, packs the half's characters to the start, and two `pmovzxwd`/
//! `punpckhwd` widen them to 32 bits. A character that starts at byte 15
//! may end at byte 17: the step then reads those continuation bytes too,
//! so it ends at a character boundary.
//!
//! 4-byte characters do not fit 16-bit lanes: a step stops before the
//! first one, and a step that starts at one decodes it (and any right after
//! it) with scalar code.
//!
//! # UTF-32 → UTF-8
//!
//! 8 values (two registers) a step. All ASCII narrow with two packs (16
//! values at once when the next 8 are ASCII too).
//! Values all below `800` narrow to 16-bit lanes (`packusdw`) and take
//! [`super::latin1_sse41`]'s Latin-1 → UTF-8 step (its 2-byte encoding
//! holds any 11-bit value), 8 values in one register.
//!
//! Values all below `10000` and no surrogate take 16-bit lanes too: each
//! lane makes its character's first two bytes (the value, or a lead and a
//! continuation) and its third byte, which `punpck*wd` interleave to 32-bit
//! lanes, four values per register, packed as below.
//!
//! Otherwise each value is checked (a surrogate, or above `10FFFF`, is
//! invalid: `pminud` makes the unsigned compare), and each is encoded in
//! its own 32-bit lane, which holds any of the 1 to 4 bytes of UTF-8 from
//! its low byte on (the 4-byte form is only computed when a register has a
//! supplementary value). A `pshufb` from [`UTF8_PACK4`], indexed by the four
//! lanes' lengths (two bits each), packs each register's bytes to the
//! start. The kernel stops before a step holding an invalid value, which
//! the scalar kernel reports; the lossy flavour replaces it by U+FFFD in
//! the register and goes on.
//!
//! # Room
//!
//! Both run while a whole step's input and room for its stores remain, and
//! leave the rest to the scalar kernels. Nothing is left written past the
//! output: a step's whole-register stores spill past its output only while
//! enough input is left for the output that follows to overwrite the
//! spill; nearer the end a step packs its output in a local buffer and
//! copies exactly that.

use super::Progress;
use super::latin1_sse41::widen8;
use super::utf16_shared::PACK;
use core::arch::x86_64::*;

/// Bytes of input a UTF-8 → UTF-32 step looks at, and values of room it
/// needs.
const STEP: usize = 16;

/// UTF-8 → UTF-32: input bytes left from which a step that decodes in lanes
/// stores whole registers. Its stores reach at most 8 values past its
/// output (the second half's 8 values hold 0 to 8 of the output), and the
/// 32 or more bytes after the step (18 at most) make at least 8 values.
const DECODE_TAIL: usize = 18 + 32;

/// Decodes the characters that start at the 8 bytes in `w0` (zero-extended
/// to 16-bit lanes; `w1` and `w2` are the bytes one and two on, likewise),
/// each at its lead byte's lane, none a 4-byte character; packs those whose
/// bit is set in the 8-bit `mask` to the start and returns them widened to
/// 32 bits, four values per register.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn decode8(w0: __m128i, w1: __m128i, w2: __m128i, mask: u32) -> (__m128i, __m128i) {
    let low6 = _mm_set1_epi16(0x3F);
    let t1 = _mm_and_si128(w1, low6);
    let t2 = _mm_and_si128(w2, low6);
    // 2 bytes: 110aaaaa 10bbbbbb -> aaaaabbbbbb.
    let two = _mm_or_si128(
        _mm_slli_epi16::<6>(_mm_and_si128(w0, _mm_set1_epi16(0x1F))),
        t1,
    );
    // 3 bytes: 1110aaaa 10bbbbbb 10cccccc -> aaaabbbbbbcccccc.
    let three = _mm_or_si128(
        _mm_or_si128(_mm_slli_epi16::<12>(w0), _mm_slli_epi16::<6>(t1)),
        t2,
    );
    let is2 = _mm_cmpgt_epi16(w0, _mm_set1_epi16(0xBF));
    let is3 = _mm_cmpgt_epi16(w0, _mm_set1_epi16(0xDF));
    let value = _mm_blendv_epi8(_mm_blendv_epi8(w0, two, is2), three, is3);
    let index = &PACK[usize::from(mask as u8)];
    // SAFETY: a row is 16 readable bytes.
    let index = unsafe { _mm_loadu_si128(index.as_ptr().cast()) };
    let packed = _mm_shuffle_epi8(value, index);
    (
        _mm_cvtepu16_epi32(packed),
        _mm_unpackhi_epi16(packed, _mm_setzero_si128()),
    )
}

/// Converts valid UTF-8 to UTF-32 at `dst` while 16 bytes of input (18 for
/// a block that is not all ASCII) and 16 values of room remain.
///
/// With `ASCII_ONLY` it stops at the first block that is not all ASCII
/// instead, and `src` may be anything. Otherwise `src` should be valid
/// UTF-8 (else the output is meaningless, but every access stays in
/// bounds).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` values.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
pub(crate) unsafe fn utf8_to_utf32<const ASCII_ONLY: bool>(
    src: &[u8],
    dst: *mut u32,
    cap: usize,
) -> Progress {
    let mut i = 0;
    let mut o = 0;
    let p = src.as_ptr();
    // Invariants: `i <= src.len()`, `o <= cap`, `i` at a character boundary.
    while src.len() - i >= STEP && cap - o >= STEP {
        // SAFETY: `i + 16 <= src.len()`.
        let v = unsafe { _mm_loadu_si128(p.add(i).cast()) };
        // SAFETY: `o + 16 <= cap`: 16 values at `out` are writable, which
        // covers every store of the step.
        let out = unsafe { dst.add(o) };
        if _mm_movemask_epi8(v) == 0 {
            // SAFETY: 16 writable values at `out`.
            unsafe {
                _mm_storeu_si128(out.cast(), _mm_cvtepu8_epi32(v));
                _mm_storeu_si128(out.add(4).cast(), _mm_cvtepu8_epi32(_mm_srli_si128::<4>(v)));
                _mm_storeu_si128(out.add(8).cast(), _mm_cvtepu8_epi32(_mm_srli_si128::<8>(v)));
                _mm_storeu_si128(
                    out.add(12).cast(),
                    _mm_cvtepu8_epi32(_mm_srli_si128::<12>(v)),
                );
            }
            i += STEP;
            o += STEP;
            continue;
        }
        if ASCII_ONLY || src.len() - i < STEP + 2 {
            break;
        }
        // 4-byte leads: F0..=FF (`max(b, F0) == b`).
        let fours =
            _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(-16)), v)) as u32;
        if fours & 1 != 0 {
            // A run of 4-byte characters: 4 bytes each from lead bytes in
            // the block, one value each (at most 4).
            let mut read = 0;
            // SAFETY: each character's 4 bytes are checked to be inside
            // `src`; at most 4 of the 16 writable values are written.
            unsafe {
                while read < STEP && src.len() - i - read >= 4 && *p.add(i + read) >= 0xF0 {
                    let b = |k: usize| u32::from(*p.add(i + read + k));
                    let cp = ((b(0) & 0x07) << 18)
                        | ((b(1) & 0x3F) << 12)
                        | ((b(2) & 0x3F) << 6)
                        | (b(3) & 0x3F);
                    out.add(read / 4).write_unaligned(cp);
                    read += 4;
                }
            }
            if read == 0 {
                break;
            }
            i += read;
            o += read / 4;
            continue;
        }
        // SAFETY: `i + 18 <= src.len()`: the 16-byte loads at `i + 1` and
        // `i + 2` are readable.
        let (n1, n2) = unsafe {
            (
                _mm_loadu_si128(p.add(i + 1).cast()),
                _mm_loadu_si128(p.add(i + 2).cast()),
            )
        };
        // Leads: bytes other than 80..=BF (as `i8`, greater than -65).
        let leads = _mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(-65))) as u32;
        // Lanes converted: the leads before the first 4-byte lead, or all
        // 16 (and then the bytes 16 and 17, bytes 14 and 15 of `n2`, that
        // continue the last one).
        let (mask, read) = if fours != 0 {
            let first4 = fours.trailing_zeros();
            (leads & ((1 << first4) - 1), first4 as usize)
        } else {
            let c = !(_mm_movemask_epi8(_mm_cmpgt_epi8(n2, _mm_set1_epi8(-65))) as u32) >> 14;
            (leads, 16 + (c & 1) as usize + (c & (c >> 1) & 1) as usize)
        };
        let zero = _mm_setzero_si128();
        let (a, b) = decode8(
            _mm_cvtepu8_epi16(v),
            _mm_cvtepu8_epi16(n1),
            _mm_cvtepu8_epi16(n2),
            mask,
        );
        let (c, d) = decode8(
            _mm_unpackhi_epi8(v, zero),
            _mm_unpackhi_epi8(n1, zero),
            _mm_unpackhi_epi8(n2, zero),
            mask >> 8,
        );
        let n_lo = (mask & 0xFF).count_ones() as usize;
        let n = mask.count_ones() as usize;
        if src.len() - i >= DECODE_TAIL {
            // SAFETY: 8 values at `out` and 8 at `out + n_lo` (at most 8):
            // inside the 16 writable values.
            unsafe {
                _mm_storeu_si128(out.cast(), a);
                _mm_storeu_si128(out.add(4).cast(), b);
                _mm_storeu_si128(out.add(n_lo).cast(), c);
                _mm_storeu_si128(out.add(n_lo + 4).cast(), d);
            }
        } else {
            // The output may end here: exactly `n` values are written.
            let mut packed = [0u32; 16];
            let q = packed.as_mut_ptr();
            // SAFETY: 8 values at 0 and 8 at `n_lo` (at most 8) inside
            // `packed`; then `n <= 16` values from it to `out`, inside the
            // 16 writable values.
            unsafe {
                _mm_storeu_si128(q.cast(), a);
                _mm_storeu_si128(q.add(4).cast(), b);
                _mm_storeu_si128(q.add(n_lo).cast(), c);
                _mm_storeu_si128(q.add(n_lo + 4).cast(), d);
                core::ptr::copy_nonoverlapping(packed.as_ptr(), out, n);
            }
        }
        i += read;
        o += n;
    }
    Progress {
        read: i,
        written: o,
    }
}

/// Bit `k` of the index moved to bit `2k`: four lanes' 1-bit flags spread
/// to 2-bit fields, whose sum over the flags "2 or more bytes", "3 or more"
/// and "4" is the [`UTF8_PACK4`] index.
const SPREAD: [u8; 16] = {
    let mut table = [0u8; 16];
    let mut m = 0;
    while m < 16 {
        table[m] = ((m & 1) | ((m & 2) << 1) | ((m & 4) << 2) | ((m & 8) << 3)) as u8;
        m += 1;
    }
    table
};

/// `pshufb` indices that pack the UTF-8 bytes of four 32-bit lanes (each
/// holding its character's 1–4 bytes from its low byte on) to the start.
/// Bits `2k..2k + 2` of the index are lane `k`'s length less one.
const fn utf8_pack4_table() -> [[u8; 16]; 256] {
    let mut table = [[0x80u8; 16]; 256];
    let mut index = 0;
    while index < 256 {
        let mut out = 0;
        let mut lane = 0;
        while lane < 4 {
            let len = 1 + ((index >> (2 * lane)) & 3);
            let mut j = 0;
            while j < len {
                table[index][out] = (4 * lane + j) as u8;
                out += 1;
                j += 1;
            }
            lane += 1;
        }
        index += 1;
    }
    table
}

static UTF8_PACK4: [[u8; 16]; 256] = utf8_pack4_table();

/// Encodes the 4 scalar values in `u` as UTF-8, packed to the start of the
/// returned register; returns it and the bytes it holds (4 to 16).
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn encode4(u: __m128i) -> (__m128i, usize) {
    let low6 = _mm_set1_epi32(0x3F);
    let cont = _mm_set1_epi32(0x80);
    let last = _mm_or_si128(_mm_and_si128(u, low6), cont);
    let mid = _mm_or_si128(_mm_and_si128(_mm_srli_epi32::<6>(u), low6), cont);
    // 2 bytes: 110aaaaa 10bbbbbb.
    let two = _mm_or_si128(
        _mm_or_si128(_mm_srli_epi32::<6>(u), _mm_set1_epi32(0xC0)),
        _mm_slli_epi32::<8>(last),
    );
    // 3 bytes: 1110aaaa 10bbbbbb 10cccccc.
    let three = _mm_or_si128(
        _mm_or_si128(_mm_srli_epi32::<12>(u), _mm_set1_epi32(0xE0)),
        _mm_or_si128(_mm_slli_epi32::<8>(mid), _mm_slli_epi32::<16>(last)),
    );
    // (Scalar values are below 2^31: signed compares are right.)
    let ge2 = _mm_cmpgt_epi32(u, _mm_set1_epi32(0x7F));
    let ge3 = _mm_cmpgt_epi32(u, _mm_set1_epi32(0x7FF));
    let ge4 = _mm_cmpgt_epi32(u, _mm_set1_epi32(0xFFFF));
    let mut v = _mm_blendv_epi8(_mm_blendv_epi8(u, two, ge2), three, ge3);
    let m2 = _mm_movemask_ps(_mm_castsi128_ps(ge2)) as usize;
    let m3 = _mm_movemask_ps(_mm_castsi128_ps(ge3)) as usize;
    let m4 = _mm_movemask_ps(_mm_castsi128_ps(ge4)) as usize;
    if m4 != 0 {
        // 4 bytes: 11110aaa 10bbbbbb 10cccccc 10dddddd.
        let high = _mm_or_si128(_mm_and_si128(_mm_srli_epi32::<12>(u), low6), cont);
        let four = _mm_or_si128(
            _mm_or_si128(
                _mm_or_si128(_mm_srli_epi32::<18>(u), _mm_set1_epi32(0xF0)),
                _mm_slli_epi32::<8>(high),
            ),
            _mm_or_si128(_mm_slli_epi32::<16>(mid), _mm_slli_epi32::<24>(last)),
        );
        v = _mm_blendv_epi8(v, four, ge4);
    }
    let index = usize::from(SPREAD[m2 & 15] + SPREAD[m3 & 15] + SPREAD[m4 & 15]);
    let n = 4 + (m2.count_ones() + m3.count_ones() + m4.count_ones()) as usize;
    // SAFETY: a row is 16 readable bytes.
    let table = unsafe { _mm_loadu_si128(UTF8_PACK4[index].as_ptr().cast()) };
    (_mm_shuffle_epi8(v, table), n)
}

/// Encodes the 8 values below `10000` in the 16-bit lanes of `u` as UTF-8,
/// four values per register, each packed to the start of its register;
/// returns the registers and the bytes each holds (4 to 12). `None` if a
/// value is a surrogate.
///
/// The bytes are made in 16-bit lanes (the first two of each character,
/// and its third) and interleaved to 32-bit lanes, which [`UTF8_PACK4`]
/// packs.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
#[allow(clippy::type_complexity, reason = "two (register, length) pairs")]
fn encode8_bmp(u: __m128i) -> Option<((__m128i, usize), (__m128i, usize))> {
    let zero = _mm_setzero_si128();
    let surrogates = _mm_cmpeq_epi16(
        _mm_and_si128(u, _mm_set1_epi16(0xF800u16 as i16)),
        _mm_set1_epi16(0xD800u16 as i16),
    );
    if _mm_testz_si128(surrogates, surrogates) == 0 {
        return None;
    }
    let ascii = _mm_cmpeq_epi16(_mm_and_si128(u, _mm_set1_epi16(0xFF80u16 as i16)), zero);
    let short = _mm_cmpeq_epi16(_mm_and_si128(u, _mm_set1_epi16(0xF800u16 as i16)), zero);
    let low6 = _mm_set1_epi16(0x3F);
    let cont = _mm_set1_epi16(0x80);
    let last = _mm_or_si128(_mm_and_si128(u, low6), cont);
    let mid = _mm_or_si128(_mm_and_si128(_mm_srli_epi16::<6>(u), low6), cont);
    let lead2 = _mm_or_si128(_mm_srli_epi16::<6>(u), _mm_set1_epi16(0xC0));
    let lead3 = _mm_or_si128(_mm_srli_epi16::<12>(u), _mm_set1_epi16(0xE0));
    // Byte 0: the value, or a 2- or 3-byte lead; byte 1: the last or the
    // middle continuation; the third byte (of 3-byte characters): `last`.
    let b0 = _mm_blendv_epi8(_mm_blendv_epi8(lead3, lead2, short), u, ascii);
    let b1 = _mm_blendv_epi8(mid, last, short);
    let first = _mm_or_si128(b0, _mm_slli_epi16::<8>(b1));
    let x = _mm_unpacklo_epi16(first, last);
    let y = _mm_unpackhi_epi16(first, last);
    // Bytes past the first: one where not ASCII, one more where not short.
    let m_ascii = _mm_movemask_epi8(_mm_packs_epi16(ascii, ascii)) as u32 & 0xFF;
    let m_short = _mm_movemask_epi8(_mm_packs_epi16(short, short)) as u32 & 0xFF;
    let (two, three) = (!m_ascii & 0xFF, !m_short & 0xFF);
    let pack = |v: __m128i, two: u32, three: u32| {
        let index = usize::from(SPREAD[(two & 15) as usize] + SPREAD[(three & 15) as usize]);
        // SAFETY: a row is 16 readable bytes.
        let table = unsafe { _mm_loadu_si128(UTF8_PACK4[index].as_ptr().cast()) };
        (
            _mm_shuffle_epi8(v, table),
            4 + ((two & 15).count_ones() + (three & 15).count_ones()) as usize,
        )
    };
    Some((pack(x, two, three), pack(y, two >> 4, three >> 4)))
}

/// Which 32-bit lanes of `u` hold scalar values (all ones) and which not
/// (zeros): not a surrogate, and at most `10FFFF` (`min(u, 10FFFF) == u`,
/// unsigned).
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn scalar_values(u: __m128i) -> __m128i {
    let in_range = _mm_cmpeq_epi32(_mm_min_epu32(u, _mm_set1_epi32(0x10_FFFF)), u);
    let surrogate = _mm_cmpeq_epi32(
        _mm_and_si128(u, _mm_set1_epi32(0xFFFF_F800u32 as i32)),
        _mm_set1_epi32(0xD800),
    );
    _mm_andnot_si128(surrogate, in_range)
}

/// Values a UTF-32 → UTF-8 step converts.
const STEP32: usize = 8;

/// Room a UTF-32 → UTF-8 step needs: 8 values make at most 32 bytes, and
/// the stores reach 32 bytes from the step's start.
const ROOM8: usize = 32;

/// UTF-32 → UTF-8: values left from which a step stores whole registers.
/// Its stores reach at most 12 bytes past its output (the second
/// register's 16-byte store holds 4 to 16 bytes of output), and the 12 or
/// more values after the step make at least 12 bytes.
const ENCODE_TAIL: usize = STEP32 + 12;

/// UTF-32 → UTF-8: values left from which a step of values below `800`
/// stores a whole register. It holds 8 to 16 bytes of output, and the 8 or
/// more values after the step make at least 8 bytes.
const WIDEN_TAIL: usize = STEP32 + 8;

/// Converts UTF-32 to UTF-8 at `dst`, 8 values a step, while a step's
/// values and room remain; without `LOSSY` up to the first step holding an
/// invalid value (the scalar kernel reports it), with `LOSSY` replacing
/// each invalid value by U+FFFD.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
pub(crate) unsafe fn utf32_to_utf8<const LOSSY: bool>(
    src: &[u32],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    let mut i = 0;
    let mut o = 0;
    let p = src.as_ptr();
    // Invariants: `i <= src.len()`, `o <= cap`.
    while src.len() - i >= STEP32 && cap - o >= ROOM8 {
        // SAFETY: values `i..i + 8` are readable.
        let (mut a, mut b) = unsafe {
            (
                _mm_loadu_si128(p.add(i).cast()),
                _mm_loadu_si128(p.add(i + 4).cast()),
            )
        };
        // SAFETY: `o + ROOM8 <= cap`: 32 writable bytes at `out`.
        let out = unsafe { dst.add(o) };
        let not_ascii = _mm_set1_epi32(!0x7F);
        if _mm_testz_si128(_mm_or_si128(a, b), not_ascii) != 0 {
            let w = _mm_packus_epi32(a, b);
            if src.len() - i >= 2 * STEP32 {
                // SAFETY: values `i + 8..i + 16` are readable.
                let (c, d) = unsafe {
                    (
                        _mm_loadu_si128(p.add(i + 8).cast()),
                        _mm_loadu_si128(p.add(i + 12).cast()),
                    )
                };
                if _mm_testz_si128(_mm_or_si128(c, d), not_ascii) != 0 {
                    let bytes = _mm_packus_epi16(w, _mm_packus_epi32(c, d));
                    // SAFETY: 16 of the 32 writable bytes.
                    unsafe { _mm_storeu_si128(out.cast(), bytes) };
                    i += 2 * STEP32;
                    o += 2 * STEP32;
                    continue;
                }
            }
            let bytes = _mm_packus_epi16(w, w);
            // SAFETY: 8 of the 32 writable bytes.
            unsafe { _mm_storel_epi64(out.cast(), bytes) };
            i += STEP32;
            o += STEP32;
            continue;
        }
        if _mm_testz_si128(_mm_or_si128(a, b), _mm_set1_epi32(!0x7FF)) != 0 {
            // Values below 800 (so all valid): one or two bytes each, as
            // Latin-1 → UTF-8 makes them from 16-bit lanes.
            let u = _mm_packus_epi32(a, b);
            let big = _mm_cmpgt_epi16(u, _mm_set1_epi16(0x7F));
            let mask = _mm_movemask_epi8(_mm_packs_epi16(big, big)) as u32 & 0xFF;
            let bytes = widen8(u, mask);
            let n = 8 + mask.count_ones() as usize;
            if src.len() - i >= WIDEN_TAIL {
                // SAFETY: 16 of the 32 writable bytes.
                unsafe { _mm_storeu_si128(out.cast(), bytes) };
            } else {
                let mut packed = [0u8; 16];
                // SAFETY: 16 bytes into `packed`, then `n <= 16` of them
                // to `out`, inside the 32 writable bytes.
                unsafe {
                    _mm_storeu_si128(packed.as_mut_ptr().cast(), bytes);
                    core::ptr::copy_nonoverlapping(packed.as_ptr(), out, n);
                }
            }
            i += STEP32;
            o += n;
            continue;
        }
        let bmp = if _mm_testz_si128(_mm_or_si128(a, b), _mm_set1_epi32(!0xFFFF)) != 0 {
            encode8_bmp(_mm_packus_epi32(a, b))
        } else {
            None
        };
        let ((x, n_a), (y, n_b)) = match bmp {
            Some(encoded) => encoded,
            None => {
                let (ok_a, ok_b) = (scalar_values(a), scalar_values(b));
                if _mm_movemask_epi8(_mm_and_si128(ok_a, ok_b)) != 0xFFFF {
                    if !LOSSY {
                        break;
                    }
                    let replacement = _mm_set1_epi32(0xFFFD);
                    a = _mm_blendv_epi8(replacement, a, ok_a);
                    b = _mm_blendv_epi8(replacement, b, ok_b);
                }
                (encode4(a), encode4(b))
            }
        };
        if src.len() - i >= ENCODE_TAIL {
            // SAFETY: 16 bytes at `out` and at `out + n_a` (at most 16):
            // inside the 32 writable bytes.
            unsafe {
                _mm_storeu_si128(out.cast(), x);
                _mm_storeu_si128(out.add(n_a).cast(), y);
            }
        } else {
            // The output may end here: exactly `n_a + n_b` bytes are
            // written.
            let mut packed = [0u8; 32];
            let q = packed.as_mut_ptr();
            // SAFETY: 16 bytes at 0 and `n_a` (at most 16) inside `packed`;
            // then `n_a + n_b <= 32` bytes from it to `out`, inside the 32
            // writable bytes.
            unsafe {
                _mm_storeu_si128(q.cast(), x);
                _mm_storeu_si128(q.add(n_a).cast(), y);
                core::ptr::copy_nonoverlapping(packed.as_ptr(), out, n_a + n_b);
            }
        }
        i += STEP32;
        o += n_a + n_b;
    }
    Progress {
        read: i,
        written: o,
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use std::string::String;
    use std::vec;
    use std::vec::Vec;

    /// One character of each UTF-8 length, at the ends of each range.
    const KINDS: [char; 9] = [
        'a', '\u{7F}', '\u{80}', 'é', '\u{7FF}', '\u{800}', '€', '\u{FFFF}', '😀',
    ];

    /// UTF-8 → UTF-32 by the kernel: checks the output against std up to
    /// where it stopped (a character boundary), finishes it with std's
    /// output from there (as the wrapper does with the scalar kernel) and
    /// checks that nothing is left written past it.
    fn decode(text: &str, extra: usize) -> Progress {
        let want: Vec<u32> = text.chars().map(u32::from).collect();
        let mut out = vec![0xA5A5_A5A5u32; want.len() + extra];
        // SAFETY: the features were checked; `out` is `out.len()` values.
        let p = unsafe { utf8_to_utf32::<false>(text.as_bytes(), out.as_mut_ptr(), out.len()) };
        let done = text.get(..p.read).expect("stops at a character boundary");
        let done: Vec<u32> = done.chars().map(u32::from).collect();
        assert_eq!(&out[..p.written], &done[..], "{text:?}");
        out[p.written..want.len()].copy_from_slice(&want[p.written..]);
        assert!(
            out[want.len()..].iter().all(|&v| v == 0xA5A5_A5A5),
            "{text:?}"
        );
        p
    }

    #[test]
    fn utf8_every_char_kind_at_every_offset() {
        if !super::super::sse41_transcode() {
            return;
        }
        for len in [16, 17, 18, 19, 20, 32, 40, 50, 51, 64, 80] {
            for at in 0..len {
                for kind in KINDS {
                    for fill in ['a', 'é', '€', '😀'] {
                        let mut text = String::new();
                        while text.len() + fill.len_utf8() <= at {
                            text.push(fill);
                        }
                        while text.len() < at {
                            text.push('b');
                        }
                        text.push(kind);
                        while text.len() < len {
                            text.push(fill);
                        }
                        for extra in [0, 20] {
                            let p = decode(&text, extra);
                            if extra == 20 {
                                // A whole step left undone only for want of
                                // the two bytes after it.
                                assert!(text.len() - p.read < STEP + 2, "{text:?} {p:?}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn utf8_ascii_only_stops_at_the_first_other_block() {
        if !super::super::sse41_transcode() {
            return;
        }
        for at in 0..64 {
            let mut bytes = vec![b'x'; 64];
            bytes[at] = 0xFF;
            let mut out = vec![0u32; 64];
            // SAFETY: the features were checked; `out` is 64 values.
            let p = unsafe { utf8_to_utf32::<true>(&bytes, out.as_mut_ptr(), 64) };
            assert_eq!(p.read, at / 16 * 16);
            assert_eq!(p.written, p.read);
            assert!(out[..p.written].iter().all(|&v| v == u32::from(b'x')));
        }
    }

    /// UTF-32 → UTF-8 by the kernel: checks the output against std's
    /// encoding of the values it read (with U+FFFD for invalid ones if
    /// `LOSSY`) and that nothing is written past it.
    fn encode<const LOSSY: bool>(values: &[u32], extra: usize) -> Progress {
        let utf8 = |vs: &[u32]| -> String {
            vs.iter()
                .map(|&v| char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect()
        };
        let cap = utf8(values).len() + extra;
        let mut out = vec![0xA5u8; cap];
        // SAFETY: the features were checked; `out` is `cap` bytes.
        let p = unsafe { utf32_to_utf8::<LOSSY>(values, out.as_mut_ptr(), cap) };
        let done = &values[..p.read];
        if !LOSSY {
            assert!(done.iter().all(|&v| char::from_u32(v).is_some()));
        }
        assert_eq!(&out[..p.written], utf8(done).as_bytes(), "{values:X?}");
        // Finished as the wrapper does (if the conversion succeeds).
        if LOSSY || values.iter().all(|&v| char::from_u32(v).is_some()) {
            let want = utf8(values);
            let want = want.as_bytes();
            out[p.written..want.len()].copy_from_slice(&want[p.written..]);
            assert!(out[want.len()..].iter().all(|&b| b == 0xA5), "{values:X?}");
        }
        p
    }

    #[test]
    fn utf32_every_value_kind_at_every_offset() {
        if !super::super::sse41_transcode() {
            return;
        }
        let kinds = [
            0x61,
            0x7F,
            0x80,
            0x7FF,
            0x800,
            0xD7FF,
            0xD800,
            0xDBFF,
            0xDC00,
            0xDFFF,
            0xE000,
            0xFFFF,
            0x1_0000,
            0x1F600,
            0x10_FFFF,
            0x11_0000,
            0x8000_0000,
            0xFFFF_FFFF,
        ];
        for len in [8, 9, 15, 16, 19, 20, 21, 24, 32, 33] {
            for at in 0..len {
                for kind in kinds {
                    for fill in [0x62, 0xE9, 0x20AC, 0x1F601] {
                        let mut values = vec![fill; len];
                        values[at] = kind;
                        let valid = char::from_u32(kind).is_some();
                        for extra in [0, 40] {
                            let p = encode::<false>(&values, extra);
                            if !valid {
                                assert!(p.read <= at, "{values:X?}");
                            } else if extra == 40 {
                                assert!(len - p.read < STEP32, "{values:X?}");
                            }
                            let p = encode::<true>(&values, extra);
                            if extra == 40 {
                                assert!(len - p.read < STEP32, "{values:X?}");
                            }
                        }
                    }
                }
            }
        }
    }
}
