//! AVX2 UTF-16 → UTF-8, and the UTF-8 length of UTF-16 (AVX2, BMI1/2 and
//! POPCNT).
//!
//! # UTF-16 → UTF-8
//!
//! Two main loops take 32 units (two registers) a step. The dense loop
//! ([`dense_steps`]) picks one path for all 32 by what they hold:
//!
//! * all ASCII: `vpackuswb` and one 32-byte store, then 64 units a step
//!   while they last;
//! * no unit from `800` on (Latin, Greek, Cyrillic, Hebrew, Arabic…): per
//!   register, each 16-bit lane gets its 2-byte encoding (`u << 2` blended
//!   into the high byte, masked, marked) or stays ASCII, and one `vpshufb`
//!   with a table row for each half ([`PACK12`], indexed by the 8-bit ASCII
//!   mask) drops the second byte of the ASCII lanes; two 16-byte stores;
//! * no surrogate: each unit gets bytes `[a, l]` in one 16-bit lane and
//!   `[b, m]` in another (see [`encode16`]: `a` its ASCII byte, `l` the last
//!   byte of a 2- or 3-byte character, `b` and `m` the lead and middle
//!   bytes, from one `vpmaddubsw`), interleaved by `vpunpck{l,h}wd` into
//!   the 32-bit lanes `[a, l, b, m]`, and each four lanes are packed by a
//!   `vpshufb` to the bytes their classes take, four 16-byte stores each as
//!   far on as the bytes before it. When no unit of the 32 is below `800`
//!   (CJK) the indices are fixed and the stores 12 bytes apart; when none
//!   is 2 bytes long (CJK, Indic, Hangul with ASCII spaces), the classes
//!   take one bit, and one 32-byte row of [`PACK13`] (indexed by the ASCII
//!   bits of units 0–3 and 8–11, or 4–7 and 12–15, put side by side by
//!   `vpermq` and `vpacksswb`) packs both halves of a register; else the
//!   classes take two bits and a 16-byte row of [`PACK123`] per four units;
//! * eight surrogate pairs (emoji): each 32-bit lane holds a pair, whose
//!   scalar value is computed and spread into its 4 bytes with shifts and
//!   masks: one 32-byte store (and the next 16 units too if they are
//!   pairs);
//! * else (surrogates among other units): the lanes of the path without
//!   surrogates, where each half of a pair writes two of its character's 4
//!   bytes: the high half `F0 | c >> 18` and `80 | c >> 12 & 3F` (its `b`
//!   and `m` computed from `u - D7C0` instead of `u >> 4`), the low half
//!   `80 | c >> 6 & 3F` (its `m`, two bits of which come from the unit
//!   before it) and `80 | c & 3F` (its `l`); the masks of the high and low
//!   halves check that every low half follows a high one and every high
//!   half but the last precedes a low one. A high half last waits for the
//!   next step (its two bytes are overwritten); a block with an unpaired
//!   half stops the kernel and is left to the scalar kernel (`window_end`),
//!   which reports or replaces it at its exact index.
//!
//! The sparse loop ([`sparse_steps`]) is for text that is mostly ASCII with
//! a character outside it here and there (English with typographic quotes
//! and dashes, code, markup). There most steps that are not all ASCII have
//! one such character, so the dense loop would convert 32 units for it. A
//! step with one unit outside ASCII stores its bytes as if it were all
//! ASCII, then takes [`one_outside_ascii`]: that unit's 2 or 3 bytes in one
//! 4-byte store where it stands, and the ASCII bytes after it packed again
//! from the input, one unit on, and stored after them. No branch depends on
//! where the unit is or how long it is, and no later load waits on it.
//! Steps with more such units take the 2-byte path or the general one.
//! After a step that was all ASCII it looks at the next 32 units before it
//! goes to the 64-unit ASCII loop, which hands the 32 units it stops at
//! (the first half of 64 that are not all ASCII, or the second if the first
//! is) to the next step as they are loaded. It leaves steps with a
//! surrogate to the dense loop, one step at a time. It tests the room
//! against a bound on the units ([`step_bound`]) rather than at each step,
//! whose output position the read of a unit outside ASCII makes late. (The
//! dense loop does the same on little-endian input.)
//!
//! The input is converted by chunks of [`CHUNK`] units. Text that starts
//! with 24 or more ASCII units out of 32 starts with the sparse loop; after
//! a chunk, the next one takes the sparse loop if this one made fewer than
//! 1.1 bytes a unit ([`SPARSE_BELOW`]), else the dense loop. Latin-script
//! text whose accented letters come every 10 characters or more often makes
//! more, and the dense loop, whose 2-byte path converts both halves of a
//! step at once, is faster on it.
//!
//! From [`LONG_FROM`] units on, sparse chunks take another loop
//! ([`long_sparse_steps`]), built to mispredict less. Branches whose
//! outcome is random in such text cost nothing in a benchmark that
//! converts the same short text again and again, because the branch
//! predictor learns the whole pattern (on this Zen 3, texts of up to some
//! 16 Ki steps), and cost a mispredict each in a text seen for the first
//! time or a long one. The sparse loop before `one_outside_ascii` branched
//! on what each half of a step holds: it made 0.76–0.84 of simdutf at one
//! character in 80 to 400 on 4 MiB of text, and 0.80–0.84 on short texts
//! seen once. The long inputs' loop converts every step that is not all
//! ASCII as a whole (the 2-byte path only in chunks after one where 4 in 5
//! such steps were 2-byte text, [`StepCounts`], since in mixed text that
//! choice too is a coin toss), skips the ASCII half of the 64 units that
//! end an ASCII run without a branch, and prefetches its input
//! [`LOAD_AHEAD`](super::LOAD_AHEAD) bytes ahead. It ran 1.07–1.48× that
//! sparse loop on long texts with characters outside ASCII (0.98–1.01 on
//! ASCII alone), and 1.04–1.26× it on short
//! texts seen once, but 0.6–0.9× it on a short text converted again and
//! again. The present sparse loop, with `one_outside_ascii`, keeps short
//! inputs: 1.16–1.20× the one before on short texts seen once, 0.76–1.02×
//! it on short texts learnt by heart (see "Text the predictor has not
//! learnt", "The `sparse fresh` rows" and "One unit outside ASCII" in
//! BENCHMARKS.md).
//!
//! The packed stores leave don't-care bytes after a step's output (at most
//! 14), which the output that follows overwrites: such steps run while 16
//! more units follow and the room for them is left. The units left after
//! the main loops (up to 47, more when the room runs short), if ASCII and
//! 64 at most, take one step of 32 or 64 units that ends at the input's
//! end ([`ascii_end`]), storing again the bytes of the units it shares with
//! the steps before. Else they go by blocks of 16 that are stored exactly
//! (ASCII directly, others through a buffer and a few overlapping copies),
//! then the units left as the end of the block of the last 16, whose first
//! units' bytes (already written) are skipped. An input of 16 to 32 units
//! that is all ASCII takes two overlapping stores; fewer than 16 units are
//! the scalar kernel's.
//!
//! That end step matters in mostly-ASCII text: a character outside ASCII
//! moves where the 64-unit ASCII runs after it stop, so most such texts'
//! runs stop short of the input's end, and the 16-unit blocks took the
//! rest. On 512 units (microbenchmark ÷ the code before, three runs of 31
//! rounds): five characters 1.09, one 1.10, two 1.11–1.12, 500 and 530
//! units of ASCII 1.08–1.10 (512, a whole number of runs, 1.00);
//! callgrind 736, 511 and 456 instructions a call against 798, 561 and
//! 489. Bench, plain `sparse` 1 KiB LE, six processes each: 1.09–1.15 of
//! simdutf against 0.98–1.06.
//!
//! Inputs of [`STREAM_MIN`] units and more (an output the caches do not
//! keep) go on after a chunk that was all ASCII with [`ascii_stream`],
//! whose non-temporal stores write the output without first reading it
//! into the cache: ASCII and Latin-script lipsum at 64 MiB went from
//! 1.00–1.09 of simdutf to 1.05–1.27. Streaming decided by each run in the
//! loops instead (after 8 steps of 64 units) cost the short inputs' loops
//! 4–9 % more instructions (Russian, sparse text) and the long inputs'
//! loop 2 % (and 3 % of its speed on sparse text at 4 MiB), for the values
//! that decision keeps through the loops; at the chunk boundary it costs
//! nothing. So that a run that starts in a chunk streams from the next
//! one, the main loops' ASCII runs stop at the chunk's end in an input
//! that streams (the long inputs' sparse loop always does, and the dense
//! loop's [`ascii_run`] then does): on 64 MiB of Cyrillic text that turns
//! to ASCII after 600 K units, 1.04 of the runs that went on to the end
//! of the input with ordinary stores (three runs of 11 rounds), and on 3000
//! Cyrillic units then 200 K ASCII ones, again and again, 1.02–1.12 (the
//! bench's long inputs are all of one kind). In inputs that do not stream
//! the dense loop's runs go on to the input's end: stopping them at the
//! chunk's end there too (which would drop its `run_end`) ran 0.77–0.95
//! of that on 0.4 to 1 Mi units of Cyrillic and ASCII in turn (runs of 40 K
//! to 200 K units; microbenchmark, two runs of 11 rounds).
//!
//! # The UTF-8 length of UTF-16
//!
//! [`utf8_len_from_utf16`]: `1 + (>= 80) + (>= 800)` per unit in 16-bit
//! counters, and 2 less per pair, looked for only in groups of 64 units
//! that have a surrogate (see there).
//!
//! # Tried and dropped
//!
//! Ratios ÷ `simdutf::convert_utf16le_to_utf8` (64 KiB of the lipsum file,
//! the dispatched function, minimum time of interleaved rounds, this Zen 3
//! shared with other work: ±5 %).
//!
//! * The kernel this replaces (16 units a step, each unit widened to a
//!   32-bit lane with its 1 to 3 bytes, four lanes packed by a `pshufb`;
//!   surrogate blocks in scalar code): Arabic 0.60, Chinese 0.72, Emoji
//!   1.02, Korean 0.74, random 0.87.
//! * 16 units a step for the paths above: Arabic 1.28, Korean 1.12; two
//!   registers a step: 1.40, 1.16 (one set of tests and loop control for
//!   both).
//! * Encoding surrogate pairs through the general surrogate path only (no
//!   pairs path): Emoji 3.0; with it 9 to 13.
//! * The fixed-index path for all-3-byte blocks chosen per block of 16
//!   (the class mask zero): Chinese 1.57, Japanese 1.44, but Hindi 1.15 and
//!   Korean 1.10: the branch mispredicts where ASCII spaces come every
//!   block or so. Without it (tables for every block) Hindi 1.25, Korean
//!   1.21, Chinese 1.20. Chosen per 32 units on the below-`800` masks (not
//!   the packed class masks): Chinese 1.65, Japanese 1.38, Hindi 1.23,
//!   Korean 1.18.
//! * Staying on the 2-bit path for 8 steps after a step with a 2-byte unit
//!   (Hangul text has a middle dot every few hundred units, so the choice
//!   between the paths mispredicts about one step in five): Korean 0.96–1.0,
//!   and Hindi fell to 0.9 (the loop compiled worse); dropped.
//! * The 16-unit loop before the end with the same paths as the main loop
//!   (instead of the general surrogate path): 0.1–0.4 % fewer instructions
//!   at 1 KiB (callgrind; the main loop does nearly all of it); dropped.
//! * The ASCII-or-3 rows (two groups a 32-byte row) against the 2-bit
//!   classes of [`PACK123`] with `vinserti128` rows: 6 % fewer instructions
//!   on Hindi (callgrind), 3–5 % faster.
//! * The sparse loop, measured on 64 KiB of ASCII text with one of
//!   `’“”—é–…` every 20 to 400 characters (randomly placed), against the
//!   dense loop alone, which made 0.79–0.90 of simdutf from one in 20 to
//!   one in 100:
//!   - every step through the [`PACK123`] path, ASCII or not (no branch to
//!     mispredict): 103 instructions per 32 units, 0.25 of simdutf on
//!     ASCII and no better at one in 100;
//!   - a half with at most one character outside ASCII written as its
//!     packed ASCII, the character's bytes (by `pdep`) and the rest
//!     shifted by a `vpshufb`, without a branch between the two: about 40
//!     instructions a half, no faster than [`PACK123`];
//!   - the halves' own paths (the sparse loop of commit `c9bbc30`, since
//!     replaced, see below), the 64-unit ASCII loop after
//!     every ASCII step: 1.00–1.04 of simdutf; looking at the next 32 units
//!     first: 1.02–1.09;
//!   - the half that is not ASCII chosen by a blend and converted without
//!     a branch between the halves: 0.84 of that loop;
//!   - the paths for ASCII-and-3-byte and all-3-byte halves in
//!     its `half_step`: it is no longer inlined, 0.8; without its 2-byte
//!     path, 1.02–1.07 on this text but 0.75 on Latin-script text;
//!   - its all-ASCII steps running up to 32 units before the chunk's end
//!     (only the others need 16 more units after them): 0.92–0.99 of this
//!     loop on inputs of 250 to 2000 units;
//!   - big-endian input tested for ASCII before its bytes are swapped
//!     (mask `80FF`, ASCII packed after a shift), so that the tests that
//!     fail and the ASCII runs swap nothing: 0.99 of this loop (BE and LE);
//!   - the loop chosen by counting runs of ASCII in the dense loop: one
//!     counter made that loop run 11 % more instructions (Russian), so the
//!     bytes a unit choose it.
//! * The sparse loop before `one_outside_ascii` (commit `c9bbc30`): each
//!   half of a step that was not all ASCII converted on its own (an ASCII
//!   half packed, the other by [`two_byte`] or the general path). On the
//!   plain rows of the bench 0.93–1.09 of simdutf, on the fresh ones
//!   0.80–0.84 (two random branches per character). `one_outside_ascii`
//!   with the suffix copied through a stack buffer instead of packed again
//!   from the input: a failed store-to-load forwarding on every character,
//!   0.6–0.65 of simdutf on the plain rows. With 64-unit ASCII runs right
//!   after every ASCII step: sparse rows 0.96–0.99 plain, 1.02–1.07 fresh;
//!   after two: 0.93–0.99 and 1.04–1.12, and ASCII rows 1.0–1.5. Steps
//!   with one or two units outside ASCII both through the same stores (the
//!   second unit's where the first one's suffix put it, a missing second
//!   unit written past the output): 0.70–0.90 of `one_outside_ascii` on
//!   text learnt by heart, 0.92–1.05 on text seen once (harness, 512 B to
//!   64 KiB).
//! * The present sparse loop on 512 units with five characters outside
//!   ASCII, learnt by heart (microbenchmark, ÷ this loop in the same
//!   process), where each character costs it about twice what it costs
//!   simdutf. Cut down, with wrong output: the unit not read 1.13–1.15,
//!   its length fixed at 3 bytes 1.08–1.10, no room test 1.07: the wait for
//!   that length, on which the next output position, the room test and
//!   every store's address depend, is what costs. Correct variants: the
//!   length from the vector (a unit from `800` on) 0.98–1.01 here, and in
//!   the bench 0.91–0.99 of simdutf on text seen once (from 0.95–1.07); the
//!   room tested by a bound on the units ([`step_bound`], no branch on the
//!   output position), kept: 0.99–1.01 here, in the bench (÷ simdutf,
//!   interleaved runs) plain 64 KiB 1.09–1.16 from 1.03–1.07, 1 KiB BE
//!   0.90–0.98 from 0.80–0.98 (LE within the noise), text seen once about
//!   the same. The same
//!   bound in the dense loop: LE lipsum +3 to +7 % (two instructions a
//!   step fewer on Russian), but BE −8 to −14 % (three more a step in its
//!   big-endian loop), so only little-endian input takes it there. The
//!   ASCII half skipped when the 64-unit ASCII loop stops, as in the long
//!   inputs' loop, 0.89 (the next loads wait on a vector test). A branch
//!   on the unit's length (predicted, where the read was waited for): plain
//!   rows of the bench 0.96–1.02 of simdutf at 1 KiB and 1.08–1.24 at
//!   64 KiB, but text seen once 0.89–0.99 (from 0.96–1.09), where the
//!   branch mispredicts on every change between 2- and 3-byte characters.
//! * The same text, and 512 units with one character outside ASCII (at unit
//!   137) or two (137 and 476), ÷ the loop before [`ascii_run`] handed
//!   over the units it stops at (microbenchmark, 41 rounds, three runs
//!   each; layout alone moves these ratios by up to 5 %):
//!   - that hand-over, kept: five characters 1.02–1.03, one 1.03, two
//!     1.04–1.05, all ASCII 1.06–1.08 (callgrind: 853, 570 and 424
//!     instructions a call against 854, 574 and 444);
//!   - steps of 64 units in the ASCII run, those with one unit outside
//!     ASCII by a 64-unit [`one_outside_ascii`] (its suffix two registers):
//!     one character 1.09–1.15 but five 1.01–1.04 (most 64-unit stretches
//!     of this text have two) and all ASCII 0.91–0.93; the whole loop in
//!     64-unit steps, 32-unit ones near the end: all ASCII 0.74–0.80 (the
//!     last 128 units fell to the end's blocks), five characters 0.91–0.96;
//!   - the unit outside ASCII taken from the registers (a `vpmaxuw` of the
//!     32 units, then `vphminposuw` of their complement), not read again:
//!     1.01–1.04, as the read; its length from a mask of the units from
//!     `800` on: the same. With the character's bytes fixed (wrong output,
//!     its length still read), 1.06–1.14; with the whole of
//!     `one_outside_ascii` left out, 1.15–1.27 of simdutf: the time is in
//!     getting that unit's bytes, however they are got.
//!   - Fewer instructions a character, no faster (÷ the code before, two
//!     runs of 41 rounds, 0.98–1.05 on the four texts): the `pdep` mask
//!     and lead bits from a table by the unit's top five bits ([`FORMS`],
//!     whose zero entry also finds a surrogate; kept: 3 instructions a
//!     character fewer), the test that 64 units are left (for
//!     `one_outside_ascii`'s reads) folded into the sparse loop's bound
//!     (4 fewer, but then the last step before the end went to the dense
//!     loop: 500 units of ASCII 0.79), the length from the vector (a unit
//!     from `800` on) instead of from the unit read.
//! * For long inputs, measured on 4 MiB and 64 MiB of such text (too long
//!   for the predictor to learn), against the sparse loop:
//!   - each half that is not ASCII found by a `tzcnt` of the units' ASCII
//!     mask and converted from its first unit, no branch on where it is:
//!     1.08–1.37 on long text, but 0.4–0.8 on 64 KiB learnt by heart: the
//!     next loads wait on the count, a chain through every step;
//!   - the halves' own paths after that branch-free skip: 0.95–1.03;
//!   - the two halves swapped by a blend so that the one that is not
//!     ASCII is converted first, with no branch on which it is: 0.93;
//!   - a path for steps of ASCII and 3-byte text only ([`one_or_three`]):
//!     0.92 at one character in 80 and 0.7 at one in 20 (one more coin
//!     toss a step);
//!   - the 2-byte path for every 2-byte step, not chosen by chunk: 0.96
//!     of simdutf on the mixed text at 64 MiB where no 2-byte path made
//!     1.085; on text whose only characters are 2-byte ones, the other
//!     way round (1.04 against 0.935);
//!   - prefetching: at 4 MiB 1 or 4 KiB ahead gave 2–16 % over none; at
//!     64 MiB 2, 8 and 16 KiB ahead were within 2 % of each other.
//! * At 64 MiB, without prefetching, both loops made 0.85–0.87 of simdutf
//!   at one character in 80. Prefetching in the sparse steps alone made
//!   the sparse loop 0.84 of the dense one at one in 400; in its ASCII runs
//!   too, 1.1 there and 0.95–1.05 of simdutf at one in 80. Prefetching the
//!   output (`prefetchw`), other distances and the `T1` hint: no better.
//!   Converting through a 6 KiB buffer that stays in L1 and streaming its
//!   whole lines out with non-temporal stores (no reads for ownership of
//!   the output): 0.79–0.94 of the direct loops at 64 MiB.
//! * The UTF-8 length with the pairing checked in every block (two loads
//!   and 15 operations a block): 0.89 of `simdutf::utf8_length_from_utf16le`
//!   (which counts every surrogate 2, right for valid input only); with a
//!   branch per block but the counter updated three times a step (a 3-cycle
//!   chain): 0.56; one add a step: 1.11–1.18.

use super::utf16_avx512::Stop;
use super::utf16_shared::SWAP16;
use super::{Aligned, copy_short, lane_table, prefetch_input};
use core::arch::x86_64::*;

/// `pshufb` indices that pack eight 16-bit lanes, each holding a unit below
/// `800` as its UTF-8 (a 2-byte lane: the continuation byte low, the lead
/// high; an ASCII lane: the character low), to the start: index bit `k` is
/// set if lane `k` is ASCII (byte `2k`), else it gives bytes `2k + 1` and
/// `2k`. The bytes after them are zeros.
static PACK12: Aligned<[[u8; 16]; 256]> = Aligned(lane_table(2, &[1, 0], &[0]));

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

pub(crate) static PACK123: Aligned<[[u8; 16]; 256]> = Aligned(pack123_table());

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

/// Loads the 32 units at unit `i` of `src` (one step of the main loops).
///
/// # Safety
///
/// Units `i..i + 32` at `src` are readable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load32<const BE: bool>(src: *const u8, i: usize) -> (__m256i, __m256i) {
    // SAFETY: the caller's promise.
    unsafe {
        (
            load16::<BE>(src.add(2 * i)),
            load16::<BE>(src.add(2 * i + 32)),
        )
    }
}

/// Loads the 64 units at unit `i` of `src` (a step of the ASCII runs).
///
/// # Safety
///
/// Units `i..i + 64` at `src` are readable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load64<const BE: bool>(src: *const u8, i: usize) -> (__m256i, __m256i, __m256i, __m256i) {
    // SAFETY: the caller's promise.
    unsafe {
        let ((a, b), (c, d)) = (load32::<BE>(src, i), load32::<BE>(src, i + 32));
        (a, b, c, d)
    }
}

/// The 64 units at unit `i` of `src` (a step of the ASCII runs), if they
/// are all ASCII.
///
/// # Safety
///
/// Units `i..i + 64` at `src` are readable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn ascii64<const BE: bool>(
    src: *const u8,
    i: usize,
) -> Option<(__m256i, __m256i, __m256i, __m256i)> {
    let not_ascii = _mm256_set1_epi16(0xFF80u16 as i16);
    // SAFETY: the caller's promise.
    let (a, b, c, d) = unsafe { load64::<BE>(src, i) };
    let all = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));
    (_mm256_testz_si256(all, not_ascii) != 0).then_some((a, b, c, d))
}

/// Stores the 64 ASCII units `a`, `b`, `c`, `d` as 64 bytes at `out`.
///
/// # Safety
///
/// 64 bytes at `out` are writable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store_ascii64(out: *mut u8, a: __m256i, b: __m256i, c: __m256i, d: __m256i) {
    // SAFETY: the caller's promise.
    unsafe {
        _mm256_storeu_si256(out.cast(), pack_ascii32(a, b));
        _mm256_storeu_si256(out.add(32).cast(), pack_ascii32(c, d));
    }
}

/// The 32 ASCII units `u` then `v` as 32 bytes in order.
#[target_feature(enable = "avx2")]
#[inline]
fn pack_ascii32(u: __m256i, v: __m256i) -> __m256i {
    _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(u, v))
}

/// Whether one of the 32 units `u` and `v` is a surrogate.
#[target_feature(enable = "avx2")]
#[inline]
fn any_surrogate(u: __m256i, v: __m256i) -> bool {
    let not_small = _mm256_set1_epi16(0xF800u16 as i16);
    let surrogate = _mm256_set1_epi16(0xD800u16 as i16);
    let found = _mm256_or_si256(
        _mm256_cmpeq_epi16(_mm256_and_si256(u, not_small), surrogate),
        _mm256_cmpeq_epi16(_mm256_and_si256(v, not_small), surrogate),
    );
    _mm256_testz_si256(found, found) == 0
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
    let packed = _mm256_shuffle_epi8(v, rows(&PACK12.0[lo as usize], &PACK12.0[hi as usize]));
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
/// Units 0–15 of `u` may be surrogates (lane 0's `p` is taken as 0); they
/// are written right where each high half is followed by a low one.
/// (Blocks without surrogates take [`spread16`], which leaves them out.)
#[target_feature(enable = "avx2")]
#[inline]
fn encode16(u: __m256i) -> (__m256i, __m256i, u32, u32, u32) {
    let (ascii, small) = classes(u);
    let al = lanes_al(u);
    let tag = _mm256_and_si256(u, _mm256_set1_epi16(0xFC00u16 as i16));
    let high = _mm256_cmpeq_epi16(tag, _mm256_set1_epi16(0xD800u16 as i16));
    let low = _mm256_cmpeq_epi16(tag, _mm256_set1_epi16(0xDC00u16 as i16));
    let s = _mm256_blendv_epi8(
        _mm256_srli_epi16::<4>(u),
        _mm256_sub_epi16(u, _mm256_set1_epi16(0xD7C0u16 as i16)),
        high,
    );
    // Bytes [x, y] -> y + 64 * x: [u >> 12, u >> 6 & 3F] (the two low
    // bits of `x` land in bits 6 and 7 of the low byte, which the `E0`
    // below sets anyway; no sum reaches the saturation).
    let bm = _mm256_or_si256(
        _mm256_maddubs_epi16(s, _mm256_set1_epi16(0x0140)),
        _mm256_set1_epi16(0xC0E0u16 as i16),
    );
    // Each unit's predecessor (0 before unit 0).
    let prev = _mm256_alignr_epi8::<14>(u, _mm256_permute2x128_si256::<0x08>(u, u));
    let p = _mm256_andnot_si256(_mm256_slli_epi16::<12>(prev), _mm256_set1_epi16(0x3000));
    let flip = _mm256_xor_si256(
        _mm256_andnot_si256(small, _mm256_set1_epi16(0x4000)),
        _mm256_or_si256(
            _mm256_and_si256(high, _mm256_set1_epi16(0x0010)),
            _mm256_and_si256(low, p),
        ),
    );
    let bm = _mm256_xor_si256(bm, flip);
    let (e, d) = (_mm256_or_si256(ascii, high), _mm256_or_si256(small, low));
    let mask = _mm256_movemask_epi8(_mm256_blendv_epi8(
        e,
        d,
        _mm256_set1_epi16(0xFF00u16 as i16),
    )) as u32;
    let h = _mm256_movemask_epi8(high) as u32;
    let l = _mm256_movemask_epi8(low) as u32;
    let w0 = _mm256_unpacklo_epi16(al, bm);
    let w1 = _mm256_unpackhi_epi16(al, bm);
    let (p0, p1) = pack16(w0, w1, mask);
    (p0, p1, mask, h, l)
}

/// The spread lanes of [`encode16`] (units 0–3 and 8–11 in `w0`, 4–7 and
/// 12–15 in `w1`), packed by the class mask `mask`.
#[target_feature(enable = "avx2")]
#[inline]
fn pack16(w0: __m256i, w1: __m256i, mask: u32) -> (__m256i, __m256i) {
    let byte = |j: u32| &PACK123.0[((mask >> (8 * j)) & 0xFF) as usize];
    let p0 = _mm256_shuffle_epi8(w0, rows(byte(0), byte(2)));
    let p1 = _mm256_shuffle_epi8(w1, rows(byte(1), byte(3)));
    (p0, p1)
}

/// The ASCII and below-`800` masks of the 16 units `u`.
#[target_feature(enable = "avx2")]
#[inline]
fn classes(u: __m256i) -> (__m256i, __m256i) {
    let zero = _mm256_setzero_si256();
    (
        _mm256_cmpeq_epi16(
            _mm256_and_si256(u, _mm256_set1_epi16(0xFF80u16 as i16)),
            zero,
        ),
        _mm256_cmpeq_epi16(
            _mm256_and_si256(u, _mm256_set1_epi16(0xF800u16 as i16)),
            zero,
        ),
    )
}

/// `[a, l]` of every unit of `u` (see [`encode16`]).
#[target_feature(enable = "avx2")]
#[inline]
fn lanes_al(u: __m256i) -> __m256i {
    // SAFETY: `DUP_LOW` is 16 readable bytes.
    let dup = unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(DUP_LOW.as_ptr().cast())) };
    _mm256_or_si256(
        _mm256_and_si256(_mm256_shuffle_epi8(u, dup), _mm256_set1_epi16(0x3F7F)),
        _mm256_set1_epi16(0x8000u16 as i16),
    )
}

/// `[b, m]` of every unit of `u` with `m = C0 | …` (see [`encode16`]),
/// before the flip of the units from `800` on to `80 | …`.
#[target_feature(enable = "avx2")]
#[inline]
fn lanes_bm(u: __m256i) -> __m256i {
    _mm256_or_si256(
        _mm256_maddubs_epi16(_mm256_srli_epi16::<4>(u), _mm256_set1_epi16(0x0140)),
        _mm256_set1_epi16(0xC0E0u16 as i16),
    )
}

/// [`encode16`] up to the packing, for units without surrogates, given
/// their [`classes`]: the spread lanes and the class mask.
#[target_feature(enable = "avx2")]
#[inline]
fn spread16(u: __m256i, ascii: __m256i, small: __m256i) -> (__m256i, __m256i, u32) {
    let al = lanes_al(u);
    let bm = _mm256_xor_si256(
        lanes_bm(u),
        _mm256_andnot_si256(small, _mm256_set1_epi16(0x4000)),
    );
    let mask = _mm256_movemask_epi8(_mm256_blendv_epi8(
        ascii,
        small,
        _mm256_set1_epi16(0xFF00u16 as i16),
    )) as u32;
    (
        _mm256_unpacklo_epi16(al, bm),
        _mm256_unpackhi_epi16(al, bm),
        mask,
    )
}

/// `pshufb` indices that pack the UTF-8 of two groups of four units, each
/// an ASCII character or 3 bytes, spread over 32-bit lanes as by
/// [`encode16`], in the two halves of a register: bit `k` of the index
/// (`k < 4`: the low half's lane `k`; else the high half's lane `k - 4`)
/// is set if the unit is ASCII (byte `a`), else it gives `b`, `m`, `l`.
const fn pack13_table() -> [[u8; 32]; 256] {
    let mut table = [[0x80u8; 32]; 256];
    let mut index = 0;
    while index < 256 {
        let mut half = 0;
        while half < 2 {
            let mut out = 0;
            let mut lane = 0;
            while lane < 4 {
                let base = 4 * lane as u8;
                if index & (1 << (4 * half + lane)) != 0 {
                    table[index][16 * half + out] = base;
                    out += 1;
                } else {
                    table[index][16 * half + out] = base + 2;
                    table[index][16 * half + out + 1] = base + 3;
                    table[index][16 * half + out + 2] = base + 1;
                    out += 3;
                }
                lane += 1;
            }
            half += 1;
        }
        index += 1;
    }
    table
}

static PACK13: Aligned<[[u8; 32]; 256]> = Aligned(pack13_table());

/// Writes the UTF-8 of 16 units that are each ASCII or 3 bytes long (no
/// unit in `80..800`, no surrogate; `ascii` their ASCII mask) at `out`;
/// returns its length. The lanes are those of [`encode16`], every `m`
/// flipped to `80 | …` (none is a 2-byte lead), packed with [`PACK13`],
/// whose rows index both halves of a register at once.
///
/// # Safety
///
/// 64 bytes at `out` are writable.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn one_or_three(u: __m256i, ascii: __m256i, out: *mut u8) -> usize {
    let al = lanes_al(u);
    let bm = _mm256_xor_si256(lanes_bm(u), _mm256_set1_epi16(0x4000));
    let w0 = _mm256_unpacklo_epi16(al, bm);
    let w1 = _mm256_unpackhi_epi16(al, bm);
    // The ASCII bits of units 0–3 and 8–11 (`w0`'s) in byte 0, of 4–7 and
    // 12–15 (`w1`'s) in byte 2 (bytes 1 and 3 repeat them).
    let ascii = _mm256_permute4x64_epi64::<0b11_01_10_00>(ascii);
    let m = _mm256_movemask_epi8(_mm256_packs_epi16(ascii, ascii)) as u32;
    let (i0, i1) = (m & 0xFF, (m >> 16) & 0xFF);
    // SAFETY: the rows are 32 readable bytes.
    let (t0, t1) = unsafe {
        (
            _mm256_loadu_si256(PACK13.0[i0 as usize].as_ptr().cast()),
            _mm256_loadu_si256(PACK13.0[i1 as usize].as_ptr().cast()),
        )
    };
    let p0 = _mm256_shuffle_epi8(w0, t0);
    let p1 = _mm256_shuffle_epi8(w1, t1);
    let n0 = 12 - 2 * (i0 & 0xF).count_ones() as usize;
    let n1 = 12 - 2 * (i1 & 0xF).count_ones() as usize;
    let n2 = 12 - 2 * (i0 >> 4).count_ones() as usize;
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
    48 - m.count_ones() as usize
}

/// Packs the UTF-8 of 16 units spread by [`spread16`] with [`PACK123`]
/// rows and stores it at `out`; returns its length. (All 3-byte blocks take
/// fixed indices instead, in [`store_threes`].)
///
/// # Safety
///
/// 64 bytes at `out` are writable.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn store16(w0: __m256i, w1: __m256i, mask: u32, out: *mut u8) -> usize {
    let (p0, p1) = pack16(w0, w1, mask);
    // SAFETY: the caller's promise.
    unsafe { store4(p0, p1, mask, out) }
}

/// Stores the UTF-8 of 16 3-byte units (`u`, from `800` on, no surrogate):
/// 48 bytes at `out`, by four 16-byte stores 12 bytes apart.
///
/// # Safety
///
/// 52 bytes at `out` are writable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store_threes(u: __m256i, out: *mut u8) {
    let al = lanes_al(u);
    let bm = _mm256_xor_si256(lanes_bm(u), _mm256_set1_epi16(0x4000));
    let index = rows(&PACK123.0[0], &PACK123.0[0]);
    let p0 = _mm256_shuffle_epi8(_mm256_unpacklo_epi16(al, bm), index);
    let p1 = _mm256_shuffle_epi8(_mm256_unpackhi_epi16(al, bm), index);
    // SAFETY: the caller's promise.
    unsafe {
        _mm_storeu_si128(out.cast(), _mm256_castsi256_si128(p0));
        _mm_storeu_si128(out.add(12).cast(), _mm256_castsi256_si128(p1));
        _mm_storeu_si128(out.add(24).cast(), _mm256_extracti128_si256::<1>(p0));
        _mm_storeu_si128(out.add(36).cast(), _mm256_extracti128_si256::<1>(p1));
    }
}

/// Whether the 16 units `u` are eight surrogate pairs: a high half in
/// every even lane, a low half in every odd one.
#[target_feature(enable = "avx2")]
#[inline]
fn is_pairs(u: __m256i) -> bool {
    let tags = _mm256_and_si256(u, _mm256_set1_epi16(0xFC00u16 as i16));
    let pairs = _mm256_set1_epi32(0xDC00_D800u32 as i32);
    _mm256_movemask_epi8(_mm256_cmpeq_epi16(tags, pairs)) == -1
}

/// The UTF-8 of the eight surrogate pairs `u` (see [`is_pairs`]), 4 bytes
/// each: in each 32-bit lane (high half `h` low, low half `l` high) the
/// scalar value `(h & 3FF) << 10 | (l & 3FF)` plus `10000`, spread into
/// `F0 | c >> 18`, `80 | c >> 12 & 3F`, `80 | c >> 6 & 3F`, `80 | c & 3F`,
/// in memory order.
#[target_feature(enable = "avx2")]
#[inline]
fn encode_pairs(u: __m256i) -> __m256i {
    let ten = _mm256_set1_epi32(0x3FF);
    let c = _mm256_add_epi32(
        _mm256_or_si256(
            _mm256_slli_epi32::<10>(_mm256_and_si256(u, ten)),
            _mm256_and_si256(_mm256_srli_epi32::<16>(u), ten),
        ),
        _mm256_set1_epi32(0x1_0000),
    );
    let b0 = _mm256_srli_epi32::<18>(c);
    let b1 = _mm256_and_si256(_mm256_srli_epi32::<4>(c), _mm256_set1_epi32(0x3F00));
    let b2 = _mm256_and_si256(_mm256_slli_epi32::<10>(c), _mm256_set1_epi32(0x3F_0000));
    let b3 = _mm256_and_si256(_mm256_slli_epi32::<24>(c), _mm256_set1_epi32(0x3F00_0000));
    _mm256_or_si256(
        _mm256_or_si256(_mm256_or_si256(b0, b1), _mm256_or_si256(b2, b3)),
        _mm256_set1_epi32(0x8080_80F0u32 as i32),
    )
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
    // SAFETY: `i < len` (the block at `i` has a unit), so `1 <= end <= len`;
    // the caller's promise for the rest.
    unsafe { super::utf16_shared::pair_end::<BE>(src, len, (i + 16).min(len)) }
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
    // Fuzzing runs the loop for long inputs on short ones too, on those of
    // an odd number of units, and lets them stream (which takes a chunk of
    // ASCII: inputs longer than fuzzers make, but not than they may be
    // given).
    let (long_from, stream_from) = if cfg!(fuzzing) && len % 2 == 1 {
        (0, 0)
    } else {
        (LONG_FROM, STREAM_MIN)
    };
    // SAFETY: the caller's promises.
    unsafe { convert::<BE>(src, len, dst, cap, long_from, stream_from) }
}

/// [`utf16_to_utf8`], whose sparse chunks take [`long_sparse_steps`] if
/// `len >= long_from`, and whose ASCII runs that fill a chunk go on by
/// [`ascii_stream`] if `len` and `cap` are `stream_from` or more (tests
/// pass 0 to run both on short inputs).
///
/// # Safety
///
/// As [`utf16_to_utf8`].
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
unsafe fn convert<const BE: bool>(
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
    long_from: usize,
    stream_from: usize,
) -> Stop {
    let stream = len >= stream_from && cap >= stream_from;
    // SAFETY: the caller's promises.
    let stop = unsafe { convert_unfenced::<BE>(src, len, dst, cap, long_from, stream) };
    if stream {
        // Orders the non-temporal stores before the caller's reads of the
        // output, and before any later store. (The conversion itself never
        // reads the output, nor stores again to what a run streamed.) One
        // fence a call: it waits for every store before it.
        _mm_sfence();
    }
    stop
}

/// [`convert`] but for the fence after the non-temporal stores, which
/// ASCII runs that fill a chunk take if `stream`.
///
/// # Safety
///
/// As [`utf16_to_utf8`].
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn convert_unfenced<const BE: bool>(
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
    long_from: usize,
    stream: bool,
) -> Stop {
    let not_ascii = _mm256_set1_epi16(0xFF80u16 as i16);
    if (16..=32).contains(&len) && cap >= len {
        // One or two blocks (the last one overlapping the first): when
        // both are ASCII, two stores of exactly their bytes.
        // SAFETY: units `0..16` and `len - 16..len` are readable.
        let (a, b) = unsafe { (load16::<BE>(src), load16::<BE>(src.add(2 * len - 32))) };
        if _mm256_testz_si256(_mm256_or_si256(a, b), not_ascii) != 0 {
            let pack = |v: __m256i| {
                _mm_packus_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v))
            };
            // SAFETY: bytes `0..16` and `len - 16..len` of the `cap`.
            unsafe {
                _mm_storeu_si128(dst.cast(), pack(a));
                _mm_storeu_si128(dst.add(len - 16).cast(), pack(b));
            }
            return Stop::new(len, len, None);
        }
    }
    let mut i = 0;
    let mut o = 0;
    // Which loop converts the next chunk: text that starts mostly ASCII
    // starts with the sparse one. (Not by the bytes a unit of later chunks:
    // 32 units are too few, one or two typographic characters among them
    // would make more than 1.1, and a short input is all one chunk.)
    // SAFETY: units `0..32` are readable when `len >= 48`.
    let mut sparse = len >= 48 && unsafe { mostly_ascii::<BE>(src) };
    // Whether the long inputs' sparse loop takes the 2-byte path (see
    // `StepCounts`); the first chunk does not.
    let mut two = false;
    while len - i >= 48 && cap - o >= 2 * ROOM {
        let lim = i + (len - i).min(CHUNK);
        let (i0, o0) = (i, o);
        let mut counts = StepCounts::default();
        loop {
            if sparse {
                // SAFETY: the caller's promises; `i + 48 <= lim <= len`,
                // `o + 2 * ROOM <= cap`, `i` not inside a pair.
                unsafe {
                    if len < long_from {
                        (i, o) = sparse_steps::<BE>(src, len, lim, dst, cap, i, o);
                    } else {
                        let (read, written, more) = if two {
                            long_sparse_steps::<BE, true>(src, lim, dst, cap, i, o)
                        } else {
                            long_sparse_steps::<BE, false>(src, lim, dst, cap, i, o)
                        };
                        (i, o) = (read, written);
                        counts.add(more);
                    }
                }
            }
            if i + 48 > lim || cap - o < 2 * ROOM {
                break;
            }
            // The whole chunk, or the step with a surrogate that stopped
            // the sparse loop.
            let end = if sparse { i + 48 } else { lim };
            // In an input that streams, ASCII runs stop at the chunk's end,
            // so that one that fills the next chunk streams from there.
            let run_end = if stream { lim } else { len };
            // SAFETY: as above, `i + 48 <= end <= lim <= run_end <= len`.
            match unsafe { dense_steps::<BE>(src, len, end, run_end, dst, cap, i, o) } {
                Ok((read, written)) => (i, o) = (read, written),
                Err(stop) => return stop,
            }
        }
        if stream && o - o0 == i - i0 {
            // The chunk was all ASCII (a byte a unit): its run goes on with
            // non-temporal stores.
            // SAFETY: the caller's promises; `i <= len`, `o <= cap`.
            (i, o) = unsafe { ascii_stream::<BE>(src, len, dst, cap, i, o) };
        }
        sparse = SPARSE_BELOW.1 * (o - o0) < SPARSE_BELOW.0 * (i - i0);
        if counts.converted > 0 {
            two = counts.mostly_two_byte();
        }
    }
    // SAFETY: the caller's promises; `i <= len`, `o <= cap`, and units
    // `0..i` are converted to bytes `0..o`.
    if let Some(written) = unsafe { ascii_end::<BE>(src, len, dst, cap, i, o) } {
        return Stop::new(len, written, None);
    }
    let not_small = _mm256_set1_epi16(0xF800u16 as i16);
    // The same 16 units a step.
    while len - i >= 32 && cap - o >= ROOM {
        // SAFETY: units `i..i + 16` are readable.
        let u = unsafe { load16::<BE>(src.add(2 * i)) };
        // SAFETY: `o + ROOM <= cap`.
        let out = unsafe { dst.add(o) };
        if _mm256_testz_si256(u, not_ascii) != 0 {
            let bytes =
                _mm_packus_epi16(_mm256_castsi256_si128(u), _mm256_extracti128_si256::<1>(u));
            // SAFETY: 16 of the `ROOM` writable bytes.
            unsafe { _mm_storeu_si128(out.cast(), bytes) };
            i += 16;
            o += 16;
            continue;
        }
        if _mm256_testz_si256(u, not_small) != 0 {
            // SAFETY: `ROOM` writable bytes at `out`.
            o += unsafe { two_byte(u, out) };
            i += 16;
            continue;
        }
        let (p0, p1, mask, h, l) = encode16(u);
        if l != h << 2 {
            // SAFETY: `src` is `2 * len` readable bytes.
            return Stop::new(i, o, Some(unsafe { window_end::<BE>(src, len, i) }));
        }
        // SAFETY: `ROOM` writable bytes at `out`.
        let n = unsafe { store4(p0, p1, mask, out) };
        let last = (h >> 30) as usize & 1;
        i += 16 - last;
        o += n - 2 * last;
    }
    // SAFETY: the caller's promises, and the invariants above.
    unsafe { tail::<BE>(src, len, dst, cap, i, o) }
}

/// Converts the input's last units from unit `i` and byte `o`, 1 to 64 of
/// them, if they are ASCII and the room holds them: one step of 32 or 64
/// units that ends at the input's end and stores their bytes, those of the
/// units it shares with the steps before included (the same bytes again,
/// just before `o`). Returns the bytes written in all, or `None` (having
/// written nothing) if the units are not all ASCII, the room is short, or
/// the input is shorter than the step.
///
/// A character outside ASCII moves where the ASCII runs after it stop:
/// most texts' runs end short of the input's end, and this step takes the
/// rest where the 16-unit steps and [`tail`] took 2 or 3 steps.
///
/// # Safety
///
/// * The CPU supports AVX2.
/// * `src` is valid for reads of `2 * len` bytes, `dst` for writes of
///   `cap`; `i <= len`, `o <= cap`, and units `0..i` were converted to
///   bytes `0..o`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn ascii_end<const BE: bool>(
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
    i: usize,
    o: usize,
) -> Option<usize> {
    let not_ascii = _mm256_set1_epi16(0xFF80u16 as i16);
    let rest = len - i;
    if rest == 0 || rest > 64 || cap - o < rest {
        return None;
    }
    // The units of the step before `i` are ASCII too (the step tests them),
    // so their bytes are the `step - rest` just before `o` (`o >= i`: no
    // unit makes less than a byte).
    if rest <= 32 && len >= 32 {
        // SAFETY: units `len - 32..len` are readable.
        let (u, v) = unsafe { load32::<BE>(src, len - 32) };
        if _mm256_testz_si256(_mm256_or_si256(u, v), not_ascii) == 0 {
            return None;
        }
        // SAFETY: bytes `o + rest - 32..o + rest` of the `cap`
        // (`o + rest >= len >= 32`).
        unsafe { _mm256_storeu_si256(dst.add(o + rest - 32).cast(), pack_ascii32(u, v)) };
    } else if len >= 64 {
        // SAFETY: units `len - 64..len` are readable.
        let (a, b, c, d) = unsafe { ascii64::<BE>(src, len - 64) }?;
        // SAFETY: bytes `o + rest - 64..o + rest` of the `cap`
        // (`o + rest >= len >= 64`).
        unsafe { store_ascii64(dst.add(o + rest - 64), a, b, c, d) };
    } else {
        return None;
    }
    Some(o + rest)
}

/// Goes on with an ASCII run at unit `i` and byte `o` while 64 units are
/// left and ASCII, 64 a step: the first 64 with ordinary stores, then from
/// the output's next 64-byte boundary (which those stores reach) with
/// non-temporal stores of whole cache lines. Returns the units read and
/// bytes written. Each store writes only bytes of the run.
///
/// A non-temporal store writes its line to memory without reading it into
/// the cache first, as an ordinary store that misses must: that saves a
/// third of the memory traffic of an output too long to stay in the
/// caches. The caller fences (`sfence`) before the output is read.
///
/// # Safety
///
/// * The CPU supports AVX2.
/// * `src` is valid for reads of `2 * len` bytes, `dst` for writes of
///   `cap`; `i <= len`, `o <= cap`.
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn ascii_stream<const BE: bool>(
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
    mut i: usize,
    mut o: usize,
) -> (usize, usize) {
    if len - i < 64 || cap - o < 64 {
        return (i, o);
    }
    // SAFETY: units `i..i + 64` are readable.
    let Some((a, b, c, d)) = (unsafe { ascii64::<BE>(src, i) }) else {
        return (i, o);
    };
    // SAFETY: `o + 64 <= cap`.
    unsafe { store_ascii64(dst.add(o), a, b, c, d) };
    // On to the output's next 64-byte boundary, 1 to 64 bytes on: the
    // bytes of the units before it are stored.
    let skew = 64 - (dst as usize).wrapping_add(o) % 64;
    i += skew;
    o += skew;
    while len - i >= 64 && cap - o >= 64 {
        // SAFETY: units `i..i + 64` are readable.
        let Some((a, b, c, d)) = (unsafe { ascii64::<BE>(src, i) }) else {
            break;
        };
        // SAFETY: `o + 64 <= cap`, and `dst + o` is 64-byte aligned, as
        // `vmovntdq` needs.
        unsafe {
            _mm256_stream_si256(dst.add(o).cast(), pack_ascii32(a, b));
            _mm256_stream_si256(dst.add(o + 32).cast(), pack_ascii32(c, d));
        }
        i += 64;
        o += 64;
    }
    (i, o)
}

/// Units a chunk of [`utf16_to_utf8`]: the bytes a unit of one choose the
/// main loop of the next (see the module doc). Chunks of 4 Ki units ran
/// the 2-byte lipsum files 3–5 % slower (a call and its constants per
/// chunk).
const CHUNK: usize = 16 * 1024;

/// The next chunk takes the sparse loop if this one made fewer than
/// `SPARSE_BELOW.0 / SPARSE_BELOW.1` bytes a unit.
const SPARSE_BELOW: (usize, usize) = (11, 10);

/// From this many units on, sparse chunks take [`long_sparse_steps`]
/// instead of [`sparse_steps`] (see the module doc).
const LONG_FROM: usize = 1024 * 1024;

/// Inputs of at least this many units, into room for as many bytes (an
/// output of 8 MiB or more, which the caches do not keep), go on with an
/// ASCII run that filled a whole chunk by non-temporal stores
/// ([`ascii_stream`]), as the UTF-8 → UTF-16 and AVX-512 kernels stream
/// long ASCII runs from the same size.
const STREAM_MIN: usize = 8 << 20;

/// Whether 24 or more of the 32 units at `src` are ASCII.
///
/// # Safety
///
/// * The CPU supports AVX2 and POPCNT.
/// * `src` is valid for reads of 64 bytes.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn mostly_ascii<const BE: bool>(src: *const u8) -> bool {
    // SAFETY: the caller's promise.
    let (u, v) = unsafe { load32::<BE>(src, 0) };
    non_ascii_mask(u, v).count_ones() <= 8
}

/// The sparse loop for long inputs (from [`LONG_FROM`] units; see the
/// module doc), from unit `i` and byte `o` while 48 units are left before
/// `lim`, up to a step with a surrogate: 32 units a step, each step that is
/// not all ASCII converted as a whole, by [`two_byte`] if `TWO` and no unit
/// is from `800` on, else by [`spread16`] and [`store16`]; all-ASCII steps
/// 64 units at a time, the first 32 units of the 64 that end such a run
/// skipped without a branch if they are ASCII. Each step prefetches the
/// input [`LOAD_AHEAD`](super::LOAD_AHEAD) bytes on ([`prefetch_input`]).
/// Returns the units read, the bytes written, and the counts of the steps
/// it converted that were not all ASCII.
///
/// # Safety
///
/// As [`utf16_to_utf8`]; `i <= lim <= len`, `o <= cap`, `i` not inside a
/// pair.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline(never)]
unsafe fn long_sparse_steps<const BE: bool, const TWO: bool>(
    src: *const u8,
    lim: usize,
    dst: *mut u8,
    cap: usize,
    mut i: usize,
    mut o: usize,
) -> (usize, usize, StepCounts) {
    let not_ascii = _mm256_set1_epi16(0xFF80u16 as i16);
    let not_small = _mm256_set1_epi16(0xF800u16 as i16);
    let mut counts = StepCounts::default();
    'steps: while i + 48 <= lim && cap - o >= 2 * ROOM {
        // SAFETY: units `i..i + 32` are readable.
        let (mut u, mut v) = unsafe { load32::<BE>(src, i) };
        prefetch_input(src, 2 * i);
        if _mm256_testz_si256(_mm256_or_si256(u, v), not_ascii) != 0 {
            // SAFETY: `o + 32 <= cap`.
            unsafe { _mm256_storeu_si256(dst.add(o).cast(), pack_ascii32(u, v)) };
            i += 32;
            o += 32;
            loop {
                // Room to skip 32 ASCII units and then convert a step.
                if i + 80 > lim || cap - o < 2 * ROOM + 32 {
                    continue 'steps;
                }
                // SAFETY: units `i..i + 64` are readable (`i + 80 <= lim`).
                let (a, b, c, d) = unsafe { load64::<BE>(src, i) };
                prefetch_input(src, 2 * i);
                prefetch_input(src, 2 * i + 64);
                let first = _mm256_or_si256(a, b);
                let all = _mm256_or_si256(first, _mm256_or_si256(c, d));
                if _mm256_testz_si256(all, not_ascii) == 0 {
                    // The first 32 bytes are stored either way: if those
                    // units are not ASCII, the step's output (more than 32
                    // bytes) overwrites them.
                    let skip = 32 * _mm256_testz_si256(first, not_ascii) as usize;
                    // SAFETY: `o + 32 <= cap`.
                    unsafe { _mm256_storeu_si256(dst.add(o).cast(), pack_ascii32(a, b)) };
                    i += skip;
                    o += skip;
                    // SAFETY: units `i..i + 32` are readable.
                    (u, v) = unsafe { load32::<BE>(src, i) };
                    break;
                }
                // SAFETY: `o + 64 <= cap`.
                unsafe { store_ascii64(dst.add(o), a, b, c, d) };
                i += 64;
                o += 64;
            }
        }
        if any_surrogate(u, v) {
            break;
        }
        let small = _mm256_testz_si256(_mm256_or_si256(u, v), not_small) != 0;
        counts.converted += 1;
        counts.two_byte += small as usize;
        // SAFETY: `o + 2 * ROOM <= cap`: `ROOM` bytes for each half.
        unsafe {
            let out = dst.add(o);
            if TWO && small {
                let n = two_byte(u, out);
                o += n + two_byte(v, out.add(n));
            } else {
                o += general32(u, v, out);
            }
        }
        i += 32;
    }
    (i, o, counts)
}

/// The main loop of [`utf16_to_utf8`] for text that is mostly ASCII (see
/// the module doc), on inputs of fewer than [`LONG_FROM`] units, from unit
/// `i` and byte `o` while 48 units are left before `lim`, up to a step
/// with a surrogate: 32 units a step. An all-ASCII step is packed and
/// stored, and if the next 32 units are ASCII too, [`ascii_run`]
/// takes over; the units it stops at are the next step, which is not
/// loaded again. A step with one unit outside ASCII goes by
/// [`one_outside_ascii`], with no branch on where that unit is; the others
/// by [`two_byte`] or the general path. The room and the chunk's end are
/// tested against [`step_bound`], so that no branch waits for the bytes
/// the steps made. Returns the units read and the bytes written.
///
/// # Safety
///
/// As [`utf16_to_utf8`]; `i <= lim <= len`, `o <= cap`, `i` not inside a
/// pair.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline(never)]
unsafe fn sparse_steps<const BE: bool>(
    src: *const u8,
    len: usize,
    lim: usize,
    dst: *mut u8,
    cap: usize,
    mut i: usize,
    mut o: usize,
) -> (usize, usize) {
    let not_ascii = _mm256_set1_epi16(0xFF80u16 as i16);
    // Steps start while `i < bound` (see `step_bound`).
    let mut bound = i;
    loop {
        if i >= bound {
            if i + 48 > lim || cap - o < 2 * ROOM {
                break;
            }
            bound = step_bound(i, o, lim, cap);
        }
        // SAFETY: units `i..i + 32` are readable.
        let (mut u, mut v) = unsafe { load32::<BE>(src, i) };
        if _mm256_testz_si256(_mm256_or_si256(u, v), not_ascii) != 0 {
            // SAFETY: `o + 32 <= cap`.
            unsafe { _mm256_storeu_si256(dst.add(o).cast(), pack_ascii32(u, v)) };
            i += 32;
            o += 32;
            if i >= bound {
                continue;
            }
            // SAFETY: as above.
            (u, v) = unsafe { load32::<BE>(src, i) };
            if _mm256_testz_si256(_mm256_or_si256(u, v), not_ascii) != 0 {
                let stopped;
                // SAFETY: `i + 32 <= len`, `o + 32 <= cap`.
                (i, o, u, v, stopped) = unsafe { ascii_run::<BE>(src, len, dst, cap, i, o, u, v) };
                // Stopped for the input's end or the room, or at units
                // past the bound: the bound's test decides.
                if !stopped || i >= bound {
                    continue;
                }
            }
            // Units `i..i + 32`, not all ASCII, are the next step (`i` is
            // below the bound): converted without loading them again.
        }
        // SAFETY: `i + 48 <= lim` and `o + 2 * ROOM <= cap` (`i < bound`).
        match unsafe { sparse_step::<BE>(src, len, i, u, v, dst.add(o)) } {
            Some(n) => o += n,
            None => break,
        }
        i += 32;
    }
    (i, o)
}

/// Stores the 32 ASCII units `u` and `v` (units `i..i + 32`) at `o`, then
/// converts the ASCII units after them 64 a step while 64 are left and
/// room for them; of 64 units that are not all ASCII, it stores the first
/// 32 if they are. Each store writes exactly its output. Returns the units
/// read, the bytes written, the 32 units at the unit read and whether the
/// run stopped at them (not all ASCII), rather than for the input's end or
/// the room: the sparse loop converts them as they are loaded.
///
/// # Safety
///
/// * The CPU supports AVX2.
/// * `src` is valid for reads of `2 * len` bytes, `dst` for writes of
///   `cap`; `i + 32 <= len` and `o + 32 <= cap`.
#[target_feature(enable = "avx2")]
#[inline]
#[allow(clippy::too_many_arguments)]
unsafe fn ascii_run<const BE: bool>(
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
    mut i: usize,
    mut o: usize,
    u: __m256i,
    v: __m256i,
) -> (usize, usize, __m256i, __m256i, bool) {
    let not_ascii = _mm256_set1_epi16(0xFF80u16 as i16);
    // SAFETY: `o + 32 <= cap`.
    unsafe { _mm256_storeu_si256(dst.add(o).cast(), pack_ascii32(u, v)) };
    i += 32;
    o += 32;
    // Steps of 64 units (and bytes) left in the input and the room.
    for _ in 0..(len - i).min(cap - o) / 64 {
        // SAFETY: units `i..i + 64` are readable.
        let (a, b, c, d) = unsafe { load64::<BE>(src, i) };
        let first = _mm256_or_si256(a, b);
        if _mm256_testz_si256(_mm256_or_si256(first, _mm256_or_si256(c, d)), not_ascii) != 0 {
            // SAFETY: `o + 64 <= cap`.
            unsafe { store_ascii64(dst.add(o), a, b, c, d) };
            i += 64;
            o += 64;
            continue;
        }
        if _mm256_testz_si256(first, not_ascii) == 0 {
            return (i, o, a, b, true);
        }
        // SAFETY: `o + 32 <= cap`.
        unsafe { _mm256_storeu_si256(dst.add(o).cast(), pack_ascii32(a, b)) };
        return (i + 32, o + 32, c, d, true);
    }
    (i, o, u, v, false)
}

/// Writes the UTF-8 of the 32 units `u`, `v` at unit `i` of `src`, not all
/// ASCII, at `out` (a step of [`sparse_steps`]); returns its length, or
/// `None` if one is a surrogate (left to the dense loop).
///
/// # Safety
///
/// * The CPU supports AVX2, BMI1, BMI2 and POPCNT.
/// * `src` is valid for reads of `2 * len` bytes, `i + 32 <= len`; `2 * ROOM`
///   bytes at `out` are writable.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn sparse_step<const BE: bool>(
    src: *const u8,
    len: usize,
    i: usize,
    u: __m256i,
    v: __m256i,
    out: *mut u8,
) -> Option<usize> {
    let not_small = _mm256_set1_epi16(0xF800u16 as i16);
    let outside = non_ascii_mask(u, v);
    // `i + 64 <= len`: a step by `one_outside_ascii` leaves up to 32
    // don't-care bytes after its output, which the next 32 units' output
    // overwrites (the other paths leave at most 14, for the 16 units that
    // follow every step).
    if outside & outside.wrapping_sub(1) == 0 && i + 64 <= len {
        // SAFETY: units `i..i + 64` are readable; 128 bytes at `out`.
        unsafe {
            // The step's bytes as if it were all ASCII, which
            // `one_outside_ascii` mends.
            _mm256_storeu_si256(out.cast(), pack_ascii32(u, v));
            one_outside_ascii::<BE>(src, i, outside, out)
        }
    } else if _mm256_testz_si256(_mm256_or_si256(u, v), not_small) != 0 {
        // SAFETY: `ROOM` bytes for each half.
        unsafe {
            let n = two_byte(u, out);
            Some(n + two_byte(v, out.add(n)))
        }
    } else if any_surrogate(u, v) {
        None
    } else {
        // SAFETY: as above.
        Some(unsafe { general32(u, v, out) })
    }
}

/// Where the main loops ([`sparse_steps`], and [`dense_steps`] on
/// little-endian input), at unit `i` and byte `o` (with `i + 48 <= lim`
/// and `2 * ROOM` bytes of room), next test the end of the chunk and the
/// room: every step that starts before it has `i + 48 <= lim` and its
/// `2 * ROOM` bytes, since no step writes more than 3 bytes a unit (so a
/// quarter of the room beyond those bytes is units enough).
///
/// The loops test that bound, which depends on the units, rather than the
/// room at each step: the room depends on the bytes the steps before made,
/// which the loops know late (the sparse loop after the read of a unit
/// outside ASCII), and every step's branch waited for them (see the module
/// doc).
#[inline]
fn step_bound(i: usize, o: usize, lim: usize, cap: usize) -> usize {
    (lim - 47).min(i + (cap - o - 2 * ROOM) / 4 + 1)
}

/// Bit `j` set if unit `j` of the 32 units `u`, `v` is not ASCII.
#[target_feature(enable = "avx2")]
#[inline]
fn non_ascii_mask(u: __m256i, v: __m256i) -> u32 {
    // Units from `80` on get the sign bit, which the signed pack keeps.
    let lift = _mm256_set1_epi16(0x7F80);
    let high = _mm256_packs_epi16(_mm256_adds_epu16(u, lift), _mm256_adds_epu16(v, lift));
    _mm256_movemask_epi8(_mm256_permute4x64_epi64::<0b11_01_10_00>(high)) as u32
}

/// Writes the UTF-8 of the 32 units at unit `i` of `src`, all ASCII but the
/// one `outside` points to (one bit set), at `out`, where their bytes as if
/// all were ASCII are stored already; returns its length, or `None` if that
/// unit is a surrogate (then unpaired).
///
/// The bytes before the unit are right; its 2 or 3 bytes go after them (a
/// 4-byte store), and the ASCII bytes after it are packed again from the
/// input, one unit on, and stored after its bytes. No branch depends on
/// where the unit is or how long it is. Up to 32 bytes after the output are
/// don't-care.
///
/// The unit's bytes are one `pdep` of it into the big-endian word of its
/// form (the mask and lead bits from [`FORMS`]), byte-swapped. With the
/// mask and lead bits picked by two `cmov`s, that was 11 instructions a
/// character fewer than building both forms by shifts and masks
/// (callgrind: 798 a call against 853 on 512 units with five characters;
/// ÷ `c0c7860` 1.08–1.09 there, from 1.02–1.03); the table takes 3 fewer
/// again, at the same speed. Picked by a branch instead (as the compiler
/// first did with a plain `if`), text seen once lost 5–8 %: the branch
/// mispredicts wherever 2- and 3-byte characters mix.
///
/// # Safety
///
/// * The CPU supports AVX2, BMI1 and BMI2.
/// * Units `i..i + 64` of `src` are readable; 67 bytes at `out` are
///   writable.
#[target_feature(enable = "avx2,bmi1,bmi2")]
#[inline]
unsafe fn one_outside_ascii<const BE: bool>(
    src: *const u8,
    i: usize,
    outside: u32,
    out: *mut u8,
) -> Option<usize> {
    let p = outside.trailing_zeros() as usize;
    // SAFETY: unit `i + p` is readable (`p < 32`).
    let c = u32::from(unsafe { super::utf16_shared::unit_at::<BE>(src, i + p) });
    let form = FORMS[(c >> 11) as usize];
    if form == 0 {
        return None;
    }
    let three = usize::from(c >= 0x800);
    // `pdep` spreads the unit's bits over the continuation bytes' low six
    // bits and the lead's low bits, highest first, as a big-endian word.
    let bytes = (_pdep_u32(c, form as u32) | (form >> 32) as u32).swap_bytes();
    // SAFETY: the 4-byte store ends at `p + 4 <= 35`; units
    // `i + p + 1..i + p + 33` are readable (`p + 33 <= 64`), and their 32
    // bytes end at `p + 2 + three + 32 <= 67`.
    unsafe {
        out.add(p).cast::<u32>().write_unaligned(bytes.to_le());
        let (a, b) = load32::<BE>(src, i + p + 1);
        _mm256_storeu_si256(out.add(p + 2 + three).cast(), pack_ascii32(a, b));
    }
    Some(33 + three)
}

/// The UTF-8 form of a unit by its top five bits (`unit >> 11`): the
/// `pdep` mask that spreads its bits over the big-endian word of its bytes
/// (low half) and the bits of the lead and continuation bytes (high half);
/// 0 for the surrogates.
static FORMS: [u64; 32] = {
    let mut forms = [0xE080_8000_0F3F_3F00u64; 32];
    forms[0] = 0xC080_0000_1F3F_0000;
    forms[0xD800 >> 11] = 0;
    forms
};

/// Writes the UTF-8 of the 32 units `u`, `v` (no surrogate) at `out` by
/// [`spread16`] and [`store16`]; returns its length.
///
/// # Safety
///
/// 128 bytes at `out` are writable.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn general32(u: __m256i, v: __m256i, out: *mut u8) -> usize {
    let (au, su) = classes(u);
    let (av, sv) = classes(v);
    let (w0, w1, mask) = spread16(u, au, su);
    let (x0, x1, mask2) = spread16(v, av, sv);
    // SAFETY: `ROOM` bytes for each half.
    unsafe {
        let n = store16(w0, w1, mask, out);
        n + store16(x0, x1, mask2, out.add(n))
    }
}

/// Of the steps [`long_sparse_steps`] converted (those not all ASCII): how
/// many, and how many of them had no unit from `800` on.
#[derive(Clone, Copy, Default)]
struct StepCounts {
    converted: usize,
    two_byte: usize,
}

impl StepCounts {
    /// Adds the counts of another run of the loop in the same chunk.
    fn add(&mut self, more: StepCounts) {
        self.converted += more.converted;
        self.two_byte += more.two_byte;
    }

    /// Whether [`long_sparse_steps`] should take [`two_byte`] for 2-byte
    /// steps: when 4 in 5 or more of the steps it converted were such, the
    /// branch that picks it is seldom mispredicted and the 2-byte path
    /// saves more than the branch costs.
    fn mostly_two_byte(self) -> bool {
        5 * self.two_byte >= 4 * self.converted
    }
}

/// The main loop of [`utf16_to_utf8`] for text that is not mostly ASCII,
/// from unit `i` and byte `o` while 48 units are left before `lim`: 32
/// units a step, each step taking one path for all of them (see the module
/// doc). Its ASCII runs ([`ascii_run`]) go on to `run_end`: the input's
/// end, or the chunk's when the input streams, so that a run that starts
/// in this chunk fills the next one, after which [`ascii_stream`] goes on
/// with it. Returns the units read and bytes written, or where the kernel
/// stops, at a block with an unpaired surrogate.
///
/// # Safety
///
/// As [`utf16_to_utf8`]; `i <= lim <= len`, `lim <= run_end <= len`,
/// `o <= cap`, `i` not inside a pair.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn dense_steps<const BE: bool>(
    src: *const u8,
    len: usize,
    lim: usize,
    run_end: usize,
    dst: *mut u8,
    cap: usize,
    mut i: usize,
    mut o: usize,
) -> Result<(usize, usize), Stop> {
    let not_ascii = _mm256_set1_epi16(0xFF80u16 as i16);
    let not_small = _mm256_set1_epi16(0xF800u16 as i16);
    // Steps of 32 units whose stores may leave don't-care bytes after
    // their output: 16 more units follow, whose output (16 bytes or more)
    // overwrites them. Invariants: `i <= len`, `o <= cap`, `i` not inside a
    // pair. Little-endian steps start while `i < bound` (see `step_bound`):
    // 3–7 % faster on the 2-byte lipsum files than a test of the room at
    // each step. Big-endian keeps that test: with the bound, its loop ran
    // three more instructions a step (callgrind), 8–14 % slower.
    let mut bound = i;
    loop {
        if BE || i >= bound {
            if i + 48 > lim || cap - o < 2 * ROOM {
                break;
            }
            bound = step_bound(i, o, lim, cap);
        }
        // SAFETY: units `i..i + 32` are readable.
        let (u, v) = unsafe { load32::<BE>(src, i) };
        // SAFETY: `o + 2 * ROOM <= cap`.
        let out = unsafe { dst.add(o) };
        let both = _mm256_or_si256(u, v);
        if _mm256_testz_si256(both, not_ascii) != 0 {
            // SAFETY: as above; `i + 48 <= lim <= run_end <= len`.
            (i, o, ..) = unsafe { ascii_run::<BE>(src, run_end, dst, cap, i, o, u, v) };
            continue;
        }
        if _mm256_testz_si256(both, not_small) != 0 {
            // SAFETY: `2 * ROOM` writable bytes at `out`, each call's
            // within `ROOM` of its start.
            unsafe {
                let n = two_byte(u, out);
                o += n + two_byte(v, out.add(n));
            }
            i += 32;
            continue;
        }
        if !any_surrogate(u, v) {
            let (au, su) = classes(u);
            let (av, sv) = classes(v);
            let twos = _mm256_or_si256(_mm256_xor_si256(au, su), _mm256_xor_si256(av, sv));
            let shorter = _mm256_or_si256(su, sv);
            if _mm256_testz_si256(shorter, shorter) != 0 {
                // All 3 bytes (CJK): fixed indices.
                // SAFETY: 96 bytes (and 4 more) of the writable ones.
                unsafe {
                    store_threes(u, out);
                    store_threes(v, out.add(48));
                }
                o += 96;
            } else if _mm256_testz_si256(twos, twos) != 0 {
                // No 2-byte unit (CJK, Indic, Hangul with spaces).
                // SAFETY: as above.
                unsafe {
                    let n = one_or_three(u, au, out);
                    o += n + one_or_three(v, av, out.add(n));
                }
            } else {
                // Not `general32`: the classes are at hand, and calling it
                // ran the lipsum files 1.2–1.6 % more instructions.
                let (w0, w1, mask) = spread16(u, au, su);
                let (x0, x1, mask2) = spread16(v, av, sv);
                // SAFETY: as above.
                unsafe {
                    let n = store16(w0, w1, mask, out);
                    o += n + store16(x0, x1, mask2, out.add(n));
                }
            }
            i += 32;
            continue;
        }
        if is_pairs(u) {
            // Eight surrogate pairs (and eight more if the next 16 units are
            // too): 32 or 64 bytes.
            let more = is_pairs(v);
            // SAFETY: 32 or 64 of the writable bytes at `out`.
            unsafe {
                _mm256_storeu_si256(out.cast(), encode_pairs(u));
                if more {
                    _mm256_storeu_si256(out.add(32).cast(), encode_pairs(v));
                }
            }
            let (read, written) = if more { (32, 64) } else { (16, 32) };
            i += read;
            o += written;
            continue;
        }
        let (p0, p1, mask, h, l) = encode16(u);
        // Every low half right after a high one, and every high half
        // right before a low one but the last unit's.
        if l != h << 2 {
            // SAFETY: `src` is `2 * len` readable bytes.
            return Err(Stop::new(
                i,
                o,
                Some(unsafe { window_end::<BE>(src, len, i) }),
            ));
        }
        // SAFETY: `ROOM` writable bytes at `out`.
        let n = unsafe { store4(p0, p1, mask, out) };
        // A high half last waits for the next block (its 2 bytes, last,
        // are overwritten).
        let last = (h >> 30) as usize & 1;
        i += 16 - last;
        o += n - 2 * last;
    }
    Ok((i, o))
}

/// The end of [`utf16_to_utf8`] from unit `i` and byte `o` on: blocks of 16
/// units whose output is stored exactly (through a buffer but for ASCII),
/// then the last units, converted as the end of a block of the last 16.
///
/// # Safety
///
/// As [`utf16_to_utf8`]; `i <= len`, `o <= cap`, `i` not inside a pair.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn tail<const BE: bool>(
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
    mut i: usize,
    mut o: usize,
) -> Stop {
    let not_ascii = _mm256_set1_epi16(0xFF80u16 as i16);
    let mut buf = core::mem::MaybeUninit::<[u8; ROOM]>::uninit();
    let buf = buf.as_mut_ptr().cast::<u8>();
    while len - i >= 16 {
        // SAFETY: units `i..i + 16` are readable.
        let u = unsafe { load16::<BE>(src.add(2 * i)) };
        if _mm256_testz_si256(u, not_ascii) != 0 {
            if cap - o < 16 {
                return Stop::new(i, o, None);
            }
            let bytes =
                _mm_packus_epi16(_mm256_castsi256_si128(u), _mm256_extracti128_si256::<1>(u));
            // SAFETY: `o + 16 <= cap`.
            unsafe { _mm_storeu_si128(dst.add(o).cast(), bytes) };
            i += 16;
            o += 16;
            continue;
        }
        let (p0, p1, mask, h, l) = encode16(u);
        if l != h << 2 {
            // SAFETY: `src` is `2 * len` readable bytes.
            return Stop::new(i, o, Some(unsafe { window_end::<BE>(src, len, i) }));
        }
        let last = (h >> 30) as usize & 1;
        let n = 48 - mask.count_ones() as usize - 2 * last;
        if cap - o < n {
            return Stop::new(i, o, None);
        }
        // SAFETY: `buf` is `ROOM` writable bytes, of which the first `n`
        // (at most 48) are written first and copied to `dst + o`, where
        // `o + n <= cap`.
        unsafe {
            store4(p0, p1, mask, buf);
            copy_short(buf, dst.add(o), n);
        }
        i += 16 - last;
        o += n;
    }
    if i == len || len < 16 {
        return Stop::new(i, o, None);
    }
    // The block of the last 16 units, of which the first `skip` are
    // converted already (their bytes are skipped).
    let start = len - 16;
    let skip = i - start;
    // SAFETY: units `start..len` are readable.
    let u = unsafe { load16::<BE>(src.add(2 * start)) };
    if _mm256_testz_si256(u, not_ascii) != 0 {
        // All ASCII: the skipped units' `skip` bytes are just before `o`,
        // written again.
        if cap - o >= len - i {
            let bytes =
                _mm_packus_epi16(_mm256_castsi256_si128(u), _mm256_extracti128_si256::<1>(u));
            // SAFETY: `skip <= o` (each skipped unit made a byte or more)
            // and `o - skip + 16 = o + len - i <= cap`.
            unsafe { _mm_storeu_si128(dst.add(o - skip).cast(), bytes) };
            return Stop::new(len, o + len - i, None);
        }
        return Stop::new(i, o, None);
    }
    let (p0, p1, mask, h, l) = encode16(u);
    let live = !0u32 << (2 * skip);
    let h = h & live;
    if l & live != h << 2 || h >> 30 != 0 {
        return Stop::new(i, o, Some(len));
    }
    let before = 3 * skip - (mask & !live).count_ones() as usize;
    let n = 48 - mask.count_ones() as usize - before;
    if cap - o < n {
        return Stop::new(i, o, None);
    }
    // SAFETY: as above; `before + n <= 48`.
    unsafe {
        store4(p0, p1, mask, buf);
        copy_short(buf.add(before), dst.add(o), n);
    }
    Stop::new(len, o + n, None)
}

/// The shortest input [`utf8_len_from_utf16`] counts: the last 16 units
/// and the one before them (a pair split there) are read as a block.
pub(crate) const LEN_MIN: usize = 17;

/// The number of UTF-8 bytes the first `read` of `len` UTF-16 units at
/// `src` (little-endian, or big-endian if `BE`) convert to, unpaired
/// surrogates counting 3; returns `(read, bytes)`, and the caller counts
/// the rest with the scalar function.
///
/// Every unit counts `3 - (< 80) - (< 800)` (see [`LenCounts`]), and
/// every pair, a high half followed by a low one, 2 less: 4 for the pair,
/// 3 for an unpaired half. Groups of 64 units are first tested for
/// surrogates by the minimum of `u - D800` (below `800` only for a
/// surrogate), without looking for pairs; a group that has one is then
/// counted for pairs ([`len_pairs`]), and so are the groups after it in
/// the same pass (`sticky`: emoji text has pairs everywhere) until one has
/// no pair. A pair is counted at its high half, so one split between two
/// groups is counted by the first, which had a surrogate. What the groups
/// leave is counted 16 units at a time the same way (a pair at its high
/// half), and the last 16 units of the input, overlapping what was
/// counted, are masked to the units not yet counted, their pairs found at
/// the low half (with the units one back), so `read` is `len`. Inputs
/// shorter than [`LEN_MIN`] units are left to the caller (`read` 0).
///
/// On Zen 3, 32 Ki units of lipsum text: 1.4–1.5× the previous count
/// (`1 + (>= 80) + (>= 800) - surrogate`, with the pairing compared in
/// every 16-unit block that has a surrogate), Emoji 1.6×. Then the pairs
/// test on high bytes ([`pairs16`]) and the signed counts of
/// [`LenCounts`]: 1.03–1.10× on random text and 1.05–1.08× on emoji from
/// 512 units on, 0.99–1.04 on text without surrogates and on inputs of
/// 17–48 units (paired rounds in one process, both orders).
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
    if len < LEN_MIN {
        return (0, 0);
    }
    let mut i = 0;
    let mut n = 0i64;
    // Groups are counted while one more unit is readable after them (the
    // pairs test reads one unit on).
    while len - i > LEN_GROUP {
        let rounds = ((len - i - 1) / LEN_GROUP).min(LEN_FLUSH);
        let mut counts = LenCounts::new();
        let mut sticky = false;
        for _ in 0..rounds {
            // SAFETY: units `i..i + LEN_GROUP + 1` are readable (the loop
            // conditions).
            let group = unsafe { src.add(2 * i) };
            if sticky {
                // SAFETY: as above.
                sticky = unsafe { len_pairs::<BE, { LEN_GROUP / 16 }>(group, &mut counts) };
            } else {
                let mut dist = _mm256_set1_epi16(-1);
                for k in 0..LEN_GROUP / 16 {
                    // SAFETY: as above.
                    let v = unsafe { load16::<BE>(group.add(32 * k)) };
                    counts.add_units(v);
                    dist = _mm256_min_epu16(
                        dist,
                        _mm256_sub_epi16(v, _mm256_set1_epi16(0xD800u16 as i16)),
                    );
                }
                let surrogate =
                    _mm256_cmpeq_epi16(_mm256_min_epu16(dist, _mm256_set1_epi16(0x7FF)), dist);
                if _mm256_testz_si256(surrogate, surrogate) == 0 {
                    // SAFETY: as above.
                    sticky =
                        unsafe { len_pairs_only::<BE, { LEN_GROUP / 16 }>(group, &mut counts) };
                }
            }
            i += LEN_GROUP;
        }
        n += counts.total(LEN_GROUP * rounds);
    }
    // SAFETY: `len >= 17` and `i <= len`, as `len_tail` needs.
    n += unsafe { len_tail::<BE>(src, i, len) };
    (len, usize::try_from(n).unwrap_or(0))
}

/// The UTF-8 length of units `i..len` at `src` (at most 64) as
/// [`utf8_len_from_utf16`] counts it, given that a pair whose low half is
/// at `i` was counted before: 16 units at a time while one more is
/// readable, then the last 16 units of the input masked to those not yet
/// counted, whose pairs are found at their low half.
///
/// # Safety
///
/// * The CPU supports AVX2.
/// * `17 <= len`, `i <= len`, and `src` is valid for reads of `2 * len`
///   bytes.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn len_tail<const BE: bool>(src: *const u8, mut i: usize, len: usize) -> i64 {
    let units = len - i;
    let mut counts = LenCounts::new();
    while len - i > 16 {
        // SAFETY: units `i..i + 17` are readable.
        unsafe { len_pairs::<BE, 1>(src.add(2 * i), &mut counts) };
        i += 16;
    }
    // Lanes `from..` of the last 16 units are not counted yet (`from` is
    // 0 to 15).
    let from = 16 - (len - i);
    // SAFETY: `len >= 17`: units `len - 17..len` are readable.
    let (v, pairs) = unsafe {
        (
            load16::<BE>(src.add(2 * (len - 16))),
            pairs16::<BE>(src.add(2 * (len - 17))),
        )
    };
    let lane = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let uncounted = _mm256_cmpgt_epi16(lane, _mm256_set1_epi16(from as i16 - 1));
    // Lane `j` of `pairs` is a pair whose low half is in lane `j` of `v`;
    // one whose low half is in lane `from` was counted at its high half.
    let pair_uncounted = _mm256_cmpgt_epi16(lane, _mm256_set1_epi16(from as i16));
    // The `from` lanes counted already become `0`, an ASCII unit of one
    // byte, taken back after the total.
    counts.add_units(_mm256_and_si256(v, uncounted));
    counts.add_pairs(_mm256_and_si256(pairs, pair_uncounted));
    counts.total(units + from) - from as i64
}

/// Units per group of [`utf8_len_from_utf16`].
const LEN_GROUP: usize = 64;

/// Groups between two flushes of the 16-bit counters of
/// [`utf8_len_from_utf16`] (each lane changes by at most 8 a group).
const LEN_FLUSH: usize = 4000;

/// The UTF-8 length of counted units, kept in 16-bit lanes: each unit
/// counts `3 - (< 80) - (< 800)`, each pair 2 less.
///
/// The two tests are signed compares, for which units from `8000` on are
/// negative, so below both bounds: `wide` adds 2 back for each of them
/// (all of them take 3 bytes, or 2 as a half of a pair). Capping the unit
/// at `7FFF` first would do without `wide`, but the compiler turns
/// min-then-signed-compare into an unsigned compare, which AVX2 does as
/// max plus compare-equal: two more operations on the two vector pipes
/// that compare, against one shift and one add.
struct LenCounts {
    /// -1 per lane for each unit below `80` and each below `800`
    /// (negative units included).
    below: __m256i,
    /// +1 per lane for each unit from `8000` on, -1 for each pair.
    wide: __m256i,
}

impl LenCounts {
    #[target_feature(enable = "avx2")]
    #[inline]
    fn new() -> LenCounts {
        LenCounts {
            below: _mm256_setzero_si256(),
            wide: _mm256_setzero_si256(),
        }
    }

    /// Counts the 16 units `v`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn add_units(&mut self, v: __m256i) {
        // One add on the counter's chain per 16 units, not two.
        let below = _mm256_add_epi16(
            _mm256_cmpgt_epi16(_mm256_set1_epi16(0x80), v),
            _mm256_cmpgt_epi16(_mm256_set1_epi16(0x800), v),
        );
        self.below = _mm256_add_epi16(self.below, below);
        self.wide = _mm256_add_epi16(self.wide, _mm256_srli_epi16::<15>(v));
    }

    /// Counts the pairs of `mask` (-1 in a lane for each).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn add_pairs(&mut self, mask: __m256i) {
        self.wide = _mm256_add_epi16(self.wide, mask);
    }

    /// The UTF-8 length of the `units` counted.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn total(&self, units: usize) -> i64 {
        3 * i64::try_from(units).unwrap_or(0) + sum_i16_weighted(self.below, self.wide)
    }
}

/// The `16 * REGS` units at `group`: counts them and their pairs (a pair
/// whose high half is among them) into `counts`; returns whether they have
/// a pair.
///
/// # Safety
///
/// * The CPU supports AVX2.
/// * `group` is valid for reads of `2 * (16 * REGS + 1)` bytes.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn len_pairs<const BE: bool, const REGS: usize>(
    group: *const u8,
    counts: &mut LenCounts,
) -> bool {
    for k in 0..REGS {
        // SAFETY: the caller's promise.
        counts.add_units(unsafe { load16::<BE>(group.add(32 * k)) });
    }
    // SAFETY: the caller's promise.
    unsafe { len_pairs_only::<BE, REGS>(group, counts) }
}

/// The pairs whose high half is among the `16 * REGS` units at `group`,
/// counted into `counts` ([`pairs16`]); returns whether there is one.
///
/// # Safety
///
/// * The CPU supports AVX2.
/// * `group` is valid for reads of `2 * (16 * REGS + 1)` bytes.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn len_pairs_only<const BE: bool, const REGS: usize>(
    group: *const u8,
    counts: &mut LenCounts,
) -> bool {
    let mut pairs = _mm256_setzero_si256();
    for k in 0..REGS {
        // SAFETY: units `16 * k..16 * k + 17` of the group are readable
        // (the caller's promise).
        pairs = _mm256_add_epi16(pairs, unsafe { pairs16::<BE>(group.add(32 * k)) });
    }
    counts.add_pairs(pairs);
    _mm256_testz_si256(pairs, pairs) == 0
}

/// -1 in lane `j` if unit `j` of the 16 at `src` is a high surrogate and
/// unit `j + 1` a low one, else 0.
///
/// Tested on the high bytes alone: lane `j` of one register takes the high
/// byte of unit `j` from a load one byte on (LE; BE: none) and that of unit
/// `j + 1` from a load two bytes on (BE: one), so one mask and one compare
/// find `D8..=DB` followed by `DC..=DF` (two fewer operations than testing
/// each unit and the next).
///
/// # Safety
///
/// * The CPU supports AVX2.
/// * `src` is valid for reads of 34 bytes (17 units).
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn pairs16<const BE: bool>(src: *const u8) -> __m256i {
    // The high byte of unit `j` is byte `2j + 1` (LE) or `2j` (BE).
    let at = usize::from(!BE);
    // SAFETY: the loads read bytes `at..at + 33` of the 34 readable.
    let (this_high, next_high) = unsafe {
        (
            _mm256_loadu_si256(src.add(at).cast()),
            _mm256_loadu_si256(src.add(at + 1).cast()),
        )
    };
    // Lane `j`: `[high byte of unit j, high byte of unit j + 1]`.
    let highs = _mm256_blendv_epi8(this_high, next_high, _mm256_set1_epi16(0xFF00u16 as i16));
    _mm256_cmpeq_epi16(
        _mm256_and_si256(highs, _mm256_set1_epi16(0xFCFCu16 as i16)),
        _mm256_set1_epi16(i16::from_le_bytes([0xD8, 0xDC])),
    )
}

/// The sum of the sixteen signed 16-bit lanes of `once` plus twice that
/// of those of `twice` (one horizontal sum for both).
#[target_feature(enable = "avx2")]
#[inline]
fn sum_i16_weighted(once: __m256i, twice: __m256i) -> i64 {
    let s = _mm256_add_epi32(
        _mm256_madd_epi16(once, _mm256_set1_epi16(1)),
        _mm256_madd_epi16(twice, _mm256_set1_epi16(2)),
    );
    let s = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
    i64::from(_mm_cvtsi128_si32(s))
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use std::string::String;
    use std::vec;
    use std::vec::Vec;

    const GUARD: u8 = 0xA5;

    /// The kernel alone on `units` (both byte orders; the sparse loop of
    /// short inputs and that of long ones) into `cap` bytes followed by
    /// guards: what it wrote is std's UTF-8 of what it read, it stops
    /// before (or inside the block of) the first unpaired surrogate only,
    /// and it writes nothing past what it reports.
    fn check_kernel(units: &[u16], cap: usize) -> usize {
        let le: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
        let be: Vec<u8> = units.iter().flat_map(|u| u.to_be_bytes()).collect();
        // Each byte order with the default thresholds, and with the long
        // inputs' loop and streaming forced.
        let configs = [(LONG_FROM, STREAM_MIN), (0, 0)]
            .into_iter()
            .flat_map(|thresholds| [(false, thresholds), (true, thresholds)]);
        let mut read = [0; 4];
        for (k, (big, (long_from, stream_from))) in configs.enumerate() {
            let bytes = if big { &be } else { &le };
            let mut out = std::vec![GUARD; cap + 80];
            let (src, len, dst) = (bytes.as_ptr(), units.len(), out.as_mut_ptr());
            // SAFETY: the CPU has the features (checked by the callers);
            // `bytes` is `2 * units.len()` bytes, `out` `cap` and more.
            let stop = unsafe {
                if big {
                    convert::<true>(src, len, dst, cap, long_from, stream_from)
                } else {
                    convert::<false>(src, len, dst, cap, long_from, stream_from)
                }
            };
            let p = stop.progress;
            assert!(p.read <= units.len() && p.written <= cap);
            let want = String::from_utf16(&units[..p.read]).expect("converted a lone surrogate");
            assert_eq!(&out[..p.written], want.as_bytes(), "{units:04X?}");
            // Stopped early, it may leave don't-care bytes after its
            // output, inside the room, for the scalar kernel to overwrite.
            let end = if p.read == units.len() {
                p.written
            } else {
                cap
            };
            assert!(
                out[end..].iter().all(|&b| b == GUARD),
                "wrote past {end} of {units:04X?}",
            );
            // It stops early only at an unpaired surrogate, for room, or
            // for the scalar end (under 16 units).
            match stop.window_end {
                Some(end) => {
                    assert!(end > p.read && end <= units.len());
                    assert!(String::from_utf16(&units[p.read..end]).is_err());
                }
                None if units.len() >= 16 && p.read < units.len() => {
                    let rest = String::from_utf16_lossy(&units[p.read..]).len();
                    assert!(
                        cap - p.written < rest,
                        "stopped at {} of {units:04X?}",
                        p.read
                    );
                }
                None => {}
            }
            read[k] = p.read;
        }
        // Both byte orders stop at the same unit. (The loops may stop at
        // different blocks before a lone surrogate: where a run ends
        // depends on the output's alignment when it streams.)
        assert!(read.chunks(2).all(|p| p[0] == p[1]), "{read:?}");
        read[0]
    }

    /// One unit of each kind the kernel tells apart, and both halves of
    /// pairs with the payload bits that matter set and clear.
    const KINDS: &[&[u16]] = &[
        &[0x41],
        &[0x7F],
        &[0x80],
        &[0x7FF],
        &[0x800],
        &[0x4E2D],
        &[0x7FFF],
        &[0x8000],
        &[0xD7FF],
        &[0xE000],
        &[0xFFFF],
        &[0xD800, 0xDC00],
        &[0xDBFF, 0xDFFF],
        &[0xD83D, 0xDE40],
        &[0xDA6F, 0xDCBF],
    ];

    /// Every kind of unit at every offset of a 48-unit stretch of every
    /// other kind, in every room from exact to ample: each path of the
    /// main loops, the 16-unit loop and the end.
    #[test]
    fn every_kind_at_every_offset() {
        if !super::super::avx2_transcode() {
            return;
        }
        for fill in KINDS {
            for kind in KINDS {
                for len in [16, 17, 31, 32, 33, 47, 48, 49, 64, 95, 96, 130] {
                    for at in 0..len {
                        let mut units: Vec<u16> = fill.iter().copied().cycle().take(len).collect();
                        // A pair cut by the end or the insertion: drop its
                        // high half.
                        let mut put = |k: usize, u: u16| {
                            if k < units.len() {
                                units[k] = u;
                            }
                        };
                        for (j, &u) in kind.iter().enumerate() {
                            put(at + j, u);
                        }
                        let units = repaired(units);
                        let need = String::from_utf16(&units).unwrap().len();
                        for cap in [need, need + 1, need + 70, need.saturating_sub(1)] {
                            check_kernel(&units, cap);
                        }
                    }
                }
            }
        }
    }

    /// `units` with every unpaired surrogate made ASCII.
    fn repaired(mut units: Vec<u16>) -> Vec<u16> {
        let mut k = 0;
        while k < units.len() {
            let u = units[k];
            let next = units.get(k + 1).copied().unwrap_or(0);
            if (0xD800..0xDC00).contains(&u) && (0xDC00..0xE000).contains(&next) {
                k += 2;
                continue;
            }
            if (0xD800..0xE000).contains(&u) {
                units[k] = 0x3F;
            }
            k += 1;
        }
        units
    }

    /// An unpaired surrogate (either half, or a high half before a high
    /// half) at every offset of texts of every kind: the kernel reads no
    /// further than the block that has it, and the whole conversion reports
    /// it at its index.
    #[test]
    fn unpaired_surrogate_at_every_offset() {
        if !super::super::avx2_transcode() {
            return;
        }
        for fill in KINDS {
            for lone in [
                &[0xD800u16][..],
                &[0xDFFF],
                &[0xDBFF, 0xDBFF],
                &[0xDC00, 0xDC00],
            ] {
                for len in [16, 31, 32, 48, 64, 100] {
                    for at in 0..len {
                        let mut units: Vec<u16> = fill.iter().copied().cycle().take(len).collect();
                        if at > 0 && (0xD800..0xDC00).contains(&units[at - 1]) {
                            // Do not cut a pair before the lone half.
                            units[at - 1] = 0x61;
                        }
                        for (j, &u) in lone.iter().enumerate() {
                            if at + j < len {
                                units[at + j] = u;
                            }
                        }
                        if at + lone.len() < len
                            && (0xDC00..0xE000).contains(&units[at + lone.len()])
                        {
                            // Nor a pair after it.
                            units[at + lone.len()] = 0x62;
                        }
                        assert_eq!(check_stops_at_lone(&units), at, "{units:04X?}");
                    }
                }
            }
        }
    }

    /// A deterministic mix of the kinds of text that choose the two main
    /// loops: English with a typographic character every `every` characters
    /// (and now and then an emoji, which the sparse loop leaves to the dense
    /// one), pure ASCII, Russian, Chinese with spaces, French-like text
    /// with an accented letter in 6, and ASCII with an accented letter every
    /// `every` (2-byte steps only); each `len` characters long, in turns.
    fn switching_text(len: usize, every: usize, turns: usize) -> String {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut s = String::new();
        for turn in 0..turns {
            for k in 0..len {
                let r = next();
                let pick = |set: &[char]| set[(r >> 40) as usize % set.len()];
                let ascii = char::from(b'a' + (r % 26) as u8);
                let c = match turn % 6 {
                    0 if r % every as u64 == 0 => pick(&['’', '“', '”', '—', '…', 'é', 'ü']),
                    5 if r % every as u64 == 0 => pick(&['é', 'è', 'à', 'ç', 'ô']),
                    5 => ascii,
                    0 if r % 997 == 0 => '😀',
                    0 | 1 => ascii,
                    2 if k % 7 == 0 => ' ',
                    2 => pick(&['м', 'и', 'р', 'а', 'з']),
                    3 if k % 5 == 0 => ' ',
                    3 => pick(&['中', '文', '字']),
                    _ if r % 6 == 0 => pick(&['é', 'è', 'à', 'ç', 'ô']),
                    _ => ascii,
                };
                s.push(c);
            }
        }
        s
    }

    /// Text whose kind changes every chunk or so, so that the main loops
    /// take turns (each choice, and the sparse loop's stops at surrogates),
    /// at densities around the switch, in exact and ample room.
    #[test]
    fn main_loops_take_turns() {
        if !super::super::avx2_transcode() {
            return;
        }
        for (len, every) in [
            (CHUNK - 5, 80),
            (CHUNK + 33, 12),
            (CHUNK / 3, 400),
            (777, 9),
        ] {
            let units: Vec<u16> = switching_text(len, every, 7).encode_utf16().collect();
            check_in_exact_and_ample_room(&units);
        }
    }

    /// Room short of the output, on long stretches of every kind of unit
    /// and on mostly-ASCII text with characters of each kind: the kernel
    /// writes nothing past the room and stops only when the rest does not
    /// fit (`check_kernel`), whichever loop runs.
    #[test]
    fn room_short_of_the_output() {
        if !super::super::avx2_transcode() {
            return;
        }
        let mut texts: Vec<Vec<u16>> = KINDS
            .iter()
            .map(|fill| repaired(fill.iter().copied().cycle().take(1000).collect()))
            .collect();
        for kind in KINDS {
            let mut units: Vec<u16> = (0..1000).map(|k| 0x20 + (k * 7 % 95) as u16).collect();
            for at in (10..990).step_by(37) {
                units[at..at + kind.len()].copy_from_slice(kind);
            }
            texts.push(units);
        }
        for units in &texts {
            let need = String::from_utf16(units).unwrap().len();
            for cap in [need / 3, need / 2]
                .into_iter()
                .chain((need - 400..need).step_by(7))
            {
                check_kernel(units, cap);
            }
        }
    }

    /// [`check_kernel`] on valid `units` with exactly the room their UTF-8
    /// needs and with 70 bytes more: it converts all of them.
    fn check_in_exact_and_ample_room(units: &[u16]) {
        let need = String::from_utf16(units).unwrap().len();
        for cap in [need, need + 70] {
            assert_eq!(check_kernel(units, cap), units.len(), "room {cap}");
        }
    }

    /// One unit outside ASCII, of each kind at the length boundaries, at
    /// every offset of a step in ASCII text long enough for
    /// [`one_outside_ascii`], then two such units at a distance of 1 to 40.
    #[test]
    fn one_unit_outside_ascii_at_every_offset() {
        if !super::super::avx2_transcode() {
            return;
        }
        let kinds = [0x80u16, 0x7FF, 0x800, 0x2019, 0xD7FF, 0xE000, 0xFFFF];
        for &c in &kinds {
            for at in 0..100 {
                let mut units = vec![0x61u16; 200];
                units[at] = c;
                check_in_exact_and_ample_room(&units);
            }
            for gap in 1..=40 {
                let mut units = vec![0x61u16; 200];
                units[50] = c;
                units[50 + gap] = 0x7FF;
                assert_eq!(check_kernel(&units, 3 * units.len()), units.len());
            }
        }
    }

    /// ASCII runs that stream ([`ascii_stream`]: after a chunk of ASCII),
    /// at every alignment of the output, ended by each kind of unit that
    /// stops a run, or by the end of the input or of the room: the output
    /// is std's, nothing is written past it (nor past the room), and a lone
    /// surrogate after the run still stops the kernel.
    #[test]
    fn streamed_ascii_runs_at_every_alignment() {
        if !super::super::avx2_transcode() {
            return;
        }
        let ends: [&[u16]; 5] = [&[0xE9], &[0x2019], &[0xD83D, 0xDE00], &[0xDC00], &[]];
        for shift in 0..64 {
            // Two-byte units then ASCII in the first chunk put the output
            // of the second, all ASCII, at every offset mod 64; 8 or more
            // of them start the dense loop.
            let mut head = vec![0xE9u16; shift / 2];
            head.extend(core::iter::repeat_n(0x62, shift % 2));
            for run in [2 * CHUNK + 100, 2 * CHUNK + 1234] {
                let mut units = head.clone();
                units.extend((0..run).map(|n| 0x20 + (n * 7 % 95) as u16));
                for end in ends {
                    let mut units = units.clone();
                    units.extend_from_slice(end);
                    if end == [0xDC00] {
                        let lone = units.len() - 1;
                        units.extend(core::iter::repeat_n(0x63, 100));
                        assert!(check_kernel(&units, 3 * units.len()) <= lone);
                    } else if end.is_empty() {
                        // The room or the input ends inside the run.
                        check_in_exact_and_ample_room(&units);
                        let need = String::from_utf16(&units).unwrap().len();
                        for short in [1, 63, 64, 65, 200] {
                            check_kernel(&units, need - short);
                        }
                    } else {
                        units.extend(core::iter::repeat_n(0x63, 100));
                        check_in_exact_and_ample_room(&units);
                    }
                }
            }
        }
    }

    /// An ASCII run of the sparse loop that stops at units outside ASCII
    /// near the input's end: one 2- or 3-byte character, or two 2-byte
    /// ones, in each of the last 72 units of ASCII text of 150 to 230
    /// units. The run stops at 64 units whose first or second 32 hold
    /// them; when that step would start too near the end (no 16 units after
    /// it for its don't-care bytes), the loop must leave it to the end's
    /// exact blocks.
    #[test]
    fn ascii_run_stopping_near_the_end() {
        if !super::super::avx2_transcode() {
            return;
        }
        let kinds: [&[u16]; 3] = [&[0xE9], &[0x2019], &[0x7FF, 0x7FF]];
        for len in 150..=230 {
            for at in len - 72..len {
                for kind in kinds {
                    let mut units = vec![0x61u16; len];
                    for (j, &u) in kind.iter().enumerate() {
                        if at + j < len {
                            units[at + j] = u;
                        }
                    }
                    check_in_exact_and_ample_room(&units);
                }
            }
        }
    }

    /// ASCII endings of 0 to 70 units after ASCII text and after a character
    /// outside ASCII (2 or 3 bytes, or a pair) at several distances from
    /// the start: [`ascii_end`] takes them by a step of 32 or 64 units that
    /// reaches back over units converted before, or leaves them to the
    /// exact blocks where that step would hold the character. In exact and
    /// ample room, and in room a byte short, where it must write nothing.
    #[test]
    fn ascii_endings_of_every_length() {
        if !super::super::avx2_transcode() {
            return;
        }
        let kinds: [&[u16]; 4] = [&[], &[0xE9], &[0x2019], &[0xD83D, 0xDE00]];
        for before in [0, 17, 40, 64, 101] {
            for kind in kinds {
                for ending in 0..=70 {
                    let mut units = vec![0x61u16; before];
                    units.extend_from_slice(kind);
                    units.resize(units.len() + ending, 0x62);
                    if units.len() < 16 {
                        // Left to the scalar kernel.
                        continue;
                    }
                    check_in_exact_and_ample_room(&units);
                    let need = String::from_utf16(&units).unwrap().len();
                    assert!(check_kernel(&units, need - 1) < units.len());
                }
            }
        }
    }

    /// An unpaired surrogate in mostly-ASCII text, where the sparse loop
    /// runs: the kernel stops at its block, and the conversion reports it.
    #[test]
    fn unpaired_surrogate_in_sparse_text() {
        if !super::super::avx2_transcode() {
            return;
        }
        let text: Vec<u16> = switching_text(3000, 60, 1).encode_utf16().collect();
        for at in (0..text.len()).step_by(97).chain([1023, 1024, 1025, 2999]) {
            for lone in [0xD800u16, 0xDFFF] {
                let mut units = text.clone();
                units[at] = lone;
                if lone == 0xD800
                    && at + 1 < units.len()
                    && (0xDC00..0xE000).contains(&units[at + 1])
                {
                    units[at + 1] = 0x61;
                }
                if lone == 0xDFFF && at > 0 && (0xD800..0xDC00).contains(&units[at - 1]) {
                    units[at - 1] = 0x61;
                }
                check_stops_at_lone(&units);
            }
        }
    }

    /// Inputs long enough for the sparse loop of long inputs
    /// ([`LONG_FROM`]), through the kernel as dispatched.
    #[test]
    fn sparse_text_past_the_long_size() {
        if !super::super::avx2_transcode() {
            return;
        }
        let units: Vec<u16> = switching_text(LONG_FROM / 5 + 1000, 80, 6)
            .encode_utf16()
            .collect();
        assert!(units.len() >= LONG_FROM);
        check_dispatched(&units);
    }

    /// A chunk of Cyrillic (the dense loop) and then ASCII, the room ending
    /// inside the ASCII at every offset of a 64-unit step: the ASCII run
    /// stops at the first chunk's end, and in the next chunk, all ASCII, it
    /// stops for room, so that chunk hands [`ascii_stream`] less room than
    /// its first step, which then writes nothing.
    #[test]
    fn stream_after_a_dense_chunk_in_short_room() {
        if !super::super::avx2_transcode() {
            return;
        }
        // One of these ends the first chunk's steps where the ASCII starts.
        for cyrillic in (CHUNK - 96..=CHUNK).step_by(16) {
            let mut units = vec![0x416u16; cyrillic];
            units.extend((0..1000).map(|k| 0x20 + (k * 7 % 95) as u16));
            let need = String::from_utf16(&units).unwrap().len();
            for short in 100..164 {
                check_kernel(&units, need - short);
            }
        }
    }

    /// ASCII runs past the size from which they stream ([`STREAM_MIN`]),
    /// through the kernel as dispatched, in exactly the room: one from the
    /// start, and another after a character outside ASCII, which streams
    /// again after a chunk.
    #[test]
    fn ascii_past_the_stream_size() {
        if !super::super::avx2_transcode() {
            return;
        }
        let ascii = |n: usize| (0..n).map(|k| 0x20 + (k * 7 % 95) as u16);
        let mut units: Vec<u16> = ascii(STREAM_MIN + 5000).collect();
        units.push(0xE9);
        units.extend(ascii(2 * CHUNK + 3000));
        units.push(0x2019);
        units.extend(ascii(100));
        check_dispatched(&units);
    }

    /// The kernel as dispatched ([`utf16_to_utf8`], little-endian) on valid
    /// `units`, into exactly the room their UTF-8 needs and a guard: it
    /// converts all of them, to std's UTF-8, and writes nothing past it.
    fn check_dispatched(units: &[u16]) {
        let want = String::from_utf16(units).unwrap();
        let mut out = vec![GUARD; want.len() + 1];
        // SAFETY: the CPU has the features (checked by the callers);
        // `units` is `2 * units.len()` readable bytes, `out` `want.len()`
        // writable.
        let stop = unsafe {
            utf16_to_utf8::<false>(
                units.as_ptr().cast(),
                units.len(),
                out.as_mut_ptr(),
                want.len(),
            )
        };
        assert_eq!(stop.progress.read, units.len());
        assert_eq!(&out[..stop.progress.written], want.as_bytes());
        assert_eq!(out[want.len()], GUARD);
    }

    /// The index of the first unpaired surrogate of `units`, checking that
    /// the kernel reads no further than that and that the whole conversion
    /// reports it there.
    fn check_stops_at_lone(units: &[u16]) -> usize {
        let first = char::decode_utf16(units.iter().copied())
            .scan(0, |k, r| {
                let here = *k;
                *k += r.as_ref().map_or(1, |c| c.len_utf16());
                Some((here, r.is_err()))
            })
            .find_map(|(k, bad)| bad.then_some(k))
            .expect("a lone surrogate");
        let read = check_kernel(units, 3 * units.len());
        assert!(read <= first, "read {read} past a lone half at {first}");
        let mut out = vec![0u8; 3 * units.len()];
        match crate::transcode::utf16_to_utf8_with(crate::Kernel::Avx2, units, &mut out) {
            Some(Err(crate::transcode::TranscodeError::Invalid(e))) => {
                assert_eq!(e.index(), first, "{units:04X?}")
            }
            other => panic!("{other:?} for {units:04X?}"),
        }
        first
    }

    /// Every surrogate pair, in long runs (the pairs path) and shifted by
    /// one unit (the general path), both byte orders.
    #[test]
    fn every_surrogate_pair() {
        if !super::super::avx2_transcode() {
            return;
        }
        for shift in [0, 1, 7] {
            let mut units: Vec<u16> = std::vec![0x61; shift];
            for high in 0xD800..0xDC00u16 {
                for low in 0xDC00..0xE000u16 {
                    units.push(high);
                    units.push(low);
                }
            }
            let want = String::from_utf16(&units).unwrap();
            for big in [false, true] {
                let bytes: Vec<u8> = units
                    .iter()
                    .flat_map(|u| {
                        if big {
                            u.to_be_bytes()
                        } else {
                            u.to_le_bytes()
                        }
                    })
                    .collect();
                let mut out = std::vec![0u8; want.len()];
                // SAFETY: as in `check_kernel`.
                let stop = unsafe {
                    if big {
                        utf16_to_utf8::<true>(
                            bytes.as_ptr(),
                            units.len(),
                            out.as_mut_ptr(),
                            out.len(),
                        )
                    } else {
                        utf16_to_utf8::<false>(
                            bytes.as_ptr(),
                            units.len(),
                            out.as_mut_ptr(),
                            out.len(),
                        )
                    }
                };
                assert_eq!(stop.progress.read, units.len(), "{shift} {big}");
                assert_eq!(out, want.as_bytes(), "{shift} {big}");
            }
        }
    }

    /// Every unit that is not a surrogate, in order (mixed blocks of every
    /// length class), from several offsets.
    #[test]
    fn every_unit() {
        if !super::super::avx2_transcode() {
            return;
        }
        let all: Vec<u16> = (0..=0xFFFFu16)
            .filter(|u| !(0xD800..0xE000).contains(u))
            .collect();
        for shift in 0..4 {
            check_dispatched(&all[shift..]);
        }
    }

    /// The length function against std, on every kind of text and on lone
    /// surrogates, with pairs split across its blocks.
    #[test]
    fn utf8_len_agrees_with_std() {
        if !super::super::avx2_transcode() {
            return;
        }
        let lone: &[&[u16]] = &[&[0xDC00], &[0xDBFF], &[0xDFFF, 0xD800]];
        for fill in KINDS {
            for kind in KINDS.iter().chain(lone) {
                for len in [17, 31, 32, 33, 48, 64, 100] {
                    for at in 0..len {
                        let mut units: Vec<u16> = fill.iter().copied().cycle().take(len).collect();
                        for (j, &u) in kind.iter().enumerate() {
                            if at + j < len {
                                units[at + j] = u;
                            }
                        }
                        for units in [units.clone(), repaired(units)] {
                            let bytes: Vec<u8> =
                                units.iter().flat_map(|u| u.to_le_bytes()).collect();
                            // SAFETY: the CPU has the features; `bytes` is
                            // `2 * units.len()` bytes.
                            let (read, n) = unsafe {
                                utf8_len_from_utf16::<false>(bytes.as_ptr(), units.len())
                            };
                            let rest = String::from_utf16_lossy(&units[read..]).len();
                            assert_eq!(
                                n + rest,
                                String::from_utf16_lossy(&units).len(),
                                "{units:04X?}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// The length over many groups of 64 units, in both byte orders:
    /// surrogate-free groups between groups with pairs (the sticky pass on
    /// and off), a pair split across every group boundary and across the
    /// counter flush, lone halves at group edges; against std with the
    /// scalar count of the rest.
    #[test]
    fn utf8_len_over_many_groups() {
        if !super::super::avx2_transcode() {
            return;
        }
        let check = |units: &[u16]| {
            for be in [false, true] {
                let bytes: Vec<u8> = units
                    .iter()
                    .flat_map(|u| if be { u.to_be_bytes() } else { u.to_le_bytes() })
                    .collect();
                // SAFETY: the CPU has the features; `bytes` is
                // `2 * units.len()` bytes.
                let (read, n) = unsafe {
                    if be {
                        utf8_len_from_utf16::<true>(bytes.as_ptr(), units.len())
                    } else {
                        utf8_len_from_utf16::<false>(bytes.as_ptr(), units.len())
                    }
                };
                let rest = String::from_utf16_lossy(&units[read..]).len();
                assert_eq!(n + rest, String::from_utf16_lossy(units).len(), "be {be}");
            }
        };
        let text: Vec<u16> = "Grüße, мир, 世界! 😀 and ASCII, "
            .encode_utf16()
            .cycle()
            .take(3000)
            .collect();
        check(&text);
        let ascii = vec![0x61u16; 64 * 10 + 7];
        for at in (0..ascii.len() - 1).step_by(7) {
            for insert in [
                &[0xD83D, 0xDE00][..],
                &[0xD800],
                &[0xDC00],
                &[0xDBFF, 0xDBFF, 0xDFFF],
            ] {
                let mut units = ascii.clone();
                for (j, &u) in insert.iter().enumerate() {
                    if at + j < units.len() {
                        units[at + j] = u;
                    }
                }
                check(&units);
            }
        }
        // Every length the tail handles, with a pair or a lone half at
        // every position (the masked last block, its pair at the low half).
        for len in 17..=140 {
            for at in 0..len {
                for insert in [&[0xD83D, 0xDE00][..], &[0xD800], &[0xDC00], &[0x800, 0x7FF]] {
                    let mut units: Vec<u16> = (0..len as u16).map(|j| 0x61 + j % 20).collect();
                    for (j, &u) in insert.iter().enumerate() {
                        if at + j < len {
                            units[at + j] = u;
                        }
                    }
                    check(&units);
                }
            }
        }
        // Pairs across every group edge of a long run, past the flush.
        let pairs: Vec<u16> = [0xD83D, 0xDE00]
            .iter()
            .copied()
            .cycle()
            .take(2 * LEN_GROUP * LEN_FLUSH + 3)
            .collect();
        check(&pairs);
        let mut shifted = vec![0x41];
        shifted.extend_from_slice(&pairs);
        check(&shifted);
    }
}
