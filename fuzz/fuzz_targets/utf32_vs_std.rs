//! UTF-8 ⇄ UTF-32 agrees with std (`chars`, `char::from_u32`), for valid
//! and invalid input, strict and lossy, through every kernel the CPU has
//! (forced with the `_with` functions, exact-size buffers and a guard
//! after them); so do the UTF-8 length of UTF-32 and `count_chars`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use utf8kit::{Kernel, transcode};

fuzz_target!(|data: &[u8]| {
    // UTF-8 → UTF-32.
    let expected: Result<Vec<u32>, _> =
        core::str::from_utf8(data).map(|s| s.chars().map(u32::from).collect());
    match &expected {
        Ok(units) => assert_eq!(&transcode::utf8_to_utf32(data).expect("valid"), units),
        Err(e) => {
            let err = transcode::utf8_to_utf32(data).unwrap_err();
            assert_eq!(
                (err.valid_up_to(), err.error_len()),
                (e.valid_up_to(), e.error_len())
            );
        }
    }
    for kernel in Kernel::available() {
        // Exactly the room the output needs, plus a guard that must survive.
        let room = expected.as_ref().map_or(data.len(), Vec::len);
        let mut out = vec![0xDEAD_BEEF_u32; room + 1];
        let got = transcode::utf8_to_utf32_with(kernel, data, &mut out[..room]).expect("available");
        match &expected {
            Ok(units) => {
                assert_eq!(got, Ok(units.len()), "{kernel:?}");
                assert_eq!(&out[..room], &units[..], "{kernel:?}");
            }
            Err(e) => match got {
                Err(transcode::TranscodeError::Invalid(err)) => assert_eq!(
                    (err.valid_up_to(), err.error_len()),
                    (e.valid_up_to(), e.error_len()),
                    "{kernel:?}"
                ),
                other => panic!("{kernel:?}: {other:?}"),
            },
        }
        assert_eq!(out[room], 0xDEAD_BEEF, "{kernel:?} wrote past the output");
    }

    if let Ok(text) = core::str::from_utf8(data) {
        for kernel in Kernel::available() {
            assert_eq!(
                transcode::count_chars_with(kernel, text),
                Some(text.chars().count()),
                "{kernel:?}"
            );
        }
    }

    // The same bytes read as UTF-32 values (surrogates, values above 10FFFF).
    let units: Vec<u32> = data
        .chunks_exact(4)
        .map(|q| u32::from_le_bytes([q[0], q[1], q[2], q[3]]))
        .collect();
    check_utf32(&units);
    // And folded so that most are scalar values: the top two bits pick
    // ASCII, up to 7FF, any value up to 10FFFF (surrogates included), or
    // the raw value.
    let folded: Vec<u32> = units
        .iter()
        .map(|&v| match v >> 30 {
            0 => v & 0x7F,
            1 => v & 0x7FF,
            2 => v % 0x11_0000,
            _ => v,
        })
        .collect();
    check_utf32(&folded);
});

/// UTF-32 → UTF-8, strict and lossy, dispatched and under every kernel,
/// against std.
fn check_utf32(units: &[u32]) {
    let first_bad = units.iter().position(|&u| char::from_u32(u).is_none());
    match transcode::utf32_to_utf8(units) {
        Ok(s) => {
            assert_eq!(first_bad, None);
            let expected: String = units.iter().filter_map(|&u| char::from_u32(u)).collect();
            assert_eq!(s, expected);
            assert_eq!(transcode::utf8_len_from_utf32(units), s.len());
        }
        Err(e) => assert_eq!(Some(e.index()), first_bad),
    }
    let lossy: String = units
        .iter()
        .map(|&u| char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    assert_eq!(transcode::utf32_to_utf8_lossy(units), lossy);
    let need = lossy.len();
    // The dispatched function (its common case is inline in the caller),
    // exact room then one byte short.
    let mut out = vec![0xA5u8; need + 1];
    let got = transcode::utf32_to_utf8_into(units, &mut out[..need]);
    match first_bad {
        None => {
            assert_eq!(got, Ok(need));
            assert_eq!(&out[..need], lossy.as_bytes());
        }
        Some(i) => match got {
            Err(transcode::TranscodeError::Invalid(e)) => {
                assert_eq!((e.index(), e.value()), (i, units[i]))
            }
            other => panic!("dispatched: {other:?}"),
        },
    }
    assert_eq!(out[need], 0xA5, "dispatched: wrote past the output");
    if need > 0 && first_bad.is_none() {
        let got = transcode::utf32_to_utf8_into(units, &mut out[..need - 1]);
        assert_eq!(
            got,
            Err(transcode::TranscodeError::BufferTooSmall { needed: need })
        );
        assert_eq!(
            out[need - 1],
            lossy.as_bytes()[need - 1],
            "dispatched: wrote past the room"
        );
    }
    for kernel in Kernel::available() {
        assert_eq!(
            transcode::utf8_len_from_utf32_with(kernel, units),
            Some(need),
            "{kernel:?}"
        );
        let mut out = vec![0xA5u8; need + 1];
        let got = transcode::utf32_to_utf8_lossy_with(kernel, units, &mut out[..need]);
        assert_eq!(got, Some(need), "{kernel:?}");
        assert_eq!(&out[..need], lossy.as_bytes(), "{kernel:?}");
        assert_eq!(out[need], 0xA5, "{kernel:?} wrote past the output");
        let mut out = vec![0xA5u8; need + 1];
        let got =
            transcode::utf32_to_utf8_with(kernel, units, &mut out[..need]).expect("available");
        match first_bad {
            None => {
                assert_eq!(got, Ok(need), "{kernel:?}");
                assert_eq!(&out[..need], lossy.as_bytes(), "{kernel:?}");
            }
            Some(i) => match got {
                Err(transcode::TranscodeError::Invalid(e)) => {
                    assert_eq!((e.index(), e.value()), (i, units[i]), "{kernel:?}")
                }
                other => panic!("{kernel:?}: {other:?}"),
            },
        }
        assert_eq!(out[need], 0xA5, "{kernel:?} wrote past the output");
        // Half the room: the exact need and the prefix that fits.
        let half = need / 2;
        let mut out = vec![0xA5u8; half + 1];
        let got = transcode::utf32_to_utf8_lossy_with(kernel, units, &mut out[..half]);
        assert_eq!(got, Some(need), "{kernel:?}");
        assert_eq!(&out[..half], &lossy.as_bytes()[..half], "{kernel:?}");
        assert_eq!(out[half], 0xA5, "{kernel:?} wrote past the output");
    }
}
