//! Tests of the Plan 9 codec (`utf8kit::plan9`) and its extended 7/8-byte
//! forms (`utf8kit::plan9::extended`).
//!
//! Oracles: `char::encode_utf8` and `core::str::from_utf8` for every Unicode
//! scalar value; the seed's table; and a reference encoder written from the
//! bit layout (a lead byte of `n` ones and a zero, then `10vvvvvv` bytes),
//! which can also build the overlong forms the codec must refuse.

use proptest::prelude::*;
use utf8kit::plan9::{self, MAX, Plan9Error, TAB, extended};

/// The bit layout written out: `value` in exactly `n` bytes (1..=8), the
/// lead byte carrying whatever bits do not fit in the `n - 1` continuation
/// bytes. Produces overlong forms when `value` is small.
fn reference_encode(value: u64, n: usize) -> Vec<u8> {
    assert!((1..=8).contains(&n));
    if n == 1 {
        assert!(value < 0x80);
        return vec![value as u8];
    }
    let payload_bits = 6 * (n as u32 - 1);
    // n leading ones, then a zero (none left for n = 8).
    let marker = (0xFF00u16 >> n) as u8;
    let high = value >> payload_bits;
    assert!(
        high < 1 << 7u32.saturating_sub(n as u32),
        "{value:#X} needs more than {n} bytes"
    );
    let mut out = vec![marker | high as u8];
    for k in (0..n - 1).rev() {
        out.push(0x80 | ((value >> (6 * k)) & 0x3F) as u8);
    }
    out
}

/// Payload bits of an `n`-byte sequence: 7, 11, 16, 21, 26, 31, 36, 42.
fn bits_of_length(n: usize) -> u32 {
    match n {
        1 => 7,
        2..=6 => (7 - n as u32) + 6 * (n as u32 - 1),
        7 => 36,
        8 => 42,
        _ => unreachable!(),
    }
}

/// The shortest length that holds `value`, if 8 bytes suffice.
fn shortest_length(value: u64) -> Option<usize> {
    let bits = 64 - value.leading_zeros();
    (1..=8).find(|&n| bits <= bits_of_length(n))
}

/// Powers of two ± 1 up to 2^44, plus every row's limits ± 1.
fn boundary_values() -> Vec<u64> {
    let mut v = vec![0, 1, u64::from(u32::MAX), u64::MAX];
    for k in 0..=44 {
        let p = 1u64 << k;
        v.extend([p - 1, p, p + 1]);
    }
    for row in &extended::TAB {
        for x in [row.lval, row.lmask] {
            v.extend([x.saturating_sub(1), x, x + 1]);
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// A decode result of each codec.
type Decoded32 = Result<(u32, usize), Plan9Error>;
type Decoded64 = Result<(u64, usize), Plan9Error>;

// ----------------------------------------------------------------- table --

#[test]
fn tab_is_the_seed_table() {
    // Seed 001, verbatim: cmask, cval, shift, lmask, lval.
    let seed: [(u8, u8, u32, u32, u32); 6] = [
        (0x80, 0x00, 0, 0x7F, 0),
        (0xE0, 0xC0, 6, 0x7FF, 0x80),
        (0xF0, 0xE0, 12, 0xFFFF, 0x800),
        (0xF8, 0xF0, 18, 0x1FFFFF, 0x10000),
        (0xFC, 0xF8, 24, 0x3FFFFFF, 0x200000),
        (0xFE, 0xFC, 30, 0x7FFFFFFF, 0x4000000),
    ];
    for (i, (row, s)) in TAB.iter().zip(seed).enumerate() {
        assert_eq!((row.cmask, row.cval, row.shift, row.lmask, row.lval), s);
        assert_eq!(row.len(), i + 1);
    }
    assert_eq!(MAX, TAB[5].lmask);
}

#[test]
fn tab_follows_its_construction_rules() {
    for (i, row) in extended::TAB.iter().enumerate() {
        let n = i + 1;
        assert_eq!(row.len(), n);
        assert_eq!(row.shift, 6 * i as u32);
        assert_eq!(row.lmask, (1u64 << bits_of_length(n)) - 1, "row {n}");
        // Each row starts where the previous one ends.
        let prev_max = if i == 0 {
            None
        } else {
            Some(extended::TAB[i - 1].lmask)
        };
        assert_eq!(row.lval, prev_max.map_or(0, |m| m + 1), "row {n}");
        // cval is the lead with its payload bits cleared; cmask adds the
        // zero that ends the marker (for the 8-byte row there is none).
        let lead = reference_encode(row.lval, n)[0];
        assert_eq!(lead & row.cmask, row.cval, "row {n}");
        if n > 1 && n < 8 {
            assert_eq!(row.cval, (0xFF00u16 >> n) as u8);
            assert_eq!(row.cmask, row.cval | (0x80 >> n));
        }
        // The first six rows are plan9::TAB.
        if let Some(small) = TAB.get(i) {
            assert_eq!(
                (small.cmask, small.cval, small.shift),
                (row.cmask, row.cval, row.shift)
            );
            assert_eq!(
                (u64::from(small.lmask), u64::from(small.lval)),
                (row.lmask, row.lval)
            );
        }
    }
    assert_eq!(extended::MAX, (1 << 42) - 1);
    assert_eq!(extended::TAB[6].cval, 0xFE);
    assert_eq!(extended::TAB[7].cval, 0xFF);
}

#[test]
fn row_for_picks_the_shortest_row() {
    for v in boundary_values() {
        let expected = shortest_length(v);
        assert_eq!(extended::row_for(v).map(|t| t.len()), expected, "{v:#X}");
        let small = u32::try_from(v).ok().and_then(plan9::row_for);
        let expected_small = expected.filter(|&n| n <= 6).filter(|_| v <= u64::from(MAX));
        assert_eq!(small.map(|t| t.len()), expected_small, "{v:#X}");
    }
}

// -------------------------------------------------------- seed examples --

#[test]
fn seed_example_lu() {
    // 吕 U+5415 = 0101 010000 010101 → E5 90 95.
    let mut buf = [0; 6];
    assert_eq!(plan9::encode(0x5415, &mut buf), 3);
    assert_eq!(&buf[..3], [0xE5, 0x90, 0x95]);
    assert_eq!(plan9::decode(&[0xE5, 0x90, 0x95]), Ok((0x5415, 3)));
}

#[test]
fn seed_table_rows_min_and_max() {
    // Seed 001's table: 1..6 bytes, 00000000..0000007F up to
    // 04000000..7FFFFFFF.
    let rows: [(u32, u32); 6] = [
        (0, 0x7F),
        (0x80, 0x7FF),
        (0x800, 0xFFFF),
        (0x1_0000, 0x1F_FFFF),
        (0x20_0000, 0x3FF_FFFF),
        (0x400_0000, 0x7FFF_FFFF),
    ];
    let mut buf = [0; 6];
    for (i, (lo, hi)) in rows.into_iter().enumerate() {
        for v in [lo, hi] {
            let n = plan9::encode(v, &mut buf);
            assert_eq!(n, i + 1, "{v:#X}");
            assert_eq!(buf[..n], reference_encode(v.into(), n)[..]);
            assert_eq!(plan9::decode(&buf[..n]), Ok((v, n)));
        }
    }
}

#[test]
fn hand_table_of_errors() {
    use Plan9Error::*;
    let cases: &[(&[u8], Decoded32)] = &[
        (b"", Err(Empty)),
        (b"\x80", Err(InvalidLead)),     // continuation byte
        (b"\xBF\x80", Err(InvalidLead)), // continuation byte
        (b"\xFE\x80\x80\x80\x80\x80\x80", Err(InvalidLead)), // 7-byte lead: not in the 6-row table
        (b"\xFF", Err(InvalidLead)),
        (b"\xC0", Err(Truncated)),    // cannot know it is overlong yet
        (b"\xC0\xAF", Err(Overlong)), // '/' in 2 bytes
        (b"\xC1\xBF", Err(Overlong)), // 0x7F in 2 bytes
        (b"\xC2\x80", Ok((0x80, 2))),
        (b"\xE0\x80", Err(Truncated)),
        (b"\xE0\x41\x80", Err(BadContinuation { at: 1 })),
        (b"\xE4\xB8\x41", Err(BadContinuation { at: 2 })),
        (b"\xE4\xB8\xC0", Err(BadContinuation { at: 2 })),
        (b"\xE0\x9F\xBF", Err(Overlong)),   // 0x7FF in 3 bytes
        (b"\xED\xA0\x80", Ok((0xD800, 3))), // surrogates are values like any other
        (b"\xED\xBF\xBF", Ok((0xDFFF, 3))),
        (b"\xF0\x8F\xBF\xBF", Err(Overlong)), // 0xFFFF in 4 bytes
        (b"\xF4\x90\x80\x80", Ok((0x11_0000, 4))), // above U+10FFFF
        (b"\xF7\xBF\xBF\xBF", Ok((0x1F_FFFF, 4))),
        (b"\xF8\x87\xBF\xBF\xBF", Err(Overlong)),
        (b"\xF8\x88\x80\x80\x80", Ok((0x20_0000, 5))),
        (b"\xFC\x83\xBF\xBF\xBF\xBF", Err(Overlong)),
        (b"\xFC\x84\x80\x80\x80\x80", Ok((0x400_0000, 6))),
        (b"\xFD\xBF\xBF\xBF\xBF\xBF", Ok((0x7FFF_FFFF, 6))),
        (b"\xFD\xBF\xBF\xBF\xBF", Err(Truncated)),
        (b"\xFD\xBF\xBF\xBF\xBF\x7F", Err(BadContinuation { at: 5 })),
        (b"a\x80", Ok((0x61, 1))), // trailing bytes are ignored
    ];
    for (input, expected) in cases {
        assert_eq!(plan9::decode(input), *expected, "{input:02X?}");
        // The extended codec agrees except on FE/FF leads.
        if !matches!(input.first(), Some(0xFE | 0xFF)) {
            let widened = expected.map(|(v, n)| (u64::from(v), n));
            assert_eq!(extended::decode(input), widened, "{input:02X?}");
        }
    }
}

#[test]
fn extended_hand_table() {
    use Plan9Error::*;
    let cases: &[(&[u8], Decoded64)] = &[
        (b"\xFE", Err(Truncated)),
        (b"\xFE\x82\x80\x80\x80\x80\x80", Ok((0x8000_0000, 7))),
        (b"\xFE\x81\xBF\xBF\xBF\xBF\xBF", Err(Overlong)), // 2^31 - 1
        (b"\xFE\x80\x80\x80\x80\x80\x80", Err(Overlong)), // 0
        (b"\xFE\xBF\xBF\xBF\xBF\xBF\xBF", Ok((0xF_FFFF_FFFF, 7))),
        (
            b"\xFE\xBF\xBF\xBF\xBF\xBF\x3F",
            Err(BadContinuation { at: 6 }),
        ),
        (b"\xFF\x81\x80\x80\x80\x80\x80\x80", Ok((0x10_0000_0000, 8))),
        (b"\xFF\x80\xBF\xBF\xBF\xBF\xBF\xBF", Err(Overlong)), // 2^36 - 1
        (
            b"\xFF\xBF\xBF\xBF\xBF\xBF\xBF\xBF",
            Ok((0x3FF_FFFF_FFFF, 8)),
        ),
        (b"\xFF\xBF\xBF\xBF\xBF\xBF\xBF", Err(Truncated)),
        (b"\x80", Err(InvalidLead)),
    ];
    for (input, expected) in cases {
        assert_eq!(extended::decode(input), *expected, "{input:02X?}");
    }
}

#[test]
fn errors_display_and_are_errors() {
    let all = [
        Plan9Error::Empty,
        Plan9Error::Truncated,
        Plan9Error::BadContinuation { at: 3 },
        Plan9Error::Overlong,
        Plan9Error::InvalidLead,
    ];
    let texts: Vec<String> = all.iter().map(|e| e.to_string()).collect();
    for (i, t) in texts.iter().enumerate() {
        assert!(!t.is_empty());
        assert!(
            texts[i + 1..].iter().all(|u| u != t),
            "duplicate message {t}"
        );
    }
    assert!(texts[2].contains('3'));
    let _: &dyn std::error::Error = &all[0];
}

// ------------------------------------------------- agreement with Unicode --

#[test]
fn every_scalar_value_matches_encode_utf8() {
    let mut buf = [0; 6];
    let mut std_buf = [0; 4];
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        let expected = c.encode_utf8(&mut std_buf).as_bytes();
        let n = plan9::encode(c as u32, &mut buf);
        assert_eq!(&buf[..n], expected, "{c:?}");
        assert_eq!(plan9::decode(expected), Ok((c as u32, expected.len())));
        assert_eq!(
            plan9::row_for(c as u32).map(|t| t.len()),
            Some(c.len_utf8())
        );
        let mut ext = [0; 8];
        let m = extended::encode(c.into(), &mut ext);
        assert_eq!(&ext[..m], expected);
    }
}

#[test]
fn surrogates_and_values_above_unicode_encode_by_the_layout() {
    let mut buf = [0; 6];
    for v in (0xD800..=0xDFFF)
        .chain(0x11_0000..0x11_2000)
        .chain([0x1F_FFFF])
    {
        let n = plan9::encode(v, &mut buf);
        assert_eq!(buf[..n], reference_encode(v.into(), n)[..]);
        // std refuses these bytes, Plan 9 gives the value back.
        assert!(core::str::from_utf8(&buf[..n]).is_err());
        assert_eq!(plan9::decode(&buf[..n]), Ok((v, n)));
    }
}

/// What plan9::decode must return for `input`, from the layout alone: the
/// count of leading ones of the lead byte gives the length.
fn expected_decode(input: &[u8]) -> Decoded32 {
    let Some(&lead) = input.first() else {
        return Err(Plan9Error::Empty);
    };
    let n = match lead.leading_ones() {
        0 => 1,
        1 | 7 | 8 => return Err(Plan9Error::InvalidLead),
        k => k as usize,
    };
    for at in 1..n {
        match input.get(at) {
            None => return Err(Plan9Error::Truncated),
            Some(b) if b & 0xC0 != 0x80 => return Err(Plan9Error::BadContinuation { at }),
            Some(_) => {}
        }
    }
    // The lead keeps the bits below its marker of n ones and a zero.
    let mut value = if n == 1 {
        u32::from(lead)
    } else {
        u32::from(lead) & (0x7F >> n)
    };
    for &b in &input[1..n] {
        value = (value << 6) | u32::from(b & 0x3F);
    }
    if shortest_length(value.into()) != Some(n) {
        return Err(Plan9Error::Overlong);
    }
    Ok((value, n))
}

/// Checks plan9::decode on `input` against core (on scalar values) and the
/// layout (everywhere).
#[track_caller]
fn check_against_core(input: &[u8]) {
    let got = plan9::decode(input);
    assert_eq!(got, expected_decode(input), "{input:02X?}");
    // Whatever std decodes as the first character, Plan 9 decodes too.
    if let Some(chunk) = input.utf8_chunks().next()
        && let Some(c) = chunk.valid().chars().next()
    {
        assert_eq!(got, Ok((c as u32, c.len_utf8())), "{input:02X?}");
    }
    if let Ok((v, n)) = got {
        // Accepted bytes are the canonical encoding of their value...
        let mut buf = [0; 6];
        let m = plan9::encode(v, &mut buf);
        assert_eq!(&buf[..m], &input[..n], "{input:02X?}");
        // ...and std accepts them exactly when the value is a scalar value.
        match char::from_u32(v) {
            Some(c) => {
                assert_eq!(
                    core::str::from_utf8(&input[..n]).map(|s| s.chars().next()),
                    Ok(Some(c))
                )
            }
            None => assert!(core::str::from_utf8(&input[..n]).is_err(), "{input:02X?}"),
        }
    }
}

#[test]
fn every_input_of_up_to_three_bytes() {
    check_against_core(&[]);
    for n in 0..1u32 << 24 {
        let [_, a, b, c] = n.to_be_bytes();
        check_against_core(&[a, b, c]);
        if b == 0 && c == 0 {
            check_against_core(&[a]);
        }
        if c == 0 {
            check_against_core(&[a, b]);
        }
    }
}

#[test]
fn every_four_byte_input_with_a_four_byte_lead() {
    for lead in 0xF0..=0xF7u8 {
        for n in 0..1u32 << 24 {
            let [_, a, b, c] = n.to_be_bytes();
            check_against_core(&[lead, a, b, c]);
        }
    }
}

// ------------------------------------------------------------ boundaries --

#[test]
fn round_trip_at_every_boundary() {
    let mut buf = [0; 6];
    let mut ext = [0; 8];
    for v in boundary_values() {
        let expected_len = shortest_length(v);
        // The extended codec covers everything up to 2^42 - 1.
        ext.fill(0xAA);
        let m = extended::encode(v, &mut ext);
        match expected_len {
            Some(n) => {
                assert_eq!(m, n, "{v:#X}");
                assert_eq!(ext[..m], reference_encode(v, n)[..], "{v:#X}");
                assert_eq!(extended::decode(&ext[..m]), Ok((v, m)));
                // Trailing bytes do not matter.
                let mut longer = ext[..m].to_vec();
                longer.extend_from_slice(b"\xFF\x80x");
                assert_eq!(extended::decode(&longer), Ok((v, m)));
            }
            None => {
                assert!(v > extended::MAX);
                assert_eq!(m, 0, "{v:#X}");
                assert!(ext.iter().all(|&b| b == 0xAA), "nothing written");
            }
        }
        // The 31-bit codec covers up to MAX, in at most 6 bytes.
        let Ok(v32) = u32::try_from(v) else { continue };
        buf.fill(0xAA);
        let n = plan9::encode(v32, &mut buf);
        if v32 <= MAX {
            assert_eq!(Some(n), expected_len, "{v:#X}");
            assert_eq!(buf[..n], ext[..m]);
            assert_eq!(plan9::decode(&buf[..n]), Ok((v32, n)));
        } else {
            assert_eq!(n, 0, "{v:#X}");
            assert!(buf.iter().all(|&b| b == 0xAA), "nothing written");
        }
    }
}

#[test]
fn overlong_forms_are_rejected_at_every_length() {
    for n in 2..=8 {
        let lval = extended::TAB[n - 1].lval;
        // Every value below the row's minimum fits in n bytes and is
        // overlong there: the row limits below it, powers of two, and 0.
        let mut values: Vec<u64> = vec![0, 1, lval - 1];
        values.extend(
            extended::TAB[..n - 1]
                .iter()
                .flat_map(|t| [t.lval, t.lmask]),
        );
        values.extend((0..64).map(|k| 1u64 << k).filter(|&p| p < lval));
        for v in values {
            let bytes = reference_encode(v, n);
            assert_eq!(
                extended::decode(&bytes),
                Err(Plan9Error::Overlong),
                "{v:#X} in {n}"
            );
            if n <= 6 {
                assert_eq!(
                    plan9::decode(&bytes),
                    Err(Plan9Error::Overlong),
                    "{v:#X} in {n}"
                );
            }
        }
        // The row's minimum itself is fine.
        let bytes = reference_encode(lval, n);
        assert_eq!(extended::decode(&bytes), Ok((lval, n)));
    }
    // All of 2-byte overlong space: C0 80..C1 BF.
    for v in 0..0x80u64 {
        assert_eq!(
            plan9::decode(&reference_encode(v, 2)),
            Err(Plan9Error::Overlong)
        );
    }
}

#[test]
fn every_prefix_is_truncated_and_every_bad_byte_is_located() {
    let mut ext = [0; 8];
    for v in boundary_values()
        .into_iter()
        .filter(|&v| v <= extended::MAX)
    {
        let m = extended::encode(v, &mut ext);
        for cut in 1..m {
            assert_eq!(extended::decode(&ext[..cut]), Err(Plan9Error::Truncated));
            if v <= u64::from(MAX) {
                assert_eq!(plan9::decode(&ext[..cut]), Err(Plan9Error::Truncated));
            }
        }
        for at in 1..m {
            for bad in [0x00, 0x7F, 0xC0, 0xFF] {
                let mut bytes = ext[..m].to_vec();
                bytes[at] = bad;
                assert_eq!(
                    extended::decode(&bytes),
                    Err(Plan9Error::BadContinuation { at }),
                    "{bytes:02X?}"
                );
            }
        }
    }
}

// -------------------------------------------------------------- property --

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]

    #[test]
    fn round_trip_u32(v in 0..=MAX) {
        let mut buf = [0; 6];
        let n = plan9::encode(v, &mut buf);
        prop_assert_eq!(Some(n), shortest_length(v.into()));
        prop_assert_eq!(&buf[..n], &reference_encode(v.into(), n)[..]);
        prop_assert_eq!(plan9::decode(&buf[..n]), Ok((v, n)));
    }

    #[test]
    fn round_trip_u64(v in 0..=extended::MAX) {
        let mut buf = [0; 8];
        let n = extended::encode(v, &mut buf);
        prop_assert_eq!(Some(n), shortest_length(v));
        prop_assert_eq!(&buf[..n], &reference_encode(v, n)[..]);
        prop_assert_eq!(extended::decode(&buf[..n]), Ok((v, n)));
    }

    #[test]
    fn decode_accepts_only_canonical_forms(input in proptest::collection::vec(any::<u8>(), 0..10)) {
        prop_assert_eq!(plan9::decode(&input), expected_decode(&input));
        if let Ok((v, n)) = extended::decode(&input) {
            let mut buf = [0; 8];
            let m = extended::encode(v, &mut buf);
            prop_assert_eq!(&buf[..m], &input[..n]);
        }
        if !matches!(input.first(), Some(0xFE | 0xFF)) {
            prop_assert_eq!(
                extended::decode(&input),
                plan9::decode(&input).map(|(v, n)| (u64::from(v), n))
            );
        }
    }

    #[test]
    fn decode_well_formed_shapes(
        lead_ones in 0usize..=8,
        payload in any::<u64>(),
        tail in proptest::collection::vec(any::<u8>(), 0..3),
    ) {
        // Build byte strings that look like sequences, so that most reach
        // the value checks instead of failing on the first bytes.
        let n = match lead_ones { 0 | 1 => 1, k => k };
        let value = payload & ((1u64 << bits_of_length(n)) - 1);
        let mut bytes = reference_encode(if n == 1 { value & 0x7F } else { value }, n);
        bytes.extend(tail);
        let expected = shortest_length(value).filter(|_| n > 1);
        match extended::decode(&bytes) {
            Ok((v, len)) => {
                prop_assert_eq!(len, n);
                prop_assert!(n == 1 || expected == Some(n));
                prop_assert_eq!(v, if n == 1 { value & 0x7F } else { value });
            }
            Err(e) => {
                prop_assert_eq!(e, Plan9Error::Overlong);
                prop_assert!(expected.is_some_and(|m| m < n));
            }
        }
    }
}
