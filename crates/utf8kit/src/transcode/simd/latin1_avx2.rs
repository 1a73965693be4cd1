//! AVX2 Latin-1 ⇄ UTF-8, and the UTF-8 length of Latin-1 (the Latin-1
//! length of UTF-8 is `count_avx2::count_chars`).
//!
//! # Latin-1 → UTF-8
//!
//! An all-ASCII block of 32 bytes is copied. Otherwise 16 bytes a step:
//! each byte is widened to a 16-bit lane holding its UTF-8 encoding from
//! the low byte on (`b`, or the lead `C0 | b >> 6` and the continuation
//! `80 | b & 3F`), and each eight lanes are packed by a `pshufb` from a
//! table indexed by their high-bit mask (one byte per ASCII lane, two per
//! other lane): 16 bytes in, at most 32 out.
//!
//! # UTF-8 → Latin-1 (validating)
//!
//! An all-ASCII block of 32 bytes is copied. Otherwise a step converts 16
//! bytes (17 if the 16th is a lead) in registers only if its non-ASCII
//! bytes are exactly `C2`/`C3` leads each followed by one continuation
//! byte: each lead lane becomes the Latin-1 byte (`80 | next & 3F`, plus
//! `40` after `C3`), and a `pshufb` per 8 bytes drops the continuation
//! lanes. Anything else is an error for Latin-1 (or a character it cannot
//! hold), so the kernel stops at the step's start, a character boundary,
//! and the scalar kernel finds and reports the first problem from there.
//!
//! # Room
//!
//! The kernels run while 32 bytes are readable and 32 bytes of room are
//! left (every step's stores stay inside them) and leave the rest to the
//! scalar kernels. Nothing is left written past the output: Latin-1 →
//! UTF-8 stores whole registers, whose bytes past the step's output are
//! overwritten by the output of the 16 or more bytes of input that follow;
//! UTF-8 → Latin-1 stores whole registers while 64 bytes of input are
//! left (the rest overwrites what they spill if the conversion succeeds)
//! and exactly its output nearer the end.

use super::Progress;
use core::arch::x86_64::*;

/// Bytes a step may read and room it needs.
const STEP: usize = 32;

/// Input bytes left from which a UTF-8 → Latin-1 step stores whole
/// registers (see the step); nearer the end it writes exactly its output.
const TAIL: usize = 64;

/// `pshufb` indices that pack the UTF-8 of eight 16-bit lanes: one byte of
/// lane `k` if bit `k` of the index is clear, two if it is set.
const fn widen_table() -> [[u8; 16]; 256] {
    let mut table = [[0x80u8; 16]; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut out = 0;
        let mut lane = 0;
        while lane < 8 {
            table[mask][out] = 2 * lane as u8;
            out += 1;
            if mask & (1 << lane) != 0 {
                table[mask][out] = 2 * lane as u8 + 1;
                out += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
}

/// (Shared with [`super::latin1_sse41`].)
pub(crate) static WIDEN: [[u8; 16]; 256] = widen_table();

/// `pshufb` indices that keep the bytes `0..8` whose bit is set in the
/// index, packed to the start.
const fn keep_table() -> [[u8; 16]; 256] {
    let mut table = [[0x80u8; 16]; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut out = 0;
        let mut lane = 0;
        while lane < 8 {
            if mask & (1 << lane) != 0 {
                table[mask][out] = lane as u8;
                out += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
}

/// (Shared with [`super::latin1_sse41`].)
pub(crate) static KEEP: [[u8; 16]; 256] = keep_table();

/// The 16-byte row `mask` of `table`.
#[target_feature(enable = "avx2")]
#[inline]
fn row(table: &[[u8; 16]; 256], mask: u32) -> __m128i {
    // SAFETY: a row is 16 readable bytes.
    unsafe { _mm_loadu_si128(table[usize::from(mask as u8)].as_ptr().cast()) }
}

/// Converts Latin-1 `src` to UTF-8 at `dst` while 32 bytes of input and of
/// room remain.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn latin1_to_utf8(src: &[u8], dst: *mut u8, cap: usize) -> Progress {
    let mut i = 0;
    let mut o = 0;
    let p = src.as_ptr();
    // Invariants: `i <= src.len()`, `o <= cap`.
    while src.len() - i >= STEP && cap - o >= STEP {
        // SAFETY: `i + 32 <= src.len()`.
        let v = unsafe { _mm256_loadu_si256(p.add(i).cast()) };
        // SAFETY: `o + 32 <= cap`: 32 writable bytes at `out`.
        let out = unsafe { dst.add(o) };
        if _mm256_movemask_epi8(v) == 0 {
            // SAFETY: 32 writable bytes at `out`.
            unsafe { _mm256_storeu_si256(out.cast(), v) };
            i += STEP;
            o += STEP;
            continue;
        }
        let b = _mm256_castsi256_si128(v);
        let high = _mm_movemask_epi8(b) as u32;
        let u = _mm256_cvtepu8_epi16(b);
        let two = _mm256_or_si256(
            _mm256_or_si256(_mm256_srli_epi16::<6>(u), _mm256_set1_epi16(0xC0)),
            _mm256_slli_epi16::<8>(_mm256_or_si256(
                _mm256_and_si256(u, _mm256_set1_epi16(0x3F)),
                _mm256_set1_epi16(0x80),
            )),
        );
        let lanes = _mm256_blendv_epi8(u, two, _mm256_cmpgt_epi16(u, _mm256_set1_epi16(0x7F)));
        let n_lo = 8 + (high & 0xFF).count_ones() as usize;
        let lo = _mm_shuffle_epi8(_mm256_castsi256_si128(lanes), row(&WIDEN, high));
        let hi = _mm_shuffle_epi8(_mm256_extracti128_si256::<1>(lanes), row(&WIDEN, high >> 8));
        // SAFETY: stores of 16 bytes at `out` and `out + n_lo` (at most
        // 16): inside the 32 writable bytes.
        unsafe {
            _mm_storeu_si128(out.cast(), lo);
            _mm_storeu_si128(out.add(n_lo).cast(), hi);
        }
        i += 16;
        o += 16 + high.count_ones() as usize;
    }
    Progress {
        read: i,
        written: o,
    }
}

/// Converts UTF-8 `src` to Latin-1 at `dst` while its steps take the fast
/// path (see the module docs) and 32 bytes of input and room remain; stops
/// at a character boundary before the first step that does not.
///
/// (`VALID`, input known to be UTF-8, changes nothing here: the fast path's
/// test is as cheap as it gets.)
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf8_to_latin1<const VALID: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    let mut i = 0;
    let mut o = 0;
    let p = src.as_ptr();
    // Invariants: `i <= src.len()`, `o <= cap`, `i` at a character boundary.
    while src.len() - i >= STEP && cap - o >= STEP {
        // SAFETY: `i + 32 <= src.len()`.
        let v = unsafe { _mm256_loadu_si256(p.add(i).cast()) };
        // SAFETY: `o + 32 <= cap`: 32 writable bytes at `out`.
        let out = unsafe { dst.add(o) };
        let high = _mm256_movemask_epi8(v) as u32;
        if high == 0 {
            // SAFETY: 32 writable bytes at `out`.
            unsafe { _mm256_storeu_si256(out.cast(), v) };
            i += STEP;
            o += STEP;
            continue;
        }
        // Leads C2/C3 and continuations 80..=BF.
        let lead_v = _mm256_cmpeq_epi8(
            _mm256_and_si256(v, _mm256_set1_epi8(0xFEu8 as i8)),
            _mm256_set1_epi8(0xC2u8 as i8),
        );
        let leads = _mm256_movemask_epi8(lead_v) as u32;
        let conts = _mm256_movemask_epi8(_mm256_cmpeq_epi8(
            _mm256_and_si256(v, _mm256_set1_epi8(0xC0u8 as i8)),
            _mm256_set1_epi8(0x80u8 as i8),
        )) as u32;
        // Bytes 0..16, and byte 16 if it continues a lead at byte 15.
        let carry = (leads >> 15) & 1;
        let window = 0xFFFF | (carry << 16);
        let plain =
            (high & !(leads | conts) & 0xFFFF) == 0 && (conts & window) == ((leads << 1) & window);
        if !plain {
            break;
        }
        // SAFETY: `i + 17 <= src.len()`: the 16 bytes at `i + 1` are
        // readable.
        let next = unsafe { _mm_loadu_si128(p.add(i + 1).cast()) };
        let b = _mm256_castsi256_si128(v);
        let latin = _mm_or_si128(
            _mm_or_si128(
                _mm_and_si128(next, _mm_set1_epi8(0x3F)),
                _mm_set1_epi8(0x80u8 as i8),
            ),
            _mm_and_si128(
                _mm_cmpeq_epi8(b, _mm_set1_epi8(0xC3u8 as i8)),
                _mm_set1_epi8(0x40),
            ),
        );
        let bytes = _mm_blendv_epi8(b, latin, _mm256_castsi256_si128(lead_v));
        let keep = !conts & 0xFFFF;
        let n_lo = (keep & 0xFF).count_ones() as usize;
        let n = keep.count_ones() as usize;
        let lo = _mm_shuffle_epi8(bytes, row(&KEEP, keep));
        let hi = _mm_shuffle_epi8(_mm_srli_si128::<8>(bytes), row(&KEEP, keep >> 8));
        if src.len() - i >= TAIL {
            // The stores reach at most 16 bytes past the step's output,
            // which the output of the 47 or more bytes after the step (24
            // or more bytes if the conversion succeeds) overwrites.
            // SAFETY: stores of 16 bytes at `out` and `out + n_lo` (at
            // most 8): inside the 32 writable bytes.
            unsafe {
                _mm_storeu_si128(out.cast(), lo);
                _mm_storeu_si128(out.add(n_lo).cast(), hi);
            }
        } else {
            // The output may end here, so exactly `n` bytes are written:
            // the two halves are packed in a local buffer first.
            let mut packed = [0u8; 32];
            // SAFETY: stores of 16 bytes at 0 and `n_lo` (at most 8) inside
            // `packed`; then `n <= 16` bytes from it to `out`, inside the
            // 32 writable bytes.
            unsafe {
                _mm_storeu_si128(packed.as_mut_ptr().cast(), lo);
                _mm_storeu_si128(packed.as_mut_ptr().add(n_lo).cast(), hi);
                core::ptr::copy_nonoverlapping(packed.as_ptr(), out, n);
            }
        }
        i += 16 + carry as usize;
        o += n;
    }
    Progress {
        read: i,
        written: o,
    }
}

/// The number of bytes `80..=FF` in `bytes`.
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn count_high(bytes: &[u8]) -> usize {
    let (blocks, tail) = bytes.as_chunks::<32>();
    let mut n = 0;
    for block in blocks {
        // SAFETY: `block` is 32 readable bytes.
        let v = unsafe { _mm256_loadu_si256(block.as_ptr().cast()) };
        n += (_mm256_movemask_epi8(v) as u32).count_ones() as usize;
    }
    n + tail.iter().filter(|&&b| b >= 0x80).count()
}
