//! Every UTF-8 ⇄ UTF-16 kernel the CPU has, forced, agrees with std on
//! native, LE and BE output, strict and lossy, with exactly-sized output
//! buffers followed by a guard that must survive; so do the length
//! functions and the character count; and the dispatched conversion of a
//! `&str` (no validation).
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8kit::{Kernel, transcode};

const GUARD: u8 = 0xA5;

fuzz_target!(|data: &[u8]| {
    let std_utf16: Option<Vec<u16>> = core::str::from_utf8(data)
        .ok()
        .map(|s| s.encode_utf16().collect());
    let units: Vec<u16> = data
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    let std_utf8 = String::from_utf16(&units).ok();
    let std_lossy = String::from_utf16_lossy(&units);
    let be_bytes: Vec<u8> = units.iter().flat_map(|u| u.to_be_bytes()).collect();

    // UTF-8 → UTF-16 of a `&str` (the detected kernel, no validation).
    if let (Ok(text), Some(expected)) = (core::str::from_utf8(data), &std_utf16) {
        let n = expected.len();
        let mut out = vec![0xA5A5_u16; n + 1];
        assert_eq!(
            transcode::valid_utf8_to_utf16_into(text, &mut out[..n]),
            Ok(n)
        );
        assert_eq!(&out[..n], &expected[..]);
        assert_eq!(
            out[n], 0xA5A5,
            "valid_utf8_to_utf16_into wrote past the output"
        );
        assert_eq!(&transcode::valid_utf8_to_utf16(text), expected);
    }

    for kernel in Kernel::available() {
        // UTF-8 → UTF-16 (native units).
        if let Some(expected) = &std_utf16 {
            let n = expected.len();
            assert_eq!(transcode::utf16_len_from_utf8_with(kernel, data), Some(n));
            let text = core::str::from_utf8(data).expect("valid");
            assert_eq!(
                transcode::count_chars_with(kernel, text),
                Some(text.chars().count()),
                "{kernel:?}"
            );
            let mut out = vec![0xA5A5_u16; n + 1];
            let got =
                transcode::utf8_to_utf16_with(kernel, data, &mut out[..n]).expect("available");
            assert_eq!(got, Ok(n), "{kernel:?}");
            assert_eq!(&out[..n], &expected[..], "{kernel:?}");
            assert_eq!(out[n], 0xA5A5, "{kernel:?} wrote past the output");

            // LE and BE bytes.
            let le: Vec<u8> = expected.iter().flat_map(|u| u.to_le_bytes()).collect();
            let be: Vec<u8> = expected.iter().flat_map(|u| u.to_be_bytes()).collect();
            for (want, big) in [(&le, false), (&be, true)] {
                let mut out = vec![GUARD; want.len() + 1];
                let room = &mut out[..want.len()];
                let got = if big {
                    transcode::utf8_to_utf16be_with(kernel, data, room)
                } else {
                    transcode::utf8_to_utf16le_with(kernel, data, room)
                };
                assert_eq!(
                    got.expect("available"),
                    Ok(want.len()),
                    "{kernel:?} be={big}"
                );
                assert_eq!(&out[..want.len()], &want[..], "{kernel:?} be={big}");
                assert_eq!(
                    out[want.len()],
                    GUARD,
                    "{kernel:?} be={big} wrote past the output"
                );
            }
        } else {
            let mut out = vec![0_u16; data.len()];
            let got = transcode::utf8_to_utf16_with(kernel, data, &mut out).expect("available");
            let e = core::str::from_utf8(data).unwrap_err();
            match got {
                Err(transcode::TranscodeError::Invalid(err)) => assert_eq!(
                    (err.valid_up_to(), err.error_len()),
                    (e.valid_up_to(), e.error_len()),
                    "{kernel:?}"
                ),
                other => panic!("{kernel:?}: {other:?}"),
            }
        }

        // UTF-16 → UTF-8, strict and lossy.
        let mut out = vec![GUARD; std_lossy.len() + 1];
        let n = std_lossy.len();
        let got = transcode::utf16_to_utf8_lossy_with(kernel, &units, &mut out[..n]);
        assert_eq!(got, Some(n), "{kernel:?}");
        assert_eq!(&out[..n], std_lossy.as_bytes(), "{kernel:?}");
        assert_eq!(out[n], GUARD, "{kernel:?} wrote past the output");
        assert_eq!(
            transcode::utf8_len_from_utf16_with(kernel, &units),
            Some(n),
            "{kernel:?}"
        );
        // Big-endian bytes: the same result as native units.
        let mut be_out = vec![GUARD; n + 1];
        let be_got = transcode::utf16be_to_utf8_with(kernel, &be_bytes, &mut be_out[..n]);
        assert_eq!(be_out[n], GUARD, "{kernel:?} BE wrote past the output");
        let got = transcode::utf16_to_utf8_with(kernel, &units, &mut out[..n]).expect("available");
        assert_eq!(be_got, Some(got), "{kernel:?} BE");
        if let Ok(m) = got {
            assert_eq!(be_out[..m], out[..m], "{kernel:?} BE");
        }
        match &std_utf8 {
            Some(s) => {
                assert_eq!(got, Ok(s.len()), "{kernel:?}");
                assert_eq!(&out[..s.len()], s.as_bytes(), "{kernel:?}");
                assert_eq!(
                    transcode::utf8_len_from_utf16_with(kernel, &units),
                    Some(s.len())
                );
            }
            None => {
                let bad = char::decode_utf16(units.iter().copied())
                    .scan(0usize, |at, r| {
                        let here = *at;
                        *at += r.as_ref().map_or(1, |c| c.len_utf16());
                        Some((here, r.is_err()))
                    })
                    .find(|&(_, err)| err)
                    .map(|(i, _)| i);
                match got {
                    Err(transcode::TranscodeError::Invalid(e)) => {
                        assert_eq!(Some(e.index()), bad, "{kernel:?}");
                    }
                    other => panic!("{kernel:?}: {other:?}"),
                }
            }
        }
    }
});
