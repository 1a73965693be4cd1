//! SSE4.1 Latin-1 ⇄ UTF-8, and the UTF-8 length of Latin-1 (the Latin-1
//! length of UTF-8 is the character count of `count.rs`), for the CPUs
//! before AVX2 and BMI: 128-bit registers, `pshufb` (SSSE3), `pblendvb`
//! and `pmovzxbw` (SSE4.1) and `popcnt`, nothing else.
//!
//! They pack with the tables [`WIDEN`] (in `simd/mod.rs`) and [`KEEP`]
//! (from [`super::latin1_avx2`], whose steps have since moved on: they
//! widen to `[lead, byte]` lanes with a table of their own).
//!
//! # Latin-1 → UTF-8
//!
//! 16 bytes a step. An all-ASCII block is copied (64 bytes a step while
//! they are all ASCII). Otherwise each half of 8
//! bytes is widened to 16-bit lanes (`pmovzxbw`, `punpckhbw`), each lane
//! gets its byte's UTF-8 encoding from its low byte on (`b`, or the lead
//! `C0 | b >> 6` and the continuation `80 | b & 3F`, chosen by `pblendvb`),
//! and a `pshufb` from [`WIDEN`], indexed by the half's high-bit mask, packs
//! one byte per ASCII lane and two per other lane: 8 bytes make 8 to 16.
//! The two halves are stored one after the other, 16 bytes each.
//!
//! # UTF-8 → Latin-1 (validating)
//!
//! 16 bytes a step. An all-ASCII block is copied (64 bytes a step while
//! they are all ASCII). Otherwise the step converts its block in registers
//! only if its non-ASCII bytes are exactly `C2`/`C3` leads and continuation
//! bytes, and the continuations are exactly the bytes after a lead (a
//! comparison of two masks, the leads shifted by one with the previous
//! block's last lead bit coming in). Each character is written *at its
//! continuation byte's lane*, `(lead & 3) << 6 | next & 3F`, with the lead
//! the byte before it (`palignr` with the previous block), and a `pshufb`
//! per half from [`KEEP`] drops the lead lanes. So a step always moves 16
//! bytes on, whatever it holds: the next load does not wait for this
//! step's masks. A lead at byte 15 is written by the next step (or left to
//! the scalar kernel with the bytes after it, at the end).
//!
//! Anything else is an error for Latin-1 (or a character it cannot hold):
//! the kernel stops at the step's start (before a lead that ended the step
//! before), a character boundary, and the scalar kernel finds and reports
//! the first problem from there.
//!
//! # Room
//!
//! A step needs 16 bytes of input and 16 bytes of room (32 for Latin-1 →
//! UTF-8 past an ASCII block); the rest is
//! left to the scalar kernels. Nothing is left written past the output:
//! each half's store spills zeros past the half's output, which the output
//! of the input that follows overwrites; a step with too little input after
//! it to be sure of that packs its halves in a local buffer and copies
//! exactly its output.

use super::Progress;
use super::WIDEN;
use super::latin1_avx2::KEEP;
use core::arch::x86_64::*;

/// Bytes of input a step converts (one register).
const STEP: usize = 16;

/// Latin-1 → UTF-8: input bytes left from which a step stores whole
/// registers. A step's stores reach at most 8 bytes past its output (the
/// second half's 16-byte store holds 8 to 16 bytes of output), and the 8
/// or more bytes of input after the step make at least 8 bytes of output.
const WIDEN_TAIL: usize = STEP + 8;

/// UTF-8 → Latin-1: input bytes left from which a step stores whole
/// registers. A step's stores (8 bytes each, the second half's holding 4 to
/// 8 bytes of output) reach at most 4 bytes past its output, and the 8 or
/// more bytes of input after the step make at least 4 bytes of output if
/// the conversion succeeds.
const KEEP_TAIL: usize = STEP + 8;

/// The 16-byte row `mask` (its low 8 bits) of `table`.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn row(table: &[[u8; 16]; 256], mask: u32) -> __m128i {
    // SAFETY: a row is 16 readable bytes.
    unsafe { _mm_loadu_si128(table[usize::from(mask as u8)].as_ptr().cast()) }
}

/// The UTF-8 encodings of the eight values below `800` in the 16-bit lanes
/// of `u` (bytes zero-extended, here; UTF-32 values, for
/// [`super::utf32_sse41`]), each from its lane's low byte on, packed by the
/// 8-bit mask `high` of the lanes above `7F`.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
pub(crate) fn widen8(u: __m128i, high: u32) -> __m128i {
    let two = _mm_or_si128(
        _mm_or_si128(_mm_srli_epi16::<6>(u), _mm_set1_epi16(0xC0)),
        _mm_slli_epi16::<8>(_mm_or_si128(
            _mm_and_si128(u, _mm_set1_epi16(0x3F)),
            _mm_set1_epi16(0x80),
        )),
    );
    let lanes = _mm_blendv_epi8(u, two, _mm_cmpgt_epi16(u, _mm_set1_epi16(0x7F)));
    _mm_shuffle_epi8(lanes, row(&WIDEN.0, high))
}

/// Copies the ASCII text at `src[i..]` to `dst + o`, 64 bytes a step while
/// they are all ASCII and 64 bytes of room remain; returns the new `i` and
/// `o`.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes; `i <= src.len()`, `o <= cap`.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
unsafe fn copy_ascii64(
    src: &[u8],
    mut i: usize,
    dst: *mut u8,
    cap: usize,
    mut o: usize,
) -> (usize, usize) {
    while src.len() - i >= 4 * STEP && cap - o >= 4 * STEP {
        // SAFETY: `i + 64 <= src.len()` and `o + 64 <= cap`.
        unsafe {
            let q = src.as_ptr().add(i);
            let w = [0, 1, 2, 3].map(|k| _mm_loadu_si128(q.add(16 * k).cast()));
            let any = _mm_or_si128(_mm_or_si128(w[0], w[1]), _mm_or_si128(w[2], w[3]));
            if _mm_movemask_epi8(any) != 0 {
                break;
            }
            for (k, x) in w.into_iter().enumerate() {
                _mm_storeu_si128(dst.add(o + 16 * k).cast(), x);
            }
        }
        i += 4 * STEP;
        o += 4 * STEP;
    }
    (i, o)
}

/// Converts Latin-1 `src` to UTF-8 at `dst` while a step's input and room
/// remain (see the module docs).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
pub(crate) unsafe fn latin1_to_utf8(src: &[u8], dst: *mut u8, cap: usize) -> Progress {
    let mut i = 0;
    let mut o = 0;
    let p = src.as_ptr();
    // Invariants: `i <= src.len()`, `o <= cap`.
    while src.len() - i >= STEP && cap - o >= STEP {
        // SAFETY: `i + 16 <= src.len()`.
        let v = unsafe { _mm_loadu_si128(p.add(i).cast()) };
        // SAFETY: `o + 16 <= cap`: 16 writable bytes at `out`.
        let out = unsafe { dst.add(o) };
        let high = _mm_movemask_epi8(v) as u32;
        if high == 0 {
            // SAFETY: 16 writable bytes at `out`.
            unsafe { _mm_storeu_si128(out.cast(), v) };
            i += STEP;
            o += STEP;
            // SAFETY: `src` and `dst` as the caller promised.
            let (read, written) = unsafe { copy_ascii64(src, i, dst, cap, o) };
            i = read;
            o = written;
            continue;
        }
        if cap - o < 2 * STEP {
            break;
        }
        let lo = widen8(_mm_cvtepu8_epi16(v), high);
        let hi = widen8(_mm_unpackhi_epi8(v, _mm_setzero_si128()), high >> 8);
        let n_lo = 8 + (high & 0xFF).count_ones() as usize;
        let n = 16 + high.count_ones() as usize;
        if src.len() - i >= WIDEN_TAIL {
            // SAFETY: stores of 16 bytes at `out` and `out + n_lo` (at most
            // 16): inside the 32 writable bytes (`cap - o >= 32`).
            unsafe {
                _mm_storeu_si128(out.cast(), lo);
                _mm_storeu_si128(out.add(n_lo).cast(), hi);
            }
        } else {
            // The output may end here: exactly `n` bytes are written.
            let mut packed = [0u8; 32];
            // SAFETY: stores of 16 bytes at 0 and `n_lo` (at most 16)
            // inside `packed`; then `n <= 32` bytes from it to `out`,
            // inside the 32 writable bytes.
            unsafe {
                _mm_storeu_si128(packed.as_mut_ptr().cast(), lo);
                _mm_storeu_si128(packed.as_mut_ptr().add(n_lo).cast(), hi);
                core::ptr::copy_nonoverlapping(packed.as_ptr(), out, n);
            }
        }
        i += STEP;
        o += n;
    }
    Progress {
        read: i,
        written: o,
    }
}

/// Converts UTF-8 `src` to Latin-1 at `dst` while its steps take the fast
/// path (see the module docs) and a step's input and room remain; stops at
/// a character boundary before the first step that does not.
///
/// Input known to be UTF-8 takes the same path: the fast path's test is as
/// cheap as it gets.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
pub(crate) unsafe fn utf8_to_latin1(src: &[u8], dst: *mut u8, cap: usize) -> Progress {
    let mut i = 0;
    let mut o = 0;
    let p = src.as_ptr();
    // The previous block, and whether it ended with a lead (whose character
    // this step completes and writes).
    let mut prev = _mm_setzero_si128();
    let mut carry = 0;
    // Invariants: `i <= src.len()`, `o <= cap`, `i - carry` at a character
    // boundary, and everything before it converted.
    while src.len() - i >= STEP && cap - o >= STEP {
        // SAFETY: `i + 16 <= src.len()`.
        let v = unsafe { _mm_loadu_si128(p.add(i).cast()) };
        // SAFETY: `o + 16 <= cap`: 16 writable bytes at `out`.
        let out = unsafe { dst.add(o) };
        let high = _mm_movemask_epi8(v) as u32;
        if high == 0 {
            if carry != 0 {
                break;
            }
            // SAFETY: 16 writable bytes at `out`.
            unsafe { _mm_storeu_si128(out.cast(), v) };
            i += STEP;
            o += STEP;
            // SAFETY: `src` and `dst` as the caller promised.
            let (read, written) = unsafe { copy_ascii64(src, i, dst, cap, o) };
            i = read;
            o = written;
            prev = _mm_setzero_si128();
            continue;
        }
        // Leads C2/C3 and continuations 80..=BF.
        let leads = _mm_movemask_epi8(_mm_cmpeq_epi8(
            _mm_and_si128(v, _mm_set1_epi8(0xFEu8 as i8)),
            _mm_set1_epi8(0xC2u8 as i8),
        )) as u32;
        let cont_v = _mm_cmpeq_epi8(
            _mm_and_si128(v, _mm_set1_epi8(0xC0u8 as i8)),
            _mm_set1_epi8(0x80u8 as i8),
        );
        let conts = _mm_movemask_epi8(cont_v) as u32;
        // Every high byte a lead or a continuation, and the continuations
        // exactly the bytes after a lead (the first one after the previous
        // block's last byte; a lead at byte 15 is checked by the next step).
        if high & !(leads | conts) != 0 || conts != ((leads << 1) | carry) & 0xFFFF {
            break;
        }
        // The byte before each: the lead of each continuation.
        let before = _mm_alignr_epi8::<15>(v, prev);
        let latin = _mm_or_si128(
            _mm_and_si128(v, _mm_set1_epi8(0x3F)),
            _mm_slli_epi16::<6>(_mm_and_si128(before, _mm_set1_epi8(0x03))),
        );
        let bytes = _mm_blendv_epi8(v, latin, cont_v);
        // Drop the leads: each character is written at its continuation.
        let keep = !leads & 0xFFFF;
        let n_lo = (keep & 0xFF).count_ones() as usize;
        let n = keep.count_ones() as usize;
        let lo = _mm_shuffle_epi8(bytes, row(&KEEP.0, keep));
        let hi = _mm_shuffle_epi8(_mm_srli_si128::<8>(bytes), row(&KEEP.0, keep >> 8));
        if src.len() - i >= KEEP_TAIL {
            // SAFETY: stores of 8 bytes at `out` and `out + n_lo` (at most
            // 8): inside the 16 writable bytes.
            unsafe {
                _mm_storel_epi64(out.cast(), lo);
                _mm_storel_epi64(out.add(n_lo).cast(), hi);
            }
        } else {
            // The output may end here: exactly `n` bytes are written.
            let mut packed = [0u8; 16];
            // SAFETY: stores of 8 bytes at 0 and `n_lo` (at most 8) inside
            // `packed`; then `n <= 16` bytes from it to `out`, inside the
            // 16 writable bytes.
            unsafe {
                _mm_storel_epi64(packed.as_mut_ptr().cast(), lo);
                _mm_storel_epi64(packed.as_mut_ptr().add(n_lo).cast(), hi);
                core::ptr::copy_nonoverlapping(packed.as_ptr(), out, n);
            }
        }
        prev = v;
        carry = leads >> 15;
        i += STEP;
        o += n;
    }
    // A lead at the end of the last step is left to the scalar kernel (its
    // character is not written yet).
    Progress {
        read: i - carry as usize,
        written: o,
    }
}

/// The number of bytes `80..=FF` in `bytes`.
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
pub(crate) unsafe fn count_high(bytes: &[u8]) -> usize {
    let (blocks, tail) = bytes.as_chunks::<64>();
    let mut n = 0;
    for block in blocks {
        let p = block.as_ptr();
        // SAFETY: `block` is 64 readable bytes.
        let mask = unsafe {
            let m = |k: usize| _mm_movemask_epi8(_mm_loadu_si128(p.add(16 * k).cast())) as u16;
            u64::from(m(0)) | u64::from(m(1)) << 16 | u64::from(m(2)) << 32 | u64::from(m(3)) << 48
        };
        n += mask.count_ones() as usize;
    }
    let (blocks, tail) = tail.as_chunks::<16>();
    for block in blocks {
        // SAFETY: `block` is 16 readable bytes.
        let v = unsafe { _mm_loadu_si128(block.as_ptr().cast()) };
        n += (_mm_movemask_epi8(v) as u32).count_ones() as usize;
    }
    n + tail.iter().filter(|&&b| b >= 0x80).count()
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use std::string::String;
    use std::vec;
    use std::vec::Vec;

    /// Latin-1 → UTF-8 by the kernel, finished (as the wrapper does with
    /// the scalar kernel) with std's output from where it stopped; checks
    /// the output against std and that nothing is left written past it.
    fn widen(src: &[u8], extra: usize) -> Progress {
        let want: String = src.iter().map(|&b| char::from(b)).collect();
        let want = want.as_bytes();
        let mut out = vec![0xA5u8; want.len() + extra];
        // SAFETY: the features were checked; `out` is `out.len()` bytes.
        let p = unsafe { latin1_to_utf8(src, out.as_mut_ptr(), out.len()) };
        assert!(p.read <= src.len() && p.written <= want.len());
        let done: String = src[..p.read].iter().map(|&b| char::from(b)).collect();
        assert_eq!(p.written, done.len(), "{src:02X?}");
        out[p.written..want.len()].copy_from_slice(&want[p.written..]);
        assert_eq!(&out[..want.len()], want, "{src:02X?}");
        assert!(out[want.len()..].iter().all(|&b| b == 0xA5), "{src:02X?}");
        p
    }

    #[test]
    fn latin1_every_byte_kind_at_every_lane() {
        if !super::super::sse41_transcode() {
            return;
        }
        for len in [16, 17, 23, 24, 25, 31, 32, 40, 48, 64, 65, 96, 130] {
            for at in 0..len {
                for b in [0x00, 0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xE9, 0xFF] {
                    let mut src = vec![b'a'; len];
                    src[at] = b;
                    for extra in [0, 1, 40] {
                        let p = widen(&src, extra);
                        // Room for the whole output lets the kernel run to
                        // the last whole step.
                        if extra == 40 {
                            assert!(src.len() - p.read < STEP, "{len} {at} {b:02X}");
                        }
                    }
                    let high = vec![0xE9u8; len];
                    let mut src = high.clone();
                    src[at] = b;
                    widen(&src, 0);
                    widen(&src, 40);
                }
            }
        }
    }

    /// UTF-8 → Latin-1 by the kernel: checks the output against the
    /// character boundary it stopped at; if the whole input converts,
    /// finishes it with the expected output from there (as the wrapper
    /// does with the scalar kernel) and checks that nothing is left
    /// written past it.
    fn narrow(src: &[u8], extra: usize) -> Progress {
        let cap = src.len() + extra;
        let mut out = vec![0xA5u8; cap];
        // SAFETY: the features were checked; `out` is `cap` bytes.
        let p = unsafe { utf8_to_latin1(src, out.as_mut_ptr(), cap) };
        let done = core::str::from_utf8(&src[..p.read]).expect("stops at a boundary of valid text");
        let want: Vec<u8> = done.chars().map(|c| u32::from(c) as u8).collect();
        assert!(done.chars().all(|c| u32::from(c) < 0x100));
        assert_eq!(&out[..p.written], &want[..], "{src:02X?}");
        if let Ok(all) = core::str::from_utf8(src)
            && all.chars().all(|c| u32::from(c) < 0x100)
        {
            let want: Vec<u8> = all.chars().map(|c| u32::from(c) as u8).collect();
            out[p.written..want.len()].copy_from_slice(&want[p.written..]);
            assert!(out[want.len()..].iter().all(|&b| b == 0xA5), "{src:02X?}");
        }
        p
    }

    #[test]
    fn utf8_every_char_kind_and_problem_at_every_offset() {
        if !super::super::sse41_transcode() {
            return;
        }
        let kinds: [&[u8]; 10] = [
            b"a",
            "é".as_bytes(),
            "\u{80}".as_bytes(),
            "ÿ".as_bytes(),
            "Ā".as_bytes(),
            "€".as_bytes(),
            "😀".as_bytes(),
            b"\xC3",
            b"\x80",
            b"\xC0\x80",
        ];
        for len in [16, 17, 24, 25, 26, 32, 33, 48, 64, 100] {
            for at in 0..len {
                for kind in kinds {
                    for fill in ["a", "é"] {
                        let mut src = Vec::new();
                        while src.len() < at {
                            src.extend_from_slice(fill.as_bytes());
                        }
                        src.truncate(at);
                        // A cut "é" leaves a lead: repair it with an "a".
                        if src.last().is_some_and(|&b| b == 0xC3) {
                            src.pop();
                            src.push(b'a');
                        }
                        src.extend_from_slice(kind);
                        while src.len() < len {
                            src.push(b'z');
                        }
                        let ok = core::str::from_utf8(&src)
                            .is_ok_and(|s| s.chars().all(|c| u32::from(c) < 0x100));
                        for extra in [0, 3] {
                            let p = narrow(&src, extra);
                            if ok {
                                assert!(src.len() - p.read <= STEP, "{src:02X?}");
                            } else {
                                assert!(p.read <= at, "{src:02X?}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn count_high_matches_a_filter() {
        if !super::super::sse41_transcode() {
            return;
        }
        let bytes: Vec<u8> = (0..300u32).map(|k| (k * 97 % 256) as u8).collect();
        for start in 0..70 {
            for end in start..bytes.len() {
                let s = &bytes[start..end];
                // SAFETY: the features were checked.
                let n = unsafe { count_high(s) };
                assert_eq!(n, s.iter().filter(|&&b| b >= 0x80).count());
            }
        }
    }
}
