//! AVX-512 Latin-1 ⇄ UTF-8, and the UTF-8 length of Latin-1 (the Latin-1
//! length of UTF-8 is the character count of `count_avx512`).
//!
//! # Latin-1 → UTF-8
//!
//! 64 bytes per step. An all-ASCII block is stored as it is (an ASCII
//! start, two blocks a step before anything else). Otherwise every byte `b`
//! gets two bytes, computed for the whole block at once: the lead
//! `C2`, or `C3` for `C0..=FF`, and `b` with bit 6 cleared for `C0..=FF`
//! (for `80..=FF` that is the continuation `80 | b & 3F`, and ASCII stays
//! as it is). In-lane unpacks interleave them into 64 byte pairs per half
//! block, after one qword permute of the input ([`pairs`]), and
//! `vpcompressb` keeps the second byte of every pair and the lead of the
//! pairs whose `b` is `80..=FF` (the mask is the high-bit mask deposited on
//! the even bits with `pdep`, or, for the upper half of a whole block, the
//! pairs' own high bits: see [`expand_whole`]).
//!
//! Port 5 decides the speed on Intel: a mixed block's compresses take it
//! for 4 cycles, and the pairs and masks for as few more as they can. (A
//! loop of each instruction alone on the Intel Xeon with AVX-512 FP16, in
//! port-5 cycles: `vpcompressb` 2, `vpermt2b` 2, `vpermb`, `vpermq`,
//! `vpunpcklbw`, `kmovq` into a mask register and the compares into one 1;
//! on port 0: `vpmovb2m`, `kmovq` out of a mask register, the 512-bit
//! shifts, `gf2p8affineqb`, `korq`, `vpminub` and the saturating adds;
//! `vpternlogd` and `vpaddb` on either. A 64-byte store that splits a cache
//! line takes 2 cycles.)
//!
//! In long runs of mixed text ([`mixed_run`], from [`MIXED_RUN_MIN`] bytes
//! of input on) the high-byte masks (hence the output lengths) are computed
//! two blocks ahead, the blocks themselves kept in registers until they
//! convert: a block's store addresses then depend on loads issued two
//! iterations earlier, not on its own load (+3–8 % ÷ simdutf on Latin-1
//! text and random Latin-1 at 64 KiB and 1 MiB). (Until 2026-11-28 each
//! block was loaded a second time when it converted; one load a block took
//! Latin-1 text at 1 KiB from 0.93–0.96 to 0.98–1.02 ÷ simdutf and at 64
//! KiB from 1.04–1.05 to 1.18–1.19, random at 1 KiB from 0.96 to 0.99,
//! harness, two rounds, Intel Xeon with AVX-512 FP16.) Two ASCII blocks in a row
//! return to the ASCII copy. The run is out of line (inline, the ASCII copy
//! measured about 2 % slower at 1 KiB; again on 2026-11-28, ASCII and Latin
//! at 1 KiB 1.13–1.15 → 1.05–1.09 × simdutf for Latin-1 text and random
//! 0.92–0.96 → 0.95–0.99), and only runs of [`MIXED_RUN_MIN`]
//! bytes or more take it (called for every mixed block, 1 KiB of mixed
//! text measured 2–3 % slower).
//!
//! # UTF-8 → Latin-1 (validating)
//!
//! 64 bytes per step. An all-ASCII block is stored as it is. Otherwise the
//! block converts in registers only if its non-ASCII bytes are exactly `C2`
//! or `C3` leads each followed by one continuation byte (a lead in the last
//! lane is left for the next step): then each continuation byte becomes the
//! Latin-1 byte (`b`, plus `40` after `C3`) and `vpcompressb` drops the
//! leads. Anything else in a block (a longer or invalid sequence, a stray
//! continuation, a truncated sequence) is an error for Latin-1, so the
//! kernel stops at the start of the block, a character boundary, and the
//! scalar kernel finds and reports the first problem from there, exactly as
//! it would have from the start.
//!
//! # Tails and room
//!
//! The last block is read with a masked load (never past the input), and
//! so is the first in UTF-8 → Latin-1 and in short inputs. Latin-1 → UTF-8
//! converts the first 64 bytes of a longer input that does not start on
//! a 64-byte boundary as a whole block, but moves on only to that
//! boundary (the conversion from there writes the same bytes again): 1 KiB
//! of Latin-1 text at input offsets 17, 33 and 63 in a line, 0.89–0.93 →
//! 0.92–0.94 × simdutf (Intel Xeon with AVX-512 FP16, 2026-11-28; aligned
//! inputs, as in the benchmark harness, do not take it). Those inputs stay
//! behind aligned ones (1.01–1.05): one block more, and an exact one. Stores write whole registers only where 64 bytes of room are
//! left and the bytes past the block's output will be overwritten by the
//! output that follows (which the rest of the input guarantees), else a
//! masked store of exactly the bytes produced: nothing is written past the
//! slice, nor past the end of the output. A step runs only if its whole
//! output fits; the kernels stop before the first one that does not, and
//! the scalar kernel writes what fits and counts the rest.
//!
//! # Short inputs
//!
//! Up to 64 Latin-1 bytes (128 UTF-8 bytes) convert in a straight line,
//! one block (two), with the loops out of line so that this path saves no
//! registers; a whole 64-byte Latin-1 block has its own copy, whose masks
//! and lengths are constants.
//!
//! # Tried and dropped
//!
//! Merging each block's output into a register and storing whole aligned
//! 64-byte lines (one byte permute and blend per output register, no
//! overlapping stores) ran Latin-1 → UTF-8 on mixed text at half the speed
//! of the two overlapping stores: the line's fill level is a loop-carried
//! dependency through a broadcast, a permute and a blend. Copying ASCII 256
//! bytes per test instead of 128 measured no different (again for both
//! directions on ASCII at 64 KiB and 1 MiB: 0.97–0.99 ÷ simdutf either way).
//! Aligning the output for the ASCII prefix (the masked head and aligned
//! ordinary stores of [`ascii_stream`]) from 64 KiB of UTF-8 up measured
//! within the noise on ASCII at 64 KiB and 1 MiB (+0.01 ÷ simdutf) and
//! 0.01–0.04 slower on Latin-1 text, so only inputs past [`STREAM_MIN`] take
//! that path, with non-temporal stores.
//!
//! For mixed text past the caches (64 MiB), staging the output in a small
//! L1 buffer and writing whole aligned 64-byte lines from it with
//! non-temporal stores (no read for ownership of the output) measured
//! slower in every form tried, against the direct conversion in the same
//! process (GB/s of input, random Latin-1 / Latin-1 text): rounds of 2 KiB
//! of input, then the round's lines, 7.2–7.9 / 8.7–12.0 against 11.0–12.3
//! / 13.1–13.6; 512 B or 1 KiB rounds 8.3 / 10.4–11.6; the previous round's
//! lines written while the next converts (two buffers) 7.6–8.4 / 9.1–12.8;
//! the lines written after every block 2.6 / 3.3; each round copied out
//! with `rep movsb` 7.7–8.5 / 9.0–11.0. Non-temporal stores themselves are
//! not the problem (a plain copy writing 1.5× its input: 12.8–16.0 with
//! them, 8.6–10.6 without); reading each line back from the staging buffer
//! soon after the overlapping unaligned stores that wrote it probably is.
//! `prefetchw` of the output 512 B to 4 KiB ahead, or a software prefetch
//! of the input 1 to 4 KiB ahead: up to 25 % slower at 64 MiB (on the Zen 4
//! of 2026-11-25; on the Intel Xeon with AVX-512 FP16 of 2026-11-27 the
//! input prefetch 2 KiB ahead of [`prefetch_input`] measured faster in both
//! directions, Latin-1 text at 64 MiB 0.99–1.04 → 1.11–1.20 ÷ simdutf).
//!
//! Latin-1 → UTF-8 at 1 KiB (0.85 ÷ simdutf on Latin-1 text and random on
//! that Xeon): without [`mixed_run`] the same; without the input alignment
//! step 0.79–0.84. By size on Latin-1 text (one run): 65 B 0.76, 128 B
//! 0.75, 256 B 0.84, 512 B 0.96, 1 KiB 0.85, 2 KiB 0.94, 4 KiB 0.97, 16 KiB
//! 1.00. The prefetch hints were part of it (see [`AHEAD_MIN`]: 1 KiB now
//! 0.86–0.92). What is left looks like a fixed cost per call: by a sweep of
//! sizes (UTF-8 → Latin-1 on Latin-1 text, 256 B to 3 KiB, 2026-11-27,
//! input and output on 4 KiB boundaries, before the change below) this
//! kernel costs about 6 ns plus 10 ns per 256 bytes and simdutf's 3
//! ns plus 11 ns, so simdutf leads below about 1.5 KiB; the main loops
//! themselves are as short as simdutf's (about 40 instructions a mixed
//! block). The exact steps after the main loops converted up to two whole
//! blocks (the loops stopped 96 or 128 bytes before the end); both loops
//! now take the last whole block too, with exact stores (see
//! `latin1_to_utf8_long` and `utf8_to_latin1_long`): 4 KiB of ASCII and
//! Latin +20–30 % both ways; at 1 KiB each direction's change alone gained
//! about 5 % on mixed text, both together not (where the code landed). (A
//! first measurement, in a small program with the input and the output
//! both on 4 KiB boundaries, had it 35 % slower at 512 B, probably the
//! masked store aliasing the next loads modulo 4 KiB.)
//!
//! Mixed text in L1 ran at about 9.5 cycles per 64-byte block with two
//! `vpermt2b` for the pairs (see below). Measured instead of that block and
//! found slower: the `vpcompressb` keep
//! masks made in mask registers (`vptestmb` of the interleaved pairs and
//! `korq`) rather than `pdep` and `kmovq` (−30 %); simdutf's formulation
//! (one `vpermb` interleave, `vpshldw`, a masked word add and a ternary
//! logic op) (−8 %); `vpexpandb` of each 32 input bytes into one register
//! at the positions of the second bytes, the leads from a one-byte shift
//! (`vpermb`) of it (−35 %); two independent blocks per iteration (within
//! the noise). On this Zen 4 a 512-bit `vpcompressb` costs about 1.4
//! cycles of throughput (its register form; the memory form is not used),
//! `vpermt2b` 1, `kmovq` into a general register 1.75 and out of one 1.1.
//!
//! The same look-ahead in UTF-8 → Latin-1 (each block's length, 64 less
//! its leads, computed two blocks ahead by a second load and compare) made
//! Latin-1 text and random Latin-1 8–12 % slower from 1 KiB to 1 MiB: that
//! loop has one `vpcompressb` per block, and the extra load and compare
//! cost more than the wait they remove.
//!
//! Where Latin-1 → UTF-8 stood before [`pairs`] (Intel Xeon with AVX-512
//! FP16, 2026-11-28, a small program, Latin-1 text, input and output on
//! page boundaries): this kernel and simdutf's both took 2.7–2.9 ns a
//! 64-byte block at every size from 256 B to 16 KiB (ratios 0.97–1.07; 128
//! B 0.94). Those ratios depend on where the code lands: the same kernel
//! at 1 KiB measured 1.02–1.07 in one build of that program and 0.92–0.98
//! in five others (three with loops, functions or branch targets aligned
//! by `-C llvm-args`), as in the benchmark harness (0.89–0.95). Both did
//! about the same port-5 work a mixed block; this one two `vpermt2b` (2
//! cycles each, which the counts of stop 27 had taken for 1), two
//! `vpcompressb` (2 each) and two mask moves into `k` registers: 10 cycles.
//! [`pairs`] and [`expand_whole`] take it to 8 (a qword permute and two
//! unpacks, the compresses, one mask move), 12–17 % faster on mixed text
//! in the benchmark harness. A formulation with `vpexpandb` (the positions
//! of the second bytes from one `pext`, the leads from a one-byte shift)
//! would need as many (counted, not built). Not aligning the input below 4
//! KiB (unaligned loads throughout) measured the same as the aligned head
//! at offsets 1–33 (1 KiB: 51.3–51.5 ns against 51–53).
//!
//! The lead and the continuation byte each from one `gf2p8affineqb` (GFNI,
//! which every CPU with VBMI2 has: a bit matrix per byte maps `b` to
//! `C2 | b >> 6 & 1` with bit 7 taken from `b`, and, merge-masked on the
//! high bytes, clears bit 6), instead of a shift and a ternary logic op
//! each, with the `vpermt2b` pairs (Intel Xeon with AVX-512 FP16,
//! 2026-11-28, `l1probe` ÷ simdutf, Latin-1 text before → after): 1 KiB
//! 1.06–1.07 → 1.08–1.10, 2 KiB 0.98 → 1.02, but 16 KiB 1.05–1.07 → 0.99,
//! 64 KiB 1.07–1.10 → 0.99 (random 1.06–1.07 → 0.98–1.00); the lead alone
//! from it, 64 KiB 1.00. Not kept then; [`pairs`] takes the lead from it,
//! for the bit 7 that [`expand_whole`]'s mask needs.
//!
//! UTF-8 → Latin-1 took port 5 for 7 cycles a mixed block until the same
//! day (three compares, two mask moves into `k` registers, the compress);
//! [`latin1_block`] takes it for 4 (two compares, the compress): Latin-1
//! text and random at 64 KiB 1.15–1.16 → 1.27–1.32 ÷ simdutf, 1 MiB
//! 1.21–1.32 → 1.27–1.38, 1 KiB 0.94–1.00 → 0.98–1.04 (harness, three
//! rounds each). That left the loop's own instructions as the limit (about
//! 60 a mixed block: the tests for alignment, the start of the input and
//! the last block, the bounds); a loop of its own for runs of mixed blocks
//! (about 35) took the same rows to 1.50–1.54, 1.47–1.58 and 1.29–1.43
//! (two rounds). Two blocks a step in Latin-1 → UTF-8's [`mixed_run`],
//! which is already short (about 43 instructions a block, port 5 busy 8
//! cycles), measured 5–8 % slower.

use super::{PREFETCH_COUNT_MIN, Progress, prefetch_input, prefetch_output};
use core::arch::x86_64::*;

/// The low `n` bits set, for `n <= 64`.
#[inline(always)]
const fn low_bits(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// Every even bit of a 64-bit mask (the first byte of each pair).
const EVEN_BITS: u64 = 0x5555_5555_5555_5555;
/// Every odd bit of a 64-bit mask (the second byte of each pair).
const ODD_BITS: u64 = 0xAAAA_AAAA_AAAA_AAAA;

/// Loads the `n` bytes at `src` (`n <= 64`), zeros in the lanes past them.
///
/// # Safety
///
/// * `n` bytes at `src` are readable.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn load(src: *const u8, n: usize) -> __m512i {
    if n >= 64 {
        // SAFETY: 64 bytes at `src` are readable (the caller's contract).
        unsafe { _mm512_loadu_si512(src.cast()) }
    } else {
        // SAFETY: the mask enables the `n` readable bytes only; masked-off
        // lanes are not read and cannot fault.
        unsafe { _mm512_maskz_loadu_epi8(low_bits(n), src.cast()) }
    }
}

/// Stores the first `n` bytes of `v` at `dst` (`n <= 64`) and nothing
/// else: a whole register, or a masked store. (Two overlapping stores of
/// halves, the second moved down with `vpermb`, measured slower.)
///
/// # Safety
///
/// * `n` bytes at `dst` are writable.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn store(dst: *mut u8, v: __m512i, n: usize) {
    if n == 64 {
        // SAFETY: 64 bytes at `dst` are writable.
        unsafe { _mm512_storeu_si512(dst.cast(), v) }
    } else {
        // SAFETY: the mask enables the `n` writable bytes; masked-off lanes
        // are not written.
        unsafe { _mm512_mask_storeu_epi8(dst.cast(), low_bits(n), v) }
    }
}

/// The byte pairs of the 64 Latin-1 bytes in `v`: bytes 0..32 in the first
/// register, 32..64 in the second, each byte `b` as `(lead, b')`. The lead
/// is `C2`, or `C3` for `C0..=FF`, if `b` is `80..=FF` (else `42` or `43`:
/// the lead's bit 7 is always `b`'s); `b'` is `b` with bit 6 cleared for
/// `C0..=FF` (for `80..=FF` that is the continuation `80 | b & 3F`, and
/// ASCII stays as it is). An ASCII byte keeps only `b'`, a byte `80..=FF`
/// both.
///
/// The pairs come from in-lane unpacks of the lead and `b'` vectors, after
/// one qword permute of the input. Two two-source byte
/// permutes (`vpermt2b`), as until 2026-11-28, cost 4 of the block's 10 or
/// so port-5 cycles on the Intel Xeon with AVX-512 FP16 (a `vpermt2b` takes
/// port 5 for 2 cycles there, `vpermq` and `vpunpck*bw` for 1; measured
/// with a loop of each); the permute and the unpacks cost 3.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
#[inline]
fn pairs(v: __m512i) -> (__m512i, __m512i) {
    // Qwords 0 4 1 5 2 6 3 7: the 128-bit lane k holds input bytes 8k..8k+8
    // (its low qword, which `vpunpcklbw` takes) and 32+8k..40+8k (its high
    // qword, `vpunpckhbw`'s).
    let v = _mm512_permutexvar_epi64(_mm512_set_epi64(7, 3, 6, 2, 5, 1, 4, 0), v);
    // The lead from one affine bit map (GFNI; the matrix's row for bit i is
    // its byte 7 - i): bit 7 is b's bit 7, bit 0 b's bit 6, and the
    // constant 42 sets bits 6 and 1, so C2 | b >> 6 & 1 for b >= 80. (A
    // shift and a ternary logic op would take a port-0 slot more and set
    // bit 7 always.)
    let lead = _mm512_gf2p8affine_epi64_epi8::<0x42>(v, _mm512_set1_epi64(0x4000_0000_0000_0080));
    // b' = b without bit 6 where bit 7 is set: b & !((b >> 1) & 40) (a 16-bit
    // shift: the bit it moves into a byte from the next one is bit 7,
    // masked off).
    let second = _mm512_ternarylogic_epi32::<{ 0xF0 & !(0xCC & 0xAA) }>(
        v,
        _mm512_srli_epi16::<1>(v),
        _mm512_set1_epi8(0x40),
    );
    (
        _mm512_unpacklo_epi8(lead, second),
        _mm512_unpackhi_epi8(lead, second),
    )
}

/// The UTF-8 of the `n <= 64` Latin-1 bytes in `v` (`high`: their bytes
/// `80..=FF`), in two registers of `len_lo` and `len - len_lo` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt,gfni")]
#[inline]
fn expand(v: __m512i, high: u64, n: usize) -> (__m512i, __m512i, usize) {
    let (pairs_lo, pairs_hi) = pairs(v);
    let (high_lo, high_hi) = (high & 0xFFFF_FFFF, high >> 32);
    let n_lo = n.min(32);
    let n_hi = n - n_lo;
    // `vpcompressb` keeps the second byte of every pair and the lead of
    // the pairs whose `b` is 80..=FF.
    let keep_lo = (ODD_BITS & low_bits(2 * n_lo)) | _pdep_u64(high_lo, EVEN_BITS);
    let keep_hi = (ODD_BITS & low_bits(2 * n_hi)) | _pdep_u64(high_hi, EVEN_BITS);
    (
        _mm512_maskz_compress_epi8(keep_lo, pairs_lo),
        _mm512_maskz_compress_epi8(keep_hi, pairs_hi),
        n_lo + high_lo.count_ones() as usize,
    )
}

/// [`expand`] for a whole block (`n = 64`), with the keep mask of the
/// upper half taken from the pairs themselves: bit 7 of every lead is
/// `b`'s, and an `or` sets it in every second byte, so `vpmovb2m` (port 0)
/// makes the mask where `pdep` and a move into a mask register would take
/// a port-5 cycle more. (Both halves so: a port-0 bottleneck instead,
/// 2–4 % slower than this.) With [`pairs`], 12–15 % faster than two
/// `vpermt2b` and both masks from `pdep`, in L1 and L2 (Intel Xeon with
/// AVX-512 FP16, 2026-11-28, Latin-1 text and random at 4 to 64 KiB,
/// `l1probe` ÷ simdutf 0.97–1.05 → 1.12–1.18).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt,gfni")]
#[inline]
fn expand_whole(v: __m512i, high: u64) -> (__m512i, __m512i, usize) {
    let (pairs_lo, pairs_hi) = pairs(v);
    let high_lo = high & 0xFFFF_FFFF;
    let keep_lo = ODD_BITS | _pdep_u64(high_lo, EVEN_BITS);
    let keep_hi = _mm512_movepi8_mask(_mm512_or_si512(
        pairs_hi,
        _mm512_set1_epi16(0x8000u16 as i16),
    ));
    (
        _mm512_maskz_compress_epi8(keep_lo, pairs_lo),
        _mm512_maskz_compress_epi8(keep_hi, pairs_hi),
        32 + high_lo.count_ones() as usize,
    )
}

/// Copies ASCII from `src[i..]` to `dst + o`, 128 bytes per step, while
/// both have 128 bytes left and the next 128 bytes are all ASCII; returns
/// the new `(i, o)`. (Called after an ASCII block: a run of text in ASCII
/// costs one test per two blocks, and mixed text does not pay for it.)
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes, and `i <= src.len()`,
///   `o <= cap`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn ascii_pairs(
    src: &[u8],
    mut i: usize,
    dst: *mut u8,
    mut o: usize,
    cap: usize,
    ahead: bool,
) -> (usize, usize) {
    while src.len() - i >= 128 && cap - o >= 128 {
        // SAFETY: `i + 128 <= src.len()`.
        let (a, b) = unsafe {
            let p = src.as_ptr().add(i);
            (
                _mm512_loadu_si512(p.cast()),
                _mm512_loadu_si512(p.add(64).cast()),
            )
        };
        if _mm512_movepi8_mask(_mm512_or_si512(a, b)) != 0 {
            break;
        }
        if ahead {
            prefetch_output::<2>(dst, o, cap);
        }
        // SAFETY: `o + 128 <= cap`.
        unsafe {
            let out = dst.add(o);
            _mm512_storeu_si512(out.cast(), a);
            _mm512_storeu_si512(out.add(64).cast(), b);
        }
        i += 128;
        o += 128;
    }
    (i, o)
}

/// The input left after a mixed block from which [`latin1_to_utf8_long`]
/// calls [`mixed_run`]: as soon as it can run a block (it needs 224 bytes).
/// From 1024 until 2026-11-27; 224 took Latin-1 text and random at 1 KiB
/// from 0.81–0.85 to 0.89–0.91 × simdutf on an Intel Xeon with AVX-512
/// FP16 (64 KiB unchanged).
const MIXED_RUN_MIN: usize = 224;

/// Latin-1 → UTF-8 asks for its input and output ahead ([`prefetch_input`],
/// [`prefetch_output`]; in the main loop, the ASCII pairs and
/// [`mixed_run`]) only in inputs of at least this many bytes: for shorter
/// ones the lines asked for are past the input, or the output's last lines,
/// already in L1. Intel Xeon with AVX-512 FP16,
/// 2026-11-27, ÷ simdutf before → after in the same rounds: 1 KiB Latin-1
/// text 0.81–0.87 → 0.86–0.91, random 0.84–0.85 → 0.90–0.92, ASCII and
/// Latin 0.93–0.97 → 1.01–1.06; 64 B, 64 KiB, 1 MiB and 64 MiB unchanged.
/// (The same test in the UTF-8 → Latin-1 loop lost 3–6 % on Latin-1 text
/// and random at 64 KiB, which it should not have touched: a layout
/// effect; that loop keeps its hint at every length.)
const AHEAD_MIN: usize = 2048;

/// Converts mixed Latin-1 text from `src[i..]` to `dst + o`, block by
/// block, while 224 input bytes and 128 bytes of room are left and one of
/// the next two blocks is not ASCII; returns the new `(i, o)`. The
/// high-byte masks are computed two blocks ahead (the blocks wait in
/// registers), so that the addresses of a block's stores do not wait on
/// its own load. (Out of line, so that the ASCII
/// copy of the caller keeps its registers.)
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes, and `i <= src.len()`,
///   `o <= cap`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt,gfni")]
#[inline(never)]
unsafe fn mixed_run<const AHEAD: bool>(
    src: &[u8],
    mut i: usize,
    dst: *mut u8,
    mut o: usize,
    cap: usize,
) -> (usize, usize) {
    if src.len() - i < 192 + 32 {
        return (i, o);
    }
    // SAFETY: `i + 128 <= src.len()`.
    let (mut v0, mut v1) = unsafe {
        let p = src.as_ptr().add(i);
        (
            _mm512_loadu_si512(p.cast()),
            _mm512_loadu_si512(p.add(64).cast()),
        )
    };
    let (mut h0, mut h1) = (_mm512_movepi8_mask(v0), _mm512_movepi8_mask(v1));
    while (h0 | h1) != 0 && src.len() - i >= 192 + 32 && cap - o >= 128 {
        if AHEAD {
            prefetch_input(src.as_ptr(), i);
        }
        // SAFETY: `i + 192 <= src.len()`.
        let v2 = unsafe { _mm512_loadu_si512(src.as_ptr().add(i + 128).cast()) };
        let h2 = _mm512_movepi8_mask(v2);
        // Each block writes 64 to 128 bytes: asking for the output's lines
        // ahead took Latin-1 text and random at 64 MiB from 0.94 to
        // 1.10–1.24 × simdutf (Intel Xeon with AVX-512 FP16). The same
        // in UTF-8 → Latin-1 (at most 64 bytes a block) lost 3–9 % from 1
        // KiB to 1 MiB, so there only inputs of 4 MiB and more take it
        // (see `utf8_to_latin1_long`).
        if AHEAD {
            prefetch_output::<2>(dst, o, cap);
        }
        // SAFETY: `o + 128 <= cap`, and 32 or more input bytes follow.
        o += unsafe { latin1_block_whole(v0, h0, dst.add(o)) };
        i += 64;
        (h0, h1) = (h1, h2);
        (v0, v1) = (v1, v2);
    }
    (i, o)
}

/// Converts the `n <= 64` Latin-1 bytes at `src` to UTF-8 at `dst`, if the
/// output fits in `room` bytes; returns its length. `after` input bytes
/// follow the block (each makes at least one output byte): a store may
/// write a whole register where those overwrite what it leaves past the
/// output, else it is exact.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `n` bytes at `src` are readable, `room` bytes at `dst` writable.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt,gfni")]
#[inline]
unsafe fn latin1_block_exact(
    src: *const u8,
    n: usize,
    after: usize,
    dst: *mut u8,
    room: usize,
) -> Option<usize> {
    // SAFETY: `n` bytes at `src` are readable.
    let v = unsafe { load(src, n) };
    let high = _mm512_movepi8_mask(v);
    let len = n + high.count_ones() as usize;
    if len > room {
        return None;
    }
    if high == 0 {
        // SAFETY: `n = len <= room`.
        unsafe { store(dst, v, n) };
        return Some(n);
    }
    let (out_lo, out_hi, len_lo) = expand(v, high, n);
    // SAFETY: `len_lo <= len <= room`: the stores write the `len` bytes at
    // `dst`, and whole registers only where 64 bytes of room are left and
    // the bytes past `len` are overwritten by the output that follows
    // (the first store's bytes past `len_lo` are the second's to write).
    unsafe {
        if room >= 64 && len + after >= 64 {
            _mm512_storeu_si512(dst.cast(), out_lo);
        } else {
            store(dst, out_lo, len_lo);
        }
        if room - len_lo >= 64 && len + after >= len_lo + 64 {
            _mm512_storeu_si512(dst.add(len_lo).cast(), out_hi);
        } else {
            store(dst.add(len_lo), out_hi, len - len_lo);
        }
    }
    Some(len)
}

/// The UTF-8 of the whole 64-byte Latin-1 block `v` (`high`: its bytes
/// `80..=FF`) at `out`; returns its length. Writes whole registers: 64
/// bytes at `out` if the block is ASCII, else 64 at `out` and 64 at the end
/// of the lower half's output. The first store's bytes past the lower
/// half's output are the second's to write; the second's past the block's
/// output (at most 32: the upper half makes at least 32 bytes) are for the
/// output of the input that follows to overwrite.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * 128 bytes at `out` are writable.
/// * 32 or more input bytes follow the block (so that nothing is left
///   written past the output; memory safety does not depend on it).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt,gfni")]
#[inline]
unsafe fn latin1_block_whole(v: __m512i, high: u64, out: *mut u8) -> usize {
    if high == 0 {
        // SAFETY: 64 bytes at `out` are writable.
        unsafe { _mm512_storeu_si512(out.cast(), v) };
        return 64;
    }
    let (out_lo, out_hi, len_lo) = expand_whole(v, high);
    // SAFETY: `len_lo <= 64`: both stores end within the 128 bytes.
    unsafe {
        _mm512_storeu_si512(out.cast(), out_lo);
        _mm512_storeu_si512(out.add(len_lo).cast(), out_hi);
    }
    64 + high.count_ones() as usize
}

/// Inputs of at least this many bytes (outputs past the caches) copy their
/// leading ASCII with aligned non-temporal stores ([`ascii_stream`]).
pub(crate) const STREAM_MIN: usize = 8 << 20;

/// Copies the ASCII prefix of `src` to `dst` (ASCII is the same bytes in
/// Latin-1 and UTF-8) with non-temporal stores to whole cache lines, as
/// far as it goes in whole 64-byte blocks after a first masked step up to
/// the output's next 64-byte boundary; returns how many bytes it copied
/// (0 if the head is not ASCII or does not fit).
///
/// Non-temporal stores write each line to memory without first reading it
/// into the cache (as an ordinary store that misses must), which saves a
/// third of the memory traffic of an output that will not stay in cache.
///
/// Two lines a step, each asked for 2 KiB ahead ([`prefetch_input`]): a
/// small program copying ASCII (input 64 bytes past a page boundary, the
/// output on one, as the benchmark harness places them; Intel Xeon with
/// AVX-512 FP16, 2026-11-28) measured one line a step without the hint at
/// 12.5–13.1 GB/s and this at 13.4–13.7 for 64 MiB (simdutf 7.2–7.4,
/// `memcpy` 9.8–10.0) and 16 MiB 13.0 → 13.7 (simdutf 13.9; ordinary
/// stores 14.3 there, 13.4 at 32 MiB and 8.7–9.4 at 64 MiB, where these
/// stay at 14.1).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline(never)]
pub(crate) unsafe fn ascii_stream(src: &[u8], dst: *mut u8, cap: usize) -> usize {
    let len = src.len();
    let ptr = src.as_ptr();
    let head = (dst as usize).wrapping_neg() % 64;
    let mut i = 0;
    if head > 0 {
        if head > len.min(cap) {
            return 0;
        }
        // SAFETY: `head <= len` bytes at `ptr` are readable.
        let v = unsafe { load(ptr, head) };
        if _mm512_movepi8_mask(v) != 0 {
            return 0;
        }
        // SAFETY: `head <= cap` bytes at `dst` are writable.
        unsafe { store(dst, v, head) };
        i = head;
    }
    // Two lines a step, each asked for ahead ([`prefetch_input`]).
    while len - i >= 128 && cap - i >= 128 {
        prefetch_input(ptr, i);
        prefetch_input(ptr, i + 64);
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
        // SAFETY: `i + 128 <= cap`: the 128 bytes at `dst + i` are
        // writable, and 64-byte aligned (`dst + head` is, and each step
        // moves 128), as `vmovntdq` needs.
        unsafe {
            _mm512_stream_si512(dst.add(i).cast(), a);
            _mm512_stream_si512(dst.add(i + 64).cast(), b);
        }
        i += 128;
    }
    // The first line of a pair that was not all ASCII, or the last line.
    if len - i >= 64 && cap - i >= 64 {
        // SAFETY: `i + 64 <= len`: the block is readable.
        let v = unsafe { _mm512_loadu_si512(ptr.add(i).cast()) };
        if _mm512_movepi8_mask(v) == 0 {
            // SAFETY: `i + 64 <= cap`, and `dst + i` is 64-byte aligned,
            // as above.
            unsafe { _mm512_stream_si512(dst.add(i).cast(), v) };
            i += 64;
        }
    }
    // Order the non-temporal stores before any later store and the
    // caller's reads of the output.
    _mm_sfence();
    i
}

/// Converts Latin-1 `src` to UTF-8 at `dst` as far as the output fits.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt,gfni")]
pub(crate) unsafe fn latin1_to_utf8(src: &[u8], dst: *mut u8, cap: usize) -> Progress {
    if src.len() <= 64 {
        // One block, in a straight line; a whole one with its masks and
        // lengths known at compile time.
        // SAFETY: `src.len()` bytes are readable, `cap` writable.
        let done = unsafe {
            if src.len() == 64 {
                latin1_block_exact(src.as_ptr(), 64, 0, dst, cap)
            } else {
                latin1_block_exact(src.as_ptr(), src.len(), 0, dst, cap)
            }
        };
        return match done {
            Some(len) => Progress {
                read: src.len(),
                written: len,
            },
            None => Progress::default(),
        };
    }
    // SAFETY: the caller's contract (both calls are the function's last
    // step, so this path saves no registers either).
    unsafe {
        if src.len() >= STREAM_MIN && cap >= STREAM_MIN {
            after_ascii_stream(src, dst, cap, latin1_to_utf8_long)
        } else {
            latin1_to_utf8_long(src, dst, cap)
        }
    }
}

/// An input and output past [`STREAM_MIN`]: the ASCII start copied with
/// non-temporal stores ([`ascii_stream`]), then the rest by `main` (either
/// direction: ASCII is the same bytes in both). Out of line, so that the
/// entry points keep nothing across a call.
///
/// # Safety
///
/// * The CPU supports the enabled features and `main`'s.
/// * `dst` is valid for writes of `cap` bytes.
/// * `main` is `latin1_to_utf8_long` or `utf8_to_latin1_by_length` (an
///   ASCII prefix ends on a character boundary).
#[target_feature(enable = "avx512f,avx512bw")]
#[inline(never)]
#[cold]
unsafe fn after_ascii_stream(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
    main: unsafe fn(&[u8], *mut u8, usize) -> Progress,
) -> Progress {
    // SAFETY: the caller's contract; the copied ASCII prefix is its own
    // output in both directions, and the rest converts after it.
    unsafe {
        let k = ascii_stream(src, dst, cap);
        let p = main(&src[k..], dst.add(k), cap - k);
        Progress {
            read: k + p.read,
            written: k + p.written,
        }
    }
}

/// [`latin1_to_utf8`] for more than 64 bytes (out of line, so that the
/// short path saves no registers for the loops).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt,gfni")]
#[inline(never)]
unsafe fn latin1_to_utf8_long(src: &[u8], dst: *mut u8, cap: usize) -> Progress {
    // ASCII from the start copies first, two blocks a step, before the
    // main loop's set-up (its constants, the input's alignment). Harness,
    // ÷ simdutf, two rounds: ASCII and Latin at 1 KiB 1.02–1.04 →
    // 1.27–1.33, mixed text at 1 KiB unchanged (0.98–1.03 → 1.00–1.05),
    // other sizes unchanged; but 256 B of Latin-1 text 1.03–1.09 →
    // 0.97–0.99 (`l1probe`). The same copy before the call of this function
    // took ASCII at 1 KiB to 1.41 but mixed text at 1 KiB and 256 B 3–8 %
    // lower; testing only the first block before the pairs halved the gain.
    let ahead = src.len() >= AHEAD_MIN;
    // SAFETY: `0 <= src.len()`, `0 <= cap`, `dst` is `cap` writable bytes.
    let (k, _) = unsafe { ascii_pairs(src, 0, dst, 0, cap, ahead) };
    if k == src.len() {
        return Progress {
            read: k,
            written: k,
        };
    }
    let mut i = k;
    let mut o = k;
    // Invariants: `i <= src.len()`, `o <= cap`.
    // The bytes before the input's first 64-byte boundary, so that the main
    // loop's loads never split a cache line (past an ASCII prefix, the
    // loads go on from where it stopped).
    let head = if k == 0 {
        (src.as_ptr() as usize).wrapping_neg() % 64
    } else {
        0
    };
    if head > 0 && src.len() >= 96 && cap >= 128 {
        // The whole first block, converted with whole stores, but only its
        // first `head` bytes counted: the conversion from `head` on writes
        // the same bytes again, then overwrites what the stores left past
        // them (at least 32 more input bytes follow the block).
        // SAFETY: 64 bytes at `src` are readable, 128 at `dst` writable.
        let v = unsafe { _mm512_loadu_si512(src.as_ptr().cast()) };
        let high = _mm512_movepi8_mask(v);
        // SAFETY: as above.
        unsafe { latin1_block_whole(v, high, dst) };
        i = head;
        o = head + (high & low_bits(head)).count_ones() as usize;
    } else if head > 0 && src.len() > head {
        // SAFETY: `head < src.len()` bytes are readable, `cap` writable.
        match unsafe { latin1_block_exact(src.as_ptr(), head, src.len() - head, dst, cap) } {
            Some(len) => {
                i = head;
                o = len;
            }
            None => return Progress::default(),
        }
    }
    // Whole blocks with room for the worst case (128 bytes): whole stores
    // while at least 32 more input bytes follow the block (see below), and
    // exact ones for the input's last whole block. (Leaving that block to
    // the loop of the end cost 1 KiB 1–8 % and 4 KiB of ASCII and Latin
    // 20–27 %.)
    while src.len() - i >= 64 && cap - o >= 128 {
        if ahead {
            prefetch_input(src.as_ptr(), i);
        }
        // SAFETY: `i + 64 <= src.len()`.
        let v = unsafe { _mm512_loadu_si512(src.as_ptr().add(i).cast()) };
        // SAFETY: `o + 128 <= cap`.
        let out = unsafe { dst.add(o) };
        let high = _mm512_movepi8_mask(v);
        if high == 0 {
            // SAFETY: 64 bytes at `out` are writable.
            unsafe { _mm512_storeu_si512(out.cast(), v) };
            i += 64;
            o += 64;
            // SAFETY: the pairs read `i + 128 <= src.len()` and write
            // `o + 128 <= cap`.
            unsafe { (i, o) = ascii_pairs(src, i, dst, o, cap, ahead) };
            continue;
        }
        if src.len() - i < 96 {
            // SAFETY: the 64 bytes at `src + i` are readable, 128 bytes
            // at `out` writable.
            if let Some(len) = unsafe {
                latin1_block_exact(src.as_ptr().add(i), 64, src.len() - i - 64, out, cap - o)
            } {
                i += 64;
                o += len;
            }
            break;
        }
        // SAFETY: 128 bytes at `out` are writable, and 32 or more input
        // bytes follow the block.
        o += unsafe { latin1_block_whole(v, high, out) };
        i += 64;
        // A long run of mixed text is worth the call (short inputs stay
        // in this loop).
        if src.len() - i >= MIXED_RUN_MIN {
            // SAFETY: `i <= src.len()`, `o <= cap`, and `dst` is `cap`
            // writable bytes (the caller's contract).
            unsafe {
                (i, o) = if ahead {
                    mixed_run::<true>(src, i, dst, o, cap)
                } else {
                    mixed_run::<false>(src, i, dst, o, cap)
                }
            };
        }
    }
    // The end: a short block, or little room; the stores past the output
    // are exact.
    while i < src.len() {
        let n = (src.len() - i).min(64);
        let after = src.len() - i - n;
        // SAFETY: `i + n <= src.len()`, `o <= cap`.
        match unsafe { latin1_block_exact(src.as_ptr().add(i), n, after, dst.add(o), cap - o) } {
            Some(len) => {
                i += n;
                o += len;
            }
            None => break,
        }
    }
    Progress {
        read: i,
        written: o,
    }
}

/// The byte before each of the `n <= 64` bytes at `src + i`, which `v`
/// holds (lane `k` gets `src[i + k - 1]`; the lanes from `n` on, and lane
/// 0 if `i = 0`, are unspecified: no character starts with a continuation
/// byte, so a valid block at the start of the input has none in lane 0).
///
/// Past the first byte, a load one byte lower. At the start of the input,
/// `v` moved up a lane (a `vpermb`), not a masked load one byte below the
/// input: that load's masked-off lane is in the line, often the page, before
/// the input, and it made 64-byte conversions take twice as long (Intel
/// Xeon with AVX-512 FP16, inputs on page boundaries). Short inputs do
/// without either ([`AfterC3::Compare`]).
///
/// # Safety
///
/// * `src[i..i + n]` is in bounds.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
unsafe fn load_prev(src: &[u8], i: usize, n: usize, v: __m512i) -> __m512i {
    if i == 0 {
        static UP_ONE_LANE: [u8; 64] = {
            let mut index = [0u8; 64];
            let mut k = 1;
            while k < 64 {
                index[k] = (k - 1) as u8;
                k += 1;
            }
            index
        };
        // SAFETY: `UP_ONE_LANE` is 64 readable bytes.
        let index = unsafe { _mm512_loadu_si512(UP_ONE_LANE.as_ptr().cast()) };
        return _mm512_permutexvar_epi8(index, v);
    }
    // SAFETY: `src[i - 1..i - 1 + n]` is in bounds (`i >= 1`).
    unsafe { load(src.as_ptr().add(i - 1), n) }
}

/// How [`latin1_block`] finds the continuation bytes after a `C3` lead,
/// which gain 40 in Latin-1.
#[derive(Clone, Copy)]
enum AfterC3 {
    /// From the byte before each lane, as [`load_prev`] gets them (bit 0
    /// is set for `C3`, clear for `C2`): no port-5 work, for the main loop.
    Prev(__m512i),
    /// From a compare for `C3` moved up a lane, and the bit carried out of
    /// the block before (bit 0): a shorter chain for a short input's one or
    /// two blocks (64-byte inputs 1.05–1.09 ÷ simdutf with [`load_prev`]'s
    /// `vpermb`, 1.14–1.19 this way).
    Compare(u64),
}

/// One UTF-8 block of `n` bytes in `v` (`high`: its bytes `80..=FF`;
/// `after_c3`: where its continuations after `C3` are) on the fast
/// path, given the carried lead: the Latin-1 bytes packed at the start of a
/// register, their number, the lead carried out, and whether it is `C3`
/// (with [`AfterC3::Compare`]; else 0); `None` if the block is not all
/// ASCII and `C2`/`C3` pairs. `lanes` is `low_bits(n)` if a lead in lane
/// `n - 1` may be carried, else all ones (the input ends with the block).
///
/// In the main loop ([`AfterC3::Prev`]) its port-5 work (Intel) is two
/// compares into mask registers and the `vpcompressb` (2 cycles). A
/// continuation after `C3` gains 40 from the byte before it, loaded again
/// one byte lower, rather than from a third compare (`C3`) whose mask,
/// shifted by a lane in a general register, would go back into a mask
/// register: 2 port-5 cycles for what the load and a `gf2p8affineqb` (port
/// 0) do; and for a whole block the keep mask comes straight from a
/// compare, not from the lead mask inverted in a general register (one
/// more move into a mask register).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt,gfni")]
#[inline]
fn latin1_block<const VALID: bool>(
    v: __m512i,
    after_c3: AfterC3,
    high: u64,
    n: usize,
    lanes: u64,
    carry: u64,
) -> Option<(__m512i, usize, u64, u64)> {
    // `keep`: the bytes that are not leads; `after_lead`: those a lead may
    // precede (masked operations need no more).
    let (keep, after_lead) = if VALID {
        // Valid UTF-8 (`VALID`): C4..=FF start the characters above U+00FF,
        // and the other leads, C0..=C3, can only be C2 or C3.
        if _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xC4u8 as i8)) != 0 {
            return None;
        }
        (
            _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0xC0u8 as i8)),
            high,
        )
    } else {
        // Continuation bytes are below C0 (signed); C2 or C3 is `b - C2 < 2`.
        let cont = _mm512_cmplt_epi8_mask(v, _mm512_set1_epi8(-64));
        let not_lead = _mm512_cmpge_epu8_mask(
            _mm512_sub_epi8(v, _mm512_set1_epi8(0xC2u8 as i8)),
            _mm512_set1_epi8(2),
        );
        let lead = !not_lead;
        // Every non-ASCII byte is a C2/C3 lead or a continuation, and the
        // continuations are exactly the bytes after the leads (the carried
        // one included). A lead in lane `n - 1` is carried out if `lanes`
        // drops the bit it shifts into lane `n`; else that lane (absent,
        // zero) fails this.
        if high != lead | cont || cont != ((lead << 1) | carry) & lanes {
            return None;
        }
        (not_lead, cont)
    };
    // The leads are dropped; one carried out has no output yet.
    let keep = keep & low_bits(n);
    let carry_out = (!keep >> (n - 1)) & 1;
    // A continuation after C3 is b + 40.
    let (latin1, c3_out) = match after_c3 {
        // The byte before's bit 0 (1 for C3, 0 for C2) moved to bit 6 by an
        // affine bit map (the matrix's row for bit 6 is its byte 1).
        AfterC3::Prev(prev) => {
            let c3 = _mm512_gf2p8affine_epi64_epi8::<0>(prev, _mm512_set1_epi64(0x0100));
            (_mm512_mask_add_epi8(v, after_lead, v, c3), 0)
        }
        AfterC3::Compare(carry_c3) => {
            let is_c3 = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(0xC3u8 as i8));
            let after = (is_c3 << 1) | carry_c3;
            (
                _mm512_mask_add_epi8(v, after, v, _mm512_set1_epi8(0x40)),
                (is_c3 >> (n - 1)) & 1,
            )
        }
    };
    Some((
        _mm512_maskz_compress_epi8(keep, latin1),
        keep.count_ones() as usize,
        carry_out,
        c3_out,
    ))
}

/// [`utf8_to_latin1`] for at most 128 bytes: one block, or two in a
/// straight line (short conversions pay no loop set-up). Any block off the
/// fast path, or output that does not fit, leaves all of it to the scalar
/// kernel.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `src.len() <= 128`; `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt,gfni")]
#[inline]
unsafe fn utf8_to_latin1_short<const VALID: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    // One block of `n` bytes after `carry`: the packed Latin-1, its length
    // and the carry out. The last block of the input has `lanes` all ones:
    // a lead in its last lane fails it (the bit it shifts into lane `n < 64`
    // is kept, and one in lane 63 is a carry out that no block takes).
    let block = |v: __m512i, n: usize, lanes: u64, carry: u64, carry_c3: u64| {
        let high = _mm512_movepi8_mask(v);
        if (high | carry) == 0 {
            Some((v, n, 0, 0))
        } else {
            latin1_block::<VALID>(v, AfterC3::Compare(carry_c3), high, n, lanes, carry)
        }
    };
    let n1 = src.len().min(64);
    // SAFETY: `n1 <= src.len()` bytes at `src` are readable.
    let v1 = unsafe { load(src.as_ptr(), n1) };
    if n1 == src.len() {
        // One block, straight from its one load (going on to a second
        // block's load and test cost the 64-byte rows 0.86–1.04 × simdutf
        // against 1.16–1.20 on an Intel Xeon with AVX-512 FP16).
        let Some((p1, len1, 0, _)) = block(v1, n1, u64::MAX, 0, 0) else {
            return Progress::default();
        };
        if len1 > cap {
            return Progress::default();
        }
        // SAFETY: `len1 <= cap` bytes at `dst` are writable.
        unsafe { store(dst, p1, len1) };
        return Progress {
            read: n1,
            written: len1,
        };
    }
    let n2 = src.len() - 64;
    // SAFETY: bytes `64..64 + n2 = src.len()` are readable.
    let v2 = unsafe { load(src.as_ptr().add(64), n2) };
    // The first block is not the last: a lead in its lane 63 carries.
    let Some((p1, len1, c, c3)) = block(v1, 64, u64::MAX, 0, 0) else {
        return Progress::default();
    };
    let Some((p2, len2, 0, _)) = block(v2, n2, u64::MAX, c, c3) else {
        return Progress::default();
    };
    if len1 + len2 > cap {
        return Progress::default();
    }
    // SAFETY: `len1 + len2 <= cap` bytes at `dst` are writable; a whole
    // first register only where the second block's output overwrites what
    // it leaves past `len1`.
    unsafe {
        if len1 + len2 >= 64 {
            _mm512_storeu_si512(dst.cast(), p1);
        } else {
            store(dst, p1, len1);
        }
        store(dst.add(len1), p2, len2);
    }
    Progress {
        read: src.len(),
        written: len1 + len2,
    }
}

/// Converts UTF-8 `src` to Latin-1 at `dst` while its blocks take the fast
/// path (see the module docs) and the output fits; stops at a character
/// boundary before the first block that does not.
///
/// Blocks end on the input's 64-byte boundaries (so loads never split a
/// cache line), and a block's length never waits on its data: a `C2`/`C3`
/// lead in the last lane is carried into the next block, whose lane 0 must
/// then be its continuation.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt,gfni")]
pub(crate) unsafe fn utf8_to_latin1<const VALID: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    if src.len() <= 128 {
        // SAFETY: `src.len() <= 128`; `dst` is `cap` writable bytes.
        return unsafe { utf8_to_latin1_short::<VALID>(src, dst, cap) };
    }
    // SAFETY: the caller's contract (both calls are the function's last
    // step, so the short path saves no registers for them).
    unsafe {
        if src.len() >= STREAM_MIN && cap >= STREAM_MIN {
            after_ascii_stream(src, dst, cap, utf8_to_latin1_by_length::<VALID>)
        } else {
            utf8_to_latin1_by_length::<VALID>(src, dst, cap)
        }
    }
}

/// [`utf8_to_latin1_long`], the copy for `src`'s length ([`FAR_MIN`]).
///
/// # Safety
///
/// * As [`utf8_to_latin1_long`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt,gfni")]
#[inline]
unsafe fn utf8_to_latin1_by_length<const VALID: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    // SAFETY: the caller's contract.
    unsafe {
        if src.len() >= FAR_MIN {
            utf8_to_latin1_long::<VALID, true>(src, dst, cap)
        } else {
            utf8_to_latin1_long::<VALID, false>(src, dst, cap)
        }
    }
}

/// UTF-8 → Latin-1 asks for the output's lines ahead ([`prefetch_output`]),
/// one a mixed block, in inputs of at least this many bytes, whose output
/// leaves L2, in a copy of the loop of their own ([`utf8_to_latin1_long`]
/// with `FAR`). A test in the one loop for all lengths was a branch taken
/// every mixed block, which made the loop's exit unpredictable from about
/// ten blocks (a step of 4 ns from 640 to 704 bytes): without it 1 KiB of
/// Latin-1 text and random went from 0.89 to 0.97 × simdutf, 4 KiB from
/// 1.08 to 1.13 (and 0.93–0.97 → 1.03–1.05 at 1 KiB in a second program,
/// whose code lands elsewhere). The hint itself (Intel Xeon with AVX-512
/// FP16, 2026-11-27), 64 MiB ÷ simdutf in three rounds against the loop
/// without it: Latin-1 text 1.07–1.13 (1.04–1.05), random 1.05–1.10
/// (0.85–0.99); from 256 KiB it cost 1 MiB 0.03–0.10.
const FAR_MIN: usize = 4 << 20;

/// [`utf8_to_latin1`] for more than 128 bytes (out of line, so that the
/// short path saves no registers for the loops).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt,gfni")]
#[inline(never)]
unsafe fn utf8_to_latin1_long<const VALID: bool, const FAR: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    let mut i = 0;
    let mut o = 0;
    // The lead carried from the last lane of the previous block (bit 0).
    let mut carry = 0u64;
    let misalign = src.as_ptr() as usize % 64;
    // Invariants: `i <= src.len()`, and `i - carry` is a character
    // boundary; `o <= cap` bytes are the conversion of `src[..i - carry]`.
    'outer: loop {
        // Whole aligned blocks while 64 bytes of room are left: whole
        // loads, and whole stores but for the input's last whole block
        // (see below). (Leaving that block to the exact steps after the
        // loop, as until 2026-11-27, cost 1 KiB 5–13 % and 4 KiB 4–32 %.)
        while (misalign + i).is_multiple_of(64) && src.len() - i >= 64 && cap - o >= 64 {
            prefetch_input(src.as_ptr(), i);
            // SAFETY: `i + 64 <= src.len()`.
            let v = unsafe { _mm512_loadu_si512(src.as_ptr().add(i).cast()) };
            // SAFETY: `o + 64 <= cap`.
            let out = unsafe { dst.add(o) };
            let high = _mm512_movepi8_mask(v);
            if (high | carry) == 0 {
                // SAFETY: 64 bytes at `out` are writable.
                unsafe { _mm512_storeu_si512(out.cast(), v) };
                i += 64;
                o += 64;
                // SAFETY: as in `latin1_to_utf8`.
                unsafe { (i, o) = ascii_pairs(src, i, dst, o, cap, true) };
                continue;
            }
            // SAFETY: `src[i..i + 64]` is in bounds.
            let prev = unsafe { load_prev(src, i, 64, v) };
            let Some((packed, len, c, _)) =
                latin1_block::<VALID>(v, AfterC3::Prev(prev), high, 64, u64::MAX, carry)
            else {
                break 'outer;
            };
            if FAR {
                prefetch_output::<1>(dst, o, cap);
            }
            // The bytes stored past `len` (at most 32: a block makes at
            // least 32) are overwritten by the output of the 64 or more
            // input bytes that follow, at least 32 bytes if they are valid
            // (else the buffer's contents are unspecified anyway); the
            // input's last whole block stores exactly its `len` bytes.
            if src.len() - i < 128 {
                // SAFETY: `len <= 64` bytes at `out` are writable.
                unsafe { store(out, packed, len) };
                carry = c;
                i += 64;
                o += len;
                break;
            }
            // SAFETY: 64 bytes at `out` are writable.
            unsafe { _mm512_storeu_si512(out.cast(), packed) };
            carry = c;
            i += 64;
            o += len;
            // The mixed blocks that follow, in a loop of their own with
            // fewer tests than this one (no alignment, no start of input,
            // not the last whole block): back to this loop at the first
            // ASCII block. (One loop for this block and those, its first
            // step the only one that may meet the start or the last block,
            // repeats less code but measured 5–10 % slower from 1 KiB to 64
            // KiB: the tests stay in every step.)
            while src.len() - i >= 128 && cap - o >= 64 {
                prefetch_input(src.as_ptr(), i);
                // SAFETY: `i + 64 <= src.len()`, and `i >= 64`: the byte
                // before the block is in bounds too.
                let (v, prev) = unsafe {
                    let p = src.as_ptr().add(i);
                    (
                        _mm512_loadu_si512(p.cast()),
                        _mm512_loadu_si512(p.sub(1).cast()),
                    )
                };
                let high = _mm512_movepi8_mask(v);
                if (high | carry) == 0 {
                    break;
                }
                let Some((packed, len, c, _)) =
                    latin1_block::<VALID>(v, AfterC3::Prev(prev), high, 64, u64::MAX, carry)
                else {
                    break 'outer;
                };
                if FAR {
                    prefetch_output::<1>(dst, o, cap);
                }
                // SAFETY: `o + 64 <= cap`; what lands past `len` is
                // overwritten as above.
                unsafe { _mm512_storeu_si512(dst.add(o).cast(), packed) };
                carry = c;
                i += 64;
                o += len;
            }
        }
        if i == src.len() {
            break;
        }
        // One block with exact loads and stores: the head (up to the
        // input's first 64-byte boundary), the last block, or one with
        // little room.
        let n = (src.len() - i).min(64 - (misalign + i) % 64);
        let last = i + n == src.len();
        // SAFETY: `i + n <= src.len()`.
        let v = unsafe { load(src.as_ptr().add(i), n) };
        let high = _mm512_movepi8_mask(v);
        let lanes = if last { u64::MAX } else { low_bits(n) };
        let (packed, len, c, _) = if (high | carry) == 0 {
            (v, n, 0, 0)
        } else {
            // SAFETY: `src[i..i + n]` is in bounds.
            let prev = unsafe { load_prev(src, i, n, v) };
            match latin1_block::<VALID>(v, AfterC3::Prev(prev), high, n, lanes, carry) {
                Some(block) => block,
                None => break,
            }
        };
        let room = cap - o;
        if len > room {
            break;
        }
        // A whole store where 64 bytes of room are left and the output of
        // the bytes that follow overwrites what lands past `len` (at least
        // one byte per two input bytes if they are valid; else the buffer's
        // contents are unspecified anyway).
        let whole = room >= 64 && (src.len() - i - n) / 2 + len >= 64;
        // SAFETY: `o + len <= cap`, and 64 bytes at `o` if `whole`.
        unsafe {
            if whole {
                _mm512_storeu_si512(dst.add(o).cast(), packed);
            } else {
                store(dst.add(o), packed, len);
            }
        }
        carry = c;
        i += n;
        o += len;
    }
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
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
pub(crate) unsafe fn count_high(bytes: &[u8]) -> usize {
    if bytes.len() <= 64 {
        // One block, in a straight line (as the char count).
        // SAFETY: `bytes.len() <= 64` bytes are readable.
        let v = unsafe { load(bytes.as_ptr(), bytes.len()) };
        return _mm512_movepi8_mask(v).count_ones() as usize;
    }
    if bytes.len() >= PREFETCH_COUNT_MIN {
        // SAFETY: the caller's contract.
        return unsafe { count_high_long(bytes) };
    }
    count_high_blocks::<false>(bytes)
}

/// [`count_high`] of a long input, asking for it ahead (see
/// [`PREFETCH_COUNT_MIN`]).
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
#[inline(never)]
unsafe fn count_high_long(bytes: &[u8]) -> usize {
    count_high_blocks::<true>(bytes)
}

/// The count of [`count_high`], with the prefetch hint if `PREFETCH`.
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
#[inline]
fn count_high_blocks<const PREFETCH: bool>(bytes: &[u8]) -> usize {
    let (blocks, tail) = bytes.as_chunks::<64>();
    let mut n = 0;
    for block in blocks {
        if PREFETCH {
            prefetch_input(block.as_ptr(), 0);
        }
        // SAFETY: `block` is 64 readable bytes.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        n += _mm512_movepi8_mask(v).count_ones() as usize;
    }
    // SAFETY: `tail` is `tail.len() < 64` readable bytes.
    let v = unsafe { load(tail.as_ptr(), tail.len()) };
    n + _mm512_movepi8_mask(v).count_ones() as usize
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    /// [`ascii_stream`] at every output offset in a cache line, with the
    /// first non-ASCII byte at several places, exact room and one less,
    /// and guards on both sides: it copies exactly the masked head up to
    /// the output's first 64-byte boundary and then every whole 64-byte
    /// block that is ASCII and fits (in pairs and a last single one),
    /// and writes nothing else.
    #[test]
    fn ascii_stream_at_every_alignment() {
        if !super::super::avx512_transcode() {
            return;
        }
        for len in [
            0usize, 1, 63, 64, 65, 127, 128, 129, 191, 192, 193, 255, 256, 300, 1000,
        ] {
            for bad in [
                None,
                Some(0),
                Some(5),
                Some(63),
                Some(64),
                Some(100),
                Some(191),
                Some(255),
                Some(500),
            ] {
                let src: Vec<u8> = (0..len)
                    .map(|k| {
                        if Some(k) == bad {
                            0xE9
                        } else {
                            (k * 7 % 128) as u8
                        }
                    })
                    .collect();
                let ascii = bad.map_or(len, |b| b.min(len));
                for shift in 0..64 {
                    for short in [0, 1, 64] {
                        let cap = len.saturating_sub(short);
                        let mut buf = vec![0xA5u8; len + 192];
                        let base = buf.as_ptr() as usize;
                        let at = (shift + 64 - base % 64) % 64;
                        let head = (base + at).wrapping_neg() % 64;
                        let usable = ascii.min(cap);
                        let expected = if head > usable {
                            0
                        } else {
                            head + (usable - head) / 64 * 64
                        };
                        // SAFETY: the features were checked; `cap` bytes at
                        // `buf + at` are writable.
                        let r = unsafe { ascii_stream(&src, buf.as_mut_ptr().add(at), cap) };
                        assert_eq!(r, expected, "{len} {bad:?} {shift} {short}");
                        for (k, &v) in buf.iter().enumerate() {
                            if k >= at && k < at + r {
                                assert_eq!(v, src[k - at], "{len} {bad:?} {shift} {short}");
                            } else {
                                assert_eq!(v, 0xA5, "{len} {bad:?} {shift} {short} at {k}");
                            }
                        }
                    }
                }
            }
        }
    }
}
