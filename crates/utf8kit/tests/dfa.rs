//! Tests of Hoehrmann's DFA (`utf8kit::dfa`): the seed's tables and worked
//! examples, then differential tests of `decode`, `Decoder` and `trace`
//! against `core::str::from_utf8` and `String::from_utf8_lossy`.
//!
//! The oracle for the item sequence is the std recovery loop: call
//! `from_utf8` on the rest, emit the chars of the valid prefix, then one
//! invalid sequence of `error_len` bytes (or the rest, if `None`), and go on
//! after it. The class of each error is `utf8kit::validate`'s on the same rest.

use proptest::prelude::*;
use utf8kit::Utf8ErrorKind;
use utf8kit::dfa::{
    self, ACCEPT, CLASSES, Decoded, Decoder, InvalidSequence, NUM_CLASSES, REJECT, STATES,
    TRANSITIONS, TraceEvent, TraceStep, UTF8D,
};

/// Appends to `out` the items std's recovery loop finds in `input`.
fn oracle_into(input: &[u8], out: &mut Vec<Decoded>) {
    let mut pos = 0;
    loop {
        let rest = &input[pos..];
        match core::str::from_utf8(rest) {
            Ok(s) => {
                out.extend(s.chars().map(Decoded::Char));
                return;
            }
            Err(e) => {
                let valid = core::str::from_utf8(&rest[..e.valid_up_to()]).unwrap();
                out.extend(valid.chars().map(Decoded::Char));
                let len = e.error_len().unwrap_or(rest.len() - e.valid_up_to());
                let ours = utf8kit::validate(rest).unwrap_err();
                assert_eq!(
                    (ours.valid_up_to(), ours.error_len()),
                    (e.valid_up_to(), e.error_len()),
                    "utf8kit::validate disagrees with core on {rest:02X?}"
                );
                out.push(Decoded::Invalid(InvalidSequence {
                    offset: pos + e.valid_up_to(),
                    len,
                    kind: ours.kind(),
                }));
                pos += e.valid_up_to() + len;
            }
        }
    }
}

fn oracle(input: &[u8]) -> Vec<Decoded> {
    let mut out = Vec::new();
    oracle_into(input, &mut out);
    out
}

fn lossy(items: &[Decoded]) -> String {
    items.iter().map(|d| d.lossy()).collect()
}

/// Feeds `input` to a `Decoder` one byte at a time.
fn decoder_bytewise(input: &[u8]) -> Vec<Decoded> {
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    for (i, &b) in input.iter().enumerate() {
        assert_eq!(dec.offset(), i);
        out.extend(dec.feed(b));
        assert_ne!(dec.state(), REJECT, "the decoder resets after an error");
    }
    out.extend(dec.finish().map(Decoded::Invalid));
    assert!(!dec.is_pending());
    assert_eq!(dec.offset(), input.len());
    out
}

/// Feeds `input` to a `Decoder` as the given chunks.
fn decoder_chunks(chunks: &[&[u8]]) -> Vec<Decoded> {
    let mut dec = Decoder::new();
    let mut out = Vec::new();
    for chunk in chunks {
        out.extend(dec.feed_slice(chunk));
    }
    out.extend(dec.finish().map(Decoded::Invalid));
    out
}

/// Checks every step of the trace of `input` against `dfa::step` and the
/// documented restart rule, and returns the items its events describe.
fn items_from_trace(input: &[u8]) -> Vec<Decoded> {
    let mut trace = dfa::trace(input);
    let mut items = Vec::new();
    let mut prev: Option<TraceStep> = None;
    let mut steps = 0;
    let mut reexamined = 0;
    for s in trace.by_ref() {
        steps += 1;
        assert_eq!(input[s.offset], s.byte);
        assert_eq!(s.class, CLASSES[usize::from(s.byte)]);
        // Where the machine stands before this step.
        let (expect_before, codep_before) = match prev {
            None => (ACCEPT, 0),
            Some(p) if p.state_after == REJECT || p.state_after == ACCEPT => (ACCEPT, 0),
            Some(p) => (p.state_after, p.codep),
        };
        assert_eq!(s.state_before, expect_before, "step {s:?} after {prev:?}");
        assert_eq!(
            (s.state_after, s.codep),
            dfa::step(s.state_before, codep_before, s.byte)
        );
        match prev {
            Some(p) if s.reexamined => {
                reexamined += 1;
                assert_eq!(p.offset, s.offset, "re-examined byte keeps its offset");
                assert!(matches!(p.event, TraceEvent::Rejected(_)));
                assert_ne!(p.state_before, ACCEPT);
            }
            Some(p) => assert_eq!(s.offset, p.offset + 1, "{s:?} after {p:?}"),
            None => {
                assert!(!s.reexamined);
                assert_eq!(s.offset, 0);
            }
        }
        match s.event {
            TraceEvent::Accepted(c) => {
                assert_eq!(s.state_after, ACCEPT);
                assert_eq!(u32::from(c), s.codep);
                items.push(Decoded::Char(c));
            }
            TraceEvent::NeedMore => {
                assert!(s.state_after != ACCEPT && s.state_after != REJECT);
            }
            TraceEvent::Rejected(seq) => {
                assert_eq!(s.state_after, REJECT);
                items.push(Decoded::Invalid(seq));
            }
        }
        prev = Some(s);
    }
    assert_eq!(steps, input.len() + reexamined);
    let tail = trace.incomplete_tail();
    assert_eq!(trace.ends_incomplete(), tail.is_some());
    items.extend(tail.map(Decoded::Invalid));
    items
}

/// The full check for one input: decode, the decoder (bytewise and split in
/// the middle) and the trace all agree with the oracle and with std's lossy
/// conversion.
#[track_caller]
fn check(input: &[u8]) {
    let expected = oracle(input);
    let got: Vec<Decoded> = dfa::decode(input).collect();
    assert_eq!(got, expected, "decode({input:02X?})");
    assert_eq!(lossy(&got), String::from_utf8_lossy(input), "{input:02X?}");
    assert_eq!(decoder_bytewise(input), expected, "Decoder on {input:02X?}");
    let mid = input.len() / 2;
    assert_eq!(
        decoder_chunks(&[&input[..mid], &input[mid..]]),
        expected,
        "Decoder split at {mid} on {input:02X?}"
    );
    assert_eq!(items_from_trace(input), expected, "trace({input:02X?})");
}

// ---------------------------------------------------------------- tables --

#[test]
fn classes_are_the_seed_ranges() {
    // The byte → class map as the seed's text lists it.
    for b in 0..=255u8 {
        let expected = match b {
            0x00..=0x7F => 0,
            0x80..=0x8F => 1,
            0x90..=0x9F => 9,
            0xA0..=0xBF => 7,
            0xC0 | 0xC1 => 8,
            0xC2..=0xDF => 2,
            0xE0 => 10,
            0xED => 4,
            0xE1..=0xEF => 3,
            0xF0 => 11,
            0xF1..=0xF3 => 6,
            0xF4 => 5,
            0xF5..=0xFF => 8,
        };
        assert_eq!(dfa::class(b), expected, "class of {b:02X}");
        assert_eq!(CLASSES[usize::from(b)], expected);
    }
}

#[test]
fn utf8d_is_classes_then_transitions() {
    assert_eq!(UTF8D.len(), 256 + STATES.len() * NUM_CLASSES);
    assert_eq!(&UTF8D[..256], &CLASSES[..]);
    assert_eq!(&UTF8D[256..], &TRANSITIONS[..]);
    assert_eq!((ACCEPT, REJECT), (0, 12));
}

#[test]
fn transitions_follow_the_rfc_3629_grammar() {
    // Which classes each state lets through, and where to (from the seed:
    // E0 needs A0..BF = class 7, ED needs 80..9F = classes 1 and 9, F0
    // needs 90..BF = classes 9 and 7, F4 needs 80..8F = class 1).
    let allowed = |state: u8, class: u8| -> Option<u8> {
        let cont = matches!(class, 1 | 7 | 9);
        match state {
            0 => match class {
                0 => Some(0),
                2 => Some(24),
                3 => Some(36),
                4 => Some(60),
                5 => Some(96),
                6 => Some(84),
                10 => Some(48),
                11 => Some(72),
                _ => None,
            },
            24 if cont => Some(0),
            36 if cont => Some(24),
            48 if class == 7 => Some(24),
            60 if class == 1 || class == 9 => Some(24),
            72 if class == 7 || class == 9 => Some(36),
            84 if cont => Some(36),
            96 if class == 1 => Some(36),
            _ => None,
        }
    };
    for &state in &STATES {
        for class in 0..NUM_CLASSES as u8 {
            let next = TRANSITIONS[usize::from(state) + usize::from(class)];
            assert_eq!(
                next,
                allowed(state, class).unwrap_or(REJECT),
                "state {state} class {class}"
            );
        }
    }
}

#[test]
fn step_never_panics_and_rejects_non_states() {
    for state in 0..=255u8 {
        for byte in 0..=255u8 {
            let (next, _) = dfa::step(state, u32::MAX, byte);
            if STATES.contains(&state) {
                let class = dfa::class(byte);
                assert_eq!(next, TRANSITIONS[usize::from(state) + usize::from(class)]);
            } else {
                assert_eq!(next, REJECT, "state {state}");
            }
        }
        assert!(!dfa::state_name(state).is_empty());
    }
}

// ------------------------------------------------------- seed examples --

/// Runs `step` over `bytes` from ACCEPT and returns (class, state, codep) after
/// each byte.
fn run_steps(bytes: &[u8]) -> Vec<(u8, u8, u32)> {
    let (mut state, mut codep) = (ACCEPT, 0);
    bytes
        .iter()
        .map(|&b| {
            (state, codep) = dfa::step(state, codep, b);
            (dfa::class(b), state, codep)
        })
        .collect()
}

#[test]
fn seed_example_shi() {
    // 世 U+4E16 = E4 B8 96: classes 3, 7, 9; codep 0x04, 0x138, 0x4E16;
    // "expect 2 more", "expect 1 more", ACCEPT.
    assert_eq!(
        run_steps(b"\xE4\xB8\x96"),
        [(3, 36, 0x04), (7, 24, 0x138), (9, ACCEPT, 0x4E16)]
    );
    let steps: Vec<TraceStep> = dfa::trace("世".as_bytes()).collect();
    let rows: Vec<_> = steps
        .iter()
        .map(|s| {
            (
                s.offset,
                s.byte,
                s.class,
                s.state_before,
                s.state_after,
                s.codep,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (0, 0xE4, 3, 0, 36, 0x04),
            (1, 0xB8, 7, 36, 24, 0x138),
            (2, 0x96, 9, 24, 0, 0x4E16),
        ]
    );
    assert_eq!(steps[0].event, TraceEvent::NeedMore);
    assert_eq!(steps[1].event, TraceEvent::NeedMore);
    assert_eq!(steps[2].event, TraceEvent::Accepted('世'));
    assert!(steps.iter().all(|s| !s.reexamined));
}

#[test]
fn seed_example_grinning_face() {
    // 😀 U+1F600 = F0 9F 98 80: classes 11, 9, 9, 1; codep 0, 0x1F, 0x7D8,
    // 0x1F600.
    let steps = run_steps(b"\xF0\x9F\x98\x80");
    let classes: Vec<u8> = steps.iter().map(|s| s.0).collect();
    let codeps: Vec<u32> = steps.iter().map(|s| s.2).collect();
    assert_eq!(classes, [11, 9, 9, 1]);
    assert_eq!(codeps, [0, 0x1F, 0x7D8, 0x1F600]);
    assert_eq!(steps[3].1, ACCEPT);
    assert!(steps[..3].iter().all(|s| s.1 != ACCEPT && s.1 != REJECT));
    let last = dfa::trace("😀".as_bytes()).last().unwrap();
    assert_eq!(last.event, TraceEvent::Accepted('😀'));
}

fn bad(offset: usize, len: usize, kind: Utf8ErrorKind) -> Decoded {
    Decoded::Invalid(InvalidSequence { offset, len, kind })
}

#[test]
fn seed_rejections() {
    use Utf8ErrorKind::*;
    // ED A0 80 would be the surrogate U+D800: rejected at A0.
    let steps = run_steps(b"\xED\xA0");
    assert_eq!(steps[0], (4, 60, 0xD));
    assert_eq!(steps[1].1, REJECT);
    // C0 AF, an overlong '/': C0 is rejected outright.
    assert_eq!(run_steps(b"\xC0")[0].1, REJECT);
    // F0 8F 98 80, an overlong U+F600: rejected at 8F.
    let steps = run_steps(b"\xF0\x8F");
    assert_eq!(steps[0].1, 72);
    assert_eq!(steps[1].1, REJECT);

    let cases: [(&[u8], Vec<Decoded>); 3] = [
        (
            b"\xED\xA0\x80",
            vec![
                bad(0, 1, Surrogate),
                bad(1, 1, UnexpectedContinuation),
                bad(2, 1, UnexpectedContinuation),
            ],
        ),
        (
            b" BAD:\xC0\xAF",
            " BAD:"
                .chars()
                .map(Decoded::Char)
                .chain([bad(5, 1, Overlong), bad(6, 1, UnexpectedContinuation)])
                .collect(),
        ),
        (
            b"\xF0\x8F\x98\x80",
            vec![
                bad(0, 1, Overlong),
                bad(1, 1, UnexpectedContinuation),
                bad(2, 1, UnexpectedContinuation),
                bad(3, 1, UnexpectedContinuation),
            ],
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(dfa::decode(input).collect::<Vec<_>>(), expected);
        check(input);
    }
}

#[test]
fn seed_sample_strings() {
    for s in ["Hello, 世界! ", "\u{1F600}", "世", "큀", ""] {
        let got: Vec<Decoded> = dfa::decode(s.as_bytes()).collect();
        let expected: Vec<Decoded> = s.chars().map(Decoded::Char).collect();
        assert_eq!(got, expected, "{s:?}");
        check(s.as_bytes());
    }
}

#[test]
fn trace_restarts_on_the_rejecting_byte() {
    // E4 B8 then 'A': the trace rejects at 'A', then re-examines 'A'.
    let steps: Vec<TraceStep> = dfa::trace(b"\xE4\xB8A").collect();
    let rows: Vec<_> = steps
        .iter()
        .map(|s| (s.offset, s.state_before, s.state_after, s.reexamined))
        .collect();
    assert_eq!(
        rows,
        [
            (0, ACCEPT, 36, false),
            (1, 36, 24, false),
            (2, 24, REJECT, false),
            (2, ACCEPT, ACCEPT, true),
        ]
    );
    assert_eq!(
        steps[2].event,
        TraceEvent::Rejected(InvalidSequence {
            offset: 0,
            len: 2,
            kind: Utf8ErrorKind::Incomplete
        })
    );
    assert_eq!(steps[3].event, TraceEvent::Accepted('A'));
    check(b"\xE4\xB8A");
}

#[test]
fn incomplete_tail_is_reported_only_at_the_end() {
    let mut t = dfa::trace(b"a\xE4\xB8");
    assert!(t.incomplete_tail().is_none());
    t.next();
    t.next();
    assert!(t.incomplete_tail().is_none(), "not exhausted yet");
    t.next();
    assert!(t.next().is_none());
    assert_eq!(
        t.incomplete_tail(),
        Some(InvalidSequence {
            offset: 1,
            len: 2,
            kind: Utf8ErrorKind::Incomplete
        })
    );
    let mut t = dfa::trace(b"a\xE4\xB8\x96");
    assert_eq!(t.by_ref().count(), 4);
    assert!(!t.ends_incomplete());
}

#[test]
fn decoder_exposes_its_state() {
    let mut dec = Decoder::new();
    let expected = [(72, 0), (36, 0x1F), (24, 0x7D8)];
    for (&b, (state, codep)) in b"\xF0\x9F\x98".iter().zip(expected) {
        assert_eq!(dec.feed(b).len(), 0);
        assert_eq!((dec.state(), dec.codepoint()), (state, codep));
        assert!(dec.is_pending());
    }
    assert_eq!(dec.feed(0x80).collect::<Vec<_>>(), [Decoded::Char('😀')]);
    assert!(!dec.is_pending());
    assert_eq!(dec.offset(), 4);
    assert_eq!(dec.finish(), None);
    // After finish the decoder goes on counting.
    let _ = dec.feed(0xE4);
    assert_eq!(
        dec.finish(),
        Some(InvalidSequence {
            offset: 4,
            len: 1,
            kind: Utf8ErrorKind::Incomplete
        })
    );
    assert_eq!(dec.state(), ACCEPT);
}

#[test]
fn feed_slice_dropped_early_resumes_exactly() {
    let input = b"ab\xE4\xB8c\xF0\x9F\x98\x80\xED\xA0\x80z\xC3";
    let expected = oracle(input);
    for take in 0..=expected.len() {
        let mut dec = Decoder::new();
        let mut got: Vec<Decoded> = dec.feed_slice(input).take(take).collect();
        let consumed = dec.offset();
        got.extend(dec.feed_slice(&input[consumed..]));
        got.extend(dec.finish().map(Decoded::Invalid));
        assert_eq!(got, expected, "take {take}");
    }
}

// ------------------------------------------ hoehrmann/utf-8-misc issue 1 --

/// hoehrmann/utf-8-misc#1: a derived version (`utf8_arith.h`) decoded
/// ED 81 80 as U+D000 instead of U+D040, and failed on other sequences led
/// by E0, ED, F1, F2 and F3. The 2010 table must get all of them right.
#[test]
fn issue_1_ed_81_80_is_d040() {
    assert_eq!(run_steps(b"\xED\x81\x80")[2], (1, ACCEPT, 0xD040));
    assert_eq!(
        dfa::decode(b"\xED\x81\x80").collect::<Vec<_>>(),
        [Decoded::Char('\u{D040}')]
    );
}

#[test]
fn issue_1_every_sequence_with_leads_e0_ed_f1_f2_f3() {
    let mut buf = Vec::new();
    let mut valid = 0;
    for lead in [0xE0u8, 0xED] {
        for b1 in 0x80..=0xBFu8 {
            for b2 in 0x80..=0xBFu8 {
                let input = [lead, b1, b2];
                buf.clear();
                buf.extend(dfa::decode(&input));
                if let Ok(s) = core::str::from_utf8(&input) {
                    valid += 1;
                    assert_eq!(buf, [Decoded::Char(s.chars().next().unwrap())]);
                } else {
                    assert!(matches!(buf[0], Decoded::Invalid(_)), "{input:02X?}");
                }
            }
        }
    }
    for lead in [0xF1u8, 0xF2, 0xF3] {
        for b1 in 0x80..=0xBFu8 {
            for b2 in 0x80..=0xBFu8 {
                for b3 in 0x80..=0xBFu8 {
                    let input = [lead, b1, b2, b3];
                    let s = core::str::from_utf8(&input).unwrap();
                    valid += 1;
                    buf.clear();
                    buf.extend(dfa::decode(&input));
                    assert_eq!(buf, [Decoded::Char(s.chars().next().unwrap())]);
                }
            }
        }
    }
    // E0 A0..BF xx, ED 80..9F xx: 2 × 32 × 64; F1..F3: 3 × 64³.
    assert_eq!(valid, 2 * 32 * 64 + 3 * 64 * 64 * 64);
}

// ------------------------------------------------------------ exhaustive --

#[test]
fn every_input_of_one_and_two_bytes() {
    for a in 0..=255u8 {
        check(&[a]);
        for b in 0..=255u8 {
            check(&[a, b]);
        }
    }
}

#[test]
fn every_input_of_three_bytes() {
    let (mut expected, mut got) = (Vec::new(), Vec::new());
    let mut lossy_buf = String::new();
    for n in 0..1u32 << 24 {
        let [_, a, b, c] = n.to_be_bytes();
        let input = [a, b, c];
        expected.clear();
        oracle_into(&input, &mut expected);
        got.clear();
        got.extend(dfa::decode(&input));
        assert_eq!(got, expected, "decode({input:02X?})");
        lossy_buf.clear();
        lossy_buf.extend(got.iter().map(|d| d.lossy()));
        assert_eq!(lossy_buf, String::from_utf8_lossy(&input));
        // The decoder, fed byte by byte.
        let mut dec = Decoder::new();
        got.clear();
        for &byte in &input {
            got.extend(dec.feed(byte));
        }
        got.extend(dec.finish().map(Decoded::Invalid));
        assert_eq!(got, expected, "Decoder on {input:02X?}");
    }
}

/// Every 4-byte input with the given lead.
fn every_four_byte_input_with_lead(lead: u8) {
    let (mut expected, mut got) = (Vec::new(), Vec::new());
    for n in 0..1u32 << 24 {
        let [_, a, b, c] = n.to_be_bytes();
        let input = [lead, a, b, c];
        expected.clear();
        oracle_into(&input, &mut expected);
        got.clear();
        got.extend(dfa::decode(&input));
        assert_eq!(got, expected, "decode({input:02X?})");
    }
}

#[test]
fn every_four_byte_input_with_lead_f0() {
    every_four_byte_input_with_lead(0xF0);
}

#[test]
fn every_four_byte_input_with_lead_f1() {
    every_four_byte_input_with_lead(0xF1);
}

#[test]
fn every_four_byte_input_with_lead_f2() {
    every_four_byte_input_with_lead(0xF2);
}

#[test]
fn every_four_byte_input_with_lead_f3() {
    every_four_byte_input_with_lead(0xF3);
}

#[test]
fn every_four_byte_input_with_lead_f4() {
    every_four_byte_input_with_lead(0xF4);
}

#[test]
fn every_scalar_value_between_ascii() {
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        let mut buf = [b'x'; 6];
        let n = c.encode_utf8(&mut buf[1..5]).len();
        let input = &buf[..n + 2];
        let got: Vec<Decoded> = dfa::decode(input).collect();
        assert_eq!(
            got,
            [Decoded::Char('x'), Decoded::Char(c), Decoded::Char('x')]
        );
    }
}

// -------------------------------------------------------------- property --

/// Valid text with a few bytes overwritten or inserted: errors next to
/// real characters, where recovery matters.
fn text_with_injections() -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::collection::vec(any::<char>(), 0..200),
        proptest::collection::vec(
            (any::<prop::sample::Index>(), any::<u8>(), any::<bool>()),
            0..6,
        ),
    )
        .prop_map(|(chars, edits)| {
            let mut bytes = chars.into_iter().collect::<String>().into_bytes();
            for (at, byte, insert) in edits {
                let i = at.index(bytes.len() + 1);
                if insert || i == bytes.len() {
                    bytes.insert(i, byte);
                } else {
                    bytes[i] = byte;
                }
            }
            bytes
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn agrees_with_std_on_random_bytes(input in proptest::collection::vec(any::<u8>(), 0..300)) {
        check(&input);
    }

    #[test]
    fn agrees_with_std_on_text_with_injections(input in text_with_injections()) {
        check(&input);
    }

    #[test]
    fn streaming_split_anywhere(
        input in text_with_injections(),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..5),
    ) {
        let expected = oracle(&input);
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(input.len() + 1)).collect();
        cuts.sort_unstable();
        let mut chunks = Vec::new();
        let mut start = 0;
        for cut in cuts {
            chunks.push(&input[start..cut]);
            start = cut;
        }
        chunks.push(&input[start..]);
        prop_assert_eq!(decoder_chunks(&chunks), expected);
    }
}

#[test]
fn streaming_split_at_every_index() {
    let input = "aé世😀"
        .as_bytes()
        .iter()
        .copied()
        .chain(*b"\xE4\xB8z\xF0\x9F\x98\xED\xA0\x80\xC0\xAF\xF4\x90\x80\x80\xFF\xE0\x80\xF0\x9F")
        .collect::<Vec<u8>>();
    let expected = oracle(&input);
    for i in 0..=input.len() {
        for j in i..=input.len() {
            let got = decoder_chunks(&[&input[..i], &input[i..j], &input[j..]]);
            assert_eq!(got, expected, "split at {i} and {j}");
        }
    }
}
