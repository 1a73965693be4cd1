//! AVX-512 UTF-8 → UTF-16 of ASCII: the leading ASCII of an input, which
//! both UTF-8 → UTF-16 kernels (the fused one that validates, and the one
//! for input known valid) widen before anything else, so that ASCII input
//! never loads their constants.
//!
//! Two blocks per step while both are ASCII, then one; outputs of 512
//! bytes and more first align the output for the stores ([`ALIGN_MIN`]),
//! and inputs past the caches store with non-temporal stores
//! ([`ascii_stream`]).

use super::utf16_avx512::{order16, store_units};
use core::arch::x86_64::*;

/// Inputs and outputs of at least this many bytes and units (an output of
/// 16 MiB and more, past the caches) widen their leading ASCII with
/// aligned non-temporal stores ([`ascii_stream`]).
pub(crate) const STREAM_MIN: usize = 8 << 20;

/// Inputs at least this long (and shorter than [`STREAM_MIN`]) first align
/// the output for the ASCII stores.
pub(crate) const ALIGN_MIN: usize = 512;

/// Widens `src` to `dst` if it is all ASCII, in one straight line (a
/// masked load, a test, two masked stores, no register saved); returns
/// whether it did. The one-block ASCII path of both UTF-8 → UTF-16
/// kernels.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `src.len() <= 64`, and `dst` is valid for writes of `2 * src.len()`
///   bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
pub(crate) unsafe fn widen_if_ascii<const BE: bool>(src: &[u8], dst: *mut u8) -> bool {
    let len = src.len();
    let lanes = _bzhi_u64(u64::MAX, len as u32);
    // SAFETY: `lanes` enables only the `len <= 64` bytes of `src`;
    // masked-off lanes are not read.
    let v = unsafe { _mm512_maskz_loadu_epi8(lanes, src.as_ptr().cast()) };
    if _mm512_movepi8_mask(v) != 0 {
        return false;
    }
    // SAFETY: `len` units at `dst` are writable (the caller's contract).
    unsafe { widen::<BE, true>(v, dst, len) };
    true
}

/// Widens the ASCII prefix of `src` to `dst`, in whole blocks as far as
/// the room allows; returns how many bytes (and units) it widened. A
/// first masked step may align the output ([`ALIGN_MIN`]).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `2 * cap` bytes (`cap` units).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
pub(crate) unsafe fn ascii_prefix<const BE: bool>(src: &[u8], dst: *mut u8, cap: usize) -> usize {
    let len = src.len();
    let ptr = src.as_ptr();
    let mut i = 0;
    // Units widened to align the output (see the end).
    let mut aligned = 0;
    // Invariant: `src[..i]` is ASCII, widened to `i <= cap` units.
    if len >= STREAM_MIN && cap >= STREAM_MIN {
        // SAFETY: as this function's contract.
        i = unsafe { ascii_stream::<BE>(src, dst, cap) };
    } else if len >= ALIGN_MIN {
        // Units up to the output's next 64-byte boundary, so that the
        // 64-byte stores of the ASCII blocks after them each fill one
        // cache line rather than straddle two.
        let head = (64 - dst as usize % 64) % 64 / 2;
        if head > 0 && head <= cap {
            let lanes = _bzhi_u64(u64::MAX, head as u32);
            // SAFETY: `head < 32 < len`: the mask enables readable bytes
            // only.
            let v = unsafe { _mm512_maskz_loadu_epi8(lanes, ptr.cast()) };
            if _mm512_movepi8_mask(v) == 0 {
                // SAFETY: `head <= cap` units at `dst` are writable.
                unsafe { widen::<BE, true>(v, dst, head) };
                i = head;
                aligned = head;
            }
        }
    }
    // Two blocks per step, then one.
    while len - i >= 128 && cap - i >= 128 {
        // SAFETY: `i + 128 <= len`: both blocks are readable.
        let (a, b) = unsafe {
            (
                _mm512_loadu_si512(ptr.add(i).cast()),
                _mm512_loadu_si512(ptr.add(i + 64).cast()),
            )
        };
        if _mm512_movepi8_mask(_mm512_or_si512(a, b)) != 0 {
            break;
        }
        // SAFETY: `i + 128 <= cap`: the 128 units at `dst + 2 * i` are
        // writable.
        unsafe {
            widen::<BE, false>(a, dst.add(2 * i), 64);
            widen::<BE, false>(b, dst.add(2 * i + 128), 64);
        }
        i += 128;
    }
    while len - i >= 64 && cap - i >= 64 {
        // SAFETY: `i + 64 <= len`: the block is readable.
        let v = unsafe { _mm512_loadu_si512(ptr.add(i).cast()) };
        if _mm512_movepi8_mask(v) != 0 {
            break;
        }
        // SAFETY: `i + 64 <= cap`: the 64 units at `dst + 2 * i` are
        // writable.
        unsafe { widen::<BE, false>(v, dst.add(2 * i), 64) };
        i += 64;
    }
    if len - i >= 64 && cap - i >= 64 {
        // Stopped at a block that is not ASCII: hand over at the input's
        // own 64-byte phase, as if the output had not been aligned (the
        // last `aligned` bytes are widened again), so that the loads of
        // the mixed blocks split no more cache lines than from the start.
        // (Without it, Russian and `sparse` at 1 KiB lost 7–10 % to the
        // alignment; Intel Xeon with AVX-512 FP16, 2026-11-28.)
        i -= aligned;
    }
    i
}

/// Widens the ASCII prefix of `src` to `dst` with non-temporal stores to
/// whole cache lines, as far as it goes in whole 64-byte blocks (after a
/// first masked step up to the output's next 64-byte boundary); returns
/// how many bytes it widened.
///
/// Non-temporal stores write each line to memory without first reading it
/// into the cache (as an ordinary store that misses must), which halves
/// the memory traffic of an output that will not stay in cache anyway.
///
/// # Safety
///
/// * The CPU has AVX-512F and BW.
/// * `dst` is valid for writes of `2 * cap` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline(never)]
unsafe fn ascii_stream<const BE: bool>(src: &[u8], dst: *mut u8, cap: usize) -> usize {
    let len = src.len();
    let ptr = src.as_ptr();
    // Units up to the output's next 64-byte boundary (a `u16` output is
    // 2-byte aligned, so this is exact there; an odd `dst` never aligns
    // and keeps to the ordinary stores).
    let head = (64 - dst as usize % 64) % 64;
    if !head.is_multiple_of(2) {
        return 0;
    }
    let head = head / 2;
    let mut i = 0;
    if head > 0 {
        if head > len.min(cap) {
            return 0;
        }
        let lanes = _bzhi_u64(u64::MAX, head as u32);
        // SAFETY: `head <= len`: the mask enables readable bytes only.
        let v = unsafe { _mm512_maskz_loadu_epi8(lanes, ptr.cast()) };
        if _mm512_movepi8_mask(v) != 0 {
            return 0;
        }
        // SAFETY: `head <= cap` units at `dst` are writable.
        unsafe { widen::<BE, true>(v, dst, head) };
        i = head;
    }
    while len - i >= 64 && cap - i >= 64 {
        // SAFETY: `i + 64 <= len`: the block is readable.
        let v = unsafe { _mm512_loadu_si512(ptr.add(i).cast()) };
        if _mm512_movepi8_mask(v) != 0 {
            break;
        }
        let lo = order16::<BE>(_mm512_cvtepu8_epi16(_mm512_castsi512_si256(v)));
        let hi = order16::<BE>(_mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(v)));
        // SAFETY: `i + 64 <= cap`: the 128 bytes at `dst + 2 * i` are
        // writable, and 64-byte aligned (`dst + 2 * head` is, and each
        // step moves 128 bytes), as `vmovntdq` needs.
        unsafe {
            let out = dst.add(2 * i).cast::<__m512i>();
            _mm512_stream_si512(out, lo);
            _mm512_stream_si512(out.add(1), hi);
        }
        i += 64;
    }
    // Order the non-temporal stores before any later store and the
    // caller's reads of the output.
    _mm_sfence();
    i
}

/// Widens the first `n` (all 64 unless `MASKED`) ASCII bytes of `v` to
/// units at `out`.
///
/// # Safety
///
/// * `2 * n` bytes at `out` are writable, 128 if not `MASKED`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2")]
#[inline]
pub(crate) unsafe fn widen<const BE: bool, const MASKED: bool>(v: __m512i, out: *mut u8, n: usize) {
    let lo = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(v));
    let hi = _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(v));
    // SAFETY: the stores write units `0..min(n, 32)` and `32..n` (all 64
    // without `MASKED`), which the caller makes writable.
    unsafe {
        store_units::<BE, MASKED>(out, lo, n.min(32));
        store_units::<BE, MASKED>(out.add(64), hi, n.saturating_sub(32));
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    /// `ascii_stream` at every output alignment, with the input ending at
    /// each kind of place (whole blocks, a partial block, a non-ASCII
    /// byte): it widens exactly the ASCII prefix's whole blocks after the
    /// aligning head and writes nothing past that. (The full kernel past
    /// [`STREAM_MIN`] is checked against std by the integration test
    /// `large_ascii_outputs_at_several_alignments`.)
    #[test]
    fn ascii_stream_every_alignment() {
        if !super::super::avx512_transcode() {
            return;
        }
        let ascii: Vec<u8> = (0..1000u32).map(|k| b' ' + (k % 90) as u8).collect();
        for len in [0, 1, 31, 32, 63, 64, 65, 95, 96, 200, 511, 1000] {
            for bad in [None, Some(0), Some(5), Some(40), Some(100), Some(300)] {
                let mut src = ascii[..len].to_vec();
                if let Some(b) = bad.filter(|&b| b < len) {
                    src[b] = 0xC3;
                }
                let prefix = src.iter().position(|&b| b >= 0x80).unwrap_or(len);
                for cap in [len, len / 2, 40] {
                    for shift in 0..32 {
                        let mut buf = vec![0xEEEEu16; cap + 64 + 1];
                        let dst = buf[shift..].as_mut_ptr().cast::<u8>();
                        // SAFETY: the features were detected; `cap` units
                        // from `shift` are inside `buf`.
                        let n = unsafe { ascii_stream::<false>(&src, dst, cap) };
                        let head = (64 - dst as usize % 64) % 64 / 2;
                        let expect = if head > prefix.min(cap) {
                            0
                        } else {
                            head + (prefix.min(cap) - head) / 64 * 64
                        };
                        assert_eq!(n, expect, "len {len} bad {bad:?} cap {cap} shift {shift}");
                        for (k, &u) in buf[shift..shift + n].iter().enumerate() {
                            assert_eq!(u, u16::from(src[k]));
                        }
                        assert!(buf[..shift].iter().all(|&u| u == 0xEEEE));
                        assert!(buf[shift + n..].iter().all(|&u| u == 0xEEEE));
                        // Big-endian units are the same bytes swapped.
                        buf.fill(0xEEEE);
                        let dst = buf[shift..].as_mut_ptr().cast::<u8>();
                        // SAFETY: as above (the same buffer).
                        let m = unsafe { ascii_stream::<true>(&src, dst, cap) };
                        assert_eq!(m, n);
                        assert!(buf[shift + n..].iter().all(|&u| u == 0xEEEE));
                        for (k, &u) in buf[shift..shift + n].iter().enumerate() {
                            assert_eq!(u, u16::from(src[k]).swap_bytes());
                        }
                    }
                }
            }
        }
    }
}
