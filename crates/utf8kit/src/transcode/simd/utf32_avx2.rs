//! AVX2 UTF-8 ⇄ UTF-32, and the UTF-8 length of UTF-32.
//!
//! # UTF-8 → UTF-32 (input known to be valid)
//!
//! 32-byte blocks at a *fixed stride*: a block converts the characters
//! whose lead byte lies in it (they may end up to 3 bytes past it), and the
//! next block starts 32 bytes on whatever its first bytes are (continuation
//! bytes are not leads, so they are skipped). No step waits for the length
//! of the one before: the loop carries only the two counters, and the
//! out-of-order core overlaps consecutive blocks. (The kernel this replaced
//! advanced by the 16 to 18 bytes its characters took, a chain through a
//! load, a compare and a mask each step, and ran Chinese at half simdutf's
//! speed.)
//!
//! An all-ASCII block widens with four `vpmovzxbd`, and the ASCII blocks
//! after it go 128 bytes a step (one test, a step count set once).
//! Otherwise each 8 lead positions are a group: the 16 bytes from the
//! group's start are broadcast to both 128-bit lanes (`vbroadcasti128`
//! from memory), and one `pshufb` from [`GATHER`], indexed
//! by the group's 8-bit lead mask, gathers each lead and the 3 bytes after
//! it into a 32-bit lane, big-endian, in order. [`decode_lanes`] then decodes
//! every length at once: two multiply-adds pack the low 6 bits of each byte
//! (7 of the lead) into one field, and two variable shifts, by counts that
//! two `pshufb` look up by the lead's high nibble, cut the character out of
//! it. A block of 8 characters of 4 bytes from one of its first 4 bytes on
//! (emoji) is decoded with one fixed shuffle instead.
//!
//! Stores are whole registers; those past a block's output are overwritten
//! by the next block's (at least 8 values), so whole stores run while 64
//! bytes of input and 32 values of room remain. The rest goes two blocks
//! at a time (their lead masks cut at the input's end), read in place
//! where the 72 bytes the two blocks may read are there, else from a
//! zero-padded copy in a local buffer, into a local output, from which
//! exactly the values are copied if they fit (both copies by overlapping
//! vector moves, no `memcpy` call): nothing is ever written past the room,
//! and a conversion that succeeds leaves nothing past its output.
//!
//! # Large inputs (both directions)
//!
//! From `STREAM_MIN` (8 Mi bytes or values) of input and room on, the
//! input's ASCII start converts with aligned non-temporal stores of whole
//! cache lines ([`ascii_stream_to_utf32`]: 64 bytes make 256 of output a
//! step; [`ascii_stream_from_utf32`]: 64 values make 64 bytes), after
//! ordinary stores up to the output's first 64-byte boundary, then an
//! `sfence`: no line of the output is read before it is written, which a
//! store that misses the cache must do.
//!
//! # UTF-32 → UTF-8
//!
//! 16 values a step (32 while all ASCII). All values below `80`: two
//! packs and a `vpermd`. Below `800`: narrowed to 16-bit lanes, each makes
//! its 1 or 2 bytes, packed by a `pshufb` from [`WIDEN`] per 8. Below
//! `10000` with no surrogate: each value gets a 32-bit lane holding its
//! ASCII byte, its last byte, its 3-byte lead and its 2-byte lead or middle
//! byte (they differ in one bit), and a `pshufb` from [`PACK123`] per 4
//! values picks what each needs. All supplementary (emoji): the 6-bit
//! groups spread to bytes, marked and byte-reversed, 32 bytes per 8 values,
//! no table. Otherwise each value is checked (a surrogate or above `10FFFF`
//! is invalid) and encoded in its own 32-bit lane, bytes reversed, which
//! [`PACK1234`] packs, 4 values per `pshufb`. The strict flavour stops
//! before a step holding an invalid value (the scalar kernel reports it);
//! the lossy one replaces it by U+FFFD in the register and goes on.
//!
//! Stores past a step's output (at most 12 bytes) are overwritten by the
//! next step's while 12 more values remain; nearer the end, or with less
//! than 64 bytes of room, a step packs into a local buffer and copies
//! exactly its output if it fits. The last 4..=15 values (or a whole input
//! of 4..=15) are one more such step, loaded with masks (`vpmaskmovd`
//! loads; the lanes past the input load 0, whose one byte each is dropped
//! from the end of the output; [`utf32_to_utf8_last`], out of line); up
//! to 3 are left to the scalar kernel, which costs less than a step for
//! them (about 35 instructions a value against 110 for the step).
//!
//! # UTF-8 length of UTF-32
//!
//! `3 * n`, less one per value up to `7F` and one per value up to `7FF`,
//! plus one per supplementary value (invalid values count 3, as U+FFFD):
//! 16 values a step with the first two thresholds on 16-bit lanes (see
//! [`utf8_len_from_utf32`]); 8..=31 values in a straight line, 8 at a time
//! by unsigned compares (`vpminud`), `movmskps` and `popcnt`, the last 8
//! overlapping ([`utf8_len_short`]; the dispatch in `count.rs` sends inputs
//! from 16 values on).
//!
//! # Measured (Zen 3, 2 cores shared with other work)
//!
//! Minimum of 1,500 single calls on 64 KiB, ours ÷ simdutf in the same run
//! (absolute GB/s move with the heap addresses between builds, the ratios
//! do not): UTF-8 → UTF-32 Arabic 1.6, Chinese 1.06, Emoji 2.8, Hebrew 1.6,
//! Hindi 1.3, Japanese 1.02, Korean 1.3–1.6, Russian 1.5, random 1.9;
//! UTF-32 → UTF-8 Arabic 1.3, Chinese 1.06, Emoji 5.6, Hebrew 1.35, Hindi
//! 1.1, Japanese 1.04, Korean 1.02, Russian 1.35, random 8. The UTF-8 →
//! UTF-32 loop is bound by instruction throughput (about 100 instructions
//! a block at an IPC near 4, whatever the script), so 3-byte scripts, with
//! the fewest characters per block, gain least.
//!
//! # Tried and dropped
//!
//! * Two 8-position groups' characters merged into one register (the
//!   second rotated by `vpermd` past the first's) when a block has at most
//!   14 leads, halving the decodes for 3-byte scripts: it saved about 7 of
//!   the 100 instructions of a block, and Chinese stayed at 1.06, Japanese
//!   at 1.01; Arabic (which never merges, but pays the test) fell from 1.58
//!   to 1.51.
//! * The tail handled inside the main loop (one call site for the block
//!   step), together with the merge above: 4.5 instead of 3.9
//!   instructions a byte (callgrind), 20 % slower.
//! * `vpmovzxbd` straight from memory for ASCII blocks: no change (the
//!   stores bound it, as they do simdutf's).
//! * The windows from `_mm256_broadcastsi128_si256(_mm_loadu_si128(..))`:
//!   LLVM rebuilt those that overlap the block's load from 8-byte
//!   general-register loads; `vbroadcasti128` by `asm!` took Chinese from
//!   1.00 to 1.07.
//! * The masked last step of UTF-32 → UTF-8 as the loop's last iteration
//!   (a flag tested in every step): 0.83–0.99× the loop without it on
//!   1 MiB of lipsum text (in-process A/B); the step as a function called
//!   from the loop and from the last step: LLVM kept it out of line, a call
//!   per step, 0.68–0.92×. The step is a macro ([`encode_step`]) written in
//!   line in both, and the last step a function of its own.
//! * For mixed text past the caches (UTF-8 → UTF-32 of 64 MiB), the blocks
//!   storing into an L1 buffer whose whole cache lines went to the output
//!   by aligned non-temporal stores every 2 KiB (so no line of the output
//!   was read before it was written), with the part lines at both ends by
//!   ordinary exact stores: against the direct conversion in the same
//!   process, 0.88–1.04 on random text, 0.82–1.06 Chinese, 0.86–0.95
//!   Arabic, 0.72–0.85 Emoji; a 512-byte buffer 0.54–0.60, an 8 KiB one
//!   0.98–1.04. The block loop is bound by its instructions, not by memory,
//!   and the copy out of the buffer costs what the skipped reads save (the
//!   ASCII path, at a store per 8 values, is bound by memory: there the
//!   non-temporal stores gain 1.8×).

// UTF-16 → UTF-8's table: the same lanes `[a, l, b, m]` and classes by
// the same two bits (the rows of a high surrogate, `2k` set without
// `2k + 1`, never occur here: an ASCII value is below `800` too).
use super::utf16_to_utf8_avx2::PACK123;
use super::{Aligned, Progress, WIDEN, copy_short};

use core::arch::x86_64::*;

/// Bytes of a UTF-8 → UTF-32 block: a step converts the characters whose
/// lead byte is in it, which may end up to 3 bytes past it.
const BLOCK: usize = 32;

/// Bytes a UTF-8 → UTF-32 block step may read: the block, and 16 bytes
/// from its last 8 on.
const READ: usize = 40;

/// Input bytes left from which a UTF-8 → UTF-32 block step stores whole
/// registers straight to the output: a step's stores reach at most 8
/// values past its output, and the block after it (at least 29 bytes of
/// its own characters) makes at least 8 values, written over them. Nearer
/// the end a step works in local buffers and copies exactly its output.
const WHOLE: usize = 2 * BLOCK;

/// Values of room a block step's whole-register stores need.
const ROOM: usize = 32;

/// `pshufb` indices gathering, for the lead bytes set in the 8-bit index
/// (positions 0..8 of a 16-byte window), each lead and the 3 bytes after it
/// into a 32-bit lane, the lead in the high byte (big-endian), in order:
/// the first four leads in the low 128-bit lane, the next four in the high
/// one (both lanes hold the same window). Unused lanes get zeros.
const fn gather_table() -> [[u8; 32]; 256] {
    let mut table = [[0x80u8; 32]; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut n = 0;
        let mut k = 0;
        while k < 8 {
            if mask & (1 << k) != 0 {
                let mut j = 0;
                while j < 4 {
                    table[mask][4 * n + 3 - j] = (k + j) as u8;
                    j += 1;
                }
                n += 1;
            }
            k += 1;
        }
        mask += 1;
    }
    table
}

static GATHER: Aligned<[[u8; 32]; 256]> = Aligned(gather_table());

/// Decodes the characters gathered big-endian in the 32-bit lanes of `x`
/// (the lead byte on top, then up to 3 more bytes, of which those past the
/// character are any).
///
/// The low 6 bits of every byte, and 7 of the lead, are packed into one
/// 25-bit field by two multiply-adds (`b0 << 18 | b1 << 12 | b2 << 6 |
/// b3`); the character is the field's bits `6 * (4 - len)..`, of which as
/// many as the length holds (7, 11, 16 or 21): two variable shifts, by
/// counts looked up by the lead's high nibble, cut them out.
#[target_feature(enable = "avx2")]
#[inline]
fn decode_lanes(x: __m256i) -> __m256i {
    let bits = _mm256_and_si256(x, _mm256_set1_epi32(0x7F3F_3F3F));
    // Pairs: b3 + 64 * b2 and b1 + 64 * b0; then the low pair + 4096 * the
    // high one.
    let pairs = _mm256_maddubs_epi16(bits, _mm256_set1_epi16(0x4001));
    let field = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x1000_0001));
    // The lead's high nibble in byte 0, zeros (`pshufb` index 80) above.
    let nibble = _mm256_or_si256(
        _mm256_srli_epi32::<28>(x),
        _mm256_set1_epi32(0x8080_8000u32 as i32),
    );
    // ASCII: bits 18..25; 2 bytes: 12..23; 3 bytes: 6..22; 4 bytes: 0..21.
    let up = _mm256_setr_epi8(
        7, 7, 7, 7, 7, 7, 7, 7, 0, 0, 0, 0, 9, 9, 10, 11, 7, 7, 7, 7, 7, 7, 7, 7, 0, 0, 0, 0, 9, 9,
        10, 11,
    );
    let down = _mm256_setr_epi8(
        25, 25, 25, 25, 25, 25, 25, 25, 0, 0, 0, 0, 21, 21, 16, 11, 25, 25, 25, 25, 25, 25, 25, 25,
        0, 0, 0, 0, 21, 21, 16, 11,
    );
    _mm256_srlv_epi32(
        _mm256_sllv_epi32(field, _mm256_shuffle_epi8(up, nibble)),
        _mm256_shuffle_epi8(down, nibble),
    )
}

/// The 16 bytes at `p` in both 128-bit lanes, by `vbroadcasti128` from
/// memory: a load, no shuffle. (From the intrinsics, LLVM rebuilds such
/// windows that overlap a 32-byte load from 8-byte general-register loads,
/// three more instructions each.)
///
/// # Safety
///
/// 16 bytes at `p` are readable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn broadcast16(p: *const u8) -> __m256i {
    let x: __m256i;
    // SAFETY: the caller's promise; the instruction only reads them.
    unsafe {
        core::arch::asm!(
            "vbroadcasti128 {x}, xmmword ptr [{p}]",
            x = lateout(ymm_reg) x,
            p = in(reg) p,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    x
}

/// Converts the characters whose lead byte is in the 32-byte block at `p`
/// (`v`, its bytes) and set in `leads`, writing whole registers at `out`;
/// returns how many.
///
/// # Safety
///
/// * 40 bytes at `p` are readable ([`READ`]).
/// * 32 values at `out` are writable ([`ROOM`]).
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn block_to_utf32(p: *const u8, v: __m256i, leads: u32, out: *mut u32) -> usize {
    let first = leads.trailing_zeros() & 3;
    if leads == 0x1111_1111 << first {
        // Maybe 8 characters of 4 bytes each from `first` on: then they
        // are all 4-byte leads (F0..=F4, `max(b, F0) == b`).
        let fours = _mm256_movemask_epi8(_mm256_cmpeq_epi8(
            _mm256_max_epu8(v, _mm256_set1_epi8(-16)),
            v,
        )) as u32;
        if fours & leads == leads {
            // SAFETY: `first + 32 <= 35` bytes at `p` are readable.
            let w = unsafe { _mm256_loadu_si256(p.add(first as usize).cast()) };
            let reverse = _mm256_setr_epi8(
                3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11,
                10, 9, 8, 15, 14, 13, 12,
            );
            let x = _mm256_and_si256(
                _mm256_shuffle_epi8(w, reverse),
                _mm256_set1_epi32(0x073F_3F3F),
            );
            let pairs = _mm256_maddubs_epi16(x, _mm256_set1_epi16(0x4001));
            let values = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x1000_0001));
            // SAFETY: 8 of the 32 writable values.
            unsafe { _mm256_storeu_si256(out.cast(), values) };
            return 8;
        }
    }
    let mut n = 0;
    for g in 0..4 {
        let m = (leads >> (8 * g)) & 0xFF;
        // SAFETY: bytes `8g..8g + 16` (at most 40) are readable; a table
        // row is 32 readable bytes.
        let x = unsafe {
            let window = broadcast16(p.add(8 * g));
            let index = _mm256_load_si256(GATHER.0[m as usize].as_ptr().cast());
            _mm256_shuffle_epi8(window, index)
        };
        // SAFETY: `n <= 24`: 8 values at `out + n` are inside the 32.
        unsafe { _mm256_storeu_si256(out.add(n).cast(), decode_lanes(x)) };
        n += m.count_ones() as usize;
    }
    n
}

/// Lead bytes of the block `v`: bytes other than 80..=BF (as `i8`,
/// greater than -65).
#[target_feature(enable = "avx2")]
#[inline]
fn lead_mask(v: __m256i) -> u32 {
    _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(-65))) as u32
}

/// Converts valid UTF-8 to UTF-32 at `dst`: 32-byte blocks at a fixed
/// stride (a block converts the characters whose lead byte it holds, so no
/// step waits for the length of the one before), while a whole step's
/// input and room remain, then, in local buffers, the rest of the input as
/// far as the room goes. Returns a character boundary.
///
/// With `ASCII_ONLY` it converts 32-byte all-ASCII blocks only, while 32
/// bytes of input and room remain, stops at the first other one, and `src`
/// may be anything. Otherwise `src` should be valid UTF-8 (else the output
/// is meaningless, but every access stays in bounds).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` values.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf8_to_utf32<const ASCII_ONLY: bool>(
    src: &[u8],
    dst: *mut u32,
    cap: usize,
) -> Progress {
    let mut i = 0;
    let mut o = 0;
    let p = src.as_ptr();
    if src.len() >= STREAM_MIN && cap >= STREAM_MIN {
        // SAFETY: the caller's contract.
        (i, o) = unsafe { ascii_stream_to_utf32(src, dst, cap) };
    }
    // Invariants: `i <= src.len()`, `o <= cap`; `i` at a block start (not
    // necessarily a character boundary), every character whose lead is
    // before `i` converted.
    while src.len() - i >= BLOCK && cap - o >= ROOM {
        if !ASCII_ONLY && src.len() - i < WHOLE {
            break;
        }
        // SAFETY: `i + 32 <= src.len()`.
        let v = unsafe { _mm256_loadu_si256(p.add(i).cast()) };
        // SAFETY: `o + 32 <= cap`: 32 values at `out` are writable, which
        // covers every store of the step.
        let out = unsafe { dst.add(o) };
        if _mm256_movemask_epi8(v) == 0 {
            // SAFETY: 32 writable values at `out`.
            unsafe { widen_ascii(v, out) };
            i += BLOCK;
            o += BLOCK;
            // The ASCII blocks after it, 128 bytes a step with one test,
            // the step count set once (one counter in the loop, not two
            // bounds: the loop is then as short as simdutf's, 0.89-0.93x
            // before on all-ASCII text in L2).
            let steps = (src.len() - i).min(cap - o) / (4 * BLOCK);
            for _ in 0..steps {
                // SAFETY: at most `steps` steps: `i + 128 <= src.len()`
                // and `o + 128 <= cap`.
                unsafe {
                    let q = p.add(i);
                    let w = [0, 1, 2, 3].map(|k| _mm256_loadu_si256(q.add(k * BLOCK).cast()));
                    let any =
                        _mm256_or_si256(_mm256_or_si256(w[0], w[1]), _mm256_or_si256(w[2], w[3]));
                    if _mm256_movemask_epi8(any) != 0 {
                        break;
                    }
                    let out = dst.add(o);
                    for (k, x) in w.into_iter().enumerate() {
                        widen_ascii(x, out.add(k * BLOCK));
                    }
                }
                i += 4 * BLOCK;
                o += 4 * BLOCK;
            }
            continue;
        }
        if ASCII_ONLY {
            break;
        }
        // SAFETY: `i + 64 <= src.len()` (so 40 bytes are readable) and 32
        // writable values at `out`.
        o += unsafe { block_to_utf32(p.add(i), v, lead_mask(v), out) };
        i += BLOCK;
    }
    if ASCII_ONLY {
        return Progress {
            read: i,
            written: o,
        };
    }
    // The continuation bytes at `i` end a character already converted.
    let skip = |mut i: usize| {
        while src.get(i).is_some_and(|&b| (b as i8) < -64) {
            i += 1;
        }
        i
    };
    i = skip(i);
    // The rest, two blocks at a time, read from the input where its 72
    // bytes are there, else from a copy padded with zeros, into a local
    // buffer, then exactly the values, if they fit.
    while i < src.len() {
        let left = src.len() - i;
        let take = left.min(2 * BLOCK);
        let mut window = Aligned([0u8; BLOCK + READ]);
        let q = if left >= BLOCK + READ {
            // SAFETY: `i < src.len()`; 72 bytes from there are readable.
            unsafe { p.add(i) }
        } else {
            // SAFETY: `left < 72` bytes from `p + i` to `window`.
            unsafe { copy_short(p.add(i), window.0.as_mut_ptr(), left) };
            window.0.as_ptr()
        };
        let mut values = [0u32; 2 * ROOM];
        let out = values.as_mut_ptr();
        // SAFETY: 72 bytes at `q` are readable (40 from each block); the
        // first block writes at most 32 values at `out`, the second at
        // most 32 after the first's (at most 32) values.
        let n = unsafe {
            let v = _mm256_loadu_si256(q.cast());
            let cut = |len: usize| u32::MAX >> (BLOCK - len);
            let n = block_to_utf32(q, v, lead_mask(v) & cut(take.min(BLOCK)), out);
            if take > BLOCK {
                let w = _mm256_loadu_si256(q.add(BLOCK).cast());
                n + block_to_utf32(
                    q.add(BLOCK),
                    w,
                    lead_mask(w) & cut(take - BLOCK),
                    out.add(n),
                )
            } else {
                n
            }
        };
        if n > cap - o {
            break;
        }
        // SAFETY: `n <= cap - o` values to `dst + o`, `n <= 64` from
        // `values`.
        unsafe { copy_values(values.as_ptr(), dst.add(o), n) };
        o += n;
        i = skip(i + take);
    }
    Progress {
        read: i,
        written: o,
    }
}

/// Copies `n <= 64` values from `src` to `dst` in overlapping pieces.
///
/// # Safety
///
/// * `src` is valid for reads and `dst` for writes of `n <= 64` values.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn copy_values(src: *const u32, dst: *mut u32, n: usize) {
    // SAFETY: every read and write (of every branch) is inside the `n`
    // values at `src` and `dst`.
    unsafe {
        if n >= 8 {
            let last = _mm256_loadu_si256(src.add(n - 8).cast());
            let mut k = 0;
            while k + 8 < n {
                _mm256_storeu_si256(dst.add(k).cast(), _mm256_loadu_si256(src.add(k).cast()));
                k += 8;
            }
            _mm256_storeu_si256(dst.add(n - 8).cast(), last);
        } else if n >= 4 {
            let a = _mm_loadu_si128(src.cast());
            let b = _mm_loadu_si128(src.add(n - 4).cast());
            _mm_storeu_si128(dst.cast(), a);
            _mm_storeu_si128(dst.add(n - 4).cast(), b);
        } else {
            for k in 0..n {
                dst.add(k).write(src.add(k).read());
            }
        }
    }
}

/// Inputs (and rooms, in values) of at least this many bytes (values),
/// whose output will not stay in the caches, convert their leading ASCII
/// with aligned non-temporal stores ([`ascii_stream_to_utf32`],
/// [`ascii_stream_from_utf32`]).
const STREAM_MIN: usize = 8 << 20;

/// Widens the ASCII prefix of `src` to values at `dst` with non-temporal
/// stores of whole cache lines, 64 bytes (256 bytes of output) a step from
/// the output's first 64-byte boundary on (the 32 values before it by
/// ordinary stores); returns how many it converted, as `(read, written)`
/// (`(0, 0)` if the first 32 bytes are not all ASCII or do not fit).
///
/// Non-temporal stores write each line to memory without first reading it
/// into the cache (as an ordinary store that misses must): an output of
/// values that does not stay in cache costs 4 bytes of traffic per input
/// byte instead of 8.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` values.
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn ascii_stream_to_utf32(src: &[u8], dst: *mut u32, cap: usize) -> (usize, usize) {
    let len = src.len();
    let p = src.as_ptr();
    if len.min(cap) < BLOCK {
        return (0, 0);
    }
    // SAFETY: 32 bytes at `p` are readable, 32 values at `dst` writable.
    unsafe {
        let v = _mm256_loadu_si256(p.cast());
        if _mm256_movemask_epi8(v) != 0 {
            return (0, 0);
        }
        widen_ascii(v, dst);
    }
    // The output's first 64-byte boundary after the values stored (a `u32`
    // pointer is 4-byte aligned).
    let mut i = 16 - (dst as usize) % 64 / 4;
    while len - i >= 2 * BLOCK && cap - i >= 2 * BLOCK {
        // SAFETY: bytes `i..i + 64` are readable, values `i..i + 64`
        // writable; `dst + i` is 64-byte aligned (it is after the head, and
        // each step moves 256 bytes), as `vmovntdq` needs 32.
        unsafe {
            let a = _mm256_loadu_si256(p.add(i).cast());
            let b = _mm256_loadu_si256(p.add(i + BLOCK).cast());
            if _mm256_movemask_epi8(_mm256_or_si256(a, b)) != 0 {
                break;
            }
            let out = dst.add(i);
            for (k, v) in [a, b].into_iter().enumerate() {
                let lo = _mm256_castsi256_si128(v);
                let hi = _mm256_extracti128_si256::<1>(v);
                let o = out.add(BLOCK * k).cast::<__m256i>();
                _mm256_stream_si256(o, _mm256_cvtepu8_epi32(lo));
                _mm256_stream_si256(o.add(1), _mm256_cvtepu8_epi32(_mm_srli_si128::<8>(lo)));
                _mm256_stream_si256(o.add(2), _mm256_cvtepu8_epi32(hi));
                _mm256_stream_si256(o.add(3), _mm256_cvtepu8_epi32(_mm_srli_si128::<8>(hi)));
            }
        }
        i += 2 * BLOCK;
    }
    // Order the non-temporal stores before any later store and the
    // caller's reads of the output.
    _mm_sfence();
    (i, i)
}

/// Narrows the ASCII prefix of `src` to bytes at `dst` with non-temporal
/// stores of whole cache lines, 64 values a step from the output's first
/// 64-byte boundary on (the 64 bytes before it by ordinary stores);
/// returns how many values it converted (0 if the first 64 are not all
/// ASCII or do not fit).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn ascii_stream_from_utf32(src: &[u32], dst: *mut u8, cap: usize) -> usize {
    let len = src.len();
    let p = src.as_ptr();
    let not_ascii = _mm256_set1_epi32(!0x7F);
    // The 64 ASCII values at `q` as 64 bytes, or `None`.
    // SAFETY (of the closure's callers): 64 values at `q` are readable.
    let narrow64 = |q: *const u32| -> Option<(__m256i, __m256i)> {
        // SAFETY: the callers' promise.
        let w =
            unsafe { [0, 1, 2, 3, 4, 5, 6, 7].map(|k| _mm256_loadu_si256(q.add(8 * k).cast())) };
        let any = _mm256_or_si256(
            _mm256_or_si256(_mm256_or_si256(w[0], w[1]), _mm256_or_si256(w[2], w[3])),
            _mm256_or_si256(_mm256_or_si256(w[4], w[5]), _mm256_or_si256(w[6], w[7])),
        );
        if _mm256_testz_si256(any, not_ascii) == 0 {
            return None;
        }
        let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        let bytes = |a, b, c, d| {
            _mm256_permutevar8x32_epi32(
                _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d)),
                order,
            )
        };
        Some((bytes(w[0], w[1], w[2], w[3]), bytes(w[4], w[5], w[6], w[7])))
    };
    if len.min(cap) < 64 {
        return 0;
    }
    // SAFETY: 64 values at `p` are readable.
    let Some((a, b)) = narrow64(p) else {
        return 0;
    };
    // SAFETY: 64 bytes at `dst` are writable.
    unsafe {
        _mm256_storeu_si256(dst.cast(), a);
        _mm256_storeu_si256(dst.add(32).cast(), b);
    }
    // The output's first 64-byte boundary after the bytes stored.
    let mut i = 64 - (dst as usize) % 64;
    while len - i >= 64 && cap - i >= 64 {
        // SAFETY: values `i..i + 64` are readable.
        let Some((a, b)) = narrow64(unsafe { p.add(i) }) else {
            break;
        };
        // SAFETY: bytes `i..i + 64` are writable, and `dst + i` is 64-byte
        // aligned (it is after the head, and each step moves 64), as
        // `vmovntdq` needs 32.
        unsafe {
            _mm256_stream_si256(dst.add(i).cast(), a);
            _mm256_stream_si256(dst.add(i + 32).cast(), b);
        }
        i += 64;
    }
    // Order the non-temporal stores before any later store and the
    // caller's reads of the output.
    _mm_sfence();
    i
}

/// Widens the 32 ASCII bytes `v` to 32 values at `out`.
///
/// # Safety
///
/// 32 values at `out` are writable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn widen_ascii(v: __m256i, out: *mut u32) {
    let lo = _mm256_castsi256_si128(v);
    let hi = _mm256_extracti128_si256::<1>(v);
    // SAFETY: the caller's promise.
    unsafe {
        _mm256_storeu_si256(out.cast(), _mm256_cvtepu8_epi32(lo));
        _mm256_storeu_si256(
            out.add(8).cast(),
            _mm256_cvtepu8_epi32(_mm_srli_si128::<8>(lo)),
        );
        _mm256_storeu_si256(out.add(16).cast(), _mm256_cvtepu8_epi32(hi));
        _mm256_storeu_si256(
            out.add(24).cast(),
            _mm256_cvtepu8_epi32(_mm_srli_si128::<8>(hi)),
        );
    }
}

/// Values a UTF-32 → UTF-8 step reads.
const STEP32: usize = 16;

/// Room a UTF-32 → UTF-8 step's whole-register stores need: 16 values make
/// at most 64 bytes, and no store reaches past the 64th.
const ROOM32: usize = 64;

/// Values left from which a UTF-32 → UTF-8 step stores whole registers:
/// its stores reach at most 12 bytes past its output, and the 12 or more
/// values after the step make at least 12 bytes, written over them. Nearer
/// the end a step packs its output in a local buffer and copies exactly it.
const TAIL32: usize = STEP32 + 12;

/// Values left after the UTF-32 → UTF-8 steps from which a masked step
/// converts them (fewer are left to the scalar kernel: at about 35
/// instructions a value it is cheaper than a step's 110 up to 3 values).
const TAIL32_MIN: usize = 4;

/// `pshufb` indices packing the UTF-8 of 4 values held in 32-bit lanes with
/// their bytes in reverse order (the last byte in the low byte, the lead
/// byte at byte `len - 1`; see [`encode8_any`]) to the start. Bit `k` of the
/// index is set if value `k` has 2 or 4 bytes, bit `k + 4` if it has 3 or
/// 4.
const fn pack1234_table() -> [[u8; 16]; 256] {
    let mut table = [[0x80u8; 16]; 256];
    let mut index = 0;
    while index < 256 {
        let mut out = 0;
        let mut lane = 0;
        while lane < 4 {
            let len = 1 + ((index >> lane) & 1) + 2 * ((index >> (lane + 4)) & 1);
            let mut j = len;
            while j > 0 {
                j -= 1;
                table[index][out] = (4 * lane + j) as u8;
                out += 1;
            }
            lane += 1;
        }
        index += 1;
    }
    table
}

static PACK1234: Aligned<[[u8; 16]; 256]> = Aligned(pack1234_table());

/// Loads the 16 `pshufb` indices of `row`.
#[target_feature(enable = "avx2")]
#[inline]
fn row(row: &[u8; 16]) -> __m128i {
    // SAFETY: a row is 16 readable bytes.
    unsafe { _mm_loadu_si128(row.as_ptr().cast()) }
}

/// The bytes a group of [`PACK1234`] index `index` holds.
#[inline(always)]
fn len1234(index: u32) -> usize {
    4 + (index & 0xF).count_ones() as usize + 2 * (index >> 4).count_ones() as usize
}

/// Narrows 16 values in `a` and `b` (8 each, all below `10000`) to the
/// 16-bit lanes of one register, in order.
#[target_feature(enable = "avx2")]
#[inline]
fn narrow16(a: __m256i, b: __m256i) -> __m256i {
    // `vpackusdw` interleaves the 128-bit lanes: a0-3 b0-3 | a4-7 b4-7.
    _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(a, b))
}

/// Encodes 16 values below `800` (16-bit lanes of `u`, in order) as UTF-8
/// at `out`; returns the bytes written (16 to 32).
///
/// # Safety
///
/// 32 bytes at `out` are writable (two 16-byte stores, the second at most
/// 16 bytes on).
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn encode16_short(u: __m256i, out: *mut u8) -> usize {
    // Two bytes, the lead in the low byte: 110aaaaa 10bbbbbb.
    let two = _mm256_or_si256(
        _mm256_or_si256(
            _mm256_srli_epi16::<6>(u),
            _mm256_and_si256(_mm256_slli_epi16::<8>(u), _mm256_set1_epi16(0x3F00)),
        ),
        _mm256_set1_epi16(0x80C0u16 as i16),
    );
    let big = _mm256_cmpgt_epi16(u, _mm256_set1_epi16(0x7F));
    let lanes = _mm256_blendv_epi8(u, two, big);
    // One bit per value: bits 0..8 for the low 128-bit lane, 16..24 for
    // the high one.
    let m = _mm256_movemask_epi8(_mm256_packs_epi16(big, big)) as u32;
    let (m0, m1) = (m & 0xFF, (m >> 16) & 0xFF);
    let p0 = _mm_shuffle_epi8(_mm256_castsi256_si128(lanes), row(&WIDEN.0[m0 as usize]));
    let p1 = _mm_shuffle_epi8(
        _mm256_extracti128_si256::<1>(lanes),
        row(&WIDEN.0[m1 as usize]),
    );
    let n0 = 8 + m0.count_ones() as usize;
    // SAFETY: 16 bytes at `out` and at `out + n0` (`n0 <= 16`): inside the
    // 32 writable ones.
    unsafe {
        _mm_storeu_si128(out.cast(), p0);
        _mm_storeu_si128(out.add(n0).cast(), p1);
    }
    n0 + 8 + m1.count_ones() as usize
}

/// Encodes 16 values below `10000`, none a surrogate (16-bit lanes of `u`,
/// in order), as UTF-8 at `out`; returns the bytes written (16 to 48).
///
/// Each value gets a 32-bit lane `[value, last, lead3, lead2/mid]`: its low
/// byte (the whole value if ASCII), the last byte of its 2- or 3-byte form,
/// the lead byte of its 3-byte form, and the lead of its 2-byte form or the
/// middle byte of its 3-byte form (they differ in bit 6). [`PACK123`] picks
/// the bytes each value needs.
///
/// # Safety
///
/// 52 bytes at `out` are writable (four 16-byte stores, the last at most
/// 36 bytes on).
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn encode16_bmp(u: __m256i, out: *mut u8) -> usize {
    let high5 = _mm256_and_si256(u, _mm256_set1_epi16(0xF800u16 as i16));
    let short = _mm256_cmpeq_epi16(high5, _mm256_setzero_si256());
    let ascii = _mm256_cmpeq_epi16(
        _mm256_and_si256(u, _mm256_set1_epi16(0xFF80u16 as i16)),
        _mm256_setzero_si256(),
    );
    // Low word: the value's low byte, then 10cccccc.
    let dup_low = _mm256_setr_epi8(
        0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12, 12, 14, 14, 0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10,
        12, 12, 14, 14,
    );
    let lo = _mm256_or_si256(
        _mm256_and_si256(_mm256_shuffle_epi8(u, dup_low), _mm256_set1_epi16(0x3FFF)),
        _mm256_set1_epi16(0x8000u16 as i16),
    );
    // High word: 1110aaaa, then 110bbbbb (short) or 10bbbbbb.
    let marks = _mm256_blendv_epi8(
        _mm256_set1_epi16(0x80E0u16 as i16),
        _mm256_set1_epi16(0xC0E0u16 as i16),
        short,
    );
    let hi = _mm256_or_si256(
        _mm256_or_si256(
            _mm256_srli_epi16::<12>(u),
            _mm256_and_si256(_mm256_slli_epi16::<2>(u), _mm256_set1_epi16(0x3F00)),
        ),
        marks,
    );
    // Values 0-3 | 8-11 and 4-7 | 12-15.
    let x = _mm256_unpacklo_epi16(lo, hi);
    let y = _mm256_unpackhi_epi16(lo, hi);
    let m = (_mm256_movemask_epi8(ascii) as u32 & 0x5555_5555)
        | (_mm256_movemask_epi8(short) as u32 & 0xAAAA_AAAA);
    let g = |k: u32| ((m >> (8 * k)) & 0xFF) as usize;
    let p0 = _mm_shuffle_epi8(_mm256_castsi256_si128(x), row(&PACK123.0[g(0)]));
    let p1 = _mm_shuffle_epi8(_mm256_castsi256_si128(y), row(&PACK123.0[g(1)]));
    let p2 = _mm_shuffle_epi8(_mm256_extracti128_si256::<1>(x), row(&PACK123.0[g(2)]));
    let p3 = _mm_shuffle_epi8(_mm256_extracti128_si256::<1>(y), row(&PACK123.0[g(3)]));
    let n = |k: u32| 12 - g(k).count_ones() as usize;
    let (n0, n1, n2) = (n(0), n(1), n(2));
    // SAFETY: 16-byte stores at 0, `n0`, `n0 + n1`, `n0 + n1 + n2` (at
    // most 36): inside the 52 writable bytes.
    unsafe {
        _mm_storeu_si128(out.cast(), p0);
        _mm_storeu_si128(out.add(n0).cast(), p1);
        _mm_storeu_si128(out.add(n0 + n1).cast(), p2);
        _mm_storeu_si128(out.add(n0 + n1 + n2).cast(), p3);
    }
    48 - m.count_ones() as usize
}

/// The 6-bit groups of each 32-bit lane of `u` spread to bytes: bits 0..6
/// to byte 0, 6..12 to byte 1, 12..18 to byte 2, 18..24 to byte 3.
#[target_feature(enable = "avx2")]
#[inline]
fn spread6(u: __m256i) -> __m256i {
    _mm256_or_si256(
        _mm256_or_si256(
            _mm256_and_si256(u, _mm256_set1_epi32(0x3F)),
            _mm256_and_si256(_mm256_slli_epi32::<2>(u), _mm256_set1_epi32(0x3F00)),
        ),
        _mm256_or_si256(
            _mm256_and_si256(_mm256_slli_epi32::<4>(u), _mm256_set1_epi32(0x3F_0000)),
            _mm256_and_si256(_mm256_slli_epi32::<6>(u), _mm256_set1_epi32(0x3F00_0000)),
        ),
    )
}

/// Encodes 8 scalar values (the 32-bit lanes of `u`) as UTF-8 at `out`;
/// returns the bytes written (8 to 32).
///
/// Each lane gets its character's bytes in reverse order (the lead byte at
/// byte `len - 1`), which is [`spread6`] and the marker bits of its length;
/// [`PACK1234`] reverses and packs them.
///
/// # Safety
///
/// 32 bytes at `out` are writable (two 16-byte stores, the second at most
/// 16 bytes on).
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn encode8_any(u: __m256i, out: *mut u8) -> usize {
    // (Scalar values are below 2^31: signed compares are right.)
    let ge2 = _mm256_cmpgt_epi32(u, _mm256_set1_epi32(0x7F));
    let ge3 = _mm256_cmpgt_epi32(u, _mm256_set1_epi32(0x7FF));
    let ge4 = _mm256_cmpgt_epi32(u, _mm256_set1_epi32(0xFFFF));
    // Markers: 2 bytes C080, 3 bytes E08080, 4 bytes F0808080.
    let marks = _mm256_xor_si256(
        _mm256_xor_si256(
            _mm256_and_si256(ge2, _mm256_set1_epi32(0xC080)),
            _mm256_and_si256(ge3, _mm256_set1_epi32(0xE0_4000)),
        ),
        _mm256_and_si256(ge4, _mm256_set1_epi32(0xF060_0000u32 as i32)),
    );
    let lanes = _mm256_blendv_epi8(u, _mm256_or_si256(spread6(u), marks), ge2);
    // Bit k: 2 or 4 bytes (`ge2 ^ ge3 ^ ge4`); bit k + 8: 3 or 4 (`ge3`).
    let odd = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_xor_si256(
        _mm256_xor_si256(ge2, ge3),
        ge4,
    ))) as u32;
    let big = _mm256_movemask_ps(_mm256_castsi256_ps(ge3)) as u32;
    let i0 = (odd & 0xF) | ((big & 0xF) << 4);
    let i1 = (odd >> 4) | (big & 0xF0);
    let p0 = _mm_shuffle_epi8(_mm256_castsi256_si128(lanes), row(&PACK1234.0[i0 as usize]));
    let p1 = _mm_shuffle_epi8(
        _mm256_extracti128_si256::<1>(lanes),
        row(&PACK1234.0[i1 as usize]),
    );
    let n0 = len1234(i0);
    // SAFETY: 16 bytes at `out` and at `out + n0` (`n0 <= 16`): inside the
    // 32 writable ones.
    unsafe {
        _mm_storeu_si128(out.cast(), p0);
        _mm_storeu_si128(out.add(n0).cast(), p1);
    }
    n0 + len1234(i1)
}

/// Encodes 8 supplementary values (`10000..=10FFFF`, the 32-bit lanes of
/// `u`) as UTF-8: 32 bytes.
#[target_feature(enable = "avx2")]
#[inline]
fn encode8_four(u: __m256i) -> __m256i {
    let lanes = _mm256_or_si256(spread6(u), _mm256_set1_epi32(0xF080_8080u32 as i32));
    let reverse = _mm256_setr_epi8(
        3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8,
        15, 14, 13, 12,
    );
    _mm256_shuffle_epi8(lanes, reverse)
}

/// All-ones in the 32-bit lanes of `u` that hold scalar values: not a
/// surrogate, and at most `10FFFF` (`min(u, 10FFFF) == u`, unsigned).
#[target_feature(enable = "avx2")]
#[inline]
fn scalar_values(u: __m256i) -> __m256i {
    let in_range = _mm256_cmpeq_epi32(_mm256_min_epu32(u, _mm256_set1_epi32(0x10_FFFF)), u);
    let surrogate = _mm256_cmpeq_epi32(
        _mm256_and_si256(u, _mm256_set1_epi32(0xFFFF_F800u32 as i32)),
        _mm256_set1_epi32(0xD800),
    );
    _mm256_andnot_si256(surrogate, in_range)
}

/// All-ones in the 32-bit lanes of `u` that hold supplementary values
/// (`10000..=10FFFF`).
#[target_feature(enable = "avx2")]
#[inline]
fn supplementary(u: __m256i) -> __m256i {
    let t = _mm256_sub_epi32(u, _mm256_set1_epi32(0x1_0000));
    _mm256_cmpeq_epi32(_mm256_min_epu32(t, _mm256_set1_epi32(0xF_FFFF)), t)
}

/// Narrows 16 ASCII values (`a` then `b`, 8 each) to 16 bytes.
#[target_feature(enable = "avx2")]
#[inline]
fn narrow_ascii16(a: __m256i, b: __m256i) -> __m128i {
    let w = _mm256_packus_epi32(a, b);
    // Bytes a0-3 b0-3 (twice) | a4-7 b4-7 (twice): gather the dwords.
    let bytes = _mm256_packus_epi16(w, w);
    let order = _mm256_setr_epi32(0, 4, 1, 5, 0, 4, 1, 5);
    _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(bytes, order))
}

/// Converts UTF-32 to UTF-8 at `dst`, 16 values a step, while a step's
/// values remain (and its output fits); without `LOSSY` up to the first
/// step holding an invalid value (a surrogate or a value above `10FFFF`,
/// which the scalar kernel reports), with `LOSSY` replacing each invalid
/// value by U+FFFD.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf32_to_utf8<const LOSSY: bool>(
    src: &[u32],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    let mut i = 0;
    let mut o = 0;
    let p = src.as_ptr();
    if src.len() >= STREAM_MIN && cap >= STREAM_MIN {
        // SAFETY: the caller's contract.
        i = unsafe { ascii_stream_from_utf32(src, dst, cap) };
        o = i;
    }
    let not_ascii = _mm256_set1_epi32(!0x7F);
    // Invariants: `i <= src.len()`, `o <= cap`.
    'steps: while src.len() - i >= STEP32 {
        // SAFETY: values `i..i + 16` are readable.
        let (mut a, mut b) = unsafe {
            (
                _mm256_loadu_si256(p.add(i).cast()),
                _mm256_loadu_si256(p.add(i + 8).cast()),
            )
        };
        // SAFETY: `o <= cap`: inside (or one past) the output.
        let out = unsafe { dst.add(o) };
        let any = _mm256_or_si256(a, b);
        if _mm256_testz_si256(any, not_ascii) != 0 {
            if src.len() - i >= 2 * STEP32 && cap - o >= 2 * STEP32 {
                // SAFETY: values `i + 16..i + 32` are readable.
                let (c, d) = unsafe {
                    (
                        _mm256_loadu_si256(p.add(i + 16).cast()),
                        _mm256_loadu_si256(p.add(i + 24).cast()),
                    )
                };
                if _mm256_testz_si256(_mm256_or_si256(c, d), not_ascii) != 0 {
                    let bytes =
                        _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
                    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
                    let bytes = _mm256_permutevar8x32_epi32(bytes, order);
                    // SAFETY: 32 of the `cap - o` writable bytes.
                    unsafe { _mm256_storeu_si256(out.cast(), bytes) };
                    i += 2 * STEP32;
                    o += 2 * STEP32;
                    continue;
                }
            }
            if cap - o < STEP32 {
                break;
            }
            // SAFETY: 16 of the `cap - o` writable bytes.
            unsafe { _mm_storeu_si128(out.cast(), narrow_ascii16(a, b)) };
            i += STEP32;
            o += STEP32;
            continue;
        }
        // Whole-register stores straight to the output, or (near the end
        // of the input or the room) to `buf`, then exactly the output.
        let whole = src.len() - i >= TAIL32 && cap - o >= ROOM32;
        let mut buf = [0u8; ROOM32];
        let w = if whole { out } else { buf.as_mut_ptr() };
        // SAFETY: `ROOM32` bytes at `w` are writable.
        let Some(n) = (unsafe { encode_step!(a, b, any, w, LOSSY) }) else {
            break 'steps;
        };
        if !whole {
            if n > cap - o {
                break;
            }
            // SAFETY: `n <= cap - o` bytes from `buf` (`n <= 64`).
            unsafe { copy_short(buf.as_ptr(), out, n) };
        }
        i += STEP32;
        o += n;
    }
    let r = src.len() - i;
    if (TAIL32_MIN..STEP32).contains(&r) {
        // SAFETY: values `i..len` are readable, `cap - o` bytes at `dst +
        // o` writable.
        if let Some(n) = unsafe { utf32_to_utf8_last::<LOSSY>(p.add(i), r, dst.add(o), cap - o) } {
            i += r;
            o += n;
        }
    }
    Progress {
        read: i,
        written: o,
    }
}

/// Encodes the 16 values of the registers `$a` and `$b` (`$any`, their
/// OR) as UTF-8 at `$w` (whole registers, [`ROOM32`] bytes writable there):
/// `Some` of the bytes of the output, or `None` unless `$lossy` if a value
/// is not a scalar value (with `$lossy` those become U+FFFD in `$a` and
/// `$b`). A macro, so that the steps of the loop and of
/// [`utf32_to_utf8_last`] are each written in line (as a function called
/// from both, LLVM kept it out of line: 0.7–0.9× on 1 MiB of lipsum text).
macro_rules! encode_step {
    ($a:ident, $b:ident, $any:expr, $w:expr, $lossy:expr) => {
        'step: {
            let (any, w) = ($any, $w);
            if _mm256_testz_si256(any, _mm256_set1_epi32(!0x7FF)) != 0 {
                break 'step Some(encode16_short(narrow16($a, $b), w));
            }
            if _mm256_testz_si256(any, _mm256_set1_epi32(!0xFFFF)) != 0 {
                let u = narrow16($a, $b);
                let surrogates = _mm256_cmpeq_epi16(
                    _mm256_and_si256(u, _mm256_set1_epi16(0xF800u16 as i16)),
                    _mm256_set1_epi16(0xD800u16 as i16),
                );
                if _mm256_testz_si256(surrogates, surrogates) != 0 {
                    break 'step Some(encode16_bmp(u, w));
                }
            }
            let (ok_a, ok_b) = (scalar_values($a), scalar_values($b));
            if _mm256_movemask_epi8(_mm256_and_si256(ok_a, ok_b)) != -1 {
                if !$lossy {
                    break 'step None;
                }
                let replacement = _mm256_set1_epi32(0xFFFD);
                $a = _mm256_blendv_epi8(replacement, $a, ok_a);
                $b = _mm256_blendv_epi8(replacement, $b, ok_b);
            }
            let four = _mm256_and_si256(supplementary($a), supplementary($b));
            if _mm256_movemask_epi8(four) == -1 {
                // (64 bytes at `w`.)
                _mm256_storeu_si256(w.cast(), encode8_four($a));
                _mm256_storeu_si256(w.add(32).cast(), encode8_four($b));
                Some(64)
            } else {
                // (32 bytes at `w` and 32 at `w + n`, `n <= 32`: inside the
                // 64.)
                let n = encode8_any($a, w);
                Some(n + encode8_any($b, w.add(n)))
            }
        }
    };
}
use encode_step;

/// Converts the last `r` values (`TAIL32_MIN <= r < 16`) at `q` to UTF-8 at
/// `out` as one step loaded with masks (`vpmaskmovd` loads: the lanes past
/// the input load 0, whose one byte each is dropped from the end of the
/// output), packed in a local buffer and copied exactly if it fits in
/// `room` bytes; returns its length, or `None` (nothing written) if it does
/// not fit or, unless `LOSSY`, a value is not a scalar value. Out of line:
/// the loop stays as it was without it.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `r` values at `q` are readable, `room` bytes at `out` writable;
///   `r < 16`.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline(never)]
unsafe fn utf32_to_utf8_last<const LOSSY: bool>(
    q: *const u32,
    r: usize,
    out: *mut u8,
    room: usize,
) -> Option<usize> {
    let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let first = _mm256_cmpgt_epi32(_mm256_set1_epi32(r as i32), lane);
    let second = _mm256_cmpgt_epi32(_mm256_set1_epi32(r as i32 - 8), lane);
    // SAFETY: the masks enable values `0..r` only (masked-off lanes are
    // not read, cannot fault, and load 0); the second register is loaded
    // only if some of its values are there.
    let (mut a, mut b) = unsafe {
        let a = _mm256_maskload_epi32(q.cast(), first);
        let b = if r > 8 {
            _mm256_maskload_epi32(q.add(8).cast(), second)
        } else {
            _mm256_setzero_si256()
        };
        (a, b)
    };
    let mut buf = [0u8; ROOM32];
    let w = buf.as_mut_ptr();
    // SAFETY: `ROOM32` bytes at `w` are writable.
    let n = unsafe { encode_step!(a, b, _mm256_or_si256(a, b), w, LOSSY) }? - (STEP32 - r);
    if n > room {
        return None;
    }
    // SAFETY: `n <= room` bytes from `buf` (`n < 64`) to `out`.
    unsafe { copy_short(buf.as_ptr(), out, n) };
    Some(n)
}

/// Values per step of [`utf8_len_from_utf32`].
const LEN_STEP: usize = 16;

/// Steps per round of [`utf8_len_from_utf32`]: its 16-bit counters move by
/// at most 2 a step, so 8192 steps stay within an `i16`.
const LEN_ROUND: usize = 8192;

/// The UTF-8 length of `units` (each invalid value counted as U+FFFD, 3
/// bytes), 16 values a step: one byte per value, plus one for each above
/// `7F`, one for each above `7FF` and one for each above `FFFF`. The first
/// two thresholds are tested on 16-bit lanes, after packing two registers
/// with signed saturation (`vpackssdw`: everything from `8000` up becomes
/// `7FFF`, still above both), the third on the 32-bit values; that is
/// right for every value up to `10FFFF` (surrogates, counted 3, included).
/// A round of values with one above `10FFFF` (which the packing would turn
/// negative, and which counts 3, not 4) is counted again by
/// [`utf8_len_exact`]: its maximum is kept on the way. Returns the length of
/// the values it counted and the rest (fewer than 16).
///
/// On Zen 3, 64 KiB of lipsum text in L2: 1.2–1.3× simdutf's
/// `utf8_length_from_utf32`; the exact count alone (three 32-bit masks per
/// 8 values, two of them `min`/`cmpeq` pairs) ran 0.6–0.75×, and with
/// `and`/`cmpeq` masks and three accumulators 0.9–1.0×.
///
/// # Safety
///
/// The CPU supports the enabled features.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn utf8_len_from_utf32(units: &[u32]) -> (usize, &[u32]) {
    if (8..=SHORT_LEN).contains(&units.len()) {
        return (utf8_len_short(units), &[]);
    }
    let (whole, rest) = units.split_at(units.len() / LEN_STEP * LEN_STEP);
    let mut len = 0;
    for round in whole.chunks(LEN_STEP * LEN_ROUND) {
        let mut over_ff = _mm256_setzero_si256();
        let mut over_ffff = _mm256_setzero_si256();
        let mut max = _mm256_setzero_si256();
        for step in round.chunks_exact(LEN_STEP) {
            // SAFETY: `step` is 16 readable values.
            let (a, b) = unsafe {
                (
                    _mm256_loadu_si256(step.as_ptr().cast()),
                    _mm256_loadu_si256(step.as_ptr().add(8).cast()),
                )
            };
            max = _mm256_max_epu32(max, _mm256_max_epu32(a, b));
            let ffff = _mm256_set1_epi32(0xFFFF);
            // Masks are -1 where true: the counters count down.
            over_ffff = _mm256_add_epi32(
                over_ffff,
                _mm256_add_epi32(_mm256_cmpgt_epi32(a, ffff), _mm256_cmpgt_epi32(b, ffff)),
            );
            let words = _mm256_packs_epi32(a, b);
            over_ff = _mm256_add_epi16(
                over_ff,
                _mm256_add_epi16(
                    _mm256_cmpgt_epi16(words, _mm256_set1_epi16(0x7F)),
                    _mm256_cmpgt_epi16(words, _mm256_set1_epi16(0x7FF)),
                ),
            );
        }
        // A value from `8000_0000` up reads as negative to the signed
        // compare: test the sign bits apart.
        let above = _mm256_cmpgt_epi32(max, _mm256_set1_epi32(0x10_FFFF));
        if _mm256_movemask_epi8(above) != 0 || _mm256_movemask_ps(_mm256_castsi256_ps(max)) != 0 {
            len += utf8_len_exact(round);
            continue;
        }
        let sums = _mm256_add_epi32(_mm256_madd_epi16(over_ff, _mm256_set1_epi16(1)), over_ffff);
        len += round.len() + sum_lanes(sums);
    }
    (len, rest)
}

/// Values up to which [`utf8_len_from_utf32`] counts with
/// [`utf8_len_short`] (in-process A/B on Zen 3 against the packed count
/// with a scalar rest: 16 values 1.16–1.20, 24 values 1.42, but 32
/// values 0.94–1.00 and 64 values 0.72–0.74).
const SHORT_LEN: usize = 31;

/// The UTF-8 length of 8..=[`SHORT_LEN`] `units` (each invalid value
/// counted 3), without the packed counters' setup and reduction: 3 a
/// value, less one per value up to `7F` and one per value up to `7FF`,
/// plus one per supplementary value, counted by `movmskps` and `popcnt` of
/// 8 values at a time, the last 8 overlapping (their masks shifted past
/// the values counted already).
#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn utf8_len_short(units: &[u32]) -> usize {
    let n = units.len();
    let p = units.as_ptr();
    // (Number of values up to 7F, up to 7FF, and supplementary) among the
    // 8 at `q`, as lane masks.
    let masks = |q: *const u32| {
        // SAFETY: (the callers') 8 readable values at `q`.
        let v = unsafe { _mm256_loadu_si256(q.cast()) };
        let upto = |max: i32| {
            _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(
                _mm256_min_epu32(v, _mm256_set1_epi32(max)),
                v,
            ))) as u32
        };
        let t = _mm256_sub_epi32(v, _mm256_set1_epi32(0x1_0000));
        let four = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(
            _mm256_min_epu32(t, _mm256_set1_epi32(0xF_FFFF)),
            t,
        ))) as u32;
        (upto(0x7F), upto(0x7FF), four)
    };
    let count = |(a, b, c): (u32, u32, u32)| {
        c.count_ones() as isize - a.count_ones() as isize - b.count_ones() as isize
    };
    let mut len = 3 * n as isize;
    let mut k = 0;
    while n - k >= 8 {
        // `k + 8 <= n`.
        len += count(masks(p.wrapping_add(k)));
        k += 8;
    }
    if k < n {
        // The last 8 values, of which the first `8 - (n - k)` were counted.
        let (a, b, c) = masks(p.wrapping_add(n - 8));
        let s = 8 - (n - k);
        len += count((a >> s, b >> s, c >> s));
    }
    len as usize
}

/// The negated sum of the (non-positive) `i32` lanes of `v`, in registers
/// (the sums of a round, at most 3 × 131072, fit an `i32`).
#[target_feature(enable = "avx2")]
#[inline]
fn sum_lanes(v: __m256i) -> usize {
    let s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    let s = _mm_add_epi32(s, _mm_unpackhi_epi64(s, s));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<1>(s));
    _mm_cvtsi128_si32(s).unsigned_abs() as usize
}

/// The UTF-8 length of `units` (a multiple of 8 values, each invalid one
/// counted 3), 8 values a step with 32-bit masks: for rounds of
/// [`utf8_len_from_utf32`] with a value above `10FFFF`.
#[target_feature(enable = "avx2")]
fn utf8_len_exact(units: &[u32]) -> usize {
    let z = _mm256_setzero_si256();
    let (mut upto_7f, mut upto_7ff, mut four) = (z, z, z);
    for step in units.chunks_exact(8) {
        // SAFETY: `step` is 8 readable values.
        let v = unsafe { _mm256_loadu_si256(step.as_ptr().cast()) };
        let none_of =
            |bits: u32| _mm256_cmpeq_epi32(_mm256_and_si256(v, _mm256_set1_epi32(bits as i32)), z);
        upto_7f = _mm256_add_epi32(upto_7f, none_of(!0x7F));
        upto_7ff = _mm256_add_epi32(upto_7ff, none_of(!0x7FF));
        // `10000..=10FFFF`: 0 to FFFFF after subtracting 10000.
        let t = _mm256_sub_epi32(v, _mm256_set1_epi32(0x1_0000));
        four = _mm256_add_epi32(
            four,
            _mm256_cmpeq_epi32(_mm256_and_si256(t, _mm256_set1_epi32(!0xF_FFFF)), z),
        );
    }
    // 3 a value, less one per value up to 7F and up to 7FF, plus one per
    // supplementary value (the masks are -1 where true).
    3 * units.len() + sum_lanes(four) - sum_lanes(_mm256_add_epi32(upto_7f, upto_7ff))
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use std::string::String;
    use std::vec;
    use std::vec::Vec;

    /// UTF-32 → UTF-8 by the kernel into `cap` bytes: checks the output
    /// against std's encoding of the values it read (with U+FFFD for
    /// invalid ones if `LOSSY`), that it stopped only where it had to, and
    /// that nothing is written past its output.
    fn encode<const LOSSY: bool>(values: &[u32], cap: usize) -> Progress {
        let utf8 = |vs: &[u32]| -> String {
            vs.iter()
                .map(|&v| char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect()
        };
        let mut out = vec![0xA5u8; cap + 64];
        // SAFETY: the features were checked; `out` has `cap` bytes and more.
        let p = unsafe { utf32_to_utf8::<LOSSY>(values, out.as_mut_ptr(), cap) };
        let done = &values[..p.read];
        if !LOSSY {
            assert!(done.iter().all(|&v| char::from_u32(v).is_some()));
        }
        assert_eq!(&out[..p.written], utf8(done).as_bytes(), "{values:X?}");
        let want = utf8(values);
        let want = want.as_bytes();
        // Finished as the wrapper does (if the conversion succeeds and fits).
        if (LOSSY || values.iter().all(|&v| char::from_u32(v).is_some())) && want.len() <= cap {
            out[p.written..want.len()].copy_from_slice(&want[p.written..]);
            assert!(out[want.len()..].iter().all(|&b| b == 0xA5), "{values:X?}");
            // Converted all of it, or left fewer values than a masked
            // step takes.
            assert!(
                p.read == values.len() || values.len() - p.read < TAIL32_MIN,
                "{values:X?} {p:?}"
            );
        } else {
            assert!(p.written <= cap);
            assert!(out[cap..].iter().all(|&b| b == 0xA5), "{values:X?}");
        }
        p
    }

    /// UTF-8 → UTF-32 by the kernel into `cap` values: checks the output
    /// against std up to where it stopped (a character boundary), finishes
    /// it with std's values from there (as the wrapper does with the scalar
    /// kernel) and checks that nothing is left written past it.
    fn decode(text: &str, cap: usize) -> Progress {
        let want: Vec<u32> = text.chars().map(u32::from).collect();
        let mut out = vec![0xA5A5_A5A5u32; cap.max(want.len()) + 64];
        // SAFETY: the features were checked; `out` has `cap` values and more.
        let p = unsafe { utf8_to_utf32::<false>(text.as_bytes(), out.as_mut_ptr(), cap) };
        let done = text.get(..p.read).expect("stops at a character boundary");
        let done: Vec<u32> = done.chars().map(u32::from).collect();
        assert_eq!(&out[..p.written], &done[..], "{text:?}");
        assert!(p.written <= cap);
        if want.len() <= cap {
            // The kernel converts all the input when it fits.
            assert_eq!(p.read, text.len(), "{text:?}");
        } else {
            // It stops only for want of room.
            assert!(want.len() - p.written > 0);
        }
        // Finished as the wrapper does: nothing is left written past the
        // output, nor past the room.
        let end = want.len().min(cap);
        out[p.written..end].copy_from_slice(&want[p.written..end]);
        assert!(out[end..].iter().all(|&v| v == 0xA5A5_A5A5), "{text:?}");
        p
    }

    /// One character of each UTF-8 length, at the ends of each range.
    const CHARS: [char; 10] = [
        '\0', 'a', '\u{7F}', '\u{80}', 'é', '\u{7FF}', '\u{800}', '€', '\u{FFFF}', '😀',
    ];

    #[test]
    fn utf8_every_char_kind_at_every_offset() {
        if !super::super::avx2_transcode() {
            return;
        }
        // From 160 bytes on, ASCII runs reach the 128-byte steps after an
        // ASCII block, with the other character in every lane of them.
        let lens = [
            32, 33, 35, 36, 40, 63, 64, 65, 67, 68, 96, 100, 128, 131, 160, 161, 163, 192, 196,
            260, 290,
        ];
        for len in lens {
            for at in 0..len {
                for kind in CHARS.into_iter().chain(['\u{10FFFF}']) {
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
                        let n = text.chars().count();
                        for cap in [n, n + 40, n - 1, n / 2] {
                            decode(&text, cap);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn utf8_every_length_below_130_and_every_phase() {
        if !super::super::avx2_transcode() {
            return;
        }
        for len in 0..130 {
            for fill in ['a', 'é', '€', '😀'] {
                for phase in 0..4 {
                    // A shorter character first shifts the fill's phase
                    // against the 32-byte blocks.
                    let mut text: String = "\u{FEFF}ab".chars().take(phase).collect();
                    while text.len() + fill.len_utf8() <= len {
                        text.push(fill);
                    }
                    let n = text.chars().count();
                    decode(&text, n);
                    decode(&text, n + 7);
                    // Short room: the tail stops before the values that
                    // do not fit, and writes nothing past the room.
                    decode(&text, n.saturating_sub(1));
                    decode(&text, n.saturating_sub(9));
                }
            }
        }
    }

    #[test]
    fn utf8_mixed_lengths_in_many_patterns() {
        if !super::super::avx2_transcode() {
            return;
        }
        for seed in 0u64..3000 {
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            // Mostly one length, with others mixed in at a rate by seed.
            let main = CHARS[(seed % 10) as usize];
            let text: String = (0..(seed % 200) as usize)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if x % 8 < seed % 9 {
                        CHARS[((x >> 8) % 10) as usize]
                    } else {
                        main
                    }
                })
                .collect();
            let n = text.chars().count();
            decode(&text, n);
            decode(&text, n.saturating_sub(3));
        }
    }

    #[test]
    fn utf8_ascii_only_stops_at_the_first_other_block() {
        if !super::super::avx2_transcode() {
            return;
        }
        for len in [64, 100, 160] {
            for at in 0..len {
                let mut bytes = vec![b'x'; len];
                bytes[at] = 0xFF;
                let mut out = vec![0u32; len];
                // SAFETY: the features were checked; `out` is `len` values.
                let p = unsafe { utf8_to_utf32::<true>(&bytes, out.as_mut_ptr(), len) };
                assert_eq!(p.read, at / BLOCK * BLOCK);
                assert_eq!(p.written, p.read);
                assert!(out[..p.written].iter().all(|&v| v == u32::from(b'x')));
            }
        }
    }

    #[test]
    fn utf8_len_matches_the_scalar_count() {
        if !super::super::avx2_transcode() {
            return;
        }
        let len1 = |v: u32| char::from_u32(v).map_or(3, char::len_utf8);
        for n in 0..70 {
            for kind in KINDS {
                for fill in [0x61, 0x3B1, 0x4E2D, 0x1F642] {
                    for at in 0..n {
                        let mut values = vec![fill; n];
                        values[at] = kind;
                        let want: usize = values.iter().map(|&v| len1(v)).sum();
                        // SAFETY: the features were checked.
                        let (len, rest) = unsafe { utf8_len_from_utf32(&values) };
                        // 8..=31 values are counted whole, without the
                        // packed counters; otherwise whole steps.
                        if (8..=SHORT_LEN).contains(&n) {
                            assert!(rest.is_empty());
                        } else {
                            assert!(
                                rest.len() < LEN_STEP && n - rest.len() == n / LEN_STEP * LEN_STEP
                            );
                        }
                        let rest: usize = rest.iter().map(|&v| len1(v)).sum();
                        assert_eq!(len + rest, want, "{values:X?}");
                    }
                }
            }
        }
    }

    /// The UTF-8 length over several rounds of the 16-bit counters, with a
    /// value above `10FFFF` (or none) in one round only: that round is
    /// counted exactly, the others by the packed count.
    #[test]
    fn utf8_len_across_rounds() {
        if !super::super::avx2_transcode() {
            return;
        }
        let len1 = |v: u32| char::from_u32(v).map_or(3, char::len_utf8);
        let n = 2 * LEN_STEP * LEN_ROUND + 37;
        for bad in [None, Some(0x11_0000), Some(0x8000_0000), Some(u32::MAX)] {
            for at in [
                0,
                LEN_STEP * LEN_ROUND - 1,
                LEN_STEP * LEN_ROUND + 5,
                n - 40,
            ] {
                let mut values: Vec<u32> = (0..n as u32)
                    .map(|i| {
                        [0x61, 0x7FF, 0x800, 0xFFFF, 0x1_0000, 0x10_FFFF, 0xD800][i as usize % 7]
                    })
                    .collect();
                if let Some(b) = bad {
                    values[at] = b;
                }
                let want: usize = values.iter().map(|&v| len1(v)).sum();
                // SAFETY: the features were checked.
                let (len, rest) = unsafe { utf8_len_from_utf32(&values) };
                let rest: usize = rest.iter().map(|&v| len1(v)).sum();
                assert_eq!(len + rest, want, "{bad:X?} at {at}");
            }
        }
    }

    const KINDS: [u32; 20] = [
        0x0,
        0x61,
        0x7F,
        0x80,
        0xE9,
        0x7FF,
        0x800,
        0x20AC,
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
        0xFFFF_FFFF,
    ];

    #[test]
    fn utf32_every_value_kind_at_every_offset() {
        if !super::super::avx2_transcode() {
            return;
        }
        let fills = [0x62, 0x7FF, 0x3B1, 0x20AC, 0xFFFD, 0x1F601, 0x10_FFFF];
        for len in [16, 17, 20, 27, 28, 29, 31, 32, 33, 40, 47, 48, 49, 64, 65] {
            for at in 0..len {
                for kind in KINDS {
                    for fill in fills {
                        let mut values = vec![fill; len];
                        values[at] = kind;
                        let valid = char::from_u32(kind).is_some();
                        let need: usize = values
                            .iter()
                            .map(|&v| char::from_u32(v).map_or(3, char::len_utf8))
                            .sum();
                        for cap in [need, need + 64, need.saturating_sub(1), need / 2] {
                            let p = encode::<false>(&values, cap);
                            if !valid {
                                assert!(p.read <= at, "{values:X?}");
                            }
                            encode::<true>(&values, cap);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn utf32_mixed_lengths_in_every_pattern() {
        if !super::super::avx2_transcode() {
            return;
        }
        // Each of 16 values one of 4 lengths, by the digits of a counter in
        // base 4 (a sample of the patterns), in several repetitions.
        let by_len = [0x41, 0x416, 0x4E2D, 0x1F642];
        for seed in 0u64..4096 {
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let values: Vec<u32> = (0..64)
                .map(|_| {
                    x = x.rotate_left(2);
                    by_len[(x & 3) as usize]
                })
                .collect();
            let need: usize = values
                .iter()
                .map(|&v| char::from_u32(v).unwrap().len_utf8())
                .sum();
            for cap in [need, need + 64] {
                encode::<false>(&values, cap);
                encode::<true>(&values, cap);
            }
        }
    }

    #[test]
    fn utf32_every_length_below_130() {
        if !super::super::avx2_transcode() {
            return;
        }
        for len in 0..130 {
            for fill in [0x61, 0x3B1, 0x4E2D, 0x1F642] {
                let values: Vec<u32> = (0..len as u32).map(|k| fill + k % 3).collect();
                let need: usize = values
                    .iter()
                    .map(|&v| char::from_u32(v).unwrap().len_utf8())
                    .sum();
                encode::<false>(&values, need);
                encode::<true>(&values, need + 5);
            }
        }
    }

    /// Every length 0..=130 (the steps and the masked last step of 1..=15
    /// values, or a whole input shorter than 16), every kind of value
    /// (invalid ones included) at every position, strict and lossy, with
    /// exact room, more, and one byte less.
    #[test]
    fn utf32_every_value_kind_at_every_position_to_130() {
        if !super::super::avx2_transcode() {
            return;
        }
        let kinds = [
            0x00,
            0x41,
            0xE9,
            0x7FF,
            0x800,
            0xFFFD,
            0x1_0000,
            0x10_FFFF,
            0xD800,
            0xDFFF,
            0x11_0000,
            u32::MAX,
        ];
        for len in 0..=130usize {
            for fill in [0x61, 0x4E2D, 0x1F642] {
                for at in 0..len.max(1) {
                    for kind in kinds {
                        let mut values = vec![fill; len];
                        if len > 0 {
                            values[at] = kind;
                        }
                        let need: usize = values
                            .iter()
                            .map(|&v| char::from_u32(v).map_or(3, char::len_utf8))
                            .sum();
                        let p = encode::<false>(&values, need);
                        if char::from_u32(kind).is_none() && len > 0 {
                            assert!(p.read <= at, "{values:X?}");
                        }
                        encode::<true>(&values, need);
                        encode::<true>(&values, need + 9);
                        encode::<false>(&values, need.saturating_sub(1));
                        encode::<true>(&values, need.saturating_sub(1));
                    }
                }
            }
        }
    }

    #[test]
    fn pack_tables_match_their_lengths() {
        for index in 0..256u32 {
            let used = |r: &[u8; 16]| r.iter().take_while(|&&b| b != 0x80).count();
            assert_eq!(
                used(&WIDEN.0[index as usize]),
                8 + index.count_ones() as usize
            );
            assert_eq!(used(&PACK1234.0[index as usize]), len1234(index));
            let valid = (0..4).all(|k| (index >> (2 * k)) & 3 != 1);
            if valid {
                assert_eq!(
                    used(&PACK123.0[index as usize]),
                    12 - index.count_ones() as usize
                );
            }
        }
    }

    /// The streaming ASCII prefixes at every output offset in a cache line
    /// (values: every 4 bytes), with the first non-ASCII unit at several
    /// places, exact room and one less, and guards on both sides: what they
    /// report is converted, nothing lands outside the output of the ASCII
    /// before the first non-ASCII unit, and only whole 64-byte aligned
    /// steps follow the head.
    #[test]
    fn ascii_streams_at_every_alignment() {
        if !super::super::avx2_transcode() {
            return;
        }
        for len in [
            0usize, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 300, 1000,
        ] {
            for bad in [
                None,
                Some(0),
                Some(31),
                Some(32),
                Some(47),
                Some(64),
                Some(200),
            ] {
                let bytes: Vec<u8> = (0..len)
                    .map(|k| {
                        if Some(k) == bad {
                            0xC3
                        } else {
                            (k * 7 % 128) as u8
                        }
                    })
                    .collect();
                let ascii = bad.map_or(len, |b| b.min(len));
                for shift in 0..16 {
                    for short in [0, 1] {
                        let cap = len.saturating_sub(short);
                        let mut buf = vec![0xA5A5_A5A5u32; len + 48];
                        let base = buf.as_ptr() as usize;
                        let at = (shift + 16 - base % 64 / 4) % 16;
                        // SAFETY: the features were checked; `cap` values
                        // at `buf + at` are writable.
                        let (r, w) =
                            unsafe { ascii_stream_to_utf32(&bytes, buf.as_mut_ptr().add(at), cap) };
                        assert_eq!(r, w);
                        assert!(r <= ascii && r <= cap, "{len} {bad:?} {shift}");
                        if r > 0 {
                            assert!((base + 4 * (at + r)).is_multiple_of(64));
                            assert!(ascii - r < 64 || cap - r < 64, "{len} {bad:?} {shift}");
                        }
                        // Written: a prefix of the ASCII bytes' values, at
                        // least `r` long, at most 32 (the head) if longer.
                        let end = at + r.max(if r > 0 { 32 } else { 0 });
                        for (k, &v) in buf.iter().enumerate() {
                            if k >= at && k < end {
                                assert_eq!(v, u32::from(bytes[k - at]), "{len} {bad:?} {shift}");
                            } else {
                                assert_eq!(v, 0xA5A5_A5A5, "{len} {bad:?} {shift} at {k}");
                            }
                        }
                    }
                }
                let units: Vec<u32> = bytes
                    .iter()
                    .map(|&b| if b >= 0x80 { 0x1F600 } else { u32::from(b) })
                    .collect();
                for shift in 0..64 {
                    for short in [0, 1] {
                        let cap = len.saturating_sub(short);
                        let mut buf = vec![0xA5u8; len + 192];
                        let base = buf.as_ptr() as usize;
                        let at = (shift + 64 - base % 64) % 64;
                        // SAFETY: the features were checked; `cap` bytes
                        // at `buf + at` are writable.
                        let r = unsafe {
                            ascii_stream_from_utf32(&units, buf.as_mut_ptr().add(at), cap)
                        };
                        assert!(r <= ascii && r <= cap, "{len} {bad:?} {shift}");
                        if r > 0 {
                            assert!((base + at + r).is_multiple_of(64));
                            assert!(ascii - r < 64 || cap - r < 64, "{len} {bad:?} {shift}");
                        }
                        let end = at + r.max(if r > 0 { 64 } else { 0 });
                        for (k, &v) in buf.iter().enumerate() {
                            if k >= at && k < end {
                                assert_eq!(v, bytes[k - at], "{len} {bad:?} {shift}");
                            } else {
                                assert_eq!(v, 0xA5, "{len} {bad:?} {shift} at {k}");
                            }
                        }
                    }
                }
            }
        }
    }
}
