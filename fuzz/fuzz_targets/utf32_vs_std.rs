//! UTF-8 ⇄ UTF-32 agrees with std (`chars`, `char::from_u32`), for valid
//! and invalid input, strict and lossy, through every kernel the CPU has.
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

    // The same bytes read as UTF-32 values (surrogates, values above 10FFFF).
    let units: Vec<u32> = data
        .chunks_exact(4)
        .map(|q| u32::from_le_bytes([q[0], q[1], q[2], q[3]]))
        .collect();
    let first_bad = units.iter().position(|&u| char::from_u32(u).is_none());
    match transcode::utf32_to_utf8(&units) {
        Ok(s) => {
            assert_eq!(first_bad, None);
            let expected: String = units.iter().filter_map(|&u| char::from_u32(u)).collect();
            assert_eq!(s, expected);
            assert_eq!(transcode::utf8_len_from_utf32(&units), s.len());
        }
        Err(e) => assert_eq!(Some(e.index()), first_bad),
    }
    let lossy: String = units
        .iter()
        .map(|&u| char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    assert_eq!(transcode::utf32_to_utf8_lossy(&units), lossy);
});
