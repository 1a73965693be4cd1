//! AVX2 UTF-8 ⇄ UTF-16, and the output lengths of both.
//!
//! # UTF-8 → UTF-16 (input known to be valid)
//!
//! A step looks at 32 bytes. An all-ASCII block widens to 32 units with two
//! `vpmovzxbw`. Otherwise the step converts the characters that start in
//! the first 16 bytes, each decoded *at its lead byte's lane*: the 16 bytes
//! from the block start, from one byte on and from two bytes on are widened
//! to 16-bit lanes, and each lane computes its 1-, 2- and 3-byte value and
//! keeps the one its lead byte asks for. The lead lanes are then packed,
//! eight at a time, by a `pshufb` from a table indexed by their 8-bit mask.
//! A character that starts at byte 15 may end at byte 17: the step then
//! reads those continuation bytes too, so it ends at a character boundary.
//!
//! 4-byte characters are not decoded in lanes: a step stops before the first
//! one, and a step that starts at one converts it (and any right after it)
//! to a surrogate pair with scalar code.
//!
//! The kernel runs while 32 bytes are readable and 32 units of room are
//! left (the widest a step writes with whole-register stores) and leaves
//! the rest to the scalar kernel. Stores past a step's output are
//! overwritten by the output that follows: steps that make them run only
//! while enough input is left (`TAIL8`), so a conversion that
//! succeeds leaves nothing written past its output.
//!
//! # UTF-16 → UTF-8
//!
//! The kernel and the UTF-8 length of UTF-16 are in
//! [`utf16_to_utf8_avx2`](super::utf16_to_utf8_avx2). What stays here is
//! the SSE4.1 kernel's: [`surrogate_block`] (a block with surrogates
//! encoded with scalar code) and [`ROOM8`].

use super::Progress;
use core::arch::x86_64::*;

/// The `pshufb` indices that pack the 16-bit lanes of an 8-lane register
/// whose bit is set in the mask (the index into the table) to its start.
/// The lanes after them get zeros.
const fn pack_table() -> [[u8; 16]; 256] {
    let mut table = [[0x80u8; 16]; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut out = 0;
        let mut lane = 0;
        while lane < 8 {
            if mask & (1 << lane) != 0 {
                table[mask][2 * out] = 2 * lane as u8;
                table[mask][2 * out + 1] = 2 * lane as u8 + 1;
                out += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
}

pub(crate) static PACK: [[u8; 16]; 256] = pack_table();

/// `pshufb` indices swapping the bytes of each 16-bit lane (UTF-16BE).
pub(crate) static SWAP16: [u8; 16] = [1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14];

/// Bytes a step reads and units of room it needs.
const STEP: usize = 32;

/// Input bytes left below which a UTF-8 → UTF-16 step that decodes in
/// lanes is left to the scalar kernel: after it (at most 18 bytes), 30 or
/// more remain, which make at least 10 units, covering the 8 past the
/// step's output its stores may touch.
const TAIL8: usize = 48;

/// Swaps the bytes of every 16-bit lane if `BE`.
#[target_feature(enable = "avx2")]
#[inline]
fn order128<const BE: bool>(v: __m128i) -> __m128i {
    if BE {
        // SAFETY: `SWAP16` is 16 readable bytes.
        let swap = unsafe { _mm_loadu_si128(SWAP16.as_ptr().cast()) };
        _mm_shuffle_epi8(v, swap)
    } else {
        v
    }
}

/// Swaps the bytes of every 16-bit lane if `BE`.
#[target_feature(enable = "avx2")]
#[inline]
fn order256<const BE: bool>(v: __m256i) -> __m256i {
    if BE {
        // SAFETY: `SWAP16` is 16 readable bytes.
        let swap = unsafe { _mm_loadu_si128(SWAP16.as_ptr().cast()) };
        _mm256_shuffle_epi8(v, _mm256_broadcastsi128_si256(swap))
    } else {
        v
    }
}

/// Packs the 16-bit lanes of `v` set in the 8-bit `mask` and stores them
/// (and zeros after them, 16 bytes in all) at `out`; returns how many.
///
/// # Safety
///
/// `out` is valid for writes of 16 bytes.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn pack_store<const BE: bool>(v: __m128i, mask: u32, out: *mut u8) -> usize {
    let index = &PACK[usize::from(mask as u8)];
    // SAFETY: `index` is 16 readable bytes.
    let index = unsafe { _mm_loadu_si128(index.as_ptr().cast()) };
    let packed = order128::<BE>(_mm_shuffle_epi8(v, index));
    // SAFETY: the caller's promise.
    unsafe { _mm_storeu_si128(out.cast(), packed) };
    (mask & 0xFF).count_ones() as usize
}

/// Converts valid UTF-8 to UTF-16 (little-endian bytes, or big-endian if
/// `BE`) at `dst` while a whole step's input and room remain.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `2 * cap` bytes (`cap` units).
///
/// `src` should be valid UTF-8 that ends at a character boundary (else the
/// output is meaningless, but every access stays in bounds).
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf8_to_utf16<const BE: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    let mut i = 0;
    let mut o = 0;
    let p = src.as_ptr();
    // Invariants: `i <= src.len()`, `o <= cap`, `i` at a character boundary.
    while src.len() - i >= STEP && cap - o >= STEP {
        // SAFETY: `i + 32 <= src.len()`: the block is readable.
        let v = unsafe { _mm256_loadu_si256(p.add(i).cast()) };
        // SAFETY: `o + 32 <= cap`: 64 bytes at `out` are writable, which
        // covers every store of the step.
        let out = unsafe { dst.add(2 * o) };
        let high = _mm256_movemask_epi8(v) as u32;
        if high == 0 {
            let lo = _mm256_cvtepu8_epi16(_mm256_castsi256_si128(v));
            let hi = _mm256_cvtepu8_epi16(_mm256_extracti128_si256::<1>(v));
            // SAFETY: 64 writable bytes at `out` (above).
            unsafe {
                _mm256_storeu_si256(out.cast(), order256::<BE>(lo));
                _mm256_storeu_si256(out.add(32).cast(), order256::<BE>(hi));
            }
            i += STEP;
            o += STEP;
            continue;
        }
        // SAFETY: `i + 32 <= src.len()`.
        let Some((value, mask, read)) = (unsafe { decode16(p.add(i), v) }) else {
            // SAFETY: `i + 32 <= src.len()` and `o + 32 <= cap`; the run
            // of 4-byte characters decoded stays in the first 16 bytes
            // plus 3, and writes 2 units for each 4 bytes.
            let (read, written) = unsafe { pairs::<BE>(p.add(i), 16, out) };
            i += read;
            o += written;
            continue;
        };
        // The stores leave up to 8 units of don't-care values past the
        // step's output, which the output of the 30 or more bytes of input
        // after it (at least 10 units) overwrites; nearer the end the scalar
        // kernel takes over, so nothing is left written past the output.
        if src.len() - i < TAIL8 {
            break;
        }
        // SAFETY: at most 16 units at `out` (two stores of 16 bytes, the
        // second at most 8 units on), inside the 64 writable bytes.
        let written = unsafe {
            let n = pack_store::<BE>(_mm256_castsi256_si128(value), mask, out);
            n + pack_store::<BE>(
                _mm256_extracti128_si256::<1>(value),
                mask >> 8,
                out.add(2 * n),
            )
        };
        i += read;
        o += written;
    }
    Progress {
        read: i,
        written: o,
    }
}

/// Decodes the characters that start in the first 16 bytes of the block
/// `v` (32 bytes at `p`, valid UTF-8 from a character boundary), each at
/// its lead byte's 16-bit lane: returns the lanes, the mask of the lanes
/// that hold a character, and the bytes those characters take (16 to 18,
/// or fewer up to the first 4-byte lead). `None` if the block starts with a
/// 4-byte character, which the lanes cannot hold.
///
/// # Safety
///
/// 32 bytes at `p` are readable.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline]
pub(crate) unsafe fn decode16(p: *const u8, v: __m256i) -> Option<(__m256i, u32, usize)> {
    // Leads: bytes other than 80..=BF (as `i8`, greater than -65).
    let leads = _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(-65))) as u32;
    // 4-byte leads: F0..=FF (`max(b, F0) == b`).
    let b0 = _mm256_castsi256_si128(v);
    let fours = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(b0, _mm_set1_epi8(-16)), b0)) as u32;
    let first4 = fours.trailing_zeros() as usize; // 32 if none
    if first4 == 0 {
        return None;
    }
    // Lanes converted: the leads before the first 4-byte lead, or all
    // 16 (and then the bytes 16 and 17 that continue the last one).
    let (mask, read) = if first4 < 16 {
        (leads & ((1 << first4) - 1), first4)
    } else {
        let c = !leads >> 16;
        (
            leads & 0xFFFF,
            16 + (c & 1) as usize + (c & (c >> 1) & 1) as usize,
        )
    };
    // SAFETY: 18 bytes at `p` are readable: so are the 16-byte loads
    // at `p + 1` and `p + 2`.
    let (n1, n2) = unsafe {
        (
            _mm_loadu_si128(p.add(1).cast()),
            _mm_loadu_si128(p.add(2).cast()),
        )
    };
    let w0 = _mm256_cvtepu8_epi16(b0);
    let w1 = _mm256_cvtepu8_epi16(n1);
    let w2 = _mm256_cvtepu8_epi16(n2);
    let low6 = _mm256_set1_epi16(0x3F);
    let t1 = _mm256_and_si256(w1, low6);
    let t2 = _mm256_and_si256(w2, low6);
    // 2 bytes: 110aaaaa 10bbbbbb -> aaaaabbbbbb.
    let two = _mm256_or_si256(
        _mm256_slli_epi16::<6>(_mm256_and_si256(w0, _mm256_set1_epi16(0x1F))),
        t1,
    );
    // 3 bytes: 1110aaaa 10bbbbbb 10cccccc -> aaaabbbbbbcccccc.
    let three = _mm256_or_si256(
        _mm256_or_si256(_mm256_slli_epi16::<12>(w0), _mm256_slli_epi16::<6>(t1)),
        t2,
    );
    let is2 = _mm256_cmpgt_epi16(w0, _mm256_set1_epi16(0xBF));
    let is3 = _mm256_cmpgt_epi16(w0, _mm256_set1_epi16(0xDF));
    let value = _mm256_blendv_epi8(_mm256_blendv_epi8(w0, two, is2), three, is3);
    Some((value, mask, read))
}

/// Converts the run of 4-byte characters at `src` (at most `limit` bytes
/// of leads) to surrogate pairs at `out`; returns bytes read and units
/// written (at least one character: `src` starts with a 4-byte lead).
///
/// # Safety
///
/// `src` is readable for `limit + 3` bytes and `out` writable for
/// `limit / 2` units (rounded up, plus 2).
#[inline(always)]
pub(crate) unsafe fn pairs<const BE: bool>(
    src: *const u8,
    limit: usize,
    out: *mut u8,
) -> (usize, usize) {
    let mut read = 0;
    let mut written = 0;
    // SAFETY: `read < limit` before each character, so its 4 bytes are
    // within `limit + 3`; 2 units per 4 bytes stay within the room.
    unsafe {
        while read < limit && *src.add(read) >= 0xF0 {
            let b = |k: usize| u32::from(*src.add(read + k));
            let cp = ((b(0) & 0x07) << 18)
                | ((b(1) & 0x3F) << 12)
                | ((b(2) & 0x3F) << 6)
                | (b(3) & 0x3F);
            let c = cp.wrapping_sub(0x10000);
            let hi = (0xD800 | ((c >> 10) & 0x3FF)) as u16;
            let lo = (0xDC00 | (c & 0x3FF)) as u16;
            let (hi, lo) = if BE {
                (hi.to_be_bytes(), lo.to_be_bytes())
            } else {
                (hi.to_le_bytes(), lo.to_le_bytes())
            };
            out.add(2 * written).cast::<[u8; 2]>().write_unaligned(hi);
            out.add(2 * written + 2)
                .cast::<[u8; 2]>()
                .write_unaligned(lo);
            read += 4;
            written += 2;
        }
    }
    (read, written)
}

/// Output room a UTF-16 → UTF-8 step needs: 16 units make at most 48
/// bytes, written by four 16-byte stores, the last at most 36 bytes in.
pub(crate) const ROOM8: usize = 64;

/// Encodes the block of 16 units at unit `i` (of `len` at `src`), which
/// holds a surrogate, with scalar code, and the unit after it if the block
/// ends with the high half of a pair: returns the end of what it read and
/// the bytes written (at most 49: 15 3-byte units and a pair). At an
/// unpaired surrogate it writes nothing that counts and returns `Err` with
/// that end, the window the scalar kernel should convert instead.
///
/// # Safety
///
/// Units `i..i + 16` of the `len` at `src` are readable and 64 bytes at
/// `out` are writable.
#[inline(always)]
pub(crate) unsafe fn surrogate_block<const BE: bool>(
    src: *const u8,
    len: usize,
    i: usize,
    out: *mut u8,
) -> Result<(usize, usize), usize> {
    let unit = |k: usize| {
        // SAFETY: the callers below keep `k < len`.
        let b = unsafe { src.add(2 * k).cast::<[u8; 2]>().read_unaligned() };
        if BE {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        }
    };
    let end = i + 16;
    let paired = end < len
        && (0xD800..0xDC00).contains(&unit(end - 1))
        && (0xDC00..0xE000).contains(&unit(end));
    let end = end + usize::from(paired);
    // SAFETY: 64 bytes at `out` are writable (the caller's promise), and
    // nothing else refers to them while `room` lives.
    let room = unsafe { core::slice::from_raw_parts_mut(out, ROOM8) };
    let mut k = i;
    let mut w = 0;
    while k < end {
        let u = unit(k);
        let cp = match u {
            0xD800..=0xDBFF if k + 1 < end => {
                let low = unit(k + 1);
                if !(0xDC00..0xE000).contains(&low) {
                    return Err(end);
                }
                k += 1;
                0x10000 + ((u32::from(u) - 0xD800) << 10) + (u32::from(low) - 0xDC00)
            }
            0xD800..=0xDFFF => return Err(end),
            _ => u32::from(u),
        };
        w += crate::transcode::step::put_utf8(room, w, cp);
        k += 1;
    }
    Ok((end, w))
}

/// The number of UTF-16 units `bytes` converts to if valid, as the scalar
/// [`utf16_len_from_utf8`](crate::transcode::utf16_len_from_utf8) counts
/// it: one per byte that is not a continuation byte, one more per byte
/// `F0..=FF`.
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn utf16_len_from_utf8(bytes: &[u8]) -> usize {
    let (blocks, tail) = bytes.as_chunks::<32>();
    let mut n = 0;
    for block in blocks {
        // SAFETY: `block` is 32 readable bytes.
        let v = unsafe { _mm256_loadu_si256(block.as_ptr().cast()) };
        let leads = _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(-65))) as u32;
        let four = _mm256_movemask_epi8(_mm256_cmpeq_epi8(
            _mm256_max_epu8(v, _mm256_set1_epi8(0xF0u8 as i8)),
            v,
        )) as u32;
        n += (leads.count_ones() + four.count_ones()) as usize;
    }
    n + crate::transcode::utf16_len_from_utf8(tail)
}
