//! AVX-512 UTF-8 ⇄ UTF-16 (and the code-point step UTF-8 → UTF-32 shares).
//!
//! # UTF-8 → UTF-16 (input known to be valid)
//!
//! 64 bytes per step. An all-ASCII block widens to 64 units. Otherwise the
//! block ends before its last lead byte (that character may continue in the
//! next block; in valid UTF-8 there is a lead among any 4 bytes, so a step
//! advances at least 61 bytes), and each character is decoded *at its lead
//! byte's lane* from the lane and the 1–3 lanes after it (the block shifted
//! by `vpermb`); the results at lead lanes are then packed with a compress:
//!
//! * no 4-byte character: 16-bit lanes, two halves of 32 bytes, one
//!   `vpcompressw` each;
//! * else: 32-bit lanes, four quarters of 16 bytes; a supplementary code
//!   point becomes a surrogate pair in its 32-bit lane, and one
//!   `vpcompressw` keeps the low unit of every lead lane and the high unit of
//!   the 4-byte ones.
//!
//! # UTF-16 → UTF-8
//!
//! 32 units per step. All-ASCII blocks narrow with `vpmovwb`. Otherwise each
//! half of 16 units is widened to 32-bit lanes, each lane gets a class
//! (0: the low half of a pair, 1–4: UTF-8 length), `vpmultishiftqb` lays out
//! the bits of a 4-byte encoding (`cp >> 18, cp >> 12, cp >> 6, cp`), a
//! per-class AND/OR finishes the bytes, and `vpcompressb` keeps the last
//! `class` bytes of each lane. A block with an unpaired surrogate is handed
//! back to the scalar kernel, which reports or replaces it.
//!
//! # Room
//!
//! The kernels run only while a whole step's input is readable and a whole
//! step's worst-case output fits in the room left, and they store whole
//! registers: the bytes past the real output stay inside the caller's
//! buffer and are overwritten by the next store or by the scalar kernel,
//! which the wrappers run from where a kernel stopped.

use super::Progress;
use core::arch::x86_64::*;

/// `vpermb` indices moving every byte `n` lanes down (lane `i` gets lane
/// `i + n`; the last `n` lanes get don't-care bytes from the start).
const fn shift_down(n: usize) -> [u8; 64] {
    let mut index = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        index[i] = ((i + n) % 64) as u8;
        i += 1;
    }
    index
}

static NEXT1: [u8; 64] = shift_down(1);
static NEXT2: [u8; 64] = shift_down(2);
static NEXT3: [u8; 64] = shift_down(3);

/// `vpternlogd` truth tables from the canonical operands.
const A: i32 = 0xF0;
const B: i32 = 0xCC;
const C: i32 = 0xAA;
/// `a | (b & c)`.
const A_OR_B_AND_C: i32 = A | (B & C);
/// `(a & b) | c`.
const A_AND_B_OR_C: i32 = (A & B) | C;

/// Loads a 64-byte constant table.
///
/// The `target_feature` functions here are `#[inline]`: they inline into the
/// kernels, which enable the same features.
#[target_feature(enable = "avx512f")]
#[inline]
fn table(t: &[u8; 64]) -> __m512i {
    // SAFETY: `t` is 64 readable bytes; `loadu` needs no alignment.
    unsafe { _mm512_loadu_si512(t.as_ptr().cast()) }
}

/// Swaps the bytes of every 16-bit lane if `BE` (UTF-16BE in memory).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
#[inline]
fn order16<const BE: bool>(v: __m512i) -> __m512i {
    if BE { _mm512_shldi_epi16::<8>(v, v) } else { v }
}

/// Stores 32 units at `out`, in the byte order `BE` asks for.
///
/// # Safety
///
/// * 64 bytes at `out` are writable.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
#[inline]
unsafe fn store_units<const BE: bool>(out: *mut u8, v: __m512i) {
    // SAFETY: the caller makes 64 bytes at `out` writable.
    unsafe { _mm512_storeu_si512(out.cast(), order16::<BE>(v)) }
}

/// Converts valid UTF-8 to UTF-16 (little-endian bytes, or big-endian if
/// `BE`) at `dst`, as far as whole blocks go.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `2 * cap` bytes (`cap` units).
///
/// `src` should be valid UTF-8 (else the output is meaningless, but every
/// access stays in bounds).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf8_to_utf16<const BE: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    let mut i = 0;
    let mut o = 0;
    // Invariants: `i <= src.len()`, `o <= cap`. A step reads 64 bytes and
    // writes at most 64 units (one per input byte at most), but its stores
    // reach up to 83 units in (see `general_block`).
    while src.len() - i >= 64 && cap - o >= ROOM16 {
        // SAFETY: `i + 64 <= src.len()`.
        let v = unsafe { _mm512_loadu_si512(src.as_ptr().add(i).cast()) };
        // SAFETY: `o + ROOM16 <= cap`, so `2 * ROOM16` bytes at `out` are
        // in `dst`.
        let out = unsafe { dst.add(2 * o) };
        if _mm512_movepi8_mask(v) == 0 {
            let lo = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(v));
            let hi = _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(v));
            // SAFETY: 128 <= 2 * ROOM16 bytes at `out` are writable.
            unsafe {
                store_units::<BE>(out, lo);
                store_units::<BE>(out.add(64), hi);
            }
            i += 64;
            o += 64;
            continue;
        }
        // Lead bytes: everything but continuation bytes 80..=BF (signed
        // -128..=-65).
        let leads = _mm512_cmpgt_epi8_mask(v, _mm512_set1_epi8(-65));
        // Stop before the last lead: its character may not end in the block.
        let end = 63u32.saturating_sub(leads.leading_zeros());
        if end == 0 {
            // Not valid UTF-8 (no lead after lane 0); leave it to the scalar
            // kernel rather than make no progress.
            break;
        }
        let m = leads & !(u64::MAX << end);
        let four = _mm512_mask_cmpge_epu8_mask(m, v, _mm512_set1_epi8(0xF0u8 as i8));
        let n = if four == 0 {
            // SAFETY: `2 * ROOM16` bytes at `out` are writable, as the
            // helper needs.
            unsafe { bmp_block::<BE>(v, m, out) }
        } else {
            // SAFETY: as above.
            unsafe { general_block::<BE>(v, m, out) }
        };
        i += end as usize;
        o += n;
    }
    Progress {
        read: i,
        written: o,
    }
}

/// Units of output room a UTF-8 → UTF-16 step needs: what its stores may
/// reach.
const ROOM16: usize = 96;

/// Converts the characters whose leads are in `m` (none of them 4 bytes
/// long) from the block `v`, stores the units at `out`, returns how many.
///
/// # Safety
///
/// * 128 bytes at `out` are writable (two 64-byte stores, the second at
///   most 64 bytes in).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn bmp_block<const BE: bool>(v: __m512i, m: u64, out: *mut u8) -> usize {
    let n1 = _mm512_permutexvar_epi8(table(&NEXT1), v);
    let n2 = _mm512_permutexvar_epi8(table(&NEXT2), v);
    let two = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xC0u8 as i8));
    let three = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xE0u8 as i8));
    let lo = bmp_half(
        _mm512_castsi512_si256(v),
        _mm512_castsi512_si256(n1),
        _mm512_castsi512_si256(n2),
        two as u32,
        three as u32,
    );
    let hi = bmp_half(
        _mm512_extracti64x4_epi64::<1>(v),
        _mm512_extracti64x4_epi64::<1>(n1),
        _mm512_extracti64x4_epi64::<1>(n2),
        (two >> 32) as u32,
        (three >> 32) as u32,
    );
    let (m0, m1) = (m as u32, (m >> 32) as u32);
    let n0 = m0.count_ones() as usize;
    // SAFETY: the first store writes bytes 0..64 of `out`, the second
    // `2 * n0 + 64 <= 128` (n0 <= 32).
    unsafe {
        store_units::<BE>(out, _mm512_maskz_compress_epi16(m0, lo));
        store_units::<BE>(out.add(2 * n0), _mm512_maskz_compress_epi16(m1, hi));
    }
    n0 + m1.count_ones() as usize
}

/// The UTF-16 unit each lead lane of 32 bytes decodes to (1–3 byte
/// characters), from the byte and the two after it; `two` marks leads
/// `>= C0`, `three` leads `>= E0`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn bmp_half(c: __m256i, c1: __m256i, c2: __m256i, two: u32, three: u32) -> __m512i {
    let c = _mm512_cvtepu8_epi16(c);
    let c1 = _mm512_cvtepu8_epi16(c1);
    let c2 = _mm512_cvtepu8_epi16(c2);
    let low6 = _mm512_set1_epi16(0x3F);
    // x = c << 6 | c1 & 3F: a 2-byte character once masked to 11 bits.
    let x = _mm512_ternarylogic_epi32::<A_OR_B_AND_C>(_mm512_slli_epi16::<6>(c), c1, low6);
    // y = x << 6 | c2 & 3F: a 3-byte character (the lead's marker bits
    // 1110 shift out of the 16-bit lane).
    let y = _mm512_ternarylogic_epi32::<A_OR_B_AND_C>(_mm512_slli_epi16::<6>(x), c2, low6);
    let r = _mm512_mask_mov_epi16(c, two, _mm512_and_si512(x, _mm512_set1_epi16(0x7FF)));
    _mm512_mask_mov_epi16(r, three, y)
}

/// The code point each lead lane of 16 bytes decodes to, in 32-bit lanes,
/// from the byte and the three after it (the `Q`th 128-bit quarters of `v`
/// and its shifts); `two`/`three`/`four` mark the lanes `>= C0/E0/F0`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
pub(crate) fn code_points<const Q: i32>(
    v: __m512i,
    n1: __m512i,
    n2: __m512i,
    n3: __m512i,
    two: u16,
    three: u16,
    four: u16,
) -> __m512i {
    let c = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<Q>(v));
    let c1 = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<Q>(n1));
    let c2 = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<Q>(n2));
    let c3 = _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<Q>(n3));
    let low6 = _mm512_set1_epi32(0x3F);
    let x = _mm512_ternarylogic_epi32::<A_OR_B_AND_C>(_mm512_slli_epi32::<6>(c), c1, low6);
    let y = _mm512_ternarylogic_epi32::<A_OR_B_AND_C>(_mm512_slli_epi32::<6>(x), c2, low6);
    let z = _mm512_ternarylogic_epi32::<A_OR_B_AND_C>(_mm512_slli_epi32::<6>(y), c3, low6);
    let r = _mm512_mask_and_epi32(c, two, x, _mm512_set1_epi32(0x7FF));
    let r = _mm512_mask_and_epi32(r, three, y, _mm512_set1_epi32(0xFFFF));
    _mm512_mask_and_epi32(r, four, z, _mm512_set1_epi32(0x1F_FFFF))
}

/// The block `v` shifted down by 1, 2 and 3 bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
pub(crate) fn next3(v: __m512i) -> (__m512i, __m512i, __m512i) {
    (
        _mm512_permutexvar_epi8(table(&NEXT1), v),
        _mm512_permutexvar_epi8(table(&NEXT2), v),
        _mm512_permutexvar_epi8(table(&NEXT3), v),
    )
}

/// Converts the characters whose leads are in `m` (any length) from the
/// block `v`, stores the units at `out`, returns how many.
///
/// # Safety
///
/// * `2 * ROOM16` bytes at `out` are writable: each quarter stores 32
///   units, and before the last one at most 51 units were written (the
///   characters with leads in bytes 0..48 end by byte 51 and make at most
///   one unit per byte), so the stores end by unit 83.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn general_block<const BE: bool>(v: __m512i, m: u64, out: *mut u8) -> usize {
    let (n1, n2, n3) = next3(v);
    let two = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xC0u8 as i8));
    let three = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xE0u8 as i8));
    let four = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xF0u8 as i8));
    let quarter = |q: u32| {
        let s = 16 * q;
        (
            (m >> s) as u16,
            (two >> s) as u16,
            (three >> s) as u16,
            (four >> s) as u16,
        )
    };
    let mut n = 0;
    macro_rules! quarter {
        ($q:literal) => {{
            let (lead, two, three, four) = quarter($q);
            let cp = code_points::<$q>(v, n1, n2, n3, two, three, four);
            let units = pairs(cp, four);
            let keep = _pdep_u32(u32::from(lead), 0x5555_5555)
                | _pdep_u32(u32::from(lead & four), 0xAAAA_AAAA);
            let packed = order16::<BE>(_mm512_maskz_compress_epi16(keep, units));
            // SAFETY: `n <= 51` units so far, so the store ends by unit 83
            // (see the Safety section).
            unsafe { _mm512_storeu_si512(out.add(2 * n).cast(), packed) };
            n += keep.count_ones() as usize;
        }};
    }
    quarter!(0);
    quarter!(1);
    quarter!(2);
    quarter!(3);
    n
}

/// Code points in 32-bit lanes to UTF-16: lanes in `four` (supplementary)
/// become a surrogate pair, high surrogate in the low 16 bits.
#[target_feature(enable = "avx512f")]
#[inline]
fn pairs(cp: __m512i, four: u16) -> __m512i {
    let s = _mm512_sub_epi32(cp, _mm512_set1_epi32(0x1_0000));
    let high = _mm512_or_si512(_mm512_srli_epi32::<10>(s), _mm512_set1_epi32(0xD800));
    // (s << 16) & 03FF_0000 | DC00_0000: the low surrogate in the high half.
    let low = _mm512_ternarylogic_epi32::<A_AND_B_OR_C>(
        _mm512_slli_epi32::<16>(s),
        _mm512_set1_epi32(0x03FF_0000),
        _mm512_set1_epi32(0xDC00_0000u32 as i32),
    );
    _mm512_mask_or_epi32(cp, four, high, low)
}

/// Converts valid UTF-8 to UTF-16 like [`utf8_to_utf16`], and then its
/// last bytes too (fewer than a block): they are read with a masked load
/// (the lanes after them zero, nothing past `src` touched) and, since `src`
/// is valid, every character whose lead is among them ends among them. So
/// the whole of `src` is converted unless the output room runs short; lossy
/// decoding converts one valid run per error and would otherwise finish
/// each with the scalar kernel.
///
/// # Safety
///
/// As [`utf8_to_utf16`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn valid_utf8_to_utf16_to_end<const BE: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    // SAFETY: the caller's contract is `utf8_to_utf16`'s.
    let Progress {
        read: i,
        written: o,
    } = unsafe { utf8_to_utf16::<BE>(src, dst, cap) };
    let rest = src.len() - i;
    if rest == 0 || rest >= 64 || cap - o < ROOM16 {
        return Progress {
            read: i,
            written: o,
        };
    }
    let lanes = !(u64::MAX << rest);
    // SAFETY: the mask enables the `rest` lanes from `i`, which are in
    // `src`; masked-off lanes are neither read nor able to fault.
    let v = unsafe { _mm512_maskz_loadu_epi8(lanes, src.as_ptr().add(i).cast()) };
    // SAFETY: `o + ROOM16 <= cap`, so `2 * ROOM16` bytes at `out` are in
    // `dst`, as the stores below and the helpers need.
    let out = unsafe { dst.add(2 * o) };
    let n = if _mm512_movepi8_mask(v) == 0 {
        let lo = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(v));
        let hi = _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(v));
        // SAFETY: 128 <= 2 * ROOM16 bytes at `out` are writable.
        unsafe {
            store_units::<BE>(out, lo);
            store_units::<BE>(out.add(64), hi);
        }
        rest
    } else {
        let leads = _mm512_cmpgt_epi8_mask(v, _mm512_set1_epi8(-65)) & lanes;
        let four = _mm512_mask_cmpge_epu8_mask(leads, v, _mm512_set1_epi8(0xF0u8 as i8));
        // SAFETY: as above.
        unsafe {
            if four == 0 {
                bmp_block::<BE>(v, leads, out)
            } else {
                general_block::<BE>(v, leads, out)
            }
        }
    };
    Progress {
        read: src.len(),
        written: o + n,
    }
}

/// Where the UTF-16 → UTF-8 kernel stopped.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stop {
    /// Units read and bytes written so far.
    pub(crate) progress: Progress,
    /// If the kernel stopped at a block with an unpaired surrogate: the end
    /// of that block (a character boundary), which the scalar kernel should
    /// convert before calling the kernel again. `None`: the end of the room.
    pub(crate) window_end: Option<usize>,
}

/// `vpmultishiftqb` controls: in each 32-bit lane, bytes `cp >> 18`,
/// `cp >> 12`, `cp >> 6`, `cp` (from the lane's own bits).
static MULTISHIFT: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        let lane = (i / 4) % 2;
        t[i] = (32 * lane + [18, 12, 6, 0][i % 4]) as u8;
        i += 1;
    }
    t
};

/// Per class (0: emits nothing; 1–4: UTF-8 length), as 32-bit lanes (byte 0
/// first in memory): which bits of the multishifted bytes to keep, the marker
/// bits to set, and which bytes to emit (the last `class` ones).
static CLASS_AND: [u32; 16] = class_table([0, 0x7F00_0000, 0x3F1F_0000, 0x3F3F_0F00, 0x3F3F_3F07]);
static CLASS_OR: [u32; 16] = class_table([0, 0, 0x80C0_0000, 0x8080_E000, 0x8080_80F0]);
static CLASS_KEEP: [u32; 16] = class_table([0, 0xFF00_0000, 0xFFFF_0000, 0xFFFF_FF00, 0xFFFF_FFFF]);

const fn class_table(first: [u32; 5]) -> [u32; 16] {
    let mut t = [0; 16];
    let mut i = 0;
    while i < 5 {
        t[i] = first[i];
        i += 1;
    }
    t
}

/// Loads a 16-entry `u32` table.
#[target_feature(enable = "avx512f")]
#[inline]
fn table32(t: &[u32; 16]) -> __m512i {
    // SAFETY: `t` is 64 readable bytes; `loadu` needs no alignment.
    unsafe { _mm512_loadu_si512(t.as_ptr().cast()) }
}

/// Loads 32 units from `ptr` as native `u16` lanes.
///
/// # Safety
///
/// * 64 bytes at `ptr` are readable.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
#[inline]
unsafe fn load_units<const BE: bool>(ptr: *const u8) -> __m512i {
    // SAFETY: the caller makes 64 bytes at `ptr` readable.
    order16::<BE>(unsafe { _mm512_loadu_si512(ptr.cast()) })
}

/// Converts UTF-16 (little-endian bytes, or big-endian if `BE`; `len` units
/// at `src`) to UTF-8 at `dst`, as far as whole blocks go and up to the
/// first block with an unpaired surrogate.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `src` is valid for reads of `2 * len` bytes.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf16_to_utf8<const BE: bool>(
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
) -> Stop {
    let mut i = 0;
    let mut o = 0;
    let stop = |i, o, window_end| Stop {
        progress: Progress {
            read: i,
            written: o,
        },
        window_end,
    };
    // A step reads 33 units (32 and the one after, for pairs) and stores two
    // 64-byte registers, the second at most 48 bytes in.
    while len - i >= 33 && cap - o >= 112 {
        // SAFETY: units `i..i + 33` are readable.
        let v = unsafe { load_units::<BE>(src.add(2 * i)) };
        // SAFETY: `o + 112 <= cap`.
        let out = unsafe { dst.add(o) };
        let wide = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(0x80));
        if wide == 0 {
            // SAFETY: 32 bytes at `out` are writable.
            unsafe { _mm256_storeu_si256(out.cast(), _mm512_cvtepi16_epi8(v)) };
            i += 32;
            o += 32;
            continue;
        }
        let three = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(0x800));
        if three == 0 {
            // 1- and 2-byte characters only, in 16-bit lanes: a 2-byte
            // lane holds C0 | u >> 6 then 80 | u & 3F, an ASCII lane its
            // byte then a byte the compress drops.
            let t = _mm512_ternarylogic_epi32::<A_OR_B_AND_C>(
                _mm512_srli_epi16::<6>(v),
                _mm512_slli_epi16::<8>(v),
                _mm512_set1_epi16(0x3F00),
            );
            let t = _mm512_or_si512(t, _mm512_set1_epi16(0x80C0u16 as i16));
            let r = _mm512_mask_mov_epi16(v, wide, t);
            let keep = 0x5555_5555_5555_5555 | _pdep_u64(u64::from(wide), 0xAAAA_AAAA_AAAA_AAAA);
            // SAFETY: 64 <= 112 bytes at `out` are writable.
            unsafe { _mm512_storeu_si512(out.cast(), _mm512_maskz_compress_epi8(keep, r)) };
            i += 32;
            o += keep.count_ones() as usize;
            continue;
        }
        let tag = _mm512_and_si512(v, _mm512_set1_epi16(0xFC00u16 as i16));
        let high = _mm512_cmpeq_epi16_mask(tag, _mm512_set1_epi16(0xD800u16 as i16));
        let low = _mm512_cmpeq_epi16_mask(tag, _mm512_set1_epi16(0xDC00u16 as i16));
        let mut step = 32;
        let n = if high | low == 0 {
            // SAFETY: 112 bytes at `out` are writable.
            unsafe { block_to_utf8::<false>(v, v, wide, three, 0, 0, out) }
        } else {
            // SAFETY: units `i + 1..i + 33` are readable.
            let next = unsafe { load_units::<BE>(src.add(2 * i + 2)) };
            let next_tag = _mm512_and_si512(next, _mm512_set1_epi16(0xFC00u16 as i16));
            let low_next = _mm512_cmpeq_epi16_mask(next_tag, _mm512_set1_epi16(0xDC00u16 as i16));
            let paired = high & low_next;
            // Every high surrogate needs a low one after it, every low one a
            // high one before it (lane 0's predecessor is never a high
            // surrogate: a block never ends between the two).
            if high != paired || low != paired << 1 & low {
                let end = i + 32 + (paired >> 31) as usize;
                return stop(i, o, Some(end));
            }
            // A pair split by the block end waits for the next block.
            let last = paired >> 31;
            let skip = low | (last << 31);
            // SAFETY: 112 bytes at `out` are writable.
            let n = unsafe { block_to_utf8::<true>(v, next, wide, three, high, skip, out) };
            step -= last as usize;
            n
        };
        i += step;
        o += n;
    }
    stop(i, o, None)
}

/// Converts the 32 units of `v` to UTF-8 at `out`, returns the byte count.
/// `wide`/`three` mark units `>= 80`/`>= 800`; with `PAIRS`, `high` marks
/// high surrogates followed by a low one (`next` holds the units one lane
/// on) and `skip` the lanes that emit nothing.
///
/// # Safety
///
/// * 112 bytes at `out` are writable.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
#[allow(
    clippy::too_many_arguments,
    reason = "one call site per path, all masks"
)]
unsafe fn block_to_utf8<const PAIRS: bool>(
    v: __m512i,
    next: __m512i,
    wide: u32,
    three: u32,
    high: u32,
    skip: u32,
    out: *mut u8,
) -> usize {
    let half = |w: __m256i, wn: __m256i, s: u32| {
        let w = _mm512_cvtepu16_epi32(w);
        let (wide, three, high, skip) = (
            (wide >> s) as u16,
            (three >> s) as u16,
            (high >> s) as u16,
            (skip >> s) as u16,
        );
        let cp = if PAIRS {
            // (h - D800) << 10 + (l - DC00) + 10000 = h << 10 + l - 35F_DC00
            let wn = _mm512_cvtepu16_epi32(wn);
            let pair = _mm512_add_epi32(
                _mm512_add_epi32(_mm512_slli_epi32::<10>(w), wn),
                _mm512_set1_epi32(-0x35F_DC00),
            );
            _mm512_mask_mov_epi32(w, high, pair)
        } else {
            w
        };
        let class = _mm512_mask_mov_epi32(_mm512_set1_epi32(1), wide, _mm512_set1_epi32(2));
        let class = _mm512_mask_mov_epi32(class, three, _mm512_set1_epi32(3));
        let class = if PAIRS {
            let class = _mm512_mask_mov_epi32(class, high, _mm512_set1_epi32(4));
            _mm512_maskz_mov_epi32(!skip, class)
        } else {
            class
        };
        let bits = _mm512_multishift_epi64_epi8(table(&MULTISHIFT), cp);
        let bytes = _mm512_ternarylogic_epi32::<A_AND_B_OR_C>(
            bits,
            _mm512_permutexvar_epi32(class, table32(&CLASS_AND)),
            _mm512_permutexvar_epi32(class, table32(&CLASS_OR)),
        );
        let keep = _mm512_movepi8_mask(_mm512_permutexvar_epi32(class, table32(&CLASS_KEEP)));
        (
            _mm512_maskz_compress_epi8(keep, bytes),
            keep.count_ones() as usize,
        )
    };
    let (lo, n0) = half(_mm512_castsi512_si256(v), _mm512_castsi512_si256(next), 0);
    let (hi, n1) = half(
        _mm512_extracti64x4_epi64::<1>(v),
        _mm512_extracti64x4_epi64::<1>(next),
        16,
    );
    // SAFETY: the first store writes bytes 0..64 of `out`, the second
    // `n0 + 64 <= 112` (16 units make at most 48 bytes).
    unsafe {
        _mm512_storeu_si512(out.cast(), lo);
        _mm512_storeu_si512(out.add(n0).cast(), hi);
    }
    n0 + n1
}
