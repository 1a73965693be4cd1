//! AVX2 UTF-16 → UTF-8, and the UTF-8 length of UTF-16.
//!
//! (Module documentation: see the end of the session.)

use super::utf16_avx512::Stop;
use core::arch::x86_64::*;

/// `pshufb` indices that pack eight 16-bit lanes, each holding a unit below
/// `800` as its UTF-8 (a 2-byte lane: the continuation byte low, the lead
/// high; an ASCII lane: the character low), to the start: index bit `k` is
/// set if lane `k` is ASCII (byte `2k`), else it gives bytes `2k + 1` and
/// `2k`. The bytes after them are zeros.
const fn pack12_table() -> [[u8; 16]; 256] {
    let mut table = [[0x80u8; 16]; 256];
    let mut index = 0;
    while index < 256 {
        let mut out = 0;
        let mut lane = 0;
        while lane < 8 {
            if index & (1 << lane) != 0 {
                table[index][out] = 2 * lane as u8;
                out += 1;
            } else {
                table[index][out] = 2 * lane as u8 + 1;
                table[index][out + 1] = 2 * lane as u8;
                out += 2;
            }
            lane += 1;
        }
        index += 1;
    }
    table
}

static PACK12: [[u8; 16]; 256] = pack12_table();

/// `pshufb` indices that pack the UTF-8 of four units, each spread over a
/// 32-bit lane (bytes `[a, l, b, m]`, see [`encode16`]), to the start. Bits
/// `2k` and `2k + 1` of the index tell lane `k`'s class: both set, ASCII
/// (byte `a`); `2k + 1` only, a 2-byte character or a low surrogate (`m`,
/// `l`); neither, a 3-byte character (`b`, `m`, `l`); `2k` only, a high
/// surrogate (`b`, `m`). A lane's length is 3 less its set bits.
const fn pack123_table() -> [[u8; 16]; 256] {
    let mut table = [[0x80u8; 16]; 256];
    let mut index = 0;
    while index < 256 {
        let mut out = 0;
        let mut lane = 0;
        while lane < 4 {
            let base = 4 * lane as u8;
            let e = (index >> (2 * lane)) & 1;
            let d = (index >> (2 * lane + 1)) & 1;
            let (bytes, n): ([u8; 3], usize) = match (e, d) {
                (1, 1) => ([0, 0, 0], 1),
                (0, 1) => ([3, 1, 0], 2),
                (0, _) => ([2, 3, 1], 3),
                _ => ([2, 3, 0], 2),
            };
            let mut j = 0;
            while j < n {
                table[index][out] = base + bytes[j];
                out += 1;
                j += 1;
            }
            lane += 1;
        }
        index += 1;
    }
    table
}

static PACK123: [[u8; 16]; 256] = pack123_table();

/// `pshufb` indices swapping the bytes of each 16-bit lane (UTF-16BE).
static SWAP16: [u8; 16] = [1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14];

/// `pshufb` indices copying the low byte of each 16-bit lane to both bytes.
static DUP_LOW: [u8; 16] = [0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12, 12, 14, 14];

/// Output room a block of 16 units needs in the main loop: at most 48
/// bytes, and the don't-care bytes its last store leaves after them (at
/// most 14).
const ROOM: usize = 64;

/// Loads 16 units at `src` in native order (swapping bytes if `BE`).
///
/// # Safety
///
/// 32 bytes at `src` are readable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load16<const BE: bool>(src: *const u8) -> __m256i {
    // SAFETY: the caller's promise.
    let v = unsafe { _mm256_loadu_si256(src.cast()) };
    if BE {
        // SAFETY: `SWAP16` is 16 readable bytes.
        let swap = unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(SWAP16.as_ptr().cast())) };
        _mm256_shuffle_epi8(v, swap)
    } else {
        v
    }
}

/// Loads two 16-byte table rows into the low and high halves of a register.
#[target_feature(enable = "avx2")]
#[inline]
fn rows(lo: &[u8; 16], hi: &[u8; 16]) -> __m256i {
    // SAFETY: both rows are 16 readable bytes.
    unsafe { _mm256_loadu2_m128i(hi.as_ptr().cast(), lo.as_ptr().cast()) }
}

/// Writes the UTF-8 of 16 units below `800` (the lanes of `u`, not all
/// ASCII) at `out`; returns its length (17 to 32 bytes).
///
/// # Safety
///
/// 48 bytes at `out` are writable (two 16-byte stores, the second at most
/// 32 bytes on); the caller overwrites what lies past the output.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn two_byte(u: __m256i, out: *mut u8) -> usize {
    let ascii = _mm256_cmpeq_epi16(
        _mm256_and_si256(u, _mm256_set1_epi16(0xFF80u16 as i16)),
        _mm256_setzero_si256(),
    );
    // Low byte `u`, high byte `u << 2 >> 8 = u >> 6`: then the
    // continuation byte `80 | u & 3F` low and the lead `C0 | u >> 6` high.
    let spread = _mm256_blendv_epi8(
        u,
        _mm256_slli_epi16::<2>(u),
        _mm256_set1_epi16(0xFF00u16 as i16),
    );
    let two = _mm256_or_si256(
        _mm256_and_si256(spread, _mm256_set1_epi16(0x1F3F)),
        _mm256_set1_epi16(0xC080u16 as i16),
    );
    let v = _mm256_blendv_epi8(two, u, ascii);
    // Byte 0: lanes 0–7 ASCII, byte 2: lanes 8–15.
    let m = _mm256_movemask_epi8(_mm256_packs_epi16(ascii, ascii)) as u32;
    let (lo, hi) = (m & 0xFF, (m >> 16) & 0xFF);
    let packed = _mm256_shuffle_epi8(v, rows(&PACK12[lo as usize], &PACK12[hi as usize]));
    let n0 = 16 - lo.count_ones() as usize;
    let n1 = 16 - hi.count_ones() as usize;
    // SAFETY: 16 bytes at `out` and at `out + n0` (at most 16): inside the
    // caller's 48.
    unsafe {
        _mm_storeu_si128(out.cast(), _mm256_castsi256_si128(packed));
        _mm_storeu_si128(out.add(n0).cast(), _mm256_extracti128_si256::<1>(packed));
    }
    n0 + n1
}

/// The UTF-8 of 16 units (`u`), packed in four groups of four units: the
/// groups of units 0–3 and 8–11 in the halves of the first register, 4–7
/// and 12–15 in the second, each from its start, and the class mask (see
/// [`PACK123`]; byte `j` is group `j`'s index), and with `SURR`, the masks
/// of the high and low surrogates (two bits a unit, from `vpmovmskb`).
///
/// Every unit gets bytes `[a, l]` in one 16-bit lane and `[b, m]` in
/// another, interleaved into the 32-bit lane `[a, l, b, m]`:
///
/// * `a = u & 7F` (an ASCII unit's byte), `l = 80 | u & 3F` (the last byte
///   of a 2- or 3-byte character, and of a low surrogate's half);
/// * `b = E0 | u >> 12` and `m = 80 | u >> 6 & 3F` (`C0 | …` for a unit
///   below `800`: its lead), from one `pmaddubsw` of `u >> 4 & FFC`;
/// * a high surrogate `u` (of scalar value `c`) writes the first two bytes
///   of its character, `F0 | c >> 18` and `80 | c >> 12 & 3F`: with
///   `w = u - D7C0 = c >> 10`, these are `b` and `m` computed from `w << 4`
///   instead of `u`, with `F0` for `E0`;
/// * a low surrogate writes the last two, `80 | c >> 6 & 3F` (the high
///   half's two low bits `p` and its own top four) and `l`: its `m` is
///   `80 | 30 | u >> 6 & F` by the rule above; flipping `30 ^ p << 4` makes
///   it right.
///
/// With `SURR`, units 0–15 of `u` may be surrogates (lane 0's `p` is taken
/// as 0), and are written right where each high half is followed by a low
/// one; without, `u` has no surrogates.
#[target_feature(enable = "avx2")]
#[inline]
fn encode16<const SURR: bool>(u: __m256i) -> (__m256i, __m256i, u32, u32, u32) {
    let zero = _mm256_setzero_si256();
    let ascii = _mm256_cmpeq_epi16(
        _mm256_and_si256(u, _mm256_set1_epi16(0xFF80u16 as i16)),
        zero,
    );
    let small = _mm256_cmpeq_epi16(
        _mm256_and_si256(u, _mm256_set1_epi16(0xF800u16 as i16)),
        zero,
    );
    // SAFETY: `DUP_LOW` is 16 readable bytes.
    let dup = unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(DUP_LOW.as_ptr().cast())) };
    // [a, l].
    let al = _mm256_or_si256(
        _mm256_and_si256(_mm256_shuffle_epi8(u, dup), _mm256_set1_epi16(0x3F7F)),
        _mm256_set1_epi16(0x8000u16 as i16),
    );
    let tag = _mm256_and_si256(u, _mm256_set1_epi16(0xFC00u16 as i16));
    let high = _mm256_cmpeq_epi16(tag, _mm256_set1_epi16(0xD800u16 as i16));
    let low = _mm256_cmpeq_epi16(tag, _mm256_set1_epi16(0xDC00u16 as i16));
    let mut s = _mm256_srli_epi16::<4>(u);
    if SURR {
        s = _mm256_blendv_epi8(s, _mm256_sub_epi16(u, _mm256_set1_epi16(0xD7C0u16 as i16)), high);
    }
    let s = _mm256_and_si256(s, _mm256_set1_epi16(0x0FFC));
    // Bytes [x, y] -> y + 64 * x: [u >> 12, u >> 6 & 3F].
    let bm = _mm256_or_si256(
        _mm256_maddubs_epi16(s, _mm256_set1_epi16(0x0140)),
        _mm256_set1_epi16(0xC0E0u16 as i16),
    );
    let mut flip = _mm256_andnot_si256(small, _mm256_set1_epi16(0x4000));
    if SURR {
        // Each unit's predecessor (0 before unit 0).
        let prev = _mm256_alignr_epi8::<14>(u, _mm256_permute2x128_si256::<0x08>(u, u));
        let p = _mm256_andnot_si256(
            _mm256_slli_epi16::<12>(prev),
            _mm256_set1_epi16(0x3000),
        );
        flip = _mm256_xor_si256(
            flip,
            _mm256_or_si256(
                _mm256_and_si256(high, _mm256_set1_epi16(0x0010)),
                _mm256_and_si256(low, p),
            ),
        );
    }
    let bm = _mm256_xor_si256(bm, flip);
    let (e, d) = if SURR {
        (_mm256_or_si256(ascii, high), _mm256_or_si256(small, low))
    } else {
        (ascii, small)
    };
    let mask = _mm256_movemask_epi8(_mm256_blendv_epi8(
        e,
        d,
        _mm256_set1_epi16(0xFF00u16 as i16),
    )) as u32;
    let (h, l) = if SURR {
        (
            _mm256_movemask_epi8(high) as u32,
            _mm256_movemask_epi8(low) as u32,
        )
    } else {
        (0, 0)
    };
    let w0 = _mm256_unpacklo_epi16(al, bm);
    let w1 = _mm256_unpackhi_epi16(al, bm);
    let byte = |j: u32| &PACK123[((mask >> (8 * j)) & 0xFF) as usize];
    let p0 = _mm256_shuffle_epi8(w0, rows(byte(0), byte(2)));
    let p1 = _mm256_shuffle_epi8(w1, rows(byte(1), byte(3)));
    (p0, p1, mask, h, l)
}

/// Stores the four groups of [`encode16`] one after the other at `out`;
/// returns the length of all four (`48 - mask.count_ones()`).
///
/// # Safety
///
/// 64 bytes at `out` are writable (four 16-byte stores, the last at most
/// 36 bytes on).
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn store4(p0: __m256i, p1: __m256i, mask: u32, out: *mut u8) -> usize {
    let n0 = 12 - (mask & 0xFF).count_ones() as usize;
    let n1 = 12 - ((mask >> 8) & 0xFF).count_ones() as usize;
    let n2 = 12 - ((mask >> 16) & 0xFF).count_ones() as usize;
    // SAFETY: the stores end at most 36 + 16 bytes from `out`.
    unsafe {
        _mm_storeu_si128(out.cast(), _mm256_castsi256_si128(p0));
        let out = out.add(n0);
        _mm_storeu_si128(out.cast(), _mm256_castsi256_si128(p1));
        let out = out.add(n1);
        _mm_storeu_si128(out.cast(), _mm256_extracti128_si256::<1>(p0));
        let out = out.add(n2);
        _mm_storeu_si128(out.cast(), _mm256_extracti128_si256::<1>(p1));
    }
    48 - mask.count_ones() as usize
}

/// Copies `n` bytes (at most 48) from `src` to `dst` with a few overlapping
/// loads and stores.
///
/// # Safety
///
/// `src` is readable and `dst` writable for `n` bytes.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn copy_short(src: *const u8, dst: *mut u8, n: usize) {
    debug_assert!(n <= 48);
    // SAFETY: every access lies in `0..n` from its pointer.
    unsafe {
        if n >= 32 {
            let a = _mm256_loadu_si256(src.cast());
            let b = _mm256_loadu_si256(src.add(n - 32).cast());
            _mm256_storeu_si256(dst.cast(), a);
            _mm256_storeu_si256(dst.add(n - 32).cast(), b);
        } else if n >= 16 {
            let a = _mm_loadu_si128(src.cast());
            let b = _mm_loadu_si128(src.add(n - 16).cast());
            _mm_storeu_si128(dst.cast(), a);
            _mm_storeu_si128(dst.add(n - 16).cast(), b);
        } else if n >= 8 {
            let a = src.cast::<u64>().read_unaligned();
            let b = src.add(n - 8).cast::<u64>().read_unaligned();
            dst.cast::<u64>().write_unaligned(a);
            dst.add(n - 8).cast::<u64>().write_unaligned(b);
        } else if n >= 4 {
            let a = src.cast::<u32>().read_unaligned();
            let b = src.add(n - 4).cast::<u32>().read_unaligned();
            dst.cast::<u32>().write_unaligned(a);
            dst.add(n - 4).cast::<u32>().write_unaligned(b);
        } else {
            for k in 0..n {
                *dst.add(k) = *src.add(k);
            }
        }
    }
}

/// The end of the window the scalar kernel converts when the block of 16
/// units at `i` (or up to `len`) has an unpaired surrogate: the block's
/// end, one unit further if a pair straddles it.
///
/// # Safety
///
/// `src` is readable for `2 * len` bytes.
#[cold]
#[inline(never)]
unsafe fn window_end<const BE: bool>(src: *const u8, len: usize, i: usize) -> usize {
    let unit = |k: usize| {
        // SAFETY: the callers below keep `k < len`.
        let b = unsafe { src.add(2 * k).cast::<[u8; 2]>().read_unaligned() };
        if BE {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        }
    };
    let end = (i + 16).min(len);
    if end < len && (0xD800..0xDC00).contains(&unit(end - 1)) && (0xDC00..0xE000).contains(&unit(end))
    {
        end + 1
    } else {
        end
    }
}

/// Converts UTF-16 (little-endian bytes, or big-endian if `BE`; `len` units
/// at `src`) to UTF-8 at `dst` while the output fits, up to the first block
/// of 16 units with an unpaired surrogate (which the scalar kernel converts:
/// `window_end`). Inputs of fewer than 16 units are left to the scalar
/// kernel. Nothing is written past the output it reports.
///
/// `src` must not start with the low half of a pair whose high half is
/// just before it (the scalar windows end at character boundaries).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `src` is valid for reads of `2 * len` bytes.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf16_to_utf8<const BE: bool>(
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
) -> Stop {
    let mut i = 0;
    let mut o = 0;
    let not_ascii = _mm256_set1_epi16(0xFF80u16 as i16);
    let not_small = _mm256_set1_epi16(0xF800u16 as i16);
    // Blocks whose stores may leave don't-care bytes after their output:
    // 16 more units follow, whose output (16 bytes or more) overwrites them.
    // Invariants: `i <= len`, `o <= cap`, `i` not inside a pair.
    while len - i >= 32 && cap - o >= ROOM {
        // SAFETY: units `i..i + 16` are readable.
        let u = unsafe { load16::<BE>(src.add(2 * i)) };
        // SAFETY: `o + ROOM <= cap`.
        let out = unsafe { dst.add(o) };
        if _mm256_testz_si256(u, not_ascii) != 0 {
            let bytes = _mm_packus_epi16(_mm256_castsi256_si128(u), _mm256_extracti128_si256::<1>(u));
            // SAFETY: 16 of the `ROOM` writable bytes.
            unsafe { _mm_storeu_si128(out.cast(), bytes) };
            i += 16;
            o += 16;
            // More ASCII: 32 units a step while they last (each step stores
            // exactly its output).
            while len - i >= 32 && cap - o >= 32 {
                // SAFETY: units `i..i + 32` are readable.
                let (a, b) = unsafe {
                    (
                        load16::<BE>(src.add(2 * i)),
                        load16::<BE>(src.add(2 * i + 32)),
                    )
                };
                if _mm256_testz_si256(_mm256_or_si256(a, b), not_ascii) == 0 {
                    break;
                }
                let bytes = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(a, b));
                // SAFETY: `o + 32 <= cap`.
                unsafe { _mm256_storeu_si256(dst.add(o).cast(), bytes) };
                i += 32;
                o += 32;
            }
            continue;
        }
        if _mm256_testz_si256(u, not_small) != 0 {
            // SAFETY: `ROOM` writable bytes at `out`.
            o += unsafe { two_byte(u, out) };
            i += 16;
            continue;
        }
        let surrogates = _mm256_cmpeq_epi16(
            _mm256_and_si256(u, not_small),
            _mm256_set1_epi16(0xD800u16 as i16),
        );
        if _mm256_testz_si256(surrogates, surrogates) != 0 {
            let (p0, p1, mask, _, _) = encode16::<false>(u);
            // SAFETY: `ROOM` writable bytes at `out`.
            o += unsafe { store4(p0, p1, mask, out) };
            i += 16;
            continue;
        }
        let (p0, p1, mask, h, l) = encode16::<true>(u);
        // Every low half right after a high one, and every high half
        // right before a low one but the last unit's.
        if l != h << 2 {
            // SAFETY: `src` is `2 * len` readable bytes.
            return Stop::new(i, o, Some(unsafe { window_end::<BE>(src, len, i) }));
        }
        // SAFETY: `ROOM` writable bytes at `out`.
        let n = unsafe { store4(p0, p1, mask, out) };
        // A high half last waits for the next block (its 2 bytes, last,
        // are overwritten).
        let last = (h >> 30) as usize & 1;
        i += 16 - last;
        o += n - 2 * last;
    }
    // SAFETY: the caller's promises, and the invariants above.
    unsafe { tail::<BE>(src, len, dst, cap, i, o) }
}

/// The end of [`utf16_to_utf8`] from unit `i` and byte `o` on: blocks of 16
/// units whose output is stored exactly (through a buffer but for ASCII),
/// then the last units, converted as the end of a block of the last 16.
///
/// # Safety
///
/// As [`utf16_to_utf8`]; `i <= len`, `o <= cap`, `i` not inside a pair.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline(never)]
unsafe fn tail<const BE: bool>(
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
    mut i: usize,
    mut o: usize,
) -> Stop {
    let mut buf = [0u8; ROOM];
    while len - i >= 16 {
        // SAFETY: units `i..i + 16` are readable.
        let u = unsafe { load16::<BE>(src.add(2 * i)) };
        if _mm256_testz_si256(u, _mm256_set1_epi16(0xFF80u16 as i16)) != 0 {
            if cap - o < 16 {
                break;
            }
            let bytes = _mm_packus_epi16(_mm256_castsi256_si128(u), _mm256_extracti128_si256::<1>(u));
            // SAFETY: `o + 16 <= cap`.
            unsafe { _mm_storeu_si128(dst.add(o).cast(), bytes) };
            i += 16;
            o += 16;
            continue;
        }
        let (p0, p1, mask, h, l) = encode16::<true>(u);
        if l != h << 2 {
            // SAFETY: `src` is `2 * len` readable bytes.
            return Stop::new(i, o, Some(unsafe { window_end::<BE>(src, len, i) }));
        }
        let last = (h >> 30) as usize & 1;
        let n = 48 - mask.count_ones() as usize - 2 * last;
        if cap - o < n {
            break;
        }
        // SAFETY: `buf` is `ROOM` writable bytes; `n <= 48` of them are
        // copied to `dst + o`, where `o + n <= cap`.
        unsafe {
            store4(p0, p1, mask, buf.as_mut_ptr());
            copy_short(buf.as_ptr(), dst.add(o), n);
        }
        i += 16 - last;
        o += n;
    }
    if i < len && len - i < 16 && len >= 16 {
        // The block of the last 16 units, of which the first `skip` are
        // converted already (their bytes are skipped).
        let start = len - 16;
        let skip = i - start;
        // SAFETY: units `start..len` are readable.
        let u = unsafe { load16::<BE>(src.add(2 * start)) };
        let (p0, p1, mask, h, l) = encode16::<true>(u);
        let live = !0u32 << (2 * skip);
        let h = h & live;
        if l & live != h << 2 || h >> 30 != 0 {
            return Stop::new(i, o, Some(len));
        }
        let before = 3 * skip - (mask & !live).count_ones() as usize;
        let n = 48 - mask.count_ones() as usize - before;
        if cap - o >= n {
            // SAFETY: as above; `before + n <= 48`.
            unsafe {
                store4(p0, p1, mask, buf.as_mut_ptr());
                copy_short(buf.as_ptr().add(before), dst.add(o), n);
            }
            i = len;
            o += n;
        }
    }
    Stop::new(i, o, None)
}

/// The number of UTF-8 bytes the first `read` of `len` UTF-16 units at
/// `src` (little-endian, or big-endian if `BE`) convert to, unpaired
/// surrogates counting 3; returns `(read, bytes)`, and the caller counts
/// the rest with the scalar function. Every unit counts
/// `3 - (< 80) - (< 800)`, and a high surrogate followed by a low one 2
/// less (the pair's 4 bytes, with the low unit's 3), so a pair split
/// between two blocks or the block and the tail counts right. The
/// deductions add up in 16-bit lanes.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `src` is valid for reads of `2 * len` bytes.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn utf8_len_from_utf16<const BE: bool>(
    src: *const u8,
    len: usize,
) -> (usize, usize) {
    let zero = _mm256_setzero_si256();
    let tag = _mm256_set1_epi16(0xFC00u16 as i16);
    let mut i = 0;
    let mut less = 0i64;
    while len - i >= 17 {
        // Each lane loses at most 2 a step: flush before -32768.
        let steps = ((len - i - 1) / 16).min(FLUSH);
        let mut acc = zero;
        for _ in 0..steps {
            // SAFETY: units `i..i + 17` are readable.
            let (v, next) = unsafe {
                (
                    load16::<BE>(src.add(2 * i)),
                    load16::<BE>(src.add(2 * i + 2)),
                )
            };
            // The compares are -1 where true.
            let ascii = _mm256_cmpeq_epi16(
                _mm256_and_si256(v, _mm256_set1_epi16(0xFF80u16 as i16)),
                zero,
            );
            let short = _mm256_cmpeq_epi16(
                _mm256_and_si256(v, _mm256_set1_epi16(0xF800u16 as i16)),
                zero,
            );
            let pair = _mm256_and_si256(
                _mm256_cmpeq_epi16(
                    _mm256_and_si256(v, tag),
                    _mm256_set1_epi16(0xD800u16 as i16),
                ),
                _mm256_cmpeq_epi16(
                    _mm256_and_si256(next, tag),
                    _mm256_set1_epi16(0xDC00u16 as i16),
                ),
            );
            acc = _mm256_add_epi16(
                acc,
                _mm256_add_epi16(_mm256_add_epi16(ascii, short), _mm256_add_epi16(pair, pair)),
            );
            i += 16;
        }
        less += sum_i16(acc);
    }
    // `less` is minus at most 2 per unit, so the sum is not negative.
    (i, (3 * i as i64 + less) as usize)
}

/// Steps of 16 units between two flushes of the 16-bit counters of
/// [`utf8_len_from_utf16`] (each loses at most 2 a step).
const FLUSH: usize = 16_000;

/// The sum of the sixteen signed 16-bit lanes of `v`.
#[target_feature(enable = "avx2")]
#[inline]
fn sum_i16(v: __m256i) -> i64 {
    let s = _mm256_madd_epi16(v, _mm256_set1_epi16(1));
    let s = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
    i64::from(_mm_cvtsi128_si32(s))
}
