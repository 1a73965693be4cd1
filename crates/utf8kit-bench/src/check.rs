//! `--check`: every contender once on every input, compared with the operation's oracle.
//!
//! Benchmark inputs are all valid, so the check also runs corrupted variants of each (an
//! invalid byte late, a truncated sequence at the end, a surrogate in the middle, a stray
//! continuation byte first, an overlong form late) so that a contender answering "valid"
//! regardless would fail. UTF-8 inputs also get a valid variant with a character above
//! U+00FF in the middle, which the UTF-8 → Latin-1 contenders must reject. Latin-1 inputs
//! have no invalid form.

use crate::harness::call_once;
use crate::inputs::{Data, Family, Size};
use crate::ops::{Agreement, Operation, RowKey};
use crate::selected;

/// Default sizes: around the 16/32/64-byte block edges of SIMD kernels, then large.
pub const SIZES: &[usize] = &[
    0,
    1,
    3,
    15,
    16,
    17,
    31,
    32,
    33,
    63,
    64,
    65,
    127,
    128,
    129,
    1000,
    1024,
    4099,
    65536,
    1 << 20,
];

/// Runs the check; prints one line per contender and a closing `N passed, M failed` line.
/// Returns whether everything agreed.
pub fn run(ops: &mut [Operation], families: &[Family], sizes: &[Size], filters: &[String]) -> bool {
    let mut passed = 0usize;
    let mut failed = 0usize;

    for fam in families {
        if fam.corpus_forms_agree() == Some(false) {
            out!(
                "corpus {}: the UTF-16 file does not hold the same text as the UTF-8 file",
                fam.name
            );
            failed += 1;
        }
    }

    for op in ops.iter_mut() {
        let oracle = op
            .index_of(op.oracle)
            .expect("checked by Operation::assert_consistent");
        // Per contender: inputs checked, and the first few disagreements.
        let mut tally: Vec<(usize, Vec<String>)> = vec![(0, Vec::new()); op.contenders.len()];
        for fam in families {
            for &size in sizes {
                let key = RowKey {
                    input: fam.name.clone(),
                    kind: fam.kind,
                    size,
                };
                if !(op.rows)(&key) {
                    continue;
                }
                for (variant, data) in variants(fam.data(op.encoding, size.0)) {
                    if op.valid_only && variant != "valid" {
                        continue;
                    }
                    let units = data.units();
                    let expected = call_once(&mut op.contenders[oracle].run, &data);
                    for (i, c) in op.contenders.iter_mut().enumerate() {
                        if i == oracle
                            || !(c.applies)(&key)
                            || (c.agreement == Agreement::ExactOnValid && variant != "valid")
                            || !selected(filters, op.name, &key, &c.name)
                        {
                            continue;
                        }
                        let got = call_once(&mut c.run, &data);
                        let ok = match c.agreement {
                            Agreement::Exact | Agreement::ExactOnValid => got == expected,
                            Agreement::Verdict => (got == units) == (expected == units),
                            Agreement::FullLength => got == units,
                        };
                        tally[i].0 += 1;
                        if !ok && tally[i].1.len() < 5 {
                            tally[i].1.push(format!(
                                "{}/{}/{variant}: got {}, oracle {expected} (length {units})",
                                key.input,
                                key.size,
                                shown(got)
                            ));
                        }
                    }
                }
            }
        }
        for (c, (count, failures)) in op.contenders.iter().zip(&tally) {
            if *count == 0 {
                continue;
            }
            if failures.is_empty() {
                passed += 1;
                let what = match c.agreement {
                    Agreement::Exact => format!("same result as {}", op.oracle),
                    Agreement::Verdict => format!("same verdict as {}", op.oracle),
                    Agreement::FullLength => "consumed the whole input".to_string(),
                    Agreement::ExactOnValid => {
                        format!("same result as {} (valid inputs only)", op.oracle)
                    }
                };
                out!("ok    {}/{}: {what} on {count} inputs", op.name, c.name);
            } else {
                failed += 1;
                out!(
                    "FAIL  {}/{}: disagrees with {}:",
                    op.name,
                    c.name,
                    op.oracle
                );
                for f in failures {
                    out!("        {f}");
                }
            }
        }
    }
    out!("check: {passed} passed, {failed} failed");
    failed == 0
}

/// A result for display (`INVALID` spelled out).
fn shown(x: usize) -> String {
    if x == crate::ops::INVALID {
        "INVALID".into()
    } else {
        x.to_string()
    }
}

/// The valid input and its corrupted variants, named.
fn variants(data: Data) -> Vec<(&'static str, Data)> {
    match data {
        Data::Utf8(b) => {
            let at = |i: usize| boundary_at_or_after(&b, i);
            let insert = |i: usize, bad: &[u8]| {
                let mut v = b.to_vec();
                v.splice(i..i, bad.iter().copied());
                Data::Utf8(v.into())
            };
            let mut late_ff = b.to_vec();
            match late_ff.len().checked_sub(3) {
                Some(i) => late_ff[i] = 0xFF,
                None => late_ff.push(0xFF),
            }
            vec![
                ("ff-late", Data::Utf8(late_ff.into())),
                ("truncated-end", insert(b.len(), &[0xE2, 0x82])),
                (
                    "surrogate-mid",
                    insert(at(b.len() / 2), &[0xED, 0xA0, 0x80]),
                ),
                ("continuation-first", insert(0, &[0x80])),
                ("above-ff-mid", insert(at(b.len() / 2), "Ā".as_bytes())),
                (
                    "overlong-late",
                    insert(at(b.len().saturating_sub(10)), &[0xC0, 0xAF]),
                ),
                ("valid", Data::Utf8(b)),
            ]
        }
        Data::Utf16(u) => {
            let mut mid = u.len() / 2;
            if u.get(mid).is_some_and(|x| (0xDC00..0xE000).contains(x)) {
                mid += 1;
            }
            let insert = |i: usize, bad: u16| {
                let mut v = u.to_vec();
                v.insert(i, bad);
                Data::Utf16(v.into())
            };
            vec![
                ("lone-high-end", insert(u.len(), 0xD800)),
                ("lone-low-mid", insert(mid, 0xDC00)),
                ("valid", Data::Utf16(u)),
            ]
        }
        Data::Utf16Be(b) => {
            let units: Vec<u16> = b
                .chunks_exact(2)
                .map(|p| u16::from_be_bytes([p[0], p[1]]))
                .collect();
            variants(Data::Utf16(units.into()))
                .into_iter()
                .map(|(name, data)| {
                    let Data::Utf16(u) = data else {
                        unreachable!("UTF-16 variants are UTF-16")
                    };
                    (name, Data::Utf16Be(crate::inputs::be_bytes(&u).into()))
                })
                .collect()
        }
        Data::Latin1(b) => vec![("valid", Data::Latin1(b))],
        Data::Utf32(u) => {
            let insert = |i: usize, bad: u32| {
                let mut v = u.to_vec();
                v.insert(i, bad);
                Data::Utf32(v.into())
            };
            vec![
                ("surrogate-mid", insert(u.len() / 2, 0xDC00)),
                ("above-10ffff-end", insert(u.len(), 0x11_0000)),
                ("max-first", insert(0, u32::MAX)),
                ("valid", Data::Utf32(u)),
            ]
        }
    }
}

/// First UTF-8 character boundary at or after `i` (or the end).
fn boundary_at_or_after(b: &[u8], i: usize) -> usize {
    (i..b.len())
        .find(|&j| b[j] & 0xC0 != 0x80)
        .unwrap_or(b.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::{Encoding, generated_families};
    use crate::ops::{Contender, Role};

    fn op(wrong: Contender) -> Operation {
        Operation::new("t", Encoding::Utf8, "std")
            .contender(Contender::utf8(
                "std",
                "std",
                Role::Peer,
                |b| match core::str::from_utf8(b) {
                    Ok(_) => b.len(),
                    Err(e) => e.valid_up_to(),
                },
            ))
            .contender(wrong)
    }

    #[test]
    fn agreeing_contenders_pass() {
        let ok = Contender::utf8("bool", "b", Role::Ours, |b| {
            if core::str::from_utf8(b).is_ok() {
                b.len()
            } else {
                crate::ops::INVALID
            }
        })
        .agreement(Agreement::Verdict);
        assert!(run(&mut [op(ok)], &generated_families(), &[Size(100)], &[]));
    }

    #[test]
    fn a_contender_that_always_says_valid_fails() {
        let liar =
            Contender::utf8("liar", "l", Role::Ours, |b| b.len()).agreement(Agreement::Verdict);
        assert!(!run(
            &mut [op(liar)],
            &generated_families(),
            &[Size(100)],
            &[]
        ));
    }

    #[test]
    fn a_wrong_position_fails_exact_but_not_verdict() {
        let off = |b: &[u8]| match core::str::from_utf8(b) {
            Ok(_) => b.len(),
            Err(e) => e.valid_up_to() + 1,
        };
        let exact = Contender::utf8("off", "o", Role::Peer, off);
        assert!(!run(
            &mut [op(exact)],
            &generated_families(),
            &[Size(100)],
            &[]
        ));
        let verdict = Contender::utf8("off", "o", Role::Peer, off).agreement(Agreement::Verdict);
        assert!(run(
            &mut [op(verdict)],
            &generated_families(),
            &[Size(100)],
            &[]
        ));
    }

    #[test]
    fn variants_are_invalid_except_valid() {
        let fam = &generated_families()[1];
        for size in [0, 1, 64, 1000] {
            for (name, data) in variants(fam.data(Encoding::Utf8, size)) {
                let Data::Utf8(b) = data else { unreachable!() };
                assert_eq!(
                    core::str::from_utf8(&b).is_ok(),
                    name == "valid" || name == "above-ff-mid",
                    "{name} at {size}"
                );
            }
            for (name, data) in variants(fam.data(Encoding::Utf16, size)) {
                let Data::Utf16(u) = data else { unreachable!() };
                assert_eq!(
                    String::from_utf16(&u).is_ok(),
                    name == "valid",
                    "{name} at {size}"
                );
            }
            for (name, data) in variants(fam.data(Encoding::Utf32, size)) {
                let Data::Utf32(u) = data else { unreachable!() };
                assert_eq!(
                    u.iter().all(|&v| char::from_u32(v).is_some()),
                    name == "valid",
                    "{name} at {size}"
                );
            }
        }
    }
}
